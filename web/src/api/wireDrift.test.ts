/**
 * The web's zod schemas against the runtime's own types.
 *
 * `generated/wire.schema.json` holds the JSON Schemas of the views the
 * runtime serves, exported from the Rust types that serialize them (see
 * crates/somite-server/src/wire_schemas.rs, which fails when the file is
 * stale). Each zod schema below is converted to a JSON Schema of what it
 * accepts and compared, recursively, with the view it parses. The web may
 * read fewer members than the runtime sends (objects parse non-strictly),
 * but never one the runtime does not have, never insist on one the runtime
 * may leave out, never refuse a `null` the runtime may send, and its enums
 * name exactly the runtime's values.
 *
 * A new area adds its pairs to `WIRE_VIEWS` (its zod schema, the Rust type's
 * name under `$defs`) after adding the type to the Rust export.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod/mini";
import * as s from "./schemas";

const WIRE_VIEWS: ReadonlyArray<readonly [string, z.ZodMiniType, string]> = [
  ["errorEnvelope", s.errorEnvelope, "Error"],
  ["workflowView", s.workflowView, "WorkflowView"],
  ["workflowRevision", s.workflowRevision, "GraphView"],
  ["transactionReply", s.transactionReply, "TransactionReply"],
  ["rebound", s.rebound, "Rebound"],
  ["activityPage", s.activityPage, "ActivityPage"],
  ["catalogPage", s.catalogPage, "SearchPage"],
  ["assessment", s.assessment, "Assessment"],
  ["compileSummary", s.compileSummary, "CompileSummary"],
  ["runStarted", s.runStarted, "RunStarted"],
  ["runStatus", s.runStatus, "RunStatus"],
  ["evidenceLookup", s.evidenceLookup, "EvidenceLookup"],
];

type Schema = { readonly [key: string]: unknown } | boolean;
type Defs = Readonly<Record<string, Schema>>;

const wire = JSON.parse(
  readFileSync(new URL("./generated/wire.schema.json", import.meta.url), "utf8"),
) as { $defs: Defs };

function record(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `schema` with `$ref`s into `defs` followed. */
function resolve(schema: unknown, defs: Defs): Readonly<Record<string, unknown>> {
  let current = schema;
  for (let hops = 0; hops < 32; hops += 1) {
    const object = record(current);
    const ref = object?.["$ref"];
    if (typeof ref !== "string") return object ?? {};
    const name = ref.replace(/^#\/\$defs\//, "");
    current = defs[name];
    if (current === undefined) throw new Error(`dangling $ref ${ref}`);
  }
  throw new Error("a $ref cycle");
}

/** The alternatives of a union schema (itself when it is none). */
function alternatives(schema: unknown, defs: Defs): Readonly<Record<string, unknown>>[] {
  const object = resolve(schema, defs);
  const union = object["anyOf"] ?? object["oneOf"];
  return Array.isArray(union) ? union.flatMap((member) => alternatives(member, defs)) : [object];
}

function typesOf(object: Readonly<Record<string, unknown>>): string[] {
  const type = object["type"];
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : [];
}

function acceptsNull(schema: unknown, defs: Defs): boolean {
  if (schema === true) return true;
  return alternatives(schema, defs).some((alt) => {
    const types = typesOf(alt);
    const constrained = types.length > 0 || "enum" in alt || "const" in alt || "properties" in alt;
    return !constrained || types.includes("null") || (Array.isArray(alt["enum"]) && alt["enum"].includes(null));
  });
}

/** The string values of an enum schema, or `undefined` for anything else. */
function enumValues(schema: unknown, defs: Defs): string[] | undefined {
  const values: string[] = [];
  for (const alt of alternatives(schema, defs)) {
    if (typesOf(alt).length === 1 && typesOf(alt)[0] === "null") continue;
    if (typeof alt["const"] === "string") values.push(alt["const"]);
    else if (Array.isArray(alt["enum"])) values.push(...alt["enum"].filter((v): v is string => typeof v === "string"));
    else return undefined;
  }
  return values.length > 0 ? values.sort() : undefined;
}

/** The members of an object schema, with `allOf` parts merged. */
function members(schema: unknown, defs: Defs): { properties: Record<string, unknown>; required: Set<string> } | undefined {
  const parts = alternatives(schema, defs).filter((alt) => !(typesOf(alt).length === 1 && typesOf(alt)[0] === "null"));
  if (parts.length !== 1 || parts[0] === undefined) return undefined;
  const properties: Record<string, unknown> = {};
  const required = new Set<string>();
  const visit = (object: Readonly<Record<string, unknown>>) => {
    Object.assign(properties, record(object["properties"]) ?? {});
    const names = object["required"];
    if (Array.isArray(names)) for (const name of names) if (typeof name === "string") required.add(name);
    const all = object["allOf"];
    if (Array.isArray(all)) for (const part of all) visit(resolve(part, defs));
  };
  visit(parts[0]);
  return Object.keys(properties).length > 0 ? { properties, required } : undefined;
}

/**
 * Where the web's schema `web` disagrees with the runtime's `rust`.
 * `present` is false for a member the runtime leaves out rather than send
 * null (`skip_serializing_if`): its schema admits null all the same.
 */
function drift(web: unknown, rust: unknown, path: string, depth = 0, present = true): string[] {
  if (depth > 24) return [];
  const problems: string[] = [];
  if (present && acceptsNull(rust, wire.$defs) && !acceptsNull(web, {})) {
    problems.push(`${path}: the runtime may send null, the web refuses it`);
  }
  const rustEnum = enumValues(rust, wire.$defs);
  const webEnum = enumValues(web, {});
  if (rustEnum && webEnum && rustEnum.join() !== webEnum.join()) {
    problems.push(`${path}: the web's values [${webEnum.join(", ")}] are not the runtime's [${rustEnum.join(", ")}]`);
  }
  const webObject = members(web, {});
  const rustObject = members(rust, wire.$defs);
  if (webObject && rustObject) {
    for (const [name, webMember] of Object.entries(webObject.properties)) {
      const rustMember = rustObject.properties[name];
      if (rustMember === undefined) {
        problems.push(`${path}.${name}: the web reads a member the runtime does not send`);
        continue;
      }
      if (webObject.required.has(name) && !rustObject.required.has(name)) {
        problems.push(`${path}.${name}: the web requires a member the runtime may leave out`);
      }
      problems.push(...drift(webMember, rustMember, `${path}.${name}`, depth + 1, rustObject.required.has(name)));
    }
  }
  const webItems = alternatives(web, {}).find((alt) => alt["items"] !== undefined)?.["items"];
  const rustItems = alternatives(rust, wire.$defs).find((alt) => alt["items"] !== undefined)?.["items"];
  if (webItems !== undefined && rustItems !== undefined) {
    problems.push(...drift(webItems, rustItems, `${path}[]`, depth + 1));
  }
  const webValues = record(alternatives(web, {}).find((alt) => record(alt["additionalProperties"]))?.["additionalProperties"]);
  const rustValues = record(
    alternatives(rust, wire.$defs).find((alt) => record(alt["additionalProperties"]))?.["additionalProperties"],
  );
  if (webValues && rustValues) problems.push(...drift(webValues, rustValues, `${path}{}`, depth + 1));
  return problems;
}

function webSchema(schema: z.ZodMiniType): unknown {
  // What the web accepts (`input`): defaults make a member optional.
  return z.toJSONSchema(schema, { io: "input", unrepresentable: "any", reused: "inline" });
}

describe("the web's wire schemas", () => {
  // By name: vitest would format a zod schema passed as a case's argument.
  const views = new Map(WIRE_VIEWS.map(([name, schema]) => [name, schema]));
  it.each(WIRE_VIEWS.map(([name, , rustName]) => [name, rustName]))("%s parses exactly what the runtime's %s sends", (name, rustName) => {
    const schema = views.get(name);
    const rust = wire.$defs[rustName];
    if (schema === undefined) throw new Error(`no web schema ${name}`);
    expect(rust, `${rustName} is not in generated/wire.schema.json`).toBeDefined();
    expect(drift(webSchema(schema), rust, name)).toEqual([]);
  });

  it("catches a member the runtime does not send, a required optional member and a changed enum", () => {
    const rust = wire.$defs["RunStarted"];
    const invented = z.object({ run_id: z.string(), launched_by: z.string() });
    const strict = z.object({ replayed: z.boolean(), kind: z.enum(["run"]) });
    expect(drift(webSchema(invented), rust, "runStarted")).toEqual([
      "runStarted.launched_by: the web reads a member the runtime does not send",
    ]);
    expect(drift(webSchema(strict), rust, "runStarted")).toEqual([
      "runStarted.kind: the web's values [run] are not the runtime's [run, validation]",
    ]);
    const status = wire.$defs["RunStatus"];
    expect(drift(webSchema(z.object({ ended_at: z.string() })), status, "runStatus")).toEqual([
      "runStatus.ended_at: the runtime may send null, the web refuses it",
    ]);
    const compile = wire.$defs["CompileSummary"];
    expect(drift(webSchema(z.object({ pixi_failure: z.string() })), compile, "compileSummary")).toEqual([
      "compileSummary.pixi_failure: the web requires a member the runtime may leave out",
    ]);
  });
});
