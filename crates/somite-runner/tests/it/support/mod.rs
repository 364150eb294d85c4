//! Shared pieces of the supervisor's integration tests: small real projects
//! built with transactions like any edit, the test STAND-IN for `pixi`
//! (`somite-pixi-standin`, see its module docs), and waiting helpers.

#![allow(dead_code)]

use serde_json::json;
use somite_project::{Project, Seed};
use somite_runner::{
    RunPhase, RunStarted, RunStatus, RunnerToolchain, StatusPoll, Supervisor, ValidationRequest,
};
use somite_workflow::transaction::{GraphTransaction, Operation};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The longest any test waits for a run to end.
pub const CEILING: Duration = Duration::from_secs(30);

pub struct TestProject {
    pub dir: TempDir,
    pub project: Project,
}

impl TestProject {
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Where the stand-in logs its invocations in this project.
    pub fn standin_log(&self) -> PathBuf {
        self.root().join("standin-invocations.jsonl")
    }

    /// The stand-in toolchain, logging to [`standin_log`](Self::standin_log),
    /// with short steps.
    pub fn toolchain(&self) -> RunnerToolchain {
        RunnerToolchain::with_pixi(standin())
            .with_env(somite_api::EnvVars::SOMITE_STANDIN_LOG, self.standin_log())
            .with_env(somite_api::EnvVars::SOMITE_STANDIN_STEP_MS, "20")
    }

    /// Every invocation of the stand-in so far: its arguments.
    pub fn standin_invocations(&self) -> Vec<Vec<String>> {
        match fs::read_to_string(self.standin_log()) {
            Ok(text) => text
                .lines()
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).unwrap();
                    v["argv"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|a| a.as_str().unwrap().to_owned())
                        .collect()
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    }

    /// The stand-in's `pixi run` invocations (compile's `lock` and
    /// `export` calls are not runs).
    pub fn standin_runs(&self) -> Vec<Vec<String>> {
        self.standin_invocations()
            .into_iter()
            .filter(|argv| argv.first().is_some_and(|a| a == "run"))
            .collect()
    }

    pub fn apply(&mut self, key: &str, operations: Vec<Operation>) {
        let txn = GraphTransaction {
            base_state_revision: self.project.state_revision().clone(),
            idempotency_key: key.into(),
            summary: "test edit".into(),
            operations,
        };
        self.project
            .apply_transaction(&txn)
            .expect("the edit applies");
    }
}

/// The test stand-in for `pixi`, built with this crate.
pub fn standin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_somite-pixi-standin"))
}

pub use somite_test_support::{add, connect};

fn project_with(files: &[(&str, &[u8])], operations: Vec<Operation>) -> TestProject {
    let dir = tempfile::tempdir().unwrap();
    somite_test_support::write_files(dir.path(), files);
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    let mut test = TestProject { dir, project };
    test.apply("test-graph-0001", operations);
    test
}

/// Single-end reads (a relative path) through FastQC.
pub fn single_end_qc() -> TestProject {
    project_with(
        &[("data/reads.fastq", b"@r1\nACGT\n+\nIIII\n")],
        vec![
            add("reads", "files.import", json!({"path": "data/reads.fastq"})),
            add("fastqc", "qc.fastqc", json!({})),
            connect("e1", ("reads", "file"), ("fastqc", "reads")),
        ],
    )
}

/// Paired reads through fastp, and R1 through FastQC.
pub fn paired_qc() -> TestProject {
    project_with(
        &[
            ("data/R1.fastq", b"@r1\nACGT\n+\nIIII\n"),
            ("data/R2.fastq", b"@r1\nTGCA\n+\nIIII\n"),
        ],
        somite_test_support::paired_qc_operations(),
    )
}

/// The metagenomics graph: paired reads classified by Kraken2 against a
/// local database, and Bracken re-estimating abundance from Kraken2's report
/// with the same database. The database root provides the
/// `kraken2-database` resource profile, so validation binds it to the tiny
/// Kraken2 database fixture.
pub fn metagenomics() -> TestProject {
    project_with(
        &[
            ("data/R1.fastq", b"@r1\nACGT\n+\nIIII\n"),
            ("data/R2.fastq", b"@r1\nTGCA\n+\nIIII\n"),
            ("db/hash.k2d", b"k2d"),
        ],
        vec![
            add(
                "reads",
                "files.import_paired",
                json!({"r1": "data/R1.fastq", "r2": "data/R2.fastq"}),
            ),
            add("db", "files.import_kraken2_database", json!({"path": "db"})),
            add("classify", "class.kraken2", json!({})),
            add("abundance", "class.bracken", json!({})),
            connect("e1", ("reads", "r1"), ("classify", "r1")),
            connect("e2", ("reads", "r2"), ("classify", "r2")),
            connect("e3", ("db", "db"), ("classify", "db")),
            connect("e4", ("classify", "report"), ("abundance", "kraken_report")),
            connect("e5", ("db", "db"), ("abundance", "db")),
        ],
    )
}

