/**
 * What the controls did: the last compile (closure digest, package path,
 * Pixi lock), the last export, the run or validation being followed (phase,
 * progress, per-node states, its error and stderr tail, Cancel) and the
 * evidence verdict for the graph on screen.
 */
import type { CompileSummary, NodeRunState, RunStatus } from "../api/types";
import { formatBytes } from "../readiness/resolutions";
import { FailureBlock } from "../shell/FailureBlock";
import type { ControlsState, EvidenceVerdict, RunView } from "../state/controls";
import { isTerminal, runIsActive, shortDigest } from "../state/controls";

export interface RunPanelProps {
  readonly state: ControlsState;
  readonly verdict: EvidenceVerdict;
  readonly graphRevision: string;
  readonly onCancel: () => void;
  readonly onDismiss: (what: "compile" | "export" | "run") => void;
  readonly onClose: () => void;
  readonly onRevealNode: (nodeId: string) => void;
}

const PHASE_LABELS: Readonly<Record<RunStatus["phase"], string>> = {
  preparing: "Preparing",
  running: "Running",
  finalizing: "Finalizing",
  completed: "Completed",
  failed: "Failed",
  cancelling: "Cancelling…",
  cancelled: "Cancelled",
};

export function RunPanel({ state, verdict, graphRevision, onCancel, onDismiss, onClose, onRevealNode }: RunPanelProps) {
  return (
    <section className="run-panel" aria-label="Runs and packages" data-testid="run-panel">
      <header className="run-panel__header">
        <h2>Runs and packages</h2>
        <button type="button" className="icon-button" aria-label="Close runs and packages" onClick={onClose}>
          ×
        </button>
      </header>
      <div className="run-panel__body">
        <div className={`verdict verdict--${verdict.tone}`} data-testid="evidence-detail">
          <strong>{verdict.label}</strong>
          {verdict.detail && <span className="verdict__detail">{verdict.detail}</span>}
        </div>
        {state.run && <RunSection run={state.run} graphRevision={graphRevision} onCancel={onCancel} onDismiss={() => { onDismiss("run"); }} onRevealNode={onRevealNode} />}
        {state.compile.status !== "idle" && (
          <section className="run-section" aria-label="Compile" data-testid="compile-result">
            <SectionHead title={state.compileSource === "agent" ? "Compiled by the agent" : "Compile"} onDismiss={state.compile.status === "working" ? undefined : () => { onDismiss("compile"); }} />
            {state.compile.status === "working" && <p className="muted" role="status">Compiling the graph…</p>}
            {state.compile.status === "failed" && <FailureBlock failure={state.compile.error} />}
            {state.compile.status === "done" && <CompileResult summary={state.compile.result} current={state.compile.result.graph_revision === graphRevision} />}
          </section>
        )}
        {state.export.status !== "idle" && (
          <section className="run-section" aria-label="Export" data-testid="export-result">
            <SectionHead title="Export" onDismiss={state.export.status === "working" ? undefined : () => { onDismiss("export"); }} />
            {state.export.status === "working" && <p className="muted" role="status">Building the zip…</p>}
            {state.export.status === "failed" && <FailureBlock failure={state.export.error} />}
            {state.export.status === "done" && (
              <p>
                Downloaded <code>{state.export.result.filename}</code> ({formatBytes(state.export.result.bytes)})
              </p>
            )}
          </section>
        )}
      </div>
    </section>
  );
}

function SectionHead({ title, onDismiss }: { title: string; onDismiss: (() => void) | undefined }) {
  return (
    <div className="run-section__head">
      <h3>{title}</h3>
      {onDismiss && (
        <button type="button" className="link-button" onClick={onDismiss}>
          Clear
        </button>
      )}
    </div>
  );
}

function CompileResult({ summary, current }: { summary: CompileSummary; current: boolean }) {
  const pixi = {
    locked: { text: "Pixi lock: locked", tone: "success" },
    unavailable: { text: "Pixi lock: not locked — Pixi is not installed here", tone: "warning" },
    failed: { text: "Pixi lock: failed", tone: "danger" },
  }[summary.pixi];
  return (
    <dl className="facts">
      <dt>Closure digest</dt>
      <dd>
        <code className="digest" title={summary.digest} data-testid="closure-digest">
          {summary.digest}
        </code>
      </dd>
      <dt>Package</dt>
      <dd>
        <code data-testid="package-path">{summary.path}</code>
        <span className="muted">
          {" "}
          · {summary.files} files · {formatBytes(summary.bytes)}
          {summary.reused ? " · reused" : ""}
        </span>
      </dd>
      <dt>Lock</dt>
      <dd>
        <span className={`tag tag--${pixi.tone}`} data-testid="pixi-status" data-pixi={summary.pixi}>
          {pixi.text}
        </span>
        {summary.pixi_failure && <p className="failure__title">{summary.pixi_failure}</p>}
        {summary.toolchain.map((item) => (
          <p key={item.id} className="muted">
            {item.detail} {item.resolutions[0]?.label}
          </p>
        ))}
      </dd>
      {!current && (
        <dd className="muted">The graph has changed since; compile again for the current revision.</dd>
      )}
      <dd className="muted">A compiled package is not evidence: only a passed validation is.</dd>
    </dl>
  );
}

