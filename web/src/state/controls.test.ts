import { describe, expect, it } from "vitest";
import type { ControlsApi } from "../api/endpoints";
import { ApiError, ClientError } from "../api/errors";
import { evidenceLookup, runStatus as runStatusSchema } from "../api/schemas";
import type { Download, EvidenceLookup, RunStarted, RunStatus } from "../api/types";
import { REV_A, REV_B, TOOLCHAIN_MISSING, compileSummary, feedEvent, receipt, runStatus } from "../testing/wire";
import type { EvidenceView } from "./controls";
import { Controls, evidenceVerdict, runIsActive } from "./controls";

const status = (patch: Record<string, unknown>): RunStatus => runStatusSchema.parse(runStatus(patch));
const lookup = (value: unknown): EvidenceLookup => evidenceLookup.parse(value);
const RUN_ID = "run-1796248799769-0a1b2c3d";

/** A runtime whose status long-poll answers from a queue the test fills. */
class FakeControls implements ControlsApi {
  readonly keys: string[] = [];
  readonly polls: { runId: string; since: number | undefined }[] = [];
  readonly cancels: string[] = [];
  readonly evidenceAsked: string[] = [];
  startError: Error | undefined;
  pollErrors: Error[] = [];
  evidenceReply: EvidenceLookup = lookup({ graph_revision: REV_A, validated: false, receipts: [], problems: [] });
  private queue: RunStatus[] = [];
  private waiting: ((s: RunStatus) => void) | undefined;

  push(next: RunStatus): void {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(next);
    } else this.queue.push(next);
  }

  compile = () => Promise.resolve(compileSummary as never);
  exportZip = (): Promise<Download> => Promise.resolve({ blob: new Blob([new Uint8Array([0x50, 0x4b, 3, 4])]), filename: "qc.zip" });
  startRun = (key: string) => this.start(key, "run");
  startValidation = (key: string) => this.start(key, "validation");
  private start(key: string, kind: "run" | "validation"): Promise<RunStarted> {
    this.keys.push(key);
    if (this.startError) return Promise.reject(this.startError);
    return Promise.resolve({ run_id: RUN_ID, kind, graph_revision: REV_A, closure_digest: REV_B, profile: "local", replayed: false });
  }
  runStatus = (runId: string, _waitMs: number, since: number | undefined, signal?: AbortSignal): Promise<RunStatus> => {
    this.polls.push({ runId, since });
    const error = this.pollErrors.shift();
    if (error) return Promise.reject(error);
    const next = this.queue.shift();
    if (next) return Promise.resolve(next);
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      signal?.addEventListener("abort", () => { reject(new DOMException("aborted", "AbortError")); });
    });
  };
  cancelRun = (runId: string) => {
    this.cancels.push(runId);
    return Promise.resolve(status({ phase: "cancelling", revision: 5 }));
  };
  evidence = (graphRevision: string) => {
    this.evidenceAsked.push(graphRevision);
    return Promise.resolve(this.evidenceReply);
  };
}

const settle = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 1));
  expect(condition()).toBe(true);
};

function setup() {
  const api = new FakeControls();
  const saved: Download[] = [];
  const controls = new Controls({ api, save: (d) => saved.push(d), retryMs: () => 0 });
  return { api, controls, saved };
}

