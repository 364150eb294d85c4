//! Spawning a child as the leader of its own process group, and stopping
//! the group.
//!
//! Whether a group still has live members is asked of the kernel
//! (`killpg(pgid, 0)`, then `/proc`): there is no event for "the last member
//! exited", so [`Process::wait_for_group`] polls, waking early when the
//! leader exits.
//! The leader is reaped before the question is asked, because an unreaped
//! leader is a zombie that still counts as a member; and once the group is
//! seen empty it is never signalled again, because its id may then be
//! reused.

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout};
use tokio::time::Instant;

use crate::env::Environment;

/// How often a stopping group is checked for remaining members.
const GROUP_POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Where one of the child's standard streams goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipe {
    /// `/dev/null`: standard input reads end-of-file at once.
    Closed,
    /// A pipe the caller takes from the [`Process`].
    Piped,
}

impl Pipe {
    fn stdio(self) -> Stdio {
        match self {
            Pipe::Closed => Stdio::null(),
            Pipe::Piped => Stdio::piped(),
        }
    }
}

/// One program to start: no shell, a fixed argument array, a working
/// directory and the whole environment. Standard input is closed and both
/// output streams are piped unless the caller says otherwise.
#[derive(Debug, Clone)]
pub struct Command {
    program: PathBuf,
    args: Vec<OsString>,
    cwd: PathBuf,
    env: Environment,
    stdin: Pipe,
    stdout: Pipe,
    stderr: Pipe,
}

impl Command {
    pub fn new(program: impl Into<PathBuf>, cwd: impl Into<PathBuf>, env: Environment) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.into(),
            env,
            stdin: Pipe::Closed,
            stdout: Pipe::Piped,
            stderr: Pipe::Piped,
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
    pub fn stdin(mut self, pipe: Pipe) -> Self {
        self.stdin = pipe;
        self
    }

    #[must_use]
    pub fn stdout(mut self, pipe: Pipe) -> Self {
        self.stdout = pipe;
        self
    }

    #[must_use]
    pub fn stderr(mut self, pipe: Pipe) -> Self {
        self.stderr = pipe;
        self
    }

    pub fn program(&self) -> &Path {
        &self.program
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    pub fn env(&self) -> &Environment {
        &self.env
    }

    /// The argument vector as text, program first.
    pub fn argv(&self) -> Vec<String> {
        std::iter::once(self.program.as_os_str())
            .chain(self.args.iter().map(OsString::as_os_str))
            .map(|part| part.to_string_lossy().into_owned())
            .collect()
    }

    /// Starts the program as the leader of a new process group.
    pub fn spawn(&self) -> io::Result<Process> {
        let child = tokio::process::Command::new(&self.program)
            .args(&self.args)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(self.env.iter())
            .stdin(self.stdin.stdio())
            .stdout(self.stdout.stdio())
            .stderr(self.stderr.stdio())
            .process_group(0)
            .spawn()?;
        // A child just spawned and not yet waited for always has its id.
        let pid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .ok_or_else(|| io::Error::other("the child has no process id"))?;
        Ok(Process {
            child,
            pgid: Pid::from_raw(pid),
            exit: None,
            group_gone: false,
        })
    }
}

/// How a group was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The group was already empty; nothing was signalled.
    AlreadyGone,
    /// SIGTERM ended the group within the grace period.
    Terminated,
    /// The group outlived the grace period and was sent SIGKILL.
    Killed,
}

/// A running child and its process group. Dropped while any member of the
/// group lives, it SIGKILLs the group.
#[derive(Debug)]
pub struct Process {
    child: Child,
    pgid: Pid,
    exit: Option<ExitStatus>,
    /// The group was seen empty after the leader was reaped: its id may be
    /// reused, so it is never signalled again.
    group_gone: bool,
}

