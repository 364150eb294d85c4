import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../api/types";
import {
  DEMO_COMMIT,
  DEMO_TREE,
  applyOperations,
  canonical,
  emptyDocument,
  node,
  replacement,
  sourceNode,
} from "../testing/documents";
import { operationsBetween, promotionBetween } from "./compensate";

const pipeline: WorkflowDocument = {
  ...emptyDocument("QC"),
  nodes: [
    node("reads", "files.import_fastq", 0, 0, { path: "reads.fq" }),
    node("trim", "qc.fastp", 300, 0, { threads: 4 }),
    node("qc", "qc.fastqc", 600, 0),
  ],
  edges: [
    { id: "reads-trim", from_node: "reads", from_port: "reads", to_node: "trim", to_port: "r1" },
    { id: "trim-qc", from_node: "trim", from_port: "trimmed_r1", to_node: "qc", to_port: "reads" },
  ],
  notes: [{ id: "note", text: "Check adapters", x: 10, y: 200 }],
};

/** Going from `from` to `to` with the computed operations lands exactly on `to`. */
function expectRoundTrip(from: WorkflowDocument, to: WorkflowDocument): void {
  const forward = applyOperations(from, operationsBetween(from, to));
  expect(canonical(forward)).toEqual(canonical(to));
  const back = applyOperations(to, operationsBetween(to, from));
  expect(canonical(back)).toEqual(canonical(from));
}

describe("operationsBetween", () => {
  it("undoes and redoes an environment chosen for a pipeline step", () => {
    const base: WorkflowDocument = { ...emptyDocument("Demo"), nodes: [sourceNode("source")] };
    const chosen: WorkflowDocument = {
      ...base,
      nodes: [
        {
          ...sourceNode("source"),
          process_environments: [
            { process: "DEEPVARIANT", choice: { use: "container" } },
            { process: "PEPPER", choice: { use: "conda", dependencies: ["bioconda::pepper=0.8"] } },
          ],
        },
      ],
    };
    expectRoundTrip(base, chosen);
    expect(operationsBetween(chosen, base)).toEqual([
      { op: "unset_process_environment", node_id: "source", process: "DEEPVARIANT" },
      { op: "unset_process_environment", node_id: "source", process: "PEPPER" },
    ]);
  });

  it("is empty for identical documents", () => {
    expect(operationsBetween(pipeline, structuredClone(pipeline))).toEqual([]);
  });

  it("restores a removed node with its parameters, position and every edge", () => {
    const removed = applyOperations(pipeline, [{ op: "remove_operator", node_id: "trim" }]);
    const ops = operationsBetween(removed, pipeline);
    expect(ops.map((o) => o.op)).toEqual(["add_operator", "connect", "connect"]);
    expect(ops[0]).toMatchObject({ node_id: "trim", params: { threads: 4 }, x: 300, y: 0 });
    expectRoundTrip(pipeline, removed);
  });

  it("removes an added node without disconnecting its edges first", () => {
    const added = applyOperations(pipeline, [
      { op: "add_operator", node_id: "qc2", operator_id: "qc.fastqc", x: 600, y: 200 },
      { op: "connect", edge_id: "reads-qc2", from_node: "reads", from_port: "reads", to_node: "qc2", to_port: "reads" },
    ]);
    expect(operationsBetween(added, pipeline)).toEqual([{ op: "remove_operator", node_id: "qc2" }]);
    expectRoundTrip(pipeline, added);
  });

  it("reverses moves, parameter changes, title and note edits", () => {
    const edited = applyOperations(pipeline, [
      { op: "move", node_id: "qc", x: 640, y: 48 },
      { op: "set_param", node_id: "trim", param: "threads", value: 8 },
      { op: "set_param", node_id: "qc", param: "threads", value: 2 },
      { op: "unset_param", node_id: "reads", param: "path" },
      { op: "set_title", title: "QC v2" },
      { op: "edit_note", note_id: "note", text: "Adapters checked" },
    ]);
    expect(operationsBetween(edited, pipeline)).toEqual([
      { op: "set_title", title: "QC" },
      { op: "set_param", node_id: "reads", param: "path", value: "reads.fq" },
      { op: "set_param", node_id: "trim", param: "threads", value: 4 },
      { op: "move", node_id: "qc", x: 600, y: 0 },
      { op: "unset_param", node_id: "qc", param: "threads" },
      { op: "edit_note", note_id: "note", text: "Check adapters" },
    ]);
    expectRoundTrip(pipeline, edited);
  });

  it("rewires an input: the old edge is cut before the new one is made", () => {
    const rewired = applyOperations(pipeline, [
      { op: "disconnect", edge_id: "trim-qc" },
      { op: "connect", edge_id: "reads-qc", from_node: "reads", from_port: "reads", to_node: "qc", to_port: "reads" },
    ]);
    const ops = operationsBetween(rewired, pipeline);
    expect(ops.map((o) => o.op)).toEqual(["disconnect", "connect"]);
    expectRoundTrip(pipeline, rewired);
  });

  it("frees an id before claiming it again, across nodes and notes", () => {
    const swapped: WorkflowDocument = {
      ...pipeline,
      notes: [],
      nodes: [...pipeline.nodes, node("note", "qc.fastqc", 900, 0)],
    };
    expectRoundTrip(pipeline, swapped);
  });

  it("moves a note by removing and re-adding it with the same id and text", () => {
    const moved = { ...pipeline, notes: [{ id: "note", text: "Check adapters", x: 50, y: 260 }] };
    expect(operationsBetween(pipeline, moved)).toEqual([
      { op: "remove_note", note_id: "note" },
      { op: "add_note", note_id: "note", text: "Check adapters", x: 50, y: 260 },
    ]);
  });

  it("replaces a node whose operator changed under the same id", () => {
    const replaced: WorkflowDocument = {
      ...pipeline,
      nodes: pipeline.nodes.map((n) => (n.id === "qc" ? node("qc", "class.kraken2", 600, 0) : n)),
      edges: [...pipeline.edges.slice(0, 1), { id: "trim-qc", from_node: "trim", from_port: "trimmed_r1", to_node: "qc", to_port: "r1" }],
    };
    expectRoundTrip(pipeline, replaced);
  });

  it("rebuilds a whole graph from empty and back", () => {
    expectRoundTrip(emptyDocument("QC"), pipeline);
  });
});

