/**
 * The infinite canvas: pan, cursor-centred zoom, minimap, box and
 * modifier-click multi-selection, snap-to-grid alignment, typed handles.
 *
 * Every gesture that changes the workflow becomes a transaction; the canvas
 * then shows what the runtime committed. Until then a moved node stays where
 * it was dropped, and if the runtime refuses the move it returns.
 */
import {
  Background,
  BackgroundVariant,
  ConnectionMode,
  Controls,
  MiniMap,
  ReactFlow,
  applyNodeChanges,
  useReactFlow,
  useStore,
} from "@xyflow/react";
import type {
  Connection,
  EdgeChange,
  FinalConnectionState,
  IsValidConnection,
  NodeChange,
  NodeTypes,
  OnBeforeDelete,
  XYPosition,
} from "@xyflow/react";
import type { DragEvent } from "react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Assessment, NodeRunState, WorkflowDocument } from "../api/types";
import { useServices } from "../shell/context";
import { CanvasDocumentContext, refusalOf } from "./canvasDocument";
import { ConnectionLine } from "./ConnectionLine";
import { DETAIL_ZOOM, NodeDetailContext, fitCouldShowDetail } from "./detail";
import { readOperatorDrag, OPERATOR_DRAG_TYPE } from "./dragData";
import type { Edit } from "./edits";
import { GRID, connectEdit, deleteEdits, moveEdits, snap } from "./edits";
import type { CanvasEdge, CanvasNode, Decorations, OperatorLabel } from "./flowModel";
import { reconcile, toCanvasEdges, toCanvasNodes } from "./flowModel";
import { toAttempt } from "./handles";
import { NoteNode } from "./NoteNode";
import { OperatorNode } from "./OperatorNode";
import { SourceNode } from "../source/SourceNode";
import type { Selection } from "./selection";
import { toggled } from "./selection";
import type { CanvasActions } from "./useCanvasActions";

const NODE_TYPES: NodeTypes = { operator: OperatorNode, source: SourceNode, note: NoteNode };
const SNAP: [number, number] = [GRID, GRID];
const DELETE_KEYS = ["Backspace", "Delete"];
const NO_POSITIONS: ReadonlyMap<string, XYPosition> = new Map();
/**
 * Above this many nodes only what is on screen is rendered (the library
 * still renders every node once to measure it, so fit view and the minimap
 * see the whole graph). Smaller graphs keep every node in the page, where
 * keyboard focus and assistive technology can reach all of them.
 */
const RENDER_VISIBLE_ABOVE = 200;
/** Room around the graph when the view is fitted to it. */
const FIT_PADDING = 0.2;

export interface CanvasProps {
  readonly document: WorkflowDocument;
  readonly readiness: Assessment | undefined;
  /** Per-node states of the run on screen, when it ran this graph. */
  readonly runStates?: ReadonlyMap<string, NodeRunState> | undefined;
  readonly labels: ReadonlyMap<string, OperatorLabel>;
  readonly selection: Selection;
  readonly onSelectionChange: (selection: Selection) => void;
  readonly actions: CanvasActions;
  readonly colorMode: "light" | "dark";
}

