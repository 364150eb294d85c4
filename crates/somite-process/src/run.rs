//! Running a command to completion, timeout or cancellation, with its
//! output captured.
//!
//! Whichever way the leader ends, the group is stopped before [`run`]
//! returns: on timeout or cancellation all of it, after a normal exit
//! whatever the leader left behind (a background job, a daemon it forked).
//! Nothing a command started outlives its result.

use std::io;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::capture::{Capture, Captured, Stream};
use crate::process::{Command, Pipe, Process};

/// The bounds of one [`run`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How long the command may run before its group is terminated.
    pub timeout: Duration,
    /// Between SIGTERM to the group and SIGKILL.
    pub grace: Duration,
    pub stdout: Capture,
    pub stderr: Capture,
}

/// Why [`run`] stopped the command on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interruption {
    TimedOut,
    Cancelled,
}

/// A command that has ended, with its group gone.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The leader's exit status.
    pub status: ExitStatus,
    pub stdout: Captured,
    pub stderr: Captured,
    /// Set when the timeout or the cancellation ended the command.
    pub interruption: Option<Interruption>,
    pub elapsed: Duration,
}

impl Finished {
    /// Whether the command exited with code 0 on its own.
    pub fn success(&self) -> bool {
        self.interruption.is_none() && self.status.success()
    }
}

/// The command could not be started or observed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot start {program}: {source}")]
    Spawn { program: PathBuf, source: io::Error },
    #[error("lost track of {program}: {source}")]
    Observe { program: PathBuf, source: io::Error },
}

/// Runs `command` (its stdout and stderr captured as `limits` says) until
/// it exits, its timeout passes or `cancel` fires, then stops its group.
/// Dropping the returned future mid-run SIGKILLs the group.
pub async fn run(
    command: &Command,
    limits: &Limits,
    cancel: &CancellationToken,
) -> Result<Finished, Error> {
    let started = Instant::now();
    let observe = |source| Error::Observe {
        program: command.program().to_owned(),
        source,
    };
    let mut process = command
        .clone()
        .stdout(pipe_for(limits.stdout))
        .stderr(pipe_for(limits.stderr))
        .spawn()
        .map_err(|source| Error::Spawn {
            program: command.program().to_owned(),
            source,
        })?;
    let mut stdout = Stream::new(process.take_stdout(), limits.stdout);
    let mut stderr = Stream::new(process.take_stderr(), limits.stderr);

    let deadline = started + limits.timeout;
    let interruption = tokio::select! {
        settled = settle(&mut process, &mut stdout, &mut stderr) => {
            settled.map_err(observe)?;
            None
        }
        () = tokio::time::sleep_until(deadline) => Some(Interruption::TimedOut),
        () = cancel.cancelled() => Some(Interruption::Cancelled),
    };
    process.terminate(limits.grace).await;
    if interruption.is_some() {
        // The group is gone, so its pipes are at their end, unless a process
        // that left the group holds one: read for one more grace period at
        // most rather than wait on it forever.
        let _ = tokio::time::timeout(limits.grace, async {
            tokio::join!(stdout.drain(), stderr.drain())
        })
        .await;
    }
    let status = process.wait().await.map_err(observe)?;
    Ok(Finished {
        status,
        stdout: stdout.finish(),
        stderr: stderr.finish(),
        interruption,
        elapsed: started.elapsed(),
    })
}

/// [`run`] for a synchronous caller, without cancellation. It runs on a
/// thread of its own with its own runtime, so it may be called from any
/// thread, inside an async runtime or not; the caller's thread blocks.
pub fn run_blocking(command: &Command, limits: &Limits) -> Result<Finished, Error> {
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|source| Error::Spawn {
                    program: command.program().to_owned(),
                    source,
                })?;
            runtime.block_on(run(command, limits, &CancellationToken::new()))
        });
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

fn pipe_for(capture: Capture) -> Pipe {
    match capture {
        Capture::Discard => Pipe::Closed,
        Capture::Head(_) | Capture::Tail(_) => Pipe::Piped,
    }
}

/// Waits for the leader to exit and both pipes to reach their end. Every
/// step is cancel-safe.
async fn settle(
    process: &mut Process,
    stdout: &mut Stream,
    stderr: &mut Stream,
) -> io::Result<ExitStatus> {
    let (status, out, err) = tokio::join!(process.wait(), stdout.drain(), stderr.drain());
    out?;
    err?;
    status
}
