/**
 * Wire payloads for unit tests, shaped exactly like what `somite serve`
 * sent when driven with the scripted test agent (recorded from a real
 * session, trimmed), with builders for the variations a test needs.
 */
import type { FeedEvent } from "../api/types";

export const REV_A = `blake3:${"a".repeat(64)}`;
export const REV_B = `blake3:${"b".repeat(64)}`;
export const REV_C = `blake3:${"c".repeat(64)}`;

export function feedEvent(cursor: number, kind: string, data: unknown, time_ms = 1_000_000): FeedEvent {
  return { cursor, kind, time_ms, data };
}

export function agentEvent(cursor: number, data: Record<string, unknown>, time_ms = 1_000_000): FeedEvent {
  return feedEvent(cursor, "agent", { generation: 1, ...data }, time_ms);
}

export const readyData = {
  type: "ready",
  session: {
    session_id: "test-session",
    agent: { name: "somite-test-agent", title: null, version: "0.1.0" },
    config_options: [],
    modes: null,
    workspace: "/tmp/somite-workflow-agent-x",
  },
};

export function toolCall(id: string, tool: string, status: "pending" | "in_progress" | "completed" | "failed", extra: Record<string, unknown> = {}) {
  const [server, name] = tool.split("/");
  return {
    tool_call_id: id,
    title: `Tool: ${tool}`,
    kind: "other",
    status,
    identity: { server, tool: name },
    raw_input: { server, tool: name, arguments: {} },
    raw_output: null,
    content: [],
    locations: [],
    ...extra,
  };
}

export const permissionOptions = [
  { option_id: "allow-once", name: "Allow", kind: "allow_once" },
  { option_id: "allow-always", name: "Always allow", kind: "allow_always" },
  { option_id: "reject-once", name: "Reject", kind: "reject_once" },
];

export function pendingPermission(id = "g1-p1", toolCallId = "run-1") {
  return {
    id,
    tool_call: toolCall(toolCallId, "nextflow/nextflow_run", "pending", {
      raw_input: { server: "nextflow", tool: "nextflow_run", arguments: { mode: "full" } },
    }),
    options: permissionOptions,
    reason: { kind: "not_allowlisted", identity: { server: "nextflow", tool: "nextflow_run" } },
    timeout_ms: 300_000,
  };
}

export const cleanup = {
  agent_exit: { code: 0, signal: null },
  stop: "terminated",
  workspace: { kind: "removed", path: "/tmp/somite-workflow-agent-x" },
};

export function sessionView(patch: Record<string, unknown> = {}) {
  return {
    state: "ready",
    generation: 1,
    command: ["somite-test-agent"],
    session: readyData.session,
    config_options: [
      {
        id: "model",
        name: "Model",
        description: null,
        category: "model",
        control: {
          type: "select",
          current_value: "fast",
          choices: [
            { value: "fast", name: "Fast", description: null, group: null },
            { value: "deep", name: "Deep", description: null, group: null },
          ],
        },
      },
      { id: "verbose", name: "Verbose", description: null, category: null, control: { type: "boolean", current_value: false } },
    ],
    login_methods: [],
    pending_permissions: [],
    turn: null,
    ended: null,
    ...patch,
  };
}

export function runStatus(patch: Record<string, unknown> = {}) {
  return {
    run_id: "run-1796248799769-0a1b2c3d",
    kind: "run",
    phase: "running",
    revision: 1,
    graph_revision: REV_A,
    closure_digest: REV_B,
    profile: "local",
    states: { reads: "done", trim: "running", fastqc: "queued" },
    progress: { completed: 1, total: 3, unit: "nodes", message: "1 of 3 nodes done; running trim" },
    exit_code: null,
    error: null,
    evidence_receipt: null,
    overrides: [],
    fixtures: [],
    output_dir: ".somite/runs/run-1796248799769-0a1b2c3d/launch/results",
    stderr_tail: [],
    started_at: "2026-12-02T22:00:05Z",
    ended_at: null,
    ...patch,
  };
}

export const compileSummary = {
  digest: REV_B,
  path: `.somite/compiled/${"b".repeat(64)}`,
  graph_revision: REV_A,
  files: 12,
  bytes: 25345,
  reused: false,
  pixi: "unavailable",
  toolchain: [
    {
      id: "toolchain:pixi",
      node_id: null,
      operator_id: null,
      field: "pixi",
      title: "pixi is not available",
      detail: "Pixi is not on PATH, so the compiled package has no pixi.lock.",
      kind: "toolchain",
      priority: 9,
      required: false,
      escalatable: false,
      resolutions: [{ id: "toolchain:pixi:setup", kind: "setup", label: "Install Pixi 0.77 (https://pixi.sh), then compile again", recommended: true }],
      recipes: [],
      evidence: {},
    },
  ],
};

export function receipt(result: "passed" | "failed" | "inconclusive", graphRevision = REV_A, reason: string | null = null) {
  return {
    schema: "somite.evidence-receipt",
    schema_version: 1,
    digest: REV_C,
    recorded_at: "2026-12-02T22:01:00Z",
    run_id: "run-1796248799769-0a1b2c3d",
    subject: { graph_revision: graphRevision },
    closure_digest: REV_B,
    result,
    reason,
    exit_code: result === "failed" ? 1 : 0,
    nodes: [],
    edges: [],
    artifacts: [],
    logs: [],
  };
}

export const TOOLCHAIN_MISSING = {
  code: "toolchain_missing",
  message: "`pixi` is not installed, so Somite cannot run the compiled package",
  recovery: "install Pixi 0.77 (https://pixi.sh) and put `pixi` on PATH, then start again",
};
