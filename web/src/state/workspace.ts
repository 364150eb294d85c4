/**
 * The workspace: the one place browser state about the workflow lives.
 *
 * It loads the workflow, follows the activity feed through the sequencer,
 * keeps the edit history, sends edits as compare-and-swap transactions (one
 * at a time, each on the newest state revision this tab knows of) and keeps
 * the readiness assessment in step with the graph.
 *
 * History has one entry per transaction. A transaction event names its
 * result graph by state revision rather than carrying it; the graph of every
 * event that is not this tab's own reply is fetched by that revision, in feed
 * order, before the sequencer applies it. When the runtime restarts, its feed
 * starts a new epoch: the feed's `reset` (or a reply of another epoch)
 * reloads the workflow and follows the new feed. React reads it through
 * `subscribe` / `getState`; nothing here depends on React or the DOM, so the
 * whole behaviour is unit-tested against a fake runtime.
 */
import type { FeedConnection, FeedListener } from "../api/feed";
import { ApiError, ClientError, describeFailure } from "../api/errors";
import type { SomiteApi } from "../api/endpoints";
import { MAX_TRANSACTION_OPERATIONS } from "../api/limits";
import { transactionEventData } from "../api/schemas";
import { sourceFetchEvent } from "../api/sourceSchemas";
import type { Assessment, FeedEvent, FeedPosition, GraphTransaction, Operation, TransactionEventData, TransactionReply } from "../api/types";
import { validate } from "../api/validate";
import { idempotencyKey } from "../domain/ids";

/** The feed kind that announces `POST /api/project/rebind`. */
const REBIND_EVENT = "rebind";
/** A project's pinned source fetched again (crates/somite-api `FeedKind::Source`). */
const SOURCE_FETCH_EVENT = "source";
import { operationsBetween, promotionBetween } from "./compensate";
import { EditHistory } from "./history";
import type { AppliedTransaction, SequencedEvent } from "./sequencer";
import { FeedSequencer } from "./sequencer";
import type { Snapshot } from "./snapshot";

export interface Notice {
  readonly id: number;
  readonly tone: "error" | "info";
  readonly title: string;
  readonly detail?: string | undefined;
}

export interface HistoryView {
  readonly undoSummary: string | undefined;
  readonly redoSummary: string | undefined;
  readonly entries: readonly { readonly cursor: number; readonly summary: string; readonly source: "human" | "agent"; readonly done: boolean }[];
}

export interface WorkspaceState {
  readonly phase: "loading" | "ready" | "failed";
  readonly failure: { readonly title: string; readonly detail?: string | undefined } | undefined;
  readonly feed: "connecting" | "live" | "reconnecting";
  readonly snapshot: Snapshot | undefined;
  readonly catalogRevision: string | undefined;
  readonly recoveryRequired: string | null;
  /** The newest assessment received; compare its graph_revision to the snapshot's. */
  readonly readiness: Assessment | undefined;
  readonly history: HistoryView;
  /** Edits sent and not yet answered. */
  readonly pendingEdits: number;
  readonly notices: readonly Notice[];
}

/**
 * A reader of the same feed the workspace follows (runs, the agent panel).
 * It sees every event this tab receives, in arrival order, possibly more
 * than once after a reconnect: it de-duplicates by cursor itself.
 */
export interface FeedTap {
  event(event: FeedEvent): void;
  /** The feed was reopened after a gap or a failure: events may have been missed. */
  resynced?(): void;
}

/** The compare-and-swap part of any transaction this tab sends. */
export type TransactionBase = Pick<GraphTransaction, "base_state_revision" | "idempotency_key">;

export type EditResult = { readonly ok: true } | { readonly ok: false; readonly error: unknown };

export interface EditOptions {
  /** Show a failure as a notice (default); off when the caller shows it in place. */
  readonly reportErrors?: boolean;
}

export interface WorkspaceDeps {
  readonly api: SomiteApi;
  readonly openFeed: (after: FeedPosition, listener: FeedListener) => FeedConnection;
  /** How long a hole in the feed may stay open before the missing events are fetched. */
  readonly holeFillDelayMs?: number;
  /** How long to wait before retrying a failed resynchronisation. */
  readonly resyncRetryMs?: number;
  /**
   * Promotes a source node's replaced invocations into a native variant
   * (the runtime composes that transaction): redo of a promotion sends it
   * again. Without it, such a redo is declined with a notice.
   */
  readonly promote?: (nodeId: string, invocations: readonly string[], base: TransactionBase) => Promise<TransactionReply>;
}

