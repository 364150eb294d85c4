import { describe, expect, it } from "vitest";
import { workflowDocument } from "./schemas";
import { nfcoreSearchPage } from "./sourceSchemas";
import { catalogFreshness, formatAge } from "../source/catalog";

const COMMIT = "04060b4644d68649180db796e89a3db2a466a8d8";
const DIGEST = `blake3:${"ab".repeat(32)}`;

/** A source node as the contract of issue 18 writes it. */
function sourceNode(commit = COMMIT) {
  return {
    id: "source",
    operator_id: "workflow.source",
    operator_revision: DIGEST,
    ports: { in: [], out: [] },
    params: { outdir: "results" },
    x: 0,
    y: 0,
    source: {
      provider: "nf-core",
      repository: "nf-core/demo",
      release: "1.0.1",
      git_ref: null,
      commit,
      tree_digest: DIGEST,
      entry: "main.nf",
      name: "nf-core/demo",
      description: "An nf-core demo pipeline",
      nextflow_version: "!>=24.04.2",
      params: [
        {
          name: "input", group: "input_output_options", type: "string", description: "Samplesheet", help_text: null, default: null,
          enum: [], pattern: "^\\S+\\.csv$", minimum: null, maximum: null, format: "file-path", exists: true, required: true, hidden: false,
        },
      ],
      processes: [{ name: "FASTQC", file: "modules/nf-core/fastqc/main.nf", line: 1, environment: "modules/nf-core/fastqc/environment.yml" }],
    },
  };
}

const documentWith = (node: unknown) => ({ schema_version: 1, title: "t", nodes: [node], edges: [], notes: [], stages: [] });

describe("the source pin on a workflow node", () => {
  it("is kept when the document is read, with its typed parameters", () => {
    const parsed = workflowDocument.parse(documentWith(sourceNode()));
    const pin = parsed.nodes[0]?.source;
    expect(pin?.repository).toBe("nf-core/demo");
    expect(pin?.params[0]).toMatchObject({ name: "input", format: "file-path", exists: true, required: true });
    expect(pin?.processes[0]?.environment).toBe("modules/nf-core/fastqc/environment.yml");
  });

  it("is absent on a native node", () => {
    const { source: _source, ...native } = sourceNode();
    expect(workflowDocument.parse(documentWith(native)).nodes[0]?.source).toBeUndefined();
  });

  it("refuses a pin that is not a full commit (a branch or tag is never a source)", () => {
    expect(workflowDocument.safeParse(documentWith(sourceNode("main"))).success).toBe(false);
  });
});

describe("the nf-core search page", () => {
  const page = {
    query: "demo",
    catalog: { source_url: "https://nf-co.re/pipelines.json", revision: DIGEST, fetched_at: "2026-12-04T04:00:00Z", age_seconds: 7300, origin: "offline", offline_reason: "nf-co.re did not answer" },
    total_matches: 1,
    matches: [
      {
        name: "demo", repository: "nf-core/demo", description: "An nf-core demo pipeline", topics: ["demo"], archived: false, score: 12,
        matched_terms: ["demo"], latest_release: { tag: "1.0.1", commit: COMMIT, published_at: "2024-11-01T00:00:00Z" },
        releases: [{ tag: "1.0.1", commit: COMMIT, published_at: "2024-11-01T00:00:00Z" }],
      },
    ],
    next_cursor: null,
  };

  it("reads an offline catalog and says how old it is", () => {
    const parsed = nfcoreSearchPage.parse(page);
    expect(catalogFreshness(parsed.catalog)).toBe("Offline: the last good nf-core catalog, 2 h old");
    expect(parsed.matches[0]?.releases[0]?.commit).toBe(COMMIT);
  });

  it("refuses a release whose commit is not a full SHA", () => {
    const bad = structuredClone(page);
    const release = bad.matches[0]?.releases[0];
    if (release) release.commit = "1.0.1";
    expect(nfcoreSearchPage.safeParse(bad).success).toBe(false);
  });

  it("formats ages the way a person reads them", () => {
    expect([formatAge(5), formatAge(125), formatAge(7300), formatAge(200_000)]).toEqual(["5 s", "2 min", "2 h", "2 d"]);
  });
});
