/**
 * The one chronological feed: the user's words, the agent's messages and
 * thoughts, its tool calls (inputs and results behind disclosure), plans,
 * permission prompts, the agent's canvas edits, turn ends and session end.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { errorEnvelope } from "../api/schemas";
import type { PendingPermission, ToolCallView } from "../api/types";
import type { AgentFeedEntry } from "../state/agentFeed";

type PermissionEntry = Extract<AgentFeedEntry, { kind: "permission" }>;

export interface AgentFeedProps {
  readonly entries: readonly AgentFeedEntry[];
  /** Permission ids the session says are waiting (answerable now). */
  readonly answerable: ReadonlySet<string>;
  readonly answering: boolean;
  readonly onAnswer: (permissionId: string, answer: { option_id: string } | { cancel: true }) => void;
}

export function AgentFeed({ entries, answerable, answering, onAnswer }: AgentFeedProps) {
  const list = useRef<HTMLOListElement>(null);
  const pinned = useRef(true);
  // Follows the newest entry unless the reader scrolled up to read.
  useLayoutEffect(() => {
    const element = list.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [entries]);
  return (
    <ol
      ref={list}
      className="agent-feed"
      aria-label="Agent activity"
      aria-live="polite"
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      }}
    >
      {entries.length === 0 && <li className="muted agent-feed__empty">Messages, tool calls and the agent’s edits appear here.</li>}
      {entries.map((entry) => (
        <li key={entry.key} className={`feed-entry feed-entry--${entry.kind}`} data-kind={entry.kind} data-cursor={entry.cursor}>
          <Entry entry={entry} answerable={answerable} answering={answering} onAnswer={onAnswer} />
        </li>
      ))}
    </ol>
  );
}

function Entry({ entry, answerable, answering, onAnswer }: { entry: AgentFeedEntry } & Omit<AgentFeedProps, "entries">) {
  switch (entry.kind) {
    case "user":
      return (
        <div className="bubble bubble--user">
          <span className="bubble__who">You</span>
          <p className="bubble__text">{entry.text}</p>
        </div>
      );
    case "message":
      return (
        <div className="bubble bubble--agent">
          <span className="bubble__who">Agent</span>
          <p className="bubble__text">{entry.text}</p>
          {entry.truncated && <p className="muted">(shortened)</p>}
        </div>
      );
    case "thought":
      return (
        <details className="thought">
          <summary>Thought</summary>
          <p className="bubble__text">{entry.text}</p>
        </details>
      );
    case "tool_call":
      return <ToolCall call={entry.toolCall} />;
    case "plan":
      return (
        <div className="plan">
          <span className="bubble__who">Plan</span>
          <ol className="plan__steps">
            {entry.entries.map((step, index) => (
              // Plan steps have no id; the agent replaces the whole list.
              <li key={index} className={`plan__step plan__step--${step.status}`}>
                {step.content}
              </li>
            ))}
          </ol>
        </div>
      );
    case "permission":
      return (
        <PermissionCard
          entry={entry}
          open={!entry.resolution && answerable.has(entry.permission.id)}
          answering={answering}
          onAnswer={onAnswer}
        />
      );
    case "transaction":
      return (
        <div className="feed-transaction" data-testid="agent-transaction">
          <span className="source source--agent">Agent</span>
          <span>
            Edited the canvas: <strong>{entry.summary}</strong>{" "}
            <span className="muted">({entry.operations} operation{entry.operations === 1 ? "" : "s"}, undoable)</span>
          </span>
        </div>
      );
    case "turn_ended":
      return (
        <p className="feed-divider">
          Turn {entry.turn} ended: {outcomeLabel(entry.outcome)}
        </p>
      );
    case "status":
      return <p className={`feed-status-line feed-status-line--${entry.tone}`}>{entry.text}</p>;
    case "ended":
      return (
        <div className="feed-ended" data-testid="session-ended">
          <strong>Session ended:</strong> {endLabel(entry.reason)}
          <p className="muted">
            Cleanup: agent {entry.cleanup.agent_exit ? exitLabel(entry.cleanup.agent_exit) : "not reaped"} ({entry.cleanup.stop}); workspace{" "}
            {entry.cleanup.workspace.kind === "removed" ? "removed" : `not removed: ${entry.cleanup.workspace.error ?? "unknown error"}`}
          </p>
          {entry.reason.stderr_tail && (
            <details className="disclosure">
              <summary>The agent’s last standard error</summary>
              <pre className="stderr">{entry.reason.stderr_tail}</pre>
            </details>
          )}
        </div>
      );
    case "malformed":
      return <p className="feed-status-line feed-status-line--danger">{entry.text}</p>;
  }
}