/// A VCF imported by a project's own source operator and indexed: Somite
/// has no representative VCF, so validation cannot bind that root.
pub fn project_vcf_source() -> TestProject {
    const SOURCE: &[u8] = br#"id = "files.import_vcf_here"
title = "Import a VCF"
palette = "Inputs"
kind = "source"
cost = "trivial"

[[params]]
name = "path"
type = "string"
label = "VCF file"
required = true

[[ports.out]]
name = "vcf"
type = "Vcf"
import_param = "path"
"#;
    project_with(
        &[
            (".somite/operators/files.import_vcf_here.toml", SOURCE),
            ("data/calls.vcf", b"##fileformat=VCFv4.2\n"),
        ],
        vec![
            add(
                "calls",
                "files.import_vcf_here",
                json!({"path": "data/calls.vcf"}),
            ),
            add("view", "var.bcftools_view", json!({})),
            connect("e1", ("calls", "vcf"), ("view", "variants")),
        ],
    )
}

/// Local paired reads aligned with BWA to an assembly fetched from NCBI
/// Datasets, as the public-data search's recipe places it (download, then
/// extraction): a validation stands in for both download-side nodes.
pub fn ncbi_reference_alignment() -> TestProject {
    project_with(
        &[
            ("data/R1.fastq", b"@r1\nACGT\n+\nIIII\n"),
            ("data/R2.fastq", b"@r1\nTGCA\n+\nIIII\n"),
        ],
        vec![
            add(
                "reads",
                "files.import_paired",
                json!({"r1": "data/R1.fastq", "r2": "data/R2.fastq"}),
            ),
            add(
                "gcf_datasets",
                "ncbi.datasets_genome",
                json!({"accession": "GCF_000001405.40", "include": "genome,gtf"}),
            ),
            add("gcf_assembly", "ncbi.datasets_extract_assembly", json!({})),
            add("index", "align.bwa_index", json!({})),
            add("align", "align.bwa", json!({})),
            connect(
                "e1",
                ("gcf_datasets", "package"),
                ("gcf_assembly", "package"),
            ),
            connect("e2", ("gcf_assembly", "genome"), ("index", "reference")),
            connect("e3", ("index", "index"), ("align", "index")),
            connect("e4", ("reads", "r1"), ("align", "r1")),
            connect("e5", ("reads", "r2"), ("align", "r2")),
        ],
    )
}

/// [`ncbi_reference_alignment`] with the package's GFF3 converted by
/// gffread too: Somite has no representative GFF3, so that stood-in output
/// cannot be bound.
pub fn ncbi_gff3_conversion() -> TestProject {
    let mut test = ncbi_reference_alignment();
    test.apply(
        "test-graph-gff3",
        vec![
            add("to_gtf", "annot.gffread_gtf", json!({})),
            connect(
                "e6",
                ("gcf_assembly", "annotation_gff3"),
                ("to_gtf", "annotation"),
            ),
        ],
    );
    test
}

/// A validation request with the idempotency key `key`.
pub fn validation_request(key: &str) -> ValidationRequest {
    ValidationRequest {
        idempotency_key: key.into(),
    }
}

/// Starts a validation of `project` with the key `key` and waits for it to
/// end: what the start answered, and the run's last status.
pub async fn validate(
    supervisor: &Supervisor,
    project: &Project,
    key: &str,
) -> (RunStarted, RunStatus) {
    let started = supervisor
        .start_validation(project, &validation_request(key))
        .unwrap();
    let status = wait_for_end(supervisor, &started.run_id).await;
    (started, status)
}

/// Waits until `run_id` has ended, long-polling like a client would.
pub async fn wait_for_end(supervisor: &Supervisor, run_id: &str) -> RunStatus {
    poll_until(supervisor, run_id, 5_000, "run did not end", |status| {
        status.phase.is_terminal()
    })
    .await
}

/// Waits until `run_id` is in `phase` (or has ended, which fails).
pub async fn wait_for_phase(supervisor: &Supervisor, run_id: &str, phase: RunPhase) -> RunStatus {
    poll_until(
        supervisor,
        run_id,
        2_000,
        &format!("no {phase:?}"),
        |status| {
            assert!(
                status.phase == phase || !status.phase.is_terminal(),
                "run ended before reaching {phase:?}: {status:#?}"
            );
            status.phase == phase
        },
    )
    .await
}

/// Long-polls `run_id` (up to `wait_ms` a poll) until `done`, for at most
/// [`CEILING`]; past it, fails saying `what`.
async fn poll_until(
    supervisor: &Supervisor,
    run_id: &str,
    wait_ms: u64,
    what: &str,
    done: impl Fn(&RunStatus) -> bool,
) -> RunStatus {
    let started = Instant::now();
    loop {
        let status = supervisor
            .status(
                run_id,
                StatusPoll {
                    wait_ms,
                    since_revision: None,
                },
            )
            .await
            .unwrap();
        if done(&status) {
            return status;
        }
        assert!(started.elapsed() < CEILING, "{what}: {status:#?}");
    }
}

/// Waits for `path` to hold a complete pid line.
pub async fn read_pid_file(path: &Path) -> i32 {
    let started = Instant::now();
    loop {
        if let Ok(text) = fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text.trim().parse().unwrap();
        }
        assert!(started.elapsed() < CEILING, "no pid in {}", path.display());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether `pid` is a live process (a zombie has already exited).
pub fn process_alive(pid: i32) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits up to two seconds for `pid` to be gone.
pub async fn assert_gone(pid: i32, what: &str) {
    for _ in 0..100 {
        if !process_alive(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{what} (pid {pid}) survived");
}
