//! [`SourceStore`]: the nf-core catalog cache and the content-addressed
//! store of pinned source trees, behind the three operations the
//! specification names (`search_nfcore`, `resolve_nfcore`,
//! `resolve_github`) and the one every later use needs ([`SourceStore::open`]).
//! [`SourceStore::import_archive`] stores a tarball that arrived some other
//! way, with the same checks.
//!
//! Layout under the cache folder (`SourceConfig::cache_dir`):
//!
//! ```text
//! nf-core/pipelines.json        the last good catalog, its URL and fetch time
//! sources/{commit}/tree/        the extracted tree, top folder stripped
//! sources/{commit}/source.json  {format, commit, tree_digest, files, bytes}
//! sources/.partial/fetch-*/     a fetch in progress (same file system)
//! ```
//!
//! A work folder left by a crashed process is removed by a later fetch once
//! it is six hours old, far beyond any live fetch.
//!
//! A tree is keyed by its commit alone: a Git commit id names exactly one
//! tree, so a fork or a mirror that serves the same commit shares the
//! folder. A fetch downloads and extracts into a temporary folder beside
//! the store and publishes it by one `rename`, so a failure (an unsafe
//! archive, a repository without `main.nf`, a full disk) leaves nothing
//! behind and a reader never sees half a tree; when two fetches race, the
//! first rename wins and the second is discarded. Fetching a stored commit
//! downloads nothing. Every [`open`](SourceStore::open) walks the tree again
//! and compares its digest with the recorded one and, when given, the one
//! the caller pinned; a difference is `source_tampered`.
//!
//! The catalog is used for [`catalog_max_age`](crate::SourceConfig::catalog_max_age)
//! (an hour) without asking again; after that it is fetched, and when the
//! fetch fails the last good copy is served with its age and the reason
//! ([`CatalogOrigin::Offline`]).

use crate::archive;
use crate::config::SourceConfig;
use crate::error::{Provider, Result, SourceError};
use crate::github::GitHub;
use crate::http::{Http, rate_limit, read_capped, transport_error};
use crate::ids::{CommitSha, GitRef, Repository, TreeDigest};
use crate::nfcore::{NfCoreCatalog, NfCoreMatch};
use crate::tree::{TreeError, digest_tree};
use reqwest::StatusCode;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

const CATALOG_FILE: &str = "nf-core/pipelines.json";
const SOURCES_DIR: &str = "sources";
const PARTIAL_DIR: &str = ".partial";
const TREE_DIR: &str = "tree";
const RECORD_FILE: &str = "source.json";
const ARCHIVE_FILE: &str = "archive.tar.gz";
/// What makes a tree a Nextflow pipeline.
pub const MAIN_SCRIPT: &str = "main.nf";

/// Where the catalog behind an answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CatalogOrigin {
    /// Fetched for this answer.
    Fetched,
    /// The cached copy, younger than the cache's maximum age.
    Cached,
    /// The provider failed; this is the last good copy, possibly old.
    Offline,
}

/// The catalog an answer used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogInfo {
    pub source_url: String,
    /// `blake3:` and the digest of the document; cursors are bound to it.
    pub revision: String,
    /// RFC 3339.
    pub fetched_at: String,
    pub age_seconds: u64,
    pub origin: CatalogOrigin,
    /// Why the catalog could not be refreshed, when `origin` is `offline`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline_reason: Option<String>,
}

/// One page of `search_nfcore`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NfCoreSearchPage {
    pub query: String,
    pub catalog: CatalogInfo,
    pub total_matches: usize,
    pub matches: Vec<NfCoreMatch>,
    /// Pass back to get the next page; `null` on the last.
    pub next_cursor: Option<String>,
}

/// A stored tree whose digest was checked just now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct VerifiedSource {
    pub commit: CommitSha,
    pub tree_digest: TreeDigest,
    /// Regular files in the tree.
    pub files: u64,
    /// The total size of those files, in bytes.
    pub bytes: u64,
    /// Machine-local, so never part of a wire answer; see [`VerifiedSource::path`].
    #[serde(skip)]
    #[schemars(skip)]
    path: PathBuf,
}

