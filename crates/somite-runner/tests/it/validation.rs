//! Validation: fixtures bound to the roots, the same frozen path as a run,
//! and a write-once, re-verified evidence receipt (against the test
//! stand-in for `pixi`).

use crate::support::*;
use serde_json::json;
use somite_project::evidence::{ItemResult, ReceiptResult};
use somite_runner::{NodeState, RunKind, RunPhase, Supervisor, launch};
use somite_workflow::{ErrorCode, SomiteError};
use std::fs;

fn receipt_file(test: &TestProject, digest: &str) -> std::path::PathBuf {
    test.root()
        .join(".somite/evidence/receipts")
        .join(format!("{}.json", digest.strip_prefix("blake3:").unwrap()))
}

#[tokio::test]
async fn a_passing_validation_binds_fixtures_and_records_one_verified_receipt() {
    let test = paired_qc();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let mut events = supervisor.subscribe();
    let started = supervisor
        .start_validation(&test.project, &validation_request("validate-key-1"))
        .unwrap();
    assert_eq!(started.kind, RunKind::Validation);

    // The run stays finalizing until its receipt is on disk.
    let mut saw_finalizing = false;
    let status = loop {
        let status = tokio::time::timeout(CEILING, events.recv())
            .await
            .unwrap()
            .unwrap();
        if status.phase == RunPhase::Finalizing {
            saw_finalizing = true;
            assert_eq!(status.evidence_receipt, None);
        }
        if status.phase.is_terminal() {
            let digest = status.evidence_receipt.clone().expect("a receipt");
            assert!(receipt_file(&test, &digest).is_file());
            break status;
        }
    };
    assert!(saw_finalizing);
    assert_eq!(status.phase, RunPhase::Completed, "{status:#?}");
    assert!(status.states.values().all(|s| *s == NodeState::Done));

    // Both mates bound to content-addressed fixtures, disclosed as overrides.
    assert_eq!(status.fixtures.len(), 2);
    let fixture_names: Vec<&str> = status.fixtures.iter().map(|f| f.fixture.as_str()).collect();
    assert_eq!(fixture_names, ["fastq-r1", "fastq-r2"]);
    for binding in &status.fixtures {
        let bytes = fs::read(test.root().join(&binding.path)).unwrap();
        assert_eq!(
            somite_workflow::canonical::digest_bytes(&bytes),
            binding.digest
        );
        let hex = binding.digest.strip_prefix("blake3:").unwrap();
        assert!(
            binding
                .path
                .starts_with(&format!(".somite/fixtures/{hex}/"))
        );
    }
    assert_eq!(status.overrides.len(), 2);
    assert!(
        status.overrides[0]
            .used
            .as_str()
            .unwrap()
            .contains("/.somite/fixtures/")
    );
    assert_eq!(status.overrides[0].packaged, json!("data/R1.fastq"));

    let lookup = supervisor.evidence(&started.graph_revision).unwrap();
    assert!(lookup.validated);
    assert!(lookup.problems.is_empty());
    assert_eq!(lookup.receipts.len(), 1);
    let receipt = &lookup.receipts[0];
    assert_eq!(Some(&receipt.digest), status.evidence_receipt.as_ref());
    assert_eq!(receipt.digest, receipt.computed_digest());
    assert_eq!(receipt.result, ReceiptResult::Passed);
    assert_eq!(receipt.reason, None);
    assert_eq!(receipt.run_id, started.run_id);
    assert_eq!(receipt.subject.graph_revision, started.graph_revision);
    assert_eq!(receipt.closure_digest, started.closure_digest);
    assert_ne!(
        receipt.configuration.params_digest,
        receipt.configuration.packaged_params_digest
    );
    assert_eq!(receipt.configuration.overrides, status.overrides);
    assert_eq!(receipt.fixtures, status.fixtures);
    assert_eq!(receipt.verifier.name, "somite-runner");
    assert_eq!(
        receipt.verifier.command,
        [
            "pixi",
            "run",
            "--frozen",
            "--manifest-path",
            "pixi.toml",
            "run",
            "local"
        ]
    );
    assert_eq!(receipt.exit_code, Some(0));
    assert_eq!(receipt.nodes.len(), 3);
    assert!(receipt.nodes.iter().all(|n| n.result == ItemResult::Passed));
    let trim = receipt.nodes.iter().find(|n| n.node_id == "trim").unwrap();
    assert_eq!(trim.exit, Some(0));
    assert!(trim.task_hash.is_some());
    assert_eq!(receipt.edges.len(), 3);
    assert!(receipt.edges.iter().all(|e| e.result == ItemResult::Passed));
    assert!(
        receipt
            .artifacts
            .iter()
            .any(|a| a.path == "results/trim/out/fastp.json"),
        "{:?}",
        receipt.artifacts
    );
    let logs: Vec<&str> = receipt.logs.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(logs, ["trace.tsv", "../stdout.log", "../stderr.log"]);

    // A second validation adds a second receipt; the first is untouched.
    let first_bytes = fs::read(receipt_file(&test, &receipt.digest)).unwrap();
    let second = supervisor
        .start_validation(&test.project, &validation_request("validate-key-2"))
        .unwrap();
    wait_for_end(&supervisor, &second.run_id).await;
    let lookup = supervisor.evidence(&started.graph_revision).unwrap();
    assert_eq!(lookup.receipts.len(), 2);
    assert_eq!(
        fs::read(receipt_file(&test, &receipt.digest)).unwrap(),
        first_bytes
    );
}

