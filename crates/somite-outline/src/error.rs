//! Why an outline was refused, with a stable code and a recovery.
//!
//! Only whole-tree failures are errors; a construct, file or document the
//! outline cannot read is a [`crate::Diagnostic`] in the outline instead.
//! The codes are the wire contract's (`somite-api`: its `source` group and
//! the domain's `io_error`).

use somite_api::{DomainCode, ErrorCode, SourceCode};
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum OutlineError {
    #[error("the tree has no `{entry}`, so it is not a Nextflow pipeline")]
    NotANextflowRepository { entry: String },

    #[error("the pipeline reaches more than {limit} {what}; the outline stops there")]
    LimitExceeded { what: &'static str, limit: u64 },

    #[error("`{entry}` {why}, so Somite finds no step the pipeline runs")]
    Unreadable { entry: String, why: Unreadable },

    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Why an outline lists no invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreadable {
    /// Processes but no `workflow { }`: DSL1, which Nextflow 22.12 and
    /// later no longer run.
    Dsl1,
    NoEntryWorkflow,
    /// An entry workflow whose calls reach no process the outline follows.
    NoProcessReached,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unreadable::Dsl1 => {
                "declares processes but no `workflow { }`: it is written in DSL1, which Nextflow no longer runs"
            }
            Unreadable::NoEntryWorkflow => "has no entry `workflow { }`",
            Unreadable::NoProcessReached => {
                "has an entry workflow whose calls reach no process the outline can follow"
            }
        })
    }
}

impl OutlineError {
    pub fn code(&self) -> ErrorCode {
        match self {
            OutlineError::NotANextflowRepository { .. } => {
                SourceCode::NotANextflowRepository.into()
            }
            OutlineError::LimitExceeded { .. } => SourceCode::OutlineLimitExceeded.into(),
            OutlineError::Unreadable { .. } => SourceCode::OutlineUnreadable.into(),
            OutlineError::Io { .. } => DomainCode::Io.into(),
        }
    }

    pub fn recovery(&self) -> &'static str {
        match self {
            OutlineError::NotANextflowRepository { .. } => {
                "Choose a repository whose root holds the pipeline's main.nf (or the script its manifest.mainScript names)."
            }
            OutlineError::LimitExceeded { .. } => {
                "This is larger than a pipeline the outline reads; choose the pipeline's own repository, not a monorepo or data bundle."
            }
            OutlineError::Unreadable {
                why: Unreadable::Dsl1,
                ..
            } => {
                "Choose a release written in DSL2 (nf-core pipelines are DSL2 since 2021), or port the pipeline to DSL2."
            }
            OutlineError::Unreadable { .. } => {
                "Choose the pipeline's own repository and a release whose entry script runs its workflow; if it does and Somite cannot follow it, report the pipeline and release."
            }
            OutlineError::Io { .. } => {
                "Check that the source tree is still in place and readable, then outline it again."
            }
        }
    }
}

impl From<OutlineError> for somite_api::Error {
    fn from(error: OutlineError) -> somite_api::Error {
        somite_api::Error::new(error.code(), error.to_string(), error.recovery())
    }
}
