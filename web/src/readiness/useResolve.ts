/** Carries out a chosen readiness resolution (see `resolutions.ts` for what each does). */
import { useCallback } from "react";
import { describeFailure } from "../api/errors";
import type { ReadinessItem, ReadinessResolution, WorkflowDocument } from "../api/types";
import { connectEdit } from "../canvas/edits";
import { selectOnly } from "../canvas/selection";
import type { Selection } from "../canvas/selection";
import type { CanvasActions } from "../canvas/useCanvasActions";
import { edgeIdBase, freshId, idsInUse } from "../domain/ids";
import { portRefusal } from "../domain/ports";
import { useServices } from "../shell/context";
import { actionFor } from "./resolutions";

/** How far left of the node it feeds a newly added provider is placed. */
const PROVIDER_OFFSET_X = 336;

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
          let reply;
          try {
            reply = await contracts.load(action.operatorId, catalogRevision);
          } catch (error) {
            const { title, detail } = describeFailure(error);
            workspace.notify("error", title, detail);
            return;
          }
          const output = reply.contract.ports.out.find((o) => portRefusal(port, o) === undefined);
          if (!output) {
            workspace.notify("error", `${action.operatorId} has no output that ${action.toNode}.${action.toPort} accepts`);
            return;
          }
          const centre = { x: target.x - PROVIDER_OFFSET_X + 128, y: target.y + 64 };
          const added = await actions.addOperator({ id: reply.contract.id, title: reply.contract.title }, centre, (nodeId) => [
            {
              op: "connect",
              edge_id: freshId(edgeIdBase(nodeId, output.name, action.toNode), idsInUse(document)),
              from_node: nodeId,
              from_port: output.name,
              to_node: action.toNode,
              to_port: action.toPort,
            },
          ]);
          if (added) actions.reveal(added);
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