#[tokio::test]
async fn a_failing_validation_records_a_failed_receipt_that_does_not_validate() {
    let test = paired_qc();
    let toolchain = test
        .toolchain()
        .with_env(somite_api::EnvVars::SOMITE_STANDIN_FAIL_NODE, "trim");
    let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
    let (started, status) = validate(&supervisor, &test.project, "fail-validate-1").await;
    assert_eq!(status.phase, RunPhase::Failed, "{status:#?}");
    assert_eq!(status.error.as_ref().unwrap().code, ErrorCode::RunFailed);
    assert!(!status.stderr_tail.is_empty());
    let digest = status.evidence_receipt.clone().expect("a failed receipt");

    let lookup = supervisor.evidence(&started.graph_revision).unwrap();
    assert!(!lookup.validated);
    let receipt = &lookup.receipts[0];
    assert_eq!(receipt.digest, digest);
    assert_eq!(receipt.result, ReceiptResult::Failed);
    assert!(receipt.reason.as_ref().unwrap().contains("trim"));
    assert_eq!(receipt.exit_code, Some(1));
    let node = |id: &str| receipt.nodes.iter().find(|n| n.node_id == id).unwrap();
    assert_eq!(node("trim").result, ItemResult::Failed);
    assert_eq!(node("trim").exit, Some(1));
    assert_eq!(node("fastqc").result, ItemResult::Passed);
    let edge = |id: &str| receipt.edges.iter().find(|e| e.edge_id == id).unwrap();
    assert_eq!(edge("e1").result, ItemResult::Failed);
    assert_eq!(edge("e3").result, ItemResult::Passed);
}

/// The metagenomics graph (reads → Kraken2 with the tiny database →
/// Bracken) validates end to end through the declared stand-in for Pixi and
/// Nextflow (`somite-pixi-standin`, which runs no tool): the database root
/// is bound to the tiny Kraken2 database, a folder fixture written file by
/// file under its content address. That Kraken2 task is also proven with
/// the real `kraken2` against the same database (tests/it/proofs.rs); Bracken
/// is not (no Debian package), and the database carries no
/// `database*.kmer_distrib`, so a validation with the real Bracken fails
/// rather than report an abundance.
#[tokio::test]
async fn the_metagenomics_graph_validates_with_the_tiny_kraken2_database() {
    let test = metagenomics();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let (started, status) = validate(&supervisor, &test.project, "metagenomics-01").await;
    assert_eq!(status.phase, RunPhase::Completed, "{status:#?}");
    for node in ["classify", "abundance"] {
        assert_eq!(status.states.get(node), Some(&NodeState::Done), "{node}");
    }

    let db = status
        .fixtures
        .iter()
        .find(|f| f.node_id == "db")
        .expect("the database root is bound");
    let fixture = somite_runner::fixtures::representative_resource("kraken2-database").unwrap();
    assert_eq!(
        (db.fixture.as_str(), db.port_type.as_str(), &db.digest),
        ("kraken2-database-tiny", "Directory", &fixture.digest())
    );
    let hex = db.digest.strip_prefix("blake3:").unwrap();
    assert_eq!(db.path, format!(".somite/fixtures/{hex}/kraken2_db"));
    for (name, bytes) in somite_runner::fixtures::KRAKEN2_DATABASE_FILES {
        assert_eq!(
            fs::read(test.root().join(&db.path).join(name)).unwrap(),
            *bytes,
            "{name}"
        );
    }
    // Both consumers of the database read the fixture, disclosed once as
    // the root's override.
    let used = status.overrides.iter().find(|o| o.node_id == "db").unwrap();
    assert_eq!(used.packaged, json!("db"));
    assert!(
        used.used
            .as_str()
            .unwrap()
            .ends_with(&format!(".somite/fixtures/{hex}/kraken2_db"))
    );

    let lookup = supervisor.evidence(&started.graph_revision).unwrap();
    assert!(lookup.validated, "{lookup:#?}");
    let receipt = &lookup.receipts[0];
    assert_eq!(receipt.result, ReceiptResult::Passed);
    assert!(
        receipt
            .fixtures
            .iter()
            .any(|f| f.fixture == "kraken2-database-tiny")
    );
}

