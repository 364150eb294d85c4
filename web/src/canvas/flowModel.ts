/**
 * The workflow document as canvas nodes and edges.
 *
 * The document is the truth; the canvas adds only what the library needs to
 * keep between renders (measured sizes, a drag in progress, a move whose
 * transaction is still on its way). `reconcile` keeps an unchanged node's
 * object identity, so a 500-node graph re-renders only what an edit touched.
 */
import type { Edge, Node, XYPosition } from "@xyflow/react";
import type { NodeAssessment, NodeRunState, WorkflowDocument, WorkflowNode, WorkflowNote } from "../api/types";
import type { ContractEntry } from "../state/contracts";
import { familyColor } from "./portTypes";
import { inputHandle, outputHandle } from "./handles";

export type OperatorKind = "external" | "inprocess" | "reference" | "source";

export interface OperatorLabel {
  readonly title: string;
  readonly kind: OperatorKind;
}

/**
 * The label of every operator whose contract has loaded: `previous` itself
 * when no label changed (a contract that only started loading, or one
 * loaded again unchanged), so the canvas is not rebuilt for nothing.
 */
export function operatorLabels(
  entries: ReadonlyMap<string, ContractEntry>,
  previous: ReadonlyMap<string, OperatorLabel>,
): ReadonlyMap<string, OperatorLabel> {
  const labels = new Map<string, OperatorLabel>();
  let changed = false;
  for (const [id, entry] of entries) {
    if (entry.status !== "loaded") continue;
    const { title, kind } = entry.reply.contract;
    const before = previous.get(id);
    const same = before?.title === title && before.kind === kind;
    if (!same) changed = true;
    labels.set(id, same ? before : { title, kind });
  }
  return changed || labels.size !== previous.size ? labels : previous;
}

export type OperatorNodeData = {
  readonly node: WorkflowNode;
  readonly label: OperatorLabel | undefined;
  readonly assessment: NodeAssessment | undefined;
  readonly connectedInputs: readonly string[];
  /** The node's state in the run on screen, when it is of this graph. */
  readonly runState: NodeRunState | undefined;
  readonly signature: string;
};

export type NoteNodeData = {
  readonly note: WorkflowNote;
  readonly signature: string;
};

export type OperatorFlowNode = Node<OperatorNodeData, "operator">;
/** A pinned pipeline (`node.source`): drawn by `source/SourceNode`. */
export type SourceFlowNode = Node<OperatorNodeData, "source">;
export type NoteFlowNode = Node<NoteNodeData, "note">;
export type CanvasNode = OperatorFlowNode | SourceFlowNode | NoteFlowNode;

export interface Decorations {
  readonly labels: ReadonlyMap<string, OperatorLabel>;
  readonly assessments: ReadonlyMap<string, NodeAssessment>;
  readonly runStates?: ReadonlyMap<string, NodeRunState>;
}

export function toCanvasNodes(document: WorkflowDocument, decorations: Decorations): CanvasNode[] {
  const connected = new Map<string, string[]>();
  for (const edge of document.edges) {
    connected.set(edge.to_node, [...(connected.get(edge.to_node) ?? []), edge.to_port]);
  }
  const operators = document.nodes.map((node): OperatorFlowNode | SourceFlowNode => {
    const label = decorations.labels.get(node.operator_id);
    const assessment = decorations.assessments.get(node.id);
    const connectedInputs = connected.get(node.id) ?? [];
    const runState = decorations.runStates?.get(node.id);
    return {
      id: node.id,
      type: node.source ? "source" : "operator",
      position: { x: node.x, y: node.y },
      data: {
        node,
        label,
        assessment,
        connectedInputs,
        runState,
        signature: JSON.stringify([node, label, assessment?.badges, assessment?.ready, connectedInputs, runState]),
      },
    };
  });
  const notes = document.notes.map(
    (note): NoteFlowNode => ({
      id: note.id,
      type: "note",
      position: { x: note.x, y: note.y },
      data: { note, signature: JSON.stringify(note) },
    }),
  );
  return [...operators, ...notes];
}

export interface CanvasOverlay {
  readonly selected: ReadonlySet<string>;
  /** Positions shown instead of the document's: drags and unanswered moves. */
  readonly positions: ReadonlyMap<string, XYPosition>;
}

/**
 * The next canvas nodes, reusing every previous node object that did not
 * change, and the previous array itself when no node did: the library
 * re-adopts every node and wakes every node's store subscription whenever
 * it is handed a new array, which on a 500-node graph costs a frame.
 */
export function reconcile(previous: readonly CanvasNode[], next: readonly CanvasNode[], overlay: CanvasOverlay): CanvasNode[] {
  const before = new Map(previous.map((n) => [n.id, n]));
  let changed = previous.length !== next.length;
  const nodes = next.map((fresh, index) => {
    const node = reconcileOne(before.get(fresh.id), fresh, overlay);
    if (node !== previous[index]) changed = true;
    return node;
  });
  return changed ? nodes : (previous as CanvasNode[]);
}

function reconcileOne(old: CanvasNode | undefined, fresh: CanvasNode, overlay: CanvasOverlay): CanvasNode {
  // A node being dragged stays under the pointer, whatever else changed.
  const position = old?.dragging ? old.position : (overlay.positions.get(fresh.id) ?? fresh.position);
  const selected = overlay.selected.has(fresh.id);
  if (
    old &&
    old.type === fresh.type &&
    old.data.signature === fresh.data.signature &&
    old.position.x === position.x &&
    old.position.y === position.y &&
    Boolean(old.selected) === selected
  ) {
    return old;
  }
  return {
    ...fresh,
    position,
    selected,
    ...(old?.measured ? { measured: old.measured } : {}),
    ...(old?.dragging ? { dragging: true } : {}),
  };
}

export type CanvasEdge = Edge<{ readonly type: string }>;

export function toCanvasEdges(document: WorkflowDocument, selected: ReadonlySet<string>): CanvasEdge[] {
  const outputs = new Map(document.nodes.map((n) => [n.id, n.ports.out]));
  return document.edges.map((edge) => {
    const type = outputs.get(edge.from_node)?.find((p) => p.name === edge.from_port)?.type ?? "Text";
    return {
      id: edge.id,
      source: edge.from_node,
      sourceHandle: outputHandle(edge.from_port),
      target: edge.to_node,
      targetHandle: inputHandle(edge.to_port),
      selected: selected.has(edge.id),
      data: { type },
      style: { stroke: familyColor(type) },
      ariaLabel: `${edge.from_node}.${edge.from_port} to ${edge.to_node}.${edge.to_port}`,
    };
  });
}
