/**
 * The operations that turn one workflow document into another.
 *
 * Undo and redo are ordinary compare-and-swap transactions: undo sends the
 * operations from an entry's `after` document back to its `before`, redo the
 * reverse. The order below keeps every intermediate graph valid — edges are
 * cut before nodes disappear, nodes exist before edges reach them, and an id
 * is freed before it is claimed again (nodes, edges and notes share one id
 * namespace).
 *
 * A source node's replaced invocations are restored or replaced again with
 * explicit port maps (the recorded pairs), so the result does not depend on
 * how the runtime would match ports by type today. A promoted variant goes
 * back to its source with `revert_variant`, which restores the recorded
 * source node as the only node; the rest is then diffed from there.
 *
 * What operations cannot express is not attempted: stage boxes and colours
 * have no operation yet, and notes have no move, so a note that moved is
 * removed and added again with the same id and text. Promoting is not an
 * operation either (the runtime composes it): `promotionBetween` says when
 * going forward means promoting again.
 */
import type { ProcessEnvironment, Replacement } from "../api/sourceSchemas";
import type { Operation, WorkflowDocument, WorkflowEdge, WorkflowNode } from "../api/types";

export function operationsBetween(from: WorkflowDocument, to: WorkflowDocument): Operation[] {
  if (from.variant_origin && !to.variant_origin) {
    return [{ op: "revert_variant" }, ...graphOperations(reverted(from), to)];
  }
  return graphOperations(from, to);
}

/**
 * The promotion that turns `from` into `to` (the variant's source node and
 * the invocations picked for it), when `to` is a variant `from` is not.
 */
export function promotionBetween(
  from: WorkflowDocument,
  to: WorkflowDocument,
): { readonly nodeId: string; readonly invocations: readonly string[] } | undefined {
  const origin = to.variant_origin;
  if (!origin || from.variant_origin) return undefined;
  return {
    nodeId: origin.source_node_id,
    invocations: origin.promoted.filter((p) => p.how === "selected").map((p) => p.invocation),
  };
}

/** What `revert_variant` leaves: the recorded source node alone, notes and title kept. */
export function reverted(variant: WorkflowDocument): WorkflowDocument {
  const { variant_origin: origin, ...rest } = variant;
  return origin ? { ...rest, nodes: [origin.source], edges: [] } : variant;
}

function graphOperations(from: WorkflowDocument, to: WorkflowDocument): Operation[] {
  const fromNodes = byId(from.nodes);
  const toNodes = byId(to.nodes);
  const fromEdges = byId(from.edges);
  const toEdges = byId(to.edges);
  const fromNotes = byId(from.notes);
  const toNotes = byId(to.notes);

  // A node is kept when the same id runs the same pinned operator on both
  // sides; any other change of identity means remove and add again.
  const kept = (id: string): boolean => {
    const a = fromNodes.get(id);
    const b = toNodes.get(id);
    return a !== undefined && b !== undefined && sameOperator(a, b);
  };
  const edgeKept = (id: string): boolean => {
    const a = fromEdges.get(id);
    const b = toEdges.get(id);
    return a !== undefined && b !== undefined && sameEdge(a, b) && kept(a.from_node) && kept(a.to_node);
  };
  const noteKept = (id: string): boolean => {
    const a = fromNotes.get(id);
    const b = toNotes.get(id);
    return a !== undefined && b !== undefined && a.x === b.x && a.y === b.y;
  };

  const ops: Operation[] = [];

  // 1. Cut edges that go away. Edges touching a removed node go with it.
  for (const edge of from.edges) {
    if (!edgeKept(edge.id) && kept(edge.from_node) && kept(edge.to_node)) {
      ops.push({ op: "disconnect", edge_id: edge.id });
    }
  }
  for (const note of from.notes) {
    if (!noteKept(note.id)) ops.push({ op: "remove_note", note_id: note.id });
  }
  for (const node of from.nodes) {
    if (!kept(node.id)) ops.push({ op: "remove_operator", node_id: node.id });
  }

  if (from.title !== to.title) ops.push({ op: "set_title", title: to.title });

  // 2. Bring nodes to their target state.
  for (const node of to.nodes) {
    if (!kept(node.id)) {
      ops.push(addOperator(node));
      continue;
    }
    const before = fromNodes.get(node.id);
    if (before === undefined) continue;
    if (before.x !== node.x || before.y !== node.y) {
      ops.push({ op: "move", node_id: node.id, x: node.x, y: node.y });
    }
    ops.push(...paramOperations(node.id, before.params, node.params));
    ops.push(...replacementOperations(node.id, before.replacements ?? [], node.replacements ?? []));
    ops.push(...environmentOperations(node.id, before.process_environments ?? [], node.process_environments ?? []));
  }

  // 3. Notes, then the edges that the target has and the source lacks.
  for (const note of to.notes) {
    const before = fromNotes.get(note.id);
    if (!noteKept(note.id)) {
      ops.push({ op: "add_note", note_id: note.id, text: note.text, x: note.x, y: note.y });
    } else if (before !== undefined && before.text !== note.text) {
      ops.push({ op: "edit_note", note_id: note.id, text: note.text });
    }
  }
  for (const edge of to.edges) {
    if (!edgeKept(edge.id)) ops.push(connect(edge));
  }
  return ops;
}

