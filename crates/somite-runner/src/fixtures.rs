//! Representative fixtures: tiny, valid, reviewed inputs for validation.
//!
//! Validation must exercise the real frozen path without the user's data
//! and without downloading test data, so every fixture is generated here,
//! deterministically, from one small synthetic reference: a 600-bp
//! chromosome `chrT`, eight 50-bp read pairs sampled from it (mate 1
//! forward, mate 2 the reverse complement 150 bp downstream), a two-exon
//! gene on it, and those pairs aligned to it as SAM and as a
//! coordinate-sorted BAM. The reads map, the annotation overlaps them and
//! the alignments are consistent, so aligners, quantifiers and QC tools all
//! have real work to do. Compressed forms are gzip (FASTQ.gz, FASTA.gz,
//! GTF.gz) and BGZF (BAM) with stored deflate blocks, which every zlib
//! reads; the BAM ends with the standard BGZF end-of-file block.
//!
//! A fixture is written once under `.somite/fixtures/<blake3 hex>/<file>`:
//! the directory is its content address, and the file keeps a conventional
//! extension because tools such as fastp decide how to read a file by it.
//!
//! A managed resource is a folder, and one is shipped rather than generated:
//! the tiny Kraken2 database of the operator proofs (see
//! [`crate::proof::fixtures`]) for the `kraken2-database` profile, so a
//! metagenomics graph validates without `kraken2-build` on the machine. It
//! is the three `.k2d` files `kraken2-build` wrote from the proofs'
//! hand-written taxonomy and library, with the padding bytes of `opts.k2d`
//! (uninitialised memory Kraken2 writes with its options struct and never
//! reads) zeroed so that the proofs' own build is byte-identical to it; the
//! proof test checks that. It holds no Bracken `database*.kmer_distrib`:
//! those are made by `bracken-build`, which Debian does not package, so a
//! real Bracken task fails on this database rather than report an invented
//! abundance. A folder fixture is addressed by the digest of its listing
//! (file name to file digest) and written as `<hex>/<folder>/<file>`.

use crate::error::RunnerError;
use somite_project::Layout;
use somite_project::durable;
use somite_workflow::Revision;
use somite_workflow::canonical::{digest_bytes, revision_of};
use somite_workflow::types::PortType;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The reference's name, length and read geometry.
const REFERENCE_NAME: &str = "chrT";
const REFERENCE_LENGTH: usize = 600;
const READ_LENGTH: usize = 50;
const FRAGMENT_LENGTH: usize = 150;
const READ_PAIRS: usize = 8;
/// Phred quality 40 for every base.
const QUALITY: u8 = 40;

/// Which mate of a pair a FASTQ fixture holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mate {
    First,
    Second,
}

impl Mate {
    /// The mate a root input parameter asks for: `r2`, `read2`, `reads2`,
    /// `*_2` and `*_r2` are second mates; everything else is a first mate.
    pub fn of_param(param: &str) -> Mate {
        let param = param.to_ascii_lowercase();
        let second = ["r2", "read2", "reads2", "mate2"].contains(&param.as_str())
            || param.ends_with("_2")
            || param.ends_with("_r2");
        if second { Mate::Second } else { Mate::First }
    }
}

/// The resource profile whose fixture is the tiny Kraken2 database.
pub const KRAKEN2_DATABASE_PROFILE: &str = "kraken2-database";

/// The tiny Kraken2 database's files, as `kraken2-build` wrote them (see the
/// module docs), in name order.
pub const KRAKEN2_DATABASE_FILES: &[(&str, &[u8])] = &[
    (
        "hash.k2d",
        include_bytes!("../fixtures/kraken2-database/hash.k2d"),
    ),
    (
        "opts.k2d",
        include_bytes!("../fixtures/kraken2-database/opts.k2d"),
    ),
    (
        "taxo.k2d",
        include_bytes!("../fixtures/kraken2-database/taxo.k2d"),
    ),
];

