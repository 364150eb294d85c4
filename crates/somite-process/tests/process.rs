//! The runner's promises, each against a real child: the environment is
//! the allowlist and nothing else, output is bounded as asked, and a stop
//! reaches the whole group — SIGKILL after the grace period for a member
//! that ignores SIGTERM — so no process is left behind.

use somite_process::{
    Capture, Command, Environment, Interruption, Limits, Pipe, Stop, env, run, run_blocking,
};
use std::path::Path;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio_util::sync::CancellationToken;

const GRACE: Duration = Duration::from_millis(300);

fn limits(timeout: Duration) -> Limits {
    Limits {
        timeout,
        grace: GRACE,
        stdout: Capture::Head(1024 * 1024),
        stderr: Capture::Head(1024 * 1024),
    }
}

fn sh(script: &str) -> Command {
    Command::new(
        "/bin/sh",
        std::env::temp_dir(),
        Environment::inherit(&["PATH"]),
    )
    .arg("-c")
    .arg(script)
}

/// Whether `pid` is a live process (a zombie has exited).
fn process_exists(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// The pid a script wrote to `path` (complete once it ends in a newline).
async fn read_pid(path: &Path) -> i32 {
    for _ in 0..250 {
        if let Ok(text) = std::fs::read_to_string(path)
            && text.ends_with('\n')
        {
            return text.trim().parse().expect("a pid");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{} was never written", path.display());
}

/// Whether `pid` is gone within a few seconds (its parent, init, reaps it).
async fn gone(pid: i32) -> bool {
    for _ in 0..250 {
        if !process_exists(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

/// A leader that starts a grandchild which records its pid and sleeps,
/// ignoring SIGTERM when `stubborn`.
fn leader_with_grandchild(pid_file: &Path, stubborn: bool) -> Command {
    let trap = if stubborn { "trap \"\" TERM; " } else { "" };
    sh(&format!(
        "sh -c '{trap}echo $$ > {pid}; while :; do sleep 0.1; done' & wait",
        pid = pid_file.display()
    ))
}

#[tokio::test]
async fn only_the_allowlisted_environment_reaches_the_child() {
    // Cargo sets CARGO_MANIFEST_DIR for the test process; it is not allowlisted.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let env = Environment::inherit(env::BASE).with("SOMITE_PROBE", "visible");
    let command = Command::new("/usr/bin/env", std::env::temp_dir(), env.clone());
    let finished = run(
        &command,
        &limits(Duration::from_secs(30)),
        &CancellationToken::new(),
    )
    .await
    .expect("runs");
    assert!(finished.success());
    let text = String::from_utf8(finished.stdout.into_bytes()).unwrap();
    let mut names: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split_once('=').map(|(name, _)| name))
        .collect();
    names.sort_unstable();
    let mut expected: Vec<String> = env
        .names()
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
    expected.sort_unstable();
    assert_eq!(names, expected, "{text}");
    assert!(names.contains(&"SOMITE_PROBE"));
    assert!(!names.contains(&"CARGO_MANIFEST_DIR"));
    assert!(
        names
            .iter()
            .all(|name| *name == "SOMITE_PROBE" || env::BASE.contains(name))
    );
}

#[tokio::test]
async fn the_head_keeps_the_first_bytes_and_counts_the_rest() {
    let mut bounds = limits(Duration::from_secs(30));
    bounds.stdout = Capture::Head(10);
    bounds.stderr = Capture::Discard;
    let finished = run(
        &sh("printf 0123456789abcdef; echo hidden >&2"),
        &bounds,
        &CancellationToken::new(),
    )
    .await
    .expect("runs");
    assert!(finished.success());
    assert_eq!(finished.stdout.bytes(), b"0123456789");
    assert_eq!(finished.stdout.total(), 16);
    assert!(finished.stdout.truncated());
    assert_eq!(finished.stderr.bytes(), b"");
    assert_eq!(finished.stderr.total(), 0);
}

#[tokio::test]
async fn the_tail_keeps_the_last_bytes_of_a_long_stream() {
    let mut bounds = limits(Duration::from_secs(30));
    bounds.stderr = Capture::Tail(6);
    let finished = run(
        &sh("yes | head -c 3000000 >&2; printf 'error' >&2; exit 4"),
        &bounds,
        &CancellationToken::new(),
    )
    .await
    .expect("runs");
    assert!(!finished.success());
    assert_eq!(finished.status.code(), Some(4));
    assert_eq!(finished.stderr.bytes(), b"\nerror");
    assert_eq!(finished.stderr.total(), 3_000_005);
    assert!(finished.stderr.truncated());
}

#[tokio::test]
async fn a_timeout_stops_the_whole_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let finished = run(
        &leader_with_grandchild(&pid_file, false),
        &limits(Duration::from_millis(500)),
        &CancellationToken::new(),
    )
    .await
    .expect("runs");
    assert_eq!(finished.interruption, Some(Interruption::TimedOut));
    assert!(!finished.success());
    let grandchild = read_pid(&pid_file).await;
    assert!(gone(grandchild).await, "grandchild {grandchild} survived");
}

#[tokio::test]
async fn a_member_ignoring_sigterm_is_killed_after_the_grace_period() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let mut process = leader_with_grandchild(&pid_file, true)
        .stdout(Pipe::Closed)
        .stderr(Pipe::Closed)
        .spawn()
        .expect("spawns");
    let grandchild = read_pid(&pid_file).await;
    assert!(process.group_alive());
    assert_eq!(process.terminate(GRACE).await, Stop::Killed);
    assert!(!process.group_alive());
    assert!(
        !process_exists(grandchild),
        "grandchild {grandchild} survived"
    );
    // The leader (a shell) took SIGTERM; it is reaped, not a zombie.
    let status = process.wait().await.expect("reaped");
    assert!(!status.success());
    assert!(!process_exists(process.process_group()));
}

#[tokio::test]
async fn a_group_that_obeys_sigterm_is_terminated() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let mut process = leader_with_grandchild(&pid_file, false)
        .spawn()
        .expect("spawns");
    let grandchild = read_pid(&pid_file).await;
    assert_eq!(
        process.terminate(Duration::from_secs(10)).await,
        Stop::Terminated
    );
    assert!(!process_exists(grandchild));
    assert_eq!(process.terminate(GRACE).await, Stop::AlreadyGone);
}

#[tokio::test]
async fn cancellation_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let pid_path = pid_file.clone();
    let canceller = tokio::spawn(async move {
        read_pid(&pid_path).await;
        trigger.cancel();
    });
    let finished = run(
        &leader_with_grandchild(&pid_file, true),
        &limits(Duration::from_secs(600)),
        &cancel,
    )
    .await
    .expect("runs");
    canceller.await.unwrap();
    assert_eq!(finished.interruption, Some(Interruption::Cancelled));
    let grandchild = read_pid(&pid_file).await;
    assert!(gone(grandchild).await, "grandchild {grandchild} survived");
}

#[tokio::test]
async fn what_the_leader_leaves_behind_is_stopped_when_it_exits() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("background.pid");
    let script = format!(
        "sleep 600 >/dev/null 2>&1 & echo $! > {}; echo done",
        pid_file.display()
    );
    let finished = run(
        &sh(&script),
        &limits(Duration::from_secs(30)),
        &CancellationToken::new(),
    )
    .await
    .expect("runs");
    assert!(finished.success());
    assert_eq!(finished.stdout.bytes(), b"done\n");
    let background = read_pid(&pid_file).await;
    assert!(
        gone(background).await,
        "background job {background} survived"
    );
}

