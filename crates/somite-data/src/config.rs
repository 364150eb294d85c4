//! Where the providers are, how fast Somite may ask them, and how much it
//! accepts from them.
//!
//! [`DataConfig::from_env`] is the production configuration; tests build
//! one with [`DataConfig::new`] pointed at loopback stand-ins, a temporary
//! cache folder and a replaceable clock.

use crate::error::{DataError, Result};
use somite_api::EnvVars;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// NCBI Datasets v2 REST API (the `ncbi/datasets` OpenAPI file's server).
pub const DEFAULT_NCBI_DATASETS_URL: &str = "https://api.ncbi.nlm.nih.gov/datasets/v2";
/// NCBI E-utilities ("A General Introduction to the E-utilities").
pub const DEFAULT_NCBI_EUTILS_URL: &str = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils";
/// Ensembl REST (rest.ensembl.org, "Ensembl REST API Endpoints").
pub const DEFAULT_ENSEMBL_REST_URL: &str = "https://rest.ensembl.org";
/// Ensembl's release files, the FTP site served over HTTPS.
pub const DEFAULT_ENSEMBL_FTP_URL: &str = "https://ftp.ensembl.org/pub";

/// Bounds on what a provider may send and how long it may take.
pub mod limits {
    use std::time::Duration;

    /// NCBI's published limit without an API key ("E-utilities usage
    /// guidelines": three requests per second; the Datasets API states the
    /// same).
    pub const NCBI_PER_SECOND: u32 = 3;
    /// NCBI's limit with an API key.
    pub const NCBI_PER_SECOND_WITH_KEY: u32 = 10;
    /// Ensembl REST's published limit (15 requests per second).
    pub const ENSEMBL_PER_SECOND: u32 = 15;
    /// A `Retry-After` up to this long is waited out once; a longer one is
    /// reported as `rate_limited`.
    pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(2);
    /// One JSON answer. Ensembl's `/info/species` (every vertebrate) is
    /// under 1 MiB today.
    pub const MAX_ANSWER_BYTES: u64 = 4 * 1024 * 1024;
    /// Establishing a connection.
    pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
    /// One request, start to end of body.
    pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
    /// How long an answer is served from the cache without asking again.
    pub const CACHE_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);
    /// Results per page.
    pub const MAX_LIMIT: u32 = 50;
    pub const DEFAULT_LIMIT: u32 = 10;
    /// Characters of a query.
    pub const MAX_QUERY_CHARS: usize = 200;
}

/// The wall clock, replaceable so a test can age the cache without waiting.
#[derive(Clone)]
pub struct Clock(Arc<dyn Fn() -> SystemTime + Send + Sync>);

impl Clock {
    pub fn system() -> Clock {
        Clock(Arc::new(SystemTime::now))
    }

    pub fn from_fn(now: impl Fn() -> SystemTime + Send + Sync + 'static) -> Clock {
        Clock(Arc::new(now))
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

/// The user's NCBI API key. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Option<ApiKey> {
        let key = key.into();
        (!key.trim().is_empty()).then(|| ApiKey(key.trim().to_owned()))
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(…)")
    }
}

#[derive(Debug, Clone)]
pub struct DataConfig {
    /// Base URLs, without a trailing slash.
    pub ncbi_datasets_url: String,
    pub ncbi_eutils_url: String,
    pub ensembl_rest_url: String,
    pub ensembl_ftp_url: String,
    pub ncbi_api_key: Option<ApiKey>,
    /// The answer cache's folder.
    pub cache_dir: PathBuf,
    pub max_answer_bytes: u64,
    pub request_timeout: Duration,
    pub cache_max_age: Duration,
    pub clock: Clock,
}

impl DataConfig {
    /// The real providers, no key, default bounds, the given cache folder.
    pub fn new(cache_dir: impl Into<PathBuf>) -> DataConfig {
        DataConfig {
            ncbi_datasets_url: DEFAULT_NCBI_DATASETS_URL.to_owned(),
            ncbi_eutils_url: DEFAULT_NCBI_EUTILS_URL.to_owned(),
            ensembl_rest_url: DEFAULT_ENSEMBL_REST_URL.to_owned(),
            ensembl_ftp_url: DEFAULT_ENSEMBL_FTP_URL.to_owned(),
            ncbi_api_key: None,
            cache_dir: cache_dir.into(),
            max_answer_bytes: limits::MAX_ANSWER_BYTES,
            request_timeout: limits::REQUEST_TIMEOUT,
            cache_max_age: limits::CACHE_MAX_AGE,
            clock: Clock::system(),
        }
    }

    /// The configuration the environment describes; answers are cached in
    /// `data/` of Somite's user cache folder.
    pub fn from_env() -> Result<DataConfig> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let cache = somite_source::config::default_cache_dir(&var)
            .map_err(|e| DataError::query("cache", format!("no user cache folder: {e}")))?;
        let mut config = DataConfig::new(cache.join("data"));
        for (name, slot) in [
            (
                EnvVars::SOMITE_NCBI_DATASETS_URL,
                &mut config.ncbi_datasets_url,
            ),
            (EnvVars::SOMITE_NCBI_EUTILS_URL, &mut config.ncbi_eutils_url),
            (
                EnvVars::SOMITE_ENSEMBL_REST_URL,
                &mut config.ensembl_rest_url,
            ),
            (EnvVars::SOMITE_ENSEMBL_FTP_URL, &mut config.ensembl_ftp_url),
        ] {
            if let Some(url) = var(name) {
                *slot = checked_url(name, &url)?;
            }
        }
        config.ncbi_api_key = var(EnvVars::NCBI_API_KEY).and_then(ApiKey::new);
        Ok(config)
    }

    /// Requests per second NCBI allows this configuration.
    pub fn ncbi_per_second(&self) -> u32 {
        if self.ncbi_api_key.is_some() {
            limits::NCBI_PER_SECOND_WITH_KEY
        } else {
            limits::NCBI_PER_SECOND
        }
    }
}

fn checked_url(name: &'static str, url: &str) -> Result<String> {
    let url = url.trim_end_matches('/');
    match reqwest::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.has_host() => {
            Ok(url.to_owned())
        }
        _ => Err(DataError::query(
            name,
            format!("{name} must be an http(s) URL, not `{url}`"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_key_never_prints() {
        let key = ApiKey::new("secret-key-123").unwrap();
        assert!(!format!("{key:?}").contains("secret"));
        assert!(ApiKey::new("  ").is_none());
    }

    #[test]
    fn a_key_raises_ncbis_limit() {
        let mut config = DataConfig::new("/tmp/x");
        assert_eq!(config.ncbi_per_second(), 3);
        config.ncbi_api_key = ApiKey::new("k");
        assert_eq!(config.ncbi_per_second(), 10);
    }

    #[test]
    fn base_urls_must_be_http() {
        assert!(checked_url("X", "ftp://example.org").is_err());
        assert_eq!(
            checked_url("X", "http://127.0.0.1:9/a/").unwrap(),
            "http://127.0.0.1:9/a"
        );
    }
}
