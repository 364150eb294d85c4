import type { CSSProperties } from "react";
import { Suspense, lazy } from "react";
import type { Assessment, OperatorReply, PortSpec, WorkflowDocument, WorkflowNode } from "../api/types";
import type { Selection } from "../canvas/selection";
import { familyColor } from "../canvas/portTypes";
import { splitTitle } from "../canvas/titles";
import { acceptedTypes } from "../domain/ports";
import type { ContractEntry } from "../state/contracts";
import { catalogFieldSpec } from "./fieldSpec";
import { Needs } from "./Needs";
import { ParamField } from "./ParamField";

// Only a source workflow needs it: loaded the first time one is selected.
const SourceInspector = lazy(() => import("../source/SourceInspector").then((m) => ({ default: m.SourceInspector })));

export interface FieldFocus {
  readonly nodeId: string;
  readonly field: string;
  /** A fresh number per request, so asking twice focuses twice. */
  readonly request: number;
}

export interface InspectorProps {
  readonly document: WorkflowDocument;
  readonly readiness: Assessment | undefined;
  readonly selection: Selection;
  readonly contracts: ReadonlyMap<string, ContractEntry>;
  readonly focus: FieldFocus | undefined;
  readonly onDeleteSelection: () => void;
}

/** The selected node's contract, ports and parameters; or what else is selected. */
export function Inspector({ document, readiness, selection, contracts, focus, onDeleteSelection }: InspectorProps) {
  const selectedNodes = document.nodes.filter((n) => selection.nodes.has(n.id));
  const selectedCount = selection.nodes.size + selection.edges.size;
  const [only] = selectedNodes;

  return (
    <aside className="panel inspector" aria-label="Inspector">
      {selectedCount === 1 && only?.source ? (
        <Suspense fallback={<p className="muted">Opening the pipeline…</p>}>
          <SourceInspector
            key={only.id}
            node={only}
            pin={only.source}
            readiness={readiness}
            focus={focus?.nodeId === only.id ? focus : undefined}
            onDelete={onDeleteSelection}
          />
        </Suspense>
      ) : selectedCount === 1 && only ? (
        <NodeInspector
          key={only.id}
          node={only}
          contract={contracts.get(only.operator_id)}
          readiness={readiness}
          focus={focus?.nodeId === only.id ? focus : undefined}
          onDelete={onDeleteSelection}
        />
      ) : selectedCount === 1 && selection.edges.size === 1 ? (
        <EdgeSummary document={document} edgeId={[...selection.edges][0] ?? ""} onDelete={onDeleteSelection} />
      ) : selectedCount > 1 ? (
        <section className="inspector__section">
          <h2 className="inspector__title">{selectedCount} items selected</h2>
          <p className="muted">Drag any of them to move them together, or delete them in one edit.</p>
          <button type="button" className="button button--danger" onClick={onDeleteSelection}>
            Delete selection
          </button>
        </section>
      ) : selection.nodes.size === 1 ? (
        <section className="inspector__section">
          <h2 className="inspector__title">Sticky note</h2>
          <p className="muted">Double-click the note to edit its text. Notes are presentation only: they never change what runs.</p>
        </section>
      ) : (
        <WorkflowSummary document={document} />
      )}
    </aside>
  );
}

function NodeInspector({
  node,
  contract,
  readiness,
  focus,
  onDelete,
}: {
  node: WorkflowNode;
  contract: ContractEntry | undefined;
  readiness: Assessment | undefined;
  focus: FieldFocus | undefined;
  onDelete: () => void;
}) {
  const reply: OperatorReply | undefined = contract?.status === "loaded" ? contract.reply : undefined;
  const { name, purpose } = splitTitle(reply?.contract.title ?? node.operator_id);
  const imported = new Set(node.ports.out.map((p) => p.import_param).filter((p) => p !== undefined));
  const open = readiness?.items.filter((i) => i.node_id === node.id && i.required) ?? [];
  const pinnedElsewhere = reply !== undefined && reply.revision !== node.operator_revision;

  return (
    <>
      <section className="inspector__section inspector__head">
        <p className="inspector__eyebrow">{reply ? `${reply.contract.palette} · ${reply.contract.kind}` : node.operator_id}</p>
        <h2 className="inspector__title">{name}</h2>
        {purpose && <p className="inspector__purpose">{purpose}</p>}
        <dl className="facts">
          <dt>Node</dt>
          <dd className="mono">{node.id}</dd>
          <dt>Operator</dt>
          <dd className="mono">{node.operator_id}</dd>
          <dt>Revision</dt>
          <dd className="mono" title={node.operator_revision}>
            {node.operator_revision.slice(7, 19)}
          </dd>
          {reply && Object.keys(reply.contract.pixi).length > 0 && (
            <>
              <dt>Packages</dt>
              <dd className="mono">
                {Object.entries(reply.contract.pixi)
                  .map(([pkg, version]) => `${pkg} ${version}`)
                  .join(", ")}
              </dd>
            </>
          )}
        </dl>
        {reply?.contract.description && <p className="inspector__description">{reply.contract.description}</p>}
        {pinnedElsewhere && (
          <p className="callout callout--warning">This node pins an older revision of the operator than the catalog holds.</p>
        )}
        {contract?.status === "failed" && <p className="callout callout--danger">{contract.message}</p>}
      </section>

      <Needs items={open} />

      <section className="inspector__section">
        <h3 className="inspector__subtitle">Parameters</h3>
        {!reply && contract?.status !== "failed" && <p className="muted">Loading the contract…</p>}
        {reply?.contract.params.length === 0 && <p className="muted">This operator has no parameters.</p>}
        <div className="fields">
          {reply?.contract.params.map((spec) => (
            <ParamField
              key={`${spec.name}:${JSON.stringify(node.params[spec.name] ?? null)}`}
              nodeId={node.id}
              field={catalogFieldSpec(spec, imported.has(spec.name))}
              value={node.params[spec.name]}
              focusRequest={focus?.field === spec.name ? focus.request : undefined}
            />
          ))}
        </div>
      </section>

      <section className="inspector__section">
        <h3 className="inspector__subtitle">Ports</h3>
        <PortTable title="Inputs" ports={node.ports.in} direction="in" />
        <PortTable title="Outputs" ports={node.ports.out} direction="out" />
      </section>

      <section className="inspector__section inspector__actions">
        <button type="button" className="button button--danger" onClick={onDelete}>
          Delete node
        </button>
      </section>
    </>
  );
}

