//! Where the providers and the store are, and how much Somite accepts from
//! them.
//!
//! [`env`] names every environment variable this crate reads, in one place;
//! [`limits`] every bound. [`SourceConfig::from_env`] is the production
//! configuration; tests build a [`SourceConfig`] with
//! [`SourceConfig::new`] and point it at loopback stand-ins, a temporary
//! cache folder, short timeouts and a fixed [`Clock`].

use crate::error::{Result, SourceError};
use somite_api::EnvVars;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// The catalog `nf-core pipelines list` reads (nf-core/tools, `list.py`).
pub const DEFAULT_NFCORE_PIPELINES_URL: &str = "https://nf-co.re/pipelines.json";
/// GitHub's REST API.
pub const DEFAULT_GITHUB_API_URL: &str = "https://api.github.com";

/// Bounds on what a provider may send and how long it may take.
pub mod limits {
    use std::time::Duration;

    /// The compressed tarball. nf-core's largest pipelines are a few MiB.
    pub const MAX_ARCHIVE_BYTES: u64 = 128 * 1024 * 1024;
    /// Entries in one tarball (files, folders, links, headers). nf-core/rnaseq
    /// has under 1,000; a repository with more than this is not a pipeline
    /// source Somite should copy into every package.
    pub const MAX_ARCHIVE_ENTRIES: u64 = 20_000;
    /// The unpacked tree, so a small archive cannot expand without bound.
    pub const MAX_UNPACKED_BYTES: u64 = 512 * 1024 * 1024;
    /// The nf-core catalog document (about 1 MiB today).
    pub const MAX_CATALOG_BYTES: u64 = 16 * 1024 * 1024;
    /// A GitHub API JSON answer (a commit with a large diff can reach a few MiB).
    pub const MAX_API_BYTES: u64 = 8 * 1024 * 1024;

    /// Establishing a connection.
    pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
    /// A catalog or API request, start to end of body.
    pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
    /// A tarball download, start to end of body.
    pub const DOWNLOAD_TIMEOUT: Duration = Duration::from_secs(300);
    /// How long a fetched catalog is used without asking again.
    pub const CATALOG_MAX_AGE: Duration = Duration::from_secs(60 * 60);
}

/// The wall clock, replaceable so a test can age the catalog cache without
/// waiting.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> SystemTime + Send + Sync>);

impl Clock {
    pub fn system() -> Clock {
        Clock(Arc::new(SystemTime::now))
    }

    /// A clock that always reads `at`.
    pub fn fixed(at: SystemTime) -> Clock {
        Clock(Arc::new(move || at))
    }

    pub fn now(&self) -> SystemTime {
        (self.0)()
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Clock")
    }
}

/// A GitHub token. Its `Debug` never shows the value, so a logged
/// configuration cannot leak it.
#[derive(Clone)]
pub struct GithubToken(String);

impl GithubToken {
    /// `None` for an empty value: an empty variable means "no token".
    pub fn new(value: impl Into<String>) -> Option<GithubToken> {
        let value = value.into();
        (!value.trim().is_empty()).then_some(GithubToken(value))
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for GithubToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("GithubToken(<redacted>)")
    }
}

/// Timeouts for one client.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub connect: Duration,
    pub request: Duration,
    pub download: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: limits::CONNECT_TIMEOUT,
            request: limits::REQUEST_TIMEOUT,
            download: limits::DOWNLOAD_TIMEOUT,
        }
    }
}

/// Size bounds for one store.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_archive_bytes: u64,
    pub max_archive_entries: u64,
    pub max_unpacked_bytes: u64,
    pub max_catalog_bytes: u64,
    pub max_api_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_archive_bytes: limits::MAX_ARCHIVE_BYTES,
            max_archive_entries: limits::MAX_ARCHIVE_ENTRIES,
            max_unpacked_bytes: limits::MAX_UNPACKED_BYTES,
            max_catalog_bytes: limits::MAX_CATALOG_BYTES,
            max_api_bytes: limits::MAX_API_BYTES,
        }
    }
}

/// Everything a [`SourceStore`](crate::SourceStore) needs to know.
#[derive(Debug, Clone)]
pub struct SourceConfig {
    pub nfcore_pipelines_url: String,
    /// Without a trailing slash.
    pub github_api_url: String,
    pub github_token: Option<GithubToken>,
    /// Somite's user cache folder (`…/somite`); the store keeps `sources/`
    /// and `nf-core/` inside it.
    pub cache_dir: PathBuf,
    pub timeouts: Timeouts,
    pub limits: Limits,
    pub catalog_max_age: Duration,
    pub clock: Clock,
}

