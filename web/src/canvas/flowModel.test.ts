import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../api/types";
import { emptyDocument, node } from "../testing/documents";
import type { CanvasNode } from "./flowModel";
import { reconcile, toCanvasEdges, toCanvasNodes } from "./flowModel";

const doc: WorkflowDocument = {
  ...emptyDocument(),
  nodes: [node("reads", "files.import_fastq", 0, 0), node("qc", "qc.fastqc", 320, 0)],
  edges: [{ id: "reads-qc", from_node: "reads", from_port: "reads", to_node: "qc", to_port: "reads" }],
};
const none = { labels: new Map(), assessments: new Map() };
const overlay = { selected: new Set<string>(), positions: new Map() };

describe("canvas model", () => {
  it("keeps unchanged node objects, so only edited nodes re-render", () => {
    const first = reconcile([], toCanvasNodes(doc, none), overlay);
    const moved = { ...doc, nodes: doc.nodes.map((n) => (n.id === "qc" ? { ...n, x: 352 } : n)) };
    const second = reconcile(first, toCanvasNodes(moved, none), overlay);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[1]?.position).toEqual({ x: 352, y: 0 });
  });

  it("keeps measured sizes, and a node being dragged where the pointer has it", () => {
    const first = reconcile([], toCanvasNodes(doc, none), overlay).map(
      (n): CanvasNode => (n.id === "qc" ? { ...n, measured: { width: 280, height: 120 }, dragging: true, position: { x: 500, y: 90 } } : n),
    );
    const retitled = { ...doc, title: "Renamed", nodes: doc.nodes.map((n) => ({ ...n, params: { threads: 4 } })) };
    const next = reconcile(first, toCanvasNodes(retitled, none), overlay);
    expect(next[1]).toMatchObject({ measured: { width: 280, height: 120 }, position: { x: 500, y: 90 }, dragging: true });
  });

  it("shows an unanswered move at its new place and marks the selection", () => {
    const next = reconcile([], toCanvasNodes(doc, none), { selected: new Set(["reads"]), positions: new Map([["reads", { x: 48, y: 96 }]]) });
    expect(next[0]).toMatchObject({ selected: true, position: { x: 48, y: 96 } });
  });

  it("draws edges between typed handles, coloured by what they carry", () => {
    const [edge] = toCanvasEdges(doc, new Set(["reads-qc"]));
    expect(edge).toMatchObject({ sourceHandle: "out:reads", targetHandle: "in:reads", selected: true, data: { type: "Fastq" } });
    expect(edge?.style?.stroke).toBe("var(--family-reads)");
  });
});
