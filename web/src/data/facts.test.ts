import { describe, expect, it } from "vitest";
import { dataSearchReply } from "../api/dataSchemas";
import { keyFacts, provenanceLine } from "./facts";

const reply = dataSearchReply.parse({
  query: "GCF_000001405.40",
  kind: null,
  interpretation: { exact: true, accession_kind: "refseq_assembly" },
  results: [
    {
      kind: "assembly",
      id: "GCF_000001405.40",
      title: "Homo sapiens GRCh38.p14",
      provenance: {
        provider: "ncbi_datasets",
        endpoint: "https://api.ncbi.nlm.nih.gov/datasets/v2/genome/accession/GCF_000001405.40/dataset_report",
        retrieved_at: "2026-12-04T04:12:00Z",
        from_cache: true,
        age_seconds: 600,
        release: null,
      },
      facts: {
        kind: "assembly",
        accession: "GCF_000001405.40",
        name: "GRCh38.p14",
        level: "Chromosome",
        refseq_category: "reference genome",
        organism: "Homo sapiens",
        taxid: 9606,
        annotation: null,
        total_length: 3099441038,
        release_date: "2022-02-03",
        paired_accession: "GCA_000001405.29",
      },
      recipe: null,
      recipe_unavailable: "no native recipe",
    },
  ],
  next_cursor: null,
  warnings: [],
});

describe("key facts", () => {
  it("lists what the provider stated and leaves out what it did not", () => {
    const result = reply.results[0];
    expect(result).toBeDefined();
    if (!result) return;
    expect(keyFacts(result.facts)).toEqual([
      ["Accession", "GCF_000001405.40"],
      ["Name", "GRCh38.p14"],
      ["Organism", "Homo sapiens"],
      ["Level", "Chromosome"],
      ["RefSeq category", "reference genome"],
      ["Size (bp)", "3,099,441,038"],
      ["Released", "2022-02-03"],
    ]);
    expect(provenanceLine(result)).toBe(
      "NCBI Datasets · retrieved 2026-12-04T04:12:00Z · from the cache, 10 min old",
    );
  });

  it("reads facts of each kind and refuses a reply whose facts have no kind", () => {
    const reads = keyFacts({
      kind: "reads", run: "SRR1553607", experiment: null, study: null, bioproject: "PRJNA257197",
      biosample: null, organism: "Zaire ebolavirus", taxid: 186538, platform: "ILLUMINA",
      instrument: "Illumina HiSeq 2500", layout: "paired", spots: 203445, bases: 41095890,
    });
    expect(reads).toContainEqual(["Layout", "paired"]);
    expect(reads).toContainEqual(["Platform", "ILLUMINA Illumina HiSeq 2500"]);
    expect(reads).toContainEqual(["Spots", "203,445"]);
    expect(() =>
      dataSearchReply.parse({ ...reply, results: [{ ...reply.results[0], facts: { run: "x" } }] }),
    ).toThrow();
  });
});
