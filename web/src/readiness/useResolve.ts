/** Carries out a chosen readiness resolution (see `resolutions.ts` for what each does). */
import { useCallback } from "react";
import type { ReadinessItem, ReadinessResolution, WorkflowDocument } from "../api/types";
import { connectEdit } from "../canvas/edits";
import { selectOnly } from "../canvas/selection";
import type { Selection } from "../canvas/selection";
import type { CanvasActions } from "../canvas/useCanvasActions";
import { useServices } from "../shell/context";
import { addProvider } from "./addProvider";
import { useSourceApi } from "../source/context";
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

/** What the panel adds to a resolution the user fills in (a Conda specification). */
export interface ResolveInput {
  readonly dependencies?: readonly string[];
}

export function useResolve(context: ResolveContext) {
  const { workspace, contracts } = useServices();
  const sources = useSourceApi();
  const { document, catalogRevision, actions, select, focusField, showDetails } = context;

  return useCallback(
    async (item: ReadinessItem, resolution: ReadinessResolution, input?: ResolveInput) => {
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
        case "set":
          await workspace.edit(`Set ${action.field}`, [
            { op: "set_param", node_id: action.nodeId, param: action.field, value: action.value },
          ]);
          return;
        case "container":
          await workspace.edit(`Run ${action.process} in its declared container`, [
            { op: "set_process_environment", node_id: action.nodeId, process: action.process, choice: { use: "container" } },
          ]);
          return;
        case "conda":
          // The specification is typed in the requirements panel.
          if (!input?.dependencies?.length) {
            showDetails(item.id);
            return;
          }
          await workspace.edit(`Give ${action.process} a Conda specification`, [
            {
              op: "set_process_environment",
              node_id: action.nodeId,
              process: action.process,
              choice: { use: "conda", dependencies: [...input.dependencies] },
            },
          ]);
          return;
        case "replace":
          await workspace.edit(`Replace ${action.invocation} with ${action.operatorId}`, [
            { op: "replace_invocation", node_id: action.nodeId, invocation: action.invocation, operator_id: action.operatorId },
          ]);
          return;
        case "pin":
          await workspace.place((base) => sources.pin(action.nodeId, action.param, base));
          return;
        case "details":
          showDetails(item.id);
          return;
      }
    },
    [actions, catalogRevision, contracts, document, focusField, select, showDetails, sources, workspace],
  );
}
