/**
 * Runtime schemas for every reply the workspace reads, following the wire
 * contract (docs/http-api.md) and the runtime's serialisation.
 *
 * Objects are parsed non-strictly (unknown fields are dropped, not fatal) so
 * a newer runtime that adds a field does not break an older page; anything
 * the page relies on is checked, down to the numbers being finite.
 */
import { z } from "zod/mini";
import { portSpec, portType, ports } from "./portSchemas";
import {
  pinnedInput,
  processEnvironment,
  promotedInvocation,
  replacement,
  sourcePin,
  unrepresentedInvocation,
} from "./sourceSchemas";

export { portSpec };

const revision = z.string().check(z.regex(/^blake3:[0-9a-f]{64}$/, "expected a blake3:<hex> revision"));
/**
 * Nodes, edges and notes share one id namespace: 1–128 of [A-Za-z0-9_.-],
 * but never `.` or `..`, which would name a folder outside a node's results.
 */
const graphId = z.string().check(z.regex(/^(?!\.{1,2}$)[A-Za-z0-9_.-]{1,128}$/, "expected a graph id"));
const coordinate = z.number().check(z.refine(Number.isFinite, "expected a finite number"));
const count = z.int().check(z.nonnegative());
const paramValue = z.union([z.boolean(), z.number(), z.string()]);
const paramType = z.enum(["bool", "int", "float", "string"]);

export const errorEnvelope = z.object({
  code: z.string().check(z.minLength(1)),
  message: z.string(),
  recovery: z.string(),
  details: z.optional(z.record(z.string(), z.unknown())),
});

export const workflowNode = z.object({
  id: graphId,
  operator_id: z.string().check(z.minLength(1)),
  operator_revision: revision,
  ports,
  params: z._default(z.record(z.string(), paramValue), {}),
  x: coordinate,
  y: coordinate,
  color: z.optional(z.string()),
  /** What a `workflow.source` node pins (absent on native nodes). */
  source: z.optional(sourcePin),
  /** The invocations of a source node replaced by catalog operators, in invocation order (omitted when none). */
  replacements: z.optional(z.array(replacement)),
  /** Environments chosen for processes the pipeline gives none (omitted when none). */
  process_environments: z.optional(z.array(processEnvironment)),
  /** Remote inputs pinned to downloaded copies (omitted when none). */
  pinned_inputs: z.optional(z.array(pinnedInput)),
});

export const workflowEdge = z.object({
  id: graphId,
  from_node: graphId,
  from_port: z.string(),
  to_node: graphId,
  to_port: z.string(),
});

export const workflowNote = z.object({
  id: graphId,
  text: z.string(),
  x: coordinate,
  y: coordinate,
  color: z.optional(z.string()),
});

/**
 * What a native variant records of the source workflow it was promoted
 * from (issue 22): the pinned tree, which invocations became which nodes,
 * which none could stand for, and the source node as it was, which
 * `revert_variant` restores. Here rather than in `sourceSchemas.ts`
 * because it holds a whole node.
 */
export const variantOrigin = z.object({
  source_node_id: graphId,
  provider: z.enum(["nf-core", "github"]),
  repository: z.string(),
  release: z.nullable(z.string()),
  commit: z.string().check(z.regex(/^[0-9a-f]{40}$/, "expected a full commit id")),
  tree_digest: revision,
  promoted: z._default(z.array(promotedInvocation), []),
  unrepresented: z._default(z.array(unrepresentedInvocation), []),
  source: workflowNode,
});

export const workflowDocument = z.object({
  schema_version: z.int(),
  title: z.string(),
  nodes: z._default(z.array(workflowNode), []),
  edges: z._default(z.array(workflowEdge), []),
  notes: z._default(z.array(workflowNote), []),
  stages: z._default(z.array(z.unknown()), []),
  /** Present when the document is a native variant promoted from a source workflow. */
  variant_origin: z.optional(z.nullable(variantOrigin)),
});

