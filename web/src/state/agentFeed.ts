/**
 * The Agent panel's one chronological feed, folded from activity events.
 *
 * Pure: `reduceAgentFeed(state, event)` returns the next state. Every event
 * is taken once, by cursor (a repeat after a reconnect is dropped). The
 * agent's streamed chunks are merged per turn into one message while nothing
 * else comes between them; a tool call is one entry, updated in place as its
 * status changes; a permission request is one entry that its resolution (or
 * the session's end) closes; the agent's transactions appear where they
 * happened. A payload that breaks its contract is shown as such, never
 * guessed at.
 */
import { MAX_AGENT_FEED_ENTRIES, MAX_AGENT_TEXT_CHARS } from "../api/limits";
import { agentEventData, transactionEventData } from "../api/schemas";
import type { AgentEventData, CleanupReport, EndReason, FeedEvent, PendingPermission, ToolCallView } from "../api/types";

type Resolved = Extract<AgentEventData, { type: "permission_resolved" }>["resolution"];
type PlanEntries = Extract<AgentEventData, { type: "plan" }>["entries"];
type TurnOutcome = Extract<AgentEventData, { type: "turn_ended" }>["outcome"];

interface Base {
  /** Stable across updates: the React key. */
  readonly key: string;
  /** The cursor of the event that created the entry. */
  readonly cursor: number;
  readonly at: number;
}

export type AgentFeedEntry =
  | (Base & { readonly kind: "user"; readonly generation: number; readonly turn: number; readonly text: string })
  | (Base & { readonly kind: "message" | "thought"; readonly generation: number; readonly turn: number | null; readonly text: string; readonly truncated: boolean })
  | (Base & { readonly kind: "tool_call"; readonly generation: number; readonly turn: number | null; readonly toolCall: ToolCallView; readonly updates: number })
  | (Base & { readonly kind: "plan"; readonly generation: number; readonly turn: number | null; readonly entries: PlanEntries })
  | (Base & {
      readonly kind: "permission";
      readonly generation: number;
      readonly permission: PendingPermission;
      /** When the runtime answers it by itself (ms since the epoch, runtime clock). */
      readonly deadline: number;
      readonly resolution: Resolved | undefined;
    })
  | (Base & { readonly kind: "turn_ended"; readonly generation: number; readonly turn: number; readonly outcome: TurnOutcome })
  | (Base & { readonly kind: "status"; readonly generation: number; readonly text: string; readonly tone: "info" | "danger" })
  | (Base & { readonly kind: "ended"; readonly generation: number; readonly reason: EndReason; readonly cleanup: CleanupReport })
  | (Base & { readonly kind: "transaction"; readonly summary: string; readonly operations: number; readonly activity: string | null })
  | (Base & { readonly kind: "malformed"; readonly text: string });

export interface AgentFeedState {
  readonly entries: readonly AgentFeedEntry[];
  /** The newest cursor taken; older or equal cursors are repeats. */
  readonly lastCursor: number;
}

export const EMPTY_AGENT_FEED: AgentFeedState = { entries: [], lastCursor: 0 };

const KNOWN_TYPES: ReadonlySet<string> = new Set([
  "ready",
  "login_required",
  "user_message",
  "agent_message",
  "agent_thought",
  "tool_call",
  "plan",
  "config_options",
  "mode_changed",
  "permission_requested",
  "permission_resolved",
  "turn_ended",
  "ended",
  "transcript_failed",
]);

export function reduceAgentFeed(state: AgentFeedState, event: FeedEvent): AgentFeedState {
  if (event.cursor <= state.lastCursor) return state;
  const next = { ...state, lastCursor: event.cursor };
  if (event.kind === "agent") return withEntries(next, agentEntries(state.entries, event));
  if (event.kind === "transaction") {
    const parsed = transactionEventData.safeParse(event.data);
    // A malformed transaction is the workspace's to report (it reloads).
    if (!parsed.success || parsed.data.source.kind !== "agent") return next;
    const entry: AgentFeedEntry = {
      kind: "transaction",
      key: `txn:${String(event.cursor)}`,
      cursor: event.cursor,
      at: event.time_ms,
      summary: parsed.data.outcome.summary,
      operations: parsed.data.outcome.operations,
      activity: parsed.data.source.activity ?? null,
    };
    return withEntries(next, [...state.entries, entry]);
  }
  return next;
}

/** Folds a batch in order (the catch-up after a reload). */
export function reduceAgentFeedAll(state: AgentFeedState, events: readonly FeedEvent[]): AgentFeedState {
  return [...events].sort((a, b) => a.cursor - b.cursor).reduce(reduceAgentFeed, state);
}

function withEntries(state: AgentFeedState, entries: readonly AgentFeedEntry[]): AgentFeedState {
  return { ...state, entries: entries.length > MAX_AGENT_FEED_ENTRIES ? entries.slice(-MAX_AGENT_FEED_ENTRIES) : entries };
}

