//! Pinning a remote input a pipeline reads: download it once, record its
//! size and BLAKE3, and keep the copy for the run to stage.
//!
//! Nextflow fetches an `https://` default itself at run time, so nothing
//! binds its bytes: the same run next month may read a different file. A
//! pinned input is downloaded by Somite instead, into a folder of the
//! project named by the digest of what arrived, and the node records the
//! URL, the size and the digest (`PinnedInput`), so the closure binds the
//! run to exactly those bytes.
//!
//! The download is an open-world act on a URL the pipeline (or the user)
//! chose, so it is bounded like every other: HTTP(S) only, no credentials in
//! the URL, at most [`MAX_REDIRECTS`] redirects each checked by the same
//! rules (and never from `https` down to `http`), a body cap, a stalled-read
//! timeout, and a temporary file in the destination folder that is renamed
//! into place only once complete and flushed — a failure leaves nothing.

use crate::config::SourceConfig;
use crate::error::{Provider, Result, SourceError};
use crate::http::transport_error;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use url::Url;

/// Redirects a pinned download follows at most.
pub const MAX_REDIRECTS: usize = 5;

/// A remote input downloaded and digested.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinnedDownload {
    /// The copy: `{into}/{first 16 hex of the digest}/{file name}`.
    pub path: PathBuf,
    pub bytes: u64,
    /// `blake3:<64 hex>` of the bytes.
    pub digest: String,
}

/// Why a URL cannot be pinned; its text never carries the URL's userinfo.
fn refused(detail: impl Into<String>) -> SourceError {
    SourceError::InvalidRequest {
        detail: detail.into(),
    }
}

