/**
 * Port types grouped into families that share a colour, so a glance tells
 * reads from alignments from reports. The colours themselves are CSS custom
 * properties (`--family-*`), themed for light and dark.
 */
export type TypeFamily = "reads" | "sequence" | "annotation" | "alignment" | "index" | "variant" | "folder" | "report";

const FAMILIES: Readonly<Record<string, TypeFamily>> = {
  Sra: "reads",
  Fastq: "reads",
  FastqGz: "reads",
  Fasta: "sequence",
  FastaGz: "sequence",
  Gtf: "annotation",
  GtfGz: "annotation",
  Gff3: "annotation",
  Bed: "annotation",
  Agp: "annotation",
  Chain: "annotation",
  Sam: "alignment",
  Bam: "alignment",
  ReadGroupedBam: "alignment",
  GatkReadyBam: "alignment",
  Bai: "index",
  Fai: "index",
  Dict: "index",
  Tbi: "index",
  Vcf: "variant",
  VcfGz: "variant",
  Directory: "folder",
};

/** Types outside the documented set fall back to the neutral report colour. */
function typeFamily(type: string): TypeFamily {
  return FAMILIES[type] ?? "report";
}

export function familyColor(type: string): string {
  return `var(--family-${typeFamily(type)})`;
}
