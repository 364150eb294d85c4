/**
 * One linear edit history for the canvas, human and agent edits alike.
 *
 * Every transaction the feed applies becomes one entry, so Undo reverses
 * edits one at a time in the order they were committed, whoever made them.
 * Undo and redo themselves are transactions too, but they move the position
 * instead of adding entries. Consecutive entries share their boundary state
 * (`entries[i].after` is `entries[i + 1].before`), which is what lets an undo
 * be checked against the live state before it is sent.
 */
import type { Snapshot } from "./snapshot";

export interface HistoryEntry {
  readonly cursor: number;
  readonly source: "human" | "agent";
  readonly summary: string;
  readonly before: Snapshot;
  readonly after: Snapshot;
}

/** Enough to step back through a working session; older entries drop off. */
const HISTORY_CAPACITY = 200;

export class EditHistory {
  private entries: HistoryEntry[] = [];
  /** entries[0 .. position) are done; entries[position ..] are undone. */
  private position = 0;

  constructor(private readonly capacity = HISTORY_CAPACITY) {}

  /** A new edit: it becomes the one to undo, and anything undone is dropped. */
  record(entry: HistoryEntry): void {
    this.entries = [...this.entries.slice(0, this.position), entry].slice(-this.capacity);
    this.position = this.entries.length;
  }

  clear(): void {
    this.entries = [];
    this.position = 0;
  }

  get nextUndo(): HistoryEntry | undefined {
    return this.entries[this.position - 1];
  }

  get nextRedo(): HistoryEntry | undefined {
    return this.entries[this.position];
  }

  /** The undo of `nextUndo` was committed and produced `result`. */
  undone(result: Snapshot): void {
    const index = this.position - 1;
    const entry = this.entries[index];
    if (!entry) return;
    this.replace(index, { ...entry, before: result });
    const previous = this.entries[index - 1];
    if (previous) this.replace(index - 1, { ...previous, after: result });
    this.position = index;
  }

  /** The redo of `nextRedo` was committed and produced `result`. */
  redone(result: Snapshot): void {
    const index = this.position;
    const entry = this.entries[index];
    if (!entry) return;
    this.replace(index, { ...entry, after: result });
    const following = this.entries[index + 1];
    if (following) this.replace(index + 1, { ...following, before: result });
    this.position = index + 1;
  }

  /** Oldest first, each marked done or undone, for display. */
  list(): readonly { readonly entry: HistoryEntry; readonly done: boolean }[] {
    return this.entries.map((entry, index) => ({ entry, done: index < this.position }));
  }

  private replace(index: number, entry: HistoryEntry): void {
    this.entries = this.entries.map((existing, i) => (i === index ? entry : existing));
  }
}
