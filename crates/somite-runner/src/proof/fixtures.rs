//! The proofs' inputs: a tiny genome, its annotation (GTF, GFF3 and the
//! genes as BED), reads simulated from it, a Kraken2 database built from
//! it, and a counts matrix with its sample table for differential
//! expression, all generated here.
//!
//! Validation's fixtures ([`crate::fixtures`]) are eight read pairs on
//! 600 bp: enough to show a pipeline runs, too little for an assembler to
//! make a contig or a caller to find a variant. A proof wants each tool to
//! do its real work, so these are larger but still tiny: a 4 kb chromosome
//! `chrP` from a fixed linear congruential generator, three genes on it
//! (one spliced, one on the minus strand), and 600 read pairs of 75 bp
//! simulated from a sample that differs from the reference by three SNPs,
//! so callers call them, a third of them from a spliced transcript, so
//! splice-aware aligners find a junction. Everything is a function of constants, so every
//! machine generates the same bytes; each file is written once under
//! `<root>/<blake3 hex>/<name>`, its content address. The gzipped genome and
//! GTF are compressed by the real `gzip` without a name or time stamp, so
//! their bytes depend only on gzip's version, and their address is still
//! that of the bytes written.
//!
//! The Kraken2 database cannot be written by hand: it is built by the real
//! `kraken2-build` from a hand-written taxonomy (two species of one genus)
//! and library sequences whose headers carry `kraken:taxid|N`, with small
//! k-mer and minimizer lengths. It takes about a second and classifies the
//! fixture reads as species 101. With the padding of `opts.k2d` zeroed (see
//! `zero_options_padding`) it is, byte for byte, the validation fixture of
//! the `kraken2-database` profile ([`crate::fixtures::KRAKEN2_DATABASE_FILES`]),
//! which the proof test checks.

use crate::error::RunnerError;
use crate::fixtures::reverse_complement;
use somite_workflow::canonical::digest_bytes;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every fixture a recipe can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixtureKind {
    /// `genome.fa`: the reference chromosome.
    Genome,
    /// `annotation.gtf`: three genes on it.
    Annotation,
    /// `transcripts.fa`: the spliced transcripts of those genes.
    Transcripts,
    /// `reads_R1.fastq` / `reads_R2.fastq`: the sample's read pairs.
    ReadsR1,
    ReadsR2,
    /// `kraken2_db/`: `hash.k2d`, `opts.k2d`, `taxo.k2d`.
    Kraken2Db,
    /// `genes.bed`: the three genes' spans as BED6 intervals.
    Regions,
    /// `annotation.gff3`: the same genes as GFF3 (gene, mRNA, exon).
    AnnotationGff3,
    /// `genome.fa.gz` / `annotation.gtf.gz`: the genome and its GTF,
    /// compressed by the real `gzip`.
    GenomeGz,
    AnnotationGz,
    /// `ncbi_dataset.zip`: an NCBI Datasets genome package holding the
    /// genome, GTF and GFF3 under the layout `datasets` writes.
    AssemblyPackage,
    /// `served/`: the folder the loopback file server of the download
    /// proofs serves (see [`served`]).
    Served,
    /// `counts.tsv`: raw counts of [`EXPRESSION_GENES`] genes in six
    /// samples, the first [`DIFFERENTIAL_GENES`] four times higher in the
    /// treated three (see [`counts`]).
    Counts,
    /// `samples.tsv`: those six samples and their condition.
    SampleTable,
}

