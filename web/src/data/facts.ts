/**
 * What a person reads first about a result: its key facts as label/value
 * pairs, and its provenance as one line. Absent facts are left out rather
 * than shown as "unknown": the provider did not state them.
 */
import type { DataFacts, DataResult } from "../api/dataSchemas";

export type Fact = readonly [label: string, value: string];

const integer = new Intl.NumberFormat("en-US");

function present(pairs: readonly (readonly [string, string | number | null])[]): Fact[] {
  return pairs
    .filter((pair): pair is readonly [string, string | number] => pair[1] !== null && pair[1] !== "")
    .map(([label, value]) => [label, typeof value === "number" ? integer.format(value) : value] as const);
}

export function keyFacts(facts: DataFacts): Fact[] {
  switch (facts.kind) {
    case "reads":
      return present([
        ["Run", facts.run],
        ["Organism", facts.organism],
        ["Platform", facts.instrument ? `${facts.platform ?? ""} ${facts.instrument}`.trim() : facts.platform],
        ["Layout", facts.layout],
        ["Spots", facts.spots],
        ["Bases", facts.bases],
        ["BioSample", facts.biosample],
        ["BioProject", facts.bioproject],
      ]);
    case "assembly":
      return present([
        ["Accession", facts.accession],
        ["Name", facts.name],
        ["Organism", facts.organism],
        ["Level", facts.level],
        ["RefSeq category", facts.refseq_category],
        ["Annotation", facts.annotation],
        ["Size (bp)", facts.total_length],
        ["Released", facts.release_date],
      ]);
    case "organism":
      return present([
        ["Scientific name", facts.scientific_name],
        ["Common name", facts.common_name],
        ["Taxid", facts.taxid],
        ["Rank", facts.rank],
        ["Ensembl species", facts.ensembl_species],
      ]);
    case "gene":
      return present([
        ["Symbol", facts.symbol],
        ["NCBI Gene", facts.ncbi_gene_id],
        ["Ensembl", facts.ensembl_id],
        ["Organism", facts.organism],
        [
          "Location",
          facts.location?.chromosome
            ? `${facts.location.chromosome}:${facts.location.start === null ? "?" : integer.format(facts.location.start)}-${facts.location.end === null ? "?" : integer.format(facts.location.end)}`
            : null,
        ],
        ["Assembly", facts.assembly],
      ]);
  }
}

const PROVIDERS: Record<string, string> = {
  ncbi_datasets: "NCBI Datasets",
  ncbi_eutils: "NCBI E-utilities",
  ensembl_rest: "Ensembl REST",
  ensembl_ftp: "Ensembl FTP",
};

export function provenanceLine(result: DataResult): string {
  const p = result.provenance;
  const parts = [PROVIDERS[p.provider] ?? p.provider];
  if (p.release) parts.push(p.release);
  parts.push(`retrieved ${p.retrieved_at}`);
  if (p.from_cache) parts.push(`from the cache, ${String(Math.round(p.age_seconds / 60))} min old`);
  return parts.join(" · ");
}