function agentEntries(entries: readonly AgentFeedEntry[], event: FeedEvent): readonly AgentFeedEntry[] {
  const type = typeof event.data === "object" && event.data !== null ? (event.data as { type?: unknown }).type : undefined;
  if (typeof type === "string" && !KNOWN_TYPES.has(type)) return entries; // a newer runtime's event: not ours to show
  const parsed = agentEventData.safeParse(event.data);
  const base = { cursor: event.cursor, at: event.time_ms };
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at \`${issue.path.join(".")}\`` : "";
    return [
      ...entries,
      {
        ...base,
        kind: "malformed",
        key: `bad:${String(event.cursor)}`,
        text: `An agent event (${typeof type === "string" ? type : "without a type"}) did not match its contract${where}; it is not shown.`,
      },
    ];
  }
  const data = parsed.data;
  const generation = data.generation;
  switch (data.type) {
    case "user_message":
      return [...entries, { ...base, kind: "user", key: `user:${String(event.cursor)}`, generation, turn: data.turn, text: data.text }];
    case "agent_message":
    case "agent_thought": {
      const kind = data.type === "agent_message" ? "message" : "thought";
      const last = entries.at(-1);
      if (last && last.kind === kind && last.generation === generation && last.turn === data.turn) {
        const text = last.text + data.text;
        const merged = { ...last, text: text.slice(0, MAX_AGENT_TEXT_CHARS), truncated: last.truncated || text.length > MAX_AGENT_TEXT_CHARS };
        return [...entries.slice(0, -1), merged];
      }
      return [
        ...entries,
        {
          ...base,
          kind,
          key: `${kind}:${String(event.cursor)}`,
          generation,
          turn: data.turn,
          text: data.text.slice(0, MAX_AGENT_TEXT_CHARS),
          truncated: data.text.length > MAX_AGENT_TEXT_CHARS,
        },
      ];
    }
    case "tool_call": {
      const key = `tool:${String(generation)}:${data.tool_call.tool_call_id}`;
      const index = entries.findIndex((e) => e.key === key);
      const existing = index === -1 ? undefined : entries[index];
      if (existing?.kind === "tool_call") {
        const updated = { ...existing, toolCall: data.tool_call, updates: existing.updates + 1 };
        return [...entries.slice(0, index), updated, ...entries.slice(index + 1)];
      }
      return [...entries, { ...base, kind: "tool_call", key, generation, turn: data.turn, toolCall: data.tool_call, updates: 0 }];
    }
    case "plan": {
      // The plan replaces any earlier one of the turn; shown where it last changed.
      const key = `plan:${String(generation)}:${String(data.turn)}`;
      const rest = entries.filter((e) => e.key !== key);
      return [...rest, { ...base, kind: "plan", key, generation, turn: data.turn, entries: data.entries }];
    }
    case "permission_requested":
      return [
        ...entries,
        {
          ...base,
          kind: "permission",
          key: `perm:${data.permission.id}`,
          generation,
          permission: data.permission,
          deadline: event.time_ms + data.permission.timeout_ms,
          resolution: undefined,
        },
      ];
    case "permission_resolved": {
      const key = `perm:${data.permission_id}`;
      return entries.map((e) => (e.key === key && e.kind === "permission" ? { ...e, resolution: data.resolution } : e));
    }
    case "turn_ended":
      return [...entries, { ...base, kind: "turn_ended", key: `turn:${String(event.cursor)}`, generation, turn: data.turn, outcome: data.outcome }];
    case "ended": {
      const closed = entries.map((e) =>
        e.kind === "permission" && e.generation === generation && !e.resolution ? { ...e, resolution: { by: "session_ended" as const } } : e,
      );
      return [...closed, { ...base, kind: "ended", key: `ended:${String(event.cursor)}`, generation, reason: data.reason, cleanup: data.cleanup }];
    }
    case "ready": {
      const agent = data.session.agent;
      const name = agent.title ?? agent.name ?? "The agent";
      const version = agent.version ? ` ${agent.version}` : "";
      return [...entries, status(base, generation, `${name}${version} is ready (session ${String(generation)})`, "info")];
    }
    case "login_required":
      return [
        ...entries,
        status(base, generation, `The agent asks you to log in first (${data.methods.map((m) => m.name).join(", ") || "no method offered"})`, "danger"),
      ];
    case "mode_changed":
      return [...entries, status(base, generation, `The agent switched to mode ${data.mode_id}`, "info")];
    case "config_options":
      return entries; // shown as controls, not as history
    case "transcript_failed":
      return [...entries, status(base, generation, `The transcript of this turn could not be saved: ${data.message}`, "danger")];
  }
}

function status(base: { cursor: number; at: number }, generation: number, text: string, tone: "info" | "danger"): AgentFeedEntry {
  return { ...base, kind: "status", key: `status:${String(base.cursor)}`, generation, text, tone };
}

/** Permission requests still waiting for an answer, oldest first. */
export function openPermissions(state: AgentFeedState): Extract<AgentFeedEntry, { kind: "permission" }>[] {
  return state.entries.filter((e): e is Extract<AgentFeedEntry, { kind: "permission" }> => e.kind === "permission" && !e.resolution);
}