impl VerifiedSource {
    /// The tree's root folder (it holds `main.nf`). Treat it as read-only:
    /// any change is `source_tampered` at the next [`SourceStore::open`].
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// How a pinned source was chosen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "provider")]
pub enum SourceOrigin {
    /// An exact nf-core release.
    #[serde(rename = "nf-core")]
    NfCore {
        pipeline: String,
        release: String,
        /// RFC 3339.
        published_at: String,
    },
    /// A GitHub branch, tag or commit as given.
    #[serde(rename = "github")]
    GitHub {
        #[serde(rename = "ref")]
        git_ref: GitRef,
        /// RFC 3339, when GitHub said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        committed_at: Option<String>,
    },
}

/// A resolved source: what was asked for, the commit it is pinned to, and
/// the verified tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PinnedSource {
    pub repository: Repository,
    pub origin: SourceOrigin,
    #[serde(flatten)]
    pub source: VerifiedSource,
}

#[derive(Serialize, Deserialize)]
struct Record {
    format: u32,
    commit: CommitSha,
    tree_digest: TreeDigest,
    files: u64,
    bytes: u64,
}

#[derive(Serialize, Deserialize)]
struct CachedCatalog {
    format: u32,
    source_url: String,
    fetched_at: u64,
    body: String,
}

/// The pinned-source store and its providers. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SourceStore {
    config: SourceConfig,
    http: Http,
    github: GitHub,
}

impl SourceStore {
    pub fn new(config: SourceConfig) -> Result<SourceStore> {
        let http = Http::new(&config)?;
        let github = GitHub::new(&config, http.clone());
        Ok(SourceStore {
            config,
            http,
            github,
        })
    }

    /// The store the environment describes ([`SourceConfig::from_env`]).
    pub fn from_env() -> Result<SourceStore> {
        SourceStore::new(SourceConfig::from_env()?)
    }

    pub fn config(&self) -> &SourceConfig {
        &self.config
    }

    /// Ranks the nf-core catalog for `query` (see [`crate::nfcore`]).
    pub async fn search_nfcore(
        &self,
        query: &str,
        cursor: Option<&str>,
        limit: Option<usize>,
    ) -> Result<NfCoreSearchPage> {
        crate::nfcore::search_terms(query, limit)?;
        let (catalog, info) = self.nfcore_catalog().await?;
        let results = catalog.search(query, cursor, limit)?;
        Ok(NfCoreSearchPage {
            query: query.to_owned(),
            catalog: info,
            total_matches: results.total_matches,
            matches: results.matches,
            next_cursor: results.next_cursor,
        })
    }

    /// Pins `pipeline` (`rnaseq` or `nf-core/rnaseq`) at the published
    /// `release`: the catalog's `tag_sha` is the commit; its tree is fetched
    /// (or found) and verified.
    pub async fn resolve_nfcore(&self, pipeline: &str, release: &str) -> Result<PinnedSource> {
        let (catalog, _) = self.nfcore_catalog().await?;
        let (p, r) = catalog.release(pipeline, release)?;
        let source = self.fetch(&p.repository, &r.commit).await?;
        Ok(PinnedSource {
            repository: p.repository.clone(),
            origin: SourceOrigin::NfCore {
                pipeline: p.name.clone(),
                release: r.tag.clone(),
                published_at: r.published_at.clone(),
            },
            source,
        })
    }

    /// Pins `repository` (`OWNER/NAME` or `https://github.com/OWNER/NAME`)
    /// at `git_ref`: a full commit id is taken as it is, a branch or tag is
    /// resolved to the commit it names now.
    pub async fn resolve_github(&self, repository: &str, git_ref: &str) -> Result<PinnedSource> {
        let repository = parse_repository(repository)?;
        let git_ref: GitRef = git_ref.parse()?;
        let (commit, committed_at) = if CommitSha::looks_like(git_ref.as_str()) {
            (git_ref.as_str().parse()?, None)
        } else {
            let resolved = self.github.resolve(&repository, &git_ref).await?;
            (resolved.commit, resolved.committed_at)
        };
        let source = self.fetch(&repository, &commit).await?;
        Ok(PinnedSource {
            repository,
            origin: SourceOrigin::GitHub {
                git_ref,
                committed_at,
            },
            source,
        })
    }

