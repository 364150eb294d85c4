//! The supervised process: `pixi run` in a process group of its own.
//!
//! A run is a tree of processes (Pixi, Nextflow's JVM, every task's shell
//! and tool), and stopping only the top one would leave the rest running
//! with nobody watching. So the command starts as the leader of a new
//! process group (no shell, a fixed argument array, an explicit
//! environment), and every stop goes to the whole group: SIGTERM, a grace
//! period, then SIGKILL. When the leader exits on its own, whatever it left
//! behind in the group is stopped the same way, so a run never ends with an
//! orphan. Dropping a [`Supervised`] without finishing it SIGKILLs the group.
//!
//! Both output streams are drained into the run's log files (bounded by
//! [`MAX_LOG_BYTES`]) and hashed as they are written; the end of stderr is
//! kept in memory for a failed run's status.

use crate::limits::{
    MAX_LOG_BYTES, MAX_TAIL_LINE_CHARS, STDERR_TAIL_BYTES, STDERR_TAIL_LINES, STREAM_DRAIN_GRACE,
    TERMINATION_GRACE,
};
use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use somite_workflow::Revision;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

/// Variables the command inherits from Somite: executable lookup, home and
/// XDG folders, temporary folders, locale, certificate bundles, the proxy
/// a conda download may need, and the caches Pixi and Nextflow use.
/// Everything else (tokens, the MCP capability, tool overrides such as
/// `PIXI_TLS_NO_VERIFY`) stays out.
pub const ENV_ALLOWLIST: &[&str] = &[
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
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "PIXI_CACHE_DIR",
    "RATTLER_CACHE_DIR",
    "NXF_HOME",
];

/// One command to supervise.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: BTreeMap<OsString, OsString>,
    pub stdout_log: PathBuf,
    pub stderr_log: PathBuf,
}

/// The allowlisted part of Somite's own environment, plus `extra`.
pub fn child_environment(extra: &BTreeMap<OsString, OsString>) -> BTreeMap<OsString, OsString> {
    let mut env: BTreeMap<OsString, OsString> = ENV_ALLOWLIST
        .iter()
        .filter_map(|name| std::env::var_os(name).map(|value| (OsString::from(name), value)))
        .collect();
    env.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    env
}

/// What was captured of one output stream.
#[derive(Debug, Clone)]
pub struct LogCapture {
    pub path: PathBuf,
    /// Bytes written to the log file (at most [`MAX_LOG_BYTES`]).
    pub written: u64,
    /// BLAKE3 of the bytes written.
    pub digest: Revision,
    /// The last bytes of the stream.
    tail: Vec<u8>,
}

impl LogCapture {
    /// The last [`STDERR_TAIL_LINES`] non-empty lines, each bounded.
    pub fn tail_lines(&self) -> Vec<String> {
        let text = String::from_utf8_lossy(&self.tail);
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.chars().take(MAX_TAIL_LINE_CHARS).collect())
            .collect();
        let skip = lines.len().saturating_sub(STDERR_TAIL_LINES);
        lines.drain(..skip);
        lines
    }
}

/// A running command and its process group.
pub struct Supervised {
    child: Child,
    group: Option<ProcessGroup>,
    stdout: Drain,
    stderr: Drain,
}

/// Starts `launch` as the leader of a new process group.
pub fn spawn(launch: &Launch) -> io::Result<Supervised> {
    let mut command = Command::new(&launch.program);
    command
        .args(&launch.args)
        .current_dir(&launch.cwd)
        .env_clear()
        .envs(launch.env.iter())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let stdout_file = File::create(&launch.stdout_log)?;
    let stderr_file = File::create(&launch.stderr_log)?;
    let mut child = command.spawn()?;
    let group = child.id().map(|pid| ProcessGroup {
        pgid: Pid::from_raw(pid as i32),
        armed: true,
    });
    let stdout = Drain::start(child.stdout.take(), stdout_file, &launch.stdout_log);
    let stderr = Drain::start(child.stderr.take(), stderr_file, &launch.stderr_log);
    Ok(Supervised {
        child,
        group,
        stdout,
        stderr,
    })
}

impl Supervised {
    /// The process group id (the leader's pid).
    pub fn process_group(&self) -> Option<i32> {
        self.group.as_ref().map(|g| g.pgid.as_raw())
    }

    /// Waits for the leader to exit. Cancel-safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// SIGTERM to the group, the grace period, then SIGKILL; returns the
    /// leader's exit status.
    pub async fn terminate(&mut self) -> io::Result<ExitStatus> {
        if let Some(group) = &self.group {
            group.signal(Signal::SIGTERM);
            if let Ok(status) = tokio::time::timeout(TERMINATION_GRACE, self.child.wait()).await {
                return status;
            }
            group.signal(Signal::SIGKILL);
        }
        self.child.wait().await
    }

    /// After the leader has exited: stops whatever it left in the group
    /// (SIGTERM, grace, SIGKILL), then collects both logs.
    pub async fn finish(mut self) -> (LogCapture, LogCapture) {
        if let Some(group) = self.group.as_mut() {
            group.stop_stragglers().await;
            group.armed = false;
        }
        let stdout = self.stdout.finish().await;
        let stderr = self.stderr.finish().await;
        (stdout, stderr)
    }
}

/// A process group, SIGKILLed on drop while armed.
struct ProcessGroup {
    pgid: Pid,
    armed: bool,
}

impl ProcessGroup {
    fn signal(&self, signal: Signal) {
        signal_group(self.pgid, signal);
    }

