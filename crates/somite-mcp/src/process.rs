//! The bounded process runner behind every CLI tool.
//!
//! An agent-triggered process must not be able to hang a server, flood its
//! memory, inherit secrets, or outlive a cancelled request. So a command is
//! a program path plus a fixed argument array (there is no
//! shell anywhere on this path), a working directory, and an explicit
//! environment built from an allowlist ([`ChildEnv`]): a
//! `somite_process::Command`. [`run`] hands it to `somite-process`, which
//! starts the program as the leader of a new process group and:
//!
//! - keeps the first [`STREAM_CAPTURE_LIMIT`](crate::limits::STREAM_CAPTURE_LIMIT)
//!   bytes of each of stdout and stderr (an agent reads a report from the
//!   top), drains and counts the rest; the report is marked truncated, with
//!   a marker line in the text;
//! - on timeout or cancellation sends SIGTERM to the whole group, waits
//!   [`TERMINATION_GRACE`](crate::limits::TERMINATION_GRACE), then SIGKILLs it;
//!   after a normal exit, stops the same way whatever the program left behind;
//! - if its own future is dropped mid-run, SIGKILLs the group.
//!
//! The result is the structured [`ProcessReport`] every CLI tool returns.

use crate::limits::{STREAM_CAPTURE_LIMIT, TERMINATION_GRACE};
use nix::sys::signal::Signal;
use schemars::JsonSchema;
use serde::Serialize;
use somite_process::{Capture, Captured, Command, Interruption, Limits};
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Variables a child may inherit from the server: executable lookup, home
/// and XDG directories, temporary directories, locale, and certificate
/// bundles. Proxies, credentials, tokens and tool configuration overrides
/// (e.g. `PIXI_TLS_NO_VERIFY`) are deliberately absent.
pub const BASE_ENV_ALLOWLIST: &[&str] = somite_process::env::BASE;

/// The complete environment of a child process.
pub use somite_process::Environment as ChildEnv;

/// The runner could not start or observe the process.
pub use somite_process::Error as ProcessError;

/// The structured result of one invocation.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ProcessReport {
    /// The argument vector, program first, exactly as executed.
    pub command: Vec<String>,
    pub cwd: String,
    /// The exit code, or null when the process was killed by a signal.
    pub exit_code: Option<i32>,
    /// The terminating signal's name (`SIGTERM`, `SIGKILL`), if any.
    pub signal: Option<String>,
    pub stdout: String,
    pub stderr: String,
    pub stdout_truncated: bool,
    pub stderr_truncated: bool,
    pub duration_ms: u64,
    /// True when the process exited with code 0 within its time.
    pub ok: bool,
    /// True when the server stopped the process because it ran out of time.
    pub timed_out: bool,
    /// True when the server stopped the process because the request was cancelled.
    pub cancelled: bool,
}