/// Checks one URL of the chain: HTTP(S), a host, no user name or password.
fn checked(url: &Url, from: Option<&Url>) -> Result<()> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(refused(format!(
            "only http(s) inputs can be pinned, not `{}:`",
            url.scheme()
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(refused(
            "the URL carries a user name or password; Somite does not pin it",
        ));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(refused("the URL names no host"));
    }
    if from.is_some_and(|f| f.scheme() == "https") && url.scheme() == "http" {
        return Err(refused("a redirect from https to http is not followed"));
    }
    Ok(())
}

/// The file name a copy keeps: the URL's last path segment, reduced to
/// characters every staging step takes literally.
fn file_name(url: &Url) -> String {
    let last = url
        .path_segments()
        .and_then(|mut s| s.next_back())
        .unwrap_or_default();
    let name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let name = name.trim_start_matches('.');
    if name.is_empty() {
        "download".to_owned()
    } else {
        name.chars().take(128).collect()
    }
}

/// Downloads `url` into `into` (a folder of the project), at most
/// `max_bytes`, and returns where the copy is with its size and digest. A
/// copy of the same bytes already there is kept as it is.
pub async fn download_pinned(
    config: &SourceConfig,
    url: &str,
    into: &Path,
    max_bytes: u64,
) -> Result<PinnedDownload> {
    let start = Url::parse(url).map_err(|_| refused("the URL does not parse"))?;
    checked(&start, None)?;
    let client = reqwest::Client::builder()
        .user_agent(concat!("somite/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(config.timeouts.connect)
        .read_timeout(config.timeouts.request)
        .timeout(config.timeouts.download)
        // Each hop is checked here, not by reqwest's default policy.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| SourceError::ProviderUnavailable {
            provider: Provider::Remote,
            detail: format!("the HTTP client could not start: {e}"),
        })?;
    let mut current = start;
    let mut response = None;
    for hop in 0..=MAX_REDIRECTS {
        let answer = client
            .get(current.clone())
            .send()
            .await
            .map_err(|e| transport_error(Provider::Remote, e, config.timeouts.download))?;
        if !answer.status().is_redirection() {
            response = Some(answer);
            break;
        }
        if hop == MAX_REDIRECTS {
            break;
        }
        let location = answer
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|l| current.join(l).ok())
            .ok_or_else(|| SourceError::ProviderResponseInvalid {
                provider: Provider::Remote,
                detail: "a redirect without a usable Location".into(),
            })?;
        checked(&location, Some(&current))?;
        current = location;
    }
    let Some(mut response) = response else {
        return Err(SourceError::ProviderResponseInvalid {
            provider: Provider::Remote,
            detail: format!("more than {MAX_REDIRECTS} redirects"),
        });
    };
    if !response.status().is_success() {
        return Err(SourceError::ProviderUnavailable {
            provider: Provider::Remote,
            detail: format!("it answered HTTP {}", response.status()),
        });
    }
    // Read before the body: reqwest's figure shrinks as the body is read.
    let announced = response.content_length();
    if announced.is_some_and(|n| n > max_bytes) {
        return Err(SourceError::ArchiveTooLarge {
            detail: format!("the file is larger than {max_bytes} bytes"),
        });
    }
    std::fs::create_dir_all(into).map_err(|e| SourceError::io(into, e))?;
    let mut partial = tempfile::Builder::new()
        .prefix(".partial-")
        .tempfile_in(into)
        .map_err(|e| SourceError::io(into, e))?;
    let mut hasher = blake3::Hasher::new();
    let mut bytes = 0u64;
    let cut = |bytes: u64, expected: u64| SourceError::ProviderResponseInvalid {
        provider: Provider::Remote,
        detail: format!("the download stopped after {bytes} of the {expected} bytes announced"),
    };
    loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(_) if announced.is_some_and(|n| bytes < n) => {
                return Err(cut(bytes, announced.unwrap_or_default()));
            }
            Err(e) => {
                return Err(transport_error(
                    Provider::Remote,
                    e,
                    config.timeouts.download,
                ));
            }
        };
        bytes += chunk.len() as u64;
        if bytes > max_bytes {
            return Err(SourceError::ArchiveTooLarge {
                detail: format!("the file is larger than {max_bytes} bytes"),
            });
        }
        hasher.update(&chunk);
        partial
            .write_all(&chunk)
            .map_err(|e| SourceError::io(partial.path(), e))?;
    }
    if let Some(expected) = announced
        && expected != bytes
    {
        return Err(cut(bytes, expected));
    }
    partial
        .as_file()
        .sync_all()
        .map_err(|e| SourceError::io(partial.path(), e))?;
    let hex = hasher.finalize().to_hex();
    let folder = into.join(&hex[..16]);
    std::fs::create_dir_all(&folder).map_err(|e| SourceError::io(&folder, e))?;
    let path = folder.join(file_name(&current));
    if !path.is_file() {
        partial
            .persist(&path)
            .map_err(|e| SourceError::io(&path, e.error))?;
        std::fs::File::open(&folder)
            .and_then(|dir| dir.sync_all())
            .map_err(|e| SourceError::io(&folder, e))?;
    }
    Ok(PinnedDownload {
        path,
        bytes,
        digest: format!("blake3:{hex}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_http_urls_are_followed() {
        let url = |s: &str| Url::parse(s).unwrap();
        assert!(checked(&url("https://zenodo.org/records/1/files/x.tar.gz"), None).is_ok());
        assert!(checked(&url("s3://bucket/key"), None).is_err());
        let secret = checked(&url("https://a:hunter2@example.org/x"), None).unwrap_err();
        assert!(!secret.to_string().contains("hunter2"));
        assert!(
            checked(
                &url("http://example.org/x"),
                Some(&url("https://example.org/y"))
            )
            .is_err()
        );
        assert_eq!(
            file_name(&url("https://e.org/a/cancer%20introns.tsv.gz")),
            "cancer_20introns.tsv.gz"
        );
        assert_eq!(file_name(&url("https://e.org/")), "download");
        assert_eq!(file_name(&url("https://e.org/..x")), "x");
    }
}
