import type { ReactNode } from "react";
import { useRef, useState } from "react";
import { AGENT_DOCK_ID } from "../agent/AgentDock";
import type { WorkspaceState } from "../state/workspace";
import { useServices } from "./context";
import { EditableTitle } from "./EditableTitle";
import { useDismiss } from "./useDismiss";
import type { Theme } from "./useTheme";

export interface TopBarProps {
  readonly state: WorkspaceState;
  readonly theme: Theme;
  readonly onToggleTheme: () => void;
  readonly onAddNote: () => void;
  /** Compile, Run, Validate, Export. */
  readonly controls?: ReactNode;
  readonly agentOpen: boolean;
  /** A short word about the agent session when one is connected (e.g. "Working…"). */
  readonly agentStatus?: string | undefined;
  readonly onToggleAgent: () => void;
}

const FEED_LABELS = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…" } as const;

export function TopBar({ state, theme, onToggleTheme, onAddNote, controls, agentOpen, agentStatus, onToggleAgent }: TopBarProps) {
  const { workspace } = useServices();
  const { history } = state;
  const [historyOpen, setHistoryOpen] = useState(false);
  const historyMenu = useRef<HTMLDivElement>(null);
  useDismiss(historyMenu, historyOpen, () => { setHistoryOpen(false); });
  return (
    <header className="topbar">
      <div className="brand" aria-label="Somite">
        <svg viewBox="0 0 20 20" className="brand__mark" aria-hidden="true">
          <rect x="1.5" y="6" width="7" height="8" rx="2" fill="var(--accent)" />
          <rect x="11.5" y="6" width="7" height="8" rx="2" fill="var(--family-reads)" />
          <path d="M8.5 10h3" stroke="var(--text-2)" strokeWidth="1.5" />
        </svg>
        <span className="brand__name">Somite</span>
      </div>
      <span className="topbar__divider" aria-hidden="true" />
      {state.snapshot && <EditableTitle title={state.snapshot.document.title} />}
      <div className="topbar__spacer" />
      <div className="toolbar" role="toolbar" aria-label="Edit">
        <button
          type="button"
          className="button button--ghost"
          disabled={history.undoSummary === undefined}
          onClick={() => void workspace.undo()}
          title={history.undoSummary ? `Undo “${history.undoSummary}” (Ctrl+Z)` : "Nothing to undo"}
        >
          <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
            <path d="M6 4L2.5 7.5 6 11M3 7.5h6.5a3.5 3.5 0 010 7H8" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
          Undo
        </button>
        <button
          type="button"
          className="button button--ghost"
          disabled={history.redoSummary === undefined}
          onClick={() => void workspace.redo()}
          title={history.redoSummary ? `Redo “${history.redoSummary}” (Ctrl+Shift+Z)` : "Nothing to redo"}
        >
          <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
            <path d="M10 4l3.5 3.5L10 11M13 7.5H6.5a3.5 3.5 0 000 7H8" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
          Redo
        </button>
        <div className="menu" ref={historyMenu}>
          <button
            type="button"
            className="button button--ghost"
            aria-expanded={historyOpen}
            aria-controls="history-list"
            onClick={() => { setHistoryOpen((open) => !open); }}
          >
            History
            {history.entries.length > 0 && <span className="counter">{history.entries.length}</span>}
          </button>
          {historyOpen && <HistoryList entries={history.entries} />}
        </div>
        <span className="toolbar__divider" aria-hidden="true" />
        <button type="button" className="button button--ghost" onClick={onAddNote}>
          <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
            <path d="M3 2.5h10v7l-4 4H3z M9 13.5v-4h4" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" />
          </svg>
          Note
        </button>
        <button
          type="button"
          className="icon-button icon-button--bordered"
          onClick={onToggleTheme}
          aria-label={theme === "dark" ? "Switch to the light theme" : "Switch to the dark theme"}
          title={theme === "dark" ? "Light theme" : "Dark theme"}
        >
          {theme === "dark" ? (
            <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
              <circle cx="8" cy="8" r="3" fill="none" stroke="currentColor" strokeWidth="1.5" />
              <path d="M8 1v2M8 13v2M1 8h2M13 8h2M3 3l1.4 1.4M11.6 11.6L13 13M3 13l1.4-1.4M11.6 4.4L13 3" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" />
            </svg>
          ) : (
            <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
              <path d="M13.5 9.5A5.5 5.5 0 016.5 2.5a5.5 5.5 0 107 7z" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinejoin="round" />
            </svg>
          )}
        </button>
      </div>
      {controls && (
        <>
          <span className="topbar__divider" aria-hidden="true" />
          {controls}
        </>
      )}
      <span className="topbar__divider" aria-hidden="true" />
      <button
        type="button"
        className={`button button--small${agentOpen ? " button--active" : ""}`}
        aria-pressed={agentOpen}
        aria-controls={AGENT_DOCK_ID}
        onClick={onToggleAgent}
        title={agentOpen ? "Hide the agent panel (the session keeps running)" : "Open the agent panel"}
      >
        <svg viewBox="0 0 16 16" className="icon" aria-hidden="true">
          <path d="M3 3.5h10v7H8.5L5.5 13v-2.5H3z" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" />
        </svg>
        Agent
        {agentStatus && <span className="counter counter--agent">{agentStatus}</span>}
      </button>
      <span className={`feed-status feed-status--${state.feed}`} role="status" title="Activity feed: edits by the agent or other windows appear live">
        <span className="feed-status__dot" aria-hidden="true" />
        {FEED_LABELS[state.feed]}
      </span>
    </header>
  );
}

function HistoryList({ entries }: { entries: WorkspaceState["history"]["entries"] }) {
  return (
    <div id="history-list" className="popover" role="region" aria-label="Edit history">
      {entries.length === 0 ? (
        <p className="muted popover__empty">Edits made from now on appear here, yours and the agent’s.</p>
      ) : (
        <ol className="history">
          {[...entries].reverse().map((entry) => (
            <li key={entry.cursor} className={`history__entry${entry.done ? "" : " history__entry--undone"}`}>
              <span className={`source source--${entry.source}`}>{entry.source === "agent" ? "Agent" : "Human"}</span>
              <span className="history__summary">{entry.summary}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