/** A tool call's status in the words (and colours, `.run-state--*`) of a run's node states. */
const STATUS_LABELS: Readonly<Record<ToolCallView["status"], string>> = {
  pending: "pending",
  in_progress: "running",
  completed: "done",
  failed: "failed",
};

function ToolCall({ call }: { call: ToolCallView }) {
  const identity = call.identity ? `${call.identity.server}/${call.identity.tool}` : undefined;
  const output = call.raw_output !== undefined && call.raw_output !== null ? call.raw_output : call.content.length > 0 ? call.content.join("\n") : undefined;
  return (
    <div className={`tool-call tool-call--${call.status}`} data-tool-call-id={call.tool_call_id} data-status={call.status}>
      <div className="tool-call__head">
        <span className={`run-state run-state--${STATUS_LABELS[call.status]}`}>{STATUS_LABELS[call.status]}</span>
        <span className="tool-call__title">{call.title}</span>
        <span className="tag tag--muted">{call.kind}</span>
      </div>
      <p className="tool-call__meta muted">
        <code>{call.tool_call_id}</code>
        {identity && !call.title.includes(identity) && <> · {identity}</>}
        {call.locations.length > 0 && <> · {call.locations.join(", ")}</>}
      </p>
      {call.status === "failed" && <ToolFailure output={call.raw_output} />}
      {call.raw_input !== undefined && call.raw_input !== null && (
        <details className="disclosure">
          <summary>Input</summary>
          <pre className="json">{formatJson(call.raw_input)}</pre>
        </details>
      )}
      {output !== undefined && (
        <details className="disclosure">
          <summary>{call.status === "failed" ? "Error" : "Result"}</summary>
          <pre className="json">{typeof output === "string" ? output : formatJson(output)}</pre>
        </details>
      )}
    </div>
  );
}

/** A failed call's structured refusal (`{code, message, recovery}`), shown without unfolding. */
function ToolFailure({ output }: { output: unknown }) {
  const parsed = errorEnvelope.safeParse(output);
  if (!parsed.success) return null;
  return (
    <p className="tool-call__error">
      <code>{parsed.data.code}</code> {parsed.data.message}
      {parsed.data.recovery && <span className="muted"> — {parsed.data.recovery}</span>}
    </p>
  );
}

function PermissionCard({
  entry,
  open,
  answering,
  onAnswer,
}: {
  entry: PermissionEntry;
  open: boolean;
  answering: boolean;
  onAnswer: AgentFeedProps["onAnswer"];
}) {
  const { permission } = entry;
  const call = permission.tool_call;
  return (
    <div className={`permission${open ? " permission--open" : ""}`} data-testid="permission" data-permission-id={permission.id} role={open ? "alertdialog" : undefined} aria-label={open ? `Permission requested: ${call.title}` : undefined}>
      <div className="permission__head">
        <strong>{entry.resolution ? "Permission asked" : "Permission requested"}</strong>
        {open && <Countdown deadline={entry.deadline} options={permission.options} />}
      </div>
      <p className="permission__title">{call.title}</p>
      <p className="muted">
        Tool call <code data-testid="permission-tool-call-id">{call.tool_call_id}</code> · {reasonLabel(permission.reason)}
      </p>
      {call.raw_input !== undefined && call.raw_input !== null && (
        <details className="disclosure">
          <summary>What it would do</summary>
          <pre className="json">{formatJson(call.raw_input)}</pre>
        </details>
      )}
      {open ? (
        <div className="permission__options">
          {permission.options.map((option) => (
            <button
              key={option.option_id}
              type="button"
              className={`button button--small${option.kind.startsWith("allow") ? " button--primary" : ""}${option.kind.startsWith("reject") ? " button--danger" : ""}`}
              disabled={answering}
              data-option-id={option.option_id}
              onClick={() => { onAnswer(permission.id, { option_id: option.option_id }); }}
            >
              {option.name}
            </button>
          ))}
          <button type="button" className="button button--small button--ghost" disabled={answering} onClick={() => { onAnswer(permission.id, { cancel: true }); }}>
            Cancel request
          </button>
        </div>
      ) : (
        <p className="permission__resolution" data-testid="permission-resolution">
          {resolutionLabel(entry)}
        </p>
      )}
    </div>
  );
}