/// Runs `command` to completion, `timeout` or cancellation.
pub async fn run(
    command: &Command,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<ProcessReport, ProcessError> {
    let limits = Limits {
        timeout,
        grace: TERMINATION_GRACE,
        stdout: Capture::Head(STREAM_CAPTURE_LIMIT),
        stderr: Capture::Head(STREAM_CAPTURE_LIMIT),
    };
    let finished = somite_process::run(command, &limits, cancel).await?;
    let exit_code = finished.status.code();
    Ok(ProcessReport {
        command: command.argv(),
        cwd: command.cwd().display().to_string(),
        exit_code,
        signal: finished.status.signal().map(signal_name),
        stdout_truncated: finished.stdout.truncated(),
        stderr_truncated: finished.stderr.truncated(),
        ok: finished.success(),
        timed_out: finished.interruption == Some(Interruption::TimedOut),
        cancelled: finished.interruption == Some(Interruption::Cancelled),
        duration_ms: u64::try_from(finished.elapsed.as_millis()).unwrap_or(u64::MAX),
        stdout: report_text(finished.stdout),
        stderr: report_text(finished.stderr),
    })
}

fn signal_name(number: i32) -> String {
    Signal::try_from(number)
        .map(|signal| signal.as_str().to_owned())
        .unwrap_or_else(|_| format!("signal {number}"))
}

/// The kept bytes as text, with a marker line when some were discarded.
fn report_text(captured: Captured) -> String {
    let truncated = captured.truncated();
    let kept = captured.bytes().len();
    let omitted = captured.total() - kept as u64;
    let mut text = String::from_utf8_lossy(captured.bytes()).into_owned();
    if truncated {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "[somite: output truncated after {kept} bytes; {omitted} more bytes were discarded]\n"
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    use crate::limits::DEFAULT_TIMEOUT;

    fn sh(script: &str) -> Command {
        Command::new(
            "/bin/sh",
            std::env::temp_dir(),
            ChildEnv::inherit(&["PATH"]),
        )
        .arg("-c")
        .arg(script)
    }

    #[tokio::test]
    async fn a_successful_command_reports_its_output_and_exit_code() {
        let report = run(
            &sh("echo out; echo err >&2; exit 0"),
            DEFAULT_TIMEOUT,
            &CancellationToken::new(),
        )
        .await
        .expect("runs");
        assert!(report.ok);
        assert_eq!(report.exit_code, Some(0));
        assert_eq!(report.stdout, "out\n");
        assert_eq!(report.stderr, "err\n");
        assert!(!report.stdout_truncated && !report.stderr_truncated);
        assert_eq!(
            report.command,
            ["/bin/sh", "-c", "echo out; echo err >&2; exit 0"]
        );
    }

    #[tokio::test]
    async fn a_failing_command_is_not_ok() {
        let report = run(&sh("exit 3"), DEFAULT_TIMEOUT, &CancellationToken::new())
            .await
            .expect("runs");
        assert!(!report.ok);
        assert_eq!(report.exit_code, Some(3));
        assert_eq!(report.signal, None);
    }

    #[tokio::test]
    async fn oversized_output_is_truncated_with_a_marker() {
        let command = sh("yes | head -c 3000000");
        let report = run(&command, DEFAULT_TIMEOUT, &CancellationToken::new())
            .await
            .expect("runs");
        assert!(report.ok, "{report:?}");
        assert!(report.stdout_truncated);
        assert!(!report.stderr_truncated);
        assert!(report.stdout.starts_with("y\ny\n"));
        assert!(
            report.stdout.ends_with(
                "[somite: output truncated after 1048576 bytes; 1951424 more bytes were discarded]\n"
            ),
            "{}",
            &report.stdout[report.stdout.len() - 200..]
        );
        assert!(report.stdout.len() < crate::limits::STREAM_CAPTURE_LIMIT + 200);
    }

    #[tokio::test]
    async fn only_allowlisted_variables_reach_the_child() {
        let env = ChildEnv::inherit(&["PATH"]).with("SOMITE_PROBE", "visible");
        let command = Command::new("/usr/bin/env", std::env::temp_dir(), env);
        let report = run(&command, DEFAULT_TIMEOUT, &CancellationToken::new())
            .await
            .expect("runs");
        let mut names: Vec<&str> = report
            .stdout
            .lines()
            .filter_map(|line| line.split_once('=').map(|(name, _)| name))
            .collect();
        names.sort_unstable();
        assert_eq!(names, ["PATH", "SOMITE_PROBE"], "{}", report.stdout);
    }

    #[tokio::test]
    async fn a_timeout_terminates_the_process() {
        let report = run(
            &sh("sleep 30"),
            Duration::from_millis(200),
            &CancellationToken::new(),
        )
        .await
        .expect("runs");
        assert!(report.timed_out);
        assert!(!report.ok);
        assert_eq!(report.signal.as_deref(), Some("SIGTERM"));
        assert!(report.duration_ms < 5_000);
    }

    fn process_exists(pid: i32) -> bool {
        // A zombie has exited: only a live process counts.
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => !stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
            Err(_) => false,
        }
    }

    #[tokio::test]
    async fn cancellation_kills_the_whole_process_group() {
        // The leader starts a grandchild that ignores SIGTERM, reports its pid
        // and waits; both must be gone after cancellation.
        let dir = tempfile::tempdir().expect("tempdir");
        let pid_file = dir.path().join("grandchild.pid");
        let script = format!(
            "sh -c 'trap \"\" TERM; echo $$ > {pid}; while :; do sleep 0.1; done' & wait",
            pid = pid_file.display()
        );
        let command = sh(&script);
        let cancel = CancellationToken::new();
        let trigger = cancel.clone();
        let pid_path = pid_file.clone();
        let canceller = tokio::spawn(async move {
            for _ in 0..100 {
                if std::fs::read_to_string(&pid_path).is_ok_and(|s| s.ends_with('\n')) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            trigger.cancel();
        });
        let started = Instant::now();
        let report = run(&command, DEFAULT_TIMEOUT, &cancel).await.expect("runs");
        canceller.await.expect("canceller");
        assert!(report.cancelled, "{report:?}");
        assert!(!report.ok);
        let elapsed = started.elapsed();
        assert!(elapsed < Duration::from_secs(6), "{elapsed:?}");
        let grandchild: i32 = std::fs::read_to_string(&pid_file)
            .expect("pid file")
            .trim()
            .parse()
            .expect("pid");
        // The grandchild ignored SIGTERM, so only the SIGKILL after the grace
        // period can have ended it.
        for _ in 0..50 {
            if !process_exists(grandchild) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("grandchild {grandchild} survived cancellation");
    }

    #[tokio::test]
    async fn a_missing_program_is_a_spawn_error() {
        let command = Command::new(
            "/nonexistent/somite-tool",
            std::env::temp_dir(),
            ChildEnv::default(),
        );
        assert!(matches!(
            run(&command, DEFAULT_TIMEOUT, &CancellationToken::new()).await,
            Err(ProcessError::Spawn { .. })
        ));
    }
}
