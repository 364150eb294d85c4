import { describe, expect, it } from "vitest";
import type { AgentFeedEntry, AgentFeedState } from "./agentFeed";
import { EMPTY_AGENT_FEED, openPermissions, reduceAgentFeed, reduceAgentFeedAll } from "./agentFeed";
import { REV_A, REV_B, agentEvent, cleanup, feedEvent, pendingPermission, readyData, toolCall } from "../testing/wire";

const fold = (...events: Parameters<typeof reduceAgentFeed>[1][]) => events.reduce(reduceAgentFeed, EMPTY_AGENT_FEED);
const kinds = (state: AgentFeedState) => state.entries.map((e) => e.kind);
const texts = (state: AgentFeedState) =>
  state.entries.flatMap((e) => (e.kind === "message" || e.kind === "thought" || e.kind === "user" ? [e.text] : []));

const say = (cursor: number, text: string, turn: number | null = 1) => agentEvent(cursor, { type: "agent_message", turn, text });
const think = (cursor: number, text: string, turn: number | null = 1) => agentEvent(cursor, { type: "agent_thought", turn, text });

function agentTransaction(cursor: number, summary: string, kind: "agent" | "human" = "agent") {
  return feedEvent(cursor, "transaction", {
    source: kind === "agent" ? { kind, activity: "mcp-2" } : { kind },
    outcome: { previous_state_revision: REV_A, state_revision: REV_B, graph_revision: REV_B, summary, operations: 1, replayed: false },
    operations: [{ op: "set_title", title: "QC" }],
  });
}

describe("agent feed: chunks", () => {
  it("merges consecutive message chunks of one turn into one message", () => {
    const state = fold(agentEvent(1, { type: "user_message", turn: 1, text: "hi" }), say(2, "Looking "), say(3, "at the "), say(4, "canvas."));
    expect(kinds(state)).toEqual(["user", "message"]);
    expect(texts(state)).toEqual(["hi", "Looking at the canvas."]);
    expect(state.entries[1]?.cursor).toBe(2);
  });

  it("starts a new message after anything in between, in another turn, and for thoughts", () => {
    const state = fold(
      say(1, "a"),
      think(2, "t1"),
      think(3, "t2"),
      say(4, "b"),
      agentEvent(5, { type: "tool_call", turn: 1, tool_call: toolCall("call-1", "somite/somite.workflow.get", "pending") }),
      say(6, "c"),
      say(7, "d", 2),
    );
    expect(kinds(state)).toEqual(["message", "thought", "message", "tool_call", "message", "message"]);
    expect(texts(state)).toEqual(["a", "t1t2", "b", "c", "d"]);
  });
});

describe("agent feed: tool calls and plans", () => {
  it("updates a tool call in place as its state changes, keeping its position", () => {
    const state = fold(
      agentEvent(1, { type: "tool_call", turn: 1, tool_call: toolCall("call-1", "somite/somite.workflow.get", "pending") }),
      agentEvent(2, { type: "tool_call", turn: 1, tool_call: toolCall("call-2", "pixi/pixi_runtime_info", "pending") }),
      agentEvent(3, {
        type: "tool_call",
        turn: 1,
        tool_call: toolCall("call-1", "somite/somite.workflow.get", "completed", { raw_output: { ok: true } }),
      }),
    );
    const calls = state.entries.filter((e): e is Extract<AgentFeedEntry, { kind: "tool_call" }> => e.kind === "tool_call");
    expect(calls.map((c) => [c.toolCall.tool_call_id, c.toolCall.status, c.updates])).toEqual([
      ["call-1", "completed", 1],
      ["call-2", "pending", 0],
    ]);
    expect(calls[0]?.toolCall.raw_output).toEqual({ ok: true });
  });

  it("replaces a turn's plan with the newest one", () => {
    const plan = (cursor: number, status: string) =>
      agentEvent(cursor, { type: "plan", turn: 1, entries: [{ content: "read", priority: "medium", status }] });
    const state = fold(plan(1, "pending"), say(2, "x"), plan(3, "completed"));
    expect(kinds(state)).toEqual(["message", "plan"]);
    const entry = state.entries[1];
    expect(entry?.kind === "plan" && entry.entries[0]?.status).toBe("completed");
  });
});

