//! A restart of Somite during a run leaves an honest record: the run is
//! failed with `run_lost`, never shown as still running, and a process
//! group the old process left behind is stopped.

use crate::support::*;
use somite_runner::{NodeState, RunPhase, RunRequest, StatusPoll, Supervisor};
use somite_workflow::ErrorCode;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::Duration;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_run_in_progress_when_somite_stops_is_marked_lost_on_restart() {
    let test = single_end_qc();
    let toolchain = test
        .toolchain()
        .with_env(somite_api::EnvVars::SOMITE_STANDIN_HANG, "1");

    // The first Somite process starts a run and goes away mid-run.
    let first = runtime();
    let run_id = first.block_on(async {
        let supervisor = Supervisor::open(test.root(), toolchain.clone()).unwrap();
        let started = supervisor
            .start_run(
                &test.project,
                &RunRequest {
                    idempotency_key: "restart-key-01".into(),
                    profile: None,
                },
            )
            .unwrap();
        wait_for_phase(&supervisor, &started.run_id, RunPhase::Running).await;
        started.run_id
    });
    drop(first);
    let record = test
        .root()
        .join(".somite/runs")
        .join(&run_id)
        .join("run.json");
    let on_disk: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
    assert_eq!(on_disk["status"]["phase"], "running");
    // Shutting the runtime down took the run's process group with it.
    let pgid = on_disk["process_group"].as_i64().expect("a recorded group") as i32;
    let gone = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        !process_alive(pgid)
    });
    assert!(gone, "the run's process outlived its supervisor");

    // The next one finds it and says what happened.
    let second = runtime();
    second.block_on(async {
        let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
        assert_eq!(supervisor.recovered_runs().len(), 1);
        let status = supervisor
            .status(&run_id, StatusPoll::default())
            .await
            .unwrap();
        assert_eq!(status.phase, RunPhase::Failed);
        let error = status.error.as_ref().unwrap();
        assert_eq!(error.code, ErrorCode::RunLost);
        assert!(
            error
                .message
                .contains("restarted while this run was running")
        );
        assert_eq!(status.states["fastqc"], NodeState::Cancelled);
        assert!(status.ended_at.is_some());
        assert_eq!(&status, &supervisor.recovered_runs()[0]);
        // The record itself now says so.
        let on_disk: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&record).unwrap()).unwrap();
        assert_eq!(on_disk["status"]["phase"], "failed");
        assert_eq!(on_disk["process_group"], serde_json::Value::Null);
    });
    // A third start finds nothing left to recover.
    runtime().block_on(async {
        let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
        assert!(supervisor.recovered_runs().is_empty());
    });
}

#[test]
fn a_process_group_left_running_by_a_crash_is_stopped_on_restart() {
    let test = single_end_qc();
    let rt = runtime();
    // A finished run gives a real record to rewind into "running".
    let run_id = rt.block_on(async {
        let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
        let started = supervisor
            .start_run(
                &test.project,
                &RunRequest {
                    idempotency_key: "crash-key-0001".into(),
                    profile: None,
                },
            )
            .unwrap();
        wait_for_end(&supervisor, &started.run_id).await;
        started.run_id
    });
    let run_dir = test.root().join(".somite/runs").join(&run_id);
    let launch_dir = run_dir.join("launch");

    // What a crash leaves: the stand-in still running in the launch
    // directory, in its own group, and a record saying "running".
    std::fs::remove_file(launch_dir.join("trace.tsv")).unwrap();
    let mut orphan = Command::new(standin())
        .args(["run", "--frozen", "--manifest-path"])
        .arg(launch_dir.join("pixi.toml"))
        .arg("run")
        .current_dir(&launch_dir)
        .env(somite_api::EnvVars::SOMITE_STANDIN_HANG, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let pgid = orphan.id() as i32;
    let record_path = run_dir.join("run.json");
    let mut record: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record_path).unwrap()).unwrap();
    record["status"]["phase"] = "running".into();
    record["status"]["ended_at"] = serde_json::Value::Null;
    record["process_group"] = pgid.into();
    std::fs::write(&record_path, serde_json::to_vec(&record).unwrap()).unwrap();
    // Give the orphan time to reach its working directory.
    std::thread::sleep(Duration::from_millis(100));
    assert!(process_alive(pgid));

    rt.block_on(async {
        let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
        let lost = &supervisor.recovered_runs()[0];
        assert_eq!(lost.phase, RunPhase::Failed);
        assert!(
            lost.error
                .as_ref()
                .unwrap()
                .message
                .contains("leftover processes were stopped"),
            "{lost:?}"
        );
    });
    let status = orphan.wait().unwrap();
    assert!(!status.success(), "the orphan was not stopped: {status}");
}
