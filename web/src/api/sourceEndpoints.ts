/**
 * The source-workflow routes as typed calls (issues 18 and 22): search the
 * nf-core catalog, resolve a pipeline or a GitHub repository into the one
 * transaction that places its pinned node, read a node's outline, and
 * promote its replaced invocations into a native variant (one transaction
 * the runtime composes). Replacing an invocation is an ordinary operation
 * of `POST /api/transactions`, sent through the workspace like any edit.
 */
import type { HttpClient } from "./http";
import { MAX_DOCUMENT_REPLY_BYTES, MAX_REPLY_BYTES, PACKAGE_TIMEOUT_MS } from "./limits";
import { transactionReply } from "./schemas";
import type { NfcoreSearchPage, OutlineReply } from "./sourceSchemas";
import { nfcoreSearchPage, outlineReply } from "./sourceSchemas";
import type { TransactionReply } from "./types";

/** The compare-and-swap half of a resolve request; the workspace fills it in. */
export interface ResolveBase {
  readonly base_state_revision: string;
  readonly idempotency_key: string;
}

export type ResolveTarget =
  | { readonly provider: "nf-core"; readonly pipeline: string; readonly release: string }
  | { readonly provider: "github"; readonly repository: string; readonly ref: string };

export interface SourceApi {
  searchNfcore(query: string, limit: number, signal?: AbortSignal): Promise<NfcoreSearchPage>;
  resolve(target: ResolveTarget, base: ResolveBase): Promise<TransactionReply>;
  outline(nodeId: string, signal?: AbortSignal): Promise<OutlineReply>;
  promote(nodeId: string, invocations: readonly string[], base: ResolveBase): Promise<TransactionReply>;
  /** Downloads the remote input `param` names once and pins the parameter to the copy. */
  pin(nodeId: string, param: string, base: ResolveBase): Promise<TransactionReply>;
}

export function createSourceApi(http: HttpClient): SourceApi {
  return {
    searchNfcore: (query, limit, signal) =>
      http.request({
        path: `/api/source/nfcore/search?${new URLSearchParams({ q: query, limit: String(limit) }).toString()}`,
        schema: nfcoreSearchPage,
        maxBytes: MAX_REPLY_BYTES,
        signal,
      }),
    resolve: (target, base) =>
      http.request({
        path: target.provider === "nf-core" ? "/api/source/nfcore/resolve" : "/api/source/github/resolve",
        method: "POST",
        body:
          target.provider === "nf-core"
            ? { pipeline: target.pipeline, release: target.release, ...base }
            : { repository: target.repository, ref: target.ref, ...base },
        schema: transactionReply,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
        // Fetching and verifying an archive is slower than an edit.
        timeoutMs: PACKAGE_TIMEOUT_MS,
      }),
    outline: (nodeId, signal) =>
      http.request({
        path: `/api/source/nodes/${encodeURIComponent(nodeId)}/outline`,
        schema: outlineReply,
        maxBytes: MAX_REPLY_BYTES,
        signal,
        timeoutMs: PACKAGE_TIMEOUT_MS,
      }),
    promote: (nodeId, invocations, base) =>
      http.request({
        path: `/api/source/nodes/${encodeURIComponent(nodeId)}/promote`,
        method: "POST",
        body: { ...base, invocations },
        schema: transactionReply,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
        // The runtime reads the pinned tree again to lay out the variant.
        timeoutMs: PACKAGE_TIMEOUT_MS,
      }),
    pin: (nodeId, param, base) =>
      http.request({
        path: `/api/source/nodes/${encodeURIComponent(nodeId)}/pin`,
        method: "POST",
        body: { ...base, param },
        schema: transactionReply,
        maxBytes: MAX_DOCUMENT_REPLY_BYTES,
        // A download of the file first.
        timeoutMs: PACKAGE_TIMEOUT_MS,
      }),
  };
}