/** A server process's feed identity: cursors restart with every process. */
const feedEpoch = z.string().check(z.regex(/^[0-9a-f]{1,64}$/, "expected a feed epoch"));

export const workflowView = z.object({
  state_revision: revision,
  graph_revision: revision,
  semantic_revision: revision,
  input_location: z.string(),
  recovery_required: z.nullable(z.string()),
  catalog_revision: revision,
  document: workflowDocument,
  /** The feed position the document was read at (atomically). */
  feed_cursor: count,
  feed_epoch: feedEpoch,
});

/** `GET /api/workflow?state_revision=`: the graph of one recent state. */
/** `POST /api/project/rebind`: the graph as served, bound to its location again. */
export const rebound = z.object({
  state_revision: revision,
});

export const workflowRevision = z.object({
  state_revision: revision,
  graph_revision: revision,
  document: workflowDocument,
});

const transactionOutcome = {
  previous_state_revision: revision,
  state_revision: revision,
  graph_revision: revision,
  summary: z.string(),
  operations: count,
  replayed: z._default(z.boolean(), false),
};

export const transactionReply = z.object({
  ...transactionOutcome,
  document: z.optional(workflowDocument),
  cursor: z.optional(z.int().check(z.positive())),
  epoch: z.optional(feedEpoch),
});

const feedCursor = z.int().check(z.positive());

/** Any feed event: transactions today, agent messages and more later. */
export const feedEvent = z.object({
  cursor: feedCursor,
  kind: z.string().check(z.minLength(1)),
  time_ms: count,
  data: z.unknown(),
});

/**
 * The `data` of a `transaction` event: who, the outcome and the operations,
 * but not the result graph; that is fetched by `outcome.state_revision`.
 */
export const transactionEventData = z.object({
  source: z.object({
    kind: z.enum(["human", "agent"]),
    activity: z.optional(z.nullable(z.string())),
  }),
  outcome: z.object(transactionOutcome),
});

export const feedGap = z.object({
  after: z.int().check(z.nonnegative()),
  first_available: feedCursor,
});

/** The stream's answer to a position of another server process (or none it knows). */
export const feedReset = z.object({
  epoch: feedEpoch,
  cursor: z.int().check(z.nonnegative()),
});

export const activityPage = z.object({
  epoch: feedEpoch,
  last_cursor: z.int().check(z.nonnegative()),
  /** `after` was not a position of this process's feed: no events; reload. */
  reset: z.boolean(),
  gap_until: z.nullable(z.int().check(z.positive())),
  events: z.array(feedEvent),
});

const catalogPort = z.object({
  name: z.string(),
  type: portType,
  union: z._default(z.array(portType), []),
  optional: z._default(z.boolean(), false),
  resource_profile: z.optional(z.string()),
});

const catalogParam = z.object({
  name: z.string(),
  type: paramType,
  required: z.boolean(),
  default: z.optional(paramValue),
  min: z.optional(z.number()),
  max: z.optional(z.number()),
  choices: z.optional(z.array(z.string())),
});

const operatorKind = z.enum(["external", "inprocess", "reference", "source"]);

export const catalogMatch = z.object({
  id: z.string(),
  title: z.string(),
  palette: z.string(),
  kind: operatorKind,
  revision,
  score: z.number(),
  matched_terms: z.array(z.string()),
  packages: z.record(z.string(), z.string()),
  /** The nf-core module it stands for (`bwa/mem`), when its contract declares one. */
  nf_core_module: z.optional(z.string()),
  inputs: z.array(catalogPort),
  outputs: z.array(catalogPort),
  params: z.array(catalogParam),
});

export const catalogPage = z.object({
  query: z.string(),
  catalog_revision: revision,
  total_matches: count,
  matches: z.array(catalogMatch),
  next_cursor: z.nullable(z.string()),
});

export const paramSpec = z.object({
  name: z.string(),
  type: paramType,
  label: z.string(),
  help: z.optional(z.string()),
  default: z.optional(paramValue),
  required: z._default(z.boolean(), false),
  min: z.optional(z.number()),
  max: z.optional(z.number()),
  choices: z.optional(z.array(z.string())),
});

