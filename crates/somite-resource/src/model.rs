//! The wire shapes of managed resources (`docs/resources.md`): what the
//! routes, the MCP tool, the CLI and the activity feed carry.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The prefix of a reference to an installed resource:
/// `somite-resource:<provider>@<release>` (owned by the domain, which
/// resolves references in readiness and compile).
pub use somite_workflow::resource::REFERENCE_SCHEME;

/// A checksum exactly as its publisher lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Checksum {
    pub algorithm: ChecksumAlgorithm,
    /// Lower-case hexadecimal.
    pub value: String,
}

/// The digest algorithms Somite verifies while streaming.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChecksumAlgorithm {
    Sha256,
}

impl ChecksumAlgorithm {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ChecksumAlgorithm::Sha256 => "sha256",
        }
    }
}

/// One reviewed provider, as the surfaces show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProviderView {
    pub id: String,
    pub profile: String,
    pub title: String,
    pub release: String,
    pub url: String,
    pub checksum: Option<Checksum>,
    pub download_bytes: Option<u64>,
    pub stored_bytes: Option<u64>,
    pub memory_bytes: Option<u64>,
    pub scientific_effect: String,
    /// `blake3:<hex>` of the effect text's UTF-8 bytes: what a consent repeats.
    pub effect_digest: String,
    pub recommended: bool,
    pub licence: String,
    pub citation: String,
    pub source: String,
    pub test_only: bool,
    pub installable: bool,
    /// Why the provider refuses to install (`None` when installable).
    pub unverified_reason: Option<String>,
}

/// The user's consent to one install: the exact figures they were shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Consent {
    pub download_bytes: u64,
    pub stored_bytes: u64,
    pub effect_digest: String,
}

/// A resource published in the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InstalledResource {
    pub provider_id: String,
    pub release: String,
    pub profile: String,
    /// `somite-resource:<provider>@<release>`.
    pub reference: String,
    pub path: String,
    /// The archive's checksum, verified while it was downloaded.
    pub checksum: Checksum,
    /// `blake3:<hex>` of the published tree.
    pub tree_digest: String,
    pub stored_bytes: u64,
    pub installed_at: String,
    /// Whether the tree still matches its record: on a listing or inspect,
    /// every file is there with its recorded size (cheap); when resolved
    /// for a compile or run, every byte is re-hashed against `tree_digest`.
    pub verified: bool,
}

/// Where an install job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Queued,
    Downloading,
    Verifying,
    Extracting,
    Publishing,
    Installed,
    Failed,
    Cancelled,
}

impl JobState {
    /// Whether the job has stopped for good.
    pub fn is_finished(self) -> bool {
        matches!(
            self,
            JobState::Installed | JobState::Failed | JobState::Cancelled
        )
    }
}

/// An install job's progress: the feed payload and part of `inspect`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JobStatus {
    pub provider_id: String,
    pub release: String,
    pub state: JobState,
    pub bytes_done: u64,
    pub bytes_total: Option<u64>,
    pub rate_bytes_per_sec: Option<f64>,
    pub eta_secs: Option<u64>,
    /// Bytes already on disk when this transfer began (a resumed download).
    pub resumed_from: u64,
    /// Set on cancel: whether the partial download was kept for a resume.
    pub partial_kept: Option<bool>,
    /// The failure envelope when `state` is `failed`.
    pub error: Option<somite_api::Error>,
}

/// Every provider, install and job: `GET /api/resources`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceOverview {
    pub store_dir: String,
    pub free_disk_bytes: Option<u64>,
    pub memory_bytes: Option<u64>,
    pub providers: Vec<ProviderView>,
    pub installed: Vec<InstalledResource>,
    pub jobs: Vec<JobStatus>,
}

/// One provider in detail: `GET /api/resources/{provider_id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceInspect {
    pub provider: ProviderView,
    pub installed: Option<InstalledResource>,
    pub job: Option<JobStatus>,
    /// Bytes of a kept partial download a new install resumes from.
    pub partial_bytes: u64,
}

/// One way to satisfy a resource requirement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Resolution {
    /// Bind the input to a resource already in the store.
    Installed {
        reference: String,
        provider_id: String,
        release: String,
        title: String,
        stored_bytes: u64,
        scientific_effect: String,
        memory_bytes: Option<u64>,
    },
    /// Install a reviewed provider (after consent), then bind it.
    Install {
        provider: Box<ProviderView>,
        fits_disk: Option<bool>,
        fits_memory: Option<bool>,
        /// Free disk minus the stored size (negative: it does not fit).
        disk_left_after_bytes: Option<i64>,
    },
    /// Bind a folder already on this machine (its structure is checked).
    UseExisting {
        title: String,
        required_files: Vec<String>,
    },
    /// Leave the input as an explicit, unresolved requirement.
    Requirement { title: String },
}

/// The resolutions of one profile, best first: `GET /api/resources/resolutions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Resolutions {
    pub profile: String,
    pub free_disk_bytes: Option<u64>,
    pub memory_bytes: Option<u64>,
    pub resolutions: Vec<Resolution>,
}

/// A local folder checked against a profile's structure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DirectoryCheck {
    pub path: String,
    pub ok: bool,
    pub missing: Vec<String>,
}

/// What a `somite.resource` call asks for (`somite_api::tools::resource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResourceAction {
    Install,
    Inspect,
    Cancel,
}

impl ResourceAction {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        use somite_api::tools::resource;
        match self {
            ResourceAction::Install => resource::INSTALL,
            ResourceAction::Inspect => resource::INSPECT,
            ResourceAction::Cancel => resource::CANCEL,
        }
    }
}

/// `POST /api/resources/{provider_id}/install`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InstallRequest {
    pub consent: Consent,
}

/// `POST /api/resources/{provider_id}/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelRequest {
    /// Keep the partial download so a later install resumes it.
    #[serde(default)]
    pub keep_partial: bool,
}

/// `POST /api/resources/check-directory`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DirectoryCheckRequest {
    pub profile: String,
    pub path: String,
}

/// A parsed `somite-resource:<provider>@<release>` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub provider_id: String,
    pub release: String,
}

impl Reference {
    /// Parses a reference; `None` when `text` is not one.
    pub fn parse(text: &str) -> Option<Reference> {
        let rest = text.strip_prefix(REFERENCE_SCHEME)?;
        let (provider_id, release) = rest.split_once('@')?;
        (crate::provider::valid_id(provider_id) && crate::provider::valid_release(release)).then(
            || Reference {
                provider_id: provider_id.to_owned(),
                release: release.to_owned(),
            },
        )
    }

    /// The wire form.
    pub fn render(provider_id: &str, release: &str) -> String {
        format!("{REFERENCE_SCHEME}{provider_id}@{release}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_serialize_as_their_api_names() {
        for action in [
            ResourceAction::Install,
            ResourceAction::Inspect,
            ResourceAction::Cancel,
        ] {
            assert_eq!(
                serde_json::to_value(action).unwrap(),
                serde_json::Value::from(action.as_str())
            );
        }
    }
}
