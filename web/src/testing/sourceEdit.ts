/**
 * Handwritten wire JSON of issue 22's contract between runtime and web (the
 * outline's `invocations` of nf-core/demo, catalog search matches),
 * shaped exactly as the runtime is to send it, for the tests of the page
 * until the runtime's own replies can be recorded.
 */
import { revisionOf } from "./documents";

export const FASTQC = "NFCORE_DEMO:DEMO:FASTQC";
export const SEQTK_TRIM = "NFCORE_DEMO:DEMO:SEQTK_TRIM";
export const MULTIQC = "NFCORE_DEMO:DEMO:MULTIQC";

/** The invocations of nf-core/demo 1.0.1 as `GET /api/source/nodes/source/outline` lists them. */
export const demoInvocations = [
  {
    id: FASTQC,
    call: "FASTQC",
    workflow: "DEMO",
    process: "FASTQC",
    file: "modules/nf-core/fastqc/main.nf",
    line: 1,
    inputs: [{ name: "reads", type: "FastqGz", text: "tuple val(meta), path(reads)" }],
    outputs: [
      { name: "html", type: "Html", text: 'tuple val(meta), path("*.html"), emit: html' },
      { name: "zip", type: "Zip", text: 'tuple val(meta), path("*.zip") , emit: zip' },
      { name: "versions", type: null, text: 'path  "versions.yml"           , emit: versions' },
    ],
    replacement: null,
  },
  {
    id: SEQTK_TRIM,
    call: "SEQTK_TRIM",
    workflow: "DEMO",
    process: "SEQTK_TRIM",
    file: "modules/nf-core/seqtk/trim/main.nf",
    line: 1,
    inputs: [{ name: "reads", type: "FastqGz", text: "tuple val(meta), path(reads)" }],
    outputs: [{ name: "reads", type: "FastqGz", text: "tuple val(meta), path(\"*.fastq.gz\"), emit: reads" }],
    replacement: null,
  },
  {
    id: MULTIQC,
    call: "MULTIQC",
    workflow: "DEMO",
    process: "MULTIQC",
    file: "modules/nf-core/multiqc/main.nf",
    line: 1,
    inputs: [{ name: "multiqc_files", type: null, text: 'path  multiqc_files, stageAs: "?/*"' }],
    outputs: [{ name: "report", type: "Html", text: 'path "*multiqc_report.html", emit: report' }],
    replacement: null,
  },
];

const port = (name: string, type: string, union: string[] = [], optional = false) => ({ name, type, union, optional });

/** Catalog search matches (`GET /api/catalog/search`) as the runtime sends them, trimmed to what matters here. */
export function catalogMatch(id: string, inputs: ReturnType<typeof port>[], outputs: ReturnType<typeof port>[]) {
  return {
    id,
    title: `${id}: an operator`,
    palette: "Quality control",
    kind: "external" as const,
    revision: revisionOf(`${id}@1`),
    score: 1,
    matched_terms: [],
    packages: {},
    inputs,
    outputs,
    params: [],
  };
}

export const fastqcMatch = catalogMatch("qc.fastqc", [port("reads", "Fastq", ["FastqGz"])], [port("report_html", "Html"), port("report_zip", "Zip")]);
export const fastpMatch = catalogMatch("qc.fastp", [port("r1", "Fastq", ["FastqGz"]), port("r2", "Fastq", ["FastqGz"], true)], [port("trimmed_r1", "FastqGz"), port("report_json", "Json")]);
export const krakenMatch = catalogMatch("class.kraken2", [port("db", "Directory"), port("r1", "Fastq", ["FastqGz"])], [port("report", "Text")]);
