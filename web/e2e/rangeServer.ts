/**
 * A loopback file server for the resource journey: it serves one file with
 * HTTP Range support (`206` for `bytes=N-`, `416` past the end), paced in
 * small chunks so progress can be watched, and it can hold a transfer after
 * a given number of bytes until the journey releases it — the deterministic
 * way to cancel mid-transfer and resume. It records every request's Range.
 */
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RangeServer {
  readonly url: string;
  /** The `Range` header of each request, `undefined` when none was sent. */
  readonly ranges: (string | undefined)[];
  /** Stops every transfer after `bytes` of the file until `release` is called. */
  holdAt(bytes: number): void;
  release(): void;
  close(): Promise<void>;
}

export interface RangeServerOptions {
  readonly path: string;
  readonly body: Buffer;
  readonly chunkBytes: number;
  readonly chunkDelayMs: number;
}

export async function startRangeServer(options: RangeServerOptions): Promise<RangeServer> {
  const ranges: (string | undefined)[] = [];
  let holdAt: number | undefined;
  let released: Promise<void> = Promise.resolve();
  let releaseHold: () => void = () => undefined;

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.url !== options.path || (request.method !== "GET" && request.method !== "HEAD")) {
      response.writeHead(404).end();
      return;
    }
    ranges.push(request.headers.range);
    const total = options.body.length;
    let start = 0;
    const range = request.headers.range;
    if (range !== undefined) {
      const match = /^bytes=(\d+)-$/.exec(range);
      start = match?.[1] === undefined ? Number.NaN : Number.parseInt(match[1], 10);
      if (!Number.isFinite(start) || start >= total) {
        response.writeHead(416, { "content-range": `bytes */${String(total)}` }).end();
        return;
      }
      response.writeHead(206, {
        "content-type": "application/gzip",
        "content-length": String(total - start),
        "content-range": `bytes ${String(start)}-${String(total - 1)}/${String(total)}`,
        "accept-ranges": "bytes",
      });
    } else {
      response.writeHead(200, { "content-type": "application/gzip", "content-length": String(total), "accept-ranges": "bytes" });
    }
    if (request.method === "HEAD") {
      response.end();
      return;
    }
    // `destroyed` turns true when the client goes away (a cancelled install).
    for (let offset = start; offset < total && !response.destroyed; ) {
      if (holdAt !== undefined && offset >= holdAt) {
        await released;
        continue;
      }
      const end = Math.min(total, offset + options.chunkBytes, holdAt !== undefined && offset < holdAt ? holdAt : total);
      response.write(options.body.subarray(offset, end));
      offset = end;
      await new Promise((resolve) => setTimeout(resolve, options.chunkDelayMs));
    }
    response.end();
  };

  const server: Server = createServer((request, response) => {
    void serve(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}${options.path}`,
    ranges,
    holdAt: (bytes) => {
      holdAt = bytes;
      released = new Promise((resolve) => (releaseHold = resolve));
    },
    release: () => {
      holdAt = undefined;
      releaseHold();
    },
    close: () =>
      new Promise((resolve) => {
        releaseHold();
        server.closeAllConnections();
        server.close(() => { resolve(); });
      }),
  };
}
