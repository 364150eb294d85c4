import { describe, expect, it } from "vitest";
import { emptyDocument, revisionOf } from "../testing/documents";
import type { HistoryEntry } from "./history";
import { EditHistory } from "./history";
import type { Snapshot } from "./snapshot";

const state = (title: string): Snapshot => ({
  document: emptyDocument(title),
  stateRevision: revisionOf(title),
  graphRevision: revisionOf("g"),
});

const entry = (cursor: number, from: string, to: string): HistoryEntry => ({
  cursor,
  source: cursor % 2 === 0 ? "agent" : "human",
  summary: `to ${to}`,
  before: state(from),
  after: state(to),
});

describe("EditHistory", () => {
  it("undoes the newest entry first and redoes in the original order", () => {
    const history = new EditHistory();
    history.record(entry(1, "a", "b"));
    history.record(entry(2, "b", "c"));
    expect(history.nextUndo?.cursor).toBe(2);
    history.undone(state("b"));
    expect(history.nextUndo?.cursor).toBe(1);
    expect(history.nextRedo?.cursor).toBe(2);
    history.undone(state("a"));
    expect(history.nextUndo).toBeUndefined();
    history.redone(state("b"));
    expect(history.nextRedo?.cursor).toBe(2);
    expect(history.list().map((x) => x.done)).toEqual([true, false]);
  });

  it("drops undone entries when a new edit arrives", () => {
    const history = new EditHistory();
    history.record(entry(1, "a", "b"));
    history.record(entry(2, "b", "c"));
    history.undone(state("b"));
    history.record(entry(4, "b", "d"));
    expect(history.nextRedo).toBeUndefined();
    expect(history.list().map((x) => x.entry.cursor)).toEqual([1, 4]);
  });

  it("keeps neighbouring entries joined at the state an undo or redo produced", () => {
    const history = new EditHistory();
    history.record(entry(1, "a", "b"));
    history.record(entry(2, "b", "c"));
    const produced = { ...state("b"), stateRevision: revisionOf("b, as re-created") };
    history.undone(produced);
    const [first, second] = history.list().map((x) => x.entry);
    expect(first?.after).toBe(produced);
    expect(second?.before).toBe(produced);
  });

  it("forgets the oldest entries beyond its capacity", () => {
    const history = new EditHistory(3);
    for (let i = 1; i <= 5; i++) history.record(entry(i, String(i - 1), String(i)));
    expect(history.list().map((x) => x.entry.cursor)).toEqual([3, 4, 5]);
  });
});
