/**
 * The live activity feed (`GET /api/activity/stream`), validated event by
 * event, with reconnection that resumes after the last cursor received.
 *
 * Fetch-based rather than `EventSource`: an EventSource delivers only the
 * event names it was told to listen for, but every feed event advances the
 * cursor the sequencer counts, so all of them must be seen; and a fetch
 * stream can be bounded per event.
 */
import { ClientError } from "./errors";
import type { HttpClient } from "./http";
import { parseJson } from "./http";
import { MAX_FEED_EVENT_BYTES } from "./limits";
import { feedEvent, feedGap } from "./schemas";
import { SseParser } from "./sse";
import type { FeedEvent, FeedGap } from "./types";
import { validate } from "./validate";

export interface FeedListener {
  event(event: FeedEvent): void;
  gap(gap: FeedGap): void;
  /** `live` once the stream is open; `reconnecting` while it is being reopened. */
  status(status: "live" | "reconnecting"): void;
  /** An event that broke its contract; it was not applied. */
  malformed(error: ClientError): void;
}

export interface FeedConnection {
  close(): void;
}

const ROUTE = "GET /api/activity/stream";
const RETRY_MS = [250, 500, 1000, 2000, 4000] as const;

export function openFeed(http: HttpClient, after: number, listener: FeedListener): FeedConnection {
  const controller = new AbortController();
  const closed = () => controller.signal.aborted;
  let cursor = after;
  let attempt = 0;

  const run = async (): Promise<void> => {
    while (!closed()) {
      try {
        const reader = await http.openStream(`/api/activity/stream?after=${String(cursor)}`, controller.signal);
        attempt = 0;
        listener.status("live");
        await pump(reader, (message) => {
          cursor = Math.max(cursor, message.cursor);
        });
      } catch (error) {
        if (closed()) return;
        if (error instanceof ClientError && error.failure === "too_large") listener.malformed(error);
      }
      if (closed()) return;
      listener.status("reconnecting");
      await delay(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)] ?? 4000, controller.signal);
      attempt += 1;
    }
  };

  const pump = async (
    reader: ReadableStreamDefaultReader<Uint8Array>,
    advance: (position: { cursor: number }) => void,
  ): Promise<void> => {
    const decoder = new TextDecoder();
    const parser = new SseParser(MAX_FEED_EVENT_BYTES);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      let messages;
      try {
        messages = parser.push(decoder.decode(value, { stream: true }));
      } catch {
        await reader.cancel();
        throw new ClientError(ROUTE, "too_large", `${ROUTE} sent an event larger than its bound; it was refused`);
      }
      for (const message of messages) {
        try {
          const json = parseJson(message.data, ROUTE);
          if (message.event === "gap") {
            const gap = validate(feedGap, json, ROUTE, "a gap marker");
            advance({ cursor: gap.first_available - 1 });
            listener.gap(gap);
          } else {
            const event = validate(feedEvent, json, ROUTE, `a \`${message.event}\` event`);
            advance(event);
            listener.event(event);
          }
        } catch (error) {
          if (error instanceof ClientError) listener.malformed(error);
          else throw error;
        }
      }
    }
  };

  void run();
  return { close: () => { controller.abort(); } };
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