const CHROMOSOME: &str = "chrP";
const GENOME_LENGTH: usize = 4000;
const READ_LENGTH: usize = 75;
const READ_PAIRS: usize = 600;
/// 1-based positions where the sample carries the next base (A→C, ...).
const SNPS: [usize; 3] = [850, 1960, 3370];
/// A gene: id, transcript id, exons (1-based, inclusive) and strand.
type Gene = (&'static str, &'static str, &'static [(usize, usize)], char);

const GENES: [Gene; 3] = [
    ("gpa", "gpa-1", &[(201, 1200)], '+'),
    ("gpb", "gpb-1", &[(1501, 2000), (2301, 2900)], '+'),
    ("gpc", "gpc-1", &[(3101, 3800)], '-'),
];
/// The Kraken2 taxonomy: id, parent, rank, scientific name.
const TAXA: [(u32, u32, &str, &str); 5] = [
    (1, 1, "no rank", "root"),
    (2, 1, "superkingdom", "Bacteria"),
    (10, 2, "genus", "Somitia"),
    (101, 10, "species", "Somitia prima"),
    (102, 10, "species", "Somitia secunda"),
];

/// Writes `kind` under `root` unless it is there, and returns its path.
pub fn materialize(kind: FixtureKind, root: &Path) -> Result<PathBuf, RunnerError> {
    let (name, bytes) = match kind {
        FixtureKind::Genome => ("genome.fa", fasta(&[(CHROMOSOME, reference())])),
        FixtureKind::Annotation => ("annotation.gtf", gtf()),
        FixtureKind::Transcripts => ("transcripts.fa", transcripts()),
        FixtureKind::ReadsR1 => ("reads_R1.fastq", fastq(0)),
        FixtureKind::ReadsR2 => ("reads_R2.fastq", fastq(1)),
        FixtureKind::Regions => ("genes.bed", bed()),
        FixtureKind::AnnotationGff3 => ("annotation.gff3", gff3()),
        FixtureKind::GenomeGz => ("genome.fa.gz", gzip(&fasta(&[(CHROMOSOME, reference())]))?),
        FixtureKind::AnnotationGz => ("annotation.gtf.gz", gzip(&gtf())?),
        FixtureKind::Kraken2Db => return kraken2_db(root),
        FixtureKind::AssemblyPackage => ("ncbi_dataset.zip", assembly_package()),
        FixtureKind::Served => return served(root),
        FixtureKind::Counts => ("counts.tsv", counts()),
        FixtureKind::SampleTable => ("samples.tsv", sample_table()),
    };
    write_addressed(root, name, &bytes)
}

fn write_addressed(root: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, RunnerError> {
    let digest = digest_bytes(bytes);
    let hex = digest.strip_prefix("blake3:").unwrap_or(&digest);
    let path = root.join(hex).join(name);
    if std::fs::read(&path).is_ok_and(|existing| existing == bytes) {
        return Ok(path);
    }
    let dir = path.parent().expect("a fixture path has a folder");
    std::fs::create_dir_all(dir).map_err(|e| RunnerError::io(dir, e))?;
    std::fs::write(&path, bytes).map_err(|e| RunnerError::io(&path, e))?;
    Ok(path)
}

/// A fixed pseudo-random sequence; `seed` picks which.
fn sequence(seed: u32, length: usize) -> Vec<u8> {
    let mut state = seed;
    (0..length)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            b"ACGT"[(state >> 30) as usize]
        })
        .collect()
}

fn reference() -> Vec<u8> {
    sequence(0x500F_5EED, GENOME_LENGTH)
}

/// The sequenced sample: the reference with its three SNPs.
fn sample() -> Vec<u8> {
    let mut bases = reference();
    for position in SNPS {
        let base = &mut bases[position - 1];
        *base = match *base {
            b'A' => b'C',
            b'C' => b'G',
            b'G' => b'T',
            _ => b'A',
        };
    }
    bases
}

fn fasta(records: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, bases) in records {
        out.extend_from_slice(format!(">{name}\n").as_bytes());
        for line in bases.chunks(60) {
            out.extend_from_slice(line);
            out.push(b'\n');
        }
    }
    out
}

