//! Why the supervisor refused or failed, with a stable code.
//!
//! [`RunnerError`] is what the supervisor's calls return; every variant maps
//! to the wire envelope [`SomiteError`] with a stable code from
//! the wire contract (`somite-api`) and a recovery a person or an agent can act on, so the
//! HTTP routes and the MCP tools need no mapping of their own.

use somite_workflow::{ErrorCode, SomiteError};
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum RunnerError {
    /// The idempotency key does not match `^[A-Za-z0-9_-]{8,128}$`.
    #[error("the idempotency key must be 8 to 128 characters of A-Z, a-z, 0-9, `_` or `-`")]
    InvalidIdempotencyKey,

    /// The launch asked for a Nextflow profile the package does not have.
    #[error("unknown profile `{profile}`; the package has {}", .known.join(", "))]
    UnknownProfile {
        profile: String,
        known: Vec<&'static str>,
    },

    /// The key was already used for a different launch.
    #[error("this idempotency key was already used for a different launch")]
    IdempotencyConflict,

    /// An evidence lookup named something that is not a graph revision.
    #[error("`{revision}` is not a graph revision")]
    InvalidRevision { revision: String },

    /// `pixi` is not on PATH (or not where the toolchain says).
    #[error("`pixi` is not installed, so Somite cannot run the compiled package")]
    ToolchainMissing,

    /// Pixi ran but could not lock the package, so `pixi run --frozen`
    /// cannot install it.
    #[error("`pixi {step}` failed, so the package has no pixi.lock to run frozen: {detail}")]
    PixiLockFailed { step: String, detail: String },

    /// A validation root has a type (or provides a resource profile) without
    /// a reviewed fixture.
    #[error("no reviewed representative fixture for {}", describe_roots(.roots))]
    FixtureUnsupported { roots: Vec<UnsupportedRoot> },

    /// No run has this id.
    #[error("no run `{run_id}`")]
    RunNotFound { run_id: String },

    /// A failure the project or the workflow domain reported (readiness,
    /// input-origin recovery, compile), passed through unchanged.
    #[error(transparent)]
    Project(#[from] SomiteError),

    /// A durable write or capped read of a record failed.
    #[error(transparent)]
    Storage(#[from] somite_project::durable::DurableError),

    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A proof named something that is not an external operator of the catalog.
    #[error("`{operator_id}` is not a tool operator of the catalog")]
    ProofUnknownOperator { operator_id: String },

    /// The operator's proof cannot run on this machine, for the stated reason.
    #[error("{operator_id} has no proof on this machine: {reason}")]
    ProofNotRunnable { operator_id: String, reason: String },

    /// An operator whose outputs a proof takes as inputs did not prove.
    #[error("{operator_id} cannot be proven: its input {prerequisite} did not prove")]
    ProofPrerequisite {
        operator_id: String,
        prerequisite: String,
    },

    /// A proof fixture could not be built.
    #[error("the proof fixture {fixture} could not be built: {detail}")]
    ProofFixture { fixture: String, detail: String },

    /// A run record on disk does not parse.
    #[error("the run record {} does not parse: {detail}", .path.display())]
    CorruptRecord { path: PathBuf, detail: String },
}

/// A root input that validation cannot bind.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UnsupportedRoot {
    pub node_id: String,
    pub port: String,
    pub port_type: String,
}

fn describe_roots(roots: &[UnsupportedRoot]) -> String {
    roots
        .iter()
        .map(|r| format!("{}.{} ({})", r.node_id, r.port, r.port_type))
        .collect::<Vec<_>>()
        .join(", ")
}

impl RunnerError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> RunnerError {
        RunnerError::Io {
            path: path.into(),
            source,
        }
    }

    /// The stable code this error is reported with.
    pub fn code(&self) -> ErrorCode {
        match self {
            RunnerError::InvalidIdempotencyKey
            | RunnerError::UnknownProfile { .. }
            | RunnerError::InvalidRevision { .. } => ErrorCode::InvalidRequest,
            RunnerError::IdempotencyConflict => ErrorCode::IdempotencyConflict,
            RunnerError::ToolchainMissing | RunnerError::PixiLockFailed { .. } => {
                ErrorCode::ToolchainMissing
            }
            RunnerError::FixtureUnsupported { .. } => ErrorCode::RepresentativeFixtureUnsupported,
            RunnerError::RunNotFound { .. } => ErrorCode::NotFound,
            RunnerError::ProofUnknownOperator { .. } => ErrorCode::UnknownOperator,
            RunnerError::ProofNotRunnable { .. } | RunnerError::ProofFixture { .. } => {
                ErrorCode::ToolchainMissing
            }
            RunnerError::ProofPrerequisite { .. } => ErrorCode::RunFailed,
            RunnerError::Project(e) => e.code,
            RunnerError::Io { .. } => ErrorCode::Io,
            RunnerError::Storage(e) => e.code(),
            RunnerError::CorruptRecord { .. } => ErrorCode::InvalidDocument,
        }
    }

    fn recovery(&self) -> String {
        match self {
            RunnerError::InvalidIdempotencyKey => {
                "send a fresh key for each intended launch, e.g. `run-` and a random suffix".into()
            }
            RunnerError::UnknownProfile { .. } => {
                "leave the profile out for `local`, or choose one the package lists".into()
            }
            RunnerError::IdempotencyConflict => {
                "use a fresh idempotency key for each intended launch".into()
            }
            RunnerError::InvalidRevision { .. } => {
                "pass a `blake3:<64 hex>` graph_revision, as the workflow reports it".into()
            }
            RunnerError::ToolchainMissing => {
                "install Pixi 0.77 (https://pixi.sh) and put `pixi` on PATH, then start again; \
                 the package's own Pixi environment provides Nextflow and Java"
                    .into()
            }
            RunnerError::PixiLockFailed { .. } => {
                "check Pixi's message (network access, channel availability), then start again"
                    .into()
            }
            RunnerError::FixtureUnsupported { .. } => {
                "validate a graph whose inputs (and whose download nodes' outputs) are FASTQ \
                 (single or paired, plain or gzipped), FASTA (plain or gzipped), GTF (plain or \
                 gzipped), SAM, BAM or a Kraken2 database, or run it on your own inputs instead"
                    .into()
            }
            RunnerError::RunNotFound { .. } => {
                "use a run_id returned by a run or validation start".into()
            }
            RunnerError::ProofUnknownOperator { .. } => {
                // There is no `somite operator list`; the catalog lists them.
                "name a tool operator: `somite catalog search WORDS` finds its id".into()
            }
            RunnerError::ProofNotRunnable { .. } => {
                "run the proof on a machine that has the tool, or rely on the declared \
                 stand-in until one does (docs/operator-proofs.md lists every reason)"
                    .into()
            }
            RunnerError::ProofPrerequisite { prerequisite, .. } => format!(
                "prove {} first and fix what its proof reports",
                prerequisite
                    .split('.')
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(".")
            ),
            RunnerError::ProofFixture { .. } => {
                "run scripts/setup to install the Debian packages the proofs use, then retry".into()
            }
            RunnerError::Project(e) => e.recovery.clone(),
            RunnerError::Io { .. } | RunnerError::Storage(_) => {
                somite_workflow::error::IO_RECOVERY.into()
            }
            RunnerError::CorruptRecord { path, .. } => format!(
                "move {} aside; the run's outcome is then unknown",
                path.display()
            ),
        }
    }
}

