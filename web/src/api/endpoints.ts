/**
 * The runtime's routes as typed calls. Each names its schema and byte bound
 * so nothing reaches browser state unchecked.
 */
import type { HttpClient } from "./http";
import { MAX_DOCUMENT_REPLY_BYTES, MAX_REPLY_BYTES } from "./limits";
import * as s from "./schemas";
import type {
  ActivityPage,
  Assessment,
  CatalogPage,
  GraphTransaction,
  OperatorReply,
  TransactionReply,
  WorkflowView,
} from "./types";

/** Everything the workspace asks of the runtime; tests substitute a fake. */
export interface SomiteApi {
  workflow(signal?: AbortSignal): Promise<WorkflowView>;
  applyTransaction(transaction: GraphTransaction): Promise<TransactionReply>;
  readiness(signal?: AbortSignal): Promise<Assessment>;
  searchCatalog(query: string, limit: number, signal?: AbortSignal): Promise<CatalogPage>;
  operator(id: string, signal?: AbortSignal): Promise<OperatorReply>;
  activity(after: number, signal?: AbortSignal): Promise<ActivityPage>;
}

/**
 * Larger than any cursor the runtime will reach: asking for events after it
 * returns none, only `last_cursor` — the cheap way to learn where the feed is.
 */
const BEYOND_ANY_CURSOR = Number.MAX_SAFE_INTEGER;

export function createApi(http: HttpClient): SomiteApi {
  return {
    workflow: (signal) =>
      http.request({ path: "/api/workflow", schema: s.workflowView, maxBytes: MAX_DOCUMENT_REPLY_BYTES, signal }),
    applyTransaction: (transaction) =>
      http.request({
        path: "/api/transactions",
        method: "POST",
        body: transaction,
        schema: s.transactionReply,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
      }),
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
        path: `/api/activity?after=${String(after)}`,
        schema: s.activityPage,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
        signal,
      }),
  };
}

export async function currentFeedCursor(api: SomiteApi, signal?: AbortSignal): Promise<number> {
  return (await api.activity(BEYOND_ANY_CURSOR, signal)).last_cursor;
}
