import { describe, expect, it } from "vitest";
import type { ParamSpec } from "../api/types";
import { sourceParam } from "../api/sourceSchemas";
import { sourceFieldSpec } from "../source/sourceParams";
import { catalogFieldSpec } from "./fieldSpec";

const threads: ParamSpec = { name: "threads", type: "int", label: "Threads", default: 2, required: false, min: 1, max: 16 };

describe("catalogFieldSpec", () => {
  it("labels, reads and describes an operator parameter from its contract", () => {
    const field = catalogFieldSpec(threads, false);
    expect(field).toMatchObject({ name: "threads", label: "Threads", labelIsCode: false, control: "text", numeric: "int", resetVerb: "Reset", emptyUnsets: false });
    expect(field.hint).toBe("int · 1 – 16 · default 2");
    expect(field.parse("8")).toEqual({ ok: true, value: 8 });
    expect(field.parse("")).toEqual({ ok: false, reason: "enter a number" });
    expect(field.parse("17")).toEqual({ ok: false, reason: "must be between 1 and 16" });
  });

  it("offers no reset of a required parameter and describes an imported path as a file", () => {
    const path: ParamSpec = { name: "path", type: "string", label: "File", required: true };
    expect(catalogFieldSpec(path, true)).toMatchObject({ resettable: false, isPath: true, hint: "local file path" });
  });

  it("picks the switch for a flag and the choice for a closed set", () => {
    expect(catalogFieldSpec({ name: "nogroup", type: "bool", label: "No group", required: false, default: false }, false).control).toBe("switch");
    expect(catalogFieldSpec({ name: "mode", type: "string", label: "Mode", required: false, choices: ["a", "b"] }, false)).toMatchObject({
      control: "choice",
      choices: ["a", "b"],
    });
  });
});

describe("sourceFieldSpec", () => {
  const input = sourceParam.parse({
    name: "input", group: null, type: "string", pattern: "^\\S+\\.csv$", format: "file-path", required: true, description: "Samplesheet",
  });

  it("names a schema parameter as the pipeline does, unsets on empty, and shows its pattern", () => {
    const field = sourceFieldSpec(input);
    expect(field).toMatchObject({
      name: "input", label: "input", labelIsCode: true, control: "text", isPath: true, resettable: true, resetVerb: "Unset",
      emptyUnsets: true, pattern: "^\\S+\\.csv$", help: "Samplesheet", hint: "file path",
    });
    expect(field.parse("sheet.tsv")).toEqual({ ok: false, reason: "must match ^\\S+\\.csv$" });
  });

  it("offers a schema enum as choices read back to their typed value", () => {
    const level = sourceParam.parse({ name: "level", group: null, type: "integer", enum: [1, 2, 3], default: 2 });
    const field = sourceFieldSpec(level);
    expect(field).toMatchObject({ control: "choice", choices: ["1", "2", "3"], defaultValue: 2, numeric: "int" });
    expect(field.parse("3")).toEqual({ ok: true, value: 3 });
  });
});
