/** Carries out a chosen readiness resolution (see `resolutions.ts` for what each does). */
import { useCallback } from "react";
import type { ReadinessItem, ReadinessResolution, WorkflowDocument } from "../api/types";
import { connectEdit } from "../canvas/edits";
import { selectOnly } from "../canvas/selection";
import type { Selection } from "../canvas/selection";
import type { CanvasActions } from "../canvas/useCanvasActions";
import { useServices } from "../shell/context";
import { addProvider } from "./addProvider";
import { actionFor } from "./resolutions";

export interface ResolveContext {
  readonly document: WorkflowDocument | undefined;
  readonly catalogRevision: string | undefined;
  readonly actions: CanvasActions;
  readonly select: (selection: Selection) => void;
  readonly focusField: (nodeId: string, field: string) => void;
  /** Shows a resolution's details (sizes, effects) without acting on it. */
  readonly showDetails: (itemId: string) => void;
}

export function useResolve(context: ResolveContext) {
  const { workspace, contracts } = useServices();
  const { document, catalogRevision, actions, select, focusField, showDetails } = context;

  return useCallback(
    async (item: ReadinessItem, resolution: ReadinessResolution) => {
      if (!document || !catalogRevision) return;
      const action = actionFor(item, resolution);
      switch (action.type) {
        case "connect": {
          const edit = connectEdit(document, action);
          await workspace.edit(edit.summary, edit.operations);
          return;
        }
        case "add_and_connect": {
          const target = document.nodes.find((n) => n.id === action.toNode);
          const port = target?.ports.in.find((p) => p.name === action.toPort);
          if (!target || !port) return;
          await addProvider({ workspace, contracts }, actions, document, catalogRevision, {
            operatorId: action.operatorId,
            node: target,
            port,
            wanted: "output",
          });
          return;
        }
        case "focus":
          select(selectOnly(action.nodeId));
          actions.reveal(action.nodeId);
          focusField(action.nodeId, action.field);
          return;
        case "details":
          showDetails(item.id);
          return;
      }
    },
    [actions, catalogRevision, contracts, document, focusField, select, showDetails, workspace],
  );
}
