/**
 * Which managed-resource profile a readiness requirement asks for: read from
 * the operator contract of the node (`ports.in[].resource.profile`), the one
 * place it is declared, so the page never guesses it from titles or ids.
 */
import type { ReadinessItem } from "../api/types";
import type { ContractEntry } from "../state/contracts";

export function resourceProfileOf(
  item: Pick<ReadinessItem, "kind" | "operator_id" | "field">,
  contracts: ReadonlyMap<string, ContractEntry>,
): string | undefined {
  if (item.kind !== "managed_resource" || !item.operator_id || !item.field) return undefined;
  const entry = contracts.get(item.operator_id);
  if (entry?.status !== "loaded") return undefined;
  return entry.reply.contract.ports.in.find((port) => port.name === item.field)?.resource?.profile;
}