function RunSection({
  run,
  graphRevision,
  onCancel,
  onDismiss,
  onRevealNode,
}: {
  run: RunView;
  graphRevision: string;
  onCancel: () => void;
  onDismiss: () => void;
  onRevealNode: (nodeId: string) => void;
}) {
  const title = run.kind === "validation" ? "Validation" : "Run";
  const status = run.status;
  const active = runIsActive(run);
  const phase = status?.phase;
  return (
    <section className="run-section" aria-label={title} data-testid="run-result" data-phase={phase ?? (run.error ? "refused" : "starting")}>
      <SectionHead title={run.origin === "elsewhere" ? `${title} (started by the agent or another window)` : title} onDismiss={active ? undefined : onDismiss} />
      {!status && !run.error && <p className="muted" role="status">Starting — compiling and locking the package…</p>}
      {run.error && !status && <FailureBlock failure={run.error} />}
      {status && (
        <>
          <div className="run-phase">
            <span className={`phase phase--${status.phase}`} data-testid="run-phase">
              {PHASE_LABELS[status.phase]}
            </span>
            <code className="muted" title={status.run_id}>
              {status.run_id}
            </code>
            {active && (
              <button type="button" className="button button--small button--danger" onClick={onCancel} disabled={run.cancelRequested || status.phase === "cancelling"}>
                {run.cancelRequested || status.phase === "cancelling" ? "Cancelling…" : "Cancel"}
              </button>
            )}
          </div>
          <Progress status={status} />
          {run.reconnecting && <p className="muted">Lost contact with the runtime; retrying…</p>}
          {run.cancelError && <FailureBlock failure={run.cancelError} />}
          {status.graph_revision !== graphRevision && <p className="muted">This run is of an earlier revision of the graph.</p>}
          <NodeStates states={status.states} onRevealNode={onRevealNode} />
          {status.error && <FailureBlock failure={{ code: status.error.code, title: status.error.message, detail: status.error.recovery }} />}
          {run.error && <FailureBlock failure={run.error} />}
          {isTerminal(status.phase) && status.exit_code !== null && <p className="muted">Exit code {status.exit_code}</p>}
          {status.stderr_tail.length > 0 && (
            <details className="disclosure" open={status.phase === "failed"}>
              <summary>Standard error (last {status.stderr_tail.length} lines)</summary>
              <pre className="stderr" data-testid="stderr-tail">
                {status.stderr_tail.join("\n")}
              </pre>
            </details>
          )}
          {status.fixtures.length > 0 && (
            <details className="disclosure">
              <summary>Fixtures ({status.fixtures.length})</summary>
              <ul className="plain-list">
                {status.fixtures.map((f) => (
                  <li key={`${f.node_id}.${f.param}`}>
                    <code>
                      {f.node_id}.{f.param}
                    </code>{" "}
                    ← {f.fixture}
                  </li>
                ))}
              </ul>
            </details>
          )}
          {status.unexercised.length > 0 && (
            <details className="disclosure" open data-testid="unexercised-nodes">
              <summary>Not exercised ({status.unexercised.length})</summary>
              <p className="muted">Fixtures stood in for these nodes' outputs; the validation did not run them.</p>
              <ul className="plain-list">
                {status.unexercised.map((n) => (
                  <li key={n.node_id}>
                    <code>{n.node_id}</code> ({n.operator_id}): {n.reason}
                  </li>
                ))}
              </ul>
            </details>
          )}
          {status.overrides.length > 0 && <p className="muted">{status.overrides.length} parameter value(s) overridden for this run.</p>}
          <p className="muted">
            Closure <code title={status.closure_digest}>{shortDigest(status.closure_digest)}</code> · profile {status.profile} · outputs in <code>{status.output_dir}</code>
          </p>
          {status.kind === "validation" && status.evidence_receipt && (
            <p className="muted">
              Evidence receipt <code title={status.evidence_receipt}>{shortDigest(status.evidence_receipt)}</code> — the verdict above is read from it.
            </p>
          )}
        </>
      )}
    </section>
  );
}

function Progress({ status }: { status: RunStatus }) {
  const { completed, total, message, unit } = status.progress;
  const fraction = total > 0 ? completed / total : isTerminal(status.phase) ? 1 : 0;
  return (
    <div className="progress">
      <div
        className={`progress__bar progress__bar--${status.phase}`}
        role="progressbar"
        aria-label="Run progress"
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={completed}
        aria-valuetext={message}
      >
        <span className="progress__fill" style={{ width: `${String(Math.round(fraction * 100))}%` }} />
      </div>
      <p className="progress__text" data-testid="run-progress">
        {completed} of {total} {unit} · {message}
      </p>
    </div>
  );
}

function NodeStates({ states, onRevealNode }: { states: Readonly<Record<string, NodeRunState>>; onRevealNode: (nodeId: string) => void }) {
  const entries = Object.entries(states);
  if (entries.length === 0) return null;
  return (
    <ul className="node-states" aria-label="Node states">
      {entries.map(([nodeId, state]) => (
        <li key={nodeId}>
          <button type="button" className="node-chip" onClick={() => { onRevealNode(nodeId); }}>
            {nodeId}
          </button>
          <span className={`run-state run-state--${state}`}>{state}</span>
        </li>
      ))}
    </ul>
  );
}