/// What a fixture holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FixtureContent {
    File(Vec<u8>),
    /// A folder's files, name and bytes, in name order.
    Folder(&'static [(&'static str, &'static [u8])]),
}

/// One reviewed fixture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fixture {
    /// The reviewed fixture's name, e.g. `fastq-gz-r1`.
    pub name: &'static str,
    pub port_type: PortType,
    /// The file's name, or a folder fixture's folder name.
    pub file_name: &'static str,
    pub content: FixtureContent,
}

impl Fixture {
    /// A file's digest; for a folder, the digest of its canonical listing
    /// `{file name: file digest}`.
    pub fn digest(&self) -> Revision {
        match &self.content {
            FixtureContent::File(bytes) => digest_bytes(bytes),
            FixtureContent::Folder(files) => {
                let listing: BTreeMap<&str, Revision> = files
                    .iter()
                    .map(|(name, bytes)| (*name, digest_bytes(bytes)))
                    .collect();
                revision_of(&listing)
            }
        }
    }

    /// The bytes it holds, all files of a folder together.
    pub fn size(&self) -> u64 {
        match &self.content {
            FixtureContent::File(bytes) => bytes.len() as u64,
            FixtureContent::Folder(files) => files.iter().map(|(_, b)| b.len() as u64).sum(),
        }
    }

    /// `<hex>/<file>` under `.somite/fixtures/`.
    pub fn relative_path(&self) -> String {
        let digest = self.digest();
        let hex = digest.strip_prefix("blake3:").unwrap_or(&digest);
        format!("{hex}/{}", self.file_name)
    }

    /// Writes the fixture under `layout`'s fixtures folder unless an intact
    /// copy is already there (file by file, for a folder), and returns its
    /// path.
    pub fn write(&self, layout: &Layout) -> Result<PathBuf, RunnerError> {
        let path = layout.fixtures().join(self.relative_path());
        let publish = |path: &Path, bytes: &[u8]| -> Result<(), RunnerError> {
            let intact = std::fs::read(path).is_ok_and(|existing| existing == bytes);
            if !intact {
                durable::publish(path, bytes)?;
            }
            Ok(())
        };
        match &self.content {
            FixtureContent::File(bytes) => publish(&path, bytes)?,
            FixtureContent::Folder(files) => {
                for (name, bytes) in *files {
                    publish(&path.join(name), bytes)?;
                }
            }
        }
        Ok(path)
    }
}

/// The reviewed fixture for a root input that provides the managed resource
/// `profile`, or `None` when Somite has none for that profile.
pub fn representative_resource(profile: &str) -> Option<Fixture> {
    (profile == KRAKEN2_DATABASE_PROFILE).then_some(Fixture {
        name: "kraken2-database-tiny",
        port_type: PortType::Directory,
        file_name: "kraken2_db",
        content: FixtureContent::Folder(KRAKEN2_DATABASE_FILES),
    })
}

/// The reviewed fixture for a root input of `port_type`, or `None` when
/// Somite has none for that type.
pub fn representative(port_type: PortType, mate: Mate) -> Option<Fixture> {
    let fixture = |name, file_name, bytes| Fixture {
        name,
        port_type,
        file_name,
        content: FixtureContent::File(bytes),
    };
    Some(match (port_type, mate) {
        (PortType::Fastq, Mate::First) => {
            fixture("fastq-r1", "sample_R1.fastq", fastq(Mate::First))
        }
        (PortType::Fastq, Mate::Second) => {
            fixture("fastq-r2", "sample_R2.fastq", fastq(Mate::Second))
        }
        (PortType::FastqGz, Mate::First) => fixture(
            "fastq-gz-r1",
            "sample_R1.fastq.gz",
            gzip(&fastq(Mate::First)),
        ),
        (PortType::FastqGz, Mate::Second) => fixture(
            "fastq-gz-r2",
            "sample_R2.fastq.gz",
            gzip(&fastq(Mate::Second)),
        ),
        (PortType::Fasta, _) => fixture("fasta", "reference.fa", fasta()),
        (PortType::FastaGz, _) => fixture("fasta-gz", "reference.fa.gz", gzip(&fasta())),
        (PortType::Gtf, _) => fixture("gtf", "annotation.gtf", gtf()),
        (PortType::GtfGz, _) => fixture("gtf-gz", "annotation.gtf.gz", gzip(&gtf())),
        (PortType::Sam, _) => fixture("sam", "alignments.sam", sam()),
        (PortType::Bam, _) => fixture("bam", "alignments.bam", bam()),
        _ => return None,
    })
}

