//! A child's whole environment, built from an allowlist.
//!
//! Somite's own environment holds the MCP capability, cloud credentials and
//! tool overrides such as `PIXI_TLS_NO_VERIFY`; a child sees none of it
//! unless a caller names it. The lists here are the names every caller
//! shares; each caller adds its tool's own (Pixi's caches, Nextflow's home)
//! where it knows the tool.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// Executable lookup, home and XDG folders, temporary folders, locale and
/// certificate bundles: what any program needs to start and find its files.
pub const BASE: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TZ",
    "TMPDIR",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_RUNTIME_DIR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// The proxy settings a download (a conda package, a Nextflow plugin) may
/// need, in both spellings programs read.
pub const PROXY: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
];

/// The complete environment of a child: nothing else reaches it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    vars: BTreeMap<OsString, OsString>,
}

impl Environment {
    /// Somite's own values of the `allowlist` names (absent ones are skipped).
    pub fn inherit(allowlist: &[&str]) -> Self {
        Self::default().and_inherit(allowlist)
    }

    /// Adds Somite's own values of more allowlisted names.
    #[must_use]
    pub fn and_inherit(mut self, allowlist: &[&str]) -> Self {
        self.vars.extend(
            allowlist
                .iter()
                .filter_map(|name| std::env::var_os(name).map(|value| (name.into(), value))),
        );
        self
    }

    /// Sets one variable, replacing an inherited value.
    #[must_use]
    pub fn with(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.vars.insert(name.into(), value.into());
        self
    }

    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.vars.get(OsStr::new(name)).map(OsString::as_os_str)
    }

    pub fn names(&self) -> impl Iterator<Item = &OsStr> {
        self.vars.keys().map(OsString::as_os_str)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&OsStr, &OsStr)> {
        self.vars
            .iter()
            .map(|(name, value)| (name.as_os_str(), value.as_os_str()))
    }
}

impl<K: Into<OsString>, V: Into<OsString>> FromIterator<(K, V)> for Environment {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(vars: I) -> Self {
        Self {
            vars: vars
                .into_iter()
                .map(|(name, value)| (name.into(), value.into()))
                .collect(),
        }
    }
}
