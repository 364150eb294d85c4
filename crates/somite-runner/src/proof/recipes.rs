//! What each operator's proof feeds it, or why it cannot run here.
//!
//! A recipe names an input per port: a generated fixture, or an output of
//! another operator's proof (so a BAM is the one the real aligner and
//! `samtools sort` made from the fixture reads). Parameters are the
//! contract's defaults except where a value suits the tiny fixtures (a
//! STAR SA index sized for a 4 kb genome). A reason says what this machine
//! lacks: no Debian package, a database download, or a package kept out of
//! the CI budget.

use super::fixtures::{
    FixtureKind, SERVED_PAIRED_RUN, SERVED_RELEASE, SERVED_SINGLE_RUN, SERVED_SPECIES,
    SERVED_TAMPERED_RELEASE,
};
use super::loopback::LOOPBACK_URL;
use serde_json::{Value, json};

/// Where one input of a proof comes from.
#[derive(Debug, Clone)]
pub enum Source {
    Fixture(FixtureKind),
    /// Output `port` of `operator`'s own proof.
    Output {
        operator: &'static str,
        port: &'static str,
    },
}

/// The inputs and parameters of one proof.
#[derive(Debug, Clone)]
pub struct Recipe {
    pub inputs: Vec<(&'static str, Source)>,
    pub params: Vec<(&'static str, Value)>,
}

/// Why an operator has no proof on this machine.
pub type Reason = &'static str;

const NO_DEBIAN_GATK: Reason = "GATK 4 is not packaged in Debian (bookworm); \
     the proof needs `gatk` on PATH";

/// Marks a recipe that proves an operator a second time with other inputs
/// (`align.bwa@single`), for a consumer that needs those outputs.
pub const VARIANT: char = '@';

const NEWER_KALLISTO: Reason = "the contract relies on kallisto 0.50+ (`kallisto index \
     --threads`, and the 0.50 index format quant reads); Debian (bookworm) has 0.48.0, \
     which refuses `--threads`";

/// The recipe of `name` (an operator id, or an id and a [`VARIANT`]):
/// `Some(Ok)` to prove, `Some(Err(reason))` when it cannot run here, `None`
/// when no recipe mentions it.
pub fn recipe(name: &str) -> Option<Result<Recipe, Reason>> {
    use FixtureKind::*;
    let fixture = Source::Fixture;
    let output = |operator, port| Source::Output { operator, port };
    let sorted_bam = || output("align.samtools_sort", "sorted");
    let paired = |mut inputs: Vec<(&'static str, Source)>| {
        inputs.push(("r1", fixture(ReadsR1)));
        inputs.push(("r2", fixture(ReadsR2)));
        inputs
    };
    let prove = |inputs, params| Some(Ok(Recipe { inputs, params }));
    match name {
        "align.bwa_index" => prove(vec![("reference", fixture(Genome))], vec![]),
        "align.bwa" => prove(
            paired(vec![("index", output("align.bwa_index", "index"))]),
            vec![],
        ),
        "align.bowtie2_build" => prove(vec![("reference", fixture(Genome))], vec![]),
        "align.bowtie2" => prove(
            paired(vec![("index", output("align.bowtie2_build", "index"))]),
            vec![],
        ),
        "align.hisat2_index" => prove(vec![("reference", fixture(Genome))], vec![]),
        "align.hisat2" => prove(
            paired(vec![("index", output("align.hisat2_index", "index"))]),
            vec![],
        ),
        "align.minimap2" => prove(
            paired(vec![("reference", fixture(Genome))]),
            vec![("preset", json!("sr"))],
        ),
        "align.star_index" => prove(
            vec![
                ("reference", fixture(Genome)),
                ("annotation", fixture(Annotation)),
            ],
            // STAR's manual: min(14, log2(genome length)/2 - 1), 5 for 4 kb.
            vec![("sa_index_nbases", json!(5))],
        ),
        "align.star" => prove(
            paired(vec![("index", output("align.star_index", "index"))]),
            vec![("quant_mode", json!("GeneCounts"))],
        ),
        "align.bwa@single" => prove(
            vec![
                ("index", output("align.bwa_index", "index")),
                ("r1", fixture(ReadsR1)),
            ],
            vec![],
        ),
        "align.samtools_sort" => prove(
            vec![("alignments", output("align.bwa", "alignments"))],
            vec![],
        ),
        "align.samtools_sort@single" => prove(
            vec![("alignments", output("align.bwa@single", "alignments"))],
            vec![],
        ),
        "align.samtools_index" => prove(vec![("alignments", sorted_bam())], vec![]),
        "align.samtools_flagstat" => prove(vec![("alignments", sorted_bam())], vec![]),
        "align.samtools_view" => prove(vec![("alignments", sorted_bam())], vec![]),
        "align.samtools_stats" => prove(vec![("alignments", sorted_bam())], vec![]),
        "align.samtools_idxstats" => prove(
            vec![
                ("alignments", sorted_bam()),
                ("index", output("align.samtools_index", "index")),
            ],
            vec![],
        ),
        "align.samtools_merge" => prove(
            vec![
                ("alignments_1", sorted_bam()),
                (
                    "alignments_2",
                    output("align.samtools_sort@single", "sorted"),
                ),
            ],
            vec![],
        ),
        "align.samtools_fixmate" => prove(
            vec![("alignments", output("align.bwa", "alignments"))],
            vec![],
        ),
        "align.samtools_sort@fixmate" => prove(
            vec![("alignments", output("align.samtools_fixmate", "fixed"))],
            vec![],
        ),
        "align.samtools_markdup" => prove(
            vec![(
                "alignments",
                output("align.samtools_sort@fixmate", "sorted"),
            )],
            vec![],
        ),
        "align.samtools_depth" => prove(vec![("alignments", sorted_bam())], vec![]),
        "align.samtools_coverage" => prove(vec![("alignments", sorted_bam())], vec![]),
        "align.samtools_fastq" => prove(
            vec![("alignments", output("align.bwa", "alignments"))],
            vec![],
        ),
        "align.bedtools_bamtobed" => prove(vec![("alignments", sorted_bam())], vec![]),
        "align.bedtools_genomecov" => prove(vec![("alignments", sorted_bam())], vec![]),
        "align.bedtools_intersect" => prove(
            vec![
                ("a", output("align.bedtools_bamtobed", "intervals")),
                ("b", fixture(Regions)),
            ],
            vec![],
        ),
        "align.picard_add_read_groups" => prove(
            vec![("alignments", sorted_bam())],
            vec![("sample", json!("proof"))],
        ),
        "align.picard_mark_duplicates" => prove(vec![("alignments", sorted_bam())], vec![]),
        // Picard draws the histogram with `Rscript`, which Debian's
        // picard-tools does not depend on; the R that r-bioc-deseq2 brings
        // for the DESeq2 proof (scripts/setup) draws it.
        "align.picard_insert_size" => prove(vec![("alignments", sorted_bam())], vec![]),
        "ref.samtools_faidx" => prove(vec![("reference", fixture(Genome))], vec![]),
        "seq.seqkit_stats" => prove(vec![("sequences", fixture(Genome))], vec![]),
        "var.bcftools_mpileup" => prove(
            vec![
                ("alignments", sorted_bam()),
                ("reference", fixture(Genome)),
                ("fai", output("ref.samtools_faidx", "fai")),
            ],
            vec![],
        ),
        "var.bcftools_call" => prove(
            vec![("pileup", output("var.bcftools_mpileup", "pileup"))],
            vec![],
        ),
        "var.bcftools_filter" => prove(
            vec![("variants", output("var.bcftools_call", "calls"))],
            vec![],
        ),
        "var.bcftools_norm" => prove(
            vec![
                ("variants", output("var.bcftools_call", "calls")),
                ("reference", fixture(Genome)),
            ],
            vec![],
        ),
        "var.bcftools_view" => prove(
            vec![("variants", output("var.bcftools_call", "calls"))],
            vec![],
        ),
        "var.freebayes" => prove(
            vec![
                ("alignments", sorted_bam()),
                ("index", output("align.samtools_index", "index")),
                ("reference", fixture(Genome)),
                ("fai", output("ref.samtools_faidx", "fai")),
            ],
            vec![],
        ),
        "var.vcftools_filter" => prove(
            vec![("variants", output("var.bcftools_call", "calls"))],
            vec![],
        ),
        "var.bgzip" => prove(
            vec![("variants", output("var.vcftools_filter", "filtered"))],
            vec![],
        ),
        "var.bcftools_index" => prove(
            vec![("variants", output("var.bgzip", "compressed"))],
            vec![],
        ),
        "var.bcftools_stats" => prove(
            vec![("variants", output("var.bcftools_call", "calls"))],
            vec![],
        ),
        "ref.samtools_dict" => prove(vec![("reference", fixture(Genome))], vec![]),
        "seq.seqkit_seq" => prove(vec![("sequences", fixture(Genome))], vec![]),
        "seq.seqtk_sample" => prove(vec![("reads", fixture(ReadsR1))], vec![]),
        "seq.seqtk_fasta" => prove(vec![("reads", fixture(ReadsR1))], vec![]),
        "seq.seqtk_trimfq" => prove(vec![("reads", fixture(ReadsR1))], vec![]),
        "ref.gunzip_fasta" => prove(vec![("archive", fixture(GenomeGz))], vec![]),
        "ref.gunzip_gtf" => prove(vec![("archive", fixture(AnnotationGz))], vec![]),
        "files.unzip" => prove(vec![("archive", output("qc.fastqc", "report_zip"))], vec![]),
        "annot.gffread_transcripts" => prove(
            vec![
                ("annotation", fixture(Annotation)),
                ("reference", fixture(Genome)),
            ],
            vec![],
        ),
        "annot.gffread_gtf" => prove(vec![("annotation", fixture(AnnotationGff3))], vec![]),
        "qc.cutadapt" => prove(paired(vec![]), vec![]),
        "quant.stringtie" => prove(
            vec![
                ("alignments", output("align.star", "alignments")),
                ("annotation", fixture(Annotation)),
            ],
            vec![],
        ),
        "align.mosdepth" => prove(
            vec![
                ("alignments", sorted_bam()),
                ("index", output("align.samtools_index", "index")),
            ],
            vec![],
        ),
        "asm.flye" => Some(Err(
            "Debian's flye 2.9.1 polishes by running minimap2 with `--secondary-seq`, \
             which Debian's minimap2 2.24 refuses (bioconda's flye brings its own)",
        )),
        "class.krona" => Some(Err(
            "Krona is not packaged in Debian (bookworm); its taxonomy also needs a \
             download (ktUpdateTaxonomy.sh)",
        )),
        "qc.fastp" => prove(paired(vec![]), vec![]),
        "qc.fastqc" => prove(vec![("reads", fixture(ReadsR1))], vec![]),
        "qc.multiqc" => prove(
            vec![("report_1", output("qc.fastqc", "report_zip"))],
            vec![],
        ),
        "qc.trimmomatic" => prove(paired(vec![]), vec![]),
        // The single-end counter gets single-end alignments: featureCounts
        // refuses paired-end reads without `-p`.
        "quant.featurecounts" => prove(
            vec![
                ("alignments", output("align.samtools_sort@single", "sorted")),
                ("annotation", fixture(Annotation)),
            ],
            vec![],
        ),
        "quant.featurecounts_paired" => prove(
            vec![
                ("alignments", sorted_bam()),
                ("annotation", fixture(Annotation)),
            ],
            vec![],
        ),
        "quant.salmon_index" => prove(vec![("transcripts", fixture(Transcripts))], vec![]),
        "quant.salmon" => prove(
            paired(vec![("index", output("quant.salmon_index", "index"))]),
            vec![],
        ),
        "quant.kallisto_index" | "quant.kallisto" => Some(Err(NEWER_KALLISTO)),
        "asm.megahit" => prove(paired(vec![]), vec![]),
        "class.kraken2" => prove(paired(vec![("db", fixture(Kraken2Db))]), vec![]),
        "class.bracken" => Some(Err(
            "Bracken is not packaged in Debian (bookworm); its database also needs \
             `bracken-build` k-mer distributions",
        )),
        "asm.quast" => Some(Err("QUAST is not packaged in Debian (bookworm)")),
        "asm.spades" => Some(Err(
            "kept out of the CI budget: Debian's spades (3.15.5) is a large install",
        )),
        "annot.prokka" => Some(Err(
            "kept out of the CI budget: Debian's prokka pulls in BLAST+, HMMER, \
             Infernal and its own databases",
        )),
        "qc.busco" => Some(Err(
            "needs a BUSCO lineage dataset download (busco-data.ezlab.org), which the \
             offline proofs cannot make",
        )),
        "ref.gatk_sequence_dictionary" | "var.haplotypecaller" => Some(Err(NO_DEBIAN_GATK)),
        // The download operators fetch from the proofs' loopback file
        // server (see `super::loopback`): the real prefetch and curl, the
        // compiler's checksum verification, no NCBI or Ensembl.
        "sra.prefetch" => prove(vec![], vec![("accession", served_run(SERVED_PAIRED_RUN))]),
        "sra.prefetch@single" => prove(vec![], vec![("accession", served_run(SERVED_SINGLE_RUN))]),
        "sra.fasterq_dump" => prove(vec![("run", output("sra.prefetch", "run"))], vec![]),
        "sra.fasterq_dump_single" => {
            prove(vec![("run", output("sra.prefetch@single", "run"))], vec![])
        }
        "ncbi.datasets_genome" => Some(Err(
            "NCBI's datasets CLI is not packaged in Debian (bookworm), and it downloads only \
             from NCBI's own API, which the offline proofs cannot reach; its package layout \
             is proven through `ncbi.datasets_extract_assembly`",
        )),
        "ncbi.datasets_extract_assembly" => {
            prove(vec![("package", fixture(AssemblyPackage))], vec![])
        }
        "ensembl.fasta" => prove(
            vec![],
            ensembl(
                SERVED_RELEASE,
                &[("sequence", "dna"), ("region", "toplevel")],
            ),
        ),
        "ensembl.gtf" => prove(vec![], ensembl(SERVED_RELEASE, &[])),
        "quant.deseq2" => prove(
            vec![
                ("counts", fixture(Counts)),
                ("samples", fixture(SampleTable)),
            ],
            vec![],
        ),
        // A release whose CHECKSUMS are wrong: the proof must fail.
        "ensembl.fasta@tampered" => prove(
            vec![],
            ensembl(
                SERVED_TAMPERED_RELEASE,
                &[("sequence", "dna"), ("region", "toplevel")],
            ),
        ),
        _ => None,
    }
}

/// The loopback URL of a served SRA run.
fn served_run(run: &str) -> Value {
    json!(format!("{LOOPBACK_URL}/{run}.sra"))
}

/// The parameters of an Ensembl download from the loopback server's
/// `release`, plus `extra`.
fn ensembl(release: u32, extra: &[(&'static str, &str)]) -> Vec<(&'static str, Value)> {
    let (species, file_species, assembly) = SERVED_SPECIES;
    let mut params = vec![
        ("base_url", json!(LOOPBACK_URL)),
        ("release", json!(release)),
        ("species", json!(species)),
        ("file_species", json!(file_species)),
        ("assembly", json!(assembly)),
    ];
    params.extend(extra.iter().map(|(name, value)| (*name, json!(value))));
    params
}

/// A `PATH` entry the proof writes for a tool Debian installs under another
/// name than bioconda's.
#[derive(Debug, Clone, Copy)]
pub struct Wrapper {
    /// The wrapper's body, after `#!/bin/sh`.
    pub script: &'static str,
    /// The Debian file it runs, whose package the proof records.
    pub target: &'static str,
}

/// The wrapper `tool` needs on Debian, if any.
pub fn wrapper(tool: &str) -> Option<Wrapper> {
    match tool {
        "picard" => Some(Wrapper {
            script: "exec /usr/bin/PicardCommandLine \"$@\"",
            target: "/usr/bin/PicardCommandLine",
        }),
        "trimmomatic" => Some(Wrapper {
            script: "exec java -jar /usr/share/java/trimmomatic.jar \"$@\"",
            target: "/usr/share/java/trimmomatic.jar",
        }),
        _ => None,
    }
}

/// The library an interpreter runs for an operator: what the proof reports
/// as proven is the library's version and package, not the interpreter's.
#[derive(Debug, Clone, Copy)]
pub struct Library {
    pub name: &'static str,
    /// The interpreter's arguments that print the library's version.
    pub version_args: &'static [&'static str],
    /// A file of the library, whose Debian package the proof records.
    pub file: &'static str,
}

/// The library operator `operator_id` runs, if its tool is an interpreter.
pub fn library(operator_id: &str) -> Option<Library> {
    match operator_id {
        "quant.deseq2" => Some(Library {
            name: "DESeq2",
            version_args: &["-e", "cat(format(packageVersion(\"DESeq2\")))"],
            file: "/usr/lib/R/site-library/DESeq2/DESCRIPTION",
        }),
        _ => None,
    }
}

/// The arguments that make `tool` print its version.
pub fn version_args(tool: &str) -> &'static [&'static str] {
    match tool {
        // `bwa` and `seqtk` print their version in the usage they show
        // without arguments.
        "bwa" | "seqtk" => &[],
        "featureCounts" => &["-v"],
        "kallisto" | "seqkit" => &["version"],
        "trimmomatic" => &["-version"],
        "picard" => &["MarkDuplicates", "--version"],
        _ => &["--version"],
    }
}