describe("Controls: starting and following a run", () => {
  it("shows the runtime's toolchain_missing refusal with its recovery, and is not left active", async () => {
    const { api, controls } = setup();
    api.startError = new ApiError("POST /api/runs", 503, TOOLCHAIN_MISSING.code, TOOLCHAIN_MISSING.message, TOOLCHAIN_MISSING.recovery, undefined);
    await controls.start("run");
    const run = controls.getState().run;
    expect(run?.error).toEqual({ code: "toolchain_missing", title: TOOLCHAIN_MISSING.message, detail: TOOLCHAIN_MISSING.recovery });
    expect(runIsActive(run)).toBe(false);
    expect(api.polls).toEqual([]);
  });

  it("sends a fresh idempotency key for every intended launch", async () => {
    const { api, controls } = setup();
    api.startError = new ClientError("POST /api/runs", "network", "down");
    await controls.start("run");
    await controls.start("validation");
    expect(api.keys).toHaveLength(2);
    expect(new Set(api.keys).size).toBe(2);
    for (const key of api.keys) expect(key).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
  });

  it("long-polls from the last revision until the run ends, then looks up the evidence", async () => {
    const { api, controls } = setup();
    await controls.start("validation");
    expect(runIsActive(controls.getState().run)).toBe(true);
    api.push(status({ kind: "validation", revision: 1 }));
    await settle(() => controls.getState().run?.status?.revision === 1);
    api.push(status({ kind: "validation", phase: "completed", revision: 4, states: { reads: "done", trim: "done", fastqc: "cached" }, progress: { completed: 3, total: 3, unit: "nodes", message: "3 of 3 nodes done" } }));
    await settle(() => controls.getState().run?.status?.phase === "completed");
    expect(api.polls.map((p) => p.since)).toEqual([undefined, 1]);
    expect(runIsActive(controls.getState().run)).toBe(false);
    await settle(() => api.evidenceAsked.length === 1);
    expect(api.evidenceAsked).toEqual([REV_A]);
  });

  it("takes feed statuses of the same run only when newer, and keeps following through failures", async () => {
    const { api, controls } = setup();
    api.pollErrors = [new ClientError("GET /api/runs/x", "network", "down")];
    await controls.start("run");
    controls.feedTap.event(feedEvent(10, "run", runStatus({ revision: 3, progress: { completed: 2, total: 3, unit: "nodes", message: "2 of 3" } })));
    expect(controls.getState().run?.status?.revision).toBe(3);
    controls.feedTap.event(feedEvent(11, "run", runStatus({ revision: 2 })));
    expect(controls.getState().run?.status?.revision).toBe(3);
    controls.feedTap.event(feedEvent(12, "run", runStatus({ run_id: "run-other-1", revision: 9 })));
    expect(controls.getState().run?.status?.run_id).toBe(RUN_ID);
    await settle(() => api.polls.length >= 2);
    api.push(status({ phase: "failed", revision: 6, error: { code: "run_failed", message: "trim failed", recovery: "see its stderr" }, stderr_tail: ["fastp: error"] }));
    await settle(() => controls.getState().run?.status?.phase === "failed");
    expect(controls.getState().run?.status?.stderr_tail).toEqual(["fastp: error"]);
    controls.stop();
  });

  it("cancels through the runtime and follows the run to cancelled", async () => {
    const { api, controls } = setup();
    await controls.start("run");
    api.push(status({ revision: 1 }));
    await settle(() => controls.getState().run?.status?.revision === 1);
    await controls.cancel();
    expect(api.cancels).toEqual([RUN_ID]);
    expect(controls.getState().run?.status?.phase).toBe("cancelling");
    expect(controls.getState().run?.cancelRequested).toBe(true);
    api.push(status({ phase: "cancelled", revision: 7, states: { reads: "done", trim: "cancelled", fastqc: "skipped" } }));
    await settle(() => controls.getState().run?.status?.phase === "cancelled");
    expect(controls.getState().run?.cancelRequested).toBe(false);
  });

  it("shows and follows a run someone else started, seen on the feed", async () => {
    const { api, controls } = setup();
    controls.feedTap.event(feedEvent(3, "run", runStatus({ revision: 0, phase: "preparing" })));
    expect(controls.getState().run?.origin).toBe("elsewhere");
    await settle(() => api.polls.length === 1);
    expect(api.polls[0]).toEqual({ runId: RUN_ID, since: 0 });
    controls.stop();
  });
});

