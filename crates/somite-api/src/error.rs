//! The one failure envelope every surface reports, and its codes.
//!
//! HTTP routes, MCP tools and the command line all render
//! `{"code", "message", "recovery", "details"?}`, so a client branches on
//! `code` alone. The codes come in groups, each declared once by its owner:
//! the pure domain's own failures stay in `somite_workflow::ErrorCode`
//! (which knows nothing of HTTP or agents); the runtime's HTTP guard, the
//! Agent panel, the Pixi/Nextflow tool servers and the MCP adapter's link to
//! the runtime each have a group here. [`ErrorCode`] composes them with
//! `#[serde(untagged)]`: on the wire a code is still one snake_case string,
//! exactly as before, and the wire names of all groups are disjoint (a test
//! checks it), so a string reads back into the one group that owns it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
pub use somite_workflow::ErrorCode as DomainCode;
use somite_workflow::SomiteError;

/// Declares a group of codes with their wire names and documentation.
macro_rules! code_group {
    ($(#[$meta:meta])* $name:ident($group:ident) { $($(#[$vmeta:meta])* $variant:ident => $wire:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $wire)] $variant,)+
        }

        impl $name {
            /// Every code of the group.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)+
                }
            }
        }

        impl From<$name> for ErrorCode {
            fn from(code: $name) -> ErrorCode {
                ErrorCode::$group(code)
            }
        }

        impl PartialEq<$name> for ErrorCode {
            fn eq(&self, other: &$name) -> bool {
                *self == ErrorCode::$group(*other)
            }
        }
    };
}

code_group! {
    /// The loopback runtime's request guard and HTTP framing.
    HttpCode(Http) {
        /// An `/api/mcp/` request without a valid capability.
        CapabilityRequired => "capability_required",
        /// A `Host` header that is not the runtime's loopback address.
        ForbiddenHost => "forbidden_host",
        /// A cross-origin browser request.
        ForbiddenOrigin => "forbidden_origin",
        /// An HTTP request target longer than the runtime accepts.
        UriTooLong => "uri_too_long",
        /// An HTTP request head with too many or too large header fields.
        HeadersTooLarge => "headers_too_large",
        /// An HTTP request body that did not arrive in time.
        RequestTimeout => "request_timeout",
        /// The runtime is doing as many of these at once as it allows (a
        /// pipeline resolve holds an archive in flight); `Retry-After` says
        /// when to ask again.
        Busy => "busy",
    }
}

code_group! {
    /// The Agent panel's session with an ACP agent.
    AgentCode(Agent) {
        /// An Agent panel call needs a connected agent and there is none.
        AgentNotConnected => "agent_not_connected",
        /// Connecting while an agent is connected; disconnect it first.
        AgentAlreadyConnected => "agent_already_connected",
        /// The agent is still starting its session.
        AgentNotReady => "agent_not_ready",
        /// The agent is still working on the previous message.
        AgentBusy => "agent_busy",
        /// The chosen launcher or custom command cannot be started.
        AgentCommandRejected => "agent_command_rejected",
        /// The agent itself answered a request with an error.
        AgentError => "agent_error",
    }
}

code_group! {
    /// The Pixi and Nextflow MCP tool servers. A missing binary is the
    /// domain's `toolchain_missing` and a missing page its `not_found`.
    ToolCode(Tool) {
        /// The binary is installed but is not the release the contract is proven for.
        ToolchainVersionMismatch => "toolchain_version_mismatch",
        /// A path escaped the workspace root, was absolute outside it, contained
        /// `..`, crossed a symbolic link, or named a hard-linked or special file.
        PathRejected => "path_rejected",
        /// An argument is well-formed JSON but not acceptable (bad name, empty list).
        InvalidArgument => "invalid_argument",
        /// The manual has not been imported into the documentation cache.
        DocsUnavailable => "docs_unavailable",
        /// The process could not be started or observed.
        ProcessFailed => "process_failed",
        /// A request to the documentation index failed.
        SearchFailed => "search_failed",
        /// A tool's output could not be written into the workspace.
        WriteFailed => "write_failed",
    }
}