impl From<RunnerError> for SomiteError {
    fn from(error: RunnerError) -> SomiteError {
        // Library failures go through their one conversion, so a disk
        // failure reads the same here as in every other module.
        let error = match error {
            RunnerError::Project(inner) => return inner,
            RunnerError::Storage(inner) => return inner.into(),
            RunnerError::Io { path, source } => return SomiteError::io(&path, &source),
            error => error,
        };
        let base = SomiteError::new(error.code(), error.to_string(), error.recovery());
        match error {
            RunnerError::UnknownProfile { known, .. } => base.with_detail("profiles", known),
            RunnerError::FixtureUnsupported { roots } => base.with_detail("roots", roots),
            RunnerError::PixiLockFailed { step, .. } => base.with_detail("step", step),
            RunnerError::RunNotFound { run_id } => base.with_detail("run_id", run_id),
            RunnerError::ProofNotRunnable {
                operator_id,
                reason,
            } => base
                .with_detail("operator_id", operator_id)
                .with_detail("reason", reason),
            _ => base,
        }
    }
}

/// Why a launch that started did not succeed: the `error` of its status.
pub(crate) fn run_failure(message: impl Into<String>, recovery: &str) -> SomiteError {
    SomiteError::new(ErrorCode::RunFailed, message, recovery)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_maps_to_its_documented_code() {
        let cases = [
            (RunnerError::InvalidIdempotencyKey, "invalid_request"),
            (RunnerError::IdempotencyConflict, "idempotency_conflict"),
            (
                RunnerError::InvalidRevision {
                    revision: "x".into(),
                },
                "invalid_request",
            ),
            (RunnerError::ToolchainMissing, "toolchain_missing"),
            (
                RunnerError::FixtureUnsupported {
                    roots: vec![UnsupportedRoot {
                        node_id: "db".into(),
                        port: "db".into(),
                        port_type: "Directory".into(),
                    }],
                },
                "representative_fixture_unsupported",
            ),
            (
                RunnerError::RunNotFound {
                    run_id: "run-x".into(),
                },
                "not_found",
            ),
            (
                RunnerError::ProofUnknownOperator {
                    operator_id: "x".into(),
                },
                "unknown_operator",
            ),
            (
                RunnerError::ProofNotRunnable {
                    operator_id: "qc.busco".into(),
                    reason: "a download".into(),
                },
                "toolchain_missing",
            ),
            (
                RunnerError::ProofPrerequisite {
                    operator_id: "align.bwa".into(),
                    prerequisite: "align.bwa_index.index".into(),
                },
                "run_failed",
            ),
            (
                RunnerError::ProofFixture {
                    fixture: "kraken2_db".into(),
                    detail: "no kraken2-build".into(),
                },
                "toolchain_missing",
            ),
        ];
        for (error, code) in cases {
            let envelope = SomiteError::from(error);
            assert_eq!(envelope.code.as_str(), code);
            assert!(!envelope.recovery.is_empty());
        }
    }
}
