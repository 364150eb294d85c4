//! The bounded process runner behind every CLI tool.
//!
//! An agent-triggered process must not be able to hang a server, flood its
//! memory, inherit secrets, or outlive a cancelled request. So a
//! [`CommandSpec`] is a program path plus a fixed argument array (there is no
//! shell anywhere on this path), a working directory, and an explicit
//! environment built from an allowlist ([`ChildEnv`]). [`run`] starts the
//! program as the leader of a new process group and then:
//!
//! - keeps at most [`STREAM_CAPTURE_LIMIT`](crate::limits::STREAM_CAPTURE_LIMIT)
//!   bytes of each of stdout and stderr, drains and counts the rest, and marks
//!   the result truncated (with a marker line in the text);
//! - on timeout or cancellation sends SIGTERM to the whole group, waits
//!   [`TERMINATION_GRACE`](crate::limits::TERMINATION_GRACE), then SIGKILLs it;
//! - if its own future is dropped mid-run, SIGKILLs the group.
//!
//! The result is the structured [`ProcessReport`] every CLI tool returns.

use crate::limits::TERMINATION_GRACE;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use schemars::JsonSchema;
use serde::Serialize;
use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

/// Variables a child may inherit from the server: executable lookup, home
/// and XDG directories, temporary directories, locale, and certificate
/// bundles. Proxies, credentials, tokens and tool configuration overrides
/// (e.g. `PIXI_TLS_NO_VERIFY`) are deliberately absent.
pub const BASE_ENV_ALLOWLIST: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// The complete environment of a child process.
#[derive(Debug, Clone, Default)]
pub struct ChildEnv {
    vars: BTreeMap<OsString, OsString>,
}

impl ChildEnv {
    /// The server's own values of the allowlisted names (absent ones are skipped).
    pub fn inherit(allowlist: &[&str]) -> Self {
        let vars = allowlist
            .iter()
            .filter_map(|name| std::env::var_os(name).map(|value| (OsString::from(name), value)))
            .collect();
        Self { vars }
    }

    /// Sets one variable, replacing an inherited value.
    #[must_use]
    pub fn with(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.vars.insert(name.into(), value.into());
        self
    }

    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(OsStr::new(name)).map(OsString::as_os_str)
    }

    pub fn names(&self) -> impl Iterator<Item = &OsStr> {
        self.vars.keys().map(OsString::as_os_str)
    }
}

/// One invocation: no shell, a fixed argument array.
#[derive(Debug, Clone)]
pub struct CommandSpec {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: ChildEnv,
    pub timeout: Duration,
    pub capture_limit: usize,
}

impl CommandSpec {
    /// A command with the default timeout and capture limit.
    pub fn new(program: impl Into<PathBuf>, cwd: impl Into<PathBuf>, env: ChildEnv) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.into(),
            env,
            timeout: crate::limits::DEFAULT_TIMEOUT,
            capture_limit: crate::limits::STREAM_CAPTURE_LIMIT,
        }
    }

    #[must_use]
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The argument vector as text, program first.
    pub fn argv(&self) -> Vec<String> {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|part| part.to_string_lossy().into_owned())
            .collect()
    }
}

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

/// The runner could not start or observe the process.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("cannot start {program}: {source}")]
    Spawn { program: PathBuf, source: io::Error },
    #[error("lost track of {program}: {source}")]
    Observe { program: PathBuf, source: io::Error },
}

/// Why the runner stopped waiting on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interruption {
    TimedOut,
    Cancelled,
}

/// Runs `spec` to completion, timeout or cancellation.
pub async fn run(
    spec: &CommandSpec,
    cancel: &CancellationToken,
) -> Result<ProcessReport, ProcessError> {
    let started = Instant::now();
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.vars.iter())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command.spawn().map_err(|source| ProcessError::Spawn {
        program: spec.program.clone(),
        source,
    })?;
    let group = child.id().map(|pid| ProcessGroup::new(pid as i32));
    let observe = |source| ProcessError::Observe {
        program: spec.program.clone(),
        source,
    };
    let mut stdout = Capture::new(child.stdout.take(), spec.capture_limit);
    let mut stderr = Capture::new(child.stderr.take(), spec.capture_limit);

    let deadline = tokio::time::Instant::now() + spec.timeout;
    let interruption = tokio::select! {
        settled = settle(&mut child, &mut stdout, &mut stderr) => {
            settled.map_err(observe)?;
            None
        }
        () = tokio::time::sleep_until(deadline) => Some(Interruption::TimedOut),
        () = cancel.cancelled() => Some(Interruption::Cancelled),
    };
    let status = match (interruption, &group) {
        (None, _) => child.wait().await.map_err(observe)?,
        (Some(_), Some(group)) => group
            .terminate(&mut child, &mut stdout, &mut stderr)
            .await
            .map_err(observe)?,
        (Some(_), None) => child.wait().await.map_err(observe)?,
    };
    if let Some(group) = group {
        group.disarm();
    }
    let exit_code = status.code();
    Ok(ProcessReport {
        command: spec.argv(),
        cwd: spec.cwd.display().to_string(),
        exit_code,
        signal: status.signal().map(signal_name),
        stdout_truncated: stdout.truncated(),
        stderr_truncated: stderr.truncated(),
        stdout: stdout.into_text(),
        stderr: stderr.into_text(),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        ok: interruption.is_none() && exit_code == Some(0),
        timed_out: interruption == Some(Interruption::TimedOut),
        cancelled: interruption == Some(Interruption::Cancelled),
    })
}

