//! The agent's operating-system process: spawned through `somite-process`
//! without a shell, in its own process group, in the disposable workspace,
//! with the allowlisted environment; its standard input and output piped
//! for the connection to stream; stopped as a whole group.
//!
//! Stopping closes nothing itself (the connection closes the agent's
//! standard input); it waits for the agent to exit, then sends `SIGTERM` to
//! the whole group — which also reaches MCP servers the agent started —
//! and `SIGKILL` if the group outlives the grace period. Dropped without
//! stopping, the process SIGKILLs its group.

use std::io;
use std::path::Path;
use std::time::Duration;

use somite_process::{Capture, Captured, Command, Environment, Pipe, Process, Stop};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::task::JoinHandle;

use crate::env::AgentEnvironment;
use crate::events::{ExitSummary, StopEscalation};
use crate::launcher::LaunchCommand;
use crate::limits::STDERR_TAIL_BYTES;

/// How long the standard-error reader may take to finish after the group is gone.
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// A running agent and the reader of its standard error.
#[derive(Debug)]
pub(crate) struct AgentProcess {
    process: Process,
    stderr_tail: JoinHandle<Captured>,
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
        // The registry's entries come last, so they apply over the agent's.
        let env: Environment = environment
            .iter()
            .chain(
                command
                    .env()
                    .iter()
                    .map(|(name, value)| (name.as_str(), value.as_str())),
            )
            .collect();
        let mut process = Command::new(command.program(), cwd, env)
            .args(command.args())
            .stdin(Pipe::Piped)
            .spawn()?;
        let missing = |stream| io::Error::other(format!("the agent's {stream} is not piped"));
        let stdin = process.take_stdin().ok_or_else(|| missing("stdin"))?;
        let stdout = process.take_stdout().ok_or_else(|| missing("stdout"))?;
        let stderr = process.take_stderr().ok_or_else(|| missing("stderr"))?;
        Ok((
            Self {
                process,
                stderr_tail: tokio::spawn(somite_process::drain(
                    stderr,
                    Capture::Tail(STDERR_TAIL_BYTES),
                )),
            },
            stdin,
            stdout,
        ))
    }

    /// Completes when the agent exits; pending forever once it has. Cancel-safe.
    pub(crate) async fn exited(&mut self) -> Option<ExitSummary> {
        if self.process.exit_status().is_some() {
            return std::future::pending().await;
        }
        let status = self.process.wait().await.ok()?;
        Some(status.into())
    }

    /// Stops the whole process group (see the module docs).
    pub(crate) async fn stop(
        mut self,
        exit_grace: Duration,
        terminate_grace: Duration,
    ) -> StoppedAgent {
        let escalation = if self.process.wait_for_group(exit_grace).await {
            StopEscalation::Exited
        } else {
            match self.process.terminate(terminate_grace).await {
                Stop::AlreadyGone => StopEscalation::Exited,
                Stop::Terminated => StopEscalation::Terminated,
                Stop::Killed => StopEscalation::Killed,
            }
        };
        let stderr_tail = match tokio::time::timeout(STDERR_DRAIN, &mut self.stderr_tail).await {
            Ok(Ok(captured)) => String::from_utf8_lossy(captured.bytes()).into_owned(),
            Ok(Err(_)) | Err(_) => {
                self.stderr_tail.abort();
                String::new()
            }
        };
        StoppedAgent {
            exit: self.process.exit_status().map(ExitSummary::from),
            escalation,
            stderr_tail,
        }
    }
}