    fn is_empty(&self) -> bool {
        matches!(killpg(self.pgid, None), Err(Errno::ESRCH))
    }

    async fn stop_stragglers(&self) {
        if self.is_empty() {
            return;
        }
        self.signal(Signal::SIGTERM);
        let deadline = tokio::time::Instant::now() + TERMINATION_GRACE;
        while tokio::time::Instant::now() < deadline {
            if self.is_empty() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        self.signal(Signal::SIGKILL);
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if self.armed {
            self.signal(Signal::SIGKILL);
        }
    }
}

fn signal_group(pgid: Pid, signal: Signal) {
    // ESRCH (the group is already gone) is the outcome we want anyway.
    if let Err(error) = killpg(pgid, signal)
        && error != Errno::ESRCH
    {
        tracing::warn!(pgid = %pgid, %signal, %error, "cannot signal a run's process group");
    }
}

/// Stops the process group of a run that a previous Somite process was
/// supervising, if it is still alive: only when its leader's working
/// directory is that run's launch directory, so a recycled pid is never
/// signalled. Returns whether a group was stopped.
pub fn stop_lost_group(pgid: i32, launch_dir: &Path) -> bool {
    if pgid <= 1 {
        return false;
    }
    let Ok(cwd) = std::fs::read_link(format!("/proc/{pgid}/cwd")) else {
        return false;
    };
    let expected = launch_dir
        .canonicalize()
        .unwrap_or_else(|_| launch_dir.to_owned());
    if cwd != expected {
        return false;
    }
    signal_group(Pid::from_raw(pgid), Signal::SIGKILL);
    true
}

/// The state one stream's drain shares with its collector, so a drain cut
/// short (a process outside the group still holds the pipe) still reports
/// what it wrote.
struct DrainState {
    path: PathBuf,
    file: Option<File>,
    written: u64,
    hasher: blake3::Hasher,
    tail: Vec<u8>,
}

impl DrainState {
    fn take(&mut self, chunk: &[u8]) {
        let room = MAX_LOG_BYTES.saturating_sub(self.written) as usize;
        let kept = &chunk[..chunk.len().min(room)];
        if !kept.is_empty()
            && let Some(file) = self.file.as_mut()
        {
            match file.write_all(kept) {
                Ok(()) => {
                    self.written += kept.len() as u64;
                    self.hasher.update(kept);
                }
                Err(error) => {
                    tracing::warn!(path = %self.path.display(), %error, "cannot write a run log");
                    self.file = None;
                }
            }
        }
        self.tail.extend_from_slice(chunk);
        if self.tail.len() > 2 * STDERR_TAIL_BYTES {
            let excess = self.tail.len() - STDERR_TAIL_BYTES;
            self.tail.drain(..excess);
        }
    }

    fn capture(&mut self) -> LogCapture {
        if let Some(file) = self.file.take() {
            let _ = file.sync_all();
        }
        let excess = self.tail.len().saturating_sub(STDERR_TAIL_BYTES);
        LogCapture {
            path: self.path.clone(),
            written: self.written,
            digest: format!("blake3:{}", self.hasher.finalize().to_hex()),
            tail: self.tail[excess..].to_vec(),
        }
    }
}

struct Drain {
    state: Arc<Mutex<DrainState>>,
    task: JoinHandle<()>,
}

impl Drain {
    fn start(
        reader: Option<impl AsyncRead + Unpin + Send + 'static>,
        file: File,
        path: &Path,
    ) -> Drain {
        let state = Arc::new(Mutex::new(DrainState {
            path: path.to_owned(),
            file: Some(file),
            written: 0,
            hasher: blake3::Hasher::new(),
            tail: Vec::new(),
        }));
        let shared = Arc::clone(&state);
        let task = tokio::spawn(async move {
            let Some(mut reader) = reader else { return };
            let mut chunk = vec![0u8; 16 * 1024];
            loop {
                match reader.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(read) => lock(&shared).take(&chunk[..read]),
                }
            }
        });
        Drain { state, task }
    }

    async fn finish(self) -> LogCapture {
        let Drain { state, mut task } = self;
        if tokio::time::timeout(STREAM_DRAIN_GRACE, &mut task)
            .await
            .is_err()
        {
            task.abort();
        }
        lock(&state).capture()
    }
}

fn lock(state: &Mutex<DrainState>) -> std::sync::MutexGuard<'_, DrainState> {
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_lines_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stderr.log");
        let mut state = DrainState {
            path: path.clone(),
            file: Some(File::create(&path).unwrap()),
            written: 0,
            hasher: blake3::Hasher::new(),
            tail: Vec::new(),
        };
        for i in 0..100 {
            state.take(format!("line {i}\n\n").as_bytes());
        }
        let capture = state.capture();
        let lines = capture.tail_lines();
        assert_eq!(lines.len(), STDERR_TAIL_LINES);
        assert_eq!(lines.last().unwrap(), "line 99");
        assert_eq!(capture.written, 10 * 8 + 90 * 9);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            capture.digest,
            somite_workflow::canonical::digest_bytes(&bytes)
        );
    }

    #[test]
    fn only_allowlisted_and_extra_variables_reach_the_child() {
        let extra = BTreeMap::from([(OsString::from("SOMITE_PROBE"), OsString::from("1"))]);
        let env = child_environment(&extra);
        assert_eq!(env.get(&OsString::from("SOMITE_PROBE")).unwrap(), "1");
        assert!(
            env.keys()
                .all(|k| { k == "SOMITE_PROBE" || ENV_ALLOWLIST.contains(&k.to_str().unwrap()) })
        );
    }
}
