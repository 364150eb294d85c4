/** The wire types the workspace reads (inferred from the schemas) and sends. */
import type { z } from "zod/mini";
import type * as s from "./schemas";
import type { EnvironmentChoice } from "./sourceSchemas";

export type PortSpec = z.infer<typeof s.portSpec>;
export type WorkflowNode = z.infer<typeof s.workflowNode>;
export type WorkflowEdge = z.infer<typeof s.workflowEdge>;
export type WorkflowNote = z.infer<typeof s.workflowNote>;
export type WorkflowDocument = z.infer<typeof s.workflowDocument>;
export type VariantOrigin = z.infer<typeof s.variantOrigin>;
export type WorkflowView = z.infer<typeof s.workflowView>;
export type WorkflowRevision = z.infer<typeof s.workflowRevision>;
export type Rebound = z.infer<typeof s.rebound>;
export type TransactionReply = z.infer<typeof s.transactionReply>;
export type FeedEvent = z.infer<typeof s.feedEvent>;
export type FeedGap = z.infer<typeof s.feedGap>;
export type FeedReset = z.infer<typeof s.feedReset>;
export type TransactionEventData = z.infer<typeof s.transactionEventData>;

/**
 * A place in one server process's feed. Sent back as `<epoch>:<cursor>`
 * (`?after=`); a position of another process is answered with a reset.
 */
export interface FeedPosition {
  readonly epoch: string;
  readonly cursor: number;
}
export type ActivityPage = z.infer<typeof s.activityPage>;
export type CatalogMatch = z.infer<typeof s.catalogMatch>;
export type CatalogPage = z.infer<typeof s.catalogPage>;
export type ParamSpec = z.infer<typeof s.paramSpec>;
export type OperatorReply = z.infer<typeof s.operatorReply>;
export type Assessment = z.infer<typeof s.assessment>;
export type ReadinessItem = z.infer<typeof s.readinessItem>;
export type ReadinessResolution = z.infer<typeof s.readinessResolution>;
export type RequirementEvidence = z.infer<typeof s.requirementEvidence>;
export type NodeAssessment = z.infer<typeof s.nodeAssessment>;
export type ItemKind = z.infer<typeof s.itemKind>;
export type ParamValue = WorkflowNode["params"][string];

export type CompileSummary = z.infer<typeof s.compileSummary>;
export type RunKind = z.infer<typeof s.runKind>;
export type RunPhase = z.infer<typeof s.runPhase>;
export type NodeRunState = z.infer<typeof s.nodeRunState>;
export type RunStarted = z.infer<typeof s.runStarted>;
export type RunStatus = z.infer<typeof s.runStatus>;
export type EvidenceLookup = z.infer<typeof s.evidenceLookup>;
export type EvidenceReceipt = z.infer<typeof s.evidenceReceipt>;
export type Launcher = z.infer<typeof s.launcher>;
export type LauncherList = z.infer<typeof s.launcherList>;
export type ConfigOption = z.infer<typeof s.configOption>;
export type ToolCallView = z.infer<typeof s.toolCallView>;
export type PendingPermission = z.infer<typeof s.pendingPermission>;
export type PermissionChoice = z.infer<typeof s.permissionChoice>;
export type EndReason = z.infer<typeof s.endReason>;
export type CleanupReport = z.infer<typeof s.cleanupReport>;
export type SessionView = z.infer<typeof s.sessionView>;
export type AgentEventData = z.infer<typeof s.agentEventData>;
export type ConfigValue = string | boolean;

/** How the panel asks for an agent: a registry launcher, or the user's own argv. */
export type ConnectRequest = { readonly launcher: string } | { readonly command: readonly string[] };

/** A downloaded file: its bytes and the name the runtime gave it. */
export interface Download {
  readonly blob: Blob;
  readonly filename: string;
}

/** The closed operation shapes of a GraphTransaction (docs/http-api.md). */
export type Operation =
  | { op: "add_operator"; node_id: string; operator_id: string; params?: Record<string, ParamValue>; x: number; y: number }
  | { op: "remove_operator"; node_id: string }
  | { op: "set_param"; node_id: string; param: string; value: ParamValue }
  | { op: "unset_param"; node_id: string; param: string }
  | { op: "connect"; edge_id: string; from_node: string; from_port: string; to_node: string; to_port: string }
  | { op: "disconnect"; edge_id: string }
  | { op: "move"; node_id: string; x: number; y: number }
  | { op: "add_note"; note_id: string; text: string; x: number; y: number }
  | { op: "edit_note"; note_id: string; text: string }
  | { op: "remove_note"; note_id: string }
  | { op: "set_title"; title: string }
  // A source node's process invocation (issue 22): replaced by a catalog
  // operator (maps from the invocation's port to the operator's; omitted,
  // matched by type), restored, and a promoted variant turned back.
  | {
      op: "replace_invocation";
      node_id: string;
      invocation: string;
      operator_id: string;
      inputs?: Record<string, string>;
      outputs?: Record<string, string>;
    }
  | { op: "restore_invocation"; node_id: string; invocation: string }
  // A process the pipeline gives no Pixi environment, given one (issue 35).
  | { op: "set_process_environment"; node_id: string; process: string; choice: EnvironmentChoice }
  | { op: "unset_process_environment"; node_id: string; process: string }
  | { op: "revert_variant" };

export interface GraphTransaction {
  readonly base_state_revision: string;
  readonly idempotency_key: string;
  readonly summary: string;
  readonly operations: readonly Operation[];
}
