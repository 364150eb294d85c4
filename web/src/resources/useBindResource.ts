/**
 * Binds a resource requirement in the graph: adds the operator that provides
 * the input (the one readiness names, e.g. `files.import_kraken2_database`)
 * with its import parameter set to the chosen value — an installed
 * resource's `somite-resource:<provider>@<release>` reference or a folder the
 * user chose — and connects it, in one undoable transaction.
 */
import { useCallback, useEffect } from "react";
import type { PortSpec, ReadinessItem, WorkflowDocument } from "../api/types";
import type { CanvasActions } from "../canvas/useCanvasActions";
import { addProvider } from "../readiness/addProvider";
import { useResourceState, useServices } from "../shell/context";
import type { BindingTarget } from "../state/resources";

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
      const added = await addProvider({ workspace, contracts }, actions, document, catalogRevision, {
        operatorId,
        node,
        port,
        fits: (output): output is PortSpec & { import_param: string } => output.import_param !== undefined,
        wanted: "imported output",
        before: (nodeId, output) => [{ op: "set_param", node_id: nodeId, param: output.import_param, value }],
      });
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