const FASTQC = "NFCORE_DEMO:DEMO:FASTQC";
const MULTIQC = "NFCORE_DEMO:DEMO:MULTIQC";

const source: WorkflowDocument = { ...emptyDocument("Demo"), nodes: [sourceNode("source", { outdir: "results" })] };

const withReplacements = (...replacements: ReturnType<typeof replacement>[]): WorkflowDocument => ({
  ...source,
  nodes: [{ ...sourceNode("source", { outdir: "results" }), replacements }],
});

describe("operationsBetween on a source node's replacements", () => {
  const fastqc = replacement(FASTQC, "qc.fastqc", { reads: "reads" }, { html: "report_html" });

  it("undoes a replacement by restoring the invocation", () => {
    const replaced = withReplacements(fastqc);
    expect(operationsBetween(replaced, source)).toEqual([{ op: "restore_invocation", node_id: "source", invocation: FASTQC }]);
    expectRoundTrip(source, replaced);
  });

  it("redoes it with the recorded port pairs as explicit maps", () => {
    expect(operationsBetween(source, withReplacements(fastqc))).toEqual([
      {
        op: "replace_invocation",
        node_id: "source",
        invocation: FASTQC,
        operator_id: "qc.fastqc",
        inputs: { reads: "reads" },
        outputs: { html: "report_html" },
      },
    ]);
  });

  it("puts back an earlier replacement of the same invocation, other operator or other mapping alike", () => {
    const byFastp = withReplacements(replacement(FASTQC, "qc.fastp", { reads: "r1" }, { html: "report_json" }));
    expect(operationsBetween(byFastp, withReplacements(fastqc))).toEqual([
      expect.objectContaining({ op: "replace_invocation", operator_id: "qc.fastqc", outputs: { html: "report_html" } }),
    ]);
    expectRoundTrip(withReplacements(fastqc), byFastp);
    const remapped = withReplacements(replacement(FASTQC, "qc.fastqc", { reads: "reads" }, { zip: "report_html" }));
    expect(operationsBetween(remapped, withReplacements(fastqc)).map((o) => o.op)).toEqual(["replace_invocation"]);
  });

  it("leaves untouched replacements alone and keeps parameter edits beside them", () => {
    const multiqc = replacement(MULTIQC, "qc.fastp", { multiqc_files: "r1" }, { report: "report_json" });
    const before = withReplacements(fastqc, multiqc);
    const after: WorkflowDocument = {
      ...before,
      nodes: [{ ...sourceNode("source", { outdir: "out" }), replacements: [multiqc] }],
    };
    expect(operationsBetween(after, before)).toEqual([
      { op: "set_param", node_id: "source", param: "outdir", value: "results" },
      expect.objectContaining({ op: "replace_invocation", invocation: FASTQC }),
    ]);
    expectRoundTrip(before, after);
  });
});

