import type { Assessment, ItemKind, ReadinessItem, ReadinessResolution } from "../api/types";
import { actionFor, actionLabel } from "./resolutions";
import type { ResolveInput } from "./useResolve";

export const KIND_LABELS: Readonly<Record<ItemKind, string>> = {
  input_origin: "Workflow file",
  parameter: "Parameters",
  input: "Inputs",
  managed_resource: "Resources",
  manual_checkpoint: "Checkpoints",
  method_details: "Method details",
  legacy_tool: "Legacy tools",
  adapter: "Replaced steps",
  toolchain: "Toolchain",
  unrepresented_source_step: "Pipeline steps",
  process_environment: "Steps without an environment",
  remote_input: "Remote inputs",
  bundled_file: "Files from the pipeline",
};

const STATE_LABELS: Readonly<Record<Assessment["state"], string>> = {
  empty: "Empty canvas",
  ready: "Ready to run",
  building: "No tool to run yet",
  needs_action: "Needs action",
};

export interface StatusBarProps {
  readonly readiness: Assessment | undefined;
  /** False while the assessment on screen is for an earlier graph. */
  readonly current: boolean;
  readonly panelOpen: boolean;
  readonly onTogglePanel: () => void;
  readonly onResolve: (item: ReadinessItem, resolution: ReadinessResolution, input?: ResolveInput) => void;
  readonly onRecheck: () => void;
}

/** The Workflow assessment at a glance: state, counts by kind, and what to do next. */
export function StatusBar({ readiness, current, panelOpen, onTogglePanel, onResolve, onRecheck }: StatusBarProps) {
  if (!readiness) {
    return (
      <footer className="statusbar" aria-label="Readiness">
        <span className="state-pill state-pill--checking">Assessing…</span>
      </footer>
    );
  }
  const next = readiness.items.find((i) => i.id === readiness.next_requirement);
  const primary = next?.resolutions.find((r) => r.recommended) ?? next?.resolutions[0];
  const kinds = (Object.keys(readiness.counts) as ItemKind[]).filter((k) => (readiness.counts[k] ?? 0) > 0);
  const requiredKinds = new Set(readiness.items.filter((i) => i.required).map((i) => i.kind));

  return (
    <footer className="statusbar" aria-label="Readiness">
      <span
        className={`state-pill state-pill--${current ? readiness.state : "checking"}`}
        aria-live="polite"
        data-testid="readiness-state"
      >
        <span className="state-pill__dot" aria-hidden="true" />
        {current ? STATE_LABELS[readiness.state] : "Checking…"}
      </span>
      {readiness.required_count > 0 && (
        <span className="statusbar__required" data-testid="required-count">
          {readiness.required_count} required
        </span>
      )}
      <ul className="statusbar__counts" aria-label="Open items by kind">
        {kinds.map((kind) => (
          <li key={kind} className={`count${requiredKinds.has(kind) ? "" : " count--info"}`}>
            {KIND_LABELS[kind]} <strong>{readiness.counts[kind]}</strong>
          </li>
        ))}
      </ul>
      {next && (
        <div className="statusbar__next">
          <span className="statusbar__next-label">Next</span>
          <span className="statusbar__next-title" title={next.detail} data-testid="next-requirement">
            {next.title}
          </span>
          {primary && (
            <button type="button" className="button button--small button--primary" onClick={() => { onResolve(next, primary); }}>
              {actionLabel(actionFor(next, primary), primary)}
            </button>
          )}
        </div>
      )}
      <div className="statusbar__end">
        <button type="button" className="button button--small button--ghost" onClick={onRecheck} title="Assess again, e.g. after creating an input file">
          Re-check
        </button>
        <button
          type="button"
          className="button button--small"
          aria-expanded={panelOpen}
          aria-controls="requirements-panel"
          onClick={onTogglePanel}
        >
          Requirements ({readiness.items.length})
        </button>
      </div>
    </footer>
  );
}
