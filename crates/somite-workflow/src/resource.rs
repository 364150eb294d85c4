//! Managed resources bound to a graph: `somite-resource:<provider>@<release>`.
//!
//! A reference input (`files.import_kraken2_database`) may name an
//! installed managed resource instead of a folder. The domain never looks
//! at the store: the caller resolves each reference and passes in what it
//! found ([`ResourceFinding`]) — cheaply for readiness (the record and the
//! files' sizes), by re-hashing the tree for a compile or a run — and the
//! assessment, the compiler and the run closure work from those facts. A
//! compiled package names the resolved, verified folder in `params.json`
//! (the database is used where it is, never copied) and records the
//! resource's identity in `run-closure.json`, so evidence says which
//! database a result was produced with.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The prefix of a reference to an installed resource.
pub const REFERENCE_SCHEME: &str = "somite-resource:";

/// Whether an import value is a managed-resource reference (well formed or
/// not: a malformed one is reported, never staged as a path).
pub fn is_reference(value: &str) -> bool {
    value.starts_with(REFERENCE_SCHEME)
}

/// An installed resource whose files matched its record when it was resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ResolvedResource {
    /// `somite-resource:<provider>@<release>`.
    pub reference: String,
    pub provider_id: String,
    pub release: String,
    /// The resource profile, e.g. `kraken2-database`.
    pub profile: String,
    /// The installed folder.
    pub path: String,
    /// The archive's checksum as its publisher lists it, `<algorithm>:<hex>`.
    pub checksum: String,
    /// `blake3:<hex>` of the installed tree.
    pub tree_digest: String,
}

/// What resolving one reference found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceFinding {
    /// Installed, and its files match its record.
    Verified(ResolvedResource),
    /// Malformed, not installed, or no store to look in.
    Missing {
        /// The envelope code the resolver reports (`resource_reference_invalid`).
        code: String,
        detail: String,
    },
    /// Installed, but its files no longer match what was installed.
    Tampered { code: String, detail: String },
}

/// How much a resolution checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verification {
    /// The record and every file's size (readiness, listings).
    Sizes,
    /// Every byte against the tree digest (compile, run).
    Digest,
}

/// Resolves references against a store; implemented where the store is.
pub trait ResourceResolver: Send + Sync + std::fmt::Debug {
    fn resolve(&self, reference: &str, verification: Verification) -> ResourceFinding;
}

/// The resources a compile binds, by reference; each one verified.
pub type BoundResources = BTreeMap<String, ResolvedResource>;
