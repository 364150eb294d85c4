//! GitHub: a ref resolved to an immutable commit, and the tarball of a commit.
//!
//! `GET {api}/repos/{owner}/{repo}/commits/{ref}` with
//! `Accept: application/vnd.github+json` answers `{sha, commit: {committer:
//! {date}}}`; `GET {api}/repos/{owner}/{repo}/tarball/{sha}` redirects to
//! the archive, which reqwest follows (and drops `Authorization` when the
//! redirect leaves the API's host). `GITHUB_TOKEN`, when set, is sent as a
//! sensitive header only. A spent rate limit is `rate_limited` with its
//! reset time; a 404 on the commit lookup is an unknown repository, a 422
//! an unknown ref (GitHub's "No commit found for SHA").

use crate::config::Clock;
use crate::config::{GithubToken, Limits, SourceConfig};
use crate::error::{Provider, Result, SourceError};
use crate::http::{Http, rate_limit, read_capped, transport_error};
use crate::ids::{CommitSha, GitRef, Repository};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderValue};
use serde::Deserialize;
use std::path::Path;
use std::time::Duration;
use tokio::io::AsyncWriteExt as _;

/// The media type GitHub documents for REST API JSON.
pub const GITHUB_JSON: &str = "application/vnd.github+json";
/// The REST API version Somite was written against.
pub const GITHUB_API_VERSION_HEADER: &str = "x-github-api-version";
pub const GITHUB_API_VERSION: &str = "2022-11-28";

/// A ref resolved to the commit it names now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResolvedCommit {
    pub commit: CommitSha,
    /// The committer date, RFC 3339, when GitHub said.
    pub committed_at: Option<String>,
}

#[derive(Deserialize)]
struct WireCommit {
    sha: String,
    #[serde(default)]
    commit: Option<WireCommitDetail>,
}

#[derive(Deserialize)]
struct WireCommitDetail {
    #[serde(default)]
    committer: Option<WireSignature>,
}

#[derive(Deserialize)]
struct WireSignature {
    #[serde(default)]
    date: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct GitHub {
    http: Http,
    api: String,
    token: Option<GithubToken>,
    limits: Limits,
    clock: Clock,
}

impl GitHub {
    pub(crate) fn new(config: &SourceConfig, http: Http) -> GitHub {
        GitHub {
            http,
            api: config.github_api_url.trim_end_matches('/').to_owned(),
            token: config.github_token.clone(),
            limits: config.limits,
            clock: config.clock.clone(),
        }
    }

    fn get(&self, url: String) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .client
            .get(url)
            .header(ACCEPT, GITHUB_JSON)
            .header(GITHUB_API_VERSION_HEADER, GITHUB_API_VERSION);
        if let Some(token) = &self.token
            && let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {}", token.expose()))
        {
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
        request
    }

    /// Sends a GET of `url` that must answer `within`; a rate-limit answer
    /// is the provider's rate-limit failure, any other status the caller's
    /// to classify.
    async fn send(&self, url: String, within: Duration) -> Result<reqwest::Response> {
        let response = self
            .get(url)
            .timeout(within)
            .send()
            .await
            .map_err(|e| transport_error(Provider::GitHub, e, within))?;
        match rate_limit(
            Provider::GitHub,
            response.status(),
            response.headers(),
            self.clock.now(),
        ) {
            Some(limited) => Err(limited),
            None => Ok(response),
        }
    }