function Countdown({ deadline, options }: { deadline: number; options: PendingPermission["options"] }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => { setNow(Date.now()); }, 1000);
    return () => { clearInterval(timer); };
  }, []);
  const left = Math.max(0, deadline - now);
  const minutes = Math.floor(left / 60_000);
  const seconds = Math.floor((left % 60_000) / 1000);
  const fallback = options.find((o) => o.kind === "reject_once")?.name ?? "cancelled";
  return (
    <span className="countdown" data-testid="permission-countdown" title={`Unanswered, it is answered “${fallback}” when the time runs out`}>
      {left === 0 ? "timing out…" : `${String(minutes)}:${String(seconds).padStart(2, "0")} left`}
    </span>
  );
}

function resolutionLabel(entry: PermissionEntry): string {
  const r = entry.resolution;
  const name = (id: string | undefined) => entry.permission.options.find((o) => o.option_id === id)?.name ?? id ?? "an option";
  if (!r) return "Waiting for the session…";
  switch (r.by) {
    case "user":
      return r.answer?.outcome === "cancelled" ? "You cancelled the request." : `You answered: ${name(r.answer?.option_id)}.`;
    case "policy":
      return `Allowed automatically (${name(r.option_id)}): the tool is on Somite's allowlist.`;
    case "timeout":
      return `Nobody answered in time: ${r.answer?.outcome === "cancelled" ? "cancelled" : name(r.answer?.option_id)}.`;
    case "turn_cancelled":
      return "Cancelled with the turn.";
    case "session_ended":
      return "Cancelled: the session ended.";
  }
}

function reasonLabel(reason: PendingPermission["reason"]): string {
  const who = reason.identity ? `${reason.identity.server}/${reason.identity.tool}` : undefined;
  switch (reason.kind) {
    case "not_allowlisted":
      return `${who ?? "this tool"} is not on an automatic allowlist`;
    case "action_not_read_only":
      return `${who ?? "this tool"} is allowed automatically only for read-only actions${reason.action ? `, not “${reason.action}”` : ""}`;
    case "no_identity":
      return "the call does not say which tool it is";
    case "unresolved_identity":
      return `the tool could not be identified (${reason.claim ?? "?"})`;
    case "conflicting_identity":
      return `its fields disagree about the tool (${(reason.claims ?? []).join("; ")})`;
    case "no_allow_once_option":
      return `${who ?? "the agent"} offered no one-time allow option`;
    default:
      return reason.kind;
  }
}

function outcomeLabel(outcome: { kind: string; message?: string | undefined }): string {
  const labels: Record<string, string> = {
    end_turn: "finished",
    max_tokens: "the agent ran out of tokens",
    max_turn_requests: "the agent hit its request limit",
    refusal: "the agent refused",
    cancelled: "stopped",
    interrupted: "the session ended during the turn",
  };
  if (outcome.kind === "failed") return `failed — ${outcome.message ?? "no message"}`;
  return labels[outcome.kind] ?? outcome.kind;
}

function endLabel(reason: { kind: string; message?: string | undefined; limit?: number | undefined }): string {
  switch (reason.kind) {
    case "disconnected":
      return "disconnected";
    case "agent_exited":
      return "the agent exited";
    case "frame_too_large":
      return `the agent wrote a message larger than ${String(reason.limit ?? "the limit")} bytes`;
    default:
      return reason.message ? `${reason.kind.replaceAll("_", " ")}: ${reason.message}` : reason.kind.replaceAll("_", " ");
  }
}

function exitLabel(exit: { code: number | null; signal: number | null }): string {
  if (exit.code !== null) return `exited with code ${String(exit.code)}`;
  if (exit.signal !== null) return `ended by signal ${String(exit.signal)}`;
  return "exited";
}

function formatJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}
