/**
 * Binds a resource requirement in the graph: adds the operator that provides
 * the input (the one readiness names, e.g. `files.import_kraken2_database`)
 * with its import parameter set to the chosen value — an installed
 * resource's `somite-resource:<provider>@<release>` reference or a folder the
 * user chose — and connects it, in one undoable transaction.
 */
import { useCallback, useEffect } from "react";
import { describeFailure } from "../api/errors";
import type { ReadinessItem, WorkflowDocument } from "../api/types";
import type { CanvasActions } from "../canvas/useCanvasActions";
import { edgeIdBase, freshId, idsInUse } from "../domain/ids";
import { portRefusal } from "../domain/ports";
import { useResourceState, useServices } from "../shell/context";
import type { BindingTarget } from "../state/resources";

/** How far left of the node it feeds the provider is placed (as readiness's "Add" does). */
const PROVIDER_OFFSET_X = 336;

/** The operator readiness offers to provide the item's input, if any. */
export function providingOperator(item: Pick<ReadinessItem, "resolutions">): string | undefined {
  return item.resolutions.find((r) => r.kind === "connect" && r.operator_id !== undefined && r.from_node === undefined)?.operator_id;
}

export interface BindContext {
  readonly document: WorkflowDocument | undefined;
  readonly catalogRevision: string | undefined;
  readonly actions: CanvasActions;
}

export function useBindResource({ document, catalogRevision, actions }: BindContext) {
  const { workspace, contracts } = useServices();
  return useCallback(
    async (target: BindingTarget, value: string): Promise<boolean> => {
      const { operatorId } = target;
      if (!document || !catalogRevision) return false;
      const node = document.nodes.find((n) => n.id === target.nodeId);
      const port = node?.ports.in.find((p) => p.name === target.field);
      if (!node || !port) {
        workspace.notify("error", `${target.nodeId}.${target.field} is no longer on the canvas`, "Nothing was bound.");
        return false;
      }
      let reply;
      try {
        reply = await contracts.load(operatorId, catalogRevision);
      } catch (error) {
        const { title, detail } = describeFailure(error);
        workspace.notify("error", title, detail);
        return false;
      }
      const output = reply.contract.ports.out.find((o) => o.import_param !== undefined && portRefusal(port, o) === undefined);
      const param = output?.import_param;
      if (!output || !param) {
        workspace.notify("error", `${operatorId} has no imported output that ${target.nodeId}.${target.field} accepts`);
        return false;
      }
      const centre = { x: node.x - PROVIDER_OFFSET_X + 128, y: node.y + 64 };
      const added = await actions.addOperator({ id: reply.contract.id, title: reply.contract.title }, centre, (nodeId) => [
        { op: "set_param", node_id: nodeId, param, value },
        {
          op: "connect",
          edge_id: freshId(edgeIdBase(nodeId, output.name, target.nodeId), idsInUse(document)),
          from_node: nodeId,
          from_port: output.name,
          to_node: target.nodeId,
          to_port: target.field,
        },
      ]);
      if (added) actions.reveal(added);
      return added !== undefined;
    },
    [actions, catalogRevision, contracts, document, workspace],
  );
}

/**
 * Carries an install started for a requirement to its end: once the
 * resource is installed, the requirement is bound to it (once). A component
 * of its own, so only it re-renders while a download reports progress.
 */
export function ResourceBinder({ bind }: { bind: (target: BindingTarget, value: string) => Promise<boolean> }): null {
  const { resources } = useServices();
  const state = useResourceState();
  useEffect(() => {
    for (const ready of resources.takeReadyBindings()) void bind(ready.target, ready.installed.reference);
  }, [bind, resources, state]);
  return null;
}