    /// The verified tree of `commit`, downloading it from `repository` only
    /// when the store does not hold it yet.
    pub async fn fetch(
        &self,
        repository: &Repository,
        commit: &CommitSha,
    ) -> Result<VerifiedSource> {
        if self.holds(commit) {
            return self.open_blocking(commit.clone(), None).await;
        }
        let work = self.work_dir()?;
        let archive_path = work.path().join(ARCHIVE_FILE);
        self.github
            .download(repository, commit, &archive_path)
            .await?;
        let (store, repository, commit) = (self.clone(), repository.clone(), commit.clone());
        tokio::task::spawn_blocking(move || {
            let record = unpack(
                work.path(),
                &archive_path,
                &repository,
                &commit,
                &store.config.limits,
            )?;
            fs::remove_file(&archive_path).map_err(|e| SourceError::io(&archive_path, e))?;
            store.publish(work, record)
        })
        .await
        .expect("extraction does not panic")
    }

    /// The verified tree a project pinned: `commit` of `repository` with
    /// tree digest `expected`. Where the store lacks it (a project opened on
    /// another machine, by another user, after the cache was cleared), that
    /// exact commit is fetched again and its digest checked before it is
    /// published, so a provider serving another tree for the commit is
    /// `source_tampered` and nothing is kept; a failed fetch is
    /// `source_unavailable` with the commit.
    pub async fn ensure(
        &self,
        repository: &Repository,
        commit: &CommitSha,
        expected: &TreeDigest,
    ) -> Result<VerifiedSource> {
        if self.holds(commit) {
            return self
                .open_blocking(commit.clone(), Some(expected.clone()))
                .await;
        }
        let unavailable = |error: SourceError| match error {
            SourceError::ProviderUnavailable { .. }
            | SourceError::RateLimited { .. }
            | SourceError::ProviderResponseInvalid { .. }
            | SourceError::RepositoryNotFound { .. }
            | SourceError::RefNotFound { .. } => SourceError::SourceUnavailable {
                repository: repository.clone(),
                commit: commit.clone(),
                reason: error.to_string(),
            },
            other => other,
        };
        let work = self.work_dir()?;
        let archive_path = work.path().join(ARCHIVE_FILE);
        self.github
            .download(repository, commit, &archive_path)
            .await
            .map_err(unavailable)?;
        let (store, repository, commit, expected) = (
            self.clone(),
            repository.clone(),
            commit.clone(),
            expected.clone(),
        );
        tokio::task::spawn_blocking(move || {
            let record = unpack(
                work.path(),
                &archive_path,
                &repository,
                &commit,
                &store.config.limits,
            )?;
            if record.tree_digest != expected {
                return Err(SourceError::SourceTampered {
                    path: store.commit_dir(&commit),
                    commit,
                    expected: expected.to_string(),
                    actual: record.tree_digest.to_string(),
                });
            }
            fs::remove_file(&archive_path).map_err(|e| SourceError::io(&archive_path, e))?;
            store.publish(work, record)
        })
        .await
        .expect("extraction does not panic")
    }

    /// Stores a tarball obtained another way (a copy carried to a machine
    /// without network, an archive a test built) as `repository` at
    /// `commit`, with every check a download gets. Like [`fetch`](Self::fetch),
    /// a commit already stored is only verified. Blocking.
    pub fn import_archive(
        &self,
        repository: &Repository,
        commit: &CommitSha,
        archive: &Path,
    ) -> Result<VerifiedSource> {
        if self.holds(commit) {
            return self.open(commit, None);
        }
        let work = self.work_dir()?;
        let record = unpack(
            work.path(),
            archive,
            repository,
            commit,
            &self.config.limits,
        )?;
        self.publish(work, record)
    }

    /// Whether the store has a folder for `commit` (verified only by
    /// [`open`](Self::open)).
    pub fn holds(&self, commit: &CommitSha) -> bool {
        fs::symlink_metadata(self.commit_dir(commit)).is_ok()
    }