#[tokio::test]
async fn a_root_without_a_reviewed_fixture_is_refused_before_any_process() {
    let test = project_vcf_source();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let error = SomiteError::from(
        supervisor
            .start_validation(&test.project, &validation_request("no-fixture-01"))
            .unwrap_err(),
    );
    assert_eq!(
        error.code,
        ErrorCode::RepresentativeFixtureUnsupported,
        "{error:?}"
    );
    let roots = &error.details.unwrap()["roots"];
    assert_eq!(
        roots,
        &json!([{"node_id": "calls", "port": "vcf", "port_type": "Vcf"}])
    );
    assert!(test.standin_invocations().is_empty());
    assert!(!test.root().join(".somite/fixtures").exists());
}

#[tokio::test]
async fn download_nodes_are_stood_in_for_by_fixtures_and_disclosed_as_unexercised() {
    let test = ncbi_reference_alignment();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let (started, status) = validate(&supervisor, &test.project, "network-01").await;
    assert_eq!(status.phase, RunPhase::Completed, "{status:#?}");

    // The download and the extraction never ran; everything else did. Which
    // nodes are stood in for, and why, is `launch::substitution`'s to say
    // (its unit tests own that list); the run discloses exactly those.
    assert_eq!(
        status.unexercised,
        launch::substitution(test.project.document(), test.project.catalog()).nodes
    );
    assert_eq!(status.states["gcf_datasets"], NodeState::Unexercised);
    assert_eq!(status.states["gcf_assembly"], NodeState::Unexercised);
    for node in ["reads", "index", "align"] {
        assert_eq!(status.states[node], NodeState::Done, "{node}");
    }

    // The extracted genome is the reviewed FASTA fixture, disclosed as an
    // override of the validation package's input.
    let genome = status
        .fixtures
        .iter()
        .find(|f| f.node_id == "gcf_assembly")
        .expect("the stood-in genome is bound");
    assert_eq!(
        (
            genome.param.as_str(),
            genome.port_type.as_str(),
            genome.fixture.as_str()
        ),
        ("genome", "Fasta", "fasta")
    );
    let used = status
        .overrides
        .iter()
        .find(|o| o.node_id == "gcf_assembly")
        .unwrap();
    assert!(
        used.reason.contains("ncbi.datasets_extract_assembly"),
        "{}",
        used.reason
    );
    assert!(used.reason.contains("needs the network"), "{}", used.reason);

    // The package that ran has no process for the stood-in nodes and
    // marks them in its node map.
    let launch = test
        .root()
        .join(&status.output_dir)
        .parent()
        .unwrap()
        .to_owned();
    let node_map: serde_json::Value =
        serde_json::from_slice(&fs::read(launch.join("node-map.json")).unwrap()).unwrap();
    for entry in node_map["nodes"].as_array().unwrap() {
        let stood_in = entry["node_id"] == "gcf_datasets" || entry["node_id"] == "gcf_assembly";
        assert_eq!(entry["substituted"] == json!(true), stood_in, "{entry}");
        assert_eq!(
            entry["process"].is_null(),
            stood_in || entry["node_id"] == "reads"
        );
    }
    let main_nf = fs::read_to_string(launch.join("main.nf")).unwrap();
    assert!(main_nf.contains("process ALIGN {"), "{main_nf}");
    assert!(!main_nf.contains("process GCF_DATASETS"), "{main_nf}");
    assert!(!main_nf.contains("process GCF_ASSEMBLY"), "{main_nf}");

    // The receipt passes and names what it did not exercise.
    let lookup = supervisor.evidence(&started.graph_revision).unwrap();
    assert!(lookup.validated, "{lookup:#?}");
    let receipt = &lookup.receipts[0];
    assert_eq!(receipt.result, ReceiptResult::Passed);
    assert_eq!(receipt.unexercised, status.unexercised);
    let node = |id: &str| receipt.nodes.iter().find(|n| n.node_id == id).unwrap();
    assert_eq!(node("gcf_datasets").state, "unexercised");
    assert_eq!(node("gcf_datasets").result, ItemResult::NotRun);
    assert_eq!(node("align").result, ItemResult::Passed);
}