code_group! {
    /// Pipeline sources (`somite-source`) and their static outline
    /// (`somite-outline`): the providers, the archive, the pinned store.
    SourceCode(Source) {
        /// The nf-core catalog has no pipeline of this name.
        PipelineNotFound => "pipeline_not_found",
        /// The pipeline exists but not this published release.
        ReleaseNotFound => "release_not_found",
        /// GitHub does not know the repository (or it is private).
        RepositoryNotFound => "repository_not_found",
        /// The repository exists but the branch, tag or commit does not.
        RefNotFound => "ref_not_found",
        /// The provider's rate limit is spent (details carry the reset time).
        RateLimited => "rate_limited",
        /// No answer, a timeout, or a server error from the provider.
        ProviderUnavailable => "provider_unavailable",
        /// The provider answered, but not in its documented shape.
        ProviderResponseInvalid => "provider_response_invalid",
        /// The archive is larger, or has more entries, than Somite accepts.
        ArchiveTooLarge => "archive_too_large",
        /// An archive entry would leave the tree, is a device, or is otherwise unsafe.
        UnsafeArchive => "unsafe_archive",
        /// The tree has no entry script (`main.nf`).
        NotANextflowRepository => "not_a_nextflow_repository",
        /// A stored source no longer matches its recorded tree digest.
        SourceTampered => "source_tampered",
        /// No stored source for this commit.
        SourceNotFound => "source_not_found",
        /// The pipeline reaches more files or bytes than the outline reads.
        OutlineLimitExceeded => "outline_limit_exceeded",
        /// The outline finds no process the pipeline runs: a DSL1 script, no
        /// entry `workflow { }`, or an entry workflow whose calls it cannot
        /// follow.
        OutlineUnreadable => "outline_unreadable",
    }
}

code_group! {
    /// The Operator Workshop: project operator candidates, their proofs and
    /// their acceptance by a person.
    WorkshopCode(Workshop) {
        /// The candidate breaks a rule; the message and `details.field` name the field.
        InvalidCandidate => "invalid_candidate",
        /// The project already holds the most candidates it keeps, or the candidate is too large.
        CandidateLimit => "candidate_limit",
        /// An input of the candidate has a type no reviewed tiny fixture exists for.
        FixtureUnsupported => "fixture_unsupported",
        /// No candidate (or proof) with this digest (or id).
        CandidateNotFound => "candidate_not_found",
        /// Accepting would replace an operator revision the graph pins.
        PinnedRevisionConflict => "pinned_revision_conflict",
        /// This machine cannot build the sandbox a candidate's proof runs
        /// in (no bubblewrap, or no user namespaces), so it does not run.
        IsolationUnavailable => "isolation_unavailable",
        /// The candidate runs an interpreter on code given inline
        /// (`python3 -c`, `perl -e`, an awk program as an argument).
        InlineCode => "inline_code",
        /// Accepting needs a passed proof of exactly this candidate (its
        /// validation and its task proof with the real tool).
        ProofRequired => "proof_required",
    }
}

code_group! {
    /// Providers that cannot answer now. Public-data search (`somite-data`:
    /// NCBI and Ensembl) owns the code, and a project's pinned pipeline
    /// source reuses it when the store lacks the commit and GitHub cannot
    /// serve it again (offline, or refused). A bad query is
    /// the domain's `invalid_query`; a spent rate limit and an answer
    /// outside the provider's documented shape reuse the source group's
    /// `rate_limited` and `provider_response_invalid`.
    DataCode(Data) {
        /// The provider did not answer, timed out, failed, or sent more than
        /// Somite accepts, and nothing is cached (or stored) for the request.
        SourceUnavailable => "source_unavailable",
    }
}

code_group! {
    /// Managed resources (`somite-resource`): reviewed reference databases
    /// installed with the user's consent.
    ResourceCode(Resource) {
        /// No reviewed provider of this id, or nothing to inspect or cancel.
        ResourceNotFound => "resource_not_found",
        /// The provider lacks a checksum or size Somite can cite: it refuses to install.
        ResourceUnverified => "resource_unverified",
        /// The consent does not repeat the provider's exact sizes and effect digest.
        ConsentMismatch => "consent_mismatch",
        /// Not enough free disk for the download, the unpacked resource and the margin.
        InsufficientDisk => "insufficient_disk",
        /// An install of this provider is already running.
        ResourceJobRunning => "resource_job_running",
        /// The downloaded archive does not match the published checksum.
        ChecksumMismatch => "checksum_mismatch",
        /// The archive or folder lacks the files the resource profile needs.
        ResourceStructureInvalid => "resource_structure_invalid",
        /// The provider failed, timed out or answered outside HTTP's contract.
        DownloadFailed => "download_failed",
        /// A `somite-resource:` reference is malformed or names nothing installed.
        ResourceReferenceInvalid => "resource_reference_invalid",
        /// An agent asked to install (or to cancel and delete a partial
        /// download) without the user's own answer to its permission prompt.
        ResourcePermissionRequired => "resource_permission_required",
    }
}

