import { useState } from "react";
import type { ReactNode } from "react";
import type { Assessment, ReadinessItem, ReadinessResolution } from "../api/types";
import { KIND_LABELS } from "./StatusBar";
import { actionFor, actionLabel, formatBytes } from "./resolutions";
import type { ResolveInput } from "./useResolve";
import { Why } from "./Why";
import "./reach.css";

export interface RequirementsPanelProps {
  readonly readiness: Assessment;
  /** Items whose details are unfolded. */
  readonly expanded: ReadonlySet<string>;
  readonly onToggleDetails: (itemId: string) => void;
  readonly onResolve: (item: ReadinessItem, resolution: ReadinessResolution, input?: ResolveInput) => void;
  readonly onRevealNode: (nodeId: string) => void;
  readonly onClose: () => void;
  /**
   * The managed-resource resolutions of an item (installed, install with
   * consent, a local folder), when its input has a resource profile; they
   * replace the contract's static download descriptions.
   */
  readonly resourceOptions?: (item: ReadinessItem) => ReactNode;
}

/** Every open requirement with its known resolutions as actions. */
export function RequirementsPanel({ readiness, expanded, onToggleDetails, onResolve, onRevealNode, onClose, resourceOptions }: RequirementsPanelProps) {
  const required = readiness.items.filter((i) => i.required);
  const informational = readiness.items.filter((i) => !i.required);
  return (
    <section id="requirements-panel" className="requirements" aria-label="Requirements">
      <header className="requirements__header">
        <h2>Requirements</h2>
        <button type="button" className="icon-button" aria-label="Close requirements" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="requirements__body">
        {readiness.items.length === 0 && <p className="muted">Nothing is missing.</p>}
        {required.length > 0 && <h3 className="requirements__group">Before it can run</h3>}
        {required.map((item) => (
          <Requirement key={item.id} item={item} expanded={expanded.has(item.id)} {...{ onToggleDetails, onResolve, onRevealNode, resourceOptions }} />
        ))}
        {informational.length > 0 && <h3 className="requirements__group">For information</h3>}
        {informational.map((item) => (
          <Requirement key={item.id} item={item} expanded={expanded.has(item.id)} {...{ onToggleDetails, onResolve, onRevealNode, resourceOptions }} />
        ))}
      </div>
    </section>
  );
}