/// The synthetic reference: a fixed linear congruential sequence, so it
/// is the same on every machine and has no long repeats.
fn reference() -> Vec<u8> {
    let mut state: u32 = 0x5EED_1234;
    (0..REFERENCE_LENGTH)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            b"ACGT"[(state >> 30) as usize]
        })
        .collect()
}

pub(crate) fn reverse_complement(bases: &[u8]) -> Vec<u8> {
    bases
        .iter()
        .rev()
        .map(|b| match b {
            b'A' => b'T',
            b'C' => b'G',
            b'G' => b'C',
            _ => b'A',
        })
        .collect()
}

/// One read pair: its name and the 0-based positions of mate 1 (forward)
/// and mate 2 (reverse).
struct Pair {
    name: String,
    first_at: usize,
    second_at: usize,
}

fn pairs() -> Vec<Pair> {
    let span = REFERENCE_LENGTH - FRAGMENT_LENGTH;
    (0..READ_PAIRS)
        .map(|i| {
            let first_at = 10 + i * (span - 20) / READ_PAIRS;
            Pair {
                name: format!("somite_fixture_{:02}", i + 1),
                first_at,
                second_at: first_at + FRAGMENT_LENGTH - READ_LENGTH,
            }
        })
        .collect()
}

fn fastq(mate: Mate) -> Vec<u8> {
    let reference = reference();
    let quality = vec![QUALITY + 33; READ_LENGTH];
    let mut out = Vec::new();
    for pair in pairs() {
        let bases = match mate {
            Mate::First => reference[pair.first_at..pair.first_at + READ_LENGTH].to_vec(),
            Mate::Second => {
                reverse_complement(&reference[pair.second_at..pair.second_at + READ_LENGTH])
            }
        };
        out.extend_from_slice(format!("@{}\n", pair.name).as_bytes());
        out.extend_from_slice(&bases);
        out.extend_from_slice(b"\n+\n");
        out.extend_from_slice(&quality);
        out.push(b'\n');
    }
    out
}

