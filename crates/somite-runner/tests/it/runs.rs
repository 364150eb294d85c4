//! Runs through the supervisor against the test stand-in for `pixi`:
//! the launch command, progress, idempotency, the readiness and toolchain
//! gates, failures, long-polling and events.

use crate::support::*;
use somite_project::compiled::{self, Toolchain};
use somite_runner::{
    NodeState, RunKind, RunPhase, RunRequest, RunnerToolchain, StatusPoll, Supervisor,
};
use somite_workflow::ErrorCode;
use somite_workflow::SomiteError;
use std::time::{Duration, Instant};

fn request(key: &str) -> RunRequest {
    RunRequest {
        idempotency_key: key.into(),
        profile: None,
    }
}

fn code(error: somite_runner::RunnerError) -> ErrorCode {
    SomiteError::from(error).code
}

#[tokio::test]
async fn a_run_executes_the_package_frozen_and_reports_every_node_done() {
    let test = paired_qc();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let started = supervisor
        .start_run(&test.project, &request("run-key-0001"))
        .unwrap();
    assert_eq!(started.kind, RunKind::Run);
    assert!(!started.replayed);
    assert_eq!(started.graph_revision, test.project.graph_revision());
    assert_eq!(started.profile, "local");

    let status = wait_for_end(&supervisor, &started.run_id).await;
    assert_eq!(status.phase, RunPhase::Completed, "{status:#?}");
    assert_eq!(status.exit_code, Some(0));
    assert_eq!(status.error, None);
    assert_eq!(status.closure_digest, started.closure_digest);
    assert_eq!(status.states.len(), 3);
    assert!(status.states.values().all(|s| *s == NodeState::Done));
    assert_eq!(
        (
            status.progress.completed,
            status.progress.total,
            status.progress.unit.as_str()
        ),
        (2, 2, "nodes")
    );
    assert!(status.stderr_tail.is_empty());
    assert!(status.ended_at.is_some());
    assert_eq!(status.evidence_receipt, None);

    // Exactly the exported package's command, with no shell, from the run's
    // own launch directory.
    let runs = test.standin_runs();
    assert_eq!(runs.len(), 1);
    let launch_dir = test
        .root()
        .canonicalize()
        .unwrap()
        .join(".somite/runs")
        .join(&started.run_id)
        .join("launch");
    assert_eq!(
        runs[0],
        [
            "run",
            "--frozen",
            "--manifest-path",
            &launch_dir.join("pixi.toml").display().to_string(),
            "run",
            "local"
        ]
    );
    // Relative inputs are resolved against the project, and disclosed.
    assert_eq!(status.overrides.len(), 2);
    assert!(status.overrides.iter().all(|o| o.scope == "inputs"));
    assert!(
        status.overrides[0].used.as_str().unwrap().starts_with('/'),
        "{:?}",
        status.overrides
    );
    // Outputs land in the run's directory; the published package is untouched.
    assert!(test.root().join(&status.output_dir).join("trim").is_dir());
    let outcome = compiled::compile(&test.project, &Toolchain::with_pixi(standin())).unwrap();
    assert!(
        outcome.reused,
        "the published package was modified by the run"
    );
    assert_eq!(outcome.package.digest(), &started.closure_digest);
}

#[tokio::test]
async fn the_same_key_replays_the_launch_and_a_different_launch_is_refused() {
    let mut test = single_end_qc();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let first = supervisor
        .start_run(&test.project, &request("replay-key-01"))
        .unwrap();
    let again = supervisor
        .start_run(&test.project, &request("replay-key-01"))
        .unwrap();
    assert!(again.replayed);
    assert_eq!(again.run_id, first.run_id);
    wait_for_end(&supervisor, &first.run_id).await;
    assert_eq!(test.standin_runs().len(), 1, "a replay started a process");

    // The same key for a validation, another profile, or a changed graph
    // is another launch.
    let validation =
        supervisor.start_validation(&test.project, &validation_request("replay-key-01"));
    assert_eq!(
        code(validation.unwrap_err()),
        ErrorCode::IdempotencyConflict
    );
    let slurm = supervisor.start_run(
        &test.project,
        &RunRequest {
            idempotency_key: "replay-key-01".into(),
            profile: Some("slurm".into()),
        },
    );
    assert_eq!(code(slurm.unwrap_err()), ErrorCode::IdempotencyConflict);
    test.apply(
        "edit-after-run",
        vec![somite_workflow::transaction::Operation::SetParam {
            node_id: "fastqc".into(),
            param: "nogroup".into(),
            value: serde_json::json!(true),
        }],
    );
    let changed = supervisor.start_run(&test.project, &request("replay-key-01"));
    assert_eq!(code(changed.unwrap_err()), ErrorCode::IdempotencyConflict);

    // The key survives a restart of the supervisor.
    drop(supervisor);
    let reopened = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let replay = reopened
        .start_run(
            &test.project,
            &RunRequest {
                idempotency_key: "replay-key-01".into(),
                profile: Some("slurm".into()),
            },
        )
        .unwrap_err();
    assert_eq!(code(replay), ErrorCode::IdempotencyConflict);
    assert_eq!(test.standin_runs().len(), 1);
}