#[tokio::test]
async fn dropping_a_process_kills_its_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let process = leader_with_grandchild(&pid_file, true)
        .spawn()
        .expect("spawns");
    let grandchild = read_pid(&pid_file).await;
    drop(process);
    assert!(gone(grandchild).await, "grandchild {grandchild} survived");
}

#[tokio::test]
async fn piped_stdin_and_stdout_stream_both_ways() {
    let mut process = Command::new("/bin/cat", std::env::temp_dir(), Environment::default())
        .stdin(Pipe::Piped)
        .spawn()
        .expect("spawns");
    let mut stdin = process.take_stdin().expect("piped");
    let mut lines = BufReader::new(process.take_stdout().expect("piped")).lines();
    stdin.write_all(b"ping\n").await.unwrap();
    assert_eq!(lines.next_line().await.unwrap().as_deref(), Some("ping"));
    drop(stdin);
    assert_eq!(lines.next_line().await.unwrap(), None);
    assert!(process.wait().await.unwrap().success());
    assert!(process.wait_for_group(GRACE).await);
}

#[test]
fn run_blocking_serves_synchronous_callers() {
    let finished =
        run_blocking(&sh("echo out; exit 3"), &limits(Duration::from_secs(30))).expect("runs");
    assert_eq!(finished.status.code(), Some(3));
    assert_eq!(finished.stdout.bytes(), b"out\n");
}

#[test]
fn a_missing_program_is_a_spawn_error() {
    let command = Command::new("/nonexistent/somite-tool", "/", Environment::default());
    assert!(matches!(
        run_blocking(&command, &limits(Duration::from_secs(1))),
        Err(somite_process::Error::Spawn { .. })
    ));
}
