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

    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl OutlineError {
    pub fn code(&self) -> ErrorCode {
        match self {
            OutlineError::NotANextflowRepository { .. } => {
                SourceCode::NotANextflowRepository.into()
            }
            OutlineError::LimitExceeded { .. } => SourceCode::OutlineLimitExceeded.into(),
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
