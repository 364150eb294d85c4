/**
 * An in-memory Somite runtime for unit tests: compare-and-swap transactions,
 * idempotent replay, a cursor-numbered feed whose delivery the test controls
 * (hold, duplicate, drop, reorder), the activity backlog, documents by state
 * revision (which the test can make forget), and restarts (a new epoch).
 */
import type { SomiteApi } from "../api/endpoints";
import { ApiError } from "../api/errors";
import type { FeedConnection, FeedListener } from "../api/feed";
import type {
  Assessment,
  FeedEvent,
  FeedPosition,
  GraphTransaction,
  Operation,
  TransactionReply,
  WorkflowDocument,
} from "../api/types";
import { OperationError, applyOperations, canonical, revisionOf } from "./documents";

interface Subscriber {
  listener: FeedListener;
  open: boolean;
}

export class FakeRuntime {
  document: WorkflowDocument;
  /** This runtime process's feed epoch; a restart changes it. */
  epoch = "a1";
  readonly events: FeedEvent[] = [];
  /** What `workflowAt` serves: every state so far, until `forgetDocuments`. */
  private readonly documents = new Map<string, WorkflowDocument>();
  /** State revisions asked for through `workflowAt`. */
  readonly fetchedRevisions: string[] = [];
  /** Feed events not yet pushed to subscribers (when `autoDeliver` is off). */
  readonly undelivered: FeedEvent[] = [];
  autoDeliver = true;
  /** Why the project refuses writes until rebound (`null`: it does not). */
  recoveryRequired: string | null = null;
  /** Cursors older than this were evicted from the backlog. */
  firstAvailable = 1;
  readonly requests: GraphTransaction[] = [];
  private readonly subscribers: Subscriber[] = [];
  private raceNext: (() => void) | undefined;
  private readonly replies = new Map<string, { digest: string; reply: TransactionReply }>();

  constructor(document: WorkflowDocument) {
    this.document = document;
    this.documents.set(this.stateRevision, structuredClone(document));
  }

  get stateRevision(): string {
    return revisionOf(canonical(this.document));
  }

  /** What execution depends on: not the title, the layout or the notes. */
  get graphRevision(): string {
    const nodes = this.document.nodes.map((n) => [n.id, n.operator_id, n.params]).sort();
    const edges = this.document.edges.map((e) => [e.id, e.from_node, e.from_port, e.to_node, e.to_port]).sort();
    return revisionOf({ nodes, edges });
  }

  get lastCursor(): number {
    return this.events.length;
  }

  readonly api: SomiteApi = {
    workflow: () =>
      Promise.resolve({
        state_revision: this.stateRevision,
        graph_revision: this.graphRevision,
        semantic_revision: this.graphRevision,
        input_location: ".somite/web.somite.json",
        recovery_required: this.recoveryRequired,
        catalog_revision: revisionOf("catalog"),
        document: structuredClone(this.document),
        feed_cursor: this.lastCursor,
        feed_epoch: this.epoch,
      }),
    workflowAt: (stateRevision) => {
      this.fetchedRevisions.push(stateRevision);
      const document = this.documents.get(stateRevision);
      if (!document) return Promise.reject(new ApiError("GET /api/workflow", 404, "not_found", "not held", "reload", {}));
      return Promise.resolve({ state_revision: stateRevision, graph_revision: revisionOf("graph"), document: structuredClone(document) });
    },
    applyTransaction: (transaction) =>
      Promise.resolve().then(() => {
        const race = this.raceNext;
        this.raceNext = undefined;
        race?.();
        return this.transact(transaction, "human");
      }),
    rebind: () => {
      this.recoveryRequired = null;
      const state_revision = this.stateRevision;
      this.publish({ cursor: this.lastCursor + 1, kind: "rebind", time_ms: 0, data: { state_revision } });
      return Promise.resolve({ state_revision });
    },
    readiness: () => Promise.resolve(this.assessment()),
    searchCatalog: () => Promise.reject(new Error("not used")),
    operator: () => Promise.reject(new Error("not used")),
    activity: (position) => {
      if (position && position.epoch !== this.epoch) {
        return Promise.resolve({ epoch: this.epoch, last_cursor: this.lastCursor, reset: true, gap_until: null, events: [] });
      }
      const after = position?.cursor ?? 0;
      return Promise.resolve({
        epoch: this.epoch,
        last_cursor: this.lastCursor,
        reset: false,
        gap_until: after + 1 < this.firstAvailable && after < this.lastCursor ? this.firstAvailable : null,
        events: this.events.filter((e) => e.cursor > after && e.cursor >= this.firstAvailable),
      });
    },
  };

  readonly openFeed = (position: FeedPosition, listener: FeedListener): FeedConnection => {
    const subscriber: Subscriber = { listener, open: true };
    this.subscribers.push(subscriber);
    listener.status("live");
    let after = position.cursor;
    if (position.epoch !== this.epoch) {
      listener.reset({ epoch: this.epoch, cursor: this.lastCursor });
      after = this.lastCursor;
    } else if (after + 1 < this.firstAvailable && after < this.lastCursor) {
      listener.gap({ after, first_available: this.firstAvailable });
    }
    for (const event of this.events.filter((e) => e.cursor > after && e.cursor >= this.firstAvailable)) {
      if (!this.undelivered.includes(event)) listener.event(event);
    }
    return { close: () => { subscriber.open = false; } };
  };

