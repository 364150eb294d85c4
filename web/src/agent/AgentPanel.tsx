/**
 * The Agent panel: pick and connect an agent, see the session and the exact
 * command it runs, change the options the agent advertised, talk to it, and
 * follow everything it does in one feed. Stop and Disconnect stay available
 * whatever the agent is doing; the canvas and the controls never wait on it.
 */
import "./AgentPanel.css";
import { useId, useMemo, useState } from "react";
import type { ConfigOption, SessionView } from "../api/types";
import { FailureBlock } from "../shell/FailureBlock";
import { useAgentState, useServices } from "../shell/context";
import { isConnected } from "../state/agent";
import { AgentFeed } from "./AgentFeed";
import { LauncherPicker } from "./LauncherPicker";

const STATE_LABELS: Readonly<Record<SessionView["state"], string>> = {
  disconnected: "Not connected",
  connecting: "Connecting…",
  login_required: "Login required",
  ready: "Ready",
  prompting: "Working…",
  ended: "Ended",
};

export function AgentPanel({ onClose }: { onClose: () => void }) {
  const { agent } = useServices();
  const state = useAgentState();
  const session = state.session;
  const connected = isConnected(session);
  const live = connected && session?.state !== "ended";
  const answerable = useMemo(() => new Set(session?.pending_permissions.map((p) => p.id) ?? []), [session]);

  return (
    <aside className="panel agent" aria-label="Agent">
      <header className="agent__header">
        <h2 className="agent__title">Agent</h2>
        <span className={`agent-state agent-state--${session?.state ?? "disconnected"}`} data-testid="agent-state" data-state={session?.state ?? "unknown"}>
          {session ? STATE_LABELS[session.state] : "…"}
        </span>
        <div className="agent__header-end">
          <button type="button" className="icon-button" aria-label="Hide the agent panel" title="Hide (the session keeps running)" onClick={onClose}>
            ×
          </button>
        </div>
      </header>

      {session && connected && (
        <SessionCard
          session={session}
          stopping={state.pending.has("cancel")}
          disconnecting={state.pending.has("disconnect")}
          onStop={() => void agent.cancel()}
          onDisconnect={() => void agent.disconnect()}
        />
      )}
      {live && session && session.config_options.length > 0 && (
        <ConfigOptions options={session.config_options} busy={state.pending.has("config")} onChange={(id, value) => void agent.setConfig(id, value)} />
      )}
      {state.error && (
        <div className="agent__error">
          <FailureBlock failure={state.error} onDismiss={() => { agent.dismissError(); }} />
        </div>
      )}
      {!live && (
        <div className="agent__connect">
          {session?.state === "ended" && session.ended && (
            <p className="muted">The last session ended ({session.ended.kind.replaceAll("_", " ")}). Connect again, or disconnect to clean up.</p>
          )}
          {state.lastCleanup && (
            <p className="muted" data-testid="last-cleanup">
              Disconnected: the agent {state.lastCleanup.agent_exit ? "exited" : "was not reaped"} ({state.lastCleanup.stop}); its workspace was{" "}
              {state.lastCleanup.workspace.kind === "removed" ? "removed" : "not removed"}.
              {state.lastCleanup.attachments?.kind === "failed" &&
                ` Its attached packages could not be removed (${state.lastCleanup.attachments.path}): ${state.lastCleanup.attachments.error ?? "unknown error"}.`}
            </p>
          )}
          <LauncherPicker
            launchers={state.launchers}
            connecting={state.pending.has("connect")}
            onConnect={(request) => void agent.connect(request)}
            onReload={() => void agent.loadLaunchers()}
          />
        </div>
      )}
      <AgentFeed
        entries={state.feed.entries}
        answerable={answerable}
        answering={state.pending.has("permission")}
        onAnswer={(id, answer) => void agent.answerPermission(id, answer)}
      />
      {live && session && <PromptBox session={session} sending={state.pending.has("prompt")} onSend={(text) => agent.prompt(text)} />}
    </aside>
  );
}