function PortTable({ title, ports, direction }: { title: string; ports: readonly PortSpec[]; direction: "in" | "out" }) {
  if (ports.length === 0) return null;
  return (
    <table className="ports-table">
      <caption>{title}</caption>
      <tbody>
        {ports.map((port) => (
          <tr key={port.name}>
            <th scope="row" className="mono">
              <span className="swatch" style={{ "--port-color": familyColor(port.type) } as CSSProperties} aria-hidden="true" />
              {port.name}
            </th>
            <td>
              <span className="mono">{direction === "in" ? acceptedTypes(port).join(" | ") : port.type}</span>
              {port.optional && <span className="tag">optional</span>}
              {direction === "in" && port.resource && <span className="tag tag--resource">{port.resource.profile}</span>}
              {direction === "out" && port.resource_profile && <span className="tag tag--resource">{port.resource_profile}</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function EdgeSummary({ document, edgeId, onDelete }: { document: WorkflowDocument; edgeId: string; onDelete: () => void }) {
  const edge = document.edges.find((e) => e.id === edgeId);
  if (!edge) return null;
  const type = document.nodes.find((n) => n.id === edge.from_node)?.ports.out.find((p) => p.name === edge.from_port)?.type;
  return (
    <section className="inspector__section">
      <p className="inspector__eyebrow">Connection</p>
      <h2 className="inspector__title mono">{edge.id}</h2>
      <dl className="facts">
        <dt>From</dt>
        <dd className="mono">
          {edge.from_node}.{edge.from_port}
        </dd>
        <dt>To</dt>
        <dd className="mono">
          {edge.to_node}.{edge.to_port}
        </dd>
        {type && (
          <>
            <dt>Carries</dt>
            <dd className="mono">{type}</dd>
          </>
        )}
      </dl>
      <button type="button" className="button button--danger" onClick={onDelete}>
        Disconnect
      </button>
    </section>
  );
}

function WorkflowSummary({ document }: { document: WorkflowDocument }) {
  return (
    <section className="inspector__section">
      <p className="inspector__eyebrow">Workflow</p>
      <h2 className="inspector__title">{document.title || "Untitled workflow"}</h2>
      <dl className="facts">
        <dt>Nodes</dt>
        <dd>{document.nodes.length}</dd>
        <dt>Connections</dt>
        <dd>{document.edges.length}</dd>
        <dt>Notes</dt>
        <dd>{document.notes.length}</dd>
      </dl>
      <p className="muted">Select a node to see its contract and edit its parameters.</p>
      <h3 className="inspector__subtitle">Shortcuts</h3>
      <dl className="shortcuts">
        <dt><kbd>Drag</kbd></dt>
        <dd>pan the canvas</dd>
        <dt><kbd>Scroll</kbd></dt>
        <dd>zoom at the cursor</dd>
        <dt><kbd>Shift</kbd> + <kbd>Drag</kbd></dt>
        <dd>select an area</dd>
        <dt><kbd>Ctrl</kbd> + <kbd>Click</kbd></dt>
        <dd>add to the selection</dd>
        <dt><kbd>Delete</kbd></dt>
        <dd>delete the selection</dd>
        <dt><kbd>Ctrl</kbd> + <kbd>Z</kbd></dt>
        <dd>undo · <kbd>Ctrl</kbd> + <kbd>Shift</kbd> + <kbd>Z</kbd> redo</dd>
      </dl>
    </section>
  );
}