  /** An edit made by someone else: the agent, or another window. */
  applyAs(source: "human" | "agent", summary: string, operations: Operation[]): TransactionReply {
    return this.transact(
      { base_state_revision: this.stateRevision, idempotency_key: `other-${this.epoch}-${String(this.lastCursor)}-key`, summary, operations },
      source,
    );
  }

  /**
   * A new runtime process on the same project: a new epoch whose cursors
   * start again at 1. Open streams reconnect with their old position and
   * are answered with a reset, as the real stream answers them.
   */
  restart(): void {
    this.epoch = `${this.epoch}f`;
    this.events.length = 0;
    this.undelivered.length = 0;
    this.firstAvailable = 1;
    for (const s of this.subscribers.filter((x) => x.open)) s.listener.reset({ epoch: this.epoch, cursor: 0 });
  }

  /** The runtime no longer holds the documents of past states. */
  forgetDocuments(): void {
    this.documents.clear();
  }

  /** Runs `commit` after the next request was sent but before it is processed. */
  beforeNextTransaction(commit: () => void): void {
    this.raceNext = commit;
  }

  /** A non-transaction feed event (an agent message, say). */
  publishOther(kind: string): void {
    this.publish({ cursor: this.lastCursor + 1, kind, time_ms: 0, data: { text: "hello" } });
  }

  /** Pushes held events to every open subscriber, optionally in another order. */
  deliver(order: (events: FeedEvent[]) => FeedEvent[] = (events) => events): void {
    const batch = order(this.undelivered.splice(0));
    for (const event of batch) this.broadcast(event);
  }

  /** Sends one event again, as a reconnecting stream might. */
  redeliver(cursor: number): void {
    const event = this.events.find((e) => e.cursor === cursor);
    if (event) this.broadcast(event);
  }

  broadcastGap(after: number, firstAvailable: number): void {
    for (const s of this.subscribers.filter((x) => x.open)) s.listener.gap({ after, first_available: firstAvailable });
  }

  broadcastRaw(event: FeedEvent): void {
    this.broadcast(event);
  }

  get openSubscribers(): number {
    return this.subscribers.filter((s) => s.open).length;
  }

  /**
   * A transaction the runtime composes itself (a promotion): compare-and-swap
   * and replay like any, its result the document `build` makes of the current one.
   */
  compose(
    base: Pick<GraphTransaction, "base_state_revision" | "idempotency_key">,
    summary: string,
    build: (document: WorkflowDocument) => WorkflowDocument,
  ): Promise<TransactionReply> {
    return Promise.resolve().then(() => this.transact({ ...base, summary, operations: [] }, "human", build));
  }

  private transact(
    transaction: GraphTransaction,
    source: "human" | "agent",
    build: (document: WorkflowDocument) => WorkflowDocument = (document) => applyOperations(document, transaction.operations),
  ): TransactionReply {
    this.requests.push(transaction);
    const digest = JSON.stringify([transaction.base_state_revision, transaction.summary, transaction.operations]);
    const earlier = this.replies.get(transaction.idempotency_key);
    if (earlier) {
      if (earlier.digest !== digest) throw apiError(409, "idempotency_conflict", "key reused", {});
      const { document: _d, cursor: _c, epoch: _e, ...rest } = earlier.reply;
      return { ...rest, replayed: true };
    }
    if (transaction.base_state_revision !== this.stateRevision) {
      throw apiError(409, "stale_revision", "the workflow changed since base_state_revision was read", {
        current_state_revision: this.stateRevision,
      });
    }
    let next: WorkflowDocument;
    try {
      next = build(this.document);
    } catch (error) {
      if (error instanceof OperationError) throw apiError(422, error.code, error.message, { operation_index: error.index });
      throw error;
    }
    const previous = this.stateRevision;
    this.document = next;
    const outcome = {
      previous_state_revision: previous,
      state_revision: this.stateRevision,
      graph_revision: this.graphRevision,
      summary: transaction.summary,
      operations: transaction.operations.length,
      replayed: false,
    };
    const cursor = this.lastCursor + 1;
    this.documents.set(outcome.state_revision, structuredClone(next));
    this.publish({
      cursor,
      kind: "transaction",
      time_ms: 0,
      data: { source: { kind: source, activity: null }, outcome, operations: structuredClone(transaction.operations) },
    });
    const reply: TransactionReply = { ...outcome, document: structuredClone(next), cursor, epoch: this.epoch };
    this.replies.set(transaction.idempotency_key, { digest, reply });
    return reply;
  }

  private publish(event: FeedEvent): void {
    this.events.push(event);
    if (this.autoDeliver) this.broadcast(event);
    else this.undelivered.push(event);
  }

  private broadcast(event: FeedEvent): void {
    for (const s of this.subscribers.filter((x) => x.open)) s.listener.event(event);
  }

  private assessment(): Assessment {
    const missing = this.document.nodes.filter((n) => n.operator_id === "files.import_fastq" && !n.params.path);
    return {
      graph_revision: this.graphRevision,
      catalog_revision: revisionOf("catalog"),
      state: this.document.nodes.length === 0 ? "empty" : missing.length > 0 ? "needs_action" : "ready",
      required_count: missing.length,
      counts: missing.length > 0 ? { input: missing.length } : {},
      next_requirement: missing[0] ? `input:${missing[0].id}:path` : null,
      items: [],
      nodes: [],
    };
  }
}

function apiError(status: number, code: string, message: string, details: Record<string, unknown>): ApiError {
  return new ApiError("POST /api/transactions", status, code, message, "retry", details);
}
