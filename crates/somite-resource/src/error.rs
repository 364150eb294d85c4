//! Failures of managed resources, and their envelope codes.

use serde_json::json;
use somite_api::{DomainCode, Error, ResourceCode, SourceCode};

/// What went wrong with a provider, an install or a reference.
#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    #[error("no reviewed provider `{0}`")]
    UnknownProvider(String),
    #[error("provider file {origin} is invalid: {detail}")]
    InvalidProvider { origin: String, detail: String },
    #[error("provider `{provider}` cannot be installed: {reason}")]
    Unverified { provider: String, reason: String },
    #[error("the consent does not match provider `{provider}`: {detail}")]
    ConsentMismatch { provider: String, detail: String },
    #[error("not enough free disk: {needed} bytes needed, {free} free")]
    InsufficientDisk { needed: u64, free: u64 },
    #[error("an install of `{0}` is already running")]
    JobRunning(String),
    #[error("no install job of `{0}`")]
    NoJob(String),
    #[error("the archive's {algorithm} is {actual}, the publisher lists {expected}")]
    ChecksumMismatch {
        algorithm: &'static str,
        expected: String,
        actual: String,
    },
    #[error("{detail}")]
    Structure {
        detail: String,
        missing: Vec<String>,
    },
    #[error("the download failed: {0}")]
    Download(String),
    #[error("unsafe archive entry `{entry}`: {detail}")]
    UnsafeArchive { entry: String, detail: String },
    #[error("`{reference}` is not an installed resource: {detail}")]
    Reference { reference: String, detail: String },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the install was cancelled")]
    Cancelled,
}

impl ResourceError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> ResourceError {
        ResourceError::Io {
            context: context.into(),
            source,
        }
    }
}

impl From<ResourceError> for Error {
    fn from(error: ResourceError) -> Error {
        let message = error.to_string();
        match error {
            ResourceError::UnknownProvider(id) => Error::new(
                ResourceCode::ResourceNotFound,
                message,
                "list the providers (`somite resource list`) and use one of their ids",
            )
            .with_details(json!({"provider_id": id})),
            ResourceError::InvalidProvider { origin, .. } => Error::new(
                DomainCode::InvalidContract,
                message,
                "fix the provider file; every field is checked strictly",
            )
            .with_details(json!({"origin": origin})),
            ResourceError::Unverified { provider, reason } => Error::new(
                ResourceCode::ResourceUnverified,
                message,
                "use a Kraken 2 database already on this machine, or wait for a reviewed provider whose checksum can be cited",
            )
            .with_details(json!({"provider_id": provider, "reason": reason})),
            ResourceError::ConsentMismatch { provider, .. } => Error::new(
                ResourceCode::ConsentMismatch,
                message,
                "inspect the provider again and ask the user to consent to the sizes and effect it shows now",
            )
            .with_details(json!({"provider_id": provider})),
            ResourceError::InsufficientDisk { needed, free } => Error::new(
                ResourceCode::InsufficientDisk,
                message,
                "free disk space where the store lives, or point SOMITE_RESOURCE_DIR at a larger disk",
            )
            .with_details(json!({"needed_bytes": needed, "free_bytes": free})),
            ResourceError::JobRunning(id) => Error::new(
                ResourceCode::ResourceJobRunning,
                message,
                "follow the running install with inspect, or cancel it first",
            )
            .with_details(json!({"provider_id": id})),
            ResourceError::NoJob(id) => Error::new(
                ResourceCode::ResourceNotFound,
                message,
                "inspect the provider: nothing is being installed",
            )
            .with_details(json!({"provider_id": id})),
            ResourceError::ChecksumMismatch {
                expected, actual, ..
            } => Error::new(
                ResourceCode::ChecksumMismatch,
                message,
                "nothing was published and the download was removed; retry later, and report the provider if it persists",
            )
            .with_details(json!({"expected": expected, "actual": actual})),
            ResourceError::Structure { missing, .. } => Error::new(
                ResourceCode::ResourceStructureInvalid,
                message,
                "choose a folder holding the profile's files (for Kraken 2: hash.k2d, opts.k2d, taxo.k2d)",
            )
            .with_details(json!({"missing": missing})),
            ResourceError::Download(_) => Error::new(
                ResourceCode::DownloadFailed,
                message,
                "check the network and install again: the partial download is kept and resumed",
            ),
            ResourceError::UnsafeArchive { entry, .. } => Error::new(
                SourceCode::UnsafeArchive,
                message,
                "nothing was published; report the provider: its archive is not safe to unpack",
            )
            .with_details(json!({"entry": entry})),
            ResourceError::Reference { reference, .. } => Error::new(
                ResourceCode::ResourceReferenceInvalid,
                message,
                "install the resource, or bind the input to a folder on this machine",
            )
            .with_details(json!({"reference": reference})),
            ResourceError::Io { .. } => Error::new(
                DomainCode::Io,
                message,
                "check the store folder's permissions and free space, then retry",
            ),
            ResourceError::Cancelled => Error::new(
                somite_api::LinkCode::Cancelled,
                message,
                "install again to resume (when the partial download was kept) or to start over",
            ),
        }
    }
}