describe("operationsBetween across a promotion", () => {
  const recorded = withReplacements(replacement(FASTQC, "qc.fastqc", { reads: "reads" }, { html: "report_html" }));
  const variant: WorkflowDocument = {
    ...recorded,
    nodes: [node("fastqc", "qc.fastqc", 0, 0), node("fastp", "qc.fastp", 300, 0)],
    edges: [{ id: "fastp-fastqc", from_node: "fastp", from_port: "trimmed_r1", to_node: "fastqc", to_port: "reads" }],
    variant_origin: {
      source_node_id: "source",
      provider: "nf-core",
      repository: "nf-core/demo",
      release: "1.0.1",
      commit: DEMO_COMMIT,
      tree_digest: DEMO_TREE,
      promoted: [
        { invocation: FASTQC, node_id: "fastqc", how: "selected" },
        { invocation: "NFCORE_DEMO:DEMO:SEQTK_TRIM", node_id: "fastp", how: "catalog_equivalent" },
      ],
      unrepresented: [{ invocation: MULTIQC, process: "MULTIQC", reason: "no catalog operator stands for MULTIQC" }],
      source: recorded.nodes[0] ?? sourceNode(),
    },
  };

  it("undoes a promotion with revert_variant alone when nothing else changed", () => {
    expect(operationsBetween(variant, recorded)).toEqual([{ op: "revert_variant" }]);
    expect(canonical(applyOperations(variant, [{ op: "revert_variant" }]))).toEqual(canonical(recorded));
  });

  it("reverts first, then diffs from the restored source (a title changed since)", () => {
    const renamed = { ...variant, title: "Demo variant" };
    const ops = operationsBetween(renamed, recorded);
    expect(ops).toEqual([{ op: "revert_variant" }, { op: "set_title", title: "Demo" }]);
    expect(canonical(applyOperations(renamed, ops))).toEqual(canonical(recorded));
  });

  it("names the promotion to send again for redo, with only the invocations picked by hand", () => {
    expect(promotionBetween(recorded, variant)).toEqual({ nodeId: "source", invocations: [FASTQC] });
    expect(promotionBetween(variant, recorded)).toBeUndefined();
    expect(promotionBetween(variant, { ...variant, title: "x" })).toBeUndefined();
  });

  it("diffs a variant's own native edits like any graph", () => {
    const moved = applyOperations(variant, [{ op: "move", node_id: "fastqc", x: 40, y: 40 }]);
    expect(operationsBetween(moved, variant)).toEqual([{ op: "move", node_id: "fastqc", x: 0, y: 0 }]);
  });
});
