import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../api/types";
import { emptyDocument, node } from "../testing/documents";
import { deleteEdits, moveEdits, pack } from "./edits";

const doc: WorkflowDocument = {
  ...emptyDocument(),
  nodes: [node("reads", "files.import_fastq", 0, 0), node("qc", "qc.fastqc", 320, 0)],
  edges: [{ id: "reads-qc", from_node: "reads", from_port: "reads", to_node: "qc", to_port: "reads" }],
  notes: [{ id: "hint", text: "hello", x: 0, y: 200 }],
};

describe("canvas edits", () => {
  it("moves nodes with move and notes by re-adding them at the new place", () => {
    const [edit] = moveEdits(doc, [
      { id: "qc", x: 336, y: 16 },
      { id: "hint", x: 32, y: 240 },
      { id: "reads", x: 0, y: 0 },
    ]);
    expect(edit?.summary).toBe("Move 2 items");
    expect(edit?.operations).toEqual([
      { op: "move", node_id: "qc", x: 336, y: 16 },
      { op: "remove_note", note_id: "hint" },
      { op: "add_note", note_id: "hint", text: "hello", x: 32, y: 240 },
    ]);
  });

  it("deletes a node without separately disconnecting its edges", () => {
    const [edit] = deleteEdits(doc, ["qc"], ["reads-qc"]);
    expect(edit).toEqual({ summary: "Delete qc", operations: [{ op: "remove_operator", node_id: "qc" }] });
    const [cut] = deleteEdits(doc, [], ["reads-qc"]);
    expect(cut?.operations).toEqual([{ op: "disconnect", edge_id: "reads-qc" }]);
  });

  it("splits a gesture over more than 64 operations into parts, keeping groups whole", () => {
    const groups = Array.from({ length: 40 }, (_, i) => [
      { op: "remove_note" as const, note_id: `n${String(i)}` },
      { op: "add_note" as const, note_id: `n${String(i)}`, text: "", x: 0, y: 0 },
    ]);
    const edits = pack("Move 40 items", groups);
    expect(edits.map((e) => e.operations.length)).toEqual([64, 16]);
    expect(edits.map((e) => e.summary)).toEqual(["Move 40 items (part 1 of 2)", "Move 40 items (part 2 of 2)"]);
  });
});