    /// A fresh folder beside the store, deleted unless published. Work
    /// folders a crashed process left behind are swept first.
    fn work_dir(&self) -> Result<tempfile::TempDir> {
        let partial = self.sources_dir().join(PARTIAL_DIR);
        fs::create_dir_all(&partial).map_err(|e| SourceError::io(&partial, e))?;
        sweep_abandoned(&partial);
        tempfile::Builder::new()
            .prefix("fetch-")
            .tempdir_in(&partial)
            .map_err(|e| SourceError::io(&partial, e))
    }

    /// Moves a finished work folder to its commit's place in one rename.
    fn publish(&self, work: tempfile::TempDir, record: Record) -> Result<VerifiedSource> {
        let published = self.commit_dir(&record.commit);
        match fs::rename(work.path(), &published) {
            Ok(()) => {
                // Renamed away: nothing left for the guard to delete.
                let _ = work.keep();
                Ok(VerifiedSource {
                    commit: record.commit,
                    tree_digest: record.tree_digest,
                    files: record.files,
                    bytes: record.bytes,
                    path: published.join(TREE_DIR),
                })
            }
            // Another fetch published the same commit first; ours is
            // dropped with the guard and theirs verified.
            Err(_) if published.is_dir() => self.open(&record.commit, None),
            Err(e) => Err(SourceError::io(&published, e)),
        }
    }

