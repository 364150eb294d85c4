//! Graphs for the compiler's tests, built from the shipped catalog with the
//! same transaction code as any edit, so they are valid by construction.

#![allow(dead_code)]

use serde_json::{Value, json};
use somite_workflow::Catalog;
use somite_workflow::assessment::{Assessment, assess};
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::transaction::{Operation, apply_operations};
use std::collections::BTreeMap;

pub fn catalog() -> Catalog {
    Catalog::builtin().expect("the shipped catalog loads")
}

/// Every input path exists, as far as these tests are concerned.
pub fn ready(doc: &WorkflowDocument, catalog: &Catalog) -> Assessment {
    assess(doc, catalog, &|_: &str| true)
}

pub struct Builder {
    operations: Vec<Operation>,
    nodes: usize,
}

impl Builder {
    pub fn new() -> Builder {
        Builder {
            operations: Vec::new(),
            nodes: 0,
        }
    }

    pub fn node(mut self, id: &str, operator: &str, params: Value) -> Builder {
        let params: BTreeMap<String, Value> = match params {
            Value::Object(map) => map.into_iter().collect(),
            _ => BTreeMap::new(),
        };
        self.nodes += 1;
        self.operations.push(Operation::AddOperator {
            node_id: id.into(),
            operator_id: operator.into(),
            params,
            x: 100.0 * self.nodes as f64,
            y: 50.0,
        });
        self
    }

    pub fn edge(mut self, from: &str, to: &str) -> Builder {
        let (from_node, from_port) = from.split_once('.').expect("node.port");
        let (to_node, to_port) = to.split_once('.').expect("node.port");
        self.operations.push(Operation::Connect {
            edge_id: format!("{from_node}-{from_port}-{to_node}-{to_port}"),
            from_node: from_node.into(),
            from_port: from_port.into(),
            to_node: to_node.into(),
            to_port: to_port.into(),
        });
        self
    }

    pub fn build(self, catalog: &Catalog) -> WorkflowDocument {
        apply_operations(
            &WorkflowDocument::empty("Test workflow"),
            catalog,
            &self.operations,
        )
        .expect("the test graph is valid")
    }
}

/// files.import -> qc.fastqc
pub fn single_end_qc(catalog: &Catalog) -> WorkflowDocument {
    Builder::new()
        .node(
            "reads",
            "files.import",
            json!({"path": "data/sample.fastq"}),
        )
        .node("fastqc", "qc.fastqc", json!({}))
        .edge("reads.file", "fastqc.reads")
        .build(catalog)
}

/// files.import_paired -> qc.fastp + qc.fastqc (one per mate) -> qc.multiqc
pub fn paired_end_qc(catalog: &Catalog) -> WorkflowDocument {
    Builder::new()
        .node(
            "reads",
            "files.import_paired",
            json!({"r1": "data/sample_R1.fastq", "r2": "data/sample_R2.fastq"}),
        )
        .node("trim", "qc.fastp", json!({"min_length": 36}))
        .node("fastqc_r1", "qc.fastqc", json!({}))
        .node("fastqc_r2", "qc.fastqc", json!({"nogroup": true}))
        .node(
            "report",
            "qc.multiqc",
            json!({"title": "Sample QC: it's \"paired\""}),
        )
        .edge("reads.r1", "trim.r1")
        .edge("reads.r2", "trim.r2")
        .edge("reads.r1", "fastqc_r1.reads")
        .edge("reads.r2", "fastqc_r2.reads")
        .edge("trim.report_json", "report.report_1")
        .edge("fastqc_r1.report_zip", "report.report_2")
        .edge("fastqc_r2.report_zip", "report.report_3")
        .build(catalog)
}

/// Reference + paired reads -> BWA-MEM -> sort -> mark duplicates -> HaplotypeCaller
pub fn variant_calling(catalog: &Catalog) -> WorkflowDocument {
    Builder::new()
        .node(
            "genome",
            "files.import_fasta",
            json!({"path": "ref/genome.fa"}),
        )
        .node(
            "reads",
            "files.import_paired",
            json!({"r1": "data/tumour_R1.fastq", "r2": "data/tumour_R2.fastq"}),
        )
        .node("index", "align.bwa_index", json!({}))
        .node(
            "align",
            "align.bwa",
            json!({"sample": "tumour", "threads": 4}),
        )
        .node("sort", "align.samtools_sort", json!({}))
        .node("markdup", "align.picard_mark_duplicates", json!({}))
        .node("faidx", "ref.samtools_faidx", json!({}))
        .node("dict", "ref.gatk_sequence_dictionary", json!({}))
        .node(
            "call",
            "var.haplotypecaller",
            json!({"emit_ref_confidence": "GVCF"}),
        )
        .edge("genome.sequences", "index.reference")
        .edge("genome.sequences", "faidx.reference")
        .edge("genome.sequences", "dict.reference")
        .edge("genome.sequences", "call.reference")
        .edge("index.index", "align.index")
        .edge("reads.r1", "align.r1")
        .edge("reads.r2", "align.r2")
        .edge("align.alignments", "sort.alignments")
        .edge("sort.sorted", "markdup.alignments")
        .edge("markdup.marked", "call.alignments")
        .edge("markdup.index", "call.index")
        .edge("faidx.fai", "call.fai")
        .edge("dict.dict", "call.dict")
        .build(catalog)
}

/// Transcript FASTA -> Salmon index; paired reads -> Salmon quant
pub fn rna_seq_quantification(catalog: &Catalog) -> WorkflowDocument {
    Builder::new()
        .node(
            "transcripts",
            "files.import_fasta",
            json!({"path": "ref/transcripts.fa"}),
        )
        .node(
            "reads",
            "files.import_paired",
            json!({"r1": "data/rna_R1.fastq", "r2": "data/rna_R2.fastq"}),
        )
        .node(
            "salmon_index",
            "quant.salmon_index",
            json!({"kmer_length": 25}),
        )
        .node("quant", "quant.salmon", json!({"lib_type": "ISR"}))
        .edge("transcripts.sequences", "salmon_index.transcripts")
        .edge("salmon_index.index", "quant.index")
        .edge("reads.r1", "quant.r1")
        .edge("reads.r2", "quant.r2")
        .build(catalog)
}

/// Paired reads + a local Kraken2 database -> Kraken2 -> Bracken
pub fn metagenomics(catalog: &Catalog) -> WorkflowDocument {
    Builder::new()
        .node(
            "reads",
            "files.import_paired",
            json!({"r1": "data/gut_R1.fastq", "r2": "data/gut_R2.fastq"}),
        )
        .node(
            "database",
            "files.import_kraken2_database",
            json!({"path": "/databases/k2_standard_08gb"}),
        )
        .node("classify", "class.kraken2", json!({"confidence": 0.1}))
        .node("abundance", "class.bracken", json!({"level": "G"}))
        .edge("reads.r1", "classify.r1")
        .edge("reads.r2", "classify.r2")
        .edge("database.db", "classify.db")
        .edge("database.db", "abundance.db")
        .edge("classify.report", "abundance.kraken_report")
        .build(catalog)
}