fn gtf() -> Vec<u8> {
    let mut out = String::new();
    for (gene, transcript, exons, strand) in GENES {
        let start = exons[0].0;
        let end = exons[exons.len() - 1].1;
        let gene_attributes = format!("gene_id \"{gene}\"; gene_biotype \"protein_coding\";");
        let transcript_attributes = format!("{gene_attributes} transcript_id \"{transcript}\";");
        let mut row = |feature: &str, start: usize, end: usize, attributes: &str| {
            out.push_str(&format!(
                "{CHROMOSOME}\tsomite\t{feature}\t{start}\t{end}\t.\t{strand}\t.\t{attributes}\n"
            ));
        };
        row("gene", start, end, &gene_attributes);
        row("transcript", start, end, &transcript_attributes);
        for (i, (exon_start, exon_end)) in exons.iter().enumerate() {
            let attributes = format!("{transcript_attributes} exon_number \"{}\";", i + 1);
            row("exon", *exon_start, *exon_end, &attributes);
        }
    }
    out.into_bytes()
}

/// The GFF3 form of [`gtf`]: a gene, its mRNA and the mRNA's exons, tied
/// by `ID` and `Parent`.
fn gff3() -> Vec<u8> {
    let mut out = String::from("##gff-version 3\n");
    for (gene, transcript, exons, strand) in GENES {
        let start = exons[0].0;
        let end = exons[exons.len() - 1].1;
        let mut row = |feature: &str, start: usize, end: usize, attributes: &str| {
            out.push_str(&format!(
                "{CHROMOSOME}\tsomite\t{feature}\t{start}\t{end}\t.\t{strand}\t.\t{attributes}\n"
            ));
        };
        row("gene", start, end, &format!("ID={gene};Name={gene}"));
        row(
            "mRNA",
            start,
            end,
            &format!("ID={transcript};Parent={gene}"),
        );
        for (i, (exon_start, exon_end)) in exons.iter().enumerate() {
            let attributes = format!("ID={transcript}.exon{};Parent={transcript}", i + 1);
            row("exon", *exon_start, *exon_end, &attributes);
        }
    }
    out.into_bytes()
}

/// `data` compressed by the real `gzip`, without a name or time stamp
/// (`-n`), so the bytes depend only on `data` and gzip's version.
fn gzip(data: &[u8]) -> Result<Vec<u8>, RunnerError> {
    use std::io::Write as _;
    let fault = |detail: String| RunnerError::ProofFixture {
        fixture: "gzip".into(),
        detail,
    };
    let mut child = Command::new("gzip")
        .args(["-n", "-c"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| fault(format!("gzip: {e}")))?;
    let mut stdin = child.stdin.take().expect("piped");
    let input = data.to_vec();
    // Written from another thread so a full stdout pipe cannot deadlock us.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child
        .wait_with_output()
        .map_err(|e| fault(format!("gzip: {e}")))?;
    writer
        .join()
        .expect("the writer does not panic")
        .map_err(|e| fault(format!("gzip: {e}")))?;
    if !out.status.success() {
        return Err(fault(
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        ));
    }
    Ok(out.stdout)
}

/// Each gene's span, 0-based half-open as BED counts, with its strand.
fn bed() -> Vec<u8> {
    let mut out = String::new();
    for (gene, _, exons, strand) in GENES {
        let start = exons[0].0 - 1;
        let end = exons[exons.len() - 1].1;
        out.push_str(&format!(
            "{CHROMOSOME}\t{start}\t{end}\t{gene}\t0\t{strand}\n"
        ));
    }
    out.into_bytes()
}

/// Gene `gene`'s transcript, spliced and on its own strand, from `genome`.
fn transcript(genome: &[u8], gene: usize) -> Vec<u8> {
    let (_, _, exons, strand) = GENES[gene];
    let spliced: Vec<u8> = exons
        .iter()
        .flat_map(|(start, end)| genome[start - 1..*end].to_vec())
        .collect();
    if strand == '-' {
        reverse_complement(&spliced)
    } else {
        spliced
    }
}

fn transcripts() -> Vec<u8> {
    let reference = reference();
    let records: Vec<(&str, Vec<u8>)> = (0..GENES.len())
        .map(|gene| (GENES[gene].1, transcript(&reference, gene)))
        .collect();
    fasta(&records)
}

/// Mate `mate` (0 or 1) of every pair: fragments of 180 to 299 bp at fixed
/// pseudo-random places, mate 1 forward from the fragment's start, mate 2
/// the reverse complement of its end. Two thirds come from the sample's
/// genome (DNA: callers and assemblers), one third from its spliced `gpb`
/// transcript (RNA: splice-aware aligners find the junction, quantifiers
/// count it). Qualities vary so QC tools have something to report, and
/// stay above trimming thresholds.
fn fastq(mate: usize) -> Vec<u8> {
    let genome = sample();
    let spliced = transcript(&genome, 1);
    let mut state: u32 = 0x0005_EED5;
    let mut next = |bound: usize| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as usize % bound
    };
    let mut out = Vec::new();
    for pair in 0..READ_PAIRS {
        let sample = if pair % 3 == 2 { &spliced } else { &genome };
        let fragment = 180 + next(120);
        let start = next(sample.len() - fragment);
        let bases = if mate == 0 {
            sample[start..start + READ_LENGTH].to_vec()
        } else {
            reverse_complement(&sample[start + fragment - READ_LENGTH..start + fragment])
        };
        let quality: Vec<u8> = (0..READ_LENGTH)
            .map(|i| b'!' + 30 + ((pair + i) % 11) as u8)
            .collect();
        out.extend_from_slice(format!("@proof_{:04}/{}\n", pair + 1, mate + 1).as_bytes());
        out.extend_from_slice(&bases);
        out.extend_from_slice(b"\n+\n");
        out.extend_from_slice(&quality);
        out.push(b'\n');
    }
    out
}