export const operatorContract = z.object({
  id: z.string(),
  title: z.string(),
  description: z.optional(z.string()),
  palette: z.string(),
  kind: operatorKind,
  cost: z.string(),
  bin: z.optional(z.string()),
  pixi: z._default(z.record(z.string(), z.string()), {}),
  params: z._default(z.array(paramSpec), []),
  ports,
});

export const operatorReply = z.object({
  revision,
  catalog_revision: revision,
  contract: operatorContract,
});

const resolutionKind = z.enum([
  "connect",
  "configure",
  "use_existing",
  "download",
  "build",
  "attach",
  "review",
  "setup",
]);

export const readinessResolution = z.object({
  id: z.string(),
  kind: resolutionKind,
  label: z.string(),
  recommended: z.boolean(),
  from_node: z.optional(z.string()),
  from_port: z.optional(z.string()),
  operator_id: z.optional(z.string()),
  download_bytes: z.optional(count),
  stored_bytes: z.optional(count),
  scientific_effect: z.optional(z.string()),
  source_url: z.optional(z.string()),
  /** For `configure`: the one value it sets (a results folder). */
  value: z.optional(paramValue),
});

export const itemKind = z.enum([
  "input_origin",
  "parameter",
  "input",
  "managed_resource",
  "manual_checkpoint",
  "method_details",
  "legacy_tool",
  "adapter",
  "toolchain",
  "unrepresented_source_step",
  "process_environment",
  "remote_input",
  "bundled_file",
]);

/** Where a file and line point: a contract field's declaration. */
const sourceLocation = z.object({
  file: z.string(),
  line: z.optional(count),
});

/** What a requirement was derived from; each member only where it applies. */
export const requirementEvidence = z.object({
  contract: z.optional(
    z.object({
      operator_id: z.string(),
      operator_revision: revision,
      field: z.string(),
      source: z.optional(sourceLocation),
    }),
  ),
  graph: z.optional(
    z.object({
      node_id: z.string(),
      port: z.optional(z.string()),
      param: z.optional(z.string()),
      pinned_revision: z.optional(revision),
    }),
  ),
  file: z.optional(
    z.object({
      path: z.string(),
      found: z.boolean(),
      recorded_digest: z.optional(revision),
      found_digest: z.optional(revision),
      recorded_location: z.optional(z.string()),
    }),
  ),
  /** For a pipeline step: when the pipeline reaches it, and now. */
  reach: z.optional(
    z.object({
      reached: z.enum(["true", "false", "unknown"]),
      invocations: z.array(z.string()),
      conditions: z.array(z.string()),
      params: z.array(
        z.object({
          name: z.string(),
          value: z.unknown(),
          known: z.boolean(),
        }),
      ),
    }),
  ),
});

export const readinessItem = z.object({
  id: z.string(),
  node_id: z.nullable(z.string()),
  operator_id: z.nullable(z.string()),
  field: z.nullable(z.string()),
  title: z.string(),
  detail: z.string(),
  kind: itemKind,
  priority: count,
  required: z.boolean(),
  escalatable: z.boolean(),
  resolutions: z.array(readinessResolution),
  recipes: z.array(
    z.object({
      id: z.string(),
      version: z.string(),
      title: z.string(),
      kind: resolutionKind,
      source_url: z.optional(z.string()),
    }),
  ),
  evidence: requirementEvidence,
});

export const inputControl = z.object({
  field: z.string(),
  control: z.enum(["file", "param"]),
  type: paramType,
  label: z.string(),
  required: z.boolean(),
  value: z.nullable(paramValue),
  default: z.nullable(paramValue),
  min: z.optional(z.number()),
  max: z.optional(z.number()),
  choices: z.optional(z.array(z.string())),
});

export const nodeAssessment = z.object({
  node_id: z.string(),
  operator_id: z.string(),
  support: z.enum(["supported", "unsupported_contract"]),
  ready: z.boolean(),
  badges: z.object({
    missing_inputs: count,
    missing_parameters: count,
    missing_resources: count,
  }),
  items: z.array(z.string()),
  input_controls: z.array(inputControl),
});

