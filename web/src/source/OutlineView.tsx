/**
 * A source node opened: the pipeline's outline as a nested canvas. It
 * starts at the entry workflow; a subworkflow call opens into its own block
 * (the breadcrumb leads back). Processes, subworkflow and function calls
 * are nodes, the channels the outline could follow are edges, and what it
 * kept opaque is shown with its file and line.
 *
 * The pinned tree itself is never edited. What can change is typed: a
 * selected process call can be replaced with a catalog operator whose
 * ports fit (drawn from then on as that native node, with a way back to
 * the original), and replaced calls can be promoted into a native variant.
 * Both go through the workspace like any edit; what is drawn follows the
 * source node in the live document, so undo and redo show at once.
 */
import { Background, BackgroundVariant, Controls, Handle, Position, ReactFlow, ReactFlowProvider } from "@xyflow/react";
import type { Edge, Node, NodeProps, NodeTypes } from "@xyflow/react";
import { memo, useEffect, useMemo, useState } from "react";
import { ApiError } from "../api/errors";
import type { Invocation, Outline, OutlineReply, Replacement } from "../api/sourceSchemas";
import { FailureBlock } from "../shell/FailureBlock";
import { useContractEntries, useServices, useWorkspaceState } from "../shell/context";
import type { Failure } from "../state/controls";
import { toFailure } from "../state/controls";
import { useSourceApi } from "./context";
import type { OutlineNode, WorkflowKey } from "./outlineGraph";
import { entryWorkflow, findWorkflow, outlineGraph, workflowKey, workflowTitle } from "./outlineGraph";
import { invocationFor, refusalDetail, replacementOf } from "./replace";
import { ReplaceInvocation } from "./ReplaceInvocation";
import "./source.css";

/** One empty list, so the drawn nodes are not rebuilt on every render of a source with no replacement. */
const NO_REPLACEMENTS: readonly Replacement[] = [];

type OutlineState =
  | { readonly status: "loading" }
  | { readonly status: "done"; readonly reply: OutlineReply }
  | { readonly status: "failed"; readonly failure: Failure };

export function OutlineView({ nodeId, onClose }: { nodeId: string; onClose: () => void }) {
  const source = useSourceApi();
  const { contracts } = useServices();
  const workspace = useWorkspaceState();
  const [state, setState] = useState<OutlineState>({ status: "loading" });
  const replacements = workspace.snapshot?.document.nodes.find((n) => n.id === nodeId)?.replacements;
  const catalogRevision = workspace.catalogRevision;

  // A replaced call is drawn with its operator's title.
  const operatorIds = [...new Set(replacements?.map((r) => r.operator_id))].sort().join(" ");
  useEffect(() => {
    if (catalogRevision && operatorIds) contracts.request(operatorIds.split(" "), catalogRevision);
  }, [contracts, operatorIds, catalogRevision]);

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
          <p className="inspector__eyebrow">Outline · pinned tree</p>
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
      {state.status === "done" && (
        <OutlineBrowser outline={state.reply.outline} invocations={state.reply.invocations} nodeId={nodeId} replacements={replacements ?? NO_REPLACEMENTS} />
      )}
    </div>
  );
}

interface OutlineBrowserProps {
  readonly outline: Outline;
  readonly invocations: readonly Invocation[];
  readonly nodeId: string;
  /** The source node's replacements in the live document. */
  readonly replacements: readonly Replacement[];
}

/** A block on the breadcrumb, with the call name that opened it (none for the entry workflow). */
interface TrailStep {
  readonly key: WorkflowKey;
  readonly call: string | null;
}