#[tokio::test]
async fn a_stood_in_output_without_a_fixture_is_refused_before_any_process() {
    let test = ncbi_gff3_conversion();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let error = SomiteError::from(
        supervisor
            .start_validation(&test.project, &validation_request("network-02"))
            .unwrap_err(),
    );
    assert_eq!(
        error.code,
        ErrorCode::RepresentativeFixtureUnsupported,
        "{error:?}"
    );
    assert_eq!(
        error.details.unwrap()["roots"],
        json!([{"node_id": "gcf_assembly", "port": "annotation_gff3", "port_type": "Gff3"}])
    );
    assert!(test.standin_invocations().is_empty());
}

#[tokio::test]
async fn a_tampered_receipt_is_reported_and_never_counts_as_evidence() {
    let test = single_end_qc();
    let toolchain = test
        .toolchain()
        .with_env(somite_api::EnvVars::SOMITE_STANDIN_FAIL_NODE, "fastqc");
    let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
    let (started, status) = validate(&supervisor, &test.project, "tamper-key-01").await;
    let digest = status.evidence_receipt.unwrap();
    let path = receipt_file(&test, &digest);
    let text = fs::read_to_string(&path).unwrap();
    let forged = text.replacen("\"result\": \"failed\"", "\"result\": \"passed\"", 1);
    assert_ne!(forged, text);
    fs::write(&path, forged).unwrap();

    let lookup = supervisor.evidence(&started.graph_revision).unwrap();
    assert!(!lookup.validated, "a forged receipt validated the graph");
    assert!(lookup.receipts.is_empty());
    assert_eq!(lookup.problems.len(), 1);
    assert_eq!(lookup.problems[0].digest, digest);
    assert_eq!(lookup.problems[0].problem, "tampered");
    let read = somite_project::evidence::read(test.project.layout(), &digest).unwrap_err();
    assert_eq!(read.code, ErrorCode::EvidenceTampered);
}

#[tokio::test]
async fn a_fixture_only_parameter_override_is_disclosed() {
    let mut test = single_end_qc();
    fs::write(test.root().join("data/genome.fa"), b">c\nACGT\n").unwrap();
    test.apply(
        "add-star-index",
        vec![
            add(
                "genome",
                "files.import_fasta",
                json!({"path": "data/genome.fa"}),
            ),
            add("index", "align.star_index", json!({})),
            connect("e9", ("genome", "sequences"), ("index", "reference")),
        ],
    );
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let (started, status) = validate(&supervisor, &test.project, "star-fixture-1").await;
    assert_eq!(status.phase, RunPhase::Completed, "{status:#?}");
    let value = status
        .overrides
        .iter()
        .find(|o| o.scope == "values")
        .expect("the STAR override is disclosed");
    assert_eq!(
        (value.node_id.as_str(), value.param.as_str()),
        ("index", "sa_index_nbases")
    );
    assert_eq!((&value.packaged, &value.used), (&json!(14), &json!(4)));
    let fasta = status
        .fixtures
        .iter()
        .find(|f| f.node_id == "genome")
        .unwrap();
    assert_eq!(fasta.fixture, "fasta");
    let lookup = supervisor.evidence(&started.graph_revision).unwrap();
    assert!(lookup.receipts[0].configuration.overrides.contains(value));
}