export const assessment = z.object({
  graph_revision: revision,
  catalog_revision: revision,
  state: z.enum(["empty", "ready", "building", "needs_action"]),
  required_count: count,
  counts: z.partialRecord(itemKind, count),
  next_requirement: z.nullable(z.string()),
  items: z.array(readinessItem),
  nodes: z.array(nodeAssessment),
});

// ---- compile, export, runs and evidence ---------------------------------------

/** `run-<13 digits>-<8 hex>` today; anything path-safe is accepted. */
const runId = z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,128}$/, "expected a run id"));

export const compileSummary = z.object({
  digest: z.string().check(z.minLength(1)),
  path: z.string(),
  graph_revision: revision,
  files: count,
  bytes: count,
  reused: z.boolean(),
  pixi: z.enum(["locked", "unavailable", "failed"]),
  pixi_failure: z.optional(z.string()),
  toolchain: z._default(z.array(readinessItem), []),
});

export const runKind = z.enum(["run", "validation"]);
export const runPhase = z.enum(["preparing", "running", "finalizing", "completed", "failed", "cancelling", "cancelled"]);
export const nodeRunState = z.enum(["queued", "running", "cached", "done", "failed", "skipped", "cancelled", "unexercised"]);

export const runStarted = z.object({
  run_id: runId,
  kind: runKind,
  graph_revision: revision,
  closure_digest: revision,
  profile: z.string(),
  replayed: z._default(z.boolean(), false),
});

const runProgress = z
  .object({
    completed: count,
    total: count,
    unit: z.string(),
    message: z.string(),
  })
  .check(z.refine((p) => p.completed <= p.total, "progress.completed exceeds progress.total"));

const fixtureBinding = z.object({
  node_id: z.string(),
  param: z.string(),
  port_type: z.string(),
  fixture: z.string(),
  path: z.string(),
  digest: revision,
  bytes: count,
});

/** A download node a validation did not run: fixtures stood in for its outputs. */
const unexercisedNode = z.object({
  node_id: z.string(),
  operator_id: z.string(),
  reason: z.string(),
});

const parameterOverride = z.object({
  scope: z.string(),
  node_id: z.string(),
  param: z.string(),
  packaged: z.unknown(),
  used: z.unknown(),
  reason: z.string(),
});

export const runStatus = z.object({
  run_id: runId,
  kind: runKind,
  phase: runPhase,
  revision: count,
  graph_revision: revision,
  closure_digest: revision,
  profile: z.string(),
  states: z.record(z.string(), nodeRunState),
  progress: runProgress,
  exit_code: z.nullable(z.int()),
  error: z.nullable(errorEnvelope),
  evidence_receipt: z.nullable(revision),
  overrides: z._default(z.array(parameterOverride), []),
  fixtures: z._default(z.array(fixtureBinding), []),
  unexercised: z._default(z.array(unexercisedNode), []),
  output_dir: z.string(),
  stderr_tail: z._default(z.array(z.string()), []),
  started_at: z.string(),
  ended_at: z.nullable(z.string()),
});

export const receiptResult = z.enum(["passed", "failed", "inconclusive"]);

/** The parts of an evidence receipt the workspace shows; the rest stays on disk. */
export const evidenceReceipt = z.object({
  digest: revision,
  recorded_at: z.string(),
  run_id: z.string(),
  subject: z.object({ graph_revision: revision }),
  closure_digest: revision,
  result: receiptResult,
  reason: z.nullable(z.string()),
  exit_code: z.nullable(z.int()),
  unexercised: z._default(z.array(unexercisedNode), []),
  /** A pinned source pipeline's validation: its Nextflow `-preview`, and what that proves. */
  source_preview: z.optional(
    z.object({
      repository: z.string(),
      commit: z.string(),
      tree_digest: revision,
      proves: z.string(),
      does_not_prove: z.string(),
    }),
  ),
});