/// The genes of the differential expression fixture.
pub const EXPRESSION_GENES: usize = 200;
/// Genes `gene001` to `gene020` are four times (log2 fold change 2) as
/// abundant in the treated samples as in the controls; no other gene differs.
pub const DIFFERENTIAL_GENES: usize = 20;
/// The samples: three controls, then three treated.
const EXPRESSION_SAMPLES: [(&str, &str); 6] = [
    ("ctrl_1", "control"),
    ("ctrl_2", "control"),
    ("ctrl_3", "control"),
    ("treat_1", "treated"),
    ("treat_2", "treated"),
    ("treat_3", "treated"),
];

/// A raw counts matrix as DESeq2 takes it: a gene's mean between 20 and
/// 1000 reads, each sample's count that mean (times four for a differential
/// gene in a treated sample) times a factor between 0.7 and 1.3, truncated
/// to an integer. Two hundred genes are what DESeq2's dispersion trend needs
/// to be fitted; a handful leaves it nothing to fit.
fn counts() -> Vec<u8> {
    let mut state: u32 = 0x0000_5EED;
    let mut uniform = || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        f64::from(state) / 4_294_967_296.0
    };
    let mut out = String::from("gene_id");
    for (sample, _) in EXPRESSION_SAMPLES {
        out.push('\t');
        out.push_str(sample);
    }
    out.push('\n');
    for gene in 0..EXPRESSION_GENES {
        let mean = 20.0 + uniform() * 980.0;
        out.push_str(&format!("gene{:03}", gene + 1));
        for (_, condition) in EXPRESSION_SAMPLES {
            let fold = if gene < DIFFERENTIAL_GENES && condition == "treated" {
                4.0
            } else {
                1.0
            };
            let count = (mean * fold * (0.7 + 0.6 * uniform())) as u64;
            out.push_str(&format!("\t{count}"));
        }
        out.push('\n');
    }
    out.into_bytes()
}

fn sample_table() -> Vec<u8> {
    let mut out = String::from("sample\tcondition\n");
    for (sample, condition) in EXPRESSION_SAMPLES {
        out.push_str(&format!("{sample}\t{condition}\n"));
    }
    out.into_bytes()
}

