//! A project survives its writer being killed at any moment, exactly.
//!
//! The test re-executes its own binary as a child that applies transactions
//! as fast as it can and reports each acknowledged one, SIGKILLs it at
//! varying moments over a hundred rounds, and reopens the project each time.
//! Every round must find: a project that opens bound (no manual rebind),
//! every acknowledged edit present, the edit that was in flight either whole
//! or absent, and a retry of that edit with its original key answered
//! truthfully — replayed if it landed, applied if it did not — as well as a
//! retry of the last acknowledged edit replayed with its original outcome.

use serde_json::json;
use somite_project::{Project, Seed};
use somite_workflow::transaction::GraphTransaction;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD_ENV: &str = somite_api::EnvVars::SOMITE_CRASH_CHILD_PROJECT;
const ROUNDS: u64 = 110;

/// Edit `i` moves the node to x = i; its key is derived from `i` alone, so
/// the parent can rebuild exactly the request the child was sending.
fn edit(base: &str, i: u64) -> GraphTransaction {
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

fn position(project: &Project) -> u64 {
    project.document().node("reads").unwrap().x as u64
}

#[test]
#[ignore = "child process of the crash test"]
fn crash_child() {
    let Ok(root) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut project = Project::open(&root, Seed::Empty).unwrap();
    loop {
        let i = position(&project) + 1;
        let base = project.state_revision().clone();
        let outcome = project.apply_transaction(&edit(&base, i)).unwrap();
        println!("applied {i} {base} {}", outcome.state_revision);
    }
}

/// The last edit the child acknowledged: its number, base and result.
struct Acknowledged {
    i: u64,
    base: String,
    state_revision: String,
}

impl Acknowledged {
    fn parse(line: &str) -> Option<Acknowledged> {
        let words: Vec<&str> = line.split(' ').collect();
        let ["applied", i, base, state_revision] = words[..] else {
            return None;
        };
        Some(Acknowledged {
            i: i.parse().ok()?,
            base: base.to_owned(),
            state_revision: state_revision.to_owned(),
        })
    }
}

#[test]
fn a_killed_writer_loses_nothing_and_recovers_by_itself() {
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

    let (mut landed_in_flight, mut lost_in_flight) = (0, 0);
    for round in 0..ROUNDS {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "crash::crash_child",
                "--nocapture",
                "--include-ignored",
            ])
            .env(CHILD_ENV, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut last: Option<Acknowledged> = None;
        // Let it get going, then kill it at a moment that drifts from round
        // to round across the phases of a commit.
        let mut acknowledged = 0;
        while acknowledged < 1 + round % 4 {
            assert!(Instant::now() < deadline, "the child made no progress");
            let line = lines
                .next()
                .expect("the child exited early")
                .expect("the child's output is text");
            if let Some(ack) = Acknowledged::parse(&line) {
                last = Some(ack);
                acknowledged += 1;
            }
        }
        std::thread::sleep(Duration::from_micros(137 * (round % 23)));
        child.kill().unwrap();
        child.wait().unwrap();
        // Lines the child printed before it died are acknowledgements too.
        if let Some(ack) = lines
            .map_while(Result::ok)
            .filter_map(|line| Acknowledged::parse(&line))
            .last()
        {
            last = Some(ack);
        }
        let last = last.expect("the child acknowledged at least one edit");

        let mut project = Project::open(dir.path(), Seed::Empty)
            .expect("a killed writer never corrupts the project");
        project.document().validate().unwrap();
        assert!(
            project.recovery_needed().is_none(),
            "round {round}: recovery must be automatic, not a manual rebind: {:?}",
            project.recovery_needed()
        );
        let at = position(&project);
        assert!(
            at == last.i || at == last.i + 1,
            "round {round}: edit {} was acknowledged but the graph is at {at}",
            last.i
        );

        // The acknowledged edit, retried, replays with its original answer.
        let replay = project
            .apply_transaction(&edit(&last.base, last.i))
            .unwrap();
        assert!(
            replay.replayed,
            "round {round}: an acknowledged key replays"
        );
        assert_eq!(replay.state_revision, last.state_revision);

        // The edit in flight, retried with its key, tells the truth.
        let in_flight = project
            .apply_transaction(&edit(&last.state_revision, last.i + 1))
            .unwrap();
        if at == last.i + 1 {
            landed_in_flight += 1;
            assert!(
                in_flight.replayed,
                "round {round}: the in-flight edit landed, so its key replays"
            );
            assert_eq!(&in_flight.state_revision, project.state_revision());
        } else {
            lost_in_flight += 1;
            assert!(
                !in_flight.replayed,
                "round {round}: the in-flight edit never landed, so its key applies it now"
            );
        }
        assert_eq!(position(&project), last.i + 1);
    }
    eprintln!(
        "{ROUNDS} kills: the edit in flight had landed {landed_in_flight} times and not {lost_in_flight} times; no rebind needed"
    );
}
