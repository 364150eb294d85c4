/**
 * The runtime's routes as typed calls. Each names its schema and byte bound
 * so nothing reaches browser state unchecked.
 */
import type { z } from "zod/mini";
import type { HttpClient } from "./http";
import {
  MAX_DOCUMENT_REPLY_BYTES,
  MAX_EXPORT_BYTES,
  MAX_REPLY_BYTES,
  PACKAGE_TIMEOUT_MS,
  RUN_POLL_TIMEOUT_MS,
  RUN_WAIT_MS,
} from "./limits";
import * as s from "./schemas";
import type {
  ActivityPage,
  Assessment,
  CatalogPage,
  CleanupReport,
  CompileSummary,
  ConfigOption,
  ConfigValue,
  ConnectRequest,
  Download,
  EvidenceLookup,
  FeedPosition,
  GraphTransaction,
  LauncherList,
  OperatorReply,
  Rebound,
  RunStarted,
  RunStatus,
  SessionView,
  TransactionReply,
  WorkflowRevision,
  WorkflowView,
} from "./types";

/** Everything the workspace asks of the runtime; tests substitute a fake. */
export interface SomiteApi {
  workflow(signal?: AbortSignal): Promise<WorkflowView>;
  /** The graph of a recent state (404 `not_found` once the runtime no longer holds it). */
  workflowAt(stateRevision: string, signal?: AbortSignal): Promise<WorkflowRevision>;
  applyTransaction(transaction: GraphTransaction): Promise<TransactionReply>;
  /** Binds the graph as served to its location again after its files were changed by hand. */
  rebind(): Promise<Rebound>;
  readiness(signal?: AbortSignal): Promise<Assessment>;
  searchCatalog(query: string, limit: number, signal?: AbortSignal): Promise<CatalogPage>;
  operator(id: string, signal?: AbortSignal): Promise<OperatorReply>;
  /** The held events after a position (`undefined`: from the beginning). */
  activity(after: FeedPosition | undefined, signal?: AbortSignal): Promise<ActivityPage>;
}

/** A position as the runtime reads it (`?after=`): `<epoch>:<cursor>`, or `0` for the beginning. */
export function positionParam(position: FeedPosition | undefined): string {
  return position ? `${position.epoch}:${String(position.cursor)}` : "0";
}

export function createApi(http: HttpClient): SomiteApi {
  return {
    workflow: (signal) =>
      http.request({ path: "/api/workflow", schema: s.workflowView, maxBytes: MAX_DOCUMENT_REPLY_BYTES, signal }),
    workflowAt: (stateRevision, signal) =>
      http.request({
        path: `/api/workflow?${new URLSearchParams({ state_revision: stateRevision }).toString()}`,
        schema: s.workflowRevision,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
        signal,
      }),
    applyTransaction: (transaction) =>
      http.request({
        path: "/api/transactions",
        method: "POST",
        body: transaction,
        schema: s.transactionReply,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
      }),
    rebind: () =>
      http.request({ path: "/api/project/rebind", method: "POST", body: {}, schema: s.rebound, maxBytes: MAX_REPLY_BYTES }),
    readiness: (signal) =>
      http.request({ path: "/api/readiness", schema: s.assessment, maxBytes: MAX_DOCUMENT_REPLY_BYTES, signal }),
    searchCatalog: (query, limit, signal) =>
      http.request({
        path: `/api/catalog/search?${new URLSearchParams({ q: query, limit: String(limit) }).toString()}`,
        schema: s.catalogPage,
        maxBytes: MAX_REPLY_BYTES,
        signal,
      }),
    operator: (id, signal) =>
      http.request({
        path: `/api/catalog/operators/${encodeURIComponent(id)}`,
        schema: s.operatorReply,
        maxBytes: MAX_REPLY_BYTES,
        signal,
      }),
    activity: (after, signal) =>
      http.request({
        path: `/api/activity?${new URLSearchParams({ after: positionParam(after) }).toString()}`,
        schema: s.activityPage,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
        signal,
      }),
  };
}

/** Compile, export, runs, validations and evidence: what the Controls bar asks. */
export interface ControlsApi {
  compile(): Promise<CompileSummary>;
  exportZip(): Promise<Download>;
  startRun(idempotencyKey: string): Promise<RunStarted>;
  startValidation(idempotencyKey: string): Promise<RunStarted>;
  /** Long-polls: answers when the status has a revision other than `sinceRevision`, or after `waitMs`. */
  runStatus(runId: string, waitMs: number, sinceRevision: number | undefined, signal?: AbortSignal): Promise<RunStatus>;
  cancelRun(runId: string): Promise<RunStatus>;
  evidence(graphRevision: string, signal?: AbortSignal): Promise<EvidenceLookup>;
}