export const evidenceLookup = z.object({
  graph_revision: revision,
  /** A fixture run of this revision passed. */
  validated: z.boolean(),
  /** A source pipeline's Nextflow -preview passed: it parses, no task ran. */
  previewed: z._default(z.boolean(), false),
  receipts: z.array(evidenceReceipt),
  problems: z._default(
    z.array(z.object({ digest: z.string(), problem: z.string(), detail: z.string() })),
    [],
  ),
});

// ---- the Agent panel -------------------------------------------------------------

const launchCommand = z.object({
  program: z.string().check(z.minLength(1)),
  args: z.array(z.string()),
  env: z._default(z.record(z.string(), z.string()), {}),
});

const launcherStatus = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("installed"), command: launchCommand }),
  z.object({ kind: z.literal("package"), runner: z.enum(["npx", "uvx"]), command: launchCommand }),
  z.object({ kind: z.literal("not_installed"), missing: z.string(), archive: z.nullable(z.optional(z.string())) }),
  z.object({ kind: z.literal("rejected"), reason: z.string() }),
]);

export const launcher = z.object({
  id: z.string().check(z.minLength(1)),
  name: z.string(),
  registry_version: z.string(),
  description: z.string(),
  status: launcherStatus,
});

export const launcherList = z.object({
  /** Where the registry came from: `{kind: "source", name}` or `{kind: "bundled_fallback", reason}`. */
  registry: z.object({
    kind: z.optional(z.string()),
    name: z.optional(z.string()),
    reason: z.optional(z.string()),
    source: z.optional(z.string()),
    fetched_at: z.optional(z.nullable(z.string())),
  }),
  launchers: z.array(launcher),
});

const configChoice = z.object({
  value: z.string(),
  name: z.string(),
  description: z.optional(z.nullable(z.string())),
  group: z.optional(z.nullable(z.string())),
});

export const configOption = z.object({
  id: z.string().check(z.minLength(1)),
  name: z.string(),
  description: z.optional(z.nullable(z.string())),
  category: z.optional(z.nullable(z.string())),
  control: z.discriminatedUnion("type", [
    z.object({ type: z.literal("select"), current_value: z.string(), choices: z.array(configChoice) }),
    z.object({ type: z.literal("boolean"), current_value: z.boolean() }),
  ]),
});

const toolIdentity = z.object({ server: z.string(), tool: z.string() });

export const toolCallView = z.object({
  tool_call_id: z.string().check(z.minLength(1)),
  title: z.string(),
  kind: z._default(z.string(), "other"),
  status: z.enum(["pending", "in_progress", "completed", "failed"]),
  identity: z.optional(z.nullable(toolIdentity)),
  raw_input: z.optional(z.unknown()),
  raw_output: z.optional(z.unknown()),
  content: z._default(z.array(z.string()), []),
  locations: z._default(z.array(z.string()), []),
});

/** `g<generation>-p<n>`: goes into a URL path, so held to exactly that. */
const permissionId = z.string().check(z.regex(/^g[0-9]{1,20}-p[0-9]{1,20}$/, "expected a permission id"));

export const permissionChoice = z.object({
  option_id: z.string().check(z.minLength(1)),
  name: z.string(),
  kind: z.enum(["allow_once", "allow_always", "reject_once", "reject_always"]),
});

export const pendingPermission = z.object({
  id: permissionId,
  tool_call: toolCallView,
  options: z.array(permissionChoice),
  reason: z.object({
    kind: z.string(),
    identity: z.optional(z.nullable(toolIdentity)),
    claim: z.optional(z.string()),
    claims: z.optional(z.array(z.string())),
    action: z.optional(z.nullable(z.string())),
  }),
  timeout_ms: count,
});

const exitSummary = z.object({ code: z.nullable(z.int()), signal: z.nullable(z.int()) });

export const endReason = z.object({
  kind: z.string().check(z.minLength(1)),
  exit: z.optional(z.nullable(exitSummary)),
  stderr_tail: z.optional(z.string()),
  limit: z.optional(count),
  message: z.optional(z.string()),
});