/// Waits for the leader to exit and both pipes to close. Every step is
/// cancel-safe, so a caller may abandon it and call it again.
async fn settle(
    child: &mut Child,
    stdout: &mut Capture,
    stderr: &mut Capture,
) -> io::Result<ExitStatus> {
    let (status, out, err) = tokio::join!(child.wait(), stdout.drain(), stderr.drain());
    out?;
    err?;
    status
}

fn signal_name(number: i32) -> String {
    Signal::try_from(number)
        .map(|signal| signal.as_str().to_owned())
        .unwrap_or_else(|_| format!("signal {number}"))
}

/// The child's process group; SIGKILLed on drop unless disarmed, so a
/// dropped `run` future cannot leave the group running.
struct ProcessGroup {
    pgid: Pid,
    armed: AtomicBool,
}

impl ProcessGroup {
    fn new(pgid: i32) -> Self {
        Self {
            pgid: Pid::from_raw(pgid),
            armed: AtomicBool::new(true),
        }
    }

    fn signal(&self, signal: Signal) {
        // ESRCH (the group is already gone) is the outcome we want anyway.
        if let Err(error) = killpg(self.pgid, signal)
            && error != nix::errno::Errno::ESRCH
        {
            tracing::warn!(pgid = %self.pgid, %signal, %error, "cannot signal a process group");
        }
    }

    /// SIGTERM, a grace period for the group to exit and close its pipes,
    /// then SIGKILL.
    async fn terminate(
        &self,
        child: &mut Child,
        stdout: &mut Capture,
        stderr: &mut Capture,
    ) -> io::Result<ExitStatus> {
        self.signal(Signal::SIGTERM);
        if let Ok(settled) =
            tokio::time::timeout(TERMINATION_GRACE, settle(child, stdout, stderr)).await
        {
            return settled;
        }
        self.signal(Signal::SIGKILL);
        // A process that left the group may still hold a pipe: stop reading
        // after another grace period rather than wait on it forever.
        match tokio::time::timeout(TERMINATION_GRACE, settle(child, stdout, stderr)).await {
            Ok(settled) => settled,
            Err(_) => child.wait().await,
        }
    }

    fn disarm(self) {
        self.armed.store(false, Ordering::Relaxed);
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if self.armed.load(Ordering::Relaxed) {
            self.signal(Signal::SIGKILL);
        }
    }
}

/// One output stream: the first `limit` bytes kept, the rest counted.
struct Capture {
    reader: Option<Box<dyn AsyncRead + Unpin + Send>>,
    kept: Vec<u8>,
    total: u64,
    limit: usize,
}

impl Capture {
    fn new(reader: Option<impl AsyncRead + Unpin + Send + 'static>, limit: usize) -> Self {
        Self {
            reader: reader.map(|r| Box::new(r) as Box<dyn AsyncRead + Unpin + Send>),
            kept: Vec::new(),
            total: 0,
            limit,
        }
    }

    /// Reads to end of stream. Cancel-safe: all state lives in `self`.
    async fn drain(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 16 * 1024];
        while let Some(reader) = self.reader.as_mut() {
            let read = reader.read(&mut chunk).await?;
            if read == 0 {
                self.reader = None;
                break;
            }
            self.total += read as u64;
            let room = self.limit.saturating_sub(self.kept.len());
            self.kept.extend_from_slice(&chunk[..read.min(room)]);
        }
        Ok(())
    }

    fn truncated(&self) -> bool {
        self.total > self.kept.len() as u64
    }

    fn into_text(self) -> String {
        let truncated = self.truncated();
        let omitted = self.total - self.kept.len() as u64;
        let mut text = String::from_utf8_lossy(&self.kept).into_owned();
        if truncated {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&format!(
                "[somite: output truncated after {} bytes; {omitted} more bytes were discarded]\n",
                self.kept.len()
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> CommandSpec {
        CommandSpec::new(
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
        let report = run(&sh("exit 3"), &CancellationToken::new())
            .await
            .expect("runs");
        assert!(!report.ok);
        assert_eq!(report.exit_code, Some(3));
        assert_eq!(report.signal, None);
    }

    #[tokio::test]
    async fn oversized_output_is_truncated_with_a_marker() {
        let spec = sh("yes | head -c 3000000");
        let report = run(&spec, &CancellationToken::new()).await.expect("runs");
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
        let spec = CommandSpec::new("/usr/bin/env", std::env::temp_dir(), env);
        let report = run(&spec, &CancellationToken::new()).await.expect("runs");
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
        let spec = sh("sleep 30").timeout(Duration::from_millis(200));
        let report = run(&spec, &CancellationToken::new()).await.expect("runs");
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
        let spec = sh(&script);
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
        let report = run(&spec, &cancel).await.expect("runs");
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
        let spec = CommandSpec::new(
            "/nonexistent/somite-tool",
            std::env::temp_dir(),
            ChildEnv::default(),
        );
        assert!(matches!(
            run(&spec, &CancellationToken::new()).await,
            Err(ProcessError::Spawn { .. })
        ));
    }
}
