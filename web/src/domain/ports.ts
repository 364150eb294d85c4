/**
 * Typed connections, checked in the browser exactly as the runtime checks
 * them (the runtime's port types and connection rule), so an incompatible edge is
 * refused at the handle with the reason instead of after a round trip.
 */
import type { PortSpec, WorkflowDocument } from "../api/types";

export interface ConnectionAttempt {
  readonly fromNode: string;
  readonly fromPort: string;
  readonly toNode: string;
  readonly toPort: string;
}

/** Why the edge may not be made, or `undefined` when it may. */
export function connectionRefusal(document: WorkflowDocument, attempt: ConnectionAttempt): string | undefined {
  if (attempt.fromNode === attempt.toNode) return "a node cannot feed its own input";
  const source = document.nodes.find((n) => n.id === attempt.fromNode)?.ports.out.find((p) => p.name === attempt.fromPort);
  const target = document.nodes.find((n) => n.id === attempt.toNode)?.ports.in.find((p) => p.name === attempt.toPort);
  if (!source || !target) return "that port no longer exists";
  const refusal = portRefusal(target, source);
  if (refusal) return refusal;
  const occupied = document.edges.find((e) => e.to_node === attempt.toNode && e.to_port === attempt.toPort);
  if (occupied) return `input \`${target.name}\` is already connected; an input takes one edge`;
  if (reaches(document, attempt.toNode, attempt.fromNode)) return "that edge would create a cycle";
  return undefined;
}

/** Why `target` does not accept `source`, by type and resource profile. */
export function portRefusal(target: PortSpec, source: PortSpec): string | undefined {
  if (!acceptedTypes(target).includes(source.type)) {
    return `port \`${target.name}\` accepts ${acceptedTypes(target).join(" | ")}, not ${source.type}`;
  }
  const profile = target.resource?.profile;
  if (profile !== undefined && source.resource_profile !== profile) {
    return `port \`${target.name}\` needs a ${profile} resource`;
  }
  return undefined;
}

export function acceptedTypes(port: PortSpec): readonly string[] {
  return [port.type, ...port.union];
}

/** Whether `to` is reachable from `from` along existing edges. */
function reaches(document: WorkflowDocument, from: string, to: string): boolean {
  const next = new Map<string, string[]>();
  for (const edge of document.edges) {
    next.set(edge.from_node, [...(next.get(edge.from_node) ?? []), edge.to_node]);
  }
  const seen = new Set<string>();
  const stack = [from];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node === to) return true;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...(next.get(node) ?? []));
  }
  return false;
}
