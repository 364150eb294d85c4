import { describe, expect, it } from "vitest";
import { DEMO_COMMIT, DEMO_TREE, emptyDocument, node, replacement, revisionOf, sourceNode } from "../testing/documents";
import { FASTQC, MULTIQC } from "../testing/sourceEdit";
import { ApiError } from "./errors";
import { HttpClient } from "./http";
import { assessment } from "./schemas";
import { createSourceApi } from "./sourceEndpoints";

function client(answer: () => Response) {
  const seen: { path: string; method: string | undefined; body: unknown }[] = [];
  const http = new HttpClient((input, init) => {
    seen.push({ path: input, method: init.method, body: typeof init.body === "string" ? JSON.parse(init.body) : undefined });
    return Promise.resolve(answer());
  });
  return { api: createSourceApi(http), seen };
}

const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });
const base = { base_state_revision: revisionOf("state"), idempotency_key: "promote-key-0001" };

/** The reply of a promotion as the contract of issue 22 shapes it: the variant, its origin recorded. */
function promoted() {
  const source = { ...sourceNode(), replacements: [replacement(FASTQC, "qc.fastqc", { reads: "reads" }, { html: "report_html" })] };
  return {
    previous_state_revision: base.base_state_revision,
    state_revision: revisionOf("variant state"),
    graph_revision: revisionOf("variant graph"),
    summary: "Promote FASTQC to a native variant",
    operations: 1,
    replayed: false,
    cursor: 7,
    epoch: "a1",
    document: {
      ...emptyDocument("Demo"),
      nodes: [node("fastqc", "qc.fastqc", 0, 0)],
      variant_origin: {
        source_node_id: "source",
        provider: "nf-core",
        repository: "nf-core/demo",
        release: "1.0.1",
        commit: DEMO_COMMIT,
        tree_digest: DEMO_TREE,
        promoted: [{ invocation: FASTQC, node_id: "fastqc", how: "selected" }],
        unrepresented: [{ invocation: MULTIQC, process: "MULTIQC", reason: "no catalog operator stands for MULTIQC" }],
        source,
      },
    },
  };
}

describe("the promote route", () => {
  it("posts the picked invocations with the compare-and-swap base and reads the variant with its origin", async () => {
    const { api, seen } = client(() => json(promoted()));
    const reply = await api.promote("source", [FASTQC], base);
    expect(seen).toEqual([{ path: "/api/source/nodes/source/promote", method: "POST", body: { ...base, invocations: [FASTQC] } }]);
    const origin = reply.document?.variant_origin;
    expect(origin?.promoted).toEqual([{ invocation: FASTQC, node_id: "fastqc", how: "selected" }]);
    expect(origin?.unrepresented.map((u) => u.process)).toEqual(["MULTIQC"]);
    expect(origin?.source.replacements?.[0]?.outputs).toEqual([{ invocation_port: "html", operator_port: "report_html" }]);
  });

  it("turns a refusal naming the obstacle into the runtime's code and details", async () => {
    const refusal = {
      code: "promotion_refused",
      message: "MULTIQC is not replaced",
      recovery: "Replace it with a catalog operator first, or leave it out",
      details: { invocation: MULTIQC, obstacle: "not_replaced" },
    };
    const { api } = client(() => json(refusal, 422));
    const error = await api.promote("source", [MULTIQC], base).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "promotion_refused", details: { invocation: MULTIQC, obstacle: "not_replaced" } });
  });

  it("refuses a variant whose origin names a commit that is not a full one", async () => {
    const reply = promoted();
    const { api } = client(() => json({ ...reply, document: { ...reply.document, variant_origin: { ...reply.document.variant_origin, commit: "main" } } }));
    await expect(api.promote("source", [FASTQC], base)).rejects.toThrow();
  });
});

describe("a variant's readiness", () => {
  it("reads a step no native node stands for as a blocking requirement of its own kind", () => {
    const item = {
      id: `unrepresented_source_step:${MULTIQC}`,
      node_id: null,
      operator_id: null,
      field: MULTIQC,
      title: "Add a native node for MULTIQC",
      detail: "The variant of nf-core/demo has no native node for MULTIQC.",
      kind: "unrepresented_source_step",
      priority: 1,
      required: true,
      escalatable: false,
      resolutions: [],
      recipes: [],
      evidence: {},
    };
    const parsed = assessment.parse({
      graph_revision: revisionOf("variant graph"),
      catalog_revision: revisionOf("catalog"),
      state: "needs_action",
      required_count: 1,
      counts: { unrepresented_source_step: 1 },
      next_requirement: item.id,
      items: [item],
      nodes: [],
    });
    expect(parsed.items[0]?.kind).toBe("unrepresented_source_step");
    expect(parsed.counts.unrepresented_source_step).toBe(1);
  });
});
