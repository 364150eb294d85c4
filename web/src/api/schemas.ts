/**
 * Runtime schemas for every reply the workspace reads, following DESIGN.md
 * "Wire contracts" and the runtime's serialisation.
 *
 * Objects are parsed non-strictly (unknown fields are dropped, not fatal) so
 * a newer runtime that adds a field does not break an older page; anything
 * the page relies on is checked, down to the numbers being finite.
 */
import { z } from "zod/mini";

const revision = z.string().check(z.regex(/^blake3:[0-9a-f]{64}$/, "expected a blake3:<hex> revision"));
/** Nodes, edges and notes share one id namespace: 1–128 of [A-Za-z0-9_.-]. */
const graphId = z.string().check(z.regex(/^[A-Za-z0-9_.-]{1,128}$/, "expected a graph id"));
/** A port type name such as `FastqGz` (the documented set has 28). */
const portType = z.string().check(z.regex(/^[A-Z][A-Za-z0-9]{0,31}$/, "expected a port type name"));
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

const resourceResolution = z.object({
  id: z.string(),
  label: z.string(),
  kind: z.enum(["use_existing", "download", "build"]),
  recommended: z._default(z.boolean(), false),
  download_bytes: z.optional(count),
  stored_bytes: z.optional(count),
  scientific_effect: z.optional(z.string()),
  source_url: z.optional(z.string()),
  version: z.optional(z.string()),
});

export const portSpec = z.object({
  name: z.string().check(z.minLength(1)),
  type: portType,
  union: z._default(z.array(portType), []),
  optional: z._default(z.boolean(), false),
  resource: z.optional(
    z.object({
      profile: z.string(),
      title: z.string(),
      detail: z.string(),
      resolutions: z._default(z.array(resourceResolution), []),
    }),
  ),
  resource_profile: z.optional(z.string()),
  stage_as: z.optional(z.string()),
  import_param: z.optional(z.string()),
});

const ports = z.object({
  in: z._default(z.array(portSpec), []),
  out: z._default(z.array(portSpec), []),
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

export const workflowDocument = z.object({
  schema_version: z.int(),
  title: z.string(),
  nodes: z._default(z.array(workflowNode), []),
  edges: z._default(z.array(workflowEdge), []),
  notes: z._default(z.array(workflowNote), []),
  stages: z._default(z.array(z.unknown()), []),
});

export const workflowView = z.object({
  state_revision: revision,
  graph_revision: revision,
  semantic_revision: revision,
  input_location: z.string(),
  recovery_required: z.nullable(z.string()),
  catalog_revision: revision,
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
});

const feedCursor = z.int().check(z.positive());

/** Any feed event: transactions today, agent messages and more later. */
export const feedEvent = z.object({
  cursor: feedCursor,
  kind: z.string().check(z.minLength(1)),
  time_ms: count,
  data: z.unknown(),
});

export const transactionEventData = z.object({
  source: z.object({
    kind: z.enum(["human", "agent"]),
    activity: z.optional(z.nullable(z.string())),
  }),
  outcome: z.object(transactionOutcome),
  document: workflowDocument,
});

export const feedGap = z.object({
  after: z.int().check(z.nonnegative()),
  first_available: feedCursor,
});

export const activityPage = z.object({
  last_cursor: z.int().check(z.nonnegative()),
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
});

export const itemKind = z.enum([
  "parameter",
  "input",
  "managed_resource",
  "manual_checkpoint",
  "method_details",
  "legacy_tool",
  "adapter",
  "toolchain",
]);

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
