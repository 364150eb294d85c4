import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../api/types";
import { emptyDocument, node } from "../testing/documents";
import type { CanvasNode } from "./flowModel";
import type { OperatorReply } from "../api/types";
import type { ContractEntry } from "../state/contracts";
import { operatorLabels, reconcile, toCanvasEdges, toCanvasNodes } from "./flowModel";

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

  it("hands back the previous array when no node changed, so the library does not re-adopt them all", () => {
    const first = reconcile([], toCanvasNodes(doc, none), overlay);
    expect(reconcile(first, toCanvasNodes(doc, none), overlay)).toBe(first);
    const selected = reconcile(first, toCanvasNodes(doc, none), { ...overlay, selected: new Set(["qc"]) });
    expect(selected).not.toBe(first);
    expect(selected[0]).toBe(first[0]);
    const fewer = reconcile(first, toCanvasNodes({ ...doc, nodes: doc.nodes.slice(0, 1), edges: [] }, none), overlay);
    expect(fewer).not.toBe(first);
    expect(fewer).toHaveLength(1);
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

describe("operator labels", () => {
  const loaded = (title: string, kind: string): ContractEntry => ({ status: "loaded", reply: { contract: { title, kind } } as unknown as OperatorReply });

  it("labels every loaded contract and skips the others", () => {
    const labels = operatorLabels(
      new Map<string, ContractEntry>([
        ["qc.fastqc", loaded("FastQC — read quality", "external")],
        ["qc.fastp", { status: "loading" }],
        ["files.import_fastq", { status: "failed", message: "gone" }],
      ]),
      new Map(),
    );
    expect([...labels]).toEqual([["qc.fastqc", { title: "FastQC — read quality", kind: "external" }]]);
  });

  it("keeps the previous labels while none changes, so the canvas is not rebuilt", () => {
    const entries = new Map<string, ContractEntry>([["qc.fastqc", loaded("FastQC", "external")]]);
    const first = operatorLabels(entries, new Map());
    const loading = new Map(entries).set("qc.fastp", { status: "loading" });
    expect(operatorLabels(loading, first)).toBe(first);
    expect(operatorLabels(new Map(entries), first)).toBe(first);

    const more = operatorLabels(new Map(loading).set("qc.fastp", loaded("fastp", "external")), first);
    expect(more).not.toBe(first);
    expect(more.get("qc.fastqc")).toBe(first.get("qc.fastqc"));
    expect(operatorLabels(new Map([["qc.fastqc", loaded("FastQC", "inprocess")]]), first).get("qc.fastqc")?.kind).toBe("inprocess");
    expect(operatorLabels(new Map(), first).size).toBe(0);
  });
});
