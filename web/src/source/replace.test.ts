import { describe, expect, it } from "vitest";
import { catalogMatch as catalogMatchSchema } from "../api/schemas";
import { outlineReply } from "../api/sourceSchemas";
import { DEMO_COMMIT, DEMO_TREE } from "../testing/documents";
import { FASTQC, MULTIQC, SEQTK_TRIM, demoInvocations, fastpMatch, fastqcMatch, krakenMatch } from "../testing/sourceEdit";
import { counterparts, fittingOperators, invocationFor, mappingByType, mappingProblem, nfCoreModule, refusalDetail } from "./replace";

/** The contract's outline reply, parsed as the page parses it. */
const reply = outlineReply.parse({
  node_id: "source",
  repository: "nf-core/demo",
  commit: DEMO_COMMIT,
  tree_digest: DEMO_TREE,
  outline: { entry: "main.nf" },
  invocations: demoInvocations,
});
const invocations = reply.invocations;
const byId = (id: string) => {
  const found = invocations.find((i) => i.id === id);
  if (!found) throw new Error(`no ${id}`);
  return found;
};
const matches = [fastqcMatch, fastpMatch, krakenMatch].map((m) => catalogMatchSchema.parse(m));

describe("invocationFor", () => {
  it("names a call by the chain of calls opened to reach it", () => {
    expect(invocationFor(invocations, ["NFCORE_DEMO", "DEMO"], "DEMO", "FASTQC")?.id).toBe(FASTQC);
  });

  it("falls back to the one call of that name in that workflow, and to none when it is ambiguous", () => {
    expect(invocationFor(invocations, ["DEMO"], "DEMO", "MULTIQC")?.id).toBe(MULTIQC);
    const twice = [...invocations, { ...byId(FASTQC), id: "OTHER:DEMO:FASTQC" }];
    expect(invocationFor(twice, ["DEMO"], "DEMO", "FASTQC")).toBeUndefined();
    expect(invocationFor(invocations, [], null, "FASTQC")).toBeUndefined();
  });
});

describe("mappingByType", () => {
  it("maps FASTQC onto qc.fastqc by type and leaves an untyped output unmapped", () => {
    expect(mappingByType(byId(FASTQC), fastqcMatch)).toEqual({
      inputs: { reads: "reads" },
      outputs: { html: "report_html", zip: "report_zip" },
    });
  });

  it("feeds an input through the operator's union and takes each operator port once", () => {
    const twoReads = { inputs: [{ name: "a", type: "FastqGz", text: "" }, { name: "b", type: "FastqGz", text: "" }], outputs: [] };
    expect(mappingByType(twoReads, fastpMatch).inputs).toEqual({ a: "r1", b: "r2" });
  });
});

describe("mappingProblem", () => {
  it("accepts the mapping by type of a fitting operator", () => {
    expect(mappingProblem(mappingByType(byId(FASTQC), fastqcMatch), fastqcMatch)).toBeUndefined();
  });

  it("names a required operator input that nothing feeds", () => {
    expect(mappingProblem({ inputs: {}, outputs: { html: "report_html" } }, fastqcMatch)).toBe(
      "the operator's input reads (Fastq) is fed by no input of the call",
    );
  });

  it("refuses an operator port given twice and a replacement that produces nothing", () => {
    expect(mappingProblem({ inputs: { reads: "reads" }, outputs: { html: "report_html", zip: "report_html" } }, fastqcMatch)).toBe(
      "the operator's output report_html is mapped twice",
    );
    expect(mappingProblem({ inputs: { reads: "reads" }, outputs: {} }, fastqcMatch)).toMatch(/^no output of the call is mapped/);
  });
});

describe("fittingOperators", () => {
  it("keeps qc.fastqc for FASTQC and drops operators whose ports do not fit", () => {
    expect(fittingOperators(byId(FASTQC), matches).map((m) => m.id)).toEqual(["qc.fastqc"]);
  });

  it("offers the trimmer for SEQTK_TRIM and nothing for MULTIQC, whose input type is unknown", () => {
    expect(fittingOperators(byId(SEQTK_TRIM), matches).map((m) => m.id)).toEqual(["qc.fastp"]);
    expect(fittingOperators(byId(MULTIQC), matches)).toEqual([]);
  });
});

describe("counterparts", () => {
  it("reads the nf-core module of a module's main.nf and nothing of a pipeline's own process", () => {
    expect(nfCoreModule("modules/nf-core/bwa/mem/main.nf")).toBe("bwa/mem");
    expect(nfCoreModule("modules/nf-core/fastqc/main.nf")).toBe("fastqc");
    expect(nfCoreModule("modules/local/samplesheet_check.nf")).toBeUndefined();
    expect(nfCoreModule("modules/nf-core/main.nf")).toBeUndefined();
  });

  it("offers the operator standing for the call's module, even where no type fits (MULTIQC)", () => {
    const multiqc = catalogMatchSchema.parse({ ...fastqcMatch, id: "qc.multiqc", nf_core_module: "multiqc" });
    const fastqc = catalogMatchSchema.parse({ ...fastqcMatch, nf_core_module: "fastqc" });
    expect(counterparts(byId(MULTIQC), [fastqc, multiqc]).map((m) => m.id)).toEqual(["qc.multiqc"]);
    expect(counterparts(byId(FASTQC), [fastqc, multiqc]).map((m) => m.id)).toEqual(["qc.fastqc"]);
    expect(counterparts(byId(MULTIQC), matches)).toEqual([]);
  });
});

describe("the outline reply of issue 22", () => {
  it("reads invocations with typed ports, an unknown type as null, and no replacement yet", () => {
    expect(byId(FASTQC).outputs.map((o) => o.type)).toEqual(["Html", "Zip", null]);
    expect(byId(FASTQC).replacement).toBeNull();
  });

  it("reads an outline of a runtime without invocations as none", () => {
    const { invocations: _none, ...older } = { ...reply };
    expect(outlineReply.parse(older).invocations).toEqual([]);
  });
});

describe("refusalDetail", () => {
  it("names the port that does not fit, with both types", () => {
    expect(
      refusalDetail("invocation_port_incompatible", {
        invocation: FASTQC, port: "html", direction: "output", expected_type: "Zip", found_type: "Html",
      }),
    ).toBe(`output html of ${FASTQC} is Html; the operator's port takes Zip`);
    expect(refusalDetail("invocation_port_incompatible", { invocation: MULTIQC, port: "multiqc_files", direction: "input", found_type: null })).toBe(
      `input multiqc_files of ${MULTIQC} is an unknown type`,
    );
  });

  it("names a promotion's obstacle, and says nothing for other failures", () => {
    expect(refusalDetail("promotion_refused", { invocation: MULTIQC, obstacle: "not_replaced" })).toBe(`${MULTIQC}: not replaced`);
    expect(refusalDetail("stale_revision", { invocation: MULTIQC })).toBeUndefined();
    expect(refusalDetail("promotion_refused", {})).toBeUndefined();
  });
});