#[tokio::test]
async fn a_blocked_graph_is_refused_before_any_process_starts() {
    let mut test = single_end_qc();
    // An unconnected FastQC makes the graph need an input.
    test.apply(
        "block-the-graph",
        vec![add("lonely", "qc.fastqc", serde_json::json!({}))],
    );
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let refused = supervisor
        .start_run(&test.project, &request("blocked-key-1"))
        .unwrap_err();
    assert_eq!(code(refused), ErrorCode::WorkflowNotReady);
    let refused = supervisor
        .start_validation(&test.project, &validation_request("blocked-key-2"))
        .unwrap_err();
    assert_eq!(code(refused), ErrorCode::WorkflowNotReady);
    assert!(
        test.standin_invocations().is_empty(),
        "pixi was started: {:?}",
        test.standin_invocations()
    );
    assert!(
        !test
            .root()
            .join(".somite/runs")
            .join("launches.json")
            .exists()
    );
    assert!(!test.root().join(".somite/fixtures").exists());
}

#[tokio::test]
async fn without_pixi_a_start_says_toolchain_missing_and_spawns_nothing() {
    let test = single_end_qc();
    for toolchain in [
        RunnerToolchain::without_pixi(),
        RunnerToolchain::with_pixi(test.root().join("no-such-pixi")),
    ] {
        let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
        let error = SomiteError::from(
            supervisor
                .start_run(&test.project, &request("no-pixi-key-1"))
                .unwrap_err(),
        );
        assert_eq!(error.code, ErrorCode::ToolchainMissing);
        assert!(error.recovery.contains("pixi"), "{}", error.recovery);
    }
    assert!(!test.root().join(".somite/runs/launches.json").exists());
}

#[tokio::test]
async fn malformed_requests_and_unknown_runs_are_refused() {
    let test = single_end_qc();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    for key in ["short", "has spaces in it", &"k".repeat(129)] {
        let error = supervisor
            .start_run(&test.project, &request(key))
            .unwrap_err();
        assert_eq!(code(error), ErrorCode::InvalidRequest, "{key}");
    }
    let error = supervisor
        .start_run(
            &test.project,
            &RunRequest {
                idempotency_key: "profile-key-1".into(),
                profile: Some("laptop".into()),
            },
        )
        .unwrap_err();
    assert_eq!(code(error), ErrorCode::InvalidRequest);
    for id in ["run-1-abcdef12", "../../etc", "run-../x-00000000"] {
        let error = supervisor
            .status(id, StatusPoll::default())
            .await
            .unwrap_err();
        assert_eq!(code(error), ErrorCode::NotFound, "{id}");
        assert_eq!(
            code(supervisor.cancel(id).unwrap_err()),
            ErrorCode::NotFound
        );
    }
    assert_eq!(
        code(supervisor.evidence("not-a-revision").unwrap_err()),
        ErrorCode::InvalidRequest
    );
    assert!(test.standin_invocations().is_empty());
}

#[tokio::test]
async fn a_failing_node_fails_the_run_with_the_end_of_stderr() {
    let test = paired_qc();
    let toolchain = test
        .toolchain()
        .with_env(somite_api::EnvVars::SOMITE_STANDIN_FAIL_NODE, "fastqc");
    let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
    let started = supervisor
        .start_run(&test.project, &request("failing-key-1"))
        .unwrap();
    let status = wait_for_end(&supervisor, &started.run_id).await;
    assert_eq!(status.phase, RunPhase::Failed, "{status:#?}");
    assert_eq!(status.exit_code, Some(1));
    let error = status.error.as_ref().unwrap();
    assert_eq!(error.code, ErrorCode::RunFailed);
    assert!(error.message.contains("fastqc (task exit 1)"), "{error:?}");
    assert_eq!(status.states["fastqc"], NodeState::Failed);
    assert_eq!(status.states["reads"], NodeState::Done);
    // fastqc sorts before trim, so trim never ran.
    assert_eq!(status.states["trim"], NodeState::Skipped);
    assert!(
        status
            .stderr_tail
            .iter()
            .any(|l| l.contains("terminated with an error exit status (1)")),
        "{:?}",
        status.stderr_tail
    );
}

#[tokio::test]
async fn cached_tasks_are_reported_cached() {
    let test = single_end_qc();
    let toolchain = test
        .toolchain()
        .with_env(somite_api::EnvVars::SOMITE_STANDIN_CACHED, "1");
    let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
    let started = supervisor
        .start_run(&test.project, &request("cached-key-01"))
        .unwrap();
    let status = wait_for_end(&supervisor, &started.run_id).await;
    assert_eq!(status.phase, RunPhase::Completed);
    assert_eq!(status.states["fastqc"], NodeState::Cached);
    assert!(
        status.progress.message.contains("1 cached"),
        "{:?}",
        status.progress
    );
}