function OutlineBrowser({ outline, invocations, nodeId, replacements }: OutlineBrowserProps) {
  const { workspace } = useServices();
  const contracts = useContractEntries();
  const entry = entryWorkflow(outline);
  const [trail, setTrail] = useState<readonly TrailStep[]>(() => (entry ? [{ key: workflowKey(entry), call: null }] : []));
  const [selected, setSelected] = useState<OutlineNode | undefined>();
  const [replacing, setReplacing] = useState(false);
  const [restoreFailure, setRestoreFailure] = useState<Failure | undefined>();
  const currentStep = trail.at(-1);
  const current = currentStep ? findWorkflow(outline, currentStep.key) : undefined;
  const graph = useMemo(() => (current ? outlineGraph(outline, current) : undefined), [outline, current]);
  const path = useMemo(() => trail.flatMap((step) => (step.call === null ? [] : [step.call])), [trail]);

  const open = (key: WorkflowKey, call: string) => {
    // A block already on the trail (recursion is not possible in Nextflow, but a trail is cheap to guard) is returned to.
    const at = trail.findIndex((step) => step.key.name === key.name && step.key.file === key.file);
    setTrail(at >= 0 ? trail.slice(0, at + 1) : [...trail, { key, call }]);
    setSelected(undefined);
    setReplacing(false);
  };

  const restore = async (invocation: string, call: string) => {
    const result = await workspace.edit(`Restore ${call}`, [{ op: "restore_invocation", node_id: nodeId, invocation }], { reportErrors: false });
    setRestoreFailure(result.ok ? undefined : toFailure(result.error));
  };

  const invocationOf = (node: OutlineNode): Invocation | undefined =>
    node.kind === "process" && current ? invocationFor(invocations, path, current.name, node.label) : undefined;

  const nodes = useMemo<OutlineFlowNode[]>(
    () =>
      (graph?.nodes ?? []).map((n) => {
        const invocation = invocationOf(n);
        const replacement = invocation ? replacementOf(replacements, invocation.id) : undefined;
        const contract = replacement ? contracts.get(replacement.operator_id) : undefined;
        return {
          id: n.id,
          type: "outline",
          position: { x: n.x, y: n.y },
          data: {
            node: n,
            onOpen: open,
            replaced: replacement && invocation
              ? {
                  replacement,
                  invocation: invocation.id,
                  title: contract?.status === "loaded" ? contract.reply.contract.title : replacement.operator_id,
                  onRestore: () => void restore(invocation.id, n.label),
                }
              : undefined,
          },
          draggable: false,
          connectable: false,
        };
      }),
    // `open`, `invocationOf` and `restore` close over the trail and node, which `graph` and `path` follow.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [graph, path, invocations, replacements, contracts],
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
  const selectedInvocation = selected ? invocationOf(selected) : undefined;
  const selectedReplacement = selectedInvocation ? replacementOf(replacements, selectedInvocation.id) : undefined;
  return (
    <div className="outline-view__body">
      <nav className="outline-view__trail" aria-label="Workflow blocks">
        {trail.map((step, index) => {
          const block = findWorkflow(outline, step.key);
          const label = block ? workflowTitle(block) : (step.key.name ?? "entry workflow");
          return index === trail.length - 1 ? (
            <span key={`${step.key.file}:${label}`} aria-current="page" className="outline-view__crumb">
              {label}
            </span>
          ) : (
            <button key={`${step.key.file}:${label}`} type="button" className="link-button" onClick={() => { setTrail(trail.slice(0, index + 1)); setSelected(undefined); setReplacing(false); }}>
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
            onNodeClick={(_event, node) => { setSelected(node.data.node); setReplacing(false); }}
            onNodeDoubleClick={(_event, node) => {
              if (node.data.node.opens) open(node.data.node.opens, node.data.node.label);
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
        {/* Restoring may start from the canvas with nothing selected. */}
        {restoreFailure && <FailureBlock failure={restoreFailure} onDismiss={() => { setRestoreFailure(undefined); }} />}
        {selected ? (
          <section>
            <h3 className="inspector__subtitle">{selected.label}</h3>
            <p className="tag">{selectedReplacement ? "replaced" : selected.kind}</p>
            {selected.detail && <p className="outline-view__detail">{selected.detail}</p>}
            {selected.location && <p className="mono muted">{selected.location}</p>}
            {selectedInvocation && (
              <InvocationDetails
                invocation={selectedInvocation}
                replacement={selectedReplacement}
                onRestore={() => void restore(selectedInvocation.id, selected.label)}
                onReplace={() => { setReplacing(true); }}
              />
            )}
            {selectedInvocation && replacing && (
              <ReplaceInvocation key={selectedInvocation.id} nodeId={nodeId} invocation={selectedInvocation} onDone={() => { setReplacing(false); }} />
            )}
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
                {!selectedInvocation && selectedProcess.outputs.length > 0 && (
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
              <button type="button" className="button button--small" onClick={() => { if (selected.opens) open(selected.opens, selected.label); }}>
                Open {selected.label}
              </button>
            )}
          </section>
        ) : (
          <p className="muted">Select a step to see where it is written; open a subworkflow to see inside it; select a process call to replace it.</p>
        )}
        {replacements.length > 0 && <Promote nodeId={nodeId} replacements={replacements} invocations={invocations} />}
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

interface InvocationDetailsProps {
  readonly invocation: Invocation;
  readonly replacement: Replacement | undefined;
  readonly onRestore: () => void;
  readonly onReplace: () => void;
}

/** A selected process call: its fully-qualified name, typed ports, and what replaces it. */
function InvocationDetails({ invocation, replacement, onRestore, onReplace }: InvocationDetailsProps) {
  const ports = (title: string, list: Invocation["inputs"]) =>
    list.length > 0 && (
      <>
        <h4 className="outline-view__ports-title">{title}</h4>
        <ul className="outline-view__list outline-view__ports" aria-label={`${title} of ${invocation.call}`}>
          {list.map((port) => (
            <li key={port.name} data-port={port.name}>
              <span className="mono">{port.name}</span>{" "}
              {port.type ? <span className="tag mono">{port.type}</span> : <span className="muted">type unknown</span>}
              {port.text && <span className="muted mono outline-view__port-text"> {port.text}</span>}
            </li>
          ))}
        </ul>
      </>
    );
  return (
    <div className="outline-view__invocation" data-invocation={invocation.id}>
      <p className="mono outline-view__invocation-id" title="The call's fully-qualified name, as Nextflow names its tasks">
        {invocation.id}
      </p>
      {ports("Inputs", invocation.inputs)}
      {ports("Outputs", invocation.outputs)}
      {replacement && (
        <div className="outline-view__replacement">
          <p>
            Replaced by <span className="mono">{replacement.operator_id}</span>
          </p>
          <ul className="outline-view__list" aria-label="Port mapping">
            {[...replacement.inputs, ...replacement.outputs].map((pair) => (
              <li key={`${pair.invocation_port}:${pair.operator_port}`} className="mono">
                {pair.invocation_port} → {pair.operator_port}
              </li>
            ))}
          </ul>
          <button type="button" className="button button--small" onClick={onRestore}>
            Restore original
          </button>
        </div>
      )}
      <button type="button" className="button button--small" onClick={onReplace}>
        {replacement ? "Replace with another operator…" : "Replace with operator…"}
      </button>
    </div>
  );
}

interface PromoteProps {
  readonly nodeId: string;
  readonly replacements: readonly Replacement[];
  readonly invocations: readonly Invocation[];
}

/**
 * The replaced calls, to pick for promotion: the runtime turns them into
 * ordinary nodes of a native variant (and the rest of the pipeline into
 * native nodes where the catalog has them, requirements where not).
 */
function Promote({ nodeId, replacements, invocations }: PromoteProps) {
  const { workspace } = useServices();
  const source = useSourceApi();
  // Every replaced step is picked unless unticked, including one replaced later.
  const [unpicked, setUnpicked] = useState<ReadonlySet<string>>(() => new Set());
  const [working, setWorking] = useState(false);
  const [failure, setFailure] = useState<{ failure: Failure; where: string | undefined } | undefined>();
  const chosen = replacements.filter((r) => !unpicked.has(r.invocation)).map((r) => r.invocation);
  const callOf = (id: string) => invocations.find((i) => i.id === id)?.call ?? id;

  const promote = async () => {
    setWorking(true);
    const result = await workspace.place((base) => source.promote(nodeId, chosen, base), { reportErrors: false });
    setWorking(false);
    if (!result.ok) {
      const error = result.error;
      setFailure({ failure: toFailure(error), where: error instanceof ApiError ? refusalDetail(error.code, error.details) : undefined });
    }
  };

  return (
    <section aria-label="Replaced steps">
      <h3 className="inspector__subtitle">Replaced steps</h3>
      <ul className="outline-view__list">
        {replacements.map((r) => (
          <li key={r.invocation}>
            <label>
              <input
                type="checkbox"
                checked={!unpicked.has(r.invocation)}
                onChange={(e) => {
                  const next = new Set(unpicked);
                  if (e.target.checked) next.delete(r.invocation);
                  else next.add(r.invocation);
                  setUnpicked(next);
                  setFailure(undefined);
                }}
              />{" "}
              <span className="mono">{callOf(r.invocation)}</span> → <span className="mono">{r.operator_id}</span>
            </label>
          </li>
        ))}
      </ul>
      <button type="button" className="button button--primary button--small" disabled={chosen.length === 0 || working} onClick={() => void promote()}>
        Promote to native variant
      </button>
      {failure && (
        <>
          <FailureBlock failure={failure.failure} />
          {failure.where && <p className="field__error mono">{failure.where}</p>}
        </>
      )}
      <p className="muted outline-view__detail">
        The picked steps become ordinary nodes of a new native workflow; the rest of the pipeline becomes native nodes where the catalog has them and
        requirements where it does not. The source is kept and can be restored.
      </p>
    </section>
  );
}

interface ReplacedStep {
  readonly replacement: Replacement;
  readonly invocation: string;
  /** The operator's title from its contract (its id until that is loaded). */
  readonly title: string;
  readonly onRestore: () => void;
}

type OutlineFlowNode = Node<
  { node: OutlineNode; onOpen: (key: WorkflowKey, call: string) => void; replaced: ReplacedStep | undefined },
  "outline"
>;

const OutlineStep = memo(function OutlineStep({ data }: NodeProps<OutlineFlowNode>) {
  const { node, onOpen, replaced } = data;
  if (replaced) return <ReplacedOutlineStep node={node} replaced={replaced} />;
  return (
    <div className={`outline-step outline-step--${node.kind}`} data-outline-kind={node.kind} title={node.detail}>
      <Handle type="target" position={Position.Left} isConnectable={false} className="outline-step__handle" />
      <span className="outline-step__kind">{node.kind}</span>
      <span className="outline-step__label">{node.label}</span>
      {node.location && <span className="outline-step__location mono">{node.location}</span>}
      {node.kind === "opaque" && node.detail && <span className="outline-step__excerpt mono">{node.detail}</span>}
      {node.opens && (
        <button type="button" className="link-button nodrag" onClick={() => { if (node.opens) onOpen(node.opens, node.label); }}>
          Open
        </button>
      )}
      <Handle type="source" position={Position.Right} isConnectable={false} className="outline-step__handle" />
    </div>
  );
});

/** A replaced call, drawn as the native node that replaces it: operator title, its pinned ports. */
function ReplacedOutlineStep({ node, replaced }: { node: OutlineNode; replaced: ReplacedStep }) {
  const { replacement } = replaced;
  return (
    <div
      className="outline-step outline-step--replaced"
      data-outline-kind="replaced"
      data-operator={replacement.operator_id}
      // Within the outline's row height: the operator id is in the tooltip and the side panel.
      title={`${node.label} replaced by ${replacement.operator_id}`}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} className="outline-step__handle" />
      <span className="outline-step__kind">replaces {node.label}</span>
      <span className="outline-step__label outline-step__operator">{replaced.title}</span>
      <span className="outline-step__ports mono">
        {replacement.ports.in.map((p) => p.name).join(", ") || "—"} → {replacement.ports.out.map((p) => p.name).join(", ") || "—"}
      </span>
      <button type="button" className="link-button nodrag" onClick={replaced.onRestore}>
        Restore original
      </button>
      <Handle type="source" position={Position.Right} isConnectable={false} className="outline-step__handle" />
    </div>
  );
}

const OUTLINE_NODE_TYPES: NodeTypes = { outline: OutlineStep };
const EDGE_LABEL_STYLE = { fill: "var(--text-2)", fontSize: 10 };
const EDGE_LABEL_BACKGROUND = { fill: "var(--panel)" };
