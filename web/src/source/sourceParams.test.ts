import { describe, expect, it } from "vitest";
import type { SourceParam } from "../api/sourceSchemas";
import { sourceParam } from "../api/sourceSchemas";
import { describeSourceParam, groupSourceParams, isPathParam, parseSourceParam } from "./sourceParams";

function param(fields: Partial<SourceParam> & Pick<SourceParam, "name" | "type">): SourceParam {
  return sourceParam.parse({ group: null, ...fields });
}

describe("parseSourceParam", () => {
  const input = param({ name: "input", type: "string", pattern: "^\\S+\\.csv$", format: "file-path", required: true });

  it("accepts a string matching the schema's pattern", () => {
    expect(parseSourceParam(input, "samplesheet.csv")).toEqual({ ok: true, value: "samplesheet.csv" });
  });

  it("refuses a string the pattern does not match, naming the pattern", () => {
    expect(parseSourceParam(input, "sheet.tsv")).toEqual({ ok: false, reason: "must match ^\\S+\\.csv$" });
  });

  it("leaves a pattern this browser cannot compile to the runtime", () => {
    const odd = param({ name: "odd", type: "string", pattern: "(?P<x>a)" });
    expect(parseSourceParam(odd, "anything")).toEqual({ ok: true, value: "anything" });
  });

  it("reads integers and numbers within the schema's range", () => {
    const cpus = param({ name: "max_cpus", type: "integer", minimum: 1, maximum: 64 });
    expect(parseSourceParam(cpus, " 16 ")).toEqual({ ok: true, value: 16 });
    expect(parseSourceParam(cpus, "1.5")).toEqual({ ok: false, reason: "enter a whole number" });
    expect(parseSourceParam(cpus, "0")).toEqual({ ok: false, reason: "must be between 1 and 64" });
    expect(parseSourceParam(cpus, "")).toEqual({ ok: false, reason: "enter a number" });
    const ratio = param({ name: "ratio", type: "number", minimum: 0.5 });
    expect(parseSourceParam(ratio, "0.75")).toEqual({ ok: true, value: 0.75 });
    expect(parseSourceParam(ratio, "0.1")).toEqual({ ok: false, reason: "must be at least 0.5" });
  });

  it("holds enums to their choices, by type", () => {
    const method = param({ name: "download_method", type: "string", enum: ["aspera", "ftp", "sratools"] });
    expect(parseSourceParam(method, "ftp")).toEqual({ ok: true, value: "ftp" });
    expect(parseSourceParam(method, "http")).toEqual({ ok: false, reason: "choose one of aspera, ftp, sratools" });
    const level = param({ name: "level", type: "integer", enum: [1, 2] });
    expect(parseSourceParam(level, "2")).toEqual({ ok: true, value: 2 });
    expect(parseSourceParam(level, "3")).toMatchObject({ ok: false });
  });

  it("takes booleans only from the switch", () => {
    const skip = param({ name: "skip_trim", type: "boolean" });
    expect(parseSourceParam(skip, true)).toEqual({ ok: true, value: true });
    expect(parseSourceParam(skip, "true")).toEqual({ ok: false, reason: "choose on or off" });
  });

  it("refuses a path Nextflow would not stage literally, as the runtime does", () => {
    expect(parseSourceParam(input, "sheets/*.csv")).toEqual({ ok: false, reason: "the path holds `*`, which Nextflow would not stage literally" });
    expect(parseSourceParam(input, "a\tb.csv")).toEqual({
      ok: false,
      reason: "the path holds the control character U+0009, which Nextflow would not stage literally",
    });
    const title = param({ name: "multiqc_title", type: "string" });
    expect(parseSourceParam(title, "run {1}")).toEqual({ ok: true, value: "run {1}" });
  });

  it("bounds strings like every parameter", () => {
    const text = param({ name: "title", type: "string" });
    expect(parseSourceParam(text, "x".repeat(4097))).toEqual({ ok: false, reason: "at most 4096 bytes" });
    expect(parseSourceParam(text, "a\0b")).toMatchObject({ ok: false });
  });
});

describe("describing and grouping", () => {
  it("says what a path field wants", () => {
    const outdir = param({ name: "outdir", type: "string", format: "directory-path", required: true });
    expect(isPathParam(outdir)).toBe(true);
    expect(describeSourceParam(outdir)).toBe("folder path");
    const skip = param({ name: "skip", type: "boolean", default: false });
    expect(isPathParam(skip)).toBe(false);
    expect(describeSourceParam(skip)).toBe("on / off · default false");
  });

  it("keeps schema order by group and sets hidden optional parameters apart", () => {
    const { visible, hidden } = groupSourceParams([
      param({ name: "input", type: "string", group: "input_output_options", required: true }),
      param({ name: "genome", type: "string", group: "reference_genome_options" }),
      param({ name: "outdir", type: "string", group: "input_output_options", required: true }),
      param({ name: "igenomes_base", type: "string", group: "reference_genome_options", hidden: true }),
      param({ name: "secret_but_required", type: "string", group: null, hidden: true, required: true }),
    ]);
    expect(visible.map((g) => [g.title, g.params.map((p) => p.name)])).toEqual([
      ["Input output options", ["input", "outdir"]],
      ["Reference genome options", ["genome"]],
      ["Other parameters", ["secret_but_required"]],
    ]);
    expect(hidden.map((p) => p.name)).toEqual(["igenomes_base"]);
  });
});