fn fasta() -> Vec<u8> {
    let mut out = format!(">{REFERENCE_NAME} Somite validation fixture\n").into_bytes();
    for line in reference().chunks(60) {
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out
}

fn gtf() -> Vec<u8> {
    let attributes = "gene_id \"fxg1\"; gene_name \"FXG1\"; gene_biotype \"protein_coding\";";
    let transcript = "transcript_id \"fxt1\"; transcript_name \"FXG1-1\";";
    let rows = [
        ("gene", 11, 590, attributes.to_owned()),
        ("transcript", 11, 590, format!("{attributes} {transcript}")),
        (
            "exon",
            11,
            260,
            format!("{attributes} {transcript} exon_number \"1\";"),
        ),
        (
            "exon",
            341,
            590,
            format!("{attributes} {transcript} exon_number \"2\";"),
        ),
    ];
    rows.iter()
        .map(|(feature, start, end, attributes)| {
            format!("{REFERENCE_NAME}\tsomite\t{feature}\t{start}\t{end}\t.\t+\t.\t{attributes}\n")
        })
        .collect::<String>()
        .into_bytes()
}

/// One aligned mate, as SAM and BAM both describe it.
struct Alignment {
    name: String,
    flag: u16,
    /// 0-based leftmost position.
    pos: usize,
    mate_pos: usize,
    template_length: i32,
    /// The read's bases on the reference's forward strand.
    bases: Vec<u8>,
}

/// Both mates of every pair, coordinate-sorted. Flags: 99 (paired, proper,
/// mate reverse, first) and 147 (paired, proper, reverse, second).
fn alignments() -> Vec<Alignment> {
    let reference = reference();
    let mut out = Vec::new();
    for pair in pairs() {
        out.push(Alignment {
            name: pair.name.clone(),
            flag: 99,
            pos: pair.first_at,
            mate_pos: pair.second_at,
            template_length: FRAGMENT_LENGTH as i32,
            bases: reference[pair.first_at..pair.first_at + READ_LENGTH].to_vec(),
        });
        out.push(Alignment {
            name: pair.name,
            flag: 147,
            pos: pair.second_at,
            mate_pos: pair.first_at,
            template_length: -(FRAGMENT_LENGTH as i32),
            bases: reference[pair.second_at..pair.second_at + READ_LENGTH].to_vec(),
        });
    }
    out.sort_by(|a, b| a.pos.cmp(&b.pos).then(a.flag.cmp(&b.flag)));
    out
}

fn sam_header() -> String {
    format!(
        "@HD\tVN:1.6\tSO:coordinate\n\
         @SQ\tSN:{REFERENCE_NAME}\tLN:{REFERENCE_LENGTH}\n\
         @RG\tID:fixture\tSM:fixture\tPL:ILLUMINA\tLB:fixture\n\
         @PG\tID:somite\tPN:somite\tVN:{}\n",
        env!("CARGO_PKG_VERSION")
    )
}

fn sam() -> Vec<u8> {
    let mut out = sam_header();
    let quality = String::from_utf8(vec![QUALITY + 33; READ_LENGTH]).expect("ASCII");
    for a in alignments() {
        out.push_str(&format!(
            "{}\t{}\t{REFERENCE_NAME}\t{}\t60\t{READ_LENGTH}M\t=\t{}\t{}\t{}\t{quality}\tRG:Z:fixture\n",
            a.name,
            a.flag,
            a.pos + 1,
            a.mate_pos + 1,
            a.template_length,
            String::from_utf8_lossy(&a.bases),
        ));
    }
    out.into_bytes()
}

/// The BAM encoding of [`sam`] (SAMv1 §4.2), BGZF-compressed.
fn bam() -> Vec<u8> {
    let header = sam_header();
    let mut raw = Vec::new();
    raw.extend_from_slice(b"BAM\x01");
    push_i32(&mut raw, header.len());
    raw.extend_from_slice(header.as_bytes());
    push_i32(&mut raw, 1);
    push_i32(&mut raw, REFERENCE_NAME.len() + 1);
    raw.extend_from_slice(REFERENCE_NAME.as_bytes());
    raw.push(0);
    push_i32(&mut raw, REFERENCE_LENGTH);
    for a in alignments() {
        let mut record = Vec::new();
        record.extend_from_slice(&0i32.to_le_bytes()); // refID
        push_i32(&mut record, a.pos);
        record.push((a.name.len() + 1) as u8);
        record.push(60); // MAPQ
        record.extend_from_slice(&reg2bin(a.pos, a.pos + READ_LENGTH).to_le_bytes());
        record.extend_from_slice(&1u16.to_le_bytes()); // one CIGAR operation
        record.extend_from_slice(&a.flag.to_le_bytes());
        push_i32(&mut record, READ_LENGTH);
        record.extend_from_slice(&0i32.to_le_bytes()); // mate refID
        push_i32(&mut record, a.mate_pos);
        record.extend_from_slice(&a.template_length.to_le_bytes());
        record.extend_from_slice(a.name.as_bytes());
        record.push(0);
        record.extend_from_slice(&((READ_LENGTH as u32) << 4).to_le_bytes()); // 50M
        for two in a.bases.chunks(2) {
            let code = |b: u8| match b {
                b'A' => 1u8,
                b'C' => 2,
                b'G' => 4,
                b'T' => 8,
                _ => 15,
            };
            let low = two.get(1).map_or(0, |b| code(*b));
            record.push((code(two[0]) << 4) | low);
        }
        record.extend(std::iter::repeat_n(QUALITY, READ_LENGTH));
        record.extend_from_slice(b"RGZfixture\0");
        push_i32(&mut raw, record.len());
        raw.extend_from_slice(&record);
    }
    let mut out = Vec::new();
    for block in raw.chunks(BGZF_MAX_BLOCK_DATA) {
        out.extend_from_slice(&bgzf_block(block));
    }
    out.extend_from_slice(&BGZF_EOF);
    out
}

fn push_i32(out: &mut Vec<u8>, value: usize) {
    out.extend_from_slice(&(value as i32).to_le_bytes());
}

/// The BAI bin of the 0-based half-open interval `[begin, end)`.
fn reg2bin(begin: usize, end: usize) -> u16 {
    let end = end - 1;
    for (shift, offset) in [(14, 4681), (17, 585), (20, 73), (23, 9), (26, 1)] {
        if begin >> shift == end >> shift {
            return (offset + (begin >> shift)) as u16;
        }
    }
    0
}

/// The most a stored deflate block holds.
const STORED_BLOCK_MAX: usize = 65_535;
/// Data per BGZF block, so that the block with its header, stored-block
/// framing and trailer stays within BGZF's 64 KiB.
const BGZF_MAX_BLOCK_DATA: usize = 65_280;
/// The standard BGZF end-of-file marker (SAMv1 §4.1.2).
const BGZF_EOF: [u8; 28] = [
    0x1f, 0x8b, 0x08, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x06, 0x00, 0x42, 0x43, 0x02, 0x00,
    0x1b, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
];

/// `data` as deflate stored blocks (RFC 1951 §3.2.4).
fn deflate_stored(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 5 * (data.len() / STORED_BLOCK_MAX + 1));
    let mut chunks = data.chunks(STORED_BLOCK_MAX).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[0x01, 0x00, 0x00, 0xff, 0xff]);
    }
    while let Some(chunk) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
        let len = chunk.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

