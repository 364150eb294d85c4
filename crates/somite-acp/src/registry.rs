//! The ACP Registry: its format, and where Somite reads it from.
//!
//! The registry is the curated list of ACP agents with pinned package
//! versions and arguments. Somite reads it through a [`RegistrySource`] and
//! falls back to the snapshot bundled into this crate
//! (`registry/registry-snapshot.json`) whenever the source fails, so the Agent
//! panel still lists agents offline.
//!
//! The live registry lives at [`LIVE_REGISTRY_URL`]. This crate ships no HTTP
//! client: the server fetches it (`somite_server::registry_fetch`) and hands
//! the document in as a [`RegistrySource`]; tests read a [`RegistryFile`].
//!
//! The format follows `registry.schema.json` and `agent.schema.json`; unknown
//! fields are ignored so a newer registry still parses. Registry `env` is an
//! object map (ACP's own `env` is an array of `{name, value}`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Where the public ACP registry is published.
pub const LIVE_REGISTRY_URL: &str =
    "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json";

/// The snapshot bundled into this crate.
const BUNDLED_SNAPSHOT: &str = include_str!("../registry/registry-snapshot.json");

/// How messages name the bundled snapshot.
const BUNDLED_SNAPSHOT_NAME: &str = "the bundled registry snapshot";

/// The whole registry document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Registry {
    /// The registry schema version.
    pub version: String,
    /// The registered agents, in the registry's order.
    pub agents: Vec<RegistryAgent>,
    /// Registered extensions (not agents; Somite does not launch them).
    #[serde(default)]
    pub extensions: Vec<RegistryAgent>,
}

/// One registered agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryAgent {
    /// The agent's id (`^[a-z][a-z0-9-]*$`).
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The pinned version.
    pub version: String,
    /// A short description.
    pub description: String,
    /// Its source repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// Its website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    /// Its authors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
    /// Its SPDX license, or `proprietary`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Its icon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// How to obtain and run it.
    pub distribution: Distribution,
}

/// The ways an agent is distributed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Distribution {
    /// Platform-specific archives, keyed by `<os>-<arch>` (`linux-x86_64`, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub binary: BTreeMap<String, BinaryTarget>,
    /// An npm package run with `npx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub npx: Option<PackageDistribution>,
    /// A PyPI package run with `uvx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uvx: Option<PackageDistribution>,
}

/// One platform's archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinaryTarget {
    /// Where the archive is downloaded from.
    pub archive: String,
    /// The executable inside the archive (`./opencode`).
    pub cmd: String,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// The archive's SHA-256, when published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// An npm or PyPI package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PackageDistribution {
    /// The package, normally with its pinned version (`@scope/name@1.2.3`).
    pub package: String,
    /// The executable the package installs, when the registry declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmd: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

/// Why a registry could not be read.
#[derive(Debug, Error)]
pub enum RegistryError {
    /// The source could not be read.
    #[error("could not read the ACP registry from {source_name}: {error}")]
    Unreadable {
        /// The source that failed.
        source_name: String,
        /// What went wrong.
        error: std::io::Error,
    },
    /// The document is not a registry.
    #[error("the ACP registry from {source_name} is not valid: {error}")]
    Invalid {
        /// The source that failed.
        source_name: String,
        /// What went wrong.
        error: serde_json::Error,
    },
}

impl Registry {
    /// Parses a registry document.
    ///
    /// # Errors
    /// [`RegistryError::Invalid`] when the text is not a registry.
    pub fn parse(text: &str, source_name: &str) -> Result<Self, RegistryError> {
        serde_json::from_str(text).map_err(|error| RegistryError::Invalid {
            source_name: source_name.to_owned(),
            error,
        })
    }

    /// The snapshot bundled into this crate.
    #[must_use]
    pub fn bundled() -> Self {
        Self::parse(BUNDLED_SNAPSHOT, BUNDLED_SNAPSHOT_NAME)
            .expect("the bundled registry snapshot is valid (tested)")
    }
}

/// Somewhere a registry can be read from.
pub trait RegistrySource: Send + Sync {
    /// A name for messages ("the bundled snapshot", a path, a URL).
    fn name(&self) -> String;

