/**
 * Compile, export, run, validate and the evidence of the graph on screen.
 *
 * Pure TS like the workspace: the Controls bar and the run panel read it
 * through `subscribe` / `getState`. A run is followed two ways at once — a
 * long-poll of `GET /api/runs/{id}` (which also survives a feed gap) and the
 * feed's `run` events — and each status is taken only if its `revision` is
 * newer, so the two never fight. A validation's verdict is never inferred
 * from the run: the evidence lookup says whether the revision is validated.
 */
import type { ControlsApi } from "../api/endpoints";
import { ApiError, ClientError, describeFailure } from "../api/errors";
import { RUN_WAIT_MS } from "../api/limits";
import { compileEventData, runStatus as runStatusSchema } from "../api/schemas";
import type {
  CompileSummary,
  Download,
  EvidenceLookup,
  FeedEvent,
  RunKind,
  RunPhase,
  RunStarted,
  RunStatus,
} from "../api/types";
import { idempotencyKey } from "../domain/ids";
import type { FeedTap } from "./workspace";

/** A failure as shown: the runtime's code when it gave one, its message and recovery. */
export interface Failure {
  readonly code: string | undefined;
  readonly title: string;
  readonly detail?: string | undefined;
}

export function toFailure(error: unknown): Failure {
  const { title, detail } = describeFailure(error);
  const code = error instanceof ApiError ? error.code : error instanceof ClientError ? `client_${error.failure}` : undefined;
  return { code, title, detail };
}

export type Operation<T> =
  | { readonly status: "idle" }
  | { readonly status: "working" }
  | { readonly status: "done"; readonly result: T }
  | { readonly status: "failed"; readonly error: Failure };

export interface ExportResult {
  readonly filename: string;
  readonly bytes: number;
}

export interface RunView {
  readonly kind: RunKind;
  /** Set once the runtime accepted the launch. */
  readonly started: RunStarted | undefined;
  readonly status: RunStatus | undefined;
  /** The launch was refused (e.g. `toolchain_missing`), or following it failed. */
  readonly error: Failure | undefined;
  /** Who started it: this tab, or someone else (the agent, another window). */
  readonly origin: "here" | "elsewhere";
  readonly cancelRequested: boolean;
  /** Why the last cancel request was refused; the run goes on. */
  readonly cancelError: Failure | undefined;
  /** Status reads are failing and being retried. */
  readonly reconnecting: boolean;
}

export interface EvidenceView {
  readonly graphRevision: string;
  readonly loading: boolean;
  readonly lookup: EvidenceLookup | undefined;
  readonly error: Failure | undefined;
}

export interface ControlsState {
  readonly compile: Operation<CompileSummary>;
  /** Who asked for the compile shown (an agent's compile arrives on the feed). */
  readonly compileSource: "human" | "agent";
  readonly export: Operation<ExportResult>;
  readonly run: RunView | undefined;
  readonly evidence: EvidenceView | undefined;
}

export interface ControlsDeps {
  readonly api: ControlsApi;
  /** Hands a downloaded file to the browser. */
  readonly save: (download: Download) => void;
  readonly retryMs?: (attempt: number) => number;
}

const TERMINAL: ReadonlySet<RunPhase> = new Set(["completed", "failed", "cancelled"]);

export function isTerminal(phase: RunPhase): boolean {
  return TERMINAL.has(phase);
}

/** Whether a run (or the start of one) is still under way. */
export function runIsActive(run: RunView | undefined): boolean {
  if (!run || run.error) return false;
  return !run.status || !isTerminal(run.status.phase);
}

const ROUTE = "GET /api/activity/stream";

export class Controls {
  private state: ControlsState = {
    compile: { status: "idle" },
    compileSource: "human",
    export: { status: "idle" },
    run: undefined,
    evidence: undefined,
  };
  private readonly listeners = new Set<() => void>();
  private follower: AbortController | undefined;
  private evidenceRequest = 0;
  private stopped = false;