fn gzip_trailer(out: &mut Vec<u8>, data: &[u8]) {
    out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
}

/// One gzip member (RFC 1952) with no name and no time, so it is
/// deterministic.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff];
    out.extend_from_slice(&deflate_stored(data));
    gzip_trailer(&mut out, data);
    out
}

/// One BGZF block: a gzip member whose `BC` extra field holds the block's
/// size minus one.
fn bgzf_block(data: &[u8]) -> Vec<u8> {
    let deflated = deflate_stored(data);
    let block_size = 18 + deflated.len() + 8;
    let mut out = vec![
        0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0x00, 0xff, 0x06, 0x00, b'B', b'C', 0x02, 0x00,
    ];
    out.extend_from_slice(&((block_size - 1) as u16).to_le_bytes());
    out.extend_from_slice(&deflated);
    gzip_trailer(&mut out, data);
    debug_assert_eq!(out.len(), block_size);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::process::{Command, Stdio};

    fn fixture(port_type: PortType, mate: Mate) -> Fixture {
        representative(port_type, mate).expect("a reviewed fixture")
    }

    impl Fixture {
        fn bytes(&self) -> Vec<u8> {
            match &self.content {
                FixtureContent::File(bytes) => bytes.clone(),
                FixtureContent::Folder(_) => panic!("{} is a folder", self.name),
            }
        }
    }

    fn records(text: &str) -> Vec<[&str; 4]> {
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len() % 4, 0);
        lines.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
    }

    /// Decompresses with the system's gzip, an independent implementation
    /// that also checks every CRC; `None` when gzip is not installed.
    fn system_gunzip(bytes: &[u8]) -> Option<Vec<u8>> {
        let mut child = match Command::new("gzip")
            .arg("-dc")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(_) => {
                somite_test_support::skipped(
                    "fixtures: the system gzip cross-check",
                    "gzip not installed",
                );
                return None;
            }
        };
        child.stdin.take().unwrap().write_all(bytes).unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "gzip rejected the fixture");
        Some(output.stdout)
    }

    #[test]
    fn fixtures_are_deterministic_and_content_addressed() {
        let a = fixture(PortType::Bam, Mate::First);
        let b = fixture(PortType::Bam, Mate::First);
        assert_eq!(a, b);
        assert!(a.relative_path().ends_with("/alignments.bam"));
        assert_eq!(a.relative_path().len(), 64 + 1 + "alignments.bam".len());
        assert_ne!(
            fixture(PortType::Fastq, Mate::First).digest(),
            fixture(PortType::Fastq, Mate::Second).digest()
        );
    }

    #[test]
    fn paired_fastq_mates_are_valid_records_with_matching_names() {
        let r1 = String::from_utf8(fixture(PortType::Fastq, Mate::First).bytes()).unwrap();
        let r2 = String::from_utf8(fixture(PortType::Fastq, Mate::Second).bytes()).unwrap();
        let (r1, r2) = (records(&r1), records(&r2));
        assert_eq!(r1.len(), READ_PAIRS);
        for (a, b) in r1.iter().zip(&r2) {
            assert!(a[0].starts_with('@'));
            assert_eq!(a[0], b[0]);
            assert_eq!(a[1].len(), READ_LENGTH);
            assert_eq!(a[1].len(), a[3].len());
            assert_eq!(a[2], "+");
            assert!(a[1].bytes().all(|c| b"ACGT".contains(&c)));
        }
        // Mate 2 of pair 1 is the reverse complement of the reference 100 bp
        // after mate 1 starts.
        let reference = reference();
        let second = &reference[pairs()[0].second_at..][..READ_LENGTH];
        assert_eq!(reverse_complement(second), r2[0][1].as_bytes());
    }

    #[test]
    fn gzipped_fixtures_decompress_to_their_plain_forms() {
        for (gz, plain) in [
            (PortType::FastqGz, PortType::Fastq),
            (PortType::FastaGz, PortType::Fasta),
            (PortType::GtfGz, PortType::Gtf),
        ] {
            for mate in [Mate::First, Mate::Second] {
                let compressed = fixture(gz, mate).bytes();
                assert_eq!(&compressed[..2], &[0x1f, 0x8b]);
                if let Some(text) = system_gunzip(&compressed) {
                    assert_eq!(text, fixture(plain, mate).bytes(), "{gz}");
                }
            }
        }
    }

    #[test]
    fn the_bam_is_bgzf_with_header_records_and_eof_block() {
        let bam = fixture(PortType::Bam, Mate::First).bytes();
        assert!(bam.ends_with(&BGZF_EOF));
        // Every block's BSIZE leads exactly to the next block.
        let mut at = 0;
        let mut blocks = 0;
        while at < bam.len() {
            assert_eq!(&bam[at..at + 4], &[0x1f, 0x8b, 0x08, 0x04]);
            assert_eq!(&bam[at + 12..at + 14], b"BC");
            let bsize = u16::from_le_bytes([bam[at + 16], bam[at + 17]]) as usize;
            at += bsize + 1;
            blocks += 1;
        }
        assert_eq!(at, bam.len());
        assert_eq!(blocks, 2);
        if let Some(raw) = system_gunzip(&bam) {
            assert_eq!(&raw[..4], b"BAM\x01");
            let l_text = i32::from_le_bytes(raw[4..8].try_into().unwrap()) as usize;
            let text = std::str::from_utf8(&raw[8..8 + l_text]).unwrap();
            assert!(text.contains("@SQ\tSN:chrT\tLN:600"));
            // Walk the records: each block_size must land on the next one.
            let mut at = 8 + l_text;
            let n_ref = i32::from_le_bytes(raw[at..at + 4].try_into().unwrap());
            assert_eq!(n_ref, 1);
            at += 4 + 4 + "chrT\0".len() + 4;
            let mut count = 0;
            let mut last_pos = -1;
            while at < raw.len() {
                let size = i32::from_le_bytes(raw[at..at + 4].try_into().unwrap()) as usize;
                let pos = i32::from_le_bytes(raw[at + 8..at + 12].try_into().unwrap());
                assert!(pos >= last_pos, "records are coordinate-sorted");
                last_pos = pos;
                at += 4 + size;
                count += 1;
            }
            assert_eq!(at, raw.len());
            assert_eq!(count, 2 * READ_PAIRS);
        }
    }

    #[test]
    fn sam_records_agree_with_the_reference() {
        let sam = String::from_utf8(fixture(PortType::Sam, Mate::First).bytes()).unwrap();
        let reference = reference();
        let rows: Vec<Vec<&str>> = sam
            .lines()
            .filter(|l| !l.starts_with('@'))
            .map(|l| l.split('\t').collect())
            .collect();
        assert_eq!(rows.len(), 2 * READ_PAIRS);
        for row in rows {
            let pos: usize = row[3].parse().unwrap();
            assert_eq!(
                row[9].as_bytes(),
                &reference[pos - 1..pos - 1 + READ_LENGTH]
            );
        }
    }

    #[test]
    fn bins_follow_the_sam_specification() {
        assert_eq!(reg2bin(0, 50), 4681);
        assert_eq!(reg2bin(16_380, 16_390), 585);
    }

    #[test]
    fn mates_are_chosen_by_parameter_name_and_unsupported_types_have_none() {
        assert_eq!(Mate::of_param("r1"), Mate::First);
        assert_eq!(Mate::of_param("r2"), Mate::Second);
        assert_eq!(Mate::of_param("reads_2"), Mate::Second);
        assert_eq!(Mate::of_param("path"), Mate::First);
        assert!(representative(PortType::Directory, Mate::First).is_none());
        assert!(representative(PortType::Vcf, Mate::First).is_none());
    }

    #[test]
    fn a_fixture_is_written_once_and_repaired_when_damaged() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let fastq = fixture(PortType::Fastq, Mate::First);
        let path = fastq.write(&layout).unwrap();
        assert!(path.starts_with(layout.fixtures()));
        assert_eq!(std::fs::read(&path).unwrap(), fastq.bytes());
        std::fs::write(&path, b"damaged").unwrap();
        assert_eq!(fastq.write(&layout).unwrap(), path);
        assert_eq!(std::fs::read(&path).unwrap(), fastq.bytes());
    }

    #[test]
    fn the_kraken2_database_is_a_folder_fixture_of_the_resource_profile() {
        assert!(representative_resource("bowtie2-index").is_none());
        let db = representative_resource(KRAKEN2_DATABASE_PROFILE).unwrap();
        assert_eq!(db.port_type, PortType::Directory);
        // The digest is over the listing: a changed file changes it.
        let listing: BTreeMap<&str, Revision> = KRAKEN2_DATABASE_FILES
            .iter()
            .map(|(name, bytes)| (*name, digest_bytes(bytes)))
            .collect();
        assert_eq!(db.digest(), revision_of(&listing));
        let sizes: u64 = KRAKEN2_DATABASE_FILES
            .iter()
            .map(|(_, b)| b.len() as u64)
            .sum();
        assert_eq!(db.size(), sizes);
        // Kraken2's options file: k = 25, l = 21 (little-endian size_t).
        let (_, opts) = KRAKEN2_DATABASE_FILES[1];
        assert_eq!(opts[0], 25);
        assert_eq!(opts[8], 21);

        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let path = db.write(&layout).unwrap();
        assert!(path.ends_with(db.relative_path()));
        assert!(path.ends_with("kraken2_db"));
        std::fs::write(path.join("hash.k2d"), b"damaged").unwrap();
        db.write(&layout).unwrap();
        for (name, bytes) in KRAKEN2_DATABASE_FILES {
            assert_eq!(std::fs::read(path.join(name)).unwrap(), *bytes, "{name}");
        }
    }
}
