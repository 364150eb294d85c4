import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../api/types";
import { applyOperations, canonical, emptyDocument, node } from "../testing/documents";
import { operationsBetween } from "./compensate";

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