export function Canvas({ document, readiness, runStates, labels, selection, onSelectionChange, actions, colorMode }: CanvasProps) {
  const { workspace } = useServices();
  const flow = useReactFlow<CanvasNode, CanvasEdge>();

  const decorations = useMemo<Decorations>(
    () => ({ labels, assessments: new Map(readiness?.nodes.map((n) => [n.node_id, n])), runStates }),
    [labels, readiness, runStates],
  );
  const fresh = useMemo(() => toCanvasNodes(document, decorations), [document, decorations]);

  // Moves sent and not yet answered: shown at their new place meanwhile.
  const [pendingPositions, setPendingPositions] = useState(NO_POSITIONS);
  const [nodes, setNodes] = useState<CanvasNode[]>(() =>
    reconcile([], fresh, { selected: selection.nodes, positions: pendingPositions }),
  );
  // Re-derive the nodes when their inputs change, during render (not in an
  // effect), so the canvas never paints a frame of stale nodes.
  const [derivedFrom, setDerivedFrom] = useState({ fresh, selected: selection.nodes, pendingPositions });
  if (derivedFrom.fresh !== fresh || derivedFrom.selected !== selection.nodes || derivedFrom.pendingPositions !== pendingPositions) {
    setDerivedFrom({ fresh, selected: selection.nodes, pendingPositions });
    setNodes(reconcile(nodes, fresh, { selected: selection.nodes, positions: pendingPositions }));
  }
  const edges = useMemo(() => toCanvasEdges(document, selection.edges), [document, selection.edges]);

  // Full detail or compact nodes (see ./detail): by the zoom once the view
  // is fitted, by the fit's estimate before.
  const fitting = useStore((s) => s.fitViewQueued);
  const zoomShowsDetail = useStore((s) => s.transform[2] >= DETAIL_ZOOM);
  const fitShowsDetail = useMemo(
    () => !fitting || fitCouldShowDetail(document.nodes, { width: window.innerWidth, height: window.innerHeight }, FIT_PADDING),
    [fitting, document.nodes],
  );
  const detail = fitting ? fitShowsDetail : zoomShowsDetail;

  const send = useCallback(
    async (edits: readonly Edit[]) => {
      for (const edit of edits) {
        const result = await workspace.edit(edit.summary, edit.operations);
        if (!result.ok) return false;
      }
      return true;
    },
    [workspace],
  );

  const commitMoves = useCallback(
    (moved: ReadonlyMap<string, XYPosition>) => {
      const positions = [...moved].map(([id, p]) => ({ id, x: snap(p.x), y: snap(p.y) }));
      const edits = moveEdits(document, positions);
      if (edits.length === 0) return;
      setPendingPositions((current) => new Map([...current, ...positions.map((m) => [m.id, { x: m.x, y: m.y }] as const)]));
      void send(edits).then(() => {
        // Answered either way: from now on the document says where they are.
        setPendingPositions((current) => {
          const next = new Map(current);
          for (const m of positions) next.delete(m.id);
          return next;
        });
      });
    },
    [document, send],
  );
  const trackMoves = useMoveTracking(commitMoves);

  const onNodesChange = useCallback(
    (changes: NodeChange<CanvasNode>[]) => {
      const layout = changes.filter((c) => c.type === "dimensions" || c.type === "position");
      if (layout.length > 0) setNodes((current) => applyNodeChanges(layout, current));
      trackMoves(changes);
      let selected = selection.nodes;
      for (const change of changes) {
        if (change.type === "select") selected = toggled(selected, change.id, change.selected);
      }
      if (selected !== selection.nodes) onSelectionChange({ ...selection, nodes: selected });
    },
    [onSelectionChange, selection, trackMoves],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange<CanvasEdge>[]) => {
      let selected = selection.edges;
      for (const change of changes) {
        if (change.type === "select") selected = toggled(selected, change.id, change.selected);
      }
      if (selected !== selection.edges) onSelectionChange({ ...selection, edges: selected });
    },
    [onSelectionChange, selection],
  );

  const onBeforeDelete = useCallback<OnBeforeDelete<CanvasNode, CanvasEdge>>(
    async ({ nodes: doomedNodes, edges: doomedEdges }) => {
      const edits = deleteEdits(document, doomedNodes.map((n) => n.id), doomedEdges.map((e) => e.id));
      if (edits.some((e) => e.operations.length > 0) && (await send(edits))) {
        onSelectionChange({ nodes: new Set(), edges: new Set() });
      }
      // The runtime's reply removes them; the library must not do it first.
      return false;
    },
    [document, onSelectionChange, send],
  );

  const isValidConnection = useCallback<IsValidConnection<CanvasEdge>>(
    (connection) => refusalOf(document, connection as Connection) === undefined,
    [document],
  );

  const onConnect = useCallback(
    (connection: Connection) => {
      const attempt = toAttempt(connection);
      if ("refusal" in attempt) return;
      const edit = connectEdit(document, attempt);
      void workspace.edit(edit.summary, edit.operations);
    },
    [document, workspace],
  );

  // The library does not call isValidConnection for output-to-output (or
  // input-to-input) drops, so the reason is worked out here for every
  // refused drop and shown to the person who made it.
  const onConnectEnd = useCallback(
    (_event: MouseEvent | TouchEvent, state: FinalConnectionState) => {
      if (state.isValid !== false || !state.toHandle || !state.toNode) return;
      const forward = state.fromHandle.type === "source";
      const reason =
        state.fromHandle.type === state.toHandle.type
          ? "connect an output (right side) to an input (left side)"
          : refusalOf(document, {
              source: forward ? state.fromNode.id : state.toNode.id,
              sourceHandle: (forward ? state.fromHandle.id : state.toHandle.id) ?? null,
              target: forward ? state.toNode.id : state.fromNode.id,
              targetHandle: (forward ? state.toHandle.id : state.fromHandle.id) ?? null,
            });
      if (reason) workspace.notify("error", "Connection refused", reason);
    },
    [document, workspace],
  );

  const onDragOver = useCallback((event: DragEvent) => {
    if (event.dataTransfer.types.includes(OPERATOR_DRAG_TYPE)) {
      event.preventDefault();
      event.dataTransfer.dropEffect = "copy";
    }
  }, []);

  const onDrop = useCallback(
    (event: DragEvent) => {
      const operator = readOperatorDrag(event.dataTransfer);
      if (!operator) return;
      event.preventDefault();
      const at = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
      void actions.addOperator(operator, at);
    },
    [actions, flow],
  );

  return (
    <CanvasDocumentContext.Provider value={document}>
      <NodeDetailContext.Provider value={detail}>
        <ReactFlow<CanvasNode, CanvasEdge>
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          onNodesChange={onNodesChange}
          onEdgesChange={onEdgesChange}
          onBeforeDelete={onBeforeDelete}
          onConnect={onConnect}
          onConnectEnd={onConnectEnd}
          isValidConnection={isValidConnection}
          connectionMode={ConnectionMode.Strict}
          connectionLineComponent={ConnectionLine}
          onDragOver={onDragOver}
          onDrop={onDrop}
          snapToGrid
          snapGrid={SNAP}
          deleteKeyCode={DELETE_KEYS}
          multiSelectionKeyCode={["Meta", "Control", "Shift"]}
          selectionKeyCode="Shift"
          colorMode={colorMode}
          minZoom={0.05}
          maxZoom={2}
          onlyRenderVisibleElements={nodes.length > RENDER_VISIBLE_ABOVE}
          fitView
          fitViewOptions={{ padding: FIT_PADDING, maxZoom: 1 }}
          proOptions={{ hideAttribution: true }}
          aria-label="Workflow canvas"
        >
          <Background variant={BackgroundVariant.Dots} gap={GRID} size={1.2} />
          <Controls position="bottom-left" showInteractive={false} />
          <MiniMap<CanvasNode>
            position="bottom-right"
            pannable
            zoomable
            ariaLabel="Minimap"
            nodeColor={minimapColor}
            nodeStrokeWidth={0}
            nodeBorderRadius={4}
            style={{ width: 176, height: 120 }}
          />
        </ReactFlow>
      </NodeDetailContext.Provider>
    </CanvasDocumentContext.Provider>
  );
}