/// Builds the Kraken2 database with `kraken2-build` once per root; the
/// folder holds only the three `.k2d` files a classification reads.
fn kraken2_db(root: &Path) -> Result<PathBuf, RunnerError> {
    let db = root.join("kraken2_db");
    let files = ["hash.k2d", "opts.k2d", "taxo.k2d"];
    if files.iter().all(|f| db.join(f).is_file()) {
        return Ok(db);
    }
    let build = root.join("kraken2-build");
    if build.exists() {
        std::fs::remove_dir_all(&build).map_err(|e| RunnerError::io(&build, e))?;
    }
    let taxonomy = build.join("taxonomy");
    std::fs::create_dir_all(&taxonomy).map_err(|e| RunnerError::io(&taxonomy, e))?;
    let mut nodes = String::new();
    let mut names = String::new();
    for (id, parent, rank, name) in TAXA {
        nodes.push_str(&format!("{id}\t|\t{parent}\t|\t{rank}\t|\t\t|\n"));
        names.push_str(&format!("{id}\t|\t{name}\t|\t\t|\tscientific name\t|\n"));
    }
    let write = |path: PathBuf, bytes: &[u8]| {
        std::fs::write(&path, bytes).map_err(|e| RunnerError::io(&path, e))
    };
    write(taxonomy.join("nodes.dmp"), nodes.as_bytes())?;
    write(taxonomy.join("names.dmp"), names.as_bytes())?;
    let library = build.join("library.fa");
    write(
        library.clone(),
        &fasta(&[
            (&format!("{CHROMOSOME}|kraken:taxid|101"), reference()),
            ("other|kraken:taxid|102", sequence(0x0071_7E12, 3000)),
        ]),
    )?;
    let steps: [&[&str]; 2] = [
        &[
            "--add-to-library",
            "library.fa",
            "--db",
            ".",
            "--no-masking",
        ],
        &[
            "--build",
            "--db",
            ".",
            "--kmer-len",
            "25",
            "--minimizer-len",
            "21",
            "--minimizer-spaces",
            "3",
            "--threads",
            "1",
        ],
    ];
    for args in steps {
        let out = Command::new("kraken2-build")
            .args(args)
            .current_dir(&build)
            .output()
            .map_err(|e| RunnerError::ProofFixture {
                fixture: "kraken2_db".into(),
                detail: format!("kraken2-build: {e}"),
            })?;
        if !out.status.success() {
            return Err(RunnerError::ProofFixture {
                fixture: "kraken2_db".into(),
                detail: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            });
        }
    }
    std::fs::create_dir_all(&db).map_err(|e| RunnerError::io(&db, e))?;
    for file in files {
        let from = build.join(file);
        let mut bytes = std::fs::read(&from).map_err(|e| RunnerError::io(&from, e))?;
        if file == "opts.k2d" {
            zero_options_padding(&mut bytes);
        }
        let to = db.join(file);
        std::fs::write(&to, bytes).map_err(|e| RunnerError::io(&to, e))?;
    }
    Ok(db)
}

/// Zeroes the padding of Kraken2 2.1's `opts.k2d`, which `kraken2-build`
/// writes by dumping its `IndexOptions` struct: `k`, `l`, the spaced-seed
/// and toggle masks (8 bytes each), the `dna_db` flag (1 byte, then 7 bytes
/// of padding), the minimum hash value (8), and three `int`s (revcom
/// version, database version, type; then 4 bytes of padding). The padding
/// is whatever memory held, so two builds of one database differ there and
/// nowhere else; Kraken2 never reads it. A file of another size is left as
/// it is.
fn zero_options_padding(opts: &mut [u8]) {
    if opts.len() == 64 {
        opts[33..40].fill(0);
        opts[60..64].fill(0);
    }
}

/// The synthetic assembly accession of the package fixture: version 1 of
/// the all-zero RefSeq number, which names no real assembly.
pub const PACKAGE_ACCESSION: &str = "GCF_000000000.1";

