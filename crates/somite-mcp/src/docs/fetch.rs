//! Fetching a manual from its upstream tag into the documentation cache.
//!
//! Online, a manual is read straight from the tag Somite's contract is
//! proven against: one listing of the tag's tree (GitHub's trees API), then
//! each Markdown page of the manual's folder from the raw-content host. The
//! pages land in a private temporary folder and enter the cache through the
//! same [`DocsCache::import`] as a local checkout, so every page limit and
//! path rule applies unchanged, and an interrupted fetch leaves the cache as
//! it was. `somite serve` fetches missing manuals once in the background;
//! `somite docs fetch` does it by hand. Offline, the fetch fails with the
//! reason and the import hint still applies.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use somite_api::EnvVars;

use super::{DocsCache, ImportReport, ManualSpec};
use crate::limits::{MAX_CORPUS_BYTES, MAX_PAGE_BYTES};

/// The most pages one manual may have.
pub const MAX_FETCH_PAGES: usize = 2_000;
/// How long one request may take.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// The largest tree listing accepted.
const MAX_TREE_BYTES: usize = 16 * 1024 * 1024;

/// Where manuals are fetched from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Upstream {
    /// The trees API host.
    pub api: String,
    /// The raw-content host.
    pub raw: String,
}

impl Upstream {
    /// GitHub, or the hosts the environment names; `None` when fetching is off.
    #[must_use]
    pub fn from_env() -> Option<Self> {
        if std::env::var(EnvVars::SOMITE_MCP_DOCS_FETCH).is_ok_and(|value| value == "off") {
            return None;
        }
        let host = |name: &str, default: &str| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.is_empty())
                .unwrap_or_else(|| default.to_owned())
                .trim_end_matches('/')
                .to_owned()
        };
        Some(Self {
            api: host(
                EnvVars::SOMITE_MCP_DOCS_UPSTREAM_API,
                "https://api.github.com",
            ),
            raw: host(
                EnvVars::SOMITE_MCP_DOCS_UPSTREAM_RAW,
                "https://raw.githubusercontent.com",
            ),
        })
    }
}

/// Why a manual could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("fetching {url}: {reason}")]
    Request { url: String, reason: String },
    #[error("the tree of {repository} at {tag} is not a listing: {reason}")]
    Listing {
        repository: &'static str,
        tag: &'static str,
        reason: String,
    },
    #[error("{repository} at {tag} has no Markdown pages under `{folder}/`")]
    NoPages {
        repository: &'static str,
        tag: &'static str,
        folder: &'static str,
    },
    #[error("the manual has {pages} pages, over the {MAX_FETCH_PAGES}-page limit")]
    TooManyPages { pages: usize },
    #[error("the manual is over the {MAX_CORPUS_BYTES}-byte limit")]
    TooLarge,
    #[error(transparent)]
    Cache(#[from] super::CacheError),
    #[error("a temporary folder for the fetch: {0}")]
    Scratch(std::io::Error),
}

#[derive(Deserialize)]
struct Tree {
    tree: Vec<TreeEntry>,
    #[serde(default)]
    truncated: bool,
}

#[derive(Deserialize)]
struct TreeEntry {
    path: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    size: Option<u64>,
}

/// Fetches `spec` at its tag and imports it into `cache`.
pub async fn fetch_manual(
    spec: &'static ManualSpec,
    upstream: &Upstream,
    cache: &DocsCache,
) -> Result<ImportReport, FetchError> {
    let client = reqwest::Client::builder()
        .timeout(REQUEST_TIMEOUT)
        // GitHub's API refuses requests without one.
        .user_agent(concat!("somite/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|error| FetchError::Request {
            url: upstream.api.clone(),
            reason: error.to_string(),
        })?;
    let tree_url = format!(
        "{}/repos/{}/git/trees/{}?recursive=1",
        upstream.api, spec.repository, spec.tag
    );
    let listing = get(&client, &tree_url, MAX_TREE_BYTES).await?;
    let tree: Tree = serde_json::from_slice(&listing).map_err(|error| FetchError::Listing {
        repository: spec.repository,
        tag: spec.tag,
        reason: error.to_string(),
    })?;
    if tree.truncated {
        return Err(FetchError::Listing {
            repository: spec.repository,
            tag: spec.tag,
            reason: "the listing is truncated".into(),
        });
    }
    let prefix = format!("{}/", spec.folder);
    let pages: Vec<&TreeEntry> = tree
        .tree
        .iter()
        .filter(|entry| entry.kind == "blob")
        .filter(|entry| entry.path.starts_with(&prefix) && entry.path.ends_with(".md"))
        // Too-large pages would be skipped by the import anyway.
        .filter(|entry| entry.size.is_none_or(|size| size <= MAX_PAGE_BYTES))
        .collect();
    if pages.is_empty() {
        return Err(FetchError::NoPages {
            repository: spec.repository,
            tag: spec.tag,
            folder: spec.folder,
        });
    }
    if pages.len() > MAX_FETCH_PAGES {
        return Err(FetchError::TooManyPages { pages: pages.len() });
    }
    let scratch = tempfile::tempdir().map_err(FetchError::Scratch)?;
    let mut total = 0usize;
    for page in pages {
        // The import checks every path again; never write outside the
        // scratch folder on the listing's word.
        if page
            .path
            .split('/')
            .any(|part| part.is_empty() || part == "." || part == "..")
        {
            continue;
        }
        let url = format!(
            "{}/{}/{}/{}",
            upstream.raw, spec.repository, spec.tag, page.path
        );
        let limit = usize::try_from(MAX_PAGE_BYTES).unwrap_or(usize::MAX);
        let bytes = get(&client, &url, limit).await?;
        total += bytes.len();
        if total as u64 > MAX_CORPUS_BYTES {
            return Err(FetchError::TooLarge);
        }
        let file = scratch.path().join(&page.path);
        write(&file, &bytes)?;
    }
    Ok(cache.import(spec, scratch.path())?)
}

fn write(file: &Path, bytes: &[u8]) -> Result<(), FetchError> {
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(FetchError::Scratch)?;
    }
    std::fs::write(file, bytes).map_err(FetchError::Scratch)
}

/// One bounded GET.
async fn get(client: &reqwest::Client, url: &str, limit: usize) -> Result<Vec<u8>, FetchError> {
    let failed = |reason: String| FetchError::Request {
        url: url.to_owned(),
        reason,
    };
    let mut response = client
        .get(url)
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|error| failed(error.to_string()))?;
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|error| failed(error.to_string()))?
    {
        if body.len() + chunk.len() > limit {
            return Err(failed(format!("larger than {limit} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Fetches every manual the cache does not hold yet (what `somite serve`
/// does once, in the background); returns what happened to each.
pub async fn fetch_missing(
    cache: &DocsCache,
    upstream: &Upstream,
) -> Vec<(&'static str, Result<usize, String>)> {
    let mut outcomes = Vec::new();
    for spec in &super::MANUALS {
        match cache.load(spec) {
            Ok(Some(_)) => continue,
            Ok(None) => {}
            Err(error) => {
                outcomes.push((spec.tool, Err(error.to_string())));
                continue;
            }
        }
        let outcome = fetch_manual(spec, upstream, cache)
            .await
            .map(|report| report.pages)
            .map_err(|error| error.to_string());
        outcomes.push((spec.tool, outcome));
    }
    outcomes
}
