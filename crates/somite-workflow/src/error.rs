//! The domain's structured failure.
//!
//! Every surface renders the same envelope, `{"code", "message", "recovery",
//! "details"?}`, so a failure looks the same whoever caused it and a client
//! can branch on `code` alone. The codes here are the domain's own (graphs,
//! transactions, readiness, runs, the project's files); the runtime's HTTP
//! guard, the Agent panel and the MCP servers add their groups in
//! `somite-api`, which composes the wire code from all of them.
//!
//! A disk failure is reported through [`SomiteError::io`] wherever it
//! happens, so the same failure always carries the same code and recovery.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Stable machine-readable failure codes of the domain. The wire form is
/// the snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
// Named apart from the wire code that composes it (`somite_api::ErrorCode`).
#[cfg_attr(feature = "schemars", schemars(rename = "DomainCode"))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    StaleRevision,
    IdempotencyConflict,
    InvalidTransaction,
    TooManyOperations,
    UnknownOperator,
    UnknownNode,
    UnknownPort,
    UnknownParam,
    UnknownEdge,
    UnknownNote,
    InvalidParamType,
    ParamOutOfRange,
    MissingParam,
    DuplicateId,
    IncompatiblePorts,
    PortAlreadyConnected,
    Cycle,
    InvalidDocument,
    InvalidContract,
    InvalidQuery,
    InvalidCursor,
    WorkflowNotReady,
    /// A source workflow is placed only on an empty canvas.
    CanvasNotEmpty,
    /// A value outside a parameter's `enum`.
    ParamNotInEnum,
    /// A string that does not match a parameter's `pattern`.
    ParamPatternMismatch,
    /// A path parameter whose schema says `exists` names nothing on disk.
    ParamPathNotFound,
    /// A URL carrying a user name or password; its text is never repeated.
    UrlCredentials,
    /// A source edit names a process the pinned pipeline does not declare,
    /// or one that already runs in a Pixi environment of its own.
    UnknownProcess,
    /// A source edit or promotion names a node that is not `workflow.source`.
    NotASourceNode,
    /// A source edit names an invocation the pinned outline does not have.
    UnknownInvocation,
    /// A replacement whose operator cannot take or give one of the invocation's ports.
    InvocationPortIncompatible,
    /// A selection that cannot become a native variant (`details.obstacle`).
    PromotionRefused,
    /// `revert_variant` on a document that was not promoted from a source.
    NotAVariant,
    /// A validation needs a reviewed fixture for every root input and one
    /// root's type has none.
    RepresentativeFixtureUnsupported,
    /// A run or validation ended without success (a task failed, or Pixi or
    /// Nextflow exited non-zero).
    RunFailed,
    /// Somite restarted while a run was in progress; its outcome is unknown.
    RunLost,
    /// An evidence receipt on disk no longer matches its own digest.
    EvidenceTampered,
    InputOriginRecoveryRequired,
    /// Another Somite process (a running `somite serve`, or a CLI command
    /// that is writing) holds the project; one writer per project.
    ProjectInUse,
    InvalidRequest,
    PayloadTooLarge,
    ToolchainMissing,
    NotFound,
    #[serde(rename = "io_error")]
    Io,
}

