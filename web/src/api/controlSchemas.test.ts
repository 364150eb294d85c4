/**
 * The reply schemas of compile, runs, evidence and the Agent panel accept
 * what the runtime sends and refuse what breaks the contract — before it
 * can reach browser state.
 */
import { describe, expect, it } from "vitest";
import {
  cleanupReport,
  compileSummary,
  disconnectReply,
  configReply,
  evidenceLookup,
  launcherList,
  pendingPermission as pendingPermissionSchema,
  runStarted,
  runStatus as runStatusSchema,
  sessionView as sessionViewSchema,
  agentEventData,
} from "./schemas";
import {
  REV_A,
  REV_B,
  cleanup,
  compileSummary as compileFixture,
  pendingPermission,
  readyData,
  receipt,
  runStatus,
  sessionView,
  toolCall,
} from "../testing/wire";

const ok = (schema: { safeParse(v: unknown): { success: boolean } }, value: unknown) => schema.safeParse(value).success;

describe("compile and run replies", () => {
  it("accept what the runtime sends", () => {
    expect(ok(compileSummary, compileFixture)).toBe(true);
    expect(ok(runStarted, { run_id: "run-1-abc", kind: "validation", graph_revision: REV_A, closure_digest: REV_B, profile: "local", replayed: false })).toBe(true);
    expect(ok(runStatusSchema, runStatus())).toBe(true);
    expect(ok(runStatusSchema, runStatus({ phase: "failed", error: { code: "run_failed", message: "trim failed", recovery: "see stderr" }, stderr_tail: ["boom"], exit_code: 1, ended_at: "x" }))).toBe(true);
  });

  it("read a validation's stood-in download nodes, and none when it ran every node", () => {
    const stoodIn = runStatusSchema.parse(
      runStatus({
        kind: "validation",
        states: { fetch: "unexercised", align: "done" },
        unexercised: [{ node_id: "fetch", operator_id: "ensembl.fasta", reason: "needs the network" }],
      }),
    );
    expect(stoodIn.states["fetch"]).toBe("unexercised");
    expect(stoodIn.unexercised.map((n) => n.node_id)).toEqual(["fetch"]);
    expect(runStatusSchema.parse(runStatus()).unexercised).toEqual([]);
    expect(ok(runStatusSchema, runStatus({ unexercised: [{ node_id: "fetch" }] }))).toBe(false);
  });

  it("refuse a compile without a usable digest or with an unknown lock state", () => {
    expect(ok(compileSummary, { ...compileFixture, digest: "" })).toBe(false);
    expect(ok(compileSummary, { ...compileFixture, pixi: "maybe" })).toBe(false);
    expect(ok(compileSummary, { ...compileFixture, files: -1 })).toBe(false);
    expect(ok(compileSummary, { ...compileFixture, graph_revision: "sha256:nope" })).toBe(false);
  });

  it("refuse a run status that breaks its contract", () => {
    expect(ok(runStatusSchema, runStatus({ phase: "paused" }))).toBe(false);
    expect(ok(runStatusSchema, runStatus({ states: { trim: "sleeping" } }))).toBe(false);
    expect(ok(runStatusSchema, runStatus({ progress: { completed: 4, total: 3, unit: "nodes", message: "" } }))).toBe(false);
    expect(ok(runStatusSchema, runStatus({ error: { code: "run_failed" } }))).toBe(false);
    expect(ok(runStatusSchema, runStatus({ run_id: "../../etc/passwd" }))).toBe(false);
    expect(ok(runStatusSchema, runStatus({ revision: 1.5 }))).toBe(false);
    const { progress: _dropped, ...withoutProgress } = runStatus();
    expect(ok(runStatusSchema, withoutProgress)).toBe(false);
  });

  it("accept evidence with verified receipts and refuse a receipt of unknown verdict", () => {
    expect(ok(evidenceLookup, { graph_revision: REV_A, validated: true, receipts: [receipt("passed")], problems: [] })).toBe(true);
    expect(ok(evidenceLookup, { graph_revision: REV_A, validated: false, receipts: [{ ...receipt("passed"), result: "probably" }], problems: [] })).toBe(false);
    expect(ok(evidenceLookup, { graph_revision: REV_A, validated: "yes", receipts: [], problems: [] })).toBe(false);
  });
});