const EMPTY_HISTORY: HistoryView = { undoSummary: undefined, redoSummary: undefined, entries: [] };
const MAX_NOTICES = 4;
const MAX_SUMMARY_CHARS = 500;

export class Workspace {
  private state: WorkspaceState = {
    phase: "loading",
    failure: undefined,
    feed: "connecting",
    snapshot: undefined,
    catalogRevision: undefined,
    recoveryRequired: null,
    readiness: undefined,
    history: EMPTY_HISTORY,
    pendingEdits: 0,
    notices: [],
  };
  private readonly listeners = new Set<() => void>();
  private readonly taps = new Set<FeedTap>();
  private readonly history = new EditHistory();
  private sequencer: FeedSequencer | undefined;
  private feedConnection: FeedConnection | undefined;
  /** Bumped on every (re)load: results of older loads are ignored. */
  private generation = 0;
  /** The newest committed state this tab knows of; edits are based on it. */
  private head = { cursor: 0, stateRevision: "" };
  /** The epoch of the runtime process whose feed this tab follows. */
  private epoch = "";
  /**
   * Feed events on their way to the sequencer, in arrival order: a
   * transaction waits here while its document is fetched. Edits wait for it,
   * so they are based on every state the feed has announced.
   */
  private inbound: Promise<void> = Promise.resolve();
  /** Cursors in `inbound`, so a repeated event is not fetched twice. */
  private resolving = new Set<number>();
  /** This tab's transaction request in flight (settled when none is). */
  private ownRequest: Promise<unknown> = Promise.resolve();
  /** Cursors of this tab's own undo and redo transactions. */
  private readonly intents = new Map<number, "undo" | "redo">();
  private queue: Promise<unknown> = Promise.resolve();
  private holeTimer: ReturnType<typeof setTimeout> | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private readinessWanted = false;
  private readinessRunning = false;
  private nextNoticeId = 1;
  private stopped = false;

