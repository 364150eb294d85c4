/**
 * The public-data search as a typed call (`GET /api/data/search`). Its own
 * file, beside the runtime's other routes, because the data panel is the
 * only reader.
 */
import { dataSearchReply, type DataKind, type DataProvider, type DataSearchReply } from "../api/dataSchemas";
import type { HttpClient } from "../api/http";
import { MAX_REPLY_BYTES } from "../api/limits";

/** The query's bound, as the runtime enforces it (1..=200 characters after trimming). */
export const MAX_DATA_QUERY_CHARS = 200;
export const DATA_RESULT_LIMIT = 10;

export interface DataQuery {
  readonly query: string;
  readonly kind?: DataKind;
  readonly organism?: string;
  readonly provider?: DataProvider;
  readonly cursor?: string;
}

export interface DataApi {
  search(query: DataQuery, signal?: AbortSignal): Promise<DataSearchReply>;
}

/** The search's query string: only the fields that are set. */
export function dataSearchPath(query: DataQuery, limit = DATA_RESULT_LIMIT): string {
  const params = new URLSearchParams({ query: query.query.trim().slice(0, MAX_DATA_QUERY_CHARS) });
  if (query.kind) params.set("kind", query.kind);
  const organism = query.organism?.trim();
  if (organism) params.set("organism", organism);
  if (query.provider) params.set("provider", query.provider);
  params.set("limit", String(limit));
  if (query.cursor) params.set("cursor", query.cursor);
  return `/api/data/search?${params.toString()}`;
}

export function createDataApi(http: HttpClient): DataApi {
  return {
    search: (query, signal) =>
      http.request({ path: dataSearchPath(query), schema: dataSearchReply, maxBytes: MAX_REPLY_BYTES, signal }),
  };
}
