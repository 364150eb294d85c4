import { describe, expect, it } from "vitest";
import type { ClientError } from "./errors";
import type { FeedListener } from "./feed";
import { openFeed } from "./feed";
import { HttpClient } from "./http";
import type { FeedEvent, FeedGap, FeedReset } from "./types";

const event = (cursor: number, kind = "transaction", epoch = "e1") =>
  `event: ${kind}\nid: ${epoch}:${String(cursor)}\ndata: ${JSON.stringify({ cursor, kind, time_ms: 1, data: {} })}\n\n`;

/** A runtime whose stream answers each connection with the next script, then ends it. */
function streamingRuntime(scripts: string[][]) {
  const requested: string[] = [];
  const http = new HttpClient((input) => {
    requested.push(input);
    const chunks = scripts.shift() ?? [];
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        if (scripts.length > 0) controller.close();
      },
    });
    return Promise.resolve(new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } }));
  });
  return { http, requested };
}

function recorder() {
  const seen = {
    events: [] as FeedEvent[],
    gaps: [] as FeedGap[],
    resets: [] as FeedReset[],
    malformed: [] as ClientError[],
    statuses: [] as string[],
  };
  const listener: FeedListener = {
    event: (e) => seen.events.push(e),
    gap: (g) => seen.gaps.push(g),
    reset: (r) => seen.resets.push(r),
    status: (s) => seen.statuses.push(s),
    malformed: (e) => seen.malformed.push(e),
  };
  return { seen, listener };
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(condition()).toBe(true);
};

describe("openFeed", () => {
  it("delivers validated events of every kind, split across chunks", async () => {
    const whole = event(1) + event(2, "agent_message");
    const { http } = streamingRuntime([[whole.slice(0, 30), whole.slice(30, 95), whole.slice(95)]]);
    const { seen, listener } = recorder();
    const feed = openFeed(http, { epoch: "e1", cursor: 0 }, listener);
    await until(() => seen.events.length === 2);
    feed.close();
    expect(seen.events.map((e) => [e.cursor, e.kind])).toEqual([
      [1, "transaction"],
      [2, "agent_message"],
    ]);
    expect(seen.statuses[0]).toBe("live");
  });

  it("reports a gap and resumes after it when the stream reconnects", async () => {
    const gap = `event: gap\nid: e1:9\ndata: ${JSON.stringify({ after: 3, first_available: 10 })}\n\n`;
    const { http, requested } = streamingRuntime([[event(3), gap, event(10)], [event(11)]]);
    const { seen, listener } = recorder();
    const feed = openFeed(http, { epoch: "e1", cursor: 2 }, listener);
    await until(() => seen.events.length === 3);
    feed.close();
    expect(seen.gaps).toEqual([{ after: 3, first_available: 10 }]);
    expect(requested).toEqual(["/api/activity/stream?after=e1%3A2", "/api/activity/stream?after=e1%3A10"]);
    expect(seen.statuses).toContain("reconnecting");
  });

  it("reports a reset and follows the new epoch from its cursor", async () => {
    // The runtime restarted: the tab's position e1:7 means nothing to it.
    const reset = `event: reset\nid: e2:0\ndata: ${JSON.stringify({ epoch: "e2", cursor: 0 })}\n\n`;
    const { http, requested } = streamingRuntime([[reset, event(1, "transaction", "e2")], [event(2, "transaction", "e2")]]);
    const { seen, listener } = recorder();
    const feed = openFeed(http, { epoch: "e1", cursor: 7 }, listener);
    await until(() => seen.events.length === 2);
    feed.close();
    expect(seen.resets).toEqual([{ epoch: "e2", cursor: 0 }]);
    expect(seen.events.map((e) => e.cursor)).toEqual([1, 2]);
    expect(requested).toEqual(["/api/activity/stream?after=e1%3A7", "/api/activity/stream?after=e2%3A1"]);
  });

  it("rejects an event that breaks its contract without delivering it", async () => {
    const bad = `event: transaction\nid: e1:1\ndata: {"cursor":"one","kind":"transaction"}\n\n`;
    const { http } = streamingRuntime([[bad, "event: transaction\ndata: not json\n\n", event(2)]]);
    const { seen, listener } = recorder();
    const feed = openFeed(http, { epoch: "e1", cursor: 0 }, listener);
    await until(() => seen.events.length === 1);
    feed.close();
    expect(seen.events.map((e) => e.cursor)).toEqual([2]);
    expect(seen.malformed.map((e) => e.message)).toEqual([
      expect.stringContaining("does not match its contract at `cursor`"),
      expect.stringContaining("not JSON"),
    ]);
  });
});