  constructor(private readonly deps: ControlsDeps) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): ControlsState => this.state;

  stop(): void {
    this.stopped = true;
    this.follower?.abort();
  }

  /** The feed's `run` and `compile` events. */
  readonly feedTap: FeedTap = {
    event: (event) => {
      this.receive(event);
    },
  };

  async compile(): Promise<void> {
    if (this.state.compile.status === "working") return;
    this.set({ compile: { status: "working" }, compileSource: "human" });
    try {
      const result = await this.deps.api.compile();
      this.set({ compile: { status: "done", result } });
    } catch (error) {
      this.set({ compile: { status: "failed", error: toFailure(error) } });
    }
  }

  async exportZip(): Promise<void> {
    if (this.state.export.status === "working") return;
    this.set({ export: { status: "working" } });
    try {
      const download = await this.deps.api.exportZip();
      this.deps.save(download);
      this.set({ export: { status: "done", result: { filename: download.filename, bytes: download.blob.size } } });
    } catch (error) {
      this.set({ export: { status: "failed", error: toFailure(error) } });
    }
  }

  /** Starts a run or a validation with a fresh idempotency key, then follows it. */
  async start(kind: RunKind): Promise<void> {
    if (runIsActive(this.state.run)) return;
    this.follower?.abort();
    this.set({
      run: { kind, started: undefined, status: undefined, error: undefined, origin: "here", cancelRequested: false, cancelError: undefined, reconnecting: false },
    });
    const key = idempotencyKey();
    let started: RunStarted;
    try {
      started = kind === "run" ? await this.deps.api.startRun(key) : await this.deps.api.startValidation(key);
    } catch (error) {
      this.patchRun({ error: toFailure(error) });
      return;
    }
    this.patchRun({ started });
    void this.follow(started.run_id);
  }

  async cancel(): Promise<void> {
    const run = this.state.run;
    const runId = run?.started?.run_id ?? run?.status?.run_id;
    if (!run || !runId || (run.status && isTerminal(run.status.phase))) return;
    this.patchRun({ cancelRequested: true, cancelError: undefined });
    try {
      this.absorb(await this.deps.api.cancelRun(runId));
    } catch (error) {
      this.patchRun({ cancelRequested: false, cancelError: toFailure(error) });
    }
  }

  /** Asks whether `graphRevision` is validated; the newest request wins. */
  async refreshEvidence(graphRevision: string): Promise<void> {
    const request = ++this.evidenceRequest;
    const previous = this.state.evidence?.graphRevision === graphRevision ? this.state.evidence.lookup : undefined;
    this.set({ evidence: { graphRevision, loading: true, lookup: previous, error: undefined } });
    try {
      const lookup = await this.deps.api.evidence(graphRevision);
      if (request !== this.evidenceRequest) return;
      this.set({ evidence: { graphRevision, loading: false, lookup, error: undefined } });
    } catch (error) {
      if (request !== this.evidenceRequest) return;
      this.set({ evidence: { graphRevision, loading: false, lookup: undefined, error: toFailure(error) } });
    }
  }

  dismiss(what: "compile" | "export" | "run"): void {
    if (what === "run") {
      if (runIsActive(this.state.run)) return;
      this.set({ run: undefined });
    } else if (what === "compile") this.set({ compile: { status: "idle" } });
    else this.set({ export: { status: "idle" } });
  }

  // ---- following a run -------------------------------------------------------

  private async follow(runId: string): Promise<void> {
    this.follower?.abort();
    const follower = new AbortController();
    this.follower = follower;
    // A function, so each check reads the signal anew (it changes across awaits).
    const aborted = () => follower.signal.aborted;
    let attempt = 0;
    while (!this.stopped && !aborted()) {
      const run = this.state.run;
      if (!run || currentRunId(run) !== runId) return;
      if (run.status && isTerminal(run.status.phase)) break;
      try {
        const status = await this.deps.api.runStatus(runId, RUN_WAIT_MS, run.status?.revision, follower.signal);
        attempt = 0;
        if (this.state.run?.reconnecting) this.patchRun({ reconnecting: false });
        this.absorb(status);
      } catch (error) {
        if (aborted()) return;
        if (error instanceof ApiError && error.status === 404) {
          this.patchRun({ error: toFailure(error) });
          return;
        }
        attempt += 1;
        this.patchRun({ reconnecting: true });
        await delay(this.deps.retryMs?.(attempt) ?? Math.min(500 * 2 ** attempt, 8000), follower.signal);
      }
    }
  }

  /** Takes a status of the run on screen if it is newer than the one held. */
  private absorb(status: RunStatus): void {
    const run = this.state.run;
    if (!run || currentRunId(run) !== status.run_id) return;
    if (run.status && status.revision < run.status.revision) return;
    if (run.status && status.revision === run.status.revision && run.status.phase === status.phase) return;
    const ended = isTerminal(status.phase) && !(run.status && isTerminal(run.status.phase));
    this.patchRun({ status, cancelRequested: run.cancelRequested && !isTerminal(status.phase) });
    if (ended) {
      this.follower?.abort();
      void this.refreshEvidence(status.graph_revision);
    }
  }

  private receive(event: FeedEvent): void {
    if (event.kind === "run") {
      const parsed = runStatusSchema.safeParse(event.data);
      if (!parsed.success) {
        this.patchRun({ error: { code: "client_malformed", title: `${ROUTE} sent a run event that does not match its contract` } });
        return;
      }
      const status = parsed.data;
      const run = this.state.run;
      if (run && currentRunId(run) === status.run_id) {
        this.absorb(status);
      } else if (!runIsActive(run) && !isTerminal(status.phase)) {
        // A run started elsewhere (the agent, another window): shown and followed too.
        this.set({
          run: {
            kind: status.kind,
            started: undefined,
            status,
            error: undefined,
            origin: "elsewhere",
            cancelRequested: false,
            cancelError: undefined,
            reconnecting: false,
          },
        });
        void this.follow(status.run_id);
      }
    } else if (event.kind === "compile") {
      const parsed = compileEventData.safeParse(event.data);
      // This tab's own compile is shown from its reply; an agent's from the feed.
      if (parsed.success && parsed.data.source.kind === "agent" && this.state.compile.status !== "working") {
        this.set({ compile: { status: "done", result: parsed.data.summary }, compileSource: "agent" });
      }
    }
  }

  private patchRun(patch: Partial<RunView>): void {
    const run = this.state.run;
    if (run) this.set({ run: { ...run, ...patch } });
  }

  private set(patch: Partial<ControlsState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) listener();
  }
}