code_group! {
    /// The Somite MCP adapter's link to the runtime.
    LinkCode(Link) {
        /// The runtime did not answer.
        RuntimeUnavailable => "runtime_unavailable",
        /// The runtime's reply does not match its contract.
        InvalidResponse => "invalid_response",
        /// The MCP client cancelled the call.
        Cancelled => "cancelled",
    }
}

/// A stable machine-readable failure code: one snake_case string on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ErrorCode {
    Domain(DomainCode),
    Http(HttpCode),
    Agent(AgentCode),
    Tool(ToolCode),
    Source(SourceCode),
    Workshop(WorkshopCode),
    Data(DataCode),
    Resource(ResourceCode),
    Link(LinkCode),
}

impl ErrorCode {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Domain(code) => code.as_str(),
            ErrorCode::Http(code) => code.as_str(),
            ErrorCode::Agent(code) => code.as_str(),
            ErrorCode::Tool(code) => code.as_str(),
            ErrorCode::Source(code) => code.as_str(),
            ErrorCode::Workshop(code) => code.as_str(),
            ErrorCode::Data(code) => code.as_str(),
            ErrorCode::Resource(code) => code.as_str(),
            ErrorCode::Link(code) => code.as_str(),
        }
    }
}

impl From<DomainCode> for ErrorCode {
    fn from(code: DomainCode) -> ErrorCode {
        ErrorCode::Domain(code)
    }
}

impl PartialEq<DomainCode> for ErrorCode {
    fn eq(&self, other: &DomainCode) -> bool {
        *self == ErrorCode::Domain(*other)
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failure with a stable code, a human message and what to do next.
#[derive(
    Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema, thiserror::Error,
)]
#[error("{message}")]
pub struct Error {
    pub code: ErrorCode,
    /// What went wrong, in one sentence.
    pub message: String,
    /// What to do next.
    pub recovery: String,
    /// Structured context (the failing operation, versions, a rejected path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<Value>>,
}

impl Error {
    pub fn new(
        code: impl Into<ErrorCode>,
        message: impl Into<String>,
        recovery: impl Into<String>,
    ) -> Error {
        Error {
            code: code.into(),
            message: message.into(),
            recovery: recovery.into(),
            details: None,
        }
    }

    /// Replaces the structured details.
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Error {
        self.details = Some(Box::new(details));
        self
    }
}

impl From<SomiteError> for Error {
    fn from(error: SomiteError) -> Error {
        Error {
            code: error.code.into(),
            message: error.message,
            recovery: error.recovery,
            details: error.details,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn every_code() -> Vec<ErrorCode> {
        let mut codes: Vec<ErrorCode> = DomainCode::ALL.iter().map(|&c| c.into()).collect();
        codes.extend(HttpCode::ALL.iter().map(|&c| ErrorCode::from(c)));
        codes.extend(AgentCode::ALL.iter().map(|&c| ErrorCode::from(c)));
        codes.extend(ToolCode::ALL.iter().map(|&c| ErrorCode::from(c)));
        codes.extend(SourceCode::ALL.iter().map(|&c| ErrorCode::from(c)));
        codes.extend(WorkshopCode::ALL.iter().map(|&c| ErrorCode::from(c)));
        codes.extend(DataCode::ALL.iter().map(|&c| ErrorCode::from(c)));
        codes.extend(ResourceCode::ALL.iter().map(|&c| ErrorCode::from(c)));
        codes.extend(LinkCode::ALL.iter().map(|&c| ErrorCode::from(c)));
        codes
    }

    #[test]
    fn every_code_is_one_disjoint_string_that_reads_back_into_its_group() {
        let codes = every_code();
        let names: BTreeSet<&str> = codes.iter().map(|c| c.as_str()).collect();
        assert_eq!(
            names.len(),
            codes.len(),
            "two groups declare the same wire name"
        );
        for code in codes {
            let wire = serde_json::to_value(code).unwrap();
            assert_eq!(wire, code.as_str());
            assert_eq!(serde_json::from_value::<ErrorCode>(wire).unwrap(), code);
        }
    }

    #[test]
    fn a_domain_failure_keeps_its_envelope() {
        let domain = SomiteError::new(DomainCode::Cycle, "m", "r").with_detail("a", 1);
        let wire = serde_json::to_value(Error::from(domain.clone())).unwrap();
        assert_eq!(wire, serde_json::to_value(domain).unwrap());
        assert_eq!(wire["code"], "cycle");
    }
}