    /// Reads the registry. A network source bounds its own time.
    ///
    /// # Errors
    /// A [`RegistryError`] when the registry cannot be read or parsed.
    fn load(&self) -> Result<Registry, RegistryError>;
}

/// The snapshot bundled into this crate.
#[derive(Debug, Clone, Copy, Default)]
pub struct BundledSnapshot;

impl RegistrySource for BundledSnapshot {
    fn name(&self) -> String {
        BUNDLED_SNAPSHOT_NAME.to_owned()
    }

    fn load(&self) -> Result<Registry, RegistryError> {
        Ok(Registry::bundled())
    }
}

/// A registry document on disk.
#[derive(Debug, Clone)]
pub struct RegistryFile(pub PathBuf);

impl RegistrySource for RegistryFile {
    fn name(&self) -> String {
        self.0.display().to_string()
    }

    fn load(&self) -> Result<Registry, RegistryError> {
        let text = std::fs::read_to_string(&self.0).map_err(|error| RegistryError::Unreadable {
            source_name: self.name(),
            error,
        })?;
        Registry::parse(&text, &self.name())
    }
}

/// A registry together with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedRegistry {
    /// The registry.
    pub registry: Registry,
    /// Where it came from.
    pub origin: RegistryOrigin,
}

/// Where a loaded registry came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RegistryOrigin {
    /// The requested source.
    Source {
        /// The source's name.
        name: String,
    },
    /// The bundled snapshot, because the requested source failed.
    BundledFallback {
        /// Why the requested source failed.
        reason: String,
    },
}

/// Reads the registry from `source`, falling back to the bundled snapshot
/// when it fails.
#[must_use]
pub fn load_registry(source: &dyn RegistrySource) -> LoadedRegistry {
    match source.load() {
        Ok(registry) => LoadedRegistry {
            registry,
            origin: RegistryOrigin::Source {
                name: source.name(),
            },
        },
        Err(error) => {
            tracing::info!(%error, "using the bundled ACP registry snapshot");
            LoadedRegistry {
                registry: Registry::bundled(),
                origin: RegistryOrigin::BundledFallback {
                    reason: error.to_string(),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_snapshot_parses() {
        let registry = Registry::bundled();
        assert_eq!(registry.version, "1.0.0");
        assert!(registry.agents.iter().any(|agent| agent.id == "codex-acp"));
    }

    #[test]
    fn unknown_fields_are_ignored_and_env_is_an_object_map() {
        let registry = Registry::parse(
            r#"{"version":"1.0.0","future":1,"agents":[{"id":"a","name":"A","version":"1.0.0",
                "description":"d","newField":true,"distribution":{"npx":{"package":"a@1.0.0",
                "cmd":"a","args":["--acp"],"env":{"A_NO_UPDATE":"1"}}}}]}"#,
            "test",
        )
        .expect("valid");
        let npx = registry.agents[0].distribution.npx.as_ref().expect("npx");
        assert_eq!(npx.cmd.as_deref(), Some("a"));
        assert_eq!(npx.env["A_NO_UPDATE"], "1");
        assert!(registry.extensions.is_empty());
    }

    struct Unreachable;

    impl RegistrySource for Unreachable {
        fn name(&self) -> String {
            LIVE_REGISTRY_URL.to_owned()
        }

        fn load(&self) -> Result<Registry, RegistryError> {
            Err(RegistryError::Unreadable {
                source_name: self.name(),
                error: std::io::Error::new(std::io::ErrorKind::NotConnected, "offline"),
            })
        }
    }

    #[test]
    fn a_failing_source_falls_back_to_the_bundled_snapshot() {
        let loaded = load_registry(&Unreachable);
        assert_eq!(loaded.registry, Registry::bundled());
        let RegistryOrigin::BundledFallback { reason } = loaded.origin else {
            panic!("expected the fallback");
        };
        assert!(reason.contains("offline"), "{reason}");
    }

    #[test]
    fn an_invalid_file_falls_back_too() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("registry.json");
        std::fs::write(&path, "{not json").expect("write");
        let loaded = load_registry(&RegistryFile(path));
        assert!(matches!(
            loaded.origin,
            RegistryOrigin::BundledFallback { .. }
        ));
    }
}
