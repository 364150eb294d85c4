/**
 * Exactly-once, in-order application of the activity feed.
 *
 * Transactions reach the page twice — once in the reply to the request that
 * made them (for this tab's own edits) and once on the live feed — and the
 * feed itself may repeat an event after a reconnect. Each event is applied
 * once, at its cursor: a cursor already applied is dropped, a cursor ahead of
 * the next one is held until the events before it arrive. Cursors are shared
 * with every other kind of feed event (agent messages, later), which advance
 * the position without touching the graph.
 *
 * A transaction whose `previous_state_revision` is not the state the page
 * holds breaks the chain: the page adopts its document, but the step is
 * marked discontinuous, because the edits in between are unknown and cannot
 * be part of an undo history.
 */
import type { Snapshot } from "./snapshot";
import type { WorkflowDocument } from "../api/types";

export interface SequencedTransaction {
  readonly source: "human" | "agent";
  readonly summary: string;
  readonly previousStateRevision: string;
  readonly stateRevision: string;
  readonly graphRevision: string;
  readonly document: WorkflowDocument;
}

/** One feed event as the sequencer sees it: a transaction, or any other kind. */
export interface SequencedEvent {
  readonly cursor: number;
  readonly transaction?: SequencedTransaction;
}

export interface AppliedTransaction {
  readonly cursor: number;
  readonly source: "human" | "agent";
  readonly summary: string;
  readonly before: Snapshot;
  readonly after: Snapshot;
  /** False when the page's state was not this transaction's base. */
  readonly continuous: boolean;
}

export class FeedSequencer {
  private position: number;
  private current: Snapshot;
  private readonly waiting = new Map<number, SequencedEvent>();
  private holds = 0;

  constructor(cursor: number, snapshot: Snapshot) {
    this.position = cursor;
    this.current = snapshot;
  }

  /** The last cursor applied. */
  get cursor(): number {
    return this.position;
  }

  get snapshot(): Snapshot {
    return this.current;
  }

  /** Whether the event at `cursor` was applied or is waiting: a repeat needs no work. */
  knows(cursor: number): boolean {
    return cursor <= this.position || this.waiting.has(cursor);
  }

  /** Whether events wait for an earlier cursor that has not arrived. */
  get hasGap(): boolean {
    return this.holds === 0 && this.waiting.size > 0;
  }

  /**
   * Takes one event; returns the transactions that became applicable, in
   * cursor order (none while held).
   */
  offer(event: SequencedEvent): AppliedTransaction[] {
    if (event.cursor > this.position && !this.waiting.has(event.cursor)) {
      this.waiting.set(event.cursor, event);
    }
    return this.drain();
  }

  /**
   * Pauses application while this tab waits to learn which cursor one of its
   * own requests produced (undo and redo must know that before the history
   * sees the event). Holds nest; each must be released.
   */
  hold(): void {
    this.holds += 1;
  }

  release(): AppliedTransaction[] {
    this.holds = Math.max(0, this.holds - 1);
    return this.drain();
  }

  private drain(): AppliedTransaction[] {
    const applied: AppliedTransaction[] = [];
    if (this.holds > 0) return applied;
    for (let next = this.waiting.get(this.position + 1); next; next = this.waiting.get(this.position + 1)) {
      this.waiting.delete(next.cursor);
      this.position = next.cursor;
      if (next.transaction) applied.push(this.apply(next.cursor, next.transaction));
    }
    return applied;
  }

  private apply(cursor: number, transaction: SequencedTransaction): AppliedTransaction {
    const before = this.current;
    const after: Snapshot = {
      document: transaction.document,
      stateRevision: transaction.stateRevision,
      graphRevision: transaction.graphRevision,
    };
    this.current = after;
    return {
      cursor,
      source: transaction.source,
      summary: transaction.summary,
      before,
      after,
      continuous: transaction.previousStateRevision === before.stateRevision,
    };
  }
}