impl SourceConfig {
    /// The real providers, no token, default bounds, the given cache folder.
    pub fn new(cache_dir: impl Into<PathBuf>) -> SourceConfig {
        SourceConfig {
            nfcore_pipelines_url: DEFAULT_NFCORE_PIPELINES_URL.to_owned(),
            github_api_url: DEFAULT_GITHUB_API_URL.to_owned(),
            github_token: None,
            cache_dir: cache_dir.into(),
            timeouts: Timeouts::default(),
            limits: Limits::default(),
            catalog_max_age: limits::CATALOG_MAX_AGE,
            clock: Clock::system(),
        }
    }

    /// The configuration the environment describes (see [`env`]).
    pub fn from_env() -> Result<SourceConfig> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let mut config = SourceConfig::new(default_cache_dir(&var)?);
        if let Some(url) = var(EnvVars::SOMITE_NFCORE_PIPELINES_URL) {
            config.nfcore_pipelines_url = checked_url(EnvVars::SOMITE_NFCORE_PIPELINES_URL, url)?;
        }
        if let Some(url) = var(EnvVars::SOMITE_GITHUB_API_URL) {
            config.github_api_url = checked_url(EnvVars::SOMITE_GITHUB_API_URL, url)?;
        }
        config.github_token = var(EnvVars::GITHUB_TOKEN).and_then(GithubToken::new);
        Ok(config)
    }
}

fn checked_url(name: &str, url: String) -> Result<String> {
    let url = url.trim_end_matches('/').to_owned();
    match reqwest::Url::parse(&url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.has_host() => Ok(url),
        _ => Err(SourceError::InvalidRequest {
            detail: format!("{name} must be an http(s) URL, not `{url}`"),
        }),
    }
}

/// `$XDG_CACHE_HOME/somite` when absolute, else `~/Library/Caches/Somite`
/// on macOS and `~/.cache/somite` elsewhere (as the MCP documentation cache).
pub fn default_cache_dir(var: &dyn Fn(&str) -> Option<String>) -> Result<PathBuf> {
    if let Some(xdg) = var(EnvVars::XDG_CACHE_HOME).map(PathBuf::from)
        && xdg.is_absolute()
    {
        return Ok(xdg.join("somite"));
    }
    let home = var(EnvVars::HOME)
        .map(PathBuf::from)
        .ok_or(SourceError::NoCacheDir)?;
    Ok(if cfg!(target_os = "macos") {
        home.join("Library/Caches/Somite")
    } else {
        home.join(".cache/somite")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_never_shows_in_debug_output() {
        let mut config = SourceConfig::new("/tmp/c");
        config.github_token = GithubToken::new("ghp_secret_value");
        assert!(!format!("{config:?}").contains("ghp_secret_value"));
        assert!(GithubToken::new("  ").is_none());
    }

    #[test]
    fn the_cache_folder_follows_xdg_then_home() {
        let xdg = |name: &str| match name {
            "XDG_CACHE_HOME" => Some("/x/cache".to_owned()),
            "HOME" => Some("/home/ada".to_owned()),
            _ => None,
        };
        assert_eq!(
            default_cache_dir(&xdg).unwrap(),
            PathBuf::from("/x/cache/somite")
        );
        let relative_xdg = |name: &str| match name {
            "XDG_CACHE_HOME" => Some("cache".to_owned()),
            "HOME" => Some("/home/ada".to_owned()),
            _ => None,
        };
        assert!(
            default_cache_dir(&relative_xdg)
                .unwrap()
                .starts_with("/home/ada")
        );
        assert!(matches!(
            default_cache_dir(&|_: &str| None),
            Err(SourceError::NoCacheDir)
        ));
    }

    #[test]
    fn base_urls_must_be_http() {
        assert_eq!(
            checked_url("X", "http://127.0.0.1:9/".into()).unwrap(),
            "http://127.0.0.1:9"
        );
        assert!(checked_url("X", "file:///etc/passwd".into()).is_err());
        assert!(checked_url("X", "not a url".into()).is_err());
    }
}
