//! Somite's run supervisor: the one path from a ready graph to a running
//! Nextflow pipeline, for the web controls and the agent's MCP tools alike.
//!
//! A run compiles the current graph with the production compiler and
//! executes the package exactly as an exported package is run
//! (`pixi run --frozen --manifest-path <package>/pixi.toml run <profile>`,
//! a fixed argument array, no shell), in a process group of its own so a
//! cancellation stops every process it started. Progress comes from
//! Nextflow's trace file mapped through `node-map.json`. A validation is
//! the same run on small content-addressed fixtures and ends with a
//! write-once evidence receipt for the exact graph revision; for a pinned
//! source pipeline it is the frozen package's Nextflow `-preview`.
//!
//! [`Supervisor`] is the entry point: open it once per project inside the
//! Tokio runtime, then [`start_run`](Supervisor::start_run),
//! [`start_validation`](Supervisor::start_validation),
//! [`status`](Supervisor::status) (long-poll), [`cancel`](Supervisor::cancel),
//! [`evidence`](Supervisor::evidence) and [`subscribe`](Supervisor::subscribe)
//! for the activity feed. Every failure is a [`RunnerError`] that converts
//! into the wire envelope [`SomiteError`](somite_workflow::SomiteError).
//!
//! [`proof`] is the other way a contract meets its tool: one node's compiled
//! task script run with the real binary on generated fixtures, without
//! Pixi or Nextflow (`somite operator prove`).

pub mod error;
pub mod fixtures;
pub mod launch;
pub mod limits;
pub mod process;
pub mod proof;
pub mod receipt;
pub mod sandbox;
pub mod status;
pub mod store;
pub mod supervisor;
pub mod timestamp;
pub mod trace;
pub mod workshop;

pub use error::RunnerError;
pub use somite_project::evidence::{EvidenceLookup, Receipt, ReceiptResult};
pub use status::{NodeState, Progress, RunKind, RunPhase, RunStarted, RunStatus};
pub use supervisor::{RunRequest, RunnerToolchain, StatusPoll, Supervisor, ValidationRequest};
