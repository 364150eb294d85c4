import { describe, expect, it } from "vitest";
import type { WorkflowDocument } from "../api/types";
import { emptyDocument, revisionOf } from "../testing/documents";
import type { SequencedEvent } from "./sequencer";
import { FeedSequencer } from "./sequencer";
import type { Snapshot } from "./snapshot";

const snapshot = (title: string): Snapshot => {
  const document: WorkflowDocument = emptyDocument(title);
  return { document, stateRevision: revisionOf(title), graphRevision: revisionOf("graph") };
};

/** A transaction at `cursor` that renames the workflow from `from` to `to`. */
const rename = (cursor: number, from: string, to: string, source: "human" | "agent" = "human"): SequencedEvent => ({
  cursor,
  transaction: {
    source,
    summary: `Rename to ${to}`,
    previousStateRevision: revisionOf(from),
    stateRevision: revisionOf(to),
    graphRevision: revisionOf("graph"),
    document: emptyDocument(to),
  },
});

describe("FeedSequencer", () => {
  it("applies consecutive transactions in cursor order", () => {
    const sequencer = new FeedSequencer(0, snapshot("a"));
    expect(sequencer.offer(rename(1, "a", "b")).map((t) => t.cursor)).toEqual([1]);
    expect(sequencer.offer(rename(2, "b", "c")).map((t) => t.cursor)).toEqual([2]);
    expect(sequencer.snapshot.document.title).toBe("c");
    expect(sequencer.cursor).toBe(2);
  });

  it("applies the same cursor only once, whether it comes from the reply or the feed", () => {
    const sequencer = new FeedSequencer(0, snapshot("a"));
    expect(sequencer.offer(rename(1, "a", "b"))).toHaveLength(1);
    expect(sequencer.offer(rename(1, "a", "b"))).toEqual([]);
    expect(sequencer.offer(rename(1, "a", "b"))).toEqual([]);
    expect(sequencer.cursor).toBe(1);
  });

  it("holds an event that arrives ahead of its predecessor, then applies both in order", () => {
    const sequencer = new FeedSequencer(0, snapshot("a"));
    expect(sequencer.offer(rename(2, "b", "c"))).toEqual([]);
    expect(sequencer.hasGap).toBe(true);
    expect(sequencer.snapshot.document.title).toBe("a");
    // A duplicate of the early event while it waits changes nothing.
    expect(sequencer.offer(rename(2, "b", "c"))).toEqual([]);
    const applied = sequencer.offer(rename(1, "a", "b"));
    expect(applied.map((t) => [t.cursor, t.before.document.title, t.after.document.title])).toEqual([
      [1, "a", "b"],
      [2, "b", "c"],
    ]);
    expect(applied.every((t) => t.continuous)).toBe(true);
    expect(sequencer.hasGap).toBe(false);
  });

  it("advances over feed events of other kinds without touching the graph", () => {
    const sequencer = new FeedSequencer(0, snapshot("a"));
    expect(sequencer.offer(rename(2, "a", "b"))).toEqual([]);
    const applied = sequencer.offer({ cursor: 1 });
    expect(applied.map((t) => t.cursor)).toEqual([2]);
    expect(sequencer.cursor).toBe(2);
  });

  it("drops events at or before the cursor it started from", () => {
    const sequencer = new FeedSequencer(5, snapshot("a"));
    expect(sequencer.offer(rename(5, "z", "a"))).toEqual([]);
    expect(sequencer.offer(rename(3, "y", "z"))).toEqual([]);
    expect(sequencer.offer(rename(6, "a", "b"))).toHaveLength(1);
  });

  it("marks a transaction whose base is not the held state as discontinuous and adopts it", () => {
    const sequencer = new FeedSequencer(0, snapshot("a"));
    const [applied] = sequencer.offer(rename(1, "elsewhere", "b"));
    expect(applied?.continuous).toBe(false);
    expect(sequencer.snapshot.document.title).toBe("b");
  });

  it("buffers while held and releases in order", () => {
    const sequencer = new FeedSequencer(0, snapshot("a"));
    sequencer.hold();
    expect(sequencer.offer(rename(1, "a", "b", "agent"))).toEqual([]);
    expect(sequencer.hasGap).toBe(false);
    expect(sequencer.offer(rename(2, "b", "c"))).toEqual([]);
    expect(sequencer.release().map((t) => [t.cursor, t.source])).toEqual([
      [1, "agent"],
      [2, "human"],
    ]);
  });
});