function byId<T extends { readonly id: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((item) => [item.id, item]));
}

function sameOperator(a: WorkflowNode, b: WorkflowNode): boolean {
  return a.operator_id === b.operator_id && a.operator_revision === b.operator_revision;
}

function sameEdge(a: WorkflowEdge, b: WorkflowEdge): boolean {
  return (
    a.from_node === b.from_node && a.from_port === b.from_port && a.to_node === b.to_node && a.to_port === b.to_port
  );
}

function addOperator(node: WorkflowNode): Operation {
  const op: Operation = { op: "add_operator", node_id: node.id, operator_id: node.operator_id, x: node.x, y: node.y };
  return Object.keys(node.params).length > 0 ? { ...op, params: { ...node.params } } : op;
}

function connect(edge: WorkflowEdge): Operation {
  return {
    op: "connect",
    edge_id: edge.id,
    from_node: edge.from_node,
    from_port: edge.from_port,
    to_node: edge.to_node,
    to_port: edge.to_port,
  };
}

function paramOperations(
  nodeId: string,
  before: WorkflowNode["params"],
  after: WorkflowNode["params"],
): Operation[] {
  const ops: Operation[] = [];
  for (const [param, value] of Object.entries(after)) {
    if (before[param] !== value) ops.push({ op: "set_param", node_id: nodeId, param, value });
  }
  for (const param of Object.keys(before)) {
    if (!Object.hasOwn(after, param)) ops.push({ op: "unset_param", node_id: nodeId, param });
  }
  return ops;
}

function replacementOperations(nodeId: string, before: readonly Replacement[], after: readonly Replacement[]): Operation[] {
  const ops: Operation[] = [];
  const kept = new Map(after.map((r) => [r.invocation, r]));
  for (const replacement of before) {
    if (!kept.has(replacement.invocation)) ops.push({ op: "restore_invocation", node_id: nodeId, invocation: replacement.invocation });
  }
  const had = new Map(before.map((r) => [r.invocation, r]));
  for (const replacement of after) {
    const previous = had.get(replacement.invocation);
    if (previous === undefined || !sameReplacement(previous, replacement)) ops.push(replaceInvocation(nodeId, replacement));
  }
  return ops;
}

/** The environment choices that take a source node from `before` to `after`. */
function environmentOperations(
  nodeId: string,
  before: readonly ProcessEnvironment[],
  after: readonly ProcessEnvironment[],
): Operation[] {
  const ops: Operation[] = [];
  const kept = new Set(after.map((e) => e.process));
  for (const chosen of before) {
    if (!kept.has(chosen.process)) ops.push({ op: "unset_process_environment", node_id: nodeId, process: chosen.process });
  }
  const had = new Map(before.map((e) => [e.process, JSON.stringify(e.choice)]));
  for (const chosen of after) {
    if (had.get(chosen.process) !== JSON.stringify(chosen.choice)) {
      ops.push({ op: "set_process_environment", node_id: nodeId, process: chosen.process, choice: chosen.choice });
    }
  }
  return ops;
}

function sameReplacement(a: Replacement, b: Replacement): boolean {
  const pairs = (r: Replacement) => JSON.stringify([r.inputs, r.outputs]);
  return a.operator_id === b.operator_id && a.operator_revision === b.operator_revision && pairs(a) === pairs(b);
}

export function replaceInvocation(nodeId: string, replacement: Replacement): Operation {
  const map = (pairs: Replacement["inputs"]) => Object.fromEntries(pairs.map((p) => [p.invocation_port, p.operator_port]));
  return {
    op: "replace_invocation",
    node_id: nodeId,
    invocation: replacement.invocation,
    operator_id: replacement.operator_id,
    inputs: map(replacement.inputs),
    outputs: map(replacement.outputs),
  };
}
