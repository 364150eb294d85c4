/**
 * Compile, Run, Validate and Export. Each is disabled while readiness blocks
 * it, with the reason in its tooltip and spoken by screen readers; the
 * evidence chip beside them says whether the graph on screen is validated —
 * only ever on the evidence lookup's word.
 */
import type { ReactNode } from "react";
import type { ControlAction, Gate } from "../readiness/gating";
import type { EvidenceVerdict } from "../state/controls";

export interface ControlsBarProps {
  readonly gates: Readonly<Record<ControlAction, Gate>>;
  readonly verdict: EvidenceVerdict;
  readonly onCompile: () => void;
  readonly onRun: () => void;
  readonly onValidate: () => void;
  readonly onExport: () => void;
  readonly onShowPanel: () => void;
}

const HINTS: Readonly<Record<ControlAction, string>> = {
  compile: "Freeze the graph into a reproducible package",
  run: "Run the workflow on its configured inputs",
  validate: "Run the workflow on representative fixtures and record evidence",
  export: "Download the compiled package as a zip",
};

export function ControlsBar({ gates, verdict, onCompile, onRun, onValidate, onExport, onShowPanel }: ControlsBarProps) {
  return (
    <div className="toolbar controls" role="toolbar" aria-label="Workflow">
      <ControlButton action="compile" gate={gates.compile} onClick={onCompile} icon={<CompileIcon />}>
        Compile
      </ControlButton>
      <ControlButton action="run" gate={gates.run} onClick={onRun} icon={<RunIcon />} primary>
        Run
      </ControlButton>
      <ControlButton action="validate" gate={gates.validate} onClick={onValidate} icon={<ValidateIcon />}>
        Validate
      </ControlButton>
      <ControlButton action="export" gate={gates.export} onClick={onExport} icon={<ExportIcon />}>
        Export
      </ControlButton>
      <button
        type="button"
        className={`evidence-chip evidence-chip--${verdict.tone}`}
        data-testid="evidence-verdict"
        data-validated={verdict.validated ? "true" : "false"}
        title={verdict.detail ?? verdict.label}
        onClick={onShowPanel}
      >
        {verdict.label}
      </button>
    </div>
  );
}

function ControlButton({
  action,
  gate,
  onClick,
  icon,
  primary,
  children,
}: {
  action: ControlAction;
  gate: Gate;
  onClick: () => void;
  icon: ReactNode;
  primary?: boolean;
  children: ReactNode;
}) {
  const reasonId = `control-${action}-reason`;
  const note = gate.reason ?? gate.warning;
  // A disabled button gets no pointer events, so the tooltip lives on its wrapper.
  return (
    <span className="control" title={note ? `${HINTS[action]}. ${note}` : HINTS[action]}>
      <button
        type="button"
        className={`button button--small${primary ? " button--primary" : ""}${gate.warning ? " button--warned" : ""}`}
        disabled={!gate.enabled}
        aria-describedby={note ? reasonId : undefined}
        data-control={action}
        data-reason={gate.reason}
        onClick={onClick}
      >
        {icon}
        {children}
      </button>
      {note && (
        <span id={reasonId} className="sr-only">
          {note}
        </span>
      )}
    </span>
  );
}

function CompileIcon() {
  return (
    <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
      <path d="M8 1.8l5.5 3.1v6.2L8 14.2l-5.5-3.1V4.9z M2.7 5L8 8l5.3-3 M8 8v6" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinejoin="round" />
    </svg>
  );
}

function RunIcon() {
  return (
    <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
      <path d="M5 3.2v9.6L12.6 8z" fill="currentColor" />
    </svg>
  );
}

function ValidateIcon() {
  return (
    <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
      <path d="M8 1.7l5 2v4c0 3.1-2.1 5.4-5 6.6-2.9-1.2-5-3.5-5-6.6v-4z M5.6 8l1.7 1.7 3.2-3.3" fill="none" stroke="currentColor" strokeWidth="1.3" strokeLinejoin="round" strokeLinecap="round" />
    </svg>
  );
}

function ExportIcon() {
  return (
    <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
      <path d="M8 2v8 M4.8 6.8L8 10l3.2-3.2 M2.5 11.5v2h11v-2" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
