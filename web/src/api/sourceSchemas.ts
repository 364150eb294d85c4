/**
 * Runtime schemas of source workflows (issues 18 and 22): the pin a
 * `workflow.source` node carries and the invocations it replaces with
 * catalog operators, the nf-core search page, the outline of a pinned tree
 * with its process invocations, and what a promoted variant records of its
 * origin (the wire contract is the runtime's `docs/http-api.md`; the
 * outline is `somite_outline::Outline`).
 *
 * Kept apart from `schemas.ts`, which imports `sourcePin` and `replacement`
 * for the node; so this file imports nothing from it (no import cycle). As
 * there, objects are parsed non-strictly and what the page relies on is
 * checked.
 */
import { z } from "zod/mini";
import { ports } from "./portSchemas";

/** A BLAKE3 digest as the runtime writes every one (`blake3:<64 hex>`). */
const blake3 = z.string().check(z.regex(/^blake3:[0-9a-f]{64}$/, "expected a blake3:<hex> digest"));
/** A full Git commit id: a source is always one, never a branch or tag. */
const commitId = z.string().check(z.regex(/^[0-9a-f]{40}$/, "expected a full commit id"));
const count = z.int().check(z.nonnegative());
const json = z.unknown();
const finite = z.number().check(z.refine(Number.isFinite, "expected a finite number"));

export const sourceParamType = z.enum(["string", "integer", "number", "boolean"]);

/** One typed parameter of a pinned pipeline, from its `nextflow_schema.json`. */
export const sourceParam = z.object({
  name: z.string().check(z.minLength(1)),
  group: z.nullable(z.string()),
  type: sourceParamType,
  description: z._default(z.nullable(z.string()), null),
  help_text: z._default(z.nullable(z.string()), null),
  default: z._default(json, null),
  enum: z._default(z.array(json), []),
  pattern: z._default(z.nullable(z.string()), null),
  minimum: z._default(z.nullable(finite), null),
  maximum: z._default(z.nullable(finite), null),
  format: z._default(z.nullable(z.string()), null),
  /** The schema's `exists: true`: the path must be there before a run. */
  exists: z._default(z.boolean(), false),
  required: z._default(z.boolean(), false),
  hidden: z._default(z.boolean(), false),
});

export const sourceProcess = z.object({
  name: z.string(),
  file: z.string(),
  line: count,
  /** `null`: the process has no Conda environment (a readiness item). */
  environment: z.nullable(z.string()),
  /** The images its `container` directive names. */
  container: z._default(z.array(z.string()), []),
});

/** `node.source`: what a source workflow node pins. */
export const sourcePin = z.object({
  provider: z.enum(["nf-core", "github"]),
  repository: z.string().check(z.minLength(1)),
  release: z.nullable(z.string()),
  git_ref: z.nullable(z.string()),
  commit: commitId,
  tree_digest: blake3,
  entry: z.string(),
  name: z.string(),
  description: z._default(z.nullable(z.string()), null),
  nextflow_version: z._default(z.nullable(z.string()), null),
  params: z._default(z.array(sourceParam), []),
  processes: z._default(z.array(sourceProcess), []),
});

const nfcoreRelease = z.object({
  tag: z.string().check(z.minLength(1)),
  commit: commitId,
  published_at: z.nullable(z.optional(z.string())),
});

export const nfcoreMatch = z.object({
  name: z.string(),
  repository: z.string().check(z.minLength(1)),
  description: z._default(z.nullable(z.string()), null),
  topics: z._default(z.array(z.string()), []),
  archived: z._default(z.boolean(), false),
  score: finite,
  matched_terms: z._default(z.array(z.string()), []),
  latest_release: z.nullable(z.optional(nfcoreRelease)),
  releases: z._default(z.array(nfcoreRelease), []),
});

/** Where the catalog came from: fetched now, reused from the hour's cache, or the last good copy offline. */
export const nfcoreCatalog = z.object({
  source_url: z.string(),
  revision: z.optional(z.string()),
  fetched_at: z.string(),
  age_seconds: count,
  origin: z.enum(["fetched", "cached", "offline"]),
  offline_reason: z.optional(z.nullable(z.string())),
});

export const nfcoreSearchPage = z.object({
  query: z.string(),
  catalog: nfcoreCatalog,
  total_matches: count,
  matches: z.array(nfcoreMatch),
  next_cursor: z.nullable(z.string()),
});

// ---- the outline ----------------------------------------------------------------

const location = z.object({ file: z.string(), line: count });

export const channelSource = z.union([
  z.object({ kind: z.literal("output"), call: z.string(), output: json }),
  z.object({ kind: z.literal("take"), name: z.string() }),
  z.object({ kind: z.literal("param"), name: z.string() }),
]);

export const outlineCall = z.object({
  name: z.string(),
  target: z.nullable(
    z.object({
      kind: z.enum(["process", "workflow", "function"]),
      name: z.string(),
      file: z.string(),
    }),
  ),
  arguments: z._default(z.array(z.object({ text: z.string(), sources: z._default(z.array(channelSource), []) })), []),
  location,
});

const opaque = z.object({ kind: z.string(), excerpt: z.string(), location });

export const outlineWorkflow = z.object({
  name: z.nullable(z.string()),
  takes: z._default(z.array(z.string()), []),
  calls: z._default(z.array(outlineCall), []),
  emits: z._default(
    z.array(
      z.object({
        name: z.nullable(z.string()),
        text: z.string(),
        sources: z._default(z.array(channelSource), []),
        location,
      }),
    ),
    [],
  ),
  opaque: z._default(z.array(opaque), []),
  location,
});

const declaration = z.object({ qualifier: z.string(), emit: z.nullable(z.string()), text: z.string() });

