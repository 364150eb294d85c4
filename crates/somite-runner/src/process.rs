//! The supervised process: `pixi run` in a process group of its own.
//!
//! A run is a tree of processes (Pixi, Nextflow's JVM, every task's shell
//! and tool), and stopping only the top one would leave the rest running
//! with nobody watching. So the command starts through `somite-process` as
//! the leader of a new process group (no shell, a fixed argument array, an
//! explicit environment), and every stop goes to the whole group: SIGTERM,
//! a grace period, then SIGKILL. When the leader exits on its own, whatever
//! it left behind in the group is stopped the same way, so a run never ends
//! with an orphan. Dropping a [`Supervised`] without finishing it SIGKILLs
//! the group. The group id is recorded in the run store, so a restarted
//! Somite can stop a group it lost ([`stop_lost_group`]).
//!
//! Both output streams are drained into the run's log files (bounded by
//! [`MAX_LOG_BYTES`]) and hashed as they are written; the end of stderr is
//! kept in memory for a failed run's status.

use crate::limits::{
    MAX_LOG_BYTES, MAX_TAIL_LINE_CHARS, STDERR_TAIL_BYTES, STDERR_TAIL_LINES, STREAM_DRAIN_GRACE,
    TERMINATION_GRACE,
};
use somite_process::{Command, Environment, Process, TailBuffer, env};
use somite_project::toolchain::PIXI_ENV;
use somite_workflow::Revision;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;

/// Variables the command inherits from Somite: executable lookup, home and
/// XDG folders, temporary folders, locale, certificate bundles, the proxy
/// a conda download may need, Pixi's home and caches, and Nextflow's home.
/// Everything else (tokens, the MCP capability, tool overrides such as
/// `PIXI_TLS_NO_VERIFY`) stays out.
pub const ENV_ALLOWLIST: &[&[&str]] = &[env::BASE, env::PROXY, PIXI_ENV, &["NXF_HOME"]];

/// One command to supervise.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub env: Environment,
    pub stdout_log: PathBuf,
    pub stderr_log: PathBuf,
}

/// The allowlisted part of Somite's own environment, plus `extra`.
pub fn child_environment(extra: &BTreeMap<OsString, OsString>) -> Environment {
    let inherited = ENV_ALLOWLIST
        .iter()
        .fold(Environment::default(), |env, names| env.and_inherit(names));
    extra
        .iter()
        .fold(inherited, |env, (name, value)| env.with(name, value))
}

/// What was captured of one output stream.
#[derive(Debug, Clone)]
pub struct LogCapture {
    pub path: PathBuf,
    /// Bytes written to the log file (at most [`MAX_LOG_BYTES`]).
    pub written: u64,
    /// BLAKE3 of the bytes written.
    pub digest: Revision,
    /// The last [`STDERR_TAIL_BYTES`] of the stream.
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
    process: Process,
    stdout: Drain,
    stderr: Drain,
}

/// Starts `launch` as the leader of a new process group.
pub fn spawn(launch: &Launch) -> io::Result<Supervised> {
    let stdout_file = File::create(&launch.stdout_log)?;
    let stderr_file = File::create(&launch.stderr_log)?;
    let mut process = Command::new(&launch.program, &launch.cwd, launch.env.clone())
        .args(&launch.args)
        .spawn()?;
    let stdout = Drain::start(process.take_stdout(), stdout_file, &launch.stdout_log);
    let stderr = Drain::start(process.take_stderr(), stderr_file, &launch.stderr_log);
    Ok(Supervised {
        process,
        stdout,
        stderr,
    })
}

impl Supervised {
    /// The process group id (the leader's pid).
    pub fn process_group(&self) -> Option<i32> {
        Some(self.process.process_group())
    }

    /// Waits for the leader to exit. Cancel-safe.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        self.process.wait().await
    }

    /// SIGTERM to the group, the grace period, then SIGKILL; returns the
    /// leader's exit status.
    pub async fn terminate(&mut self) -> io::Result<ExitStatus> {
        self.process.terminate(TERMINATION_GRACE).await;
        self.process.wait().await
    }

    /// After the leader has exited: stops whatever it left in the group
    /// (SIGTERM, grace, SIGKILL), then collects both logs.
    pub async fn finish(mut self) -> (LogCapture, LogCapture) {
        self.process.terminate(TERMINATION_GRACE).await;
        let stdout = self.stdout.finish().await;
        let stderr = self.stderr.finish().await;
        (stdout, stderr)
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
    somite_process::kill_group(pgid);
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
    tail: TailBuffer,
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
        self.tail.push(chunk);
    }

    fn capture(&mut self) -> LogCapture {
        if let Some(file) = self.file.take() {
            let _ = file.sync_all();
        }
        LogCapture {
            path: self.path.clone(),
            written: self.written,
            digest: format!("blake3:{}", self.hasher.finalize().to_hex()),
            tail: self.tail.as_bytes().to_vec(),
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
            tail: TailBuffer::new(STDERR_TAIL_BYTES),
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
            tail: TailBuffer::new(STDERR_TAIL_BYTES),
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
        assert_eq!(env.get("SOMITE_PROBE").unwrap(), "1");
        assert!(env.names().all(|k| {
            k == "SOMITE_PROBE"
                || ENV_ALLOWLIST
                    .iter()
                    .any(|names| names.contains(&k.to_str().unwrap()))
        }));
    }
}