/** Whether a folder was removed (`removed`), or why not (`failed`). */
const folderRemoval = z.object({ kind: z.string(), path: z.string(), error: z.optional(z.string()) });

/**
 * What cleaning up after a session did. The `ended` event carries the agent
 * and workspace part; the disconnect reply also says whether the session's
 * attached packages were removed.
 */
export const cleanupReport = z.object({
  agent_exit: z.nullable(exitSummary),
  stop: z.string(),
  workspace: folderRemoval,
  attachments: z.optional(folderRemoval),
});

const agentInfo = z.object({
  name: z.optional(z.nullable(z.string())),
  title: z.optional(z.nullable(z.string())),
  version: z.optional(z.nullable(z.string())),
});

const loginMethod = z.object({
  id: z.string(),
  name: z.string(),
  description: z.optional(z.nullable(z.string())),
  kind: z.string(),
});

export const sessionView = z.object({
  state: z.enum(["disconnected", "connecting", "login_required", "ready", "prompting", "ended"]),
  generation: z.nullable(count),
  command: z.nullable(z.array(z.string())),
  session: z.nullable(
    z.object({
      session_id: z.string(),
      agent: agentInfo,
      workspace: z.optional(z.string()),
    }),
  ),
  config_options: z._default(z.array(configOption), []),
  login_methods: z._default(z.array(loginMethod), []),
  pending_permissions: z._default(z.array(pendingPermission), []),
  turn: z.nullable(count),
  ended: z.nullable(endReason),
});

export const promptReply = z.object({ turn: count });
export const emptyReply = z.object({});
export const configReply = z.object({ config_options: z.optional(z.array(configOption)) });
export const disconnectReply = z.object({ cleanup: z.extend(cleanupReport, { attachments: folderRemoval }) });

const turn = z.nullable(count);

const planEntry = z.object({
  content: z.string(),
  priority: z.string(),
  status: z.enum(["pending", "in_progress", "completed"]),
});

/** The `data` of an `agent` feed event, by `type`. */
export const agentEventData = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), generation: count, session: z.object({ agent: agentInfo, session_id: z.string() }) }),
  z.object({ type: z.literal("login_required"), generation: count, methods: z.array(loginMethod) }),
  z.object({ type: z.literal("user_message"), generation: count, turn: count, text: z.string() }),
  z.object({ type: z.literal("agent_message"), generation: count, turn, text: z.string() }),
  z.object({ type: z.literal("agent_thought"), generation: count, turn, text: z.string() }),
  z.object({ type: z.literal("tool_call"), generation: count, turn, tool_call: toolCallView }),
  z.object({ type: z.literal("plan"), generation: count, turn, entries: z.array(planEntry) }),
  z.object({ type: z.literal("config_options"), generation: count, options: z.array(configOption) }),
  z.object({ type: z.literal("mode_changed"), generation: count, mode_id: z.string() }),
  z.object({ type: z.literal("permission_requested"), generation: count, permission: pendingPermission }),
  z.object({
    type: z.literal("permission_resolved"),
    generation: count,
    permission_id: permissionId,
    tool_call_id: z.string(),
    resolution: z.object({
      by: z.enum(["policy", "user", "timeout", "turn_cancelled", "session_ended"]),
      option_id: z.optional(z.string()),
      answer: z.optional(z.object({ outcome: z.enum(["selected", "cancelled"]), option_id: z.optional(z.string()) })),
    }),
  }),
  z.object({
    type: z.literal("turn_ended"),
    generation: count,
    turn: count,
    outcome: z.object({ kind: z.string(), message: z.optional(z.string()) }),
  }),
  z.object({ type: z.literal("ended"), generation: count, reason: endReason, cleanup: cleanupReport }),
  z.object({ type: z.literal("transcript_failed"), generation: count, message: z.string() }),
]);

/** The `data` of a `compile` feed event. */
export const compileEventData = z.object({
  source: z.object({ kind: z.enum(["human", "agent"]) }),
  summary: compileSummary,
});