describe("Controls: compile and export", () => {
  it("keeps the compile summary and hands the export to the browser", async () => {
    const { controls, saved } = setup();
    await controls.compile();
    const compile = controls.getState().compile;
    expect(compile.status === "done" && compile.result.digest).toBe(REV_B);
    await controls.exportZip();
    expect(saved.map((d) => d.filename)).toEqual(["qc.zip"]);
    const exported = controls.getState().export;
    expect(exported.status === "done" && exported.result).toEqual({ filename: "qc.zip", bytes: 4 });
  });

  it("shows an agent's compile from the feed, but never instead of this tab's own", () => {
    const { controls } = setup();
    controls.feedTap.event(feedEvent(1, "compile", { source: { kind: "agent", activity: null }, summary: compileSummary }));
    expect(controls.getState().compileSource).toBe("agent");
    expect(controls.getState().compile.status).toBe("done");
  });
});

describe("evidenceVerdict: validated only on the evidence's word", () => {
  const view = (value: unknown, graphRevision = REV_A): EvidenceView => ({ graphRevision, loading: false, lookup: lookup(value), error: undefined });

  it("never calls a graph validated without a lookup, or with no receipt (a compiled graph)", () => {
    expect(evidenceVerdict(undefined, REV_A)).toMatchObject({ validated: false, label: "Not validated" });
    expect(evidenceVerdict(view({ graph_revision: REV_A, validated: false, receipts: [], problems: [] }), REV_A)).toMatchObject({
      validated: false,
      label: "Not validated",
    });
  });

  it("calls it validated only for a verified, passed receipt of this very revision", () => {
    const passed = { graph_revision: REV_A, validated: true, receipts: [receipt("passed")], problems: [] };
    expect(evidenceVerdict(view(passed), REV_A)).toMatchObject({ validated: true, label: "Validated", tone: "success" });
    // The lookup is of another revision than the one on screen.
    expect(evidenceVerdict(view(passed), REV_B).validated).toBe(false);
    // A passed receipt the runtime did not count as validation (e.g. unverified) is not evidence.
    expect(evidenceVerdict(view({ ...passed, validated: false }), REV_A).validated).toBe(false);
    // The runtime's flag without a passed receipt of this revision is not enough either.
    expect(evidenceVerdict(view({ ...passed, receipts: [receipt("passed", REV_B)] }), REV_A).validated).toBe(false);
  });

  it("says that a source pipeline's preview ran no task", () => {
    const preview = {
      repository: "nf-core/demo",
      commit: "04060b4644d68649180db796e89a3db2a466a8d8",
      tree_digest: REV_B,
      proves: "the pinned pipeline parses and its DAG resolves",
      does_not_prove: "no task ran",
    };
    const passed = { graph_revision: REV_A, validated: false, previewed: true, receipts: [{ ...receipt("passed"), source_preview: preview }], problems: [] };
    const verdict = evidenceVerdict(view(passed), REV_A);
    expect(verdict).toMatchObject({ validated: false, label: "Previewed", tone: "success" });
    expect(verdict.detail).toContain("nf-core/demo@04060b4: the pinned pipeline parses and its DAG resolves; no task ran.");
  });

  it("never counts a preview as a validation, whatever the flag says", () => {
    const preview = { repository: "nf-core/demo", commit: "04060b4644d68649180db796e89a3db2a466a8d8", tree_digest: REV_B, proves: "it parses", does_not_prove: "no task ran" };
    const forged = { graph_revision: REV_A, validated: true, previewed: false, receipts: [{ ...receipt("passed"), source_preview: preview }], problems: [] };
    expect(evidenceVerdict(view(forged), REV_A)).toMatchObject({ validated: false, label: "Validation failed" });
  });

  it("says why a validation did not pass", () => {
    const inconclusive = view({ graph_revision: REV_A, validated: false, receipts: [receipt("inconclusive", REV_A, "no finished task for trim")], problems: [] });
    expect(evidenceVerdict(inconclusive, REV_A)).toMatchObject({ validated: false, label: "Validation inconclusive", detail: "no finished task for trim" });
    const failed = view({ graph_revision: REV_A, validated: false, receipts: [receipt("failed", REV_A, "trim failed")], problems: [{ digest: REV_B, problem: "tampered", detail: "x" }] });
    expect(evidenceVerdict(failed, REV_A)).toMatchObject({ label: "Validation failed", tone: "danger" });
    expect(evidenceVerdict(failed, REV_A).detail).toContain("1 receipt(s) failed verification");
  });
});
