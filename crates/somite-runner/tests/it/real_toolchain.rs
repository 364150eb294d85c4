//! The real thing, where it exists: a validation of a FASTQ QC graph with
//! the real `pixi` (which installs Nextflow, Java and FastQC from the
//! package's lock) ending with a passing receipt. Skipped, and saying so,
//! on machines without Pixi.

use crate::support::*;
use somite_project::evidence::ReceiptResult;
use somite_project::toolchain::find_on_path;
use somite_runner::{RunPhase, RunnerToolchain, StatusPoll, Supervisor};
use std::time::{Duration, Instant};

#[tokio::test]
async fn a_real_validation_of_fastq_qc_passes_where_pixi_is_installed() {
    let Some(pixi) = find_on_path("pixi") else {
        somite_test_support::skipped(
            "a_real_validation_of_fastq_qc_passes_where_pixi_is_installed",
            "pixi not installed",
        );
        return;
    };
    let test = single_end_qc();
    let supervisor = Supervisor::open(test.root(), RunnerToolchain::with_pixi(pixi)).unwrap();
    let started = supervisor
        .start_validation(&test.project, &validation_request("real-validate-1"))
        .unwrap();
    // Installing the environments can take a while on a cold cache.
    let deadline = Instant::now() + Duration::from_secs(1_800);
    let status = loop {
        let status = supervisor
            .status(
                &started.run_id,
                StatusPoll {
                    wait_ms: 25_000,
                    since_revision: None,
                },
            )
            .await
            .unwrap();
        if status.phase.is_terminal() || Instant::now() > deadline {
            break status;
        }
    };
    assert_eq!(status.phase, RunPhase::Completed, "{status:#?}");
    let lookup = supervisor.evidence(&started.graph_revision).unwrap();
    assert!(lookup.validated);
    assert_eq!(lookup.receipts[0].result, ReceiptResult::Passed);
}