/// An NCBI Datasets genome package as `datasets download genome accession
/// --include genome,gtf,gff3` lays it out (NCBI Datasets "data package"
/// documentation): a README, the data catalog, the assembly report and the
/// three files under `ncbi_dataset/data/<accession>/`. Stored (uncompressed)
/// entries; unzip reads them like deflated ones.
fn assembly_package() -> Vec<u8> {
    let data = format!("ncbi_dataset/data/{PACKAGE_ACCESSION}");
    let catalog = format!(
        "{{\"apiVersion\":\"V2\",\"assemblies\":[{{\"files\":[{{\"filePath\":\"assembly_data_report.jsonl\",\"fileType\":\"DATA_REPORT\"}}]}},\
         {{\"accession\":\"{PACKAGE_ACCESSION}\",\"files\":[\
         {{\"filePath\":\"{PACKAGE_ACCESSION}/{PACKAGE_ACCESSION}_somite_proof_genomic.fna\",\"fileType\":\"GENOMIC_NUCLEOTIDE_FASTA\"}},\
         {{\"filePath\":\"{PACKAGE_ACCESSION}/genomic.gtf\",\"fileType\":\"GTF\"}},\
         {{\"filePath\":\"{PACKAGE_ACCESSION}/genomic.gff\",\"fileType\":\"GFF3\"}}]}}]}}\n"
    );
    let report = format!(
        "{{\"accession\":\"{PACKAGE_ACCESSION}\",\"assemblyInfo\":{{\"assemblyName\":\"somite_proof\",\"assemblyLevel\":\"Chromosome\"}}}}\n"
    );
    stored_zip(&[
        (
            "README.md",
            b"Synthetic NCBI Datasets package for Somite's operator proofs.\n".to_vec(),
        ),
        (
            "ncbi_dataset/data/dataset_catalog.json",
            catalog.into_bytes(),
        ),
        (
            "ncbi_dataset/data/assembly_data_report.jsonl",
            report.into_bytes(),
        ),
        (
            &format!("{data}/{PACKAGE_ACCESSION}_somite_proof_genomic.fna"),
            fasta(&[(CHROMOSOME, reference())]),
        ),
        (&format!("{data}/genomic.gtf"), gtf()),
        (&format!("{data}/genomic.gff"), gff3()),
    ])
}

/// A ZIP archive of `files` with stored entries (APPNOTE 4.3: local
/// headers, then the central directory and its end record), time stamps
/// zero so the bytes depend only on the files.
fn stored_zip(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    let u16le = |v: usize| (v as u16).to_le_bytes();
    let u32le = |v: usize| (v as u32).to_le_bytes();
    for (name, bytes) in files {
        let offset = out.len();
        let crc = crc32fast::hash(bytes);
        let mut common = Vec::new();
        common.extend_from_slice(&u16le(20)); // version needed: 2.0
        common.extend_from_slice(&u16le(0)); // flags
        common.extend_from_slice(&u16le(0)); // method: stored
        common.extend_from_slice(&u16le(0)); // time
        common.extend_from_slice(&u16le(0x21)); // date: 1980-01-01
        common.extend_from_slice(&crc.to_le_bytes());
        common.extend_from_slice(&u32le(bytes.len()));
        common.extend_from_slice(&u32le(bytes.len()));
        common.extend_from_slice(&u16le(name.len()));
        common.extend_from_slice(&u16le(0)); // extra length
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&common);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(bytes);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&u16le(0x0314)); // made by: Unix, 2.0
        central.extend_from_slice(&common);
        central.extend_from_slice(&u16le(0)); // comment length
        central.extend_from_slice(&u16le(0)); // disk number
        central.extend_from_slice(&u16le(0)); // internal attributes
        central.extend_from_slice(&u32le(0o100_644 << 16)); // external: a 0644 file
        central.extend_from_slice(&u32le(offset));
        central.extend_from_slice(name.as_bytes());
    }
    let central_offset = out.len();
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&u16le(0));
    out.extend_from_slice(&u16le(0));
    out.extend_from_slice(&u16le(files.len()));
    out.extend_from_slice(&u16le(files.len()));
    out.extend_from_slice(&u32le(central.len()));
    out.extend_from_slice(&u32le(central_offset));
    out.extend_from_slice(&u16le(0));
    out
}