  constructor(private readonly deps: WorkspaceDeps) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): WorkspaceState => this.state;

  /** Follows the feed alongside the workspace; returns the unsubscribe. */
  tap(tap: FeedTap): () => void {
    this.taps.add(tap);
    return () => this.taps.delete(tap);
  }

  start(): Promise<void> {
    return this.load("initial");
  }

  stop(): void {
    this.stopped = true;
    this.generation += 1;
    this.feedConnection?.close();
    clearTimeout(this.holeTimer);
    clearTimeout(this.retryTimer);
  }

  /** Loads again from scratch, e.g. after a failed start. */
  retry(): Promise<void> {
    return this.load(this.state.snapshot ? "resync" : "initial");
  }

  /**
   * Sends one transaction built from `operations`, after any edit already
   * queued, on the newest known state revision.
   */
  edit(summary: string, operations: readonly Operation[], options: EditOptions = {}): Promise<EditResult> {
    const report = options.reportErrors ?? true;
    return this.enqueue(async () => {
      const result = await this.send(summary, operations);
      if (!result.ok && report) this.reportEditFailure(result.error);
      return result;
    });
  }

  /**
   * Binds the graph as shown to its location again (the project's files were
   * changed or moved by hand), then reloads: edits, compile, run, validate
   * and export work again.
   */
  rebind(): Promise<void> {
    return this.enqueue(async () => {
      try {
        await this.deps.api.rebind();
      } catch (error) {
        const { title, detail } = describeFailure(error);
        this.notify("error", `Could not rebind the workflow: ${title}`, detail);
        return;
      }
      this.notify("info", "The workflow is bound to its location again");
      await this.load("resync");
    });
  }

  undo(): Promise<void> {
    return this.enqueue(() => this.travel("undo"));
  }

  redo(): Promise<void> {
    return this.enqueue(() => this.travel("redo"));
  }

  refreshReadiness(): void {
    this.readinessWanted = true;
    if (!this.readinessRunning) void this.runReadiness();
  }

  /**
   * The live catalog changed under this tab (a person accepted a project
   * operator): what is keyed by the catalog revision — cached contracts,
   * the palette's search, readiness — must see the new one. The workflow
   * itself is untouched (pinned nodes keep their revisions), so no reload.
   */
  catalogChanged(catalogRevision: string): void {
    if (catalogRevision !== this.state.catalogRevision) this.set({ catalogRevision });
    this.refreshReadiness();
  }

  /** The project's pinned source fetched again onto this machine, as it goes. */
  private announceSourceFetch(data: unknown): void {
    const parsed = sourceFetchEvent.safeParse(data);
    if (!parsed.success) return;
    const { repository, commit, phase, error } = parsed.data;
    const at = `${repository} at ${commit.slice(0, 7)}`;
    if (phase === "fetching") {
      this.notify("info", `Fetching ${at}`, "This machine does not have the pinned source yet; its tree digest is checked before use.");
    } else if (phase === "fetched") {
      this.notify("info", `Fetched ${at}`, "The pinned source is verified and on this machine now.");
    } else {
      this.notify("error", `Could not fetch ${at}`, error ? `${error.message}${error.recovery ? ` — ${error.recovery}` : ""}` : undefined);
    }
  }

  notify(tone: Notice["tone"], title: string, detail?: string): void {
    const notice: Notice = { id: this.nextNoticeId++, tone, title, detail };
    this.set({ notices: [...this.state.notices, notice].slice(-MAX_NOTICES) });
  }

  dismiss(id: number): void {
    this.set({ notices: this.state.notices.filter((n) => n.id !== id) });
  }

  // ---- loading and the feed -------------------------------------------------

  private async load(reason: "initial" | "resync"): Promise<void> {
    const generation = ++this.generation;
    this.feedConnection?.close();
    this.feedConnection = undefined;
    clearTimeout(this.holeTimer);
    this.holeTimer = undefined;
    clearTimeout(this.retryTimer);
    this.inbound = Promise.resolve();
    this.resolving = new Set();
    this.set({ feed: "connecting", ...(reason === "initial" ? { phase: "loading" as const, failure: undefined } : {}) });
    try {
      // The runtime reads the feed position under the same lock as the
      // document, so following the feed from it misses and repeats nothing.
      const view = await this.deps.api.workflow();
      if (generation !== this.generation) return;
      const cursor = view.feed_cursor;
      this.epoch = view.feed_epoch;
      const snapshot: Snapshot = {
        document: view.document,
        stateRevision: view.state_revision,
        graphRevision: view.graph_revision,
      };
      this.sequencer = new FeedSequencer(cursor, snapshot);
      this.head = { cursor, stateRevision: view.state_revision };
      this.history.clear();
      this.intents.clear();
      this.set({
        phase: "ready",
        failure: undefined,
        snapshot,
        catalogRevision: view.catalog_revision,
        recoveryRequired: view.recovery_required,
        history: this.historyView(),
      });
      this.feedConnection = this.deps.openFeed({ epoch: view.feed_epoch, cursor }, this.feedListener(generation));
      this.refreshReadiness();
      if (reason === "resync") for (const tap of this.taps) tap.resynced?.();
    } catch (error) {
      if (generation !== this.generation) return;
      if (reason === "initial" || !this.state.snapshot) {
        this.set({ phase: "failed", failure: describeFailure(error) });
        return;
      }
      const { title, detail } = describeFailure(error);
      this.notify("error", `Could not reload the workflow: ${title}`, detail);
      this.retryTimer = setTimeout(() => void this.load("resync"), this.deps.resyncRetryMs ?? 3000);
    }
  }

  private feedListener(generation: number): FeedListener {
    const current = () => generation === this.generation && !this.stopped;
    return {
      event: (event) => {
        if (current()) this.receive(event);
      },
      gap: (gap) => {
        if (!current()) return;
        const missed = gap.first_available - gap.after - 1;
        this.notify(
          "info",
          `Reloaded the workflow: ${String(missed)} activity event(s) were no longer available`,
          "Undo history starts again from here.",
        );
        void this.load("resync");
      },
      reset: () => {
        if (!current()) return;
        this.notify("info", "Reloaded the workflow: Somite was restarted", "Undo history starts again from here.");
        void this.load("resync");
      },
      status: (status) => {
        if (current()) this.set({ feed: status });
      },
      malformed: (error) => {
        if (!current()) return;
        this.notify("error", error.message, "The event was not applied; the workflow was reloaded.");
        void this.load("resync");
      },
    };
  }

  private receive(event: FeedEvent): void {
    for (const tap of this.taps) tap.event(event);
    // Another window rebound the project: read it again, edits work again.
    if (event.kind === REBIND_EVENT && this.state.recoveryRequired) {
      void this.load("resync");
      return;
    }
    // Announced as it arrives; the event still takes its place in the order.
    if (event.kind === SOURCE_FETCH_EVENT) this.announceSourceFetch(event.data);
    const sequencer = this.sequencer;
    const resolving = this.resolving;
    if (!sequencer || sequencer.knows(event.cursor) || resolving.has(event.cursor)) return;
    let transaction: TransactionEventData | undefined;
    try {
      if (event.kind === "transaction") {
        transaction = validate(transactionEventData, event.data, "GET /api/activity/stream", "a transaction event");
      }
    } catch (error) {
      if (!(error instanceof ClientError)) throw error;
      this.notify("error", error.message, "The event was not applied; the workflow was reloaded.");
      void this.load("resync");
      return;
    }
    resolving.add(event.cursor);
    this.inbound = this.inbound.then(async () => {
      try {
        if (transaction) {
          // The event may be this tab's own edit, whose reply carries the
          // graph: let the request in flight answer before fetching it.
          await this.ownRequest;
          if (sequencer.knows(event.cursor)) return;
        }
        this.offer(await this.sequenced(event.cursor, transaction), sequencer);
      } catch (error) {
        if (sequencer !== this.sequencer) return;
        const { title, detail } = describeFailure(error);
        this.notify("info", `Reloaded the workflow: the graph of an edit could not be read (${title})`, detail);
        void this.load("resync");
      } finally {
        resolving.delete(event.cursor);
      }
    });
  }

  /** The event as the sequencer takes it, with a transaction's graph fetched by its state revision. */
  private async sequenced(cursor: number, data: TransactionEventData | undefined): Promise<SequencedEvent> {
    if (!data) return { cursor };
    const outcome = data.outcome;
    const view = await this.deps.api.workflowAt(outcome.state_revision);
    return {
      cursor,
      transaction: {
        source: data.source.kind,
        summary: outcome.summary,
        previousStateRevision: outcome.previous_state_revision,
        stateRevision: outcome.state_revision,
        graphRevision: outcome.graph_revision,
        document: view.document,
      },
    };
  }

  private offer(event: SequencedEvent, sequencer = this.sequencer): void {
    if (!sequencer || sequencer !== this.sequencer) return;
    this.absorb(sequencer.offer(event));
  }

  /** Turns applied transactions into history and state. */
  private absorb(steps: readonly AppliedTransaction[]): void {
    const sequencer = this.sequencer;
    if (!sequencer) return;
    const graphBefore = this.state.snapshot?.graphRevision;
    for (const step of steps) {
      const intent = this.intents.get(step.cursor);
      this.intents.delete(step.cursor);
      if (intent === "undo") this.history.undone(step.after);
      else if (intent === "redo") this.history.redone(step.after);
      else if (step.continuous) this.history.record(step);
      else this.history.clear();
      this.advanceHead(step.cursor, step.after.stateRevision);
    }
    if (steps.length > 0) {
      this.set({ snapshot: sequencer.snapshot, history: this.historyView() });
      if (sequencer.snapshot.graphRevision !== graphBefore) this.refreshReadiness();
    }
    this.watchForHole(sequencer);
  }

  /**
   * Events normally arrive in order; a hole means a reply overtook the feed.
   * If the feed does not fill it soon, the missing events are fetched.
   */
  private watchForHole(sequencer: FeedSequencer): void {
    if (!sequencer.hasGap || this.holeTimer !== undefined) return;
    this.holeTimer = setTimeout(() => {
      this.holeTimer = undefined;
      void this.fillHole(sequencer);
    }, this.deps.holeFillDelayMs ?? 1000);
  }

  private async fillHole(sequencer: FeedSequencer): Promise<void> {
    if (sequencer !== this.sequencer || !sequencer.hasGap) return;
    try {
      const page = await this.deps.api.activity({ epoch: this.epoch, cursor: sequencer.cursor });
      if (sequencer !== this.sequencer) return;
      if (page.reset || page.gap_until !== null) {
        void this.load("resync");
        return;
      }
      for (const event of page.events) this.receive(event);
    } catch {
      void this.load("resync");
    }
  }

  // ---- edits ----------------------------------------------------------------

  /** Runs `work` after the edits before it and the feed events announced so far. */
  private enqueue<T>(work: () => Promise<T>): Promise<T> {
    const settled = async () => {
      await this.inbound;
      return work();
    };
    const run = this.queue.then(settled, settled);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async send(summary: string, operations: readonly Operation[]): Promise<EditResult> {
    const sequencer = this.sequencer;
    if (!sequencer) return { ok: false, error: new Error("the workflow is not loaded yet") };
    if (operations.length === 0) return { ok: true };
    if (operations.length > MAX_TRANSACTION_OPERATIONS) {
      return {
        ok: false,
        error: new Error(`this edit has ${String(operations.length)} operations; one edit holds at most ${String(MAX_TRANSACTION_OPERATIONS)}`),
      };
    }
    return this.commit(sequencer, (base) =>
      this.deps.api.applyTransaction({ ...base, summary: summary.slice(0, MAX_SUMMARY_CHARS), operations }),
    );
  }

  /**
   * Sends a transaction the runtime composes itself (resolving a source
   * workflow places its pinned node): queued like `edit`, on the newest
   * known state revision with a fresh idempotency key, its reply applied.
   */
  place(post: (base: TransactionBase) => Promise<TransactionReply>, options: EditOptions = {}): Promise<EditResult> {
    const report = options.reportErrors ?? true;
    return this.enqueue(async () => {
      const sequencer = this.sequencer;
      const result = sequencer ? await this.commit(sequencer, post) : { ok: false as const, error: new Error("the workflow is not loaded yet") };
      if (!result.ok && report) this.reportEditFailure(result.error);
      return result;
    });
  }

  private async commit(sequencer: FeedSequencer, post: (base: TransactionBase) => Promise<TransactionReply>): Promise<EditResult> {
    this.set({ pendingEdits: this.state.pendingEdits + 1 });
    try {
      const reply = await this.request(() => post({ base_state_revision: this.head.stateRevision, idempotency_key: idempotencyKey() }));
      this.acceptReply(reply, sequencer);
      return { ok: true };
    } catch (error) {
      return { ok: false, error };
    } finally {
      this.set({ pendingEdits: this.state.pendingEdits - 1 });
    }
  }

  private request(post: () => Promise<TransactionReply>): Promise<TransactionReply> {
    const request = post();
    this.ownRequest = request.catch(() => undefined);
    return request;
  }

  /** This tab's own reply is applied at once; the feed's copy is then a duplicate. */
  private acceptReply(reply: TransactionReply, sequencer: FeedSequencer): void {
    if (reply.replayed || reply.cursor === undefined || !reply.document) return;
    if (reply.epoch !== undefined && reply.epoch !== this.epoch) {
      // Somite restarted since this tab loaded: the cursor is another feed's.
      if (sequencer === this.sequencer) void this.load("resync");
      return;
    }
    this.advanceHead(reply.cursor, reply.state_revision);
    this.offer(
      {
        cursor: reply.cursor,
        transaction: {
          source: "human",
          summary: reply.summary,
          previousStateRevision: reply.previous_state_revision,
          stateRevision: reply.state_revision,
          graphRevision: reply.graph_revision,
          document: reply.document,
        },
      },
      sequencer,
    );
  }

  private advanceHead(cursor: number, stateRevision: string): void {
    if (cursor > this.head.cursor) this.head = { cursor, stateRevision };
  }

  /**
   * Undo or redo: the compensating transaction between the entry's two
   * states, sent with compare-and-swap on the live state. The feed is held
   * until the reply says which cursor it produced, so the history moves its
   * position instead of recording the undo as a new edit.
   */
  private async travel(direction: "undo" | "redo"): Promise<void> {
    const sequencer = this.sequencer;
    const entry = direction === "undo" ? this.history.nextUndo : this.history.nextRedo;
    if (!sequencer || !entry) return;
    const [from, to] = direction === "undo" ? [entry.after, entry.before] : [entry.before, entry.after];
    const live = sequencer.snapshot;
    if (sequencer.hasGap || live.stateRevision !== from.stateRevision || this.head.stateRevision !== from.stateRevision) {
      this.notify("info", "Catching up with the latest edits", `Try ${direction} again in a moment.`);
      return;
    }
    // Promoting is composed by the runtime too: going forward to a variant
    // sends the same promotion again.
    const promotion = promotionBetween(from.document, to.document);
    const promote = this.deps.promote;
    let post: (base: TransactionBase) => Promise<TransactionReply>;
    if (promotion) {
      if (!promote) {
        this.notify("info", `“${entry.summary}” cannot be ${direction === "undo" ? "undone" : "redone"} as an edit`, "Promote the replaced steps again from the outline.");
        return;
      }
      post = (base) => promote(promotion.nodeId, promotion.invocations, base);
    } else {
      const operations = operationsBetween(from.document, to.document);
      // A pinned pipeline is placed only by resolving it (the runtime
      // composes that transaction); no operation a client may send brings
      // one back (a variant's source comes back with `revert_variant`).
      const replaced = operations.flatMap((op) => (op.op === "add_operator" ? to.document.nodes.filter((n) => n.id === op.node_id && n.source) : []))[0];
      if (replaced?.source) {
        this.notify(
          "info",
          `Placing ${replaced.source.repository} cannot be ${direction === "undo" ? "undone" : "redone"} as an edit`,
          "Start from the pipeline again on the empty canvas: resolving pins the same commit.",
        );
        return;
      }
      if (operations.length === 0) {
        if (direction === "undo") this.history.undone(live);
        else this.history.redone(live);
        this.set({ history: this.historyView() });
        return;
      }
      if (operations.length > MAX_TRANSACTION_OPERATIONS) {
        this.notify(
          "error",
          `“${entry.summary}” is too large to ${direction} in one step`,
          `It needs ${String(operations.length)} operations; one transaction holds at most ${String(MAX_TRANSACTION_OPERATIONS)}.`,
        );
        return;
      }
      post = (base) =>
        this.deps.api.applyTransaction({
          ...base,
          summary: `${direction === "undo" ? "Undo" : "Redo"}: ${entry.summary}`.slice(0, MAX_SUMMARY_CHARS),
          operations,
        });
    }
    sequencer.hold();
    this.set({ pendingEdits: this.state.pendingEdits + 1 });
    try {
      const reply = await this.request(() => post({ base_state_revision: live.stateRevision, idempotency_key: idempotencyKey() }));
      if (reply.cursor !== undefined && sequencer === this.sequencer) this.intents.set(reply.cursor, direction);
      this.acceptReply(reply, sequencer);
    } catch (error) {
      this.reportEditFailure(error);
    } finally {
      this.set({ pendingEdits: this.state.pendingEdits - 1 });
      const steps = sequencer.release();
      if (sequencer === this.sequencer) this.absorb(steps);
    }
  }

  private reportEditFailure(error: unknown): void {
    if (error instanceof ApiError && error.code === "stale_revision") {
      this.notify(
        "error",
        "The workflow changed before this edit arrived",
        "Another window or the agent edited it first. Nothing was applied; the canvas shows the latest state.",
      );
      return;
    }
    const { title, detail } = describeFailure(error);
    this.notify("error", title, detail);
  }

  // ---- readiness --------------------------------------------------------------

  private async runReadiness(): Promise<void> {
    this.readinessRunning = true;
    try {
      while (this.readinessWanted && !this.stopped) {
        this.readinessWanted = false;
        try {
          const readiness = await this.deps.api.readiness();
          // An assessment of a graph this tab has not caught up with yet is
          // dropped; the transaction that brings that graph asks again.
          if (readiness.graph_revision === this.state.snapshot?.graphRevision) this.set({ readiness });
        } catch (error) {
          const { title, detail } = describeFailure(error);
          this.notify("error", `Readiness could not be assessed: ${title}`, detail);
        }
      }
    } finally {
      this.readinessRunning = false;
    }
  }

  // ---- state ----------------------------------------------------------------

  private historyView(): HistoryView {
    return {
      undoSummary: this.history.nextUndo?.summary,
      redoSummary: this.history.nextRedo?.summary,
      entries: this.history.list().map(({ entry, done }) => ({
        cursor: entry.cursor,
        summary: entry.summary,
        source: entry.source,
        done,
      })),
    };
  }

  private set(patch: Partial<WorkspaceState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}
