/**
 * A source node opened: the pipeline's outline as a read-only nested
 * canvas. It starts at the entry workflow; a subworkflow call opens into
 * its own block (the breadcrumb leads back). Processes, subworkflow and
 * function calls are nodes, the channels the outline could follow are
 * edges, and what it kept opaque is shown with its file and line. Nothing
 * here edits the graph: the pinned tree is what will run.
 */
import { Background, BackgroundVariant, Controls, Handle, Position, ReactFlow, ReactFlowProvider } from "@xyflow/react";
import type { Edge, Node, NodeProps, NodeTypes } from "@xyflow/react";
import { memo, useEffect, useMemo, useState } from "react";
import type { Outline, OutlineReply } from "../api/sourceSchemas";
import { FailureBlock } from "../shell/FailureBlock";
import type { Failure } from "../state/controls";
import { toFailure } from "../state/controls";
import { useSourceApi } from "./context";
import type { OutlineNode, WorkflowKey } from "./outlineGraph";
import { entryWorkflow, findWorkflow, outlineGraph, workflowKey, workflowTitle } from "./outlineGraph";
import "./source.css";

type OutlineState =
  | { readonly status: "loading" }
  | { readonly status: "done"; readonly reply: OutlineReply }
  | { readonly status: "failed"; readonly failure: Failure };

export function OutlineView({ nodeId, onClose }: { nodeId: string; onClose: () => void }) {
  const source = useSourceApi();
  const [state, setState] = useState<OutlineState>({ status: "loading" });

  useEffect(() => {
    const controller = new AbortController();
    source.outline(nodeId, controller.signal).then(
      (reply) => { setState({ status: "done", reply }); },
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ status: "failed", failure: toFailure(error) });
      },
    );
    return () => { controller.abort(); };
  }, [source, nodeId]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => { window.removeEventListener("keydown", onKey); };
  }, [onClose]);

  const title = state.status === "done" ? state.reply.repository : nodeId;
  return (
    <div className="outline-view" role="dialog" aria-modal="true" aria-label={`Outline of ${title}`}>
      <header className="outline-view__head">
        <div>
          <p className="inspector__eyebrow">Outline · read-only</p>
          <h2 className="outline-view__title">
            {title}
            {state.status === "done" && (
              <span className="mono muted outline-view__commit" title={`${state.reply.commit} · ${state.reply.tree_digest}`}>
                {" "}
                {state.reply.commit.slice(0, 7)}
              </span>
            )}
          </h2>
        </div>
        <button type="button" className="icon-button icon-button--bordered" aria-label="Close the outline" onClick={onClose}>
          ×
        </button>
      </header>
      {state.status === "loading" && <p className="muted outline-view__message" role="status">Verifying the pinned tree and outlining it…</p>}
      {state.status === "failed" && (
        <div className="outline-view__message">
          <FailureBlock failure={state.failure} />
        </div>
      )}
      {state.status === "done" && <OutlineBrowser outline={state.reply.outline} />}
    </div>
  );
}