export const outlineProcess = z.object({
  name: z.string(),
  labels: z._default(z.array(z.string()), []),
  conda: z.nullable(
    z.object({
      directive: z.nullable(z.string()),
      packages: z._default(z.array(z.string()), []),
      environment: z.nullable(z.object({ file: z.string(), dependencies: z._default(z.array(z.string()), []) })),
    }),
  ),
  inputs: z._default(z.array(declaration), []),
  outputs: z._default(z.array(declaration), []),
  location,
});

export const outline = z.object({
  entry: z.string(),
  files: z._default(z.array(z.string()), []),
  workflows: z._default(z.array(outlineWorkflow), []),
  processes: z._default(z.array(outlineProcess), []),
  opaque: z._default(z.array(opaque), []),
  diagnostics: z._default(
    z.array(z.object({ code: z.string(), message: z.string(), file: z.string(), line: z.nullable(z.optional(count)) })),
    [],
  ),
});

// ---- invocations and their replacements (issue 22) ---------------------------

/**
 * A process call's fully-qualified name, as Nextflow names its tasks: the
 * workflow names down to the call joined with `:` (`NFCORE_DEMO:DEMO:FASTQC`).
 */
const invocationId = z.string().check(z.minLength(1));

/** One input or output of an invocation: `type` is `null` when the tree does not say (it cannot be mapped). */
export const invocationPort = z.object({
  name: z.string().check(z.minLength(1)),
  type: z.nullable(z.string()),
  text: z._default(z.string(), ""),
});

/** Which operator port stands in for which port of the invocation. */
export const portPair = z.object({
  invocation_port: z.string().check(z.minLength(1)),
  operator_port: z.string().check(z.minLength(1)),
});

/** An invocation of the pinned tree replaced by a catalog operator, as the source node records it. */
export const replacement = z.object({
  invocation: invocationId,
  operator_id: z.string().check(z.minLength(1)),
  operator_revision: blake3,
  /** The operator's port contract pinned at replace time (the shape of a node's `ports`). */
  ports,
  inputs: z._default(z.array(portPair), []),
  outputs: z._default(z.array(portPair), []),
});

/** What a user chose for a process the pipeline gives no Pixi environment. */
export const environmentChoice = z.discriminatedUnion("use", [
  z.object({ use: z.literal("conda"), dependencies: z.array(z.string()) }),
  z.object({ use: z.literal("container") }),
]);

export const processEnvironment = z.object({
  process: z.string().check(z.minLength(1)),
  choice: environmentChoice,
});

/** A remote input downloaded once, digested, and staged from its copy. */
export const pinnedInput = z.object({
  param: z.string(),
  url: z.string(),
  path: z.string(),
  bytes: count,
  digest: blake3,
});

export const invocation = z.object({
  id: invocationId,
  /** The call's name in its workflow (an alias when it has one). */
  call: z.string(),
  /** The workflow whose body makes the call. */
  workflow: z.nullable(z.string()),
  process: z.string(),
  file: z.string(),
  line: count,
  inputs: z._default(z.array(invocationPort), []),
  outputs: z._default(z.array(invocationPort), []),
  replacement: z._default(z.nullable(replacement), null),
});

/** `GET /api/source/nodes/{id}/outline`: the pinned tree, verified again and outlined. */
export const outlineReply = z.object({
  node_id: z.string(),
  repository: z.string(),
  commit: commitId,
  tree_digest: blake3,
  outline,
  params: z._default(z.array(sourceParam), []),
  invocations: z._default(z.array(invocation), []),
});

/** An invocation a variant carries as a native node: picked by the person, or the catalog's equivalent. */
export const promotedInvocation = z.object({
  invocation: invocationId,
  node_id: z.string(),
  how: z.enum(["selected", "catalog_equivalent", "added"]),
});

/** An invocation no native node stands for yet: a blocking requirement of the variant, never a silent drop. */
export const unrepresentedInvocation = z.object({
  invocation: invocationId,
  process: z.string(),
  reason: z.string(),
});

export type SourceParam = z.infer<typeof sourceParam>;
export type SourcePin = z.infer<typeof sourcePin>;
export type NfcoreMatch = z.infer<typeof nfcoreMatch>;
export type NfcoreRelease = z.infer<typeof nfcoreRelease>;
export type NfcoreSearchPage = z.infer<typeof nfcoreSearchPage>;
export type ChannelSource = z.infer<typeof channelSource>;
export type OutlineCall = z.infer<typeof outlineCall>;
export type OutlineWorkflow = z.infer<typeof outlineWorkflow>;
export type OutlineProcess = z.infer<typeof outlineProcess>;
export type Outline = z.infer<typeof outline>;
export type OutlineReply = z.infer<typeof outlineReply>;
export type InvocationPort = z.infer<typeof invocationPort>;
export type PortPair = z.infer<typeof portPair>;
export type Replacement = z.infer<typeof replacement>;
export type Invocation = z.infer<typeof invocation>;
export type PromotedInvocation = z.infer<typeof promotedInvocation>;
export type UnrepresentedInvocation = z.infer<typeof unrepresentedInvocation>;
export type EnvironmentChoice = z.infer<typeof environmentChoice>;
export type ProcessEnvironment = z.infer<typeof processEnvironment>;
export type PinnedInput = z.infer<typeof pinnedInput>;

/** `source` feed events: a project's pinned source fetched again onto this machine. */
export const sourceFetchEvent = z.object({
  repository: z.string(),
  commit: commitId,
  phase: z.enum(["fetching", "fetched", "failed"]),
  error: z._default(z.nullable(z.object({ message: z.string(), recovery: z.optional(z.string()) })), null),
});
