//! `docs/operator-proofs.md`: which tool operators are proven here, against
//! which Debian build, beside the conda version the contract pins (from
//! bioconda, or conda-forge for general tools such as gzip), and
//! why the others are not.
//!
//! The table is generated from the proofs themselves (the proofs test
//! renders it and fails when the committed file differs), so it cannot
//! claim a proof that did not pass. The version gap is the point of the
//! two version columns: Debian's builds are older than the pins, and a
//! contract that needs a newer flag says so in its reason.

use super::{PROOF_KIND, Proof};
use std::fmt::Write as _;

/// One tool operator's line of the table.
pub enum Coverage<'a> {
    Proven(&'a Proof),
    /// Cannot run here: the operator's pins and the recipe's reason.
    Declared {
        operator_id: &'a str,
        tool: &'a str,
        pinned: String,
        reason: &'a str,
    },
}

/// The whole document, in operator order as given.
pub fn table(rows: &[Coverage<'_>]) -> String {
    let proven = rows
        .iter()
        .filter(|r| matches!(r, Coverage::Proven(_)))
        .count();
    let mut out = format!(
        "# Operator proofs\n\n\
         <!-- Generated: SOMITE_UPDATE_COVERAGE=1 cargo nextest run -p somite-runner proofs.\n     \
         A test fails when this file differs from what the proofs produce. -->\n\n\
         Each proof is a **{PROOF_KIND}**: the\n\
         task script the compiler writes into `main.nf` for one node (the same bytes), run by\n\
         bash in a scratch task folder with generated fixtures staged under the declared names,\n\
         parameters in the declared (base64) environment variables, no Pixi activation, and the\n\
         Debian build of the tool on `PATH`. It proves the contract's flags, staging, quoting and\n\
         output names against a real tool; it does not prove Nextflow's scheduling or the pinned\n\
         conda build (bioconda's, or conda-forge's for general tools), which is usually newer than\n\
         Debian's. Run one with `somite operator prove ID`.\n\n",
    );
    let _ = writeln!(
        out,
        "{proven} of {} tool operators proven; the others declare why they cannot run here.\n",
        rows.len()
    );
    out.push_str(
        "| Operator | Tool | Proven against (reported; Debian package) | Pinned (conda) | Status |\n\
         |---|---|---|---|---|\n",
    );
    for row in rows {
        match row {
            Coverage::Proven(proof) => {
                let reported = proof.tool_version.as_deref().unwrap_or("unreported");
                let package = proof.debian_package.as_ref().map_or_else(
                    || "no Debian package".to_owned(),
                    |p| format!("{} {}", p.name, p.version),
                );
                let wrapper = if proof.wrapper.is_some() {
                    " (through a wrapper: Debian names it differently)"
                } else {
                    ""
                };
                let tool = match &proof.library {
                    Some(library) => format!("`{}` ({library})", proof.tool),
                    None => format!("`{}`", proof.tool),
                };
                let _ = writeln!(
                    out,
                    "| `{}` | {tool} | {reported}; {package} | {} | proven{wrapper} |",
                    proof.operator_id,
                    pins(proof.pinned.iter())
                );
            }
            Coverage::Declared {
                operator_id,
                tool,
                pinned,
                reason,
            } => {
                let _ = writeln!(
                    out,
                    "| `{operator_id}` | `{tool}` | — | {pinned} | not run here: {reason} |"
                );
            }
        }
    }
    out.push_str(NOTES);
    out
}

/// What the table alone cannot say, kept beside the table it qualifies. The
/// quotations are from the usage text of Debian's featureCounts 2.0.3 (run
/// `featureCounts` without arguments); the refusal of paired-end input was
/// observed with that build, and Trimmomatic's refusal with Debian's 0.39 on
/// reads whose qualities are all `I` (Q40).
const NOTES: &str = "
## Notes

**What the proofs found.** `qc.trimmomatic` passed no quality encoding, so Trimmomatic
guessed it from the reads; on reads of uniformly high quality Debian's 0.39 stops with
`Error: Unable to detect quality encoding` and writes nothing. The contract now passes
`-phred33`, the encoding of current Illumina FASTQ. The kallisto contracts call
`kallisto index --threads`, which Debian's 0.48.0 refuses: the pinned 0.51.1 has it, so
the contracts stay as they are and the table says why they are not proven here.

**Single-end featureCounts.** `quant.featurecounts` passes no `-p`, so featureCounts
treats its input as single-end and counts every aligned read on its own, which for
single-end data is one read per fragment. Its usage text says of `-p`: \"Specify that
input data contain paired-end reads. To perform fragment counting (ie. counting read
pairs), the '--countReadPairs' parameter should also be specified in addition to this
parameter\", and of `--countReadPairs`: \"This option is only applicable for paired-end
reads.\" Given paired-end alignments without `-p`, featureCounts 2.0.3 stops with
`ERROR: Paired-end reads were detected in single-end read library` and writes no counts,
so paired-end data goes to `quant.featurecounts_paired` (`-p --countReadPairs`: one
count per fragment). The single-end proof counts single-end alignments
(`align.samtools_sort@single`).

**The metagenomics graph.** The tiny Kraken2 database the `class.kraken2` proof builds
with `kraken2-build` is also the validation fixture of the `kraken2-database` resource
profile (shipped in `crates/somite-runner/fixtures/kraken2-database/`; the proof test
checks the two are the same bytes), so reads → Kraken2 → Bracken validates end to end
through the declared stand-in for Pixi and Nextflow (`somite-pixi-standin`, which runs
no tool). Its Kraken2 task is proven above with the real binary. Bracken is not:
Debian has no `bracken` package, and the database holds no `database*.kmer_distrib`
(only `bracken-build` makes one), so the stand-in validation shows the graph's wiring,
staging and outputs, not an abundance estimate; a validation with the real Bracken
fails on this database rather than report one.
";

/// `name version` pairs, joined.
pub fn pins<'a>(pins: impl Iterator<Item = (&'a String, &'a String)>) -> String {
    pins.map(|(name, version)| format!("{name} {version}"))
        .collect::<Vec<_>>()
        .join(", ")
}
