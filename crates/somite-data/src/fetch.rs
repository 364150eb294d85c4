//! The one way this crate asks a provider: a per-organisation rate limiter,
//! `Retry-After`, a timeout, a capped body, and a day-long answer cache that
//! also serves when the provider cannot.
//!
//! The NCBI API key is added to the request only (Datasets: the `api-key`
//! header; E-utilities: the `api_key` parameter, the only way it takes
//! one). The endpoint Somite records, caches under and reports is the URL
//! without it, and transport errors are rendered without their URL.

use crate::config::DataConfig;
use crate::error::{DataError, Result};
use crate::model::{DataProvider, ProviderChoice};
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::Mutex;
use tokio::time::Instant;

/// An answer, fresh or cached.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub body: Vec<u8>,
    /// The URL asked, without a key.
    pub endpoint: String,
    pub retrieved_at: SystemTime,
    pub from_cache: bool,
}

/// Spacing of request starts for one provider, and a block set by its
/// `Retry-After`.
#[derive(Debug)]
struct Limiter {
    interval: Duration,
    state: Mutex<Slots>,
}

#[derive(Debug, Default)]
struct Slots {
    next: Option<Instant>,
    blocked_until: Option<(Instant, SystemTime)>,
}

impl Slots {
    /// Reserves the next start at or after `now`; returns how long to wait.
    /// Pure: the schedule of a burst is `0, interval, 2·interval, …`.
    fn reserve(&mut self, now: Instant, interval: Duration) -> Duration {
        let start = self.next.map_or(now, |next| next.max(now));
        self.next = Some(start + interval);
        start - now
    }
}

impl Limiter {
    fn per_second(n: u32) -> Limiter {
        Limiter {
            interval: Duration::from_secs(1) / n.max(1),
            state: Mutex::new(Slots::default()),
        }
    }
}

pub(crate) struct Fetcher {
    client: reqwest::Client,
    config: DataConfig,
    ncbi: Limiter,
    ensembl: Limiter,
}

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    endpoint: String,
    retrieved_at_secs: u64,
    body: String,
}