impl Process {
    /// The process group id (the leader's pid), for a caller that records
    /// it so a later Somite can [`kill_group`] a leftover.
    pub fn process_group(&self) -> i32 {
        self.pgid.as_raw()
    }

    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.child.stdin.take()
    }

    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.child.stdout.take()
    }

    pub fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.child.stderr.take()
    }

    /// The leader's exit status, once it has been reaped.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        self.exit
    }

    /// Waits for the leader to exit and reaps it. Cancel-safe; returns the
    /// same status again once it has.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        if let Some(status) = self.exit {
            return Ok(status);
        }
        let status = self.child.wait().await?;
        self.exit = Some(status);
        Ok(status)
    }

    /// Whether any member of the group lives. Reaps the leader if it has
    /// exited, so its zombie is not counted.
    pub fn group_alive(&mut self) -> bool {
        if self.group_gone {
            return false;
        }
        if self.exit.is_none() {
            match self.child.try_wait() {
                Ok(Some(status)) => self.exit = Some(status),
                Ok(None) => return true,
                // The leader cannot be observed; ask the kernel about the group.
                Err(_) => {}
            }
        }
        let alive = has_live_member(self.pgid);
        self.group_gone = !alive;
        alive
    }

    /// Waits up to `grace` for every member of the group to exit, without
    /// signalling it. Returns whether the group is gone.
    pub async fn wait_for_group(&mut self, grace: Duration) -> bool {
        let deadline = Instant::now() + grace;
        while self.group_alive() {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            let nap = GROUP_POLL_INTERVAL.min(deadline - now);
            if self.exit.is_none() {
                // Wakes as soon as the leader exits; a timeout is expected.
                let _ = tokio::time::timeout(nap, self.wait()).await;
            } else {
                tokio::time::sleep(nap).await;
            }
        }
        true
    }

    /// SIGTERM to the whole group, up to `grace` for it to empty, then
    /// SIGKILL and up to `grace` again for the kernel to finish. The leader
    /// is reaped; [`Process::wait`] then returns its status at once.
    pub async fn terminate(&mut self, grace: Duration) -> Stop {
        if !self.group_alive() {
            return Stop::AlreadyGone;
        }
        self.signal(Signal::SIGTERM);
        if self.wait_for_group(grace).await {
            return Stop::Terminated;
        }
        self.signal(Signal::SIGKILL);
        self.wait_for_group(grace).await;
        Stop::Killed
    }

    fn signal(&self, signal: Signal) {
        if !self.group_gone {
            signal_group(self.pgid, signal);
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // An unreaped leader keeps the group id reserved, so the group is
        // still ours; a reaped one is signalled only while members remain.
        let ours = !self.group_gone
            && (self.exit.is_none() || !matches!(killpg(self.pgid, None), Err(Errno::ESRCH)));
        if ours {
            signal_group(self.pgid, Signal::SIGKILL);
        }
        // The leader itself is reaped by Tokio's orphan reaper once the
        // `Child` is dropped.
    }
}

/// Whether a process that has not exited is in group `pgid`. The kernel
/// answers "is anyone in the group" (`killpg(pgid, 0)`, where only ESRCH
/// means empty), but a killed member that was re-parented to init counts
/// until init reaps it, which some inits do late; so a group that still
/// answers is looked up in `/proc`, where a zombie shows state `Z`.
fn has_live_member(pgid: Pid) -> bool {
    if matches!(killpg(pgid, None), Err(Errno::ESRCH)) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    let wanted = pgid.as_raw().to_string();
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .is_some_and(|name| name.bytes().all(|b| b.is_ascii_digit()))
        })
        .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
        .any(|stat| {
            // `pid (comm) state ppid pgrp ...`; comm may hold spaces and
            // parentheses, so the fields are counted after the last `)`.
            let mut fields = stat
                .rsplit_once(')')
                .map_or("", |(_, rest)| rest)
                .split_whitespace();
            let state = fields.next();
            let pgrp = fields.nth(1);
            pgrp == Some(wanted.as_str()) && state != Some("Z")
        })
}

/// SIGKILLs the process group `pgid` that an earlier Somite process
/// recorded. The caller must first make sure the id still names that group
/// (the run supervisor compares the leader's working directory), since a
/// group id is reused once its group is gone.
pub fn kill_group(pgid: i32) {
    if pgid > 1 {
        signal_group(Pid::from_raw(pgid), Signal::SIGKILL);
    }
}

fn signal_group(pgid: Pid, signal: Signal) {
    // ESRCH (the group is already gone) is the outcome wanted anyway.
    if let Err(error) = killpg(pgid, signal)
        && error != Errno::ESRCH
    {
        tracing::warn!(%pgid, %signal, %error, "cannot signal a process group");
    }
}
