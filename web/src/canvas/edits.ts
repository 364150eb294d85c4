/**
 * Canvas gestures as transactions: what a drag, a delete or a connection
 * sends. Pure functions of the document, so each gesture's operations are
 * easy to read and test apart from the canvas library.
 */
import type { Operation, WorkflowDocument } from "../api/types";
import type { ConnectionAttempt } from "../domain/ports";
import { edgeIdBase, freshId, idsInUse } from "../domain/ids";
import { MAX_TRANSACTION_OPERATIONS } from "../api/limits";

export interface Edit {
  readonly summary: string;
  readonly operations: Operation[];
}

/** The grid nodes snap to; positions sent to the runtime are on it. */
export const GRID = 16;

export const snap = (value: number) => Math.round(value / GRID) * GRID;

/**
 * Packs groups of operations that must stay together into as few
 * transactions as the runtime's 64-operation limit allows. A gesture on more
 * items than that becomes several consecutive edits, each undone on its own.
 */
export function pack(summary: string, groups: readonly Operation[][]): Edit[] {
  const edits: Operation[][] = [];
  for (const group of groups) {
    const last = edits.at(-1);
    if (last && last.length + group.length <= MAX_TRANSACTION_OPERATIONS) last.push(...group);
    else edits.push([...group]);
  }
  return edits.map((operations, i) => ({
    summary: edits.length === 1 ? summary : `${summary} (part ${String(i + 1)} of ${String(edits.length)})`,
    operations,
  }));
}

export function moveEdits(document: WorkflowDocument, moved: readonly { id: string; x: number; y: number }[]): Edit[] {
  const groups: Operation[][] = [];
  const movedIds: string[] = [];
  for (const { id, x, y } of moved) {
    const node = document.nodes.find((n) => n.id === id);
    if (node && (node.x !== x || node.y !== y)) {
      groups.push([{ op: "move", node_id: id, x, y }]);
      movedIds.push(id);
      continue;
    }
    const note = document.notes.find((n) => n.id === id);
    // Notes have no move operation yet: the same note is removed and added
    // again at the new place, in one transaction, keeping its id and text.
    if (note && (note.x !== x || note.y !== y)) {
      groups.push([{ op: "remove_note", note_id: id }, { op: "add_note", note_id: id, text: note.text, x, y }]);
      movedIds.push(id);
    }
  }
  const [only] = movedIds;
  return pack(movedIds.length === 1 && only ? `Move ${only}` : `Move ${String(movedIds.length)} items`, groups);
}

export function deleteEdits(document: WorkflowDocument, nodeIds: readonly string[], edgeIds: readonly string[]): Edit[] {
  const removedNodes = new Set(nodeIds.filter((id) => document.nodes.some((n) => n.id === id)));
  const removedNotes = nodeIds.filter((id) => document.notes.some((n) => n.id === id));
  // Edges of a removed node go with it; only the others need a disconnect.
  const cut = document.edges.filter(
    (e) => edgeIds.includes(e.id) && !removedNodes.has(e.from_node) && !removedNodes.has(e.to_node),
  );
  const groups: Operation[][] = [
    ...cut.map((e): Operation[] => [{ op: "disconnect", edge_id: e.id }]),
    ...[...removedNodes].map((id): Operation[] => [{ op: "remove_operator", node_id: id }]),
    ...removedNotes.map((id): Operation[] => [{ op: "remove_note", note_id: id }]),
  ];
  const parts = [
    removedNodes.size > 0 && `${String(removedNodes.size)} node${removedNodes.size === 1 ? "" : "s"}`,
    removedNotes.length > 0 && `${String(removedNotes.length)} note${removedNotes.length === 1 ? "" : "s"}`,
    cut.length > 0 && `${String(cut.length)} edge${cut.length === 1 ? "" : "s"}`,
  ].filter(Boolean);
  const only = removedNodes.size === 1 && cut.length === 0 && removedNotes.length === 0 ? [...removedNodes][0] : undefined;
  return pack(only ? `Delete ${only}` : `Delete ${parts.join(", ")}`, groups);
}

export function connectEdit(document: WorkflowDocument, attempt: ConnectionAttempt): Edit {
  const edgeId = freshId(edgeIdBase(attempt.fromNode, attempt.fromPort, attempt.toNode), idsInUse(document));
  return {
    summary: `Connect ${attempt.fromNode}.${attempt.fromPort} → ${attempt.toNode}.${attempt.toPort}`,
    operations: [
      {
        op: "connect",
        edge_id: edgeId,
        from_node: attempt.fromNode,
        from_port: attempt.fromPort,
        to_node: attempt.toNode,
        to_port: attempt.toPort,
      },
    ],
  };
}
