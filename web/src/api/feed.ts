/**
 * The live activity feed (`GET /api/activity/stream`), validated event by
 * event, with reconnection that resumes after the last position received.
 *
 * A position is `<epoch>:<cursor>`: cursors restart with every runtime
 * process, so a position from before a restart is answered with a `reset`
 * event (the new epoch and cursor) rather than silence; the listener reloads
 * and the stream goes on from there.
 *
 * Fetch-based rather than `EventSource`: an EventSource delivers only the
 * event names it was told to listen for, but every feed event advances the
 * cursor the sequencer counts, so all of them must be seen; and a fetch
 * stream can be bounded per event.
 */
import { positionParam } from "./endpoints";
import { ClientError } from "./errors";
import type { HttpClient } from "./http";
import { parseJson } from "./http";
import { MAX_FEED_EVENT_BYTES } from "./limits";
import { feedEvent, feedGap, feedReset } from "./schemas";
import { SseParser } from "./sse";
import type { FeedEvent, FeedGap, FeedPosition, FeedReset } from "./types";
import { validate } from "./validate";

export interface FeedListener {
  event(event: FeedEvent): void;
  gap(gap: FeedGap): void;
  /** The position was not one of this runtime process's feed: reload everything. */
  reset(reset: FeedReset): void;
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

export function openFeed(http: HttpClient, after: FeedPosition, listener: FeedListener): FeedConnection {
  const controller = new AbortController();
  const closed = () => controller.signal.aborted;
  let position = after;
  let attempt = 0;

  const run = async (): Promise<void> => {
    while (!closed()) {
      try {
        const query = new URLSearchParams({ after: positionParam(position) }).toString();
        const reader = await http.openStream(`/api/activity/stream?${query}`, controller.signal);
        attempt = 0;
        listener.status("live");
        await pump(reader, (next) => {
          position = next.epoch === position.epoch ? { epoch: position.epoch, cursor: Math.max(position.cursor, next.cursor) } : next;
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
    advance: (position: FeedPosition) => void,
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
          if (message.event === "reset") {
            const reset = validate(feedReset, json, ROUTE, "a reset marker");
            advance(reset);
            listener.reset(reset);
          } else if (message.event === "gap") {
            const gap = validate(feedGap, json, ROUTE, "a gap marker");
            advance({ epoch: position.epoch, cursor: gap.first_available - 1 });
            listener.gap(gap);
          } else {
            const event = validate(feedEvent, json, ROUTE, `a \`${message.event}\` event`);
            advance({ epoch: position.epoch, cursor: event.cursor });
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