function currentRunId(run: RunView): string | undefined {
  return run.started?.run_id ?? run.status?.run_id;
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** What the panel may say about the graph on screen: validated only on the evidence's word. */
export interface EvidenceVerdict {
  readonly validated: boolean;
  readonly label: string;
  readonly detail: string | undefined;
  readonly tone: "success" | "neutral" | "danger" | "warning";
}

export function evidenceVerdict(evidence: EvidenceView | undefined, graphRevision: string | undefined): EvidenceVerdict {
  if (!evidence || !graphRevision || evidence.graphRevision !== graphRevision) {
    return { validated: false, label: "Not validated", detail: "No evidence has been looked up for this graph yet.", tone: "neutral" };
  }
  if (evidence.error) return { validated: false, label: "Evidence unavailable", detail: evidence.error.title, tone: "danger" };
  const lookup = evidence.lookup;
  if (!lookup) return { validated: false, label: "Checking evidence…", detail: undefined, tone: "neutral" };
  const ofRevision = lookup.receipts.filter((r) => r.subject.graph_revision === graphRevision);
  const ofLookup = lookup.graph_revision === graphRevision;
  const passed = ofRevision.find((r) => r.result === "passed" && r.source_preview === undefined);
  if (lookup.validated && ofLookup && passed) {
    return { validated: true, label: "Validated", detail: `Receipt ${shortDigest(passed.digest)} · ${passed.recorded_at}`, tone: "success" };
  }
  const previewed = ofRevision.find((r) => r.result === "passed" && r.source_preview !== undefined);
  const preview = previewed?.source_preview;
  if (lookup.previewed && ofLookup && previewed && preview) {
    // A preview is a narrower claim than a fixture run, and not a validation.
    return {
      validated: false,
      label: "Previewed",
      detail: `Nextflow -preview of ${preview.repository}@${preview.commit.slice(0, 7)}: ${preview.proves}; ${preview.does_not_prove}. Receipt ${shortDigest(previewed.digest)} · ${previewed.recorded_at}`,
      tone: "success",
    };
  }
  const latest = ofRevision.at(-1);
  const problems = lookup.problems.length > 0 ? ` ${String(lookup.problems.length)} receipt(s) failed verification.` : "";
  if (latest) {
    return {
      validated: false,
      label: latest.result === "inconclusive" ? "Validation inconclusive" : "Validation failed",
      detail: `${latest.reason ?? `The last validation was ${latest.result}.`}${problems}`,
      tone: latest.result === "inconclusive" ? "warning" : "danger",
    };
  }
  return {
    validated: false,
    label: "Not validated",
    detail: `No evidence receipt for this graph revision.${problems} Compiling or running does not validate it.`,
    tone: problems ? "warning" : "neutral",
  };
}

export function shortDigest(digest: string): string {
  const hex = digest.startsWith("blake3:") ? digest.slice(7) : digest;
  return hex.slice(0, 12);
}