#[tokio::test]
async fn a_long_poll_returns_early_on_a_change_and_otherwise_at_its_deadline() {
    let test = single_end_qc();
    let toolchain = test
        .toolchain()
        .with_env(somite_api::EnvVars::SOMITE_STANDIN_HANG, "1");
    let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
    let started = supervisor
        .start_run(&test.project, &request("long-poll-key"))
        .unwrap();
    let running = wait_for_phase(&supervisor, &started.run_id, RunPhase::Running).await;
    // Let the trace settle on RUNNING, then nothing changes while it hangs.
    let settled = loop {
        let status = supervisor
            .status(&started.run_id, StatusPoll::default())
            .await
            .unwrap();
        if status.states["fastqc"] == NodeState::Running {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(settled.revision >= running.revision);

    let begun = Instant::now();
    let unchanged = supervisor
        .status(
            &started.run_id,
            StatusPoll {
                wait_ms: 600,
                since_revision: None,
            },
        )
        .await
        .unwrap();
    let waited = begun.elapsed();
    assert!(waited >= Duration::from_millis(600), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    assert_eq!(unchanged.revision, settled.revision);

    // An out-of-date `since_revision` answers at once.
    let begun = Instant::now();
    let at_once = supervisor
        .status(
            &started.run_id,
            StatusPoll {
                wait_ms: 20_000,
                since_revision: Some(settled.revision.saturating_sub(1)),
            },
        )
        .await
        .unwrap();
    assert!(begun.elapsed() < Duration::from_millis(500));
    assert_eq!(at_once.revision, settled.revision);

    // A change (the cancellation) ends a long wait early.
    let canceller = supervisor.clone();
    let run_id = started.run_id.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        canceller.cancel(&run_id).unwrap();
    });
    let begun = Instant::now();
    let changed = supervisor
        .status(
            &started.run_id,
            StatusPoll {
                wait_ms: 20_000,
                since_revision: None,
            },
        )
        .await
        .unwrap();
    assert!(
        begun.elapsed() < Duration::from_secs(5),
        "{:?}",
        begun.elapsed()
    );
    assert!(changed.revision > settled.revision);
    assert_ne!(changed.phase, RunPhase::Running);
    let ended = wait_for_end(&supervisor, &started.run_id).await;
    assert_eq!(ended.phase, RunPhase::Cancelled);

    // An ended run answers at once, whatever the wait.
    let begun = Instant::now();
    supervisor
        .status(
            &started.run_id,
            StatusPoll {
                wait_ms: 20_000,
                since_revision: None,
            },
        )
        .await
        .unwrap();
    assert!(begun.elapsed() < Duration::from_millis(500));
}

#[tokio::test]
async fn a_long_poll_waits_at_most_twenty_five_seconds() {
    let test = single_end_qc();
    let toolchain = test
        .toolchain()
        .with_env(somite_api::EnvVars::SOMITE_STANDIN_HANG, "1");
    let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
    let started = supervisor
        .start_run(&test.project, &request("wait-cap-key1"))
        .unwrap();
    loop {
        let status = supervisor
            .status(&started.run_id, StatusPoll::default())
            .await
            .unwrap();
        if status.states["fastqc"] == NodeState::Running {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Virtual time: the runtime jumps to the next timer while idle.
    tokio::time::pause();
    let begun = tokio::time::Instant::now();
    supervisor
        .status(
            &started.run_id,
            StatusPoll {
                wait_ms: 600_000,
                since_revision: None,
            },
        )
        .await
        .unwrap();
    let waited = begun.elapsed();
    tokio::time::resume();
    assert!(
        waited >= somite_runner::limits::MAX_STATUS_WAIT
            && waited < somite_runner::limits::MAX_STATUS_WAIT + Duration::from_secs(1),
        "{waited:?}"
    );
    supervisor.cancel(&started.run_id).unwrap();
    wait_for_end(&supervisor, &started.run_id).await;
}

#[tokio::test]
async fn every_status_change_is_announced_to_subscribers_and_saved() {
    let test = single_end_qc();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let mut events = supervisor.subscribe();
    let started = supervisor
        .start_run(&test.project, &request("events-key-01"))
        .unwrap();
    let mut phases = Vec::new();
    let mut revisions = Vec::new();
    loop {
        let status = tokio::time::timeout(CEILING, events.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status.run_id, started.run_id);
        revisions.push(status.revision);
        if phases.last() != Some(&status.phase) {
            phases.push(status.phase);
        }
        if status.phase.is_terminal() {
            break;
        }
    }
    assert_eq!(
        phases,
        [
            RunPhase::Preparing,
            RunPhase::Running,
            RunPhase::Finalizing,
            RunPhase::Completed
        ]
    );
    assert!(revisions.windows(2).all(|w| w[0] < w[1]), "{revisions:?}");

    // The record on disk is the final status, and a fresh supervisor reads it.
    let reopened = Supervisor::open(test.root(), test.toolchain()).unwrap();
    assert!(reopened.recovered_runs().is_empty());
    let read = reopened
        .status(&started.run_id, StatusPoll::default())
        .await
        .unwrap();
    assert_eq!(
        read,
        supervisor
            .status(&started.run_id, StatusPoll::default())
            .await
            .unwrap()
    );
}