impl ErrorCode {
    /// Every code, for exhaustive tests of the wire names.
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::StaleRevision,
        ErrorCode::IdempotencyConflict,
        ErrorCode::InvalidTransaction,
        ErrorCode::TooManyOperations,
        ErrorCode::UnknownOperator,
        ErrorCode::UnknownNode,
        ErrorCode::UnknownPort,
        ErrorCode::UnknownParam,
        ErrorCode::UnknownEdge,
        ErrorCode::UnknownNote,
        ErrorCode::InvalidParamType,
        ErrorCode::ParamOutOfRange,
        ErrorCode::MissingParam,
        ErrorCode::DuplicateId,
        ErrorCode::IncompatiblePorts,
        ErrorCode::PortAlreadyConnected,
        ErrorCode::Cycle,
        ErrorCode::InvalidDocument,
        ErrorCode::InvalidContract,
        ErrorCode::InvalidQuery,
        ErrorCode::InvalidCursor,
        ErrorCode::WorkflowNotReady,
        ErrorCode::CanvasNotEmpty,
        ErrorCode::ParamNotInEnum,
        ErrorCode::ParamPatternMismatch,
        ErrorCode::ParamPathNotFound,
        ErrorCode::UrlCredentials,
        ErrorCode::UnknownProcess,
        ErrorCode::NotASourceNode,
        ErrorCode::UnknownInvocation,
        ErrorCode::InvocationPortIncompatible,
        ErrorCode::PromotionRefused,
        ErrorCode::NotAVariant,
        ErrorCode::RepresentativeFixtureUnsupported,
        ErrorCode::RunFailed,
        ErrorCode::RunLost,
        ErrorCode::EvidenceTampered,
        ErrorCode::InputOriginRecoveryRequired,
        ErrorCode::ProjectInUse,
        ErrorCode::InvalidRequest,
        ErrorCode::PayloadTooLarge,
        ErrorCode::ToolchainMissing,
        ErrorCode::NotFound,
        ErrorCode::Io,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::StaleRevision => "stale_revision",
            ErrorCode::IdempotencyConflict => "idempotency_conflict",
            ErrorCode::InvalidTransaction => "invalid_transaction",
            ErrorCode::TooManyOperations => "too_many_operations",
            ErrorCode::UnknownOperator => "unknown_operator",
            ErrorCode::UnknownNode => "unknown_node",
            ErrorCode::UnknownPort => "unknown_port",
            ErrorCode::UnknownParam => "unknown_param",
            ErrorCode::UnknownEdge => "unknown_edge",
            ErrorCode::UnknownNote => "unknown_note",
            ErrorCode::InvalidParamType => "invalid_param_type",
            ErrorCode::ParamOutOfRange => "param_out_of_range",
            ErrorCode::MissingParam => "missing_param",
            ErrorCode::DuplicateId => "duplicate_id",
            ErrorCode::IncompatiblePorts => "incompatible_ports",
            ErrorCode::PortAlreadyConnected => "port_already_connected",
            ErrorCode::Cycle => "cycle",
            ErrorCode::InvalidDocument => "invalid_document",
            ErrorCode::InvalidContract => "invalid_contract",
            ErrorCode::InvalidQuery => "invalid_query",
            ErrorCode::InvalidCursor => "invalid_cursor",
            ErrorCode::WorkflowNotReady => "workflow_not_ready",
            ErrorCode::CanvasNotEmpty => "canvas_not_empty",
            ErrorCode::ParamNotInEnum => "param_not_in_enum",
            ErrorCode::ParamPatternMismatch => "param_pattern_mismatch",
            ErrorCode::ParamPathNotFound => "param_path_not_found",
            ErrorCode::UrlCredentials => "url_credentials",
            ErrorCode::UnknownProcess => "unknown_process",
            ErrorCode::NotASourceNode => "not_a_source_node",
            ErrorCode::UnknownInvocation => "unknown_invocation",
            ErrorCode::InvocationPortIncompatible => "invocation_port_incompatible",
            ErrorCode::PromotionRefused => "promotion_refused",
            ErrorCode::NotAVariant => "not_a_variant",
            ErrorCode::RepresentativeFixtureUnsupported => "representative_fixture_unsupported",
            ErrorCode::RunFailed => "run_failed",
            ErrorCode::RunLost => "run_lost",
            ErrorCode::EvidenceTampered => "evidence_tampered",
            ErrorCode::InputOriginRecoveryRequired => "input_origin_recovery_required",
            ErrorCode::ProjectInUse => "project_in_use",
            ErrorCode::InvalidRequest => "invalid_request",
            ErrorCode::PayloadTooLarge => "payload_too_large",
            ErrorCode::ToolchainMissing => "toolchain_missing",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Io => "io_error",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure with a stable code, a human message and what to do next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[error("{code}: {message}")]
pub struct SomiteError {
    pub code: ErrorCode,
    pub message: String,
    pub recovery: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<Value>>,
}

impl SomiteError {
    pub fn new(code: ErrorCode, message: impl Into<String>, recovery: impl Into<String>) -> Self {
        SomiteError {
            code,
            message: message.into(),
            recovery: recovery.into(),
            details: None,
        }
    }

    /// Adds (or merges into) structured details.
    pub fn with_detail(mut self, key: &str, value: impl Serialize) -> Self {
        let value = serde_json::to_value(value).expect("details serialize");
        match self.details.as_deref_mut() {
            Some(Value::Object(map)) => {
                map.insert(key.to_owned(), value);
            }
            _ => {
                let mut map = serde_json::Map::new();
                map.insert(key.to_owned(), value);
                self.details = Some(Box::new(Value::Object(map)));
            }
        }
        self
    }

    /// The one report of a failed file system call on `path`: the same disk
    /// failure has the same code and recovery from every module.
    pub fn io(path: &std::path::Path, error: &std::io::Error) -> Self {
        SomiteError::new(
            ErrorCode::Io,
            format!("{}: {error}", path.display()),
            IO_RECOVERY,
        )
    }

    /// Names the transaction operation that failed, as `details.operation_index`.
    pub fn at_operation(self, index: usize) -> Self {
        let message = format!("operation {index}: {}", self.message);
        SomiteError { message, ..self }.with_detail("operation_index", index)
    }
}

/// What to do about a failed file system call.
pub const IO_RECOVERY: &str =
    "check the project folder's permissions and free disk space, then retry";

pub type Result<T, E = SomiteError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_match_as_str() {
        for &code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                code.as_str(),
                "{code:?}"
            );
        }
    }

    #[test]
    fn details_accumulate() {
        let e = SomiteError::new(ErrorCode::Cycle, "m", "r")
            .with_detail("a", 1)
            .at_operation(3);
        let details = e.details.unwrap();
        assert_eq!(details["a"], 1);
        assert_eq!(details["operation_index"], 3);
        assert!(e.message.starts_with("operation 3:"));
    }
}
