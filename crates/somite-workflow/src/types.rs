//! The data types that flow along edges.
//!
//! Port types are a closed set: a workflow that names a type Somite does not
//! know is rejected when it is parsed, so every later stage (connection checks,
//! readiness, the compiler's staging rules) can match exhaustively.

use serde::{Deserialize, Serialize};

/// Every data type a port can carry, in the order the canvas lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum PortType {
    Sra,
    Fastq,
    FastqGz,
    Fasta,
    FastaGz,
    Gtf,
    GtfGz,
    Gff3,
    Sam,
    Bam,
    ReadGroupedBam,
    GatkReadyBam,
    Bai,
    Fai,
    Dict,
    Vcf,
    VcfGz,
    Tbi,
    Bed,
    Agp,
    Chain,
    Table,
    Json,
    Html,
    Image,
    Zip,
    Directory,
    Text,
    Preview,
}

impl PortType {
    pub const ALL: [PortType; 29] = [
        PortType::Sra,
        PortType::Fastq,
        PortType::FastqGz,
        PortType::Fasta,
        PortType::FastaGz,
        PortType::Gtf,
        PortType::GtfGz,
        PortType::Gff3,
        PortType::Sam,
        PortType::Bam,
        PortType::ReadGroupedBam,
        PortType::GatkReadyBam,
        PortType::Bai,
        PortType::Fai,
        PortType::Dict,
        PortType::Vcf,
        PortType::VcfGz,
        PortType::Tbi,
        PortType::Bed,
        PortType::Agp,
        PortType::Chain,
        PortType::Table,
        PortType::Json,
        PortType::Html,
        PortType::Image,
        PortType::Zip,
        PortType::Directory,
        PortType::Text,
        PortType::Preview,
    ];

    /// The name used on the wire and in contract files.
    pub fn name(self) -> &'static str {
        match self {
            PortType::Sra => "Sra",
            PortType::Fastq => "Fastq",
            PortType::FastqGz => "FastqGz",
            PortType::Fasta => "Fasta",
            PortType::FastaGz => "FastaGz",
            PortType::Gtf => "Gtf",
            PortType::GtfGz => "GtfGz",
            PortType::Gff3 => "Gff3",
            PortType::Sam => "Sam",
            PortType::Bam => "Bam",
            PortType::ReadGroupedBam => "ReadGroupedBam",
            PortType::GatkReadyBam => "GatkReadyBam",
            PortType::Bai => "Bai",
            PortType::Fai => "Fai",
            PortType::Dict => "Dict",
            PortType::Vcf => "Vcf",
            PortType::VcfGz => "VcfGz",
            PortType::Tbi => "Tbi",
            PortType::Bed => "Bed",
            PortType::Agp => "Agp",
            PortType::Chain => "Chain",
            PortType::Table => "Table",
            PortType::Json => "Json",
            PortType::Html => "Html",
            PortType::Image => "Image",
            PortType::Zip => "Zip",
            PortType::Directory => "Directory",
            PortType::Text => "Text",
            PortType::Preview => "Preview",
        }
    }

    /// Extra words a catalog search for this type also answers, so a user who
    /// types "reads" finds FASTQ operators without knowing the type's name.
    pub fn synonyms(self) -> &'static [&'static str] {
        match self {
            PortType::Fastq | PortType::FastqGz => &["read", "reads", "sequence", "fastq"],
            PortType::Sra => &["read", "reads", "sequence", "accession", "sra"],
            PortType::Fasta | PortType::FastaGz => &[
                "sequence",
                "genome",
                "reference",
                "contigs",
                "fasta",
                "assembly",
            ],
            PortType::Gtf | PortType::GtfGz | PortType::Gff3 => {
                &["annotation", "genes", "gtf", "gff"]
            }
            PortType::Sam | PortType::Bam | PortType::ReadGroupedBam | PortType::GatkReadyBam => {
                &["alignment", "alignments", "aligned", "bam", "mapped"]
            }
            PortType::Bai | PortType::Fai | PortType::Dict => &["index"],
            PortType::Tbi => &["index", "tabix"],
            PortType::Vcf | PortType::VcfGz => &["variant", "variants", "vcf", "calls"],
            PortType::Bed => &["intervals", "regions", "bed"],
            PortType::Table => &["table", "counts", "tsv"],
            PortType::Html => &["report", "html"],
            PortType::Json => &["json", "report"],
            PortType::Image => &["plot", "image", "figure"],
            PortType::Zip => &["archive", "zip"],
            PortType::Directory => &["directory", "folder", "database"],
            PortType::Text => &["text", "log", "report"],
            PortType::Agp | PortType::Chain | PortType::Preview => &[],
        }
    }
}

impl std::fmt::Display for PortType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_round_trips_through_its_wire_name() {
        for ty in PortType::ALL {
            let json = serde_json::to_string(&ty).unwrap();
            assert_eq!(json, format!("\"{}\"", ty.name()));
            let back: PortType = serde_json::from_str(&json).unwrap();
            assert_eq!(back, ty);
        }
    }

    #[test]
    fn an_unknown_type_name_is_rejected() {
        assert!(serde_json::from_str::<PortType>("\"Fastqq\"").is_err());
    }
}