/// The Unix `sum` command's default (BSD) checksum of `bytes` and its size
/// in 1 KiB blocks, rounded up: what Ensembl's `CHECKSUMS` files list per
/// file, for the loopback release the download proofs serve.
///
/// The algorithm is GNU coreutils' `src/sum.c`: `bsd_sum_stream` rotates
/// the 16-bit checksum right by one bit and adds each byte, modulo 2^16,
/// and `output_bsd` prints it as `%05d` beside the length in 1024-byte
/// blocks rounded up; the `sum(1)` manual
/// (<https://www.gnu.org/software/coreutils/sum>) documents `-r` as "use BSD
/// sum algorithm (the default), use 1K blocks". The test checks this
/// against the `sum` binary on the machine.
pub fn bsd_sum(bytes: &[u8]) -> (u16, u64) {
    let mut checksum: u16 = 0;
    for &byte in bytes {
        checksum = checksum.rotate_right(1).wrapping_add(u16::from(byte));
    }
    (checksum, (bytes.len() as u64).div_ceil(1024))
}

/// The loopback release that `ensembl.*` proofs download, and one whose
/// `CHECKSUMS` lists a wrong checksum for every file.
pub const SERVED_RELEASE: u32 = 112;
pub const SERVED_TAMPERED_RELEASE: u32 = 113;
/// The species folder, the species as file names spell it, and the
/// assembly name of the served Ensembl-style files.
pub const SERVED_SPECIES: (&str, &str, &str) = ("somite_proof", "Somite_proof", "chrP1");
/// The served SRA runs, paired and single-end, built from the fixture reads.
pub const SERVED_PAIRED_RUN: &str = "SRRPROOF2";
pub const SERVED_SINGLE_RUN: &str = "SRRPROOF1";

/// The folder the loopback server of the download proofs serves, written
/// once per root:
/// - `SRRPROOF2.sra` / `SRRPROOF1.sra`: SRA runs of the fixture reads
///   (paired, and mate 1 alone), loaded by the real `latf-load` and packed
///   by `kar`, as NCBI's loaders make a run;
/// - `release-112/fasta/somite_proof/dna/Somite_proof.chrP1.dna.toplevel.fa.gz`
///   and `release-112/gtf/somite_proof/Somite_proof.chrP1.112.gtf.gz`, each
///   folder with a `CHECKSUMS` in Ensembl's format (`sum` output lines);
/// - the same files under `release-113/`, whose `CHECKSUMS` are wrong.
fn served(root: &Path) -> Result<PathBuf, RunnerError> {
    let served = root.join("served");
    let done = served.join(".complete");
    if done.is_file() {
        return Ok(served);
    }
    let (species, file_species, assembly) = SERVED_SPECIES;
    let genome = gzip(&fasta(&[(CHROMOSOME, reference())]))?;
    let annotation = gzip(&gtf())?;
    let write = |path: PathBuf, bytes: &[u8]| -> Result<(), RunnerError> {
        let dir = path.parent().expect("a served file has a folder");
        std::fs::create_dir_all(dir).map_err(|e| RunnerError::io(dir, e))?;
        std::fs::write(&path, bytes).map_err(|e| RunnerError::io(&path, e))
    };
    for (release, tampered) in [(SERVED_RELEASE, false), (SERVED_TAMPERED_RELEASE, true)] {
        let folders = [
            (
                format!("release-{release}/fasta/{species}/dna"),
                format!("{file_species}.{assembly}.dna.toplevel.fa.gz"),
                &genome,
            ),
            (
                format!("release-{release}/gtf/{species}"),
                format!("{file_species}.{assembly}.{release}.gtf.gz"),
                &annotation,
            ),
        ];
        for (folder, name, bytes) in folders {
            let (checksum, blocks) = bsd_sum(bytes);
            let checksum = if tampered {
                checksum ^ 0x5a5a
            } else {
                checksum
            };
            write(served.join(&folder).join(&name), bytes)?;
            write(
                served.join(&folder).join("CHECKSUMS"),
                format!("{checksum:05} {blocks} {name}\n").as_bytes(),
            )?;
        }
    }
    let reads_r1 = materialize(FixtureKind::ReadsR1, root)?;
    let reads_r2 = materialize(FixtureKind::ReadsR2, root)?;
    sra_run(root, &served, SERVED_PAIRED_RUN, &[&reads_r1, &reads_r2])?;
    sra_run(root, &served, SERVED_SINGLE_RUN, &[&reads_r1])?;
    write(done, b"")?;
    Ok(served)
}

