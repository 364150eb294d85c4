//! What a run looks like from outside: its phase, its nodes' states and its
//! bounded progress.
//!
//! These are the plain serde shapes every surface (the web drawer, the HTTP
//! routes, the MCP tools, the activity feed) shows, so a person and an agent
//! watching the same run see the same thing. They carry no transport types.

use serde::{Deserialize, Serialize};
use somite_project::evidence::{FixtureBinding, ParameterOverride, UnexercisedNode};
use somite_workflow::{Revision, SomiteError};
use std::collections::BTreeMap;

/// Whether a launch runs the graph on its configured inputs or validates it
/// on representative fixtures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunKind {
    Run,
    Validation,
}

/// The lifecycle of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunPhase {
    /// Binding fixtures and laying out the launch directory; nothing runs yet.
    Preparing,
    /// `pixi run --frozen` is running.
    Running,
    /// The process group has ended; logs, artifacts and (for a validation)
    /// the evidence receipt are being recorded.
    Finalizing,
    Completed,
    Failed,
    /// Cancellation was asked for; the process group is being stopped.
    Cancelling,
    Cancelled,
}

impl RunPhase {
    pub fn name(self) -> &'static str {
        match self {
            RunPhase::Preparing => "preparing",
            RunPhase::Running => "running",
            RunPhase::Finalizing => "finalizing",
            RunPhase::Completed => "completed",
            RunPhase::Failed => "failed",
            RunPhase::Cancelling => "cancelling",
            RunPhase::Cancelled => "cancelled",
        }
    }

    /// Whether nothing about the run will change any more.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            RunPhase::Completed | RunPhase::Failed | RunPhase::Cancelled
        )
    }
}

/// One graph node during a run, as read from Nextflow's trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum NodeState {
    Queued,
    Running,
    /// Nextflow reused a previous result.
    Cached,
    Done,
    Failed,
    /// The run ended before the node had anything to do.
    Skipped,
    Cancelled,
    /// A validation did not run the node: it needs the network, so
    /// fixtures stood in for its outputs (see `RunStatus::unexercised`).
    Unexercised,
}

impl NodeState {
    pub fn name(self) -> &'static str {
        match self {
            NodeState::Queued => "queued",
            NodeState::Running => "running",
            NodeState::Cached => "cached",
            NodeState::Done => "done",
            NodeState::Failed => "failed",
            NodeState::Skipped => "skipped",
            NodeState::Cancelled => "cancelled",
            NodeState::Unexercised => "unexercised",
        }
    }

    /// Whether the node finished with its outputs in place.
    pub fn succeeded(self) -> bool {
        matches!(self, NodeState::Done | NodeState::Cached)
    }

    /// Whether the node will not change any more.
    pub fn is_settled(self) -> bool {
        !matches!(self, NodeState::Queued | NodeState::Running)
    }
}

/// Bounded node-level progress: `completed` ≤ `total`, in `unit`s.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Progress {
    pub completed: u64,
    pub total: u64,
    /// Always `nodes`: the tool nodes of the graph.
    pub unit: String,
    /// One line a person can read, e.g. `2 of 3 nodes done; running trim`.
    pub message: String,
}

/// The status of one launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RunStatus {
    pub run_id: String,
    pub kind: RunKind,
    pub phase: RunPhase,
    /// Increases with every change, so a poller can tell snapshots apart;
    /// pass it back as `since_revision`.
    pub revision: u64,
    pub graph_revision: Revision,
    /// The digest of the compiled package the run executes.
    pub closure_digest: Revision,
    /// The Nextflow profile (`local` unless the launch chose another).
    pub profile: String,
    /// Every graph node's state, by node id.
    pub states: BTreeMap<String, NodeState>,
    pub progress: Progress,
    /// The exit status of `pixi run`, once it has exited (`null` when it
    /// was ended by a signal).
    pub exit_code: Option<i32>,
    /// Why the run failed or was lost; `null` otherwise.
    pub error: Option<SomiteError>,
    /// The digest of the validation's evidence receipt, once it is saved.
    pub evidence_receipt: Option<Revision>,
    /// The values the run used instead of the packaged `params.json`.
    pub overrides: Vec<ParameterOverride>,
    /// A validation's fixtures; empty for a run.
    pub fixtures: Vec<FixtureBinding>,
    /// The tool nodes a validation did not run, with why: fixtures stood in
    /// for their outputs. Absent when it ran every node.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unexercised: Vec<UnexercisedNode>,
    /// Where the run publishes its outputs, relative to the project folder.
    pub output_dir: String,
    /// The last lines of stderr, when the run failed.
    pub stderr_tail: Vec<String>,
    /// RFC 3339 UTC.
    pub started_at: String,
    pub ended_at: Option<String>,
}

/// What a start returns. A replay of an identical launch returns the
/// original `run_id` with `replayed: true`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RunStarted {
    pub run_id: String,
    pub kind: RunKind,
    pub graph_revision: Revision,
    pub closure_digest: Revision,
    pub profile: String,
    #[serde(default)]
    pub replayed: bool,
}
