//! Why an outline was refused, with a stable code and a recovery.
//!
//! Only whole-tree failures are errors; a construct, file or document the
//! outline cannot read is a [`crate::Diagnostic`] in the outline instead.
//! The codes are this crate's until the workspace's error-code list owns
//! them (`not_a_nextflow_repository` is the specification's).

use std::path::PathBuf;

/// The tree has no entry script.
pub const NOT_A_NEXTFLOW_REPOSITORY: &str = "not_a_nextflow_repository";
/// The tree is larger than the outline reads (files or bytes).
pub const OUTLINE_LIMIT_EXCEEDED: &str = "outline_limit_exceeded";
/// The tree could not be read.
pub const IO_ERROR: &str = "io_error";

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
    pub fn code(&self) -> &'static str {
        match self {
            OutlineError::NotANextflowRepository { .. } => NOT_A_NEXTFLOW_REPOSITORY,
            OutlineError::LimitExceeded { .. } => OUTLINE_LIMIT_EXCEEDED,
            OutlineError::Io { .. } => IO_ERROR,
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