/// Loads `reads` into an SRA run with the real `latf-load` (Illumina,
/// Phred+33; two files become the mates of one spot) and packs it with
/// `kar` into `<served>/<name>.sra`.
fn sra_run(root: &Path, served: &Path, name: &str, reads: &[&Path]) -> Result<(), RunnerError> {
    let build = root.join("sra-build").join(name);
    if build.exists() {
        std::fs::remove_dir_all(&build).map_err(|e| RunnerError::io(&build, e))?;
    }
    std::fs::create_dir_all(&build).map_err(|e| RunnerError::io(&build, e))?;
    let home = root.join("sra-build").join("home");
    std::fs::create_dir_all(&home).map_err(|e| RunnerError::io(&home, e))?;
    let database = build.join("run");
    let archive = served.join(format!("{name}.sra"));
    let mut load = Command::new("latf-load");
    load.args([
        "--platform",
        "ILLUMINA",
        "--quality",
        "PHRED_33",
        "--output",
    ])
    .arg(&database)
    .args(reads);
    let mut pack = Command::new("kar");
    pack.arg("--create")
        .arg(&archive)
        .arg("--directory")
        .arg(&database);
    for (tool, command) in [("latf-load", &mut load), ("kar", &mut pack)] {
        let out = command
            .current_dir(&build)
            .env("HOME", &home)
            .output()
            .map_err(|e| RunnerError::ProofFixture {
                fixture: format!("{name}.sra"),
                detail: format!("{tool}: {e}"),
            })?;
        if !out.status.success() {
            return Err(RunnerError::ProofFixture {
                fixture: format!("{name}.sra"),
                detail: format!("{tool}: {}", String::from_utf8_lossy(&out.stderr).trim()),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bsd_sum_is_what_the_sum_binary_prints() {
        // Generated here, of sizes around the 1 KiB block and GNU sum's
        // 32 KiB read buffer, so a wrong rotation, carry or rounding shows.
        let dir = tempfile::tempdir().unwrap();
        let mut state: u32 = 0x2545_f491;
        for size in [
            0usize, 1, 6, 1023, 1024, 1025, 32_767, 32_768, 32_769, 100_003,
        ] {
            let bytes: Vec<u8> = (0..size)
                .map(|_| {
                    state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                    (state >> 24) as u8
                })
                .collect();
            let path = dir.path().join(format!("file-{size}"));
            std::fs::write(&path, &bytes).unwrap();
            for flag in [None, Some("-r")] {
                let mut command = Command::new("sum");
                command.args(flag).arg(&path);
                let out = command.output().expect("coreutils `sum` runs");
                assert!(out.status.success(), "{out:?}");
                let text = String::from_utf8(out.stdout).unwrap();
                let fields: Vec<&str> = text.split_whitespace().collect();
                let printed: (u16, u64) = (fields[0].parse().unwrap(), fields[1].parse().unwrap());
                assert_eq!(
                    bsd_sum(&bytes),
                    printed,
                    "{size} bytes, sum {flag:?}: {text}"
                );
            }
        }
    }

    #[test]
    fn the_assembly_package_is_a_zip_unzip_lists() {
        let dir = tempfile::tempdir().unwrap();
        let path = materialize(FixtureKind::AssemblyPackage, dir.path()).unwrap();
        let out = Command::new("unzip")
            .arg("-Z1")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let listing = String::from_utf8(out.stdout).unwrap();
        for name in [
            "ncbi_dataset/data/GCF_000000000.1/GCF_000000000.1_somite_proof_genomic.fna",
            "ncbi_dataset/data/GCF_000000000.1/genomic.gtf",
            "ncbi_dataset/data/GCF_000000000.1/genomic.gff",
        ] {
            assert!(listing.lines().any(|l| l == name), "{listing}");
        }
        let test = Command::new("unzip")
            .arg("-tq")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            test.status.success(),
            "{}",
            String::from_utf8_lossy(&test.stdout)
        );
    }
}
