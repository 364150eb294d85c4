//! Candidate proofs: a `project.*` candidate validated in its own fixture
//! graph through the supervisor (against the test STAND-IN for `pixi`), and
//! its task proof with the real `seqtk` (installed by `scripts/setup`).

use crate::support::*;
use serde_json::{Value, json};
use somite_api::WorkshopCode;
use somite_project::candidates::{self, Candidate};
use somite_runner::StatusPoll;
use somite_runner::workshop::{ProveRequest, TaskProofRecord, Workshop};
use somite_workflow::Catalog;
use std::time::Instant;

/// `seqtk seq -a`: FASTQ to FASTA on standard output, as seqtk's README
/// shows it; the pin is the bioconda-recipes seqtk version the reviewed
/// `seq.seqtk_fasta` cites. `--fasta` is the deliberately wrong flag, with
/// an excerpt made up for it.
fn seqtk_draft(flag: &str) -> Value {
    let excerpt = if flag == "-a" {
        "Convert FASTQ to FASTA:\n\n    seqtk seq -a in.fq.gz > out.fa".to_owned()
    } else {
        format!("{flag}  output FASTA")
    };
    json!({
        "contract": {
            "id": "project.fastq_to_fasta",
            "title": "seqtk seq: FASTQ to FASTA",
            "palette": "Project tools",
            "kind": "external",
            "cost": "trivial",
            "bin": "seqtk",
            "pixi": {"seqtk": "1.3"},
            "resources": {"cpus": 1, "memory_gb": 1},
            "stdout": "fasta",
            "argv": ["seqtk", "seq", flag, "{input.reads}"],
            "ports": {
                "in": [{"name": "reads", "type": "Fastq", "union": ["FastqGz"]}],
                "out": [{"name": "fasta", "type": "Fasta"}]
            }
        },
        "evidence": {
            "documentation": "https://github.com/lh3/seqtk#seqtk-examples",
            "packages": ["seqtk==1.3"],
            "flags": [{"flag": flag, "excerpt": excerpt}]
        }
    })
}

fn candidate(draft: &Value) -> Candidate {
    let bytes = serde_json::to_vec(draft).unwrap();
    candidates::parse_draft(&bytes, &Catalog::builtin().unwrap()).unwrap()
}

fn key(k: &str) -> ProveRequest {
    ProveRequest {
        idempotency_key: k.into(),
    }
}

async fn until_ended(workshop: &Workshop, proof_id: &str) -> somite_runner::workshop::ProofStatus {
    let started = Instant::now();
    loop {
        let status = workshop
            .status(
                proof_id,
                StatusPoll {
                    wait_ms: 5_000,
                    since_revision: None,
                },
            )
            .await
            .unwrap();
        if status.run.phase.is_terminal() {
            return status;
        }
        assert!(started.elapsed() < CEILING, "the proof did not end");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_candidate_is_validated_in_its_own_fixture_graph_and_its_real_task_proof_passes() {
    let test = single_end_qc();
    let before = test.project.state_revision().clone();
    let workshop = Workshop::new(test.project.layout().clone(), test.toolchain());
    let seqtk = candidate(&seqtk_draft("-a"));
    let receipt = workshop
        .prove(test.project.catalog(), &seqtk, &key("prove-seqtk-1"))
        .unwrap();
    assert_eq!(receipt.candidate_digest, seqtk.digest);
    assert_eq!(receipt.fixtures.len(), 1);
    assert_eq!(receipt.fixtures[0].import_operator, "files.import");
    assert_eq!(receipt.fixtures[0].fixture, "fastq-r1");

    let status = until_ended(&workshop, "prove-seqtk-1").await;
    assert!(status.proven, "{status:#?}");
    assert_eq!(status.run.closure_digest, receipt.closure_digest);
    assert_eq!(status.run.graph_revision, receipt.graph_revision);
    assert!(status.run.evidence_receipt.is_some());
    // Through the production supervisor: the stand-in ran the proof
    // project's package, not the user's.
    let runs = test.standin_runs();
    assert_eq!(runs.len(), 1, "{runs:?}");

    match &receipt.task_proof {
        TaskProofRecord::Ran {
            kind,
            passed,
            proof,
        } => {
            assert_eq!(kind, somite_runner::proof::PROOF_KIND);
            assert!(passed, "{proof:#?}");
            assert_eq!(proof.tool, "seqtk");
        }
        other => panic!("seqtk is installed by scripts/setup: {other:?}"),
    }

    // The user's project is untouched: same graph, no project operator.
    assert_eq!(test.project.state_revision(), &before);
    assert!(
        test.project
            .catalog()
            .get("project.fastq_to_fasta")
            .is_none()
    );
    assert!(!test.root().join(".somite/operators").exists());

    // The same key and candidate replay; another candidate under it conflicts.
    let replay = workshop
        .prove(test.project.catalog(), &seqtk, &key("prove-seqtk-1"))
        .unwrap();
    assert!(replay.replayed);
    assert_eq!(replay.run_id, receipt.run_id);
    let other = candidate(&seqtk_draft("--fasta"));
    let conflict = workshop
        .prove(test.project.catalog(), &other, &key("prove-seqtk-1"))
        .unwrap_err();
    assert_eq!(conflict.code.as_str(), "idempotency_conflict");
    assert_eq!(workshop.receipts().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_flag_fails_the_real_task_proof() {
    let test = single_end_qc();
    let workshop = Workshop::new(test.project.layout().clone(), test.toolchain());
    // seqtk 1.3 warns about `--fasta`, exits 0 and writes nothing.
    let wrong = candidate(&seqtk_draft("--fasta"));
    let receipt = workshop
        .prove(test.project.catalog(), &wrong, &key("prove-wrong-1"))
        .unwrap();
    match &receipt.task_proof {
        TaskProofRecord::Ran { passed, proof, .. } => {
            assert!(!passed, "{proof:#?}");
            assert!(!proof.outputs[0].passed, "{proof:#?}");
        }
        other => panic!("seqtk is installed by scripts/setup: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_input_type_without_a_fixture_is_refused_with_the_type_named() {
    let test = single_end_qc();
    let workshop = Workshop::new(test.project.layout().clone(), test.toolchain());
    let mut draft = seqtk_draft("-a");
    draft["contract"]["ports"]["in"][0] = json!({"name": "reads", "type": "Vcf"});
    let refused = workshop
        .prove(
            test.project.catalog(),
            &candidate(&draft),
            &key("prove-vcf-01"),
        )
        .unwrap_err();
    assert_eq!(refused.code, WorkshopCode::FixtureUnsupported);
    assert!(refused.message.contains("Vcf"), "{}", refused.message);
    assert!(test.standin_runs().is_empty());
    assert!(workshop.receipts().unwrap().is_empty());
}