/** How long arrow-key nudges are gathered before they are sent as one move. */
const NUDGE_SETTLE_MS = 400;

/**
 * Turns the library's position changes into committed moves: a drag commits
 * when it ends; arrow-key nudges (which arrive one key press at a time)
 * commit once the keys have been still for a moment, as one edit.
 */
function useMoveTracking(commit: (moved: ReadonlyMap<string, XYPosition>) => void) {
  const dragging = useRef(new Set<string>());
  const nudged = useRef(new Map<string, XYPosition>());
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const latestCommit = useRef(commit);
  useEffect(() => {
    latestCommit.current = commit;
  }, [commit]);
  useEffect(() => () => { clearTimeout(timer.current); }, []);

  return useCallback((changes: readonly NodeChange<CanvasNode>[]) => {
    const dropped = new Map<string, XYPosition>();
    for (const change of changes) {
      if (change.type !== "position" || !change.position) continue;
      if (change.dragging) dragging.current.add(change.id);
      else if (dragging.current.delete(change.id)) dropped.set(change.id, change.position);
      else nudged.current.set(change.id, change.position);
    }
    if (dropped.size > 0) latestCommit.current(dropped);
    if (nudged.current.size > 0) {
      clearTimeout(timer.current);
      timer.current = setTimeout(() => {
        const moved = nudged.current;
        nudged.current = new Map();
        latestCommit.current(moved);
      }, NUDGE_SETTLE_MS);
    }
  }, []);
}

function minimapColor(node: CanvasNode): string {
  if (node.type === "note") return "var(--note-border)";
  const kind = node.data.label?.kind ?? "inprocess";
  return `color-mix(in srgb, var(--kind-${kind}) 45%, var(--panel))`;
}