describe("Agent panel replies", () => {
  const launchers = {
    registry: { kind: "source", name: "the bundled registry snapshot" },
    launchers: [
      {
        id: "gemini",
        name: "Gemini CLI",
        registry_version: "0.27.3",
        description: "Google's official CLI for Gemini",
        status: { kind: "package", runner: "npx", command: { program: "/usr/bin/npx", args: ["-y", "@google/gemini-cli@0.27.3", "--experimental-acp"], env: {} } },
      },
      { id: "goose", name: "Goose", registry_version: "1.0.0", description: "", status: { kind: "not_installed", missing: "goose", archive: null } },
    ],
  };

  it("accept the launcher list and refuse an unknown launcher status or a command without a program", () => {
    expect(ok(launcherList, launchers)).toBe(true);
    const unknown = structuredClone(launchers);
    (unknown.launchers[1] as { status: unknown }).status = { kind: "maybe" };
    expect(ok(launcherList, unknown)).toBe(false);
    const noProgram = structuredClone(launchers);
    const first = noProgram.launchers[0];
    if (first?.status.command) first.status.command.program = "";
    expect(ok(launcherList, noProgram)).toBe(false);
  });

  it("accept the session view and refuse an unknown state or a malformed pending permission", () => {
    expect(ok(sessionViewSchema, sessionView())).toBe(true);
    expect(ok(sessionViewSchema, sessionView({ state: "disconnected", generation: null, command: null, session: null, config_options: [] }))).toBe(true);
    expect(ok(sessionViewSchema, sessionView({ state: "thinking" }))).toBe(false);
    expect(ok(sessionViewSchema, sessionView({ pending_permissions: [{ ...pendingPermission(), id: "g1-p1/../../x" }] }))).toBe(false);
    expect(ok(sessionViewSchema, sessionView({ command: "codex --acp" }))).toBe(false);
  });

  it("hold config options to their two controls", () => {
    const options = sessionView().config_options;
    expect(ok(configReply, { config_options: options })).toBe(true);
    expect(ok(configReply, {})).toBe(true);
    expect(ok(configReply, { config_options: [{ id: "x", name: "X", control: { type: "slider", current_value: 3 } }] })).toBe(false);
    expect(ok(configReply, { config_options: [{ id: "x", name: "X", control: { type: "boolean", current_value: "yes" } }] })).toBe(false);
  });

  it("hold a permission to its exact tool call and the agent's option kinds", () => {
    expect(ok(pendingPermissionSchema, pendingPermission())).toBe(true);
    expect(ok(pendingPermissionSchema, { ...pendingPermission(), options: [{ option_id: "x", name: "X", kind: "allow_forever" }] })).toBe(false);
    expect(ok(pendingPermissionSchema, { ...pendingPermission(), tool_call: { ...toolCall("", "nextflow/nextflow_run", "pending") } })).toBe(false);
    expect(ok(pendingPermissionSchema, { ...pendingPermission(), timeout_ms: -1 })).toBe(false);
  });

  it("accept every agent event type the runtime sends and refuse broken ones", () => {
    const events = [
      { generation: 1, ...readyData },
      { generation: 1, type: "user_message", turn: 1, text: "hi" },
      { generation: 1, type: "agent_message", turn: 1, text: "Looking" },
      { generation: 1, type: "agent_thought", turn: null, text: "hmm" },
      { generation: 1, type: "tool_call", turn: 1, tool_call: toolCall("call-1", "somite/somite.workflow.get", "completed") },
      { generation: 1, type: "plan", turn: 1, entries: [{ content: "read", priority: "medium", status: "pending" }] },
      { generation: 1, type: "permission_requested", permission: pendingPermission() },
      { generation: 1, type: "permission_resolved", permission_id: "g1-p1", tool_call_id: "run-1", resolution: { by: "user", answer: { outcome: "selected", option_id: "reject-once" } } },
      { generation: 1, type: "turn_ended", turn: 1, outcome: { kind: "end_turn" }, transcript: { format: 1 } },
      { generation: 1, type: "ended", reason: { kind: "disconnected" }, cleanup },
    ];
    for (const event of events) expect(ok(agentEventData, event), JSON.stringify(event)).toBe(true);
    expect(ok(agentEventData, { generation: 1, type: "agent_message", turn: 1 })).toBe(false);
    expect(ok(agentEventData, { generation: 1, type: "tool_call", turn: 1, tool_call: { ...toolCall("c", "a/b", "pending"), status: "exploded" } })).toBe(false);
    expect(ok(agentEventData, { generation: -1, type: "user_message", turn: 1, text: "" })).toBe(false);
    expect(ok(agentEventData, { generation: 1, type: "permission_resolved", permission_id: "g1-p1", tool_call_id: "x", resolution: { by: "magic" } })).toBe(false);
  });

  it("require the disconnect report to say what happened to the workspace", () => {
    expect(ok(cleanupReport, cleanup)).toBe(true);
    expect(ok(cleanupReport, { ...cleanup, workspace: {} })).toBe(false);
    const attachments = { kind: "failed", path: "/tmp/agent/tools/packages", error: "Operation not permitted" };
    expect(ok(disconnectReply, { cleanup: { ...cleanup, attachments } })).toBe(true);
    expect(ok(disconnectReply, { cleanup }), "the reply says what happened to the attached packages").toBe(false);
  });
});