    /// The stored tree of `commit`, after walking it again and checking its
    /// digest against the recorded one and, when given, `expected` (the
    /// digest a workflow pinned). Reads every file: call it from blocking
    /// context (or `spawn_blocking`).
    pub fn open(
        &self,
        commit: &CommitSha,
        expected: Option<&TreeDigest>,
    ) -> Result<VerifiedSource> {
        let dir = self.commit_dir(commit);
        if !dir.is_dir() {
            return Err(SourceError::SourceNotFound {
                commit: commit.clone(),
            });
        }
        let tree = dir.join(TREE_DIR);
        let tampered = |expected: String, actual: String| SourceError::SourceTampered {
            commit: commit.clone(),
            path: dir.clone(),
            expected,
            actual,
        };
        let record: Option<Record> = fs::read(dir.join(RECORD_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .filter(|r: &Record| r.format == 1 && r.commit == *commit);
        let Some(record) = record else {
            return Err(tampered(
                expected.map_or("a recorded digest".into(), ToString::to_string),
                format!("no readable {RECORD_FILE}"),
            ));
        };
        let summary = match digest_tree(&tree) {
            Ok(summary) => summary,
            Err(TreeError::Unexpected(why)) => {
                return Err(tampered(record.tree_digest.to_string(), why));
            }
            Err(TreeError::Io(path, e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(tampered(
                    record.tree_digest.to_string(),
                    format!("{} is missing", path.display()),
                ));
            }
            Err(TreeError::Io(path, e)) => return Err(SourceError::io(path, e)),
        };
        let pinned = expected.unwrap_or(&record.tree_digest);
        if summary.digest != record.tree_digest || summary.digest != *pinned {
            return Err(tampered(pinned.to_string(), summary.digest.to_string()));
        }
        Ok(VerifiedSource {
            commit: commit.clone(),
            tree_digest: summary.digest,
            files: summary.files,
            bytes: summary.bytes,
            path: tree,
        })
    }

    async fn open_blocking(
        &self,
        commit: CommitSha,
        expected: Option<TreeDigest>,
    ) -> Result<VerifiedSource> {
        let store = self.clone();
        tokio::task::spawn_blocking(move || store.open(&commit, expected.as_ref()))
            .await
            .expect("verification does not panic")
    }

    fn sources_dir(&self) -> PathBuf {
        self.config.cache_dir.join(SOURCES_DIR)
    }

    fn commit_dir(&self, commit: &CommitSha) -> PathBuf {
        self.sources_dir().join(commit.as_str())
    }

    /// The catalog and where it came from (see the module documentation).
    pub async fn nfcore_catalog(&self) -> Result<(NfCoreCatalog, CatalogInfo)> {
        let now = self.config.clock.now();
        let cached = self.read_cached_catalog();
        if let Some((catalog, fetched_at)) = &cached
            && age(now, *fetched_at) < self.config.catalog_max_age
        {
            let info = self.catalog_info(catalog, now, *fetched_at, CatalogOrigin::Cached, None);
            return Ok((catalog.clone(), info));
        }
        let fetched = match self.download_catalog().await {
            Ok(body) => NfCoreCatalog::parse(&body).map(|c| (c, body)),
            Err(e) => Err(e),
        };
        match (fetched, cached) {
            (Ok((catalog, body)), _) => {
                // Whole seconds, as the cache records it, so a later answer
                // from the cache shows the same `fetched_at`.
                let fetched_at = whole_seconds(now);
                self.write_cached_catalog(&body, fetched_at)?;
                let info =
                    self.catalog_info(&catalog, now, fetched_at, CatalogOrigin::Fetched, None);
                Ok((catalog, info))
            }
            (Err(e), Some((catalog, fetched_at))) => {
                let info = self.catalog_info(
                    &catalog,
                    now,
                    fetched_at,
                    CatalogOrigin::Offline,
                    Some(e.to_string()),
                );
                Ok((catalog, info))
            }
            (Err(e), None) => Err(e),
        }
    }

    fn catalog_info(
        &self,
        catalog: &NfCoreCatalog,
        now: SystemTime,
        fetched_at: SystemTime,
        origin: CatalogOrigin,
        offline_reason: Option<String>,
    ) -> CatalogInfo {
        CatalogInfo {
            source_url: self.config.nfcore_pipelines_url.clone(),
            revision: catalog.revision.clone(),
            fetched_at: jiff::Timestamp::try_from(fetched_at)
                .map(|t| t.to_string())
                .unwrap_or_default(),
            age_seconds: age(now, fetched_at).as_secs(),
            origin,
            offline_reason,
        }
    }

    async fn download_catalog(&self) -> Result<Vec<u8>> {
        let within = self.http.request_timeout;
        let response = self
            .http
            .client
            .get(&self.config.nfcore_pipelines_url)
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(within)
            .send()
            .await
            .map_err(|e| transport_error(Provider::NfCore, e, within))?;
        let status = response.status();
        if let Some(limited) = rate_limit(
            Provider::NfCore,
            status,
            response.headers(),
            self.config.clock.now(),
        ) {
            return Err(limited);
        }
        if status != StatusCode::OK {
            let detail = format!("it answered {status}");
            return Err(if status.is_server_error() {
                SourceError::ProviderUnavailable {
                    provider: Provider::NfCore,
                    detail,
                }
            } else {
                SourceError::ProviderResponseInvalid {
                    provider: Provider::NfCore,
                    detail,
                }
            });
        }
        let cap = self.config.limits.max_catalog_bytes;
        read_capped(Provider::NfCore, response, cap, within)
            .await
            .map_err(|e| {
                e.unwrap_or(SourceError::ProviderResponseInvalid {
                    provider: Provider::NfCore,
                    detail: format!("pipelines.json is larger than {cap} bytes"),
                })
            })
    }

    /// The cached catalog when it parses and came from the configured URL.
    fn read_cached_catalog(&self) -> Option<(NfCoreCatalog, SystemTime)> {
        let bytes = fs::read(self.config.cache_dir.join(CATALOG_FILE)).ok()?;
        let cached: CachedCatalog = serde_json::from_slice(&bytes).ok()?;
        if cached.format != 1 || cached.source_url != self.config.nfcore_pipelines_url {
            return None;
        }
        let catalog = NfCoreCatalog::parse(cached.body.as_bytes()).ok()?;
        Some((
            catalog,
            SystemTime::UNIX_EPOCH + Duration::from_secs(cached.fetched_at),
        ))
    }

    fn write_cached_catalog(&self, body: &[u8], fetched_at: SystemTime) -> Result<()> {
        let path = self.config.cache_dir.join(CATALOG_FILE);
        let dir = path.parent().expect("the catalog file has a folder");
        fs::create_dir_all(dir).map_err(|e| SourceError::io(dir, e))?;
        let cached = CachedCatalog {
            format: 1,
            source_url: self.config.nfcore_pipelines_url.clone(),
            fetched_at: epoch_seconds(fetched_at),
            // `parse` succeeded, so the body is JSON and therefore UTF-8.
            body: String::from_utf8_lossy(body).into_owned(),
        };
        let mut file = tempfile::NamedTempFile::new_in(dir).map_err(|e| SourceError::io(dir, e))?;
        file.write_all(&serde_json::to_vec(&cached).expect("the cache serializes"))
            .map_err(|e| SourceError::io(file.path().to_owned(), e))?;
        file.persist(&path)
            .map_err(|e| SourceError::io(&path, e.error))?;
        Ok(())
    }
}

/// How old a work folder must be before it is taken as abandoned: far
/// longer than a download may take ([`crate::config::limits::DOWNLOAD_TIMEOUT`])
/// plus its extraction, so a live fetch of another process is never swept.
const ABANDONED_AFTER: Duration = Duration::from_secs(6 * 60 * 60);

/// Removes work folders older than [`ABANDONED_AFTER`] (file-system time,
/// as the folders' own times are). Best effort: a folder that cannot be
/// removed now is tried again by the next fetch.
fn sweep_abandoned(partial: &Path) {
    let Ok(entries) = fs::read_dir(partial) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > ABANDONED_AFTER));
        if old {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

fn epoch_seconds(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}

fn whole_seconds(t: SystemTime) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(epoch_seconds(t))
}

fn age(now: SystemTime, then: SystemTime) -> Duration {
    now.duration_since(then).unwrap_or_default()
}

/// Extracts, checks for `main.nf`, digests and records, all inside `work`.
fn unpack(
    work: &Path,
    archive_path: &Path,
    repository: &Repository,
    commit: &CommitSha,
    limits: &crate::config::Limits,
) -> Result<Record> {
    let tree = work.join(TREE_DIR);
    fs::create_dir(&tree).map_err(|e| SourceError::io(&tree, e))?;
    let file = fs::File::open(archive_path).map_err(|e| SourceError::io(archive_path, e))?;
    archive::extract(std::io::BufReader::new(file), &tree, commit, limits)?;
    let main = fs::symlink_metadata(tree.join(MAIN_SCRIPT));
    if !main.is_ok_and(|m| m.is_file()) {
        return Err(SourceError::NotANextflowRepository {
            repository: repository.clone(),
            commit: commit.clone(),
        });
    }
    let summary = digest_tree(&tree).map_err(|e| match e {
        TreeError::Io(path, e) => SourceError::io(path, e),
        TreeError::Unexpected(why) => SourceError::unsafe_archive(why),
    })?;
    let record = Record {
        format: 1,
        commit: commit.clone(),
        tree_digest: summary.digest,
        files: summary.files,
        bytes: summary.bytes,
    };
    let path = work.join(RECORD_FILE);
    fs::write(
        &path,
        serde_json::to_vec_pretty(&record).expect("the record serializes"),
    )
    .map_err(|e| SourceError::io(&path, e))?;
    Ok(record)
}

/// `OWNER/NAME`, or a GitHub web URL of the repository (as people paste it).
fn parse_repository(text: &str) -> Result<Repository> {
    let trimmed = text.trim();
    let path = trimmed
        .strip_prefix("https://github.com/")
        .or_else(|| trimmed.strip_prefix("http://github.com/"))
        .or_else(|| trimmed.strip_prefix("github.com/"))
        .map(|rest| rest.trim_end_matches('/').trim_end_matches(".git"))
        .unwrap_or(trimmed);
    path.parse()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repositories_may_be_pasted_as_github_urls() {
        for text in [
            "nf-core/demo",
            "https://github.com/nf-core/demo",
            "https://github.com/nf-core/demo/",
            "https://github.com/nf-core/demo.git",
            "github.com/nf-core/demo",
        ] {
            assert_eq!(
                parse_repository(text).unwrap().as_str(),
                "nf-core/demo",
                "{text}"
            );
        }
        assert!(parse_repository("https://github.com/nf-core/demo/tree/dev").is_err());
    }
}