function OutlineBrowser({ outline }: { outline: Outline }) {
  const entry = entryWorkflow(outline);
  const [trail, setTrail] = useState<readonly WorkflowKey[]>(() => (entry ? [workflowKey(entry)] : []));
  const [selected, setSelected] = useState<OutlineNode | undefined>();
  const current = trail.length > 0 ? findWorkflow(outline, trail[trail.length - 1] as WorkflowKey) : undefined;
  const graph = useMemo(() => (current ? outlineGraph(outline, current) : undefined), [outline, current]);

  const open = (key: WorkflowKey) => {
    // A block already on the trail (recursion is not possible in Nextflow, but a trail is cheap to guard) is returned to.
    const at = trail.findIndex((k) => k.name === key.name && k.file === key.file);
    setTrail(at >= 0 ? trail.slice(0, at + 1) : [...trail, key]);
    setSelected(undefined);
  };

  const nodes = useMemo<OutlineFlowNode[]>(
    () =>
      (graph?.nodes ?? []).map((n) => ({
        id: n.id,
        type: "outline",
        position: { x: n.x, y: n.y },
        data: { node: n, onOpen: open },
        draggable: false,
        connectable: false,
      })),
    // `open` closes over the trail, which `graph` follows.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [graph],
  );
  const edges = useMemo<Edge[]>(
    () =>
      (graph?.edges ?? []).map((e) => ({
        id: e.id,
        source: e.source,
        target: e.target,
        label: e.label,
        labelStyle: EDGE_LABEL_STYLE,
        labelBgStyle: EDGE_LABEL_BACKGROUND,
        labelBgPadding: [3, 1] as [number, number],
        className: "outline-edge",
        ariaLabel: `${e.source} to ${e.target}${e.label ? ` (${e.label})` : ""}`,
      })),
    [graph],
  );

  if (!current || !graph) {
    return <p className="muted outline-view__message">The outline found no workflow block in {outline.entry}.</p>;
  }
  const processes = new Map(outline.processes.map((p) => [p.name, p]));
  const selectedProcess = selected?.kind === "process" && selected.declared ? processes.get(selected.declared) : undefined;
  return (
    <div className="outline-view__body">
      <nav className="outline-view__trail" aria-label="Workflow blocks">
        {trail.map((key, index) => {
          const block = findWorkflow(outline, key);
          const label = block ? workflowTitle(block) : (key.name ?? "entry workflow");
          return index === trail.length - 1 ? (
            <span key={`${key.file}:${label}`} aria-current="page" className="outline-view__crumb">
              {label}
            </span>
          ) : (
            <button key={`${key.file}:${label}`} type="button" className="link-button" onClick={() => { setTrail(trail.slice(0, index + 1)); setSelected(undefined); }}>
              {label} ›
            </button>
          );
        })}
        <span className="muted mono outline-view__where">
          {current.location.file}:{current.location.line}
        </span>
      </nav>
      <div className="outline-view__canvas" aria-label={`Outline canvas of ${workflowTitle(current)}`}>
        <ReactFlowProvider>
          <ReactFlow<OutlineFlowNode>
            key={`${current.location.file}:${workflowTitle(current)}`}
            nodes={nodes}
            edges={edges}
            nodeTypes={OUTLINE_NODE_TYPES}
            nodesDraggable={false}
            nodesConnectable={false}
            elementsSelectable
            deleteKeyCode={null}
            onNodeClick={(_event, node) => { setSelected(node.data.node); }}
            onNodeDoubleClick={(_event, node) => {
              if (node.data.node.opens) open(node.data.node.opens);
            }}
            minZoom={0.1}
            maxZoom={1.5}
            fitView
            // Readable first: a wide block is panned rather than shrunk to fit.
            fitViewOptions={{ padding: 0.1, minZoom: 0.5, maxZoom: 1 }}
            proOptions={{ hideAttribution: true }}
            aria-label="Outline canvas"
          >
            <Background variant={BackgroundVariant.Dots} gap={16} size={1} />
            <Controls position="bottom-left" showInteractive={false} />
          </ReactFlow>
        </ReactFlowProvider>
      </div>
      <aside className="outline-view__side" aria-label="Outline details">
        {selected ? (
          <section>
            <h3 className="inspector__subtitle">{selected.label}</h3>
            <p className="tag">{selected.kind}</p>
            {selected.detail && <p className="outline-view__detail">{selected.detail}</p>}
            {selected.location && <p className="mono muted">{selected.location}</p>}
            {selectedProcess && (
              <>
                <p className="mono muted">
                  declared in {selectedProcess.location.file}:{selectedProcess.location.line}
                </p>
                <p>
                  Environment:{" "}
                  {selectedProcess.conda?.environment ? (
                    <span className="mono">{selectedProcess.conda.environment.file}</span>
                  ) : (
                    <strong>none (needs one before it can run)</strong>
                  )}
                </p>
                {selectedProcess.outputs.length > 0 && (
                  <ul className="outline-view__list">
                    {selectedProcess.outputs.map((o) => (
                      <li key={o.text} className="mono">
                        {o.text}
                      </li>
                    ))}
                  </ul>
                )}
              </>
            )}
            {selected.opens && (
              <button type="button" className="button button--small" onClick={() => { if (selected.opens) open(selected.opens); }}>
                Open {selected.label}
              </button>
            )}
          </section>
        ) : (
          <p className="muted">Select a step to see where it is written; open a subworkflow to see inside it.</p>
        )}
        {outline.opaque.length > 0 && (
          <section>
            <h3 className="inspector__subtitle">Not modelled at top level</h3>
            <ul className="outline-view__list" aria-label="Opaque steps">
              {outline.opaque.map((step) => (
                <li key={`${step.location.file}:${String(step.location.line)}`}>
                  <span className="mono">{step.excerpt}</span>
                  <span className="muted mono"> {step.location.file}:{step.location.line}</span>
                </li>
              ))}
            </ul>
          </section>
        )}
        {outline.diagnostics.length > 0 && (
          <section>
            <h3 className="inspector__subtitle">Partly read</h3>
            <ul className="outline-view__list">
              {outline.diagnostics.map((d, index) => (
                <li key={index}>
                  <code>{d.code}</code> {d.message}{" "}
                  <span className="muted mono">
                    {d.file}
                    {d.line !== null && d.line !== undefined ? `:${String(d.line)}` : ""}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        )}
      </aside>
    </div>
  );
}

type OutlineFlowNode = Node<{ node: OutlineNode; onOpen: (key: WorkflowKey) => void }, "outline">;

const OutlineStep = memo(function OutlineStep({ data }: NodeProps<OutlineFlowNode>) {
  const { node, onOpen } = data;
  return (
    <div className={`outline-step outline-step--${node.kind}`} data-outline-kind={node.kind} title={node.detail}>
      <Handle type="target" position={Position.Left} isConnectable={false} className="outline-step__handle" />
      <span className="outline-step__kind">{node.kind}</span>
      <span className="outline-step__label">{node.label}</span>
      {node.location && <span className="outline-step__location mono">{node.location}</span>}
      {node.kind === "opaque" && node.detail && <span className="outline-step__excerpt mono">{node.detail}</span>}
      {node.opens && (
        <button type="button" className="link-button nodrag" onClick={() => { if (node.opens) onOpen(node.opens); }}>
          Open
        </button>
      )}
      <Handle type="source" position={Position.Right} isConnectable={false} className="outline-step__handle" />
    </div>
  );
});

const OUTLINE_NODE_TYPES: NodeTypes = { outline: OutlineStep };
const EDGE_LABEL_STYLE = { fill: "var(--text-2)", fontSize: 10 };
const EDGE_LABEL_BACKGROUND = { fill: "var(--panel)" };
