//! Why a source could not be searched, resolved, fetched or opened, with a
//! stable code.
//!
//! Every [`SourceError`] has a wire [`ErrorCode`] (the `source` group of
//! `somite-api`, or the domain's `invalid_*`/`io_error`), a message (`Display`), a [`recovery`](SourceError::recovery) a
//! person or an agent can act on and, where a client needs more than words,
//! structured [`details`](SourceError::details) (the rate limit's reset time,
//! the provider that answered badly, the releases that do exist). That is
//! the whole `{code, message, recovery, details}` envelope, so the HTTP
//! routes, MCP tools and CLI that wire this crate in need no mapping of
//! their own beyond carrying it over.

use crate::ids::{CommitSha, Repository};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use somite_api::{DataCode, DomainCode, ErrorCode, SourceCode};
use std::fmt;
use std::path::PathBuf;

/// Which outside service answered (or did not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Provider {
    /// The nf-core pipeline catalog (`pipelines.json` on nf-co.re).
    #[serde(rename = "nf-core")]
    NfCore,
    /// The GitHub REST API and its tarball downloads.
    #[serde(rename = "github")]
    GitHub,
    /// The location a pipeline's remote input names, when Somite pins it.
    #[serde(rename = "remote")]
    Remote,
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Provider::NfCore => "the nf-core catalog",
            Provider::GitHub => "GitHub",
            Provider::Remote => "the remote location",
        })
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// A repository, ref, commit or digest that does not parse.
    #[error("{detail}")]
    InvalidRequest { detail: String },

    /// A search query or limit out of bounds.
    #[error("{detail}")]
    InvalidQuery { detail: String },

    /// A cursor from another query, another catalog or no search at all.
    #[error("the cursor is not valid here: {detail}")]
    InvalidCursor { detail: String },

    /// The nf-core catalog has no pipeline of this name.
    #[error("nf-core has no pipeline `{pipeline}`")]
    PipelineNotFound { pipeline: String },

    /// The pipeline exists but not this published release.
    #[error("nf-core/{pipeline} has no published release `{release}`")]
    ReleaseNotFound {
        pipeline: String,
        release: String,
        known: Vec<String>,
    },

    /// GitHub does not know the repository (or it is private).
    #[error("GitHub has no public repository `{repository}`")]
    RepositoryNotFound { repository: Repository },

    /// The repository exists but the branch, tag or commit does not.
    #[error("`{repository}` has no branch, tag or commit `{git_ref}`")]
    RefNotFound {
        repository: Repository,
        git_ref: String,
    },

    /// The provider's rate limit is spent until `reset_at` (RFC 3339), when
    /// it said.
    #[error("{provider} refused: its rate limit is spent{}", .reset_at.as_deref().map(|t| format!(" until {t}")).unwrap_or_default())]
    RateLimited {
        provider: Provider,
        reset_at: Option<String>,
    },

    /// No answer, a timeout, or a server error.
    #[error("{provider} is unavailable: {detail}")]
    ProviderUnavailable { provider: Provider, detail: String },

    /// An answer that does not have the documented shape.
    #[error("{provider} answered with something unexpected: {detail}")]
    ProviderResponseInvalid { provider: Provider, detail: String },

    /// The archive is larger than Somite accepts (bytes or entries).
    #[error("the source archive is too large: {detail}")]
    ArchiveTooLarge { detail: String },

    /// The archive tries to write outside its folder, link out of it, create
    /// a device, or is otherwise not a plain source tree. Nothing was kept.
    #[error("the source archive is unsafe: {reason}")]
    UnsafeArchive { reason: String },

    /// The tree has no `main.nf` at its root.
    #[error(
        "`{repository}` at {commit} has no main.nf at its root, so it is not a Nextflow pipeline"
    )]
    NotANextflowRepository {
        repository: Repository,
        commit: CommitSha,
    },

    /// The stored tree no longer has the digest it was pinned with.
    #[error(
        "the stored source of {commit} has changed since it was fetched (tree digest {actual}, expected {expected})"
    )]
    SourceTampered {
        commit: CommitSha,
        path: PathBuf,
        expected: String,
        actual: String,
    },

    /// The store has no tree for this commit.
    #[error("no stored source for commit {commit}")]
    SourceNotFound { commit: CommitSha },

    /// The store lacks the pinned tree and fetching that exact commit again
    /// failed: the project still opens, but what reads the tree waits.
    #[error(
        "the pinned source {repository} at commit {commit} is not on this machine and cannot be fetched now: {reason}"
    )]
    SourceUnavailable {
        repository: Repository,
        commit: CommitSha,
        reason: String,
    },

    /// Neither `XDG_CACHE_HOME` nor `HOME` names a cache folder.
    #[error("no user cache folder: set XDG_CACHE_HOME or HOME")]
    NoCacheDir,

    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl SourceError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> SourceError {
        SourceError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn unsafe_archive(reason: impl Into<String>) -> SourceError {
        SourceError::UnsafeArchive {
            reason: reason.into(),
        }
    }

    /// The stable code this error is reported with.
    pub fn code(&self) -> ErrorCode {
        match self {
            SourceError::InvalidRequest { .. } => DomainCode::InvalidRequest.into(),
            SourceError::InvalidQuery { .. } => DomainCode::InvalidQuery.into(),
            SourceError::InvalidCursor { .. } => DomainCode::InvalidCursor.into(),
            SourceError::PipelineNotFound { .. } => SourceCode::PipelineNotFound.into(),
            SourceError::ReleaseNotFound { .. } => SourceCode::ReleaseNotFound.into(),
            SourceError::RepositoryNotFound { .. } => SourceCode::RepositoryNotFound.into(),
            SourceError::RefNotFound { .. } => SourceCode::RefNotFound.into(),
            SourceError::RateLimited { .. } => SourceCode::RateLimited.into(),
            SourceError::ProviderUnavailable { .. } => SourceCode::ProviderUnavailable.into(),
            SourceError::ProviderResponseInvalid { .. } => {
                SourceCode::ProviderResponseInvalid.into()
            }
            SourceError::ArchiveTooLarge { .. } => SourceCode::ArchiveTooLarge.into(),
            SourceError::UnsafeArchive { .. } => SourceCode::UnsafeArchive.into(),
            SourceError::NotANextflowRepository { .. } => SourceCode::NotANextflowRepository.into(),
            SourceError::SourceTampered { .. } => SourceCode::SourceTampered.into(),
            SourceError::SourceNotFound { .. } => SourceCode::SourceNotFound.into(),
            SourceError::SourceUnavailable { .. } => DataCode::SourceUnavailable.into(),
            SourceError::NoCacheDir | SourceError::Io { .. } => DomainCode::Io.into(),
        }
    }

    /// What to do next.
    pub fn recovery(&self) -> String {
        match self {
            SourceError::InvalidRequest { .. } => {
                "name a repository as OWNER/NAME and a ref as a branch, tag or 40-hex commit".into()
            }
            SourceError::InvalidQuery { .. } => {
                "search with a few words such as `rnaseq` or `fastq download`, and a limit within bounds".into()
            }
            SourceError::InvalidCursor { .. } => {
                "repeat the search without a cursor; a cursor is valid only for the query and catalog revision that produced it".into()
            }
            SourceError::PipelineNotFound { .. } => {
                "search the nf-core catalog and use a pipeline name it lists".into()
            }
            SourceError::ReleaseNotFound { known, .. } if known.is_empty() => {
                "this pipeline has no published release; resolve its GitHub repository at a commit instead".into()
            }
            SourceError::ReleaseNotFound { known, .. } => {
                format!("choose one of the published releases: {}", known.join(", "))
            }
            SourceError::RepositoryNotFound { .. } => {
                "check the OWNER/NAME spelling; only public repositories can be resolved".into()
            }
            SourceError::RefNotFound { .. } => {
                "check the branch or tag name, or pass the full 40-hex commit id".into()
            }
            SourceError::RateLimited { .. } => {
                "wait until the reset time, or set GITHUB_TOKEN for a higher limit".into()
            }
            SourceError::ProviderUnavailable { .. } => {
                "check the network connection and try again".into()
            }
            SourceError::ProviderResponseInvalid {
                provider: Provider::Remote,
                ..
            } => "try again later; the location answered badly (nothing was kept), or choose a local copy of the file".into(),
            SourceError::ProviderResponseInvalid { .. } => {
                "try again later; if it persists, check SOMITE_NFCORE_PIPELINES_URL and SOMITE_GITHUB_API_URL point at the real services".into()
            }
            SourceError::ArchiveTooLarge { .. } => {
                "this repository is too large to use as a source workflow; choose a smaller one".into()
            }
            SourceError::UnsafeArchive { .. } => {
                "do not use this source; nothing from the archive was kept".into()
            }
            SourceError::NotANextflowRepository { .. } => {
                "choose a repository (or ref) whose root has main.nf".into()
            }
            SourceError::SourceTampered { path, .. } => format!(
                "remove {} and resolve the source again to fetch a clean copy",
                path.display()
            ),
            SourceError::SourceNotFound { .. } => {
                "resolve the source again to fetch it into the store".into()
            }
            SourceError::SourceUnavailable { .. } => "connect to the network and try again: Somite fetches that exact commit and checks its tree digest before using it; the canvas, parameters and readiness work meanwhile".into(),
            SourceError::NoCacheDir => "set XDG_CACHE_HOME or HOME to a writable folder".into(),
            SourceError::Io { path, .. } => format!(
                "check that {} is on a writable disk with free space",
                path.display()
            ),
        }
    }

    /// Structured facts beyond the message, for clients that branch on them.
    pub fn details(&self) -> Option<Value> {
        match self {
            SourceError::RateLimited { provider, reset_at } => {
                Some(json!({ "provider": provider, "reset_at": reset_at }))
            }
            SourceError::ProviderUnavailable { provider, .. }
            | SourceError::ProviderResponseInvalid { provider, .. } => {
                Some(json!({ "provider": provider }))
            }
            SourceError::ReleaseNotFound { known, .. } => Some(json!({ "known_releases": known })),
            SourceError::SourceUnavailable {
                repository, commit, ..
            } => Some(json!({ "repository": repository, "commit": commit })),
            SourceError::SourceTampered {
                expected, actual, ..
            } => Some(json!({ "expected_tree_digest": expected, "actual_tree_digest": actual })),
            _ => None,
        }
    }
}

pub type Result<T, E = SourceError> = std::result::Result<T, E>;

impl From<SourceError> for somite_api::Error {
    fn from(error: SourceError) -> somite_api::Error {
        let mut wire = somite_api::Error::new(error.code(), error.to_string(), error.recovery());
        if let Some(details) = error.details() {
            wire = wire.with_details(details);
        }
        wire
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limits_carry_the_reset_time_and_provider() {
        let e = SourceError::RateLimited {
            provider: Provider::GitHub,
            reset_at: Some("2026-12-03T22:00:00Z".into()),
        };
        assert_eq!(e.code().as_str(), "rate_limited");
        assert_eq!(
            e.details().unwrap(),
            json!({"provider": "github", "reset_at": "2026-12-03T22:00:00Z"})
        );
        assert!(e.to_string().contains("until 2026-12-03T22:00:00Z"));
        assert!(e.recovery().contains("GITHUB_TOKEN"));
    }
}