export function createControlsApi(http: HttpClient): ControlsApi {
  return {
    compile: () =>
      http.request({
        path: "/api/compile",
        method: "POST",
        body: {},
        schema: s.compileSummary,
        maxBytes: MAX_REPLY_BYTES,
        timeoutMs: PACKAGE_TIMEOUT_MS,
      }),
    exportZip: () =>
      http.download({
        path: "/api/export",
        body: {},
        contentType: "application/zip",
        maxBytes: MAX_EXPORT_BYTES,
        maxErrorBytes: MAX_DOCUMENT_REPLY_BYTES,
        fallbackName: "workflow.zip",
        timeoutMs: PACKAGE_TIMEOUT_MS,
      }),
    startRun: (key) =>
      http.request({
        path: "/api/runs",
        method: "POST",
        body: { idempotency_key: key },
        schema: s.runStarted,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
        timeoutMs: PACKAGE_TIMEOUT_MS,
      }),
    startValidation: (key) =>
      http.request({
        path: "/api/validations",
        method: "POST",
        body: { idempotency_key: key },
        schema: s.runStarted,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
        timeoutMs: PACKAGE_TIMEOUT_MS,
      }),
    runStatus: (runId, waitMs, sinceRevision, signal) => {
      const query = new URLSearchParams({ wait_ms: String(waitMs) });
      if (sinceRevision !== undefined) query.set("since_revision", String(sinceRevision));
      return http.request({
        path: `/api/runs/${encodeURIComponent(runId)}?${query.toString()}`,
        schema: s.runStatus,
        maxBytes: MAX_REPLY_BYTES,
        timeoutMs: waitMs + RUN_POLL_TIMEOUT_MS - RUN_WAIT_MS,
        signal,
      });
    },
    cancelRun: (runId) =>
      http.request({
        path: `/api/runs/${encodeURIComponent(runId)}/cancel`,
        method: "POST",
        body: {},
        schema: s.runStatus,
        maxBytes: MAX_REPLY_BYTES,
      }),
    evidence: (graphRevision, signal) =>
      http.request({
        path: `/api/evidence?${new URLSearchParams({ graph_revision: graphRevision }).toString()}`,
        schema: s.evidenceLookup,
        maxBytes: MAX_REPLY_BYTES,
        signal,
      }),
  };
}

/** The Agent panel's routes. */
export interface AgentApi {
  launchers(signal?: AbortSignal): Promise<LauncherList>;
  session(signal?: AbortSignal): Promise<SessionView>;
  connect(request: ConnectRequest): Promise<SessionView>;
  prompt(text: string): Promise<{ turn: number }>;
  cancel(): Promise<void>;
  answerPermission(permissionId: string, answer: { option_id: string } | { cancel: true }): Promise<void>;
  setConfig(configId: string, value: ConfigValue): Promise<ConfigOption[] | undefined>;
  disconnect(): Promise<CleanupReport>;
}

export function createAgentApi(http: HttpClient): AgentApi {
  const post = <T>(path: string, body: unknown, schema: z.ZodMiniType<T>) =>
    http.request({ path, method: "POST", body, schema, maxBytes: MAX_REPLY_BYTES });
  return {
    launchers: (signal) => http.request({ path: "/api/agent/launchers", schema: s.launcherList, maxBytes: MAX_REPLY_BYTES, signal }),
    session: (signal) => http.request({ path: "/api/agent/session", schema: s.sessionView, maxBytes: MAX_REPLY_BYTES, signal }),
    connect: (request) => post("/api/agent/connect", request, s.sessionView),
    prompt: (text) => post("/api/agent/prompt", { text }, s.promptReply),
    cancel: async () => {
      await post("/api/agent/cancel", {}, s.emptyReply);
    },
    answerPermission: async (permissionId, answer) => {
      await post(`/api/agent/permissions/${encodeURIComponent(permissionId)}`, answer, s.emptyReply);
    },
    setConfig: async (configId, value) => (await post("/api/agent/config", { config_id: configId, value }, s.configReply)).config_options,
    disconnect: async () => (await post("/api/agent/disconnect", {}, s.disconnectReply)).cleanup,
  };
}