describe("agent feed: permissions", () => {
  it("opens a request with its deadline and closes it with its resolution", () => {
    const requested = agentEvent(1, { type: "permission_requested", permission: pendingPermission() }, 5_000);
    let state = fold(requested);
    expect(openPermissions(state).map((p) => [p.permission.id, p.permission.tool_call.tool_call_id, p.deadline])).toEqual([["g1-p1", "run-1", 305_000]]);
    state = reduceAgentFeed(
      state,
      agentEvent(2, {
        type: "permission_resolved",
        permission_id: "g1-p1",
        tool_call_id: "run-1",
        resolution: { by: "user", answer: { outcome: "selected", option_id: "reject-once" } },
      }),
    );
    expect(openPermissions(state)).toEqual([]);
    const entry = state.entries[0];
    expect(entry?.kind === "permission" && entry.resolution).toEqual({ by: "user", answer: { outcome: "selected", option_id: "reject-once" } });
  });

  it("closes open requests when the session ends, and records the end", () => {
    const state = fold(
      agentEvent(1, { type: "permission_requested", permission: pendingPermission("g1-p1") }),
      agentEvent(2, { type: "permission_requested", permission: pendingPermission("g1-p2", "run-2") }),
      agentEvent(3, { type: "permission_resolved", permission_id: "g1-p1", tool_call_id: "run-1", resolution: { by: "timeout", answer: { outcome: "cancelled" } } }),
      agentEvent(4, { type: "ended", reason: { kind: "agent_exited", exit: { code: 3, signal: null }, stderr_tail: "boom" }, cleanup }),
    );
    expect(openPermissions(state)).toEqual([]);
    const resolutions = state.entries.flatMap((e) => (e.kind === "permission" ? [e.resolution?.by] : []));
    expect(resolutions).toEqual(["timeout", "session_ended"]);
    expect(kinds(state).at(-1)).toBe("ended");
  });

  it("does not close another generation's request when a session ends", () => {
    const state = fold(
      agentEvent(1, { type: "permission_requested", permission: pendingPermission("g1-p1") }),
      feedEvent(2, "agent", { generation: 2, type: "ended", reason: { kind: "disconnected" }, cleanup }),
    );
    expect(openPermissions(state).map((p) => p.permission.id)).toEqual(["g1-p1"]);
  });
});

describe("agent feed: order and de-duplication", () => {
  it("takes each cursor once: a repeat after a reconnect, or an older event, is dropped", () => {
    const once = fold(say(1, "a"), say(2, "b"));
    const again = [say(1, "a"), say(2, "b"), say(2, "b")].reduce(reduceAgentFeed, once);
    expect(again).toBe(once);
    expect(texts(again)).toEqual(["ab"]);
    expect(once.lastCursor).toBe(2);
  });

  it("advances past other kinds of events without showing them", () => {
    const state = fold(feedEvent(1, "run", {}), feedEvent(2, "compile", {}), say(3, "x"));
    expect(kinds(state)).toEqual(["message"]);
    expect(reduceAgentFeed(state, feedEvent(2, "run", {}))).toBe(state);
  });

  it("folds a catch-up batch in cursor order whatever order it came in", () => {
    const state = reduceAgentFeedAll(EMPTY_AGENT_FEED, [say(3, "c"), say(1, "a"), say(2, "b")]);
    expect(texts(state)).toEqual(["abc"]);
  });

  it("interleaves the agent's transactions with its messages, and leaves human edits to the history", () => {
    const state = fold(say(1, "editing"), agentTransaction(2, "Add a QC step"), agentTransaction(3, "Rename", "human"), say(4, "done"));
    expect(kinds(state)).toEqual(["message", "transaction", "message"]);
    const txn = state.entries[1];
    expect(txn?.kind === "transaction" && [txn.summary, txn.operations, txn.activity]).toEqual(["Add a QC step", 1, "mcp-2"]);
  });
});

describe("agent feed: contracts", () => {
  it("shows a malformed agent event as such instead of guessing", () => {
    const state = fold(agentEvent(1, { type: "tool_call", turn: 1, tool_call: { tool_call_id: "x" } }));
    expect(kinds(state)).toEqual(["malformed"]);
    expect(state.entries[0]?.kind === "malformed" && state.entries[0].text).toContain("tool_call");
  });

  it("ignores event types a newer runtime may add", () => {
    const state = fold(agentEvent(1, { type: "usage_update", tokens: 3 }));
    expect(state.entries).toEqual([]);
    expect(state.lastCursor).toBe(1);
  });

  it("announces a ready session with the agent's name and version", () => {
    const state = fold(agentEvent(1, readyData));
    expect(state.entries[0]?.kind === "status" && state.entries[0].text).toBe("somite-test-agent 0.1.0 is ready (session 1)");
  });
});