function SessionCard({
  session,
  stopping,
  disconnecting,
  onStop,
  onDisconnect,
}: {
  session: SessionView;
  stopping: boolean;
  disconnecting: boolean;
  onStop: () => void;
  onDisconnect: () => void;
}) {
  const agent = session.session?.agent;
  const name = agent?.title ?? agent?.name ?? (session.command?.[0]?.split("/").pop() ?? "Agent");
  return (
    <section className="session" aria-label="Session">
      <div className="session__head">
        <div>
          <p className="session__name" data-testid="agent-name">
            {name}
            {agent?.version && <span className="muted"> {agent.version}</span>}
          </p>
          <p className="muted">
            Session {session.generation ?? "–"}
            {session.turn !== null && <> · turn {session.turn}</>}
          </p>
        </div>
        <div className="session__actions">
          <button
            type="button"
            className="button button--small"
            onClick={onStop}
            disabled={stopping || session.state === "ended"}
            title={session.state === "ended" ? "The session has ended; Disconnect cleans it up" : "Cancel the agent's current turn"}
          >
            {stopping ? "Stopping…" : "Stop"}
          </button>
          <button type="button" className="button button--small button--danger" onClick={onDisconnect} disabled={disconnecting} title="End the session and stop the agent">
            {disconnecting ? "Disconnecting…" : "Disconnect"}
          </button>
        </div>
      </div>
      {session.command && (
        <details className="disclosure">
          <summary>Command</summary>
          <ol className="argv" data-testid="session-command">
            {session.command.map((token, index) => (
              // Tokens may repeat; their position is their identity.
              <li key={index}>
                <code>{token}</code>
              </li>
            ))}
          </ol>
        </details>
      )}
      {session.state === "login_required" && (
        <div className="session__login">
          <p>The agent needs you to log in before it can start a session.</p>
          <ul className="plain-list">
            {session.login_methods.map((m) => (
              <li key={m.id}>
                <strong>{m.name}</strong>
                {m.description && <> — {m.description}</>}
                {m.kind === "terminal" && <span className="muted"> (run the agent once in a terminal to log in)</span>}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

function ConfigOptions({ options, busy, onChange }: { options: readonly ConfigOption[]; busy: boolean; onChange: (id: string, value: string | boolean) => void }) {
  const baseId = useId();
  return (
    <section className="config" aria-label="Agent options">
      {options.map((option) => {
        const id = `${baseId}-${option.id}`;
        const control = option.control;
        return (
          <div key={option.id} className="config__option" title={option.description ?? undefined}>
            {control.type === "select" ? (
              <>
                <label htmlFor={id} className="config__label">
                  {option.name}
                </label>
                <select
                  id={id}
                  className="input input--small"
                  value={control.current_value}
                  disabled={busy}
                  onChange={(e) => { onChange(option.id, e.target.value); }}
                >
                  {control.choices.map((choice) => (
                    <option key={choice.value} value={choice.value} title={choice.description ?? undefined}>
                      {choice.group ? `${choice.group}: ${choice.name}` : choice.name}
                    </option>
                  ))}
                </select>
              </>
            ) : (
              <label className="config__toggle">
                <input
                  type="checkbox"
                  checked={control.current_value}
                  disabled={busy}
                  onChange={(e) => { onChange(option.id, e.target.checked); }}
                />
                {option.name}
              </label>
            )}
          </div>
        );
      })}
    </section>
  );
}

function PromptBox({ session, sending, onSend }: { session: SessionView; sending: boolean; onSend: (text: string) => Promise<boolean> }) {
  const [text, setText] = useState("");
  const id = useId();
  const ready = session.state === "ready";
  const reason =
    session.state === "prompting"
      ? "The agent is working on your last message; Stop cancels it."
      : session.state === "connecting"
        ? "Waiting for the agent to start its session…"
        : session.state === "login_required"
          ? "Log in to the agent first."
          : undefined;
  const send = () => {
    if (!ready || sending || text.trim() === "") return;
    void onSend(text).then((sent) => {
      if (sent) setText("");
    });
  };
  return (
    <form
      className="prompt"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label htmlFor={id} className="sr-only">
        Message to the agent
      </label>
      <textarea
        id={id}
        className="input prompt__input"
        rows={3}
        placeholder="Ask the agent to change the workflow…"
        value={text}
        onChange={(e) => { setText(e.target.value); }}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            send();
          }
        }}
      />
      <div className="prompt__bar">
        <span className="muted prompt__hint">{reason ?? "Ctrl+Enter sends"}</span>
        <button type="submit" className="button button--small button--primary" disabled={!ready || sending || text.trim() === ""}>
          {sending ? "Sending…" : "Send"}
        </button>
      </div>
    </form>
  );
}
