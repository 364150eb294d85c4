/**
 * Replacing a process invocation of a pinned pipeline with a catalog
 * operator (issue 22), as far as the page decides it: which invocation a
 * call on the nested outline is, which catalog operators could stand in
 * for it, and the port mapping offered first. All by type, the way the
 * runtime matches an omitted map; the runtime checks the mapping that is
 * sent again and names the exact port it refuses.
 *
 * Pure: the outline view draws and sends what these return.
 */
import type { Invocation, InvocationPort, Replacement } from "../api/sourceSchemas";
import type { CatalogMatch } from "../api/types";

/** A port of an operator as the catalog search and a pinned contract both describe it. */
export interface OperatorPort {
  readonly name: string;
  readonly type: string;
  readonly union: readonly string[];
  readonly optional: boolean;
}

/** From the invocation's port to the operator's; a port left out is not mapped. */
export interface PortMapping {
  readonly inputs: Readonly<Record<string, string>>;
  readonly outputs: Readonly<Record<string, string>>;
}

/**
 * The invocation a call on the outline stands for: its fully-qualified
 * name is the chain of call names opened to reach the block, then the
 * call's own. When that name is not among the invocations (a block reached
 * another way), the one invocation of the same call in the same workflow.
 */
export function invocationFor(
  invocations: readonly Invocation[],
  path: readonly string[],
  workflow: string | null,
  call: string,
): Invocation | undefined {
  const id = [...path, call].join(":");
  const exact = invocations.find((i) => i.id === id);
  if (exact) return exact;
  const same = invocations.filter((i) => i.call === call && i.workflow === workflow);
  return same.length === 1 ? same[0] : undefined;
}

/** An invocation's input of `type` can feed the operator's `port`. */
export function inputFits(type: string | null, port: OperatorPort): boolean {
  return type !== null && (port.type === type || port.union.includes(type));
}

/** The operator's `port` can stand for an invocation's output of `type`. */
export function outputFits(type: string | null, port: OperatorPort): boolean {
  return type !== null && port.type === type;
}

/**
 * The mapping offered first: each typed invocation port, in declaration
 * order, takes the first operator port of a fitting type not taken yet.
 */
export function mappingByType(
  invocation: Pick<Invocation, "inputs" | "outputs">,
  operator: { readonly inputs: readonly OperatorPort[]; readonly outputs: readonly OperatorPort[] },
): PortMapping {
  const assign = (ports: readonly InvocationPort[], candidates: readonly OperatorPort[], fits: typeof inputFits) => {
    const taken = new Set<string>();
    const map: Record<string, string> = {};
    for (const port of ports) {
      const match = candidates.find((c) => !taken.has(c.name) && fits(port.type, c));
      if (!match) continue;
      taken.add(match.name);
      map[port.name] = match.name;
    }
    return map;
  };
  return {
    inputs: assign(invocation.inputs, operator.inputs, inputFits),
    outputs: assign(invocation.outputs, operator.outputs, outputFits),
  };
}

/**
 * Why `mapping` cannot be sent, if it cannot: an operator input that needs
 * data and gets none, an operator port given twice, or nothing the
 * replacement would produce for the pipeline.
 */
export function mappingProblem(
  mapping: PortMapping,
  operator: { readonly inputs: readonly OperatorPort[]; readonly outputs: readonly OperatorPort[] },
): string | undefined {
  const fed = Object.values(mapping.inputs);
  const unfed = operator.inputs.find((p) => !p.optional && !fed.includes(p.name));
  if (unfed) return `the operator's input ${unfed.name} (${unfed.type}) is fed by no input of the call`;
  for (const [direction, values] of [["input", fed], ["output", Object.values(mapping.outputs)]] as const) {
    const twice = values.find((v, index) => values.indexOf(v) !== index);
    if (twice) return `the operator's ${direction} ${twice} is mapped twice`;
  }
  if (Object.keys(mapping.outputs).length === 0) return "no output of the call is mapped: the replacement would give the pipeline nothing";
  return undefined;
}

/**
 * The nf-core module an invocation's process comes from
 * (`modules/nf-core/bwa/mem/main.nf` → `bwa/mem`), as the runtime reads it.
 */
export function nfCoreModule(file: string): string | undefined {
  const at = file.indexOf("modules/nf-core/");
  if (at < 0 || !file.endsWith("/main.nf")) return undefined;
  return file.slice(at + "modules/nf-core/".length, -"/main.nf".length) || undefined;
}

/**
 * The operators standing for `invocation`'s own nf-core module: their
 * contracts declare how they meet its channels, so no mapping is sent and
 * the runtime checks theirs.
 */
export function counterparts(invocation: Pick<Invocation, "file">, matches: readonly CatalogMatch[]): CatalogMatch[] {
  const module = nfCoreModule(invocation.file);
  return module === undefined ? [] : matches.filter((m) => m.nf_core_module === module);
}

/** The catalog operators that could replace `invocation`: the mapping by type leaves no problem. */
export function fittingOperators(invocation: Invocation, matches: readonly CatalogMatch[]): CatalogMatch[] {
  return matches.filter(
    (m) => m.kind !== "source" && mappingProblem(mappingByType(invocation, m), m) === undefined,
  );
}

/** The replacement a source node records for `invocation`, if any. */
export function replacementOf(replacements: readonly Replacement[] | undefined, invocation: string): Replacement | undefined {
  return replacements?.find((r) => r.invocation === invocation);
}

/**
 * The part of a refusal of replacing or promoting that names where it
 * failed (`invocation_port_incompatible`, `promotion_refused`,
 * `unknown_invocation`), in words; `undefined` for any other failure.
 */
export function refusalDetail(code: string | undefined, details: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const text = (key: string) => (typeof details?.[key] === "string" ? details[key] : undefined);
  const invocation = text("invocation");
  switch (code) {
    case "invocation_port_incompatible": {
      const port = text("port");
      if (!port) return undefined;
      const found = text("found_type") ?? "an unknown type";
      const expected = text("expected_type");
      return `${text("direction") ?? "port"} ${port} of ${invocation ?? "the call"} is ${found}${expected ? `; the operator's port takes ${expected}` : ""}`;
    }
    case "promotion_refused": {
      const obstacle = text("obstacle");
      return invocation && obstacle ? `${invocation}: ${obstacle.replaceAll("_", " ")}` : undefined;
    }
    case "unknown_invocation":
      return invocation ? `${invocation} is not a process call of the pinned tree` : undefined;
    default:
      return undefined;
  }
}
