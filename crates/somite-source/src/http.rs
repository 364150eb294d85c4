//! The one HTTP client both providers share: timeouts, bounded bodies, and
//! the translation of transport failures and rate limits into
//! [`SourceError`]s.
//!
//! Bodies are read chunk by chunk against a cap, never trusted to a
//! `Content-Length`, so a provider (or a mirror behind
//! `SOMITE_*_URL`) cannot make Somite buffer more than the cap.

use crate::config::SourceConfig;
use crate::error::{Provider, Result, SourceError};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use std::time::{Duration, SystemTime};

/// GitHub's rate-limit headers (REST API, "Rate limits for the REST API").
pub const RATE_LIMIT_REMAINING: &str = "x-ratelimit-remaining";
/// Epoch seconds at which the spent limit resets.
pub const RATE_LIMIT_RESET: &str = "x-ratelimit-reset";

#[derive(Debug, Clone)]
pub(crate) struct Http {
    pub(crate) client: reqwest::Client,
    pub(crate) request_timeout: Duration,
    pub(crate) download_timeout: Duration,
}

impl Http {
    pub(crate) fn new(config: &SourceConfig) -> Result<Http> {
        let client = reqwest::Client::builder()
            .user_agent(concat!("somite/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(config.timeouts.connect)
            // A stalled body fails even when the whole-request timeout is long
            // (downloads).
            .read_timeout(config.timeouts.request)
            .redirect(documented_redirects())
            .build()
            .map_err(|e| SourceError::ProviderUnavailable {
                provider: Provider::GitHub,
                detail: format!("the HTTP client could not start: {e}"),
            })?;
        Ok(Http {
            client,
            request_timeout: config.timeouts.request,
            download_timeout: config.timeouts.download,
        })
    }
}

/// The host GitHub documents for the archive its tarball endpoint redirects
/// to.
pub(crate) const GITHUB_ARCHIVE_HOST: &str = "codeload.github.com";
/// Redirects followed for one request at most.
const MAX_REDIRECTS: usize = 5;

/// Follows only the redirects a provider documents: within the host first
/// asked (nf-co.re, the API, or a loopback stand-in), or from GitHub's API
/// to its archive host, never from https to http; any other is not
/// followed, and the redirect answer then fails as the provider's.
fn documented_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let first = attempt.previous().first().cloned();
        let next = attempt.url();
        let allowed = attempt.previous().len() <= MAX_REDIRECTS
            && first.as_ref().is_some_and(|first| {
                let downgrade = first.scheme() == "https" && next.scheme() != "https";
                let same_host = first.host_str() == next.host_str();
                let archive =
                    next.host_str() == Some(GITHUB_ARCHIVE_HOST) && next.scheme() == "https";
                !downgrade && (same_host || archive)
            });
        if allowed {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// A transport failure as the user reads it. The URL is in reqwest's
/// message; a token never is (it travels in a header).
pub(crate) fn transport_error(
    provider: Provider,
    error: reqwest::Error,
    within: Duration,
) -> SourceError {
    let detail = if error.is_timeout() {
        format!("it did not answer within {} s", within.as_secs_f32())
    } else if error.is_connect() {
        format!("could not connect: {}", error_chain(&error))
    } else {
        error_chain(&error)
    };
    SourceError::ProviderUnavailable { provider, detail }
}

fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// A body read against `cap`; `Err(None)` when it is larger.
pub(crate) async fn read_capped(
    provider: Provider,
    mut response: reqwest::Response,
    cap: u64,
    within: Duration,
) -> Result<Vec<u8>, Option<SourceError>> {
    if response.content_length().is_some_and(|n| n > cap) {
        return Err(None);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| Some(transport_error(provider, e, within)))?
    {
        if body.len() as u64 + chunk.len() as u64 > cap {
            return Err(None);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// GitHub's answer when the rate limit is spent: 403 or 429 with
/// `x-ratelimit-remaining: 0`, reset at `x-ratelimit-reset` (epoch
/// seconds). A 429 is a rate limit whatever its headers, and a secondary
/// limit may say `Retry-After` (seconds) instead; a 403 without a spent
/// limit is an ordinary refusal.
pub(crate) fn rate_limit(
    provider: Provider,
    status: StatusCode,
    headers: &HeaderMap,
    now: SystemTime,
) -> Option<SourceError> {
    if status != StatusCode::FORBIDDEN && status != StatusCode::TOO_MANY_REQUESTS {
        return None;
    }
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let spent = header(RATE_LIMIT_REMAINING) == Some("0");
    let retry_after =
        header(reqwest::header::RETRY_AFTER.as_str()).and_then(|v| v.parse::<u64>().ok());
    if !spent && status != StatusCode::TOO_MANY_REQUESTS {
        return None;
    }
    let reset_epoch = header(RATE_LIMIT_RESET)
        .and_then(|v| v.parse::<i64>().ok())
        .or_else(|| {
            let now = now.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_secs();
            i64::try_from(now + retry_after?).ok()
        });
    let reset_at = reset_epoch
        .and_then(|s| jiff::Timestamp::from_second(s).ok())
        .map(|t| t.to_string());
    Some(SourceError::RateLimited { provider, reset_at })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        map
    }

    #[test]
    fn a_spent_limit_is_rate_limited_with_its_reset_time() {
        let h = headers(&[
            (RATE_LIMIT_REMAINING, "0"),
            (RATE_LIMIT_RESET, "1796335200"),
        ]);
        for status in [StatusCode::FORBIDDEN, StatusCode::TOO_MANY_REQUESTS] {
            match rate_limit(Provider::GitHub, status, &h, SystemTime::UNIX_EPOCH) {
                Some(SourceError::RateLimited { reset_at, .. }) => {
                    assert_eq!(reset_at.as_deref(), Some("2026-12-03T22:00:00Z"))
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_plain_forbidden_is_not_a_rate_limit() {
        let h = headers(&[(RATE_LIMIT_REMAINING, "42")]);
        assert!(
            rate_limit(
                Provider::GitHub,
                StatusCode::FORBIDDEN,
                &h,
                SystemTime::now()
            )
            .is_none()
        );
        let spent = headers(&[(RATE_LIMIT_REMAINING, "0")]);
        assert!(
            rate_limit(
                Provider::GitHub,
                StatusCode::NOT_FOUND,
                &spent,
                SystemTime::now()
            )
            .is_none()
        );
    }

    #[test]
    fn retry_after_counts_from_now() {
        let h = headers(&[("retry-after", "60")]);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_335_140);
        match rate_limit(Provider::GitHub, StatusCode::TOO_MANY_REQUESTS, &h, now) {
            Some(SourceError::RateLimited { reset_at, .. }) => {
                assert_eq!(reset_at.as_deref(), Some("2026-12-03T22:00:00Z"))
            }
            other => panic!("{other:?}"),
        }
    }
}