    /// The commit `git_ref` names in `repository` now.
    pub(crate) async fn resolve(
        &self,
        repository: &Repository,
        git_ref: &GitRef,
    ) -> Result<ResolvedCommit> {
        let url = format!(
            "{}/repos/{}/{}/commits/{}",
            self.api,
            repository.owner(),
            repository.name(),
            encode_ref(git_ref)
        );
        let within = self.http.request_timeout;
        let response = self.send(url, within).await?;
        match response.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND => {
                return Err(SourceError::RepositoryNotFound {
                    repository: repository.clone(),
                });
            }
            StatusCode::UNPROCESSABLE_ENTITY => {
                return Err(SourceError::RefNotFound {
                    repository: repository.clone(),
                    git_ref: git_ref.to_string(),
                });
            }
            other => return Err(unexpected_status(other)),
        }
        let body = read_capped(
            Provider::GitHub,
            response,
            self.limits.max_api_bytes,
            within,
        )
        .await
        .map_err(|e| {
            e.unwrap_or_else(|| {
                invalid(format!(
                    "the commit answer is larger than {} bytes",
                    self.limits.max_api_bytes
                ))
            })
        })?;
        let wire: WireCommit = serde_json::from_slice(&body).map_err(|e| {
            invalid(format!(
                "the commit answer does not have the documented shape: {e}"
            ))
        })?;
        let commit = wire
            .sha
            .parse()
            .map_err(|_| invalid(format!("`{}` is not a full commit id", wire.sha)))?;
        let committed_at = wire
            .commit
            .and_then(|c| c.committer)
            .and_then(|c| c.date)
            .and_then(|d| d.parse::<jiff::Timestamp>().ok())
            .map(|t| t.to_string());
        Ok(ResolvedCommit {
            commit,
            committed_at,
        })
    }

    /// Downloads the tarball of `commit` into `dest` (a new file), at most
    /// [`Limits::max_archive_bytes`].
    pub(crate) async fn download(
        &self,
        repository: &Repository,
        commit: &CommitSha,
        dest: &Path,
    ) -> Result<u64> {
        let url = format!(
            "{}/repos/{}/{}/tarball/{}",
            self.api,
            repository.owner(),
            repository.name(),
            commit
        );
        let within = self.http.download_timeout;
        let mut response = self.send(url, within).await?;
        match response.status() {
            StatusCode::OK => {}
            StatusCode::NOT_FOUND => {
                return Err(SourceError::RefNotFound {
                    repository: repository.clone(),
                    git_ref: commit.to_string(),
                });
            }
            other => return Err(unexpected_status(other)),
        }
        let cap = self.limits.max_archive_bytes;
        let too_large = || SourceError::ArchiveTooLarge {
            detail: format!("the archive is larger than {cap} bytes"),
        };
        if response.content_length().is_some_and(|n| n > cap) {
            return Err(too_large());
        }
        let mut file = tokio::fs::File::create_new(dest)
            .await
            .map_err(|e| SourceError::io(dest, e))?;
        let mut written = 0u64;
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| transport_error(Provider::GitHub, e, within))?
        {
            written += chunk.len() as u64;
            if written > cap {
                return Err(too_large());
            }
            file.write_all(&chunk)
                .await
                .map_err(|e| SourceError::io(dest, e))?;
        }
        file.flush().await.map_err(|e| SourceError::io(dest, e))?;
        Ok(written)
    }
}

/// Each `/`-separated segment percent-encoded; the slashes stay, as GitHub
/// accepts `commits/feature/x`.
fn encode_ref(git_ref: &GitRef) -> String {
    git_ref
        .as_str()
        .split('/')
        .map(|segment| {
            segment
                .bytes()
                .map(|b| match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => {
                        (b as char).to_string()
                    }
                    _ => format!("%{b:02X}"),
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

fn invalid(detail: String) -> SourceError {
    SourceError::ProviderResponseInvalid {
        provider: Provider::GitHub,
        detail,
    }
}

fn unexpected_status(status: StatusCode) -> SourceError {
    if status.is_server_error() {
        SourceError::ProviderUnavailable {
            provider: Provider::GitHub,
            detail: format!("it answered {status}"),
        }
    } else {
        invalid(format!("it answered {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_keep_their_slashes_and_encode_the_rest() {
        let r: GitRef = "feature/a+b".parse().unwrap();
        assert_eq!(encode_ref(&r), "feature/a%2Bb");
        let r: GitRef = "1.12.0".parse().unwrap();
        assert_eq!(encode_ref(&r), "1.12.0");
    }
}
