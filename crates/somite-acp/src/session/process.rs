//! The agent's operating-system process: spawned without a shell, in its own
//! process group, in the disposable workspace, with the allowlisted
//! environment; stopped as a whole group.
//!
//! Stopping closes nothing itself (the connection closes the agent's
//! standard input); it waits for the agent to exit, then sends `SIGTERM` to
//! the whole group — which also reaches MCP servers the agent started —
//! and `SIGKILL` if the group outlives the grace period.

use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::env::AgentEnvironment;
use crate::events::{ExitSummary, StopEscalation};
use crate::launcher::LaunchCommand;
use crate::limits::STDERR_TAIL_BYTES;

/// How often a stopping group is checked for remaining members.
const GROUP_POLL_INTERVAL: Duration = Duration::from_millis(20);

/// How long the standard-error reader may take to finish after the group is gone.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// A running agent and the reader of its standard error.
#[derive(Debug)]
pub(crate) struct AgentProcess {
    child: Child,
    process_group: Option<i32>,
    exit: Option<ExitStatus>,
    stderr_tail: JoinHandle<Vec<u8>>,
}

/// What stopping the agent found.
#[derive(Debug)]
pub(crate) struct StoppedAgent {
    pub(crate) exit: Option<ExitSummary>,
    pub(crate) escalation: StopEscalation,
    pub(crate) stderr_tail: String,
}

impl AgentProcess {
    /// Starts `command` in `cwd` with exactly `environment` plus the
    /// command's registry entries, in a new process group.
    pub(crate) fn spawn(
        command: &LaunchCommand,
        environment: &AgentEnvironment,
        cwd: &Path,
    ) -> io::Result<(Self, ChildStdin, ChildStdout)> {
        let mut process = Command::new(command.program());
        process
            .args(command.args())
            .env_clear()
            .envs(environment.iter())
            .envs(command.env())
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        process.process_group(0);
        let mut child = process.spawn()?;
        let missing = |stream| io::Error::other(format!("the agent's {stream} is not piped"));
        let stdin = child.stdin.take().ok_or_else(|| missing("stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| missing("stdout"))?;
        let stderr = child.stderr.take().ok_or_else(|| missing("stderr"))?;
        let process_group = child.id().and_then(|id| i32::try_from(id).ok());
        Ok((
            Self {
                child,
                process_group,
                exit: None,
                stderr_tail: tokio::spawn(keep_tail(stderr)),
            },
            stdin,
            stdout,
        ))
    }

    /// Completes when the agent exits; pending forever once it has. Cancel-safe.
    pub(crate) async fn exited(&mut self) -> Option<ExitSummary> {
        if self.exit.is_some() {
            return std::future::pending().await;
        }
        let status = self.child.wait().await.ok()?;
        self.exit = Some(status);
        Some(status.into())
    }

    /// Stops the whole process group (see the module docs).
    pub(crate) async fn stop(
        mut self,
        exit_grace: Duration,
        terminate_grace: Duration,
    ) -> StoppedAgent {
        let mut escalation = StopEscalation::Exited;
        self.wait_for_group(exit_grace).await;
        if self.group_alive() {
            escalation = StopEscalation::Terminated;
            self.signal_group(Signal::Terminate);
            self.wait_for_group(terminate_grace).await;
        }
        if self.group_alive() {
            escalation = StopEscalation::Killed;
            self.signal_group(Signal::Kill);
            self.wait_for_group(terminate_grace).await;
        }
        let stderr_tail = match tokio::time::timeout(STDERR_DRAIN, &mut self.stderr_tail).await {
            Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
            Ok(Err(_)) | Err(_) => {
                self.stderr_tail.abort();
                String::new()
            }
        };
        StoppedAgent {
            exit: self.exit.map(ExitSummary::from),
            escalation,
            stderr_tail,
        }
    }

    /// Reaps the leader if it exited, and reports whether any member remains.
    fn group_alive(&mut self) -> bool {
        if self.exit.is_none() {
            match self.child.try_wait() {
                Ok(Some(status)) => self.exit = Some(status),
                Ok(None) => return true,
                Err(_) => {}
            }
        }
        self.stragglers_alive()
    }

    async fn wait_for_group(&mut self, grace: Duration) {
        let deadline = Instant::now() + grace;
        while self.group_alive() && Instant::now() < deadline {
            tokio::time::sleep(GROUP_POLL_INTERVAL).await;
        }
    }

    #[cfg(unix)]
    fn stragglers_alive(&self) -> bool {
        // The leader is reaped here; Linux does not reuse a process-group id
        // while any member of the group lives.
        self.process_group.is_some_and(|group| {
            nix::sys::signal::killpg(nix::unistd::Pid::from_raw(group), None).is_ok()
        })
    }

    #[cfg(not(unix))]
    fn stragglers_alive(&self) -> bool {
        false
    }

    #[cfg(unix)]
    fn signal_group(&mut self, signal: Signal) {
        let signal = match signal {
            Signal::Terminate => nix::sys::signal::Signal::SIGTERM,
            Signal::Kill => nix::sys::signal::Signal::SIGKILL,
        };
        if let Some(group) = self.process_group {
            // ESRCH only means the group is already gone.
            let _ = nix::sys::signal::killpg(nix::unistd::Pid::from_raw(group), signal);
        }
    }

    #[cfg(not(unix))]
    fn signal_group(&mut self, _signal: Signal) {
        let _ = self.child.start_kill();
    }
}

/// The signals a stopping group receives.
#[derive(Debug, Clone, Copy)]
enum Signal {
    Terminate,
    Kill,
}

/// Reads standard error to its end, keeping the last [`STDERR_TAIL_BYTES`].
async fn keep_tail(mut stderr: ChildStderr) -> Vec<u8> {
    let mut tail = Vec::new();
    let mut buffer = [0_u8; 4096];
    while let Ok(read) = stderr.read(&mut buffer).await {
        if read == 0 {
            break;
        }
        tail.extend_from_slice(&buffer[..read]);
        if tail.len() > STDERR_TAIL_BYTES {
            tail.drain(..tail.len() - STDERR_TAIL_BYTES);
        }
    }
    tail
}
