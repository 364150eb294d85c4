/**
 * Canvas actions other panels trigger: place an operator (from the palette
 * or a readiness resolution), add a note, bring a node into view.
 */
import { useReactFlow, useStoreApi } from "@xyflow/react";
import { useCallback } from "react";
import type { Operation, WorkflowDocument } from "../api/types";
import { freshId, idsInUse, nodeIdBase } from "../domain/ids";
import { useServices } from "../shell/context";
import type { Selection } from "./selection";
import { selectOnly } from "./selection";
import { snap } from "./edits";
import { freeSpot } from "./placement";
import { splitTitle } from "./titles";

/** Roughly half a node's size: placed nodes are centred on the target point. */
const NODE_HALF = { width: 128, height: 64 };

export interface CanvasActions {
  /** Adds an operator at `at` (flow coordinates) or the middle of the view; resolves to its node id. */
  addOperator(operator: { id: string; title: string }, at?: { x: number; y: number }, extra?: (nodeId: string) => Operation[]): Promise<string | undefined>;
  addNote(): Promise<void>;
  reveal(nodeId: string): void;
}

export function useCanvasActions(document: WorkflowDocument | undefined, select: (selection: Selection) => void): CanvasActions {
  const { workspace } = useServices();
  const flow = useReactFlow();
  const store = useStoreApi();

  const viewCentre = useCallback(() => {
    const { width, height, transform } = store.getState();
    const [tx, ty, zoom] = transform;
    return { x: (width / 2 - tx) / zoom, y: (height / 2 - ty) / zoom };
  }, [store]);

  const addOperator = useCallback<CanvasActions["addOperator"]>(
    async (operator, at, extra) => {
      if (!document) return undefined;
      const centre = at ?? viewCentre();
      const position = freeSpot(document, { x: snap(centre.x - NODE_HALF.width), y: snap(centre.y - NODE_HALF.height) });
      const nodeId = freshId(nodeIdBase(operator.id), idsInUse(document));
      const result = await workspace.edit(`Add ${splitTitle(operator.title).name}`, [
        { op: "add_operator", node_id: nodeId, operator_id: operator.id, ...position },
        ...(extra?.(nodeId) ?? []),
      ]);
      if (!result.ok) return undefined;
      select(selectOnly(nodeId));
      return nodeId;
    },
    [document, select, viewCentre, workspace],
  );

  const addNote = useCallback(async () => {
    if (!document) return;
    const centre = viewCentre();
    const position = freeSpot(document, { x: snap(centre.x - 96), y: snap(centre.y - 48) });
    const noteId = freshId("note", idsInUse(document));
    const result = await workspace.edit("Add note", [{ op: "add_note", note_id: noteId, text: "", ...position }]);
    if (result.ok) select(selectOnly(noteId));
  }, [document, select, viewCentre, workspace]);

  const reveal = useCallback(
    (nodeId: string) => {
      const node = flow.getNode(nodeId);
      if (!node) return;
      const width = node.measured?.width ?? NODE_HALF.width * 2;
      const height = node.measured?.height ?? NODE_HALF.height * 2;
      void flow.setCenter(node.position.x + width / 2, node.position.y + height / 2, {
        zoom: Math.max(flow.getZoom(), 0.9),
        duration: 250,
      });
    },
    [flow],
  );

  return { addOperator, addNote, reveal };
}
