//! The views of a project that Somite's surfaces serve: the HTTP routes, the
//! CLI's `--json` and the MCP adapter's tool results are these types, so each
//! shape (and, with the `schemars` feature, its JSON Schema) is declared once.
//!
//! They live in this crate, not in `somite-api`, because they are made of the
//! project's own outcomes ([`TransactionOutcome`], [`CompileSummary`]), which
//! `somite-api`, sitting below this crate, cannot name. The narrower views
//! are the wider ones' flattened parts, so a member is declared in one place
//! and every view lists its members in the same order.

use crate::attach::CopyMethod;
use crate::compiled::CompileSummary;
use crate::project::{Project, TransactionOutcome};
use serde::{Deserialize, Serialize};
use somite_api::feed::Epoch;
use somite_workflow::Revision;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::source::{Replacement, SourceInvocation};

/// The identities of one graph state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct RevisionHead {
    /// Pass this as `base_state_revision` in the next transaction.
    pub state_revision: Revision,
    /// The semantic identity evidence binds to (layout and notes excluded).
    pub graph_revision: Revision,
    /// The same value as `graph_revision`.
    pub semantic_revision: Revision,
}

impl RevisionHead {
    /// The identities of the graph in `state_revision` whose semantic
    /// revision is `graph_revision`.
    pub fn new(state_revision: Revision, graph_revision: Revision) -> RevisionHead {
        RevisionHead {
            state_revision,
            semantic_revision: graph_revision.clone(),
            graph_revision,
        }
    }

    pub fn of(project: &Project) -> RevisionHead {
        RevisionHead::new(project.state_revision().clone(), project.graph_revision())
    }
}

/// A graph with its identities: `somite graph show --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct GraphView {
    #[serde(flatten)]
    pub head: RevisionHead,
    pub document: WorkflowDocument,
}

impl GraphView {
    pub fn of(project: &Project) -> GraphView {
        GraphView {
            head: RevisionHead::of(project),
            document: project.document().clone(),
        }
    }
}

/// The current graph with its identities and where it is bound:
/// `somite.workflow.get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct WorkflowState {
    #[serde(flatten)]
    pub head: RevisionHead,
    pub input_location: String,
    /// Set when the project refuses edits until the user rebinds it.
    pub recovery_required: Option<String>,
    pub catalog_revision: Revision,
    pub document: WorkflowDocument,
}

impl WorkflowState {
    pub fn of(project: &Project) -> WorkflowState {
        WorkflowState {
            head: RevisionHead::of(project),
            input_location: project.layout().graph_location(),
            recovery_required: project.recovery_needed().map(|r| r.reason.clone()),
            catalog_revision: project.catalog().revision().clone(),
            document: project.document().clone(),
        }
    }
}

/// The current graph and the feed position it was read at:
/// `GET /api/workflow`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct WorkflowView {
    #[serde(flatten)]
    pub state: WorkflowState,
    /// The feed's last cursor when the document was read: every transaction
    /// after it arrives as a feed event with a larger cursor.
    pub feed_cursor: u64,
    /// The feed's epoch: `<feed_epoch>:<feed_cursor>` is the position to
    /// follow the feed from.
    pub feed_epoch: Epoch,
}

/// What a transaction did and, for a fresh edit, the feed cursor that
/// announced it: `somite.graph.apply_transaction` and the other edits an
/// agent makes. What changed, not the resulting graph: an agent reads the
/// graph when it needs it (see [`TransactionReply`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct AppliedTransaction {
    #[serde(flatten)]
    pub outcome: TransactionOutcome,
    /// The activity-feed cursor that announced the edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u64>,
}

/// A transaction's reply: `POST /api/transactions` and the browser's other
/// edits. For a fresh edit, the resulting document, which the browser that
/// made the edit shows at once, and the feed's epoch beside the cursor.
/// An agent's reply is the [`AppliedTransaction`] alone: the whole graph in
/// every edit's answer (about 1 KB per node) would cost an agent what the
/// graph costs, not what its edit changed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TransactionReply {
    #[serde(flatten)]
    pub applied: AppliedTransaction,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<WorkflowDocument>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch: Option<Epoch>,
}

/// A compile's summary and, for an agent session, where the package was
/// attached: `POST /api/mcp/compile`, `somite.workflow.compile`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct AttachedCompile {
    #[serde(flatten)]
    pub summary: CompileSummary,
    /// Relative to the session's shared Pixi/Nextflow root; `None` when the
    /// capability belongs to no agent session.
    pub output_path: Option<String>,
    /// How the package reached that root: `reflink` (copy-on-write, no
    /// block duplicated) or `copy`; `None` without `output_path`.
    pub copy_method: Option<CopyMethod>,
}

/// One invocation of a source node as the nested outline draws it: its
/// typed ports and, when the node replaces it, the replacement:
/// `GET /api/source/nodes/{id}/outline`'s `invocations`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct InvocationView {
    #[serde(flatten)]
    pub invocation: SourceInvocation,
    pub replacement: Option<Replacement>,
}

impl InvocationView {
    /// `invocations` with the replacements of their node.
    pub fn list(invocations: Vec<SourceInvocation>, replacements: &[Replacement]) -> Vec<Self> {
        invocations
            .into_iter()
            .map(|invocation| InvocationView {
                replacement: replacements
                    .iter()
                    .find(|r| r.invocation == invocation.id)
                    .cloned(),
                invocation,
            })
            .collect()
    }
}
