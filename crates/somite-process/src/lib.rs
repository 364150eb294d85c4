//! Runs a child process safely — the one way Somite starts a program.
//!
//! Somite starts other programs for four callers: the Pixi and Nextflow MCP
//! servers' CLI tools, the run supervisor's `pixi run --frozen`, the ACP
//! client's agent, and the compiler's `pixi lock`. Each must not be able to
//! hang Somite, flood its memory, inherit its secrets or outlive the reason
//! it was started, so every one of them goes through this crate:
//!
//! - **No shell.** A [`Command`] is a program path and a fixed argument
//!   array; nothing is ever parsed by `sh`.
//! - **An explicit environment.** The child's environment is cleared and
//!   rebuilt from an [`Environment`]: the caller's allowlisted names
//!   ([`env::BASE`], [`env::PROXY`], plus its tool's own) and named values.
//! - **Its own process group.** The child leads a new group, so a stop
//!   reaches everything it started (a Nextflow JVM, a task's shell, an MCP
//!   server an agent launched), not only the leader.
//! - **Termination of the whole group.** [`Process::terminate`] sends
//!   SIGTERM to the group, waits a grace period for it to empty, then sends
//!   SIGKILL. A [`Process`] dropped while its group lives SIGKILLs the group;
//!   the leader is always reaped (by a wait, or by Tokio's orphan reaper when
//!   dropped), so neither an orphan nor a zombie stays behind.
//! - **Bounded output.** [`run`] captures each stream under a [`Capture`]
//!   policy the caller names per use: the first N bytes (a report a person
//!   reads from the top, the rest counted), the last N bytes (an error
//!   message, which comes at the end), or nothing.
//! - **Cancellation.** [`run`] stops at its timeout or when its
//!   `CancellationToken` fires; [`run_blocking`] serves synchronous callers.
//!
//! What a caller needs beyond that is an option here, not a second
//! spawner: the run supervisor records [`Process::process_group`] so a
//! restarted Somite can [`kill_group`] a leftover; the ACP client pipes
//! standard input and output ([`Pipe::Piped`]) and streams them itself.

pub mod env;

mod capture;
mod find;
mod process;
mod run;

pub use capture::{Capture, Captured, TailBuffer, drain};
pub use env::Environment;
pub use find::find_program;
pub use process::{Command, Pipe, Process, Stop, kill_group};
pub use run::{Error, Finished, Interruption, Limits, run, run_blocking};