impl Fetcher {
    pub(crate) fn new(config: DataConfig) -> Result<Fetcher> {
        let client = reqwest::Client::builder()
            .user_agent(concat!("somite/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(crate::config::limits::CONNECT_TIMEOUT)
            .timeout(config.request_timeout)
            // NCBI and Ensembl document no redirect to another host: one
            // within the host asked is followed, nothing else.
            .redirect(reqwest::redirect::Policy::custom(|attempt| {
                let same_host = attempt.previous().first().is_some_and(|first| {
                    first.host_str() == attempt.url().host_str()
                        && !(first.scheme() == "https" && attempt.url().scheme() != "https")
                });
                if same_host && attempt.previous().len() <= 5 {
                    attempt.follow()
                } else {
                    attempt.stop()
                }
            }))
            .build()
            .map_err(|e| DataError::Unavailable {
                provider: DataProvider::NcbiDatasets,
                detail: format!("the HTTP client could not start: {}", e.without_url()),
            })?;
        Ok(Fetcher {
            client,
            ncbi: Limiter::per_second(config.ncbi_per_second()),
            ensembl: Limiter::per_second(crate::config::limits::ENSEMBL_PER_SECOND),
            config,
        })
    }

    pub(crate) fn config(&self) -> &DataConfig {
        &self.config
    }

    fn limiter(&self, provider: DataProvider) -> &Limiter {
        match provider.choice() {
            ProviderChoice::Ncbi => &self.ncbi,
            ProviderChoice::Ensembl => &self.ensembl,
        }
    }

    /// GETs `url` (a JSON or text answer); `Ok(None)` when the provider
    /// says it has no such record (404).
    pub(crate) async fn get(
        &self,
        provider: DataProvider,
        url: reqwest::Url,
    ) -> Result<Option<Fetched>> {
        let endpoint = url.to_string();
        let now = self.config.clock.now();
        let cached = self.read_cache(&endpoint);
        if let Some(entry) = &cached
            && age(now, entry.retrieved_at) < self.config.cache_max_age
        {
            return Ok(Some(entry.clone()));
        }
        match self.ask(provider, url, &endpoint).await {
            // Cached only once its reader accepted it ([`Fetcher::keep`]):
            // a 200 of another shape must not stand in for a day.
            Ok(Some(fetched)) => Ok(Some(fetched)),
            Ok(None) => Ok(None),
            // Offline, limited or failing: an older answer, its age shown,
            // is better than none.
            Err(error @ (DataError::Unavailable { .. } | DataError::RateLimited { .. })) => {
                match cached {
                    Some(entry) => {
                        tracing::info!(provider = provider.as_str(), %error, "serving a cached answer");
                        Ok(Some(entry))
                    }
                    None => Err(error),
                }
            }
            Err(error) => Err(error),
        }
    }

    async fn ask(
        &self,
        provider: DataProvider,
        url: reqwest::Url,
        endpoint: &str,
    ) -> Result<Option<Fetched>> {
        let limiter = self.limiter(provider);
        let mut retried = false;
        loop {
            let wait = {
                let mut slots = limiter.state.lock().await;
                let now = Instant::now();
                if let Some((until, at)) = slots.blocked_until
                    && until > now
                {
                    return Err(rate_limited(provider, until - now, at));
                }
                slots.reserve(now, limiter.interval)
            };
            tokio::time::sleep(wait).await;
            let response = self
                .request(provider, url.clone())
                .send()
                .await
                .map_err(|e| transport(provider, e))?;
            let status = response.status();
            if status == StatusCode::TOO_MANY_REQUESTS
                || (status == StatusCode::SERVICE_UNAVAILABLE
                    && response.headers().contains_key(RETRY_AFTER))
            {
                let after = retry_after(response.headers(), self.config.clock.now())
                    .unwrap_or(Duration::from_secs(1));
                if !retried && after <= crate::config::limits::MAX_RETRY_WAIT {
                    retried = true;
                    tokio::time::sleep(after).await;
                    continue;
                }
                let at = self.config.clock.now() + after;
                limiter.state.lock().await.blocked_until = Some((Instant::now() + after, at));
                return Err(rate_limited(provider, after, at));
            }
            if status == StatusCode::NOT_FOUND {
                return Ok(None);
            }
            if !status.is_success() {
                return Err(DataError::Unavailable {
                    provider,
                    detail: format!("{endpoint} answered HTTP {status}"),
                });
            }
            let body = read_capped(provider, response, self.config.max_answer_bytes).await?;
            return Ok(Some(Fetched {
                body,
                endpoint: endpoint.to_owned(),
                retrieved_at: self.config.clock.now(),
                from_cache: false,
            }));
        }
    }

    fn request(&self, provider: DataProvider, mut url: reqwest::Url) -> reqwest::RequestBuilder {
        let key = self.config.ncbi_api_key.as_ref();
        match (provider, key) {
            (DataProvider::NcbiEutils, Some(key)) => {
                url.query_pairs_mut().append_pair("api_key", key.expose());
                self.client.get(url)
            }
            (DataProvider::NcbiDatasets, Some(key)) => {
                self.client.get(url).header("api-key", key.expose())
            }
            (DataProvider::EnsemblRest, _) => self
                .client
                .get(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json"),
            _ => self.client.get(url),
        }
    }

    fn cache_path(&self, endpoint: &str) -> PathBuf {
        self.config.cache_dir.join(format!(
            "{}.json",
            blake3::hash(endpoint.as_bytes()).to_hex()
        ))
    }

    fn read_cache(&self, endpoint: &str) -> Option<Fetched> {
        let bytes = std::fs::read(self.cache_path(endpoint)).ok()?;
        let entry: CacheEntry = serde_json::from_slice(&bytes).ok()?;
        (entry.endpoint == endpoint).then(|| Fetched {
            body: entry.body.into_bytes(),
            endpoint: entry.endpoint,
            retrieved_at: UNIX_EPOCH + Duration::from_secs(entry.retrieved_at_secs),
            from_cache: true,
        })
    }

    /// Keeps a fresh answer its reader parsed, for the cache's lifetime.
    pub(crate) fn keep(&self, fetched: &Fetched) {
        if !fetched.from_cache {
            self.write_cache(fetched);
        }
    }

    /// Drops a cached answer its reader refused, so the provider is asked
    /// again at once.
    pub(crate) fn forget(&self, fetched: &Fetched) {
        if fetched.from_cache {
            let _ = std::fs::remove_file(self.cache_path(&fetched.endpoint));
        }
    }

    /// Best effort: a cache that cannot be written only costs a request.
    fn write_cache(&self, fetched: &Fetched) {
        let Ok(body) = String::from_utf8(fetched.body.clone()) else {
            return;
        };
        let entry = CacheEntry {
            endpoint: fetched.endpoint.clone(),
            retrieved_at_secs: fetched
                .retrieved_at
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            body,
        };
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(&self.config.cache_dir)?;
            let mut file = tempfile::NamedTempFile::new_in(&self.config.cache_dir)?;
            serde_json::to_writer(&mut file, &entry)?;
            file.persist(self.cache_path(&entry.endpoint))?;
            Ok(())
        };
        if let Err(error) = write() {
            tracing::warn!(%error, "the data cache could not be written");
        }
    }
}

/// How old an answer is at `now`.
pub(crate) fn age(now: SystemTime, retrieved_at: SystemTime) -> Duration {
    now.duration_since(retrieved_at).unwrap_or_default()
}

fn rate_limited(provider: DataProvider, after: Duration, at: SystemTime) -> DataError {
    DataError::RateLimited {
        provider,
        retry_after_seconds: after.as_secs_f64().ceil() as u64,
        retry_at: rfc3339(at),
    }
}

pub(crate) fn rfc3339(at: SystemTime) -> String {
    // Whole seconds, as the cache keeps them.
    jiff::Timestamp::try_from(at)
        .and_then(|t| jiff::Timestamp::from_second(t.as_second()))
        .map(|t| t.to_string())
        .unwrap_or_default()
}

/// `Retry-After` as delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = jiff::fmt::rfc2822::parse(value).ok()?.timestamp();
    Some(age(SystemTime::from(at), now))
}

fn transport(provider: DataProvider, error: reqwest::Error) -> DataError {
    let detail = if error.is_timeout() {
        "it did not answer in time".to_owned()
    } else if error.is_connect() {
        "could not connect".to_owned()
    } else {
        error.without_url().to_string()
    };
    DataError::Unavailable { provider, detail }
}

async fn read_capped(
    provider: DataProvider,
    mut response: reqwest::Response,
    cap: u64,
) -> Result<Vec<u8>> {
    let too_large = || DataError::Unavailable {
        provider,
        detail: format!("the answer is larger than the {cap} bytes Somite accepts"),
    };
    if response.content_length().is_some_and(|n| n > cap) {
        return Err(too_large());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| transport(provider, e))? {
        if body.len() as u64 + chunk.len() as u64 > cap {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn a_burst_is_spaced_by_the_interval() {
        let mut slots = Slots::default();
        let now = Instant::now();
        let interval = Duration::from_secs(1) / 3;
        let waits: Vec<_> = (0..4).map(|_| slots.reserve(now, interval)).collect();
        assert_eq!(
            waits,
            [Duration::ZERO, interval, interval * 2, interval * 3]
        );
        // Once the schedule has passed, a request starts at once.
        let later = now + Duration::from_secs(5);
        assert_eq!(slots.reserve(later, interval), Duration::ZERO);
    }

    #[test]
    fn retry_after_reads_seconds_and_http_dates() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, HeaderValue::from_static("7"));
        assert_eq!(
            retry_after(&headers, SystemTime::now()),
            Some(Duration::from_secs(7))
        );
        headers.insert(
            RETRY_AFTER,
            HeaderValue::from_static("Fri, 04 Dec 2026 05:00:30 GMT"),
        );
        let now = SystemTime::from("2026-12-04T05:00:00Z".parse::<jiff::Timestamp>().unwrap());
        assert_eq!(retry_after(&headers, now), Some(Duration::from_secs(30)));
        headers.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&headers, now), None);
    }
}
