import { afterEach, describe, expect, it, vi } from "vitest";
import type { WorkflowDocument } from "../api/types";
import { DEMO_COMMIT, DEMO_TREE, canonical, emptyDocument, node, sourceNode } from "../testing/documents";
import { FakeRuntime } from "../testing/fakeRuntime";
import { sourcePin } from "../api/sourceSchemas";
import { Workspace } from "./workspace";

const start: WorkflowDocument = {
  ...emptyDocument("QC"),
  nodes: [node("reads", "files.import_fastq", 0, 0)],
};

let workspace: Workspace | undefined;

afterEach(() => {
  workspace?.stop();
  workspace = undefined;
  vi.useRealTimers();
});

async function open(runtime: FakeRuntime, holeFillDelayMs = 1000): Promise<Workspace> {
  workspace = new Workspace({ api: runtime.api, openFeed: runtime.openFeed, holeFillDelayMs, resyncRetryMs: 10 });
  await workspace.start();
  return workspace;
}

/** Lets queued promise callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function documentOf(ws: Workspace): WorkflowDocument {
  const snapshot = ws.getState().snapshot;
  if (!snapshot) throw new Error("the workspace has not loaded");
  return snapshot.document;
}

const titleOf = (ws: Workspace) => ws.getState().snapshot?.document.title;
const summaries = (ws: Workspace) => ws.getState().history.entries.map((e) => `${e.done ? "" : "~"}${e.summary}`);

describe("Workspace: exactly-once delivery to canvas history", () => {
  it("records this tab's edit once although the reply and the feed both carry it", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    const result = await ws.edit("Rename", [{ op: "set_title", title: "Reads QC" }]);
    expect(result.ok).toBe(true);
    runtime.redeliver(1);
    expect(titleOf(ws)).toBe("Reads QC");
    expect(summaries(ws)).toEqual(["Rename"]);
  });

  it("applies an event the feed repeats after a reconnect once", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    runtime.applyAs("agent", "Agent renames", [{ op: "set_title", title: "Agent title" }]);
    runtime.redeliver(1);
    runtime.redeliver(1);
    await settle();
    expect(runtime.fetchedRevisions).toHaveLength(1);
    expect(summaries(ws)).toEqual(["Agent renames"]);
    expect(ws.getState().history.entries[0]?.source).toBe("agent");
  });

  it("holds a reply that overtakes an earlier feed event and applies both in cursor order", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    runtime.autoDeliver = false;
    // An agent message takes cursor 1 and is still on its way when this
    // tab's edit commits as cursor 2: the reply arrives first.
    runtime.publishOther("agent_message");
    const result = await ws.edit("Rename", [{ op: "set_title", title: "Mine" }]);
    expect(result.ok).toBe(true);
    expect(titleOf(ws)).toBe("QC");
    runtime.deliver();
    await settle();
    expect(titleOf(ws)).toBe("Mine");
    expect(summaries(ws)).toEqual(["Rename"]);
  });

  it("refuses an edit based on a state the feed has not delivered yet", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    runtime.autoDeliver = false;
    runtime.applyAs("agent", "Agent adds QC", [{ op: "add_operator", node_id: "qc", operator_id: "qc.fastqc", x: 300, y: 0 }]);
    const refused = await ws.edit("Rename", [{ op: "set_title", title: "Mine" }], { reportErrors: false });
    expect(refused.ok).toBe(false);
    runtime.deliver();
    expect(await ws.edit("Rename", [{ op: "set_title", title: "Mine" }])).toEqual({ ok: true });
    expect(summaries(ws)).toEqual(["Agent adds QC", "Rename"]);
    expect(canonical(documentOf(ws))).toEqual(canonical(runtime.document));
  });

  it("buffers out-of-order feed events until the missing one arrives", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    runtime.autoDeliver = false;
    runtime.applyAs("agent", "First", [{ op: "set_title", title: "one" }]);
    runtime.applyAs("human", "Second", [{ op: "set_title", title: "two" }]);
    runtime.deliver((events) => [...events].reverse().slice(0, 1));
    await settle();
    expect(titleOf(ws)).toBe("QC");
    runtime.redeliver(1);
    await settle();
    expect(titleOf(ws)).toBe("two");
    expect(summaries(ws)).toEqual(["First", "Second"]);
  });

  it("fetches missing events from the backlog when the feed never fills the hole", async () => {
    vi.useFakeTimers();
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime, 500);
    runtime.autoDeliver = false;
    runtime.applyAs("agent", "First", [{ op: "set_title", title: "one" }]);
    runtime.applyAs("agent", "Second", [{ op: "set_title", title: "two" }]);
    runtime.deliver((events) => events.slice(1));
    expect(titleOf(ws)).toBe("QC");
    await vi.advanceTimersByTimeAsync(600);
    expect(titleOf(ws)).toBe("two");
    expect(summaries(ws)).toEqual(["First", "Second"]);
  });

  it("counts feed events of other kinds as part of the cursor sequence", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    runtime.publishOther("agent_message");
    runtime.applyAs("agent", "Rename", [{ op: "set_title", title: "after message" }]);
    await settle();
    expect(titleOf(ws)).toBe("after message");
    expect(summaries(ws)).toEqual(["Rename"]);
  });

  it("resynchronises from the workflow after a gap and restarts the history", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    await ws.edit("Rename", [{ op: "set_title", title: "one" }]);
    runtime.autoDeliver = false;
    runtime.applyAs("agent", "Lost", [{ op: "set_title", title: "lost edit" }]);
    runtime.undelivered.length = 0;
    runtime.firstAvailable = 3;
    runtime.broadcastGap(1, 3);
    await settle();
    expect(titleOf(ws)).toBe("lost edit");
    expect(ws.getState().history.entries).toEqual([]);
    expect(ws.getState().notices.some((n) => n.title.includes("Reloaded the workflow"))).toBe(true);
    expect(runtime.openSubscribers).toBe(1);
  });

  it("rejects a malformed transaction event and reloads instead of applying it", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    runtime.broadcastRaw({ cursor: 1, kind: "transaction", time_ms: 0, data: { outcome: "not an outcome" } });
    await settle();
    expect(ws.getState().notices.at(-1)?.title).toMatch(/does not match its contract/);
    expect(titleOf(ws)).toBe("QC");
  });
});

describe("Workspace: documents by revision and runtime restarts", () => {
  it("fetches the graph of each foreign transaction by its state revision, one history entry each", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    runtime.applyAs("agent", "One", [{ op: "set_title", title: "one" }]);
    const first = runtime.stateRevision;
    runtime.applyAs("agent", "Two", [{ op: "set_title", title: "two" }]);
    await settle();
    expect(runtime.fetchedRevisions).toEqual([first, runtime.stateRevision]);
    expect(summaries(ws)).toEqual(["One", "Two"]);
    await ws.undo();
    expect(runtime.document.title).toBe("one");
  });

  it("does not fetch the graph of this tab's own edit: the reply carries it", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    await ws.edit("Rename", [{ op: "set_title", title: "Mine" }]);
    await settle();
    expect(runtime.fetchedRevisions).toEqual([]);
    expect(summaries(ws)).toEqual(["Rename"]);
  });

  it("reloads the workflow when the graph of an edit is no longer held", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    runtime.autoDeliver = false;
    runtime.applyAs("agent", "Gone", [{ op: "set_title", title: "gone" }]);
    runtime.forgetDocuments();
    runtime.deliver();
    await settle();
    await settle();
    expect(titleOf(ws)).toBe("gone");
    expect(ws.getState().history.entries).toEqual([]);
    expect(ws.getState().notices.at(-1)?.title).toMatch(/Reloaded the workflow/);
  });

  it("rebinds a project awaiting recovery without a restart, and follows another window's rebind", async () => {
    const runtime = new FakeRuntime(start);
    runtime.recoveryRequired = "the graph on disk is not the one its sidecar recorded";
    const ws = await open(runtime);
    expect(ws.getState().recoveryRequired).toMatch(/sidecar/);
    await ws.rebind();
    await settle();
    expect(ws.getState().recoveryRequired).toBeNull();
    expect(runtime.events.at(-1)?.kind).toBe("rebind");

    // Another window rebinds: this one reads the project again.
    const other = new FakeRuntime(start);
    other.recoveryRequired = "moved by hand";
    const watching = await open(other);
    expect(watching.getState().recoveryRequired).toBe("moved by hand");
    await other.api.rebind();
    await settle();
    await settle();
    expect(watching.getState().recoveryRequired).toBeNull();
  });

  it("reloads on a reset after a restart and then follows every new edit", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    for (const title of ["a", "b", "c"]) runtime.applyAs("agent", title, [{ op: "set_title", title }]);
    await settle();
    expect(summaries(ws)).toEqual(["a", "b", "c"]);
    runtime.restart();
    await settle();
    expect(ws.getState().notices.at(-1)?.title).toMatch(/restarted/);
    expect(ws.getState().history.entries).toEqual([]);
    // The new process's cursors start at 1 again: none is mistaken for one already applied.
    for (const title of ["d", "e", "f", "g", "h"]) runtime.applyAs("agent", title, [{ op: "set_title", title }]);
    await settle();
    expect(titleOf(ws)).toBe("h");
    expect(summaries(ws)).toEqual(["d", "e", "f", "g", "h"]);
    expect(runtime.openSubscribers).toBe(1);
    // Edits go on against the new feed.
    expect(await ws.edit("Mine", [{ op: "set_title", title: "mine" }])).toEqual({ ok: true });
    expect(summaries(ws)).toEqual(["d", "e", "f", "g", "h", "Mine"]);
  });

  it("reloads when a reply comes from another runtime process than the feed it follows", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    // Restarted with no stream open to tell the tab (it was reconnecting).
    runtime.epoch = "b2";
    expect(await ws.edit("Rename", [{ op: "set_title", title: "after restart" }])).toEqual({ ok: true });
    await settle();
    expect(titleOf(ws)).toBe("after restart");
    expect(ws.getState().history.entries).toEqual([]);
  });
});

describe("Workspace: undo and redo over mixed human and agent edits", () => {
  async function session() {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    await ws.edit("Add FastQC", [{ op: "add_operator", node_id: "qc", operator_id: "qc.fastqc", x: 300, y: 0 }]);
    runtime.applyAs("agent", "Agent connects reads", [
      { op: "connect", edge_id: "reads-qc", from_node: "reads", from_port: "reads", to_node: "qc", to_port: "reads" },
    ]);
    runtime.applyAs("agent", "Agent sets threads", [{ op: "set_param", node_id: "qc", param: "threads", value: 4 }]);
    await ws.edit("Move FastQC", [{ op: "move", node_id: "qc", x: 320, y: 40 }]);
    return { runtime, ws };
  }

  it("has one entry per transaction, in cursor order", async () => {
    const { ws } = await session();
    expect(summaries(ws)).toEqual(["Add FastQC", "Agent connects reads", "Agent sets threads", "Move FastQC"]);
    expect(ws.getState().history.entries.map((e) => e.source)).toEqual(["human", "agent", "agent", "human"]);
  });

  it("undoes one edit at a time, newest first, whoever made it", async () => {
    const { runtime, ws } = await session();
    await ws.undo();
    expect(runtime.document.nodes.find((n) => n.id === "qc")).toMatchObject({ x: 300, y: 0 });
    await ws.undo();
    expect(runtime.document.nodes.find((n) => n.id === "qc")?.params).toEqual({});
    await ws.undo();
    expect(runtime.document.edges).toEqual([]);
    await ws.undo();
    expect(runtime.document.nodes.map((n) => n.id)).toEqual(["reads"]);
    expect(summaries(ws)).toEqual(["~Add FastQC", "~Agent connects reads", "~Agent sets threads", "~Move FastQC"]);
    expect(ws.getState().history.undoSummary).toBeUndefined();
    // Undo transactions are sent as compare-and-swap edits with their own summaries.
    expect(runtime.requests.slice(-4).map((r) => r.summary)).toEqual([
      "Undo: Move FastQC",
      "Undo: Agent sets threads",
      "Undo: Agent connects reads",
      "Undo: Add FastQC",
    ]);
  });

  it("redoes in the original order and lands on the same graph", async () => {
    const { runtime, ws } = await session();
    const finished = canonical(runtime.document);
    for (let i = 0; i < 4; i++) await ws.undo();
    for (let i = 0; i < 4; i++) await ws.redo();
    expect(canonical(runtime.document)).toEqual(finished);
    expect(canonical(documentOf(ws))).toEqual(finished);
    expect(summaries(ws)).toEqual(["Add FastQC", "Agent connects reads", "Agent sets threads", "Move FastQC"]);
    expect(ws.getState().history.redoSummary).toBeUndefined();
  });

  it("records the undo's feed copy as a move of the position, not a new entry", async () => {
    const { runtime, ws } = await session();
    await ws.undo();
    runtime.redeliver(runtime.lastCursor);
    await settle();
    expect(ws.getState().history.entries).toHaveLength(4);
    expect(ws.getState().history.redoSummary).toBe("Move FastQC");
  });

  it("a new edit after undo discards the redo branch", async () => {
    const { runtime, ws } = await session();
    await ws.undo();
    runtime.applyAs("agent", "Agent renames", [{ op: "set_title", title: "Agent" }]);
    await settle();
    expect(ws.getState().history.redoSummary).toBeUndefined();
    expect(ws.getState().history.undoSummary).toBe("Agent renames");
  });

  it("an agent edit that lands while an undo is in flight makes the undo fail safely", async () => {
    const { runtime, ws } = await session();
    // The agent commits while the undo is on its way: its base is now stale.
    runtime.beforeNextTransaction(() => {
      runtime.applyAs("agent", "Agent renames", [{ op: "set_title", title: "Agent" }]);
    });
    await ws.undo();
    expect(runtime.document.title).toBe("Agent");
    expect(runtime.document.nodes.find((n) => n.id === "qc")).toMatchObject({ x: 320, y: 40 });
    expect(ws.getState().notices.at(-1)?.title).toMatch(/changed before this edit arrived/);
    expect(ws.getState().history.undoSummary).toBe("Agent renames");
  });

  it("keeps the readiness assessment for the graph on screen", async () => {
    const { ws } = await session();
    await settle();
    const { readiness, snapshot } = ws.getState();
    expect(readiness?.graph_revision).toBe(snapshot?.graphRevision);
  });
});

describe("Workspace: transactions the runtime composes (placing a source workflow)", () => {
  it("sends them on the newest state with a fresh idempotency key and applies the reply", async () => {
    const runtime = new FakeRuntime(emptyDocument("Empty"));
    const ws = await open(runtime);
    const before = runtime.stateRevision;
    const bases: { base_state_revision: string; idempotency_key: string }[] = [];
    // Stands for POST /api/source/nfcore/resolve: the runtime builds the operation.
    const result = await ws.place((base) => {
      bases.push(base);
      return runtime.api.applyTransaction({ ...base, summary: "Start from nf-core/demo 1.0.1", operations: [{ op: "add_operator", node_id: "source", operator_id: "files.import_fastq", x: 0, y: 0 }] });
    });
    expect(result).toEqual({ ok: true });
    expect(bases.map((b) => b.base_state_revision)).toEqual([before]);
    expect(bases[0]?.idempotency_key).toMatch(/^[A-Za-z0-9_-]{8,128}$/);
    expect(documentOf(ws).nodes.map((n) => n.id)).toEqual(["source"]);
    expect(summaries(ws)).toEqual(["Start from nf-core/demo 1.0.1"]);
  });

  it("returns the runtime's refusal without a notice when the caller shows it in place", async () => {
    const runtime = new FakeRuntime(emptyDocument("Empty"));
    const ws = await open(runtime);
    runtime.applyAs("agent", "Agent renames", [{ op: "set_title", title: "Changed" }]);
    const result = await ws.place((base) =>
      runtime.api.applyTransaction({ ...base, base_state_revision: `blake3:${"0".repeat(64)}`, summary: "stale", operations: [] }),
    { reportErrors: false });
    expect(result.ok).toBe(false);
    expect(!result.ok && (result.error as { code?: string }).code).toBe("stale_revision");
    expect(ws.getState().notices).toEqual([]);
  });

  it("undoes placing a pipeline as an edit but says redo means resolving it again", async () => {
    const runtime = new FakeRuntime(emptyDocument("Empty"));
    const ws = await open(runtime);
    const pin = sourcePin.parse({
      provider: "nf-core", repository: "nf-core/demo", release: "1.0.1", git_ref: null,
      commit: "04060b4644d68649180db796e89a3db2a466a8d8", tree_digest: `blake3:${"cd".repeat(32)}`,
      entry: "main.nf", name: "nf-core/demo",
    });
    await ws.place(async (base) => {
      const reply = await runtime.api.applyTransaction({ ...base, summary: "Start from nf-core/demo", operations: [{ op: "add_operator", node_id: "source", operator_id: "files.import_fastq", x: 0, y: 0 }] });
      // The runtime's reply carries the pinned node (the fake has no resolve of its own).
      return reply.document ? { ...reply, document: { ...reply.document, nodes: reply.document.nodes.map((n) => ({ ...n, source: pin })) } } : reply;
    });
    await ws.undo();
    expect(runtime.document.nodes).toEqual([]);
    await ws.redo();
    expect(runtime.document.nodes).toEqual([]);
    expect(ws.getState().notices.at(-1)?.title).toBe("Placing nf-core/demo cannot be redone as an edit");
  });
});

describe("Workspace: editing a source workflow and promoting it (issue 22)", () => {
  const FASTQC = "NFCORE_DEMO:DEMO:FASTQC";

  /** Stands for POST /api/source/nodes/{id}/promote: the variant the runtime composes. */
  const promoteIn = (runtime: FakeRuntime) => {
    const calls: { nodeId: string; invocations: readonly string[] }[] = [];
    const promote = (nodeId: string, invocations: readonly string[], base: { base_state_revision: string; idempotency_key: string }) => {
      calls.push({ nodeId, invocations });
      return runtime.compose(base, "Promote FASTQC to a native variant", (document) => {
        const source = document.nodes.find((n) => n.id === nodeId);
        if (!source?.source) throw new Error("no source node");
        return {
          ...document,
          nodes: [node("fastqc", "qc.fastqc", 0, 0)],
          edges: [],
          variant_origin: {
            source_node_id: nodeId,
            provider: "nf-core",
            repository: "nf-core/demo",
            release: "1.0.1",
            commit: DEMO_COMMIT,
            tree_digest: DEMO_TREE,
            promoted: invocations.map((invocation) => ({ invocation, node_id: "fastqc", how: "selected" as const })),
            unrepresented: [],
            source,
          },
        };
      });
    };
    return { calls, promote };
  };

  it("undoes and redoes a replacement, then a promotion (revert_variant back, the same promotion forward)", async () => {
    const runtime = new FakeRuntime({ ...emptyDocument("Demo"), nodes: [sourceNode()] });
    const { calls, promote } = promoteIn(runtime);
    workspace = new Workspace({ api: runtime.api, openFeed: runtime.openFeed, promote });
    const ws = workspace;
    await ws.start();

    const replace = { op: "replace_invocation" as const, node_id: "source", invocation: FASTQC, operator_id: "qc.fastqc", inputs: { reads: "reads" }, outputs: { html: "report_html" } };
    expect((await ws.edit("Replace FASTQC with qc.fastqc", [replace])).ok).toBe(true);
    await ws.undo();
    expect(runtime.requests.at(-1)?.operations).toEqual([{ op: "restore_invocation", node_id: "source", invocation: FASTQC }]);
    expect(documentOf(ws).nodes[0]?.replacements).toBeUndefined();
    await ws.redo();
    expect(runtime.requests.at(-1)?.operations).toEqual([replace]);
    expect(documentOf(ws).nodes[0]?.replacements?.map((r) => r.operator_id)).toEqual(["qc.fastqc"]);

    expect((await ws.place((base) => promote("source", [FASTQC], base))).ok).toBe(true);
    expect(documentOf(ws).variant_origin?.promoted).toHaveLength(1);
    await ws.undo();
    expect(runtime.requests.at(-1)?.operations).toEqual([{ op: "revert_variant" }]);
    expect(documentOf(ws).variant_origin).toBeUndefined();
    expect(documentOf(ws).nodes.map((n) => n.id)).toEqual(["source"]);
    await ws.redo();
    expect(calls.map((c) => c.invocations)).toEqual([[FASTQC], [FASTQC]]);
    expect(documentOf(ws).nodes.map((n) => n.id)).toEqual(["fastqc"]);
    expect(summaries(ws)).toEqual(["Replace FASTQC with qc.fastqc", "Promote FASTQC to a native variant"]);
    expect(ws.getState().notices).toEqual([]);
  });

  it("declines to redo a promotion when it has no way to promote", async () => {
    const runtime = new FakeRuntime({ ...emptyDocument("Demo"), nodes: [sourceNode()] });
    const { promote } = promoteIn(runtime);
    const ws = await open(runtime);
    await ws.place((base) => promote("source", [FASTQC], base));
    await ws.undo();
    const sent = runtime.requests.length;
    await ws.redo();
    expect(runtime.requests).toHaveLength(sent);
    expect(ws.getState().notices.at(-1)?.title).toBe("“Promote FASTQC to a native variant” cannot be redone as an edit");
  });
});

describe("Workspace: the live catalog changing under the tab (an accepted project operator)", () => {
  it("takes the new catalog revision and re-assesses without reloading the workflow", async () => {
    const runtime = new FakeRuntime(start);
    const ws = await open(runtime);
    await settle();
    const before = ws.getState().catalogRevision;
    const readiness = vi.spyOn(runtime.api, "readiness");
    const workflow = vi.spyOn(runtime.api, "workflow");
    ws.catalogChanged("b3:after-accept");
    await settle();
    expect(before).not.toBe("b3:after-accept");
    expect(ws.getState().catalogRevision).toBe("b3:after-accept");
    expect(readiness).toHaveBeenCalledTimes(1);
    expect(workflow).not.toHaveBeenCalled();
    expect(documentOf(ws)).toEqual(start);
  });
});
