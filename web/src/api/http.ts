/**
 * The one HTTP client the workspace uses.
 *
 * Every call is same-origin: paths are relative `/api/...` URLs, so the page
 * only ever talks to the loopback runtime that served it (the runtime checks
 * Host and Origin too). Every reply is read up to a byte bound and validated
 * against its schema before the caller sees it; a reply that fails either
 * check is refused with a `ClientError` and never reaches browser state.
 */
import type { z } from "zod/mini";
import { ApiError, ClientError } from "./errors";
import { REQUEST_TIMEOUT_MS } from "./limits";
import { errorEnvelope } from "./schemas";
import { validate } from "./validate";

export interface JsonRequest<T> {
  readonly path: string;
  readonly method?: "GET" | "POST";
  readonly body?: unknown;
  readonly schema: z.ZodMiniType<T>;
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
  /** Overrides the default timeout, e.g. for a long-poll that waits on purpose. */
  readonly timeoutMs?: number;
}

/** A POST whose success is a file (a zip), not JSON; failures are still the JSON envelope. */
export interface DownloadRequest {
  readonly path: string;
  readonly body: unknown;
  /** The only content type accepted for the file. */
  readonly contentType: string;
  readonly maxBytes: number;
  /** The bound on an error envelope, which is JSON. */
  readonly maxErrorBytes: number;
  readonly fallbackName: string;
  readonly timeoutMs?: number;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export class HttpClient {
  constructor(private readonly fetchImpl: FetchLike = (input, init) => fetch(input, init)) {}

  async request<T>(request: JsonRequest<T>): Promise<T> {
    const method = request.method ?? "GET";
    const route = `${method} ${request.path.split("?")[0] ?? request.path}`;
    assertSameOrigin(request.path);
    const timeoutMs = request.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await this.fetchImpl(request.path, {
        method,
        headers:
          request.body === undefined
            ? { Accept: "application/json" }
            : { Accept: "application/json", "Content-Type": "application/json" },
        body: request.body === undefined ? null : JSON.stringify(request.body),
        credentials: "same-origin",
        cache: "no-store",
        signal,
      });
    } catch (error) {
      throw transportFailure(route, error, timeout, timeoutMs);
    }
    let text: string;
    try {
      text = decodeUtf8(await readBounded(response, request.maxBytes, route), route);
    } catch (error) {
      if (error instanceof ClientError) throw error;
      throw transportFailure(route, error, timeout, timeoutMs);
    }
    const json = parseJson(text, route);
    if (!response.ok) throw apiError(route, response.status, json);
    return validate(request.schema, json, route, "a reply");
  }

  /**
   * Posts `body` and reads a file back, bounded like any reply; the runtime's
   * JSON refusal is turned into an `ApiError` exactly as `request` does.
   */
  async download(request: DownloadRequest): Promise<{ blob: Blob; filename: string }> {
    const route = `POST ${request.path.split("?")[0] ?? request.path}`;
    assertSameOrigin(request.path);
    const timeoutMs = request.timeoutMs ?? REQUEST_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    try {
      response = await this.fetchImpl(request.path, {
        method: "POST",
        headers: { Accept: `${request.contentType}, application/json`, "Content-Type": "application/json" },
        body: JSON.stringify(request.body),
        credentials: "same-origin",
        cache: "no-store",
        signal: timeout,
      });
    } catch (error) {
      throw transportFailure(route, error, timeout, timeoutMs);
    }
    let bytes: Uint8Array;
    try {
      bytes = await readBounded(response, response.ok ? request.maxBytes : request.maxErrorBytes, route);
    } catch (error) {
      if (error instanceof ClientError) throw error;
      throw transportFailure(route, error, timeout, timeoutMs);
    }
    if (!response.ok) throw apiError(route, response.status, parseJson(decodeUtf8(bytes, route), route));
    const type = (response.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== request.contentType) {
      throw new ClientError(route, "malformed", `${route} sent ${type || "a reply without a type"}, not ${request.contentType}`);
    }
    const filename = attachmentName(response.headers.get("content-disposition")) ?? request.fallbackName;
    return { blob: new Blob([bytes as BlobPart], { type: request.contentType }), filename };
  }

  /**
   * Opens a long-lived text stream (the activity feed). Same-origin rules as
   * `request`; bounding each message is the reader's job, since the stream
   * as a whole never ends.
   */
  async openStream(path: string, signal: AbortSignal): Promise<ReadableStreamDefaultReader<Uint8Array>> {
    const route = `GET ${path.split("?")[0] ?? path}`;
    assertSameOrigin(path);
    let response: Response;
    try {
      response = await this.fetchImpl(path, {
        headers: { Accept: "text/event-stream" },
        credentials: "same-origin",
        cache: "no-store",
        signal,
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === "AbortError") throw error;
      throw new ClientError(route, "network", `${route} could not reach the Somite runtime`);
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new ClientError(route, "network", `${route} answered HTTP ${response.status}`);
    }
    return response.body.getReader();
  }
}

/** Only relative `/api/` paths: the client has no way to address another origin. */
function assertSameOrigin(path: string): void {
  if (!path.startsWith("/api/") || path.startsWith("//")) {
    throw new ClientError(path, "network", `refusing to call \`${path}\`: only /api/ routes of this runtime are allowed`);
  }
}

function apiError(route: string, status: number, json: unknown): ApiError {
  const envelope = validate(errorEnvelope, json, route, `an error (HTTP ${String(status)})`);
  return new ApiError(route, status, envelope.code, envelope.message, envelope.recovery, envelope.details);
}

/**
 * The file name of a `Content-Disposition: attachment; filename="…"`,
 * reduced to a safe base name; `undefined` when there is none.
 */
export function attachmentName(header: string | null): string | undefined {
  if (!header) return undefined;
  const match = /filename="([^"]*)"/i.exec(header) ?? /filename=([^;\s]+)/i.exec(header);
  const raw = match?.[1];
  if (!raw) return undefined;
  const base = raw.split(/[\\/]/).pop() ?? "";
  const safe = base.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "").slice(0, 128);
  return safe === "" ? undefined : safe;
}

function transportFailure(route: string, error: unknown, timeout: AbortSignal, timeoutMs = REQUEST_TIMEOUT_MS): Error {
  if (timeout.aborted) {
    return new ClientError(route, "timeout", `${route} did not answer within ${String(timeoutMs / 1000)} s`);
  }
  if (error instanceof DOMException && error.name === "AbortError") return error;
  return new ClientError(route, "network", `${route} could not reach the Somite runtime`);
}

/**
 * Reads a body, refusing it as soon as it exceeds `maxBytes` (a declared
 * Content-Length is checked before anything is read).
 */
async function readBounded(response: Response, maxBytes: number, route: string): Promise<Uint8Array> {
  const tooLarge = () =>
    new ClientError(route, "too_large", `${route} sent a reply larger than ${formatBytes(maxBytes)}; it was refused`);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concat(chunks, total);
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function decodeUtf8(bytes: Uint8Array, route: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ClientError(route, "malformed", `${route} sent a reply that is not UTF-8 text`);
  }
}

export function parseJson(text: string, route: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ClientError(route, "malformed", `${route} sent a reply that is not JSON`);
  }
}

function formatBytes(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MiB`;
}
