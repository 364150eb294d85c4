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
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export class HttpClient {
  constructor(private readonly fetchImpl: FetchLike = (input, init) => fetch(input, init)) {}

  async request<T>(request: JsonRequest<T>): Promise<T> {
    const method = request.method ?? "GET";
    const route = `${method} ${request.path.split("?")[0] ?? request.path}`;
    assertSameOrigin(request.path);
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
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
      throw transportFailure(route, error, timeout);
    }
    let text: string;
    try {
      text = await readBounded(response, request.maxBytes, route);
    } catch (error) {
      if (error instanceof ClientError) throw error;
      throw transportFailure(route, error, timeout);
    }
    const json = parseJson(text, route);
    if (!response.ok) {
      const envelope = validate(errorEnvelope, json, route, `an error (HTTP ${response.status})`);
      throw new ApiError(
        route,
        response.status,
        envelope.code,
        envelope.message,
        envelope.recovery,
        envelope.details,
      );
    }
    return validate(request.schema, json, route, "a reply");
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

function transportFailure(route: string, error: unknown, timeout: AbortSignal): Error {
  if (timeout.aborted) {
    return new ClientError(route, "timeout", `${route} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
  }
  if (error instanceof DOMException && error.name === "AbortError") return error;
  return new ClientError(route, "network", `${route} could not reach the Somite runtime`);
}

/**
 * Reads a body as UTF-8 text, refusing it as soon as it exceeds `maxBytes`
 * (a declared Content-Length is checked before anything is read).
 */
async function readBounded(response: Response, maxBytes: number, route: string): Promise<string> {
  const tooLarge = () =>
    new ClientError(route, "too_large", `${route} sent a reply larger than ${formatBytes(maxBytes)}; it was refused`);
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return "";
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
  return decodeUtf8(concat(chunks, total), route);
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
