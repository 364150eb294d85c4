//! A project survives its process being killed in the middle of publishing.
//!
//! The test re-executes its own binary as a child that applies transactions
//! as fast as it can, SIGKILLs it at varying moments, and reopens the project
//! each time: the graph must parse and validate, and the project must either
//! be bound (the state revision is one the child reported or is about to) or
//! refuse writes with `input_origin_recovery_required` until rebound — never a
//! torn file, never a silent mix of two states.

use serde_json::json;
use somite_project::{Project, Seed};
use somite_workflow::ErrorCode;
use somite_workflow::transaction::GraphTransaction;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "SOMITE_CRASH_CHILD_PROJECT";

fn move_edit(base: &str, i: u64) -> GraphTransaction {
    serde_json::from_value(json!({
        "base_state_revision": base,
        "idempotency_key": format!("crash-{i:08}"),
        "summary": "move",
        "operations": [
            {"op": "move", "node_id": "reads", "x": i as f64, "y": 0},
            {"op": "set_param", "node_id": "reads", "param": "path", "value": format!("r{i}.fastq")},
        ],
    }))
    .unwrap()
}

#[test]
#[ignore = "child process of the crash test"]
fn crash_child() {
    let Ok(root) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut project = Project::open(&root, Seed::Empty).unwrap();
    let mut i = project.document().nodes[0].x as u64 + 1;
    loop {
        let base = project.state_revision().clone();
        project.apply_transaction(&move_edit(&base, i)).unwrap();
        println!("applied {i}");
        i += 1;
    }
}

#[test]
fn a_killed_writer_leaves_a_project_that_opens_and_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let base = project.state_revision().clone();
    let seed: GraphTransaction = serde_json::from_value(json!({
        "base_state_revision": base, "idempotency_key": "seed-0001", "summary": "seed",
        "operations": [{"op": "add_operator", "node_id": "reads", "operator_id": "files.import", "params": {"path": "r.fastq"}, "x": 0, "y": 0}],
    }))
    .unwrap();
    project.apply_transaction(&seed).unwrap();
    drop(project);

    let mut recovered = 0;
    for round in 0..6u64 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "crash_child", "--nocapture", "--include-ignored"])
            .env(CHILD_ENV, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut applied = 0;
        // Let it get going, then kill it a little later each round.
        while applied < 3 + round * 2 {
            assert!(Instant::now() < deadline, "the child made no progress");
            match lines.next() {
                Some(Ok(line)) if line.starts_with("applied") => applied += 1,
                Some(_) => {}
                None => panic!("the child exited early"),
            }
        }
        std::thread::sleep(Duration::from_micros(300 * round));
        child.kill().unwrap();
        child.wait().unwrap();

        let mut project = Project::open(dir.path(), Seed::Empty)
            .expect("a killed writer never corrupts the project");
        project.document().validate().unwrap();
        if project.recovery_needed().is_some() {
            recovered += 1;
            assert_eq!(
                project.ensure_bound().unwrap_err().code,
                ErrorCode::InputOriginRecoveryRequired
            );
            project.rebind().unwrap();
        }
        let base = project.state_revision().clone();
        let next_i = project.document().nodes[0].x as u64 + 1000;
        project
            .apply_transaction(&move_edit(&base, next_i))
            .expect("the project accepts edits again");
    }
    eprintln!("crash rounds that needed a rebind: {recovered} of 6");
}