function Requirement({
  item,
  expanded,
  onToggleDetails,
  onResolve,
  onRevealNode,
  resourceOptions,
}: {
  item: ReadinessItem;
  expanded: boolean;
  onToggleDetails: (itemId: string) => void;
  onResolve: (item: ReadinessItem, resolution: ReadinessResolution, input?: ResolveInput) => void;
  onRevealNode: (nodeId: string) => void;
  resourceOptions: ((item: ReadinessItem) => ReactNode) | undefined;
}) {
  const managed = resourceOptions?.(item);
  const [condaFor, setCondaFor] = useState<ReadinessResolution | null>(null);
  const actionable = item.resolutions.filter((r) => actionFor(item, r).type !== "details");
  // Setup and review steps are instructions for a person: shown as they are.
  const guidance = item.resolutions.filter((r) => r.kind === "setup" || r.kind === "review");
  // Managed resolutions supersede the contract's descriptions of the same choices.
  const informative = item.resolutions.filter(
    (r) => actionFor(item, r).type === "details" && !guidance.includes(r) && !(managed && isResourceChoice(r)),
  );
  return (
    <article className={`requirement requirement--${item.kind}`} data-item={item.id}>
      <div className="requirement__head">
        <span className="requirement__kind">{KIND_LABELS[item.kind]}</span>
        {item.node_id && (
          <button type="button" className="node-chip" onClick={() => { if (item.node_id) onRevealNode(item.node_id); }}>
            {item.node_id}
          </button>
        )}
      </div>
      <h4 className="requirement__title">{item.title}</h4>
      {item.detail && <p className="requirement__detail">{item.detail}</p>}
      {item.evidence.reach && <Reach reach={item.evidence.reach} />}
      <Why evidence={item.evidence} />
      {guidance.map((r) => (
        <p key={r.id} className="requirement__guidance">
          {r.label}
        </p>
      ))}
      {actionable.length > 0 && (
        <div className="requirement__actions">
          {actionable.map((r) => (
            <button
              key={r.id}
              type="button"
              className={`button button--small${r.recommended ? " button--primary" : ""}`}
              title={r.label}
              onClick={() => {
                if (actionFor(item, r).type === "conda") setCondaFor(condaFor ? null : r);
                else onResolve(item, r);
              }}
            >
              {actionLabel(actionFor(item, r), r)}
            </button>
          ))}
        </div>
      )}
      {condaFor && (
        <CondaForm
          process={item.field ?? ""}
          onCancel={() => { setCondaFor(null); }}
          onSubmit={(dependencies) => {
            setCondaFor(null);
            onResolve(item, condaFor, { dependencies });
          }}
        />
      )}
      {managed}
      {informative.length > 0 && (
        <>
          <button type="button" className="link-button" aria-expanded={expanded} onClick={() => { onToggleDetails(item.id); }}>
            {expanded ? "Hide" : "Show"} {informative.length} other option{informative.length === 1 ? "" : "s"}
          </button>
          {expanded && (
            <ul className="options">
              {informative.map((r) => (
                <li key={r.id} className="option">
                  <p className="option__label">
                    {r.label}
                    {r.recommended && <span className="tag tag--recommended">recommended</span>}
                  </p>
                  {(r.download_bytes !== undefined || r.stored_bytes !== undefined) && (
                    <p className="option__sizes">
                      {r.download_bytes !== undefined && <>Download {formatBytes(r.download_bytes)}</>}
                      {r.download_bytes !== undefined && r.stored_bytes !== undefined && " · "}
                      {r.stored_bytes !== undefined && <>Stored {formatBytes(r.stored_bytes)}</>}
                    </p>
                  )}
                  {r.scientific_effect && <p className="option__effect">{r.scientific_effect}</p>}
                  {r.source_url && <p className="option__source mono">{r.source_url}</p>}
                </li>
              ))}
              {item.kind === "managed_resource" && !managed && (
                <li className="option option--note">Nothing here starts a transfer; these are the contract's descriptions.</li>
              )}
            </ul>
          )}
        </>
      )}
    </article>
  );
}

function isResourceChoice(resolution: ReadinessResolution): boolean {
  return resolution.kind === "download" || resolution.kind === "use_existing";
}

/** One Conda match spec per line, from bioconda or conda-forge. */
function CondaForm({ process, onSubmit, onCancel }: { process: string; onSubmit: (dependencies: string[]) => void; onCancel: () => void }) {
  const [text, setText] = useState("");
  const dependencies = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return (
    <form
      className="conda-form"
      aria-label={`Conda packages for ${process}`}
      onSubmit={(event) => {
        event.preventDefault();
        if (dependencies.length > 0) onSubmit(dependencies);
      }}
    >
      <label>
        Conda packages for {process}, one per line (<span className="mono">bioconda::name=version</span>)
        <textarea rows={3} value={text} onChange={(event) => { setText(event.target.value); }} spellCheck={false} />
      </label>
      <div className="requirement__actions">
        <button type="submit" className="button button--small button--primary" disabled={dependencies.length === 0}>
          Use these packages
        </button>
        <button type="button" className="button button--small" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

type ReachEvidence = NonNullable<ReadinessItem["evidence"]["reach"]>;

const REACHED: Readonly<Record<ReachEvidence["reached"], string>> = {
  true: "Reached with the current parameters",
  false: "Not reached with the current parameters",
  unknown: "May be reached: the code does not say statically",
};

/** When the pipeline reaches a step, and whether the current parameters do. */
function Reach({ reach }: { reach: ReachEvidence }) {
  return (
    <div className={`reach reach--${reach.reached}`} data-testid="reach">
      <p className="reach__state">{REACHED[reach.reached]}</p>
      {reach.conditions.length > 0 && (
        <ul className="reach__conditions">
          {reach.conditions.map((condition) => (
            <li key={condition} className="mono">
              {condition}
            </li>
          ))}
        </ul>
      )}
      {reach.params.length > 0 && (
        <p className="reach__params">
          {reach.params.map((p) => (
            <span key={p.name} className="tag mono">
              {p.name} = {p.known ? (p.value === null || p.value === undefined ? "unset" : JSON.stringify(p.value)) : "not in the schema"}
            </span>
          ))}
        </p>
      )}
    </div>
  );
}
