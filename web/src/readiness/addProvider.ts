/**
 * Adds the operator that provides a node's input, placed left of that node
 * and connected to it in one undoable transaction. Readiness's "Add" and
 * binding a resource requirement both place a provider this way, so where
 * it lands and how its edge is named are decided here once.
 */
import { describeFailure } from "../api/errors";
import type { Operation, PortSpec, WorkflowDocument, WorkflowNode } from "../api/types";
import type { CanvasActions } from "../canvas/useCanvasActions";
import { edgeIdBase, freshId, idsInUse } from "../domain/ids";
import { portRefusal } from "../domain/ports";
import type { Services } from "../shell/context";

/** How far left of the node it feeds a newly added provider is placed. */
const PROVIDER_OFFSET_X = 336;

export interface ProviderRequest<P extends PortSpec = PortSpec> {
  readonly operatorId: string;
  /** The node fed and its input port. */
  readonly node: WorkflowNode;
  readonly port: PortSpec;
  /** Which of the provider's outputs may feed the port, if not any the port accepts. */
  readonly fits?: (output: PortSpec) => output is P;
  /** The output wanted, as a failure names it: "output", "imported output". */
  readonly wanted: string;
  /** Operations on the new node before its edge (e.g. setting its import). */
  readonly before?: (nodeId: string, output: P) => Operation[];
}

/**
 * Adds the provider and reveals it; its node id, or `undefined` (with a
 * notice saying why) when its contract cannot be read, it has no output
 * the port accepts, or the edit does not apply.
 */
export async function addProvider<P extends PortSpec = PortSpec>(
  { workspace, contracts }: Pick<Services, "workspace" | "contracts">,
  actions: CanvasActions,
  document: WorkflowDocument,
  catalogRevision: string,
  { operatorId, node, port, fits, wanted, before }: ProviderRequest<P>,
): Promise<string | undefined> {
  let reply;
  try {
    reply = await contracts.load(operatorId, catalogRevision);
  } catch (error) {
    const { title, detail } = describeFailure(error);
    workspace.notify("error", title, detail);
    return undefined;
  }
  const output = reply.contract.ports.out.find((o): o is P => (fits?.(o) ?? true) && portRefusal(port, o) === undefined);
  if (!output) {
    workspace.notify("error", `${operatorId} has no ${wanted} that ${node.id}.${port.name} accepts`);
    return undefined;
  }
  const centre = { x: node.x - PROVIDER_OFFSET_X + 128, y: node.y + 64 };
  const added = await actions.addOperator({ id: reply.contract.id, title: reply.contract.title }, centre, (nodeId) => [
    ...(before?.(nodeId, output) ?? []),
    {
      op: "connect",
      edge_id: freshId(edgeIdBase(nodeId, output.name, node.id), idsInUse(document)),
      from_node: nodeId,
      from_port: output.name,
      to_node: node.id,
      to_port: port.name,
    },
  ]);
  if (added) actions.reveal(added);
  return added;
}
