//! Cancellation stops the whole process group: the test stand-in for
//! `pixi` starts a grandchild that ignores SIGTERM, and after the cancel
//! neither may survive.

use crate::support::*;
use somite_runner::{NodeState, RunPhase, RunRequest, StatusPoll, Supervisor};
use std::time::{Duration, Instant};

#[tokio::test]
async fn cancelling_a_run_kills_the_whole_process_group() {
    let test = single_end_qc();
    let pid_file = test.root().join("grandchild.pid");
    let toolchain = test
        .toolchain()
        .with_env(somite_api::EnvVars::SOMITE_STANDIN_HANG, "1")
        .with_env(
            somite_api::EnvVars::SOMITE_STANDIN_GRANDCHILD_PID_FILE,
            &pid_file,
        );
    let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
    let started = supervisor
        .start_run(
            &test.project,
            &RunRequest {
                idempotency_key: "cancel-key-001".into(),
                profile: None,
            },
        )
        .unwrap();
    wait_for_phase(&supervisor, &started.run_id, RunPhase::Running).await;
    let grandchild = read_pid_file(&pid_file).await;
    assert!(process_alive(grandchild));
    let leader = record_process_group(&test, &started.run_id);
    assert!(process_alive(leader));

    let begun = Instant::now();
    let cancelling = supervisor.cancel(&started.run_id).unwrap();
    assert_eq!(cancelling.phase, RunPhase::Cancelling);
    let ended = wait_for_end(&supervisor, &started.run_id).await;
    assert_eq!(ended.phase, RunPhase::Cancelled, "{ended:#?}");
    assert_eq!(ended.error, None);
    assert_eq!(ended.states["fastqc"], NodeState::Cancelled);
    assert_eq!(ended.states["reads"], NodeState::Done);
    assert!(begun.elapsed() < Duration::from_secs(10));
    assert_gone(leader, "the pixi stand-in").await;
    assert_gone(grandchild, "the SIGTERM-ignoring grandchild").await;

    // Cancelling again changes nothing.
    let again = supervisor.cancel(&started.run_id).unwrap();
    assert_eq!(again, ended);
    let read = supervisor
        .status(&started.run_id, StatusPoll::default())
        .await
        .unwrap();
    assert_eq!(read.phase, RunPhase::Cancelled);
}

#[tokio::test]
async fn a_finished_run_cannot_be_cancelled() {
    let test = single_end_qc();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let started = supervisor
        .start_run(
            &test.project,
            &RunRequest {
                idempotency_key: "cancel-late-01".into(),
                profile: None,
            },
        )
        .unwrap();
    let ended = wait_for_end(&supervisor, &started.run_id).await;
    assert_eq!(ended.phase, RunPhase::Completed);
    assert_eq!(supervisor.cancel(&started.run_id).unwrap(), ended);
}

/// The process group the run record names while the run is going.
fn record_process_group(test: &TestProject, run_id: &str) -> i32 {
    let started = Instant::now();
    loop {
        let path = test
            .root()
            .join(".somite/runs")
            .join(run_id)
            .join("run.json");
        if let Ok(bytes) = std::fs::read(&path) {
            let record: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            if let Some(pgid) = record["process_group"].as_i64() {
                return pgid as i32;
            }
        }
        assert!(started.elapsed() < CEILING, "no process group recorded");
        std::thread::sleep(Duration::from_millis(20));
    }
}
