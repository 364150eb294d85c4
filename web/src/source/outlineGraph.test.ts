import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Outline } from "../api/sourceSchemas";
import { outline as outlineSchema } from "../api/sourceSchemas";
import { entryWorkflow, findWorkflow, outlineGraph } from "./outlineGraph";

/** The outline crate's own snapshot of a real pipeline: the web reads exactly what the runtime serves. */
function snapshot(name: string): Outline {
  const path = join(dirname(fileURLToPath(import.meta.url)), "../../../crates/somite-outline/tests/it/snapshots", `it__fixtures__${name}.snap`);
  const text = readFileSync(path, "utf8");
  return outlineSchema.parse(JSON.parse(text.slice(text.indexOf("\n{") + 1)));
}

const demo = snapshot("nf-core-demo-1.0.1");
const fetchngs = snapshot("nf-core-fetchngs-1.12.0");

function edgePairs(graph: ReturnType<typeof outlineGraph>): string[] {
  const labels = new Map(graph.nodes.map((n) => [n.id, n.label]));
  return graph.edges.map((e) => `${labels.get(e.source) ?? "?"} -> ${labels.get(e.target) ?? "?"}${e.label ? ` (${e.label})` : ""}`);
}

describe("outlineGraph of nf-core/demo 1.0.1", () => {
  it("starts at the entry workflow, whose calls follow the samplesheet channel", () => {
    const entry = entryWorkflow(demo);
    expect(entry?.name).toBeNull();
    if (!entry) return;
    const graph = outlineGraph(demo, entry);
    expect(edgePairs(graph)).toContain("PIPELINE_INITIALISATION -> NFCORE_DEMO (samplesheet)");
    expect(edgePairs(graph)).toContain("NFCORE_DEMO -> PIPELINE_COMPLETION (multiqc_report)");
    expect(edgePairs(graph)).toContain("params.input -> PIPELINE_INITIALISATION");
    const column = (label: string) => graph.nodes.find((n) => n.label === label)?.x;
    expect(column("params.input")).toBe(0);
    expect(column("PIPELINE_INITIALISATION")).toBeLessThan(column("NFCORE_DEMO") ?? 0);
    expect(column("NFCORE_DEMO")).toBeLessThan(column("PIPELINE_COMPLETION") ?? 0);
    // A workflow call opens into its block; the block exists in the outline.
    const nfcore = graph.nodes.find((n) => n.label === "NFCORE_DEMO");
    expect(nfcore?.opens).toEqual({ name: "NFCORE_DEMO", file: "main.nf" });
    expect(nfcore?.opens && findWorkflow(demo, nfcore.opens)?.calls.map((c) => c.name)).toEqual(["DEMO"]);
  });

  it("draws the processes of DEMO with the channels between them and their source locations", () => {
    const block = findWorkflow(demo, { name: "DEMO", file: "workflows/demo.nf" });
    expect(block).toBeDefined();
    if (!block) return;
    const graph = outlineGraph(demo, block);
    const processes = graph.nodes.filter((n) => n.kind === "process").map((n) => n.label);
    expect(processes).toEqual(["FASTQC", "SEQTK_TRIM", "MULTIQC"]);
    expect(edgePairs(graph)).toEqual(
      expect.arrayContaining([
        "ch_samplesheet -> FASTQC",
        "ch_samplesheet -> SEQTK_TRIM",
        "FASTQC -> MULTIQC (zip)",
        "FASTQC -> softwareVersionsToYAML (versions)",
        "MULTIQC -> multiqc_report (report)",
      ]),
    );
    const fastqc = graph.nodes.find((n) => n.label === "FASTQC");
    expect(fastqc?.location).toMatch(/^workflows\/demo\.nf:\d+$/);
    expect(fastqc?.detail).toContain("modules/nf-core/fastqc/main.nf");
    expect(graph.nodes.find((n) => n.label === "paramsSummaryMap")?.kind).toBe("unresolved");
  });

  it("gives every node a distinct id and place, even for a name called twice", () => {
    const block = findWorkflow(demo, { name: "UTILS_NFSCHEMA_PLUGIN", file: "subworkflows/nf-core/utils_nfschema_plugin/main.nf" });
    if (!block) throw new Error("no UTILS_NFSCHEMA_PLUGIN block");
    const graph = outlineGraph(demo, block);
    expect(graph.nodes.filter((n) => n.label === "paramsSummaryLog")).toHaveLength(2);
    expect(new Set(graph.nodes.map((n) => n.id)).size).toBe(graph.nodes.length);
    expect(new Set(graph.nodes.map((n) => `${String(n.x)},${String(n.y)}`)).size).toBe(graph.nodes.length);
  });
});

describe("outlineGraph of nf-core/fetchngs 1.12.0", () => {
  it("follows SRA's download branches into the samplesheet step", () => {
    const block = findWorkflow(fetchngs, { name: "SRA", file: "workflows/sra/main.nf" });
    if (!block) throw new Error("no SRA block");
    const graph = outlineGraph(fetchngs, block);
    expect(edgePairs(graph)).toEqual(
      expect.arrayContaining([
        "SRA_IDS_TO_RUNINFO -> SRA_RUNINFO_TO_FTP (tsv)",
        "FASTQ_DOWNLOAD_PREFETCH_FASTERQDUMP_SRATOOLS -> SRA_TO_SAMPLESHEET (reads)",
        "params.download_method -> SRA_FASTQ_FTP",
      ]),
    );
    const column = (label: string) => graph.nodes.find((n) => n.label === label)?.x ?? -1;
    expect(column("SRA_TO_SAMPLESHEET")).toBeGreaterThan(column("SRA_FASTQ_FTP"));
    expect(graph.nodes.find((n) => n.label === "FASTQ_DOWNLOAD_PREFETCH_FASTERQDUMP_SRATOOLS")?.opens?.name).toBe(
      "FASTQ_DOWNLOAD_PREFETCH_FASTERQDUMP_SRATOOLS",
    );
  });

  it("keeps opaque steps with their source location", () => {
    const entry = entryWorkflow(fetchngs);
    if (!entry) throw new Error("no entry workflow");
    const withOpaque = { ...entry, opaque: [{ kind: "publish", excerpt: "publish:", location: { file: "main.nf", line: 99 } }] };
    const node = outlineGraph(fetchngs, withOpaque).nodes.find((n) => n.kind === "opaque");
    expect(node).toMatchObject({ label: "publish", location: "main.nf:99", detail: "publish:" });
  });
});
