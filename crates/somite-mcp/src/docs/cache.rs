//! The documentation cache: manuals persisted in the user's cache directory.
//!
//! A manual is stored once per user, keyed by repository, tag and folder
//! (`<root>/github.com/prefix-dev/pixi/v0.77.0/docs/`), so every later
//! session — and every server process — reuses it instead of fetching or
//! importing it again, and nothing is vendored into a project. The root is
//! `SOMITE_MCP_DOCS_CACHE_DIR`, else `$XDG_CACHE_HOME/somite/mcp-docs`, else
//! `~/Library/Caches/Somite/mcp-docs` on macOS and `~/.cache/somite/mcp-docs`
//! elsewhere.
//!
//! An import copies the raw `.md` pages of a local checkout of the tag into a
//! fresh `pages-<nonce>/` directory (each file written atomically), then
//! atomically replaces `catalog.json`, which names that directory and every
//! page: a reader sees either the previous complete import or the new one.
//! Pages over [`MAX_PAGE_BYTES`] are skipped and reported; a manual over
//! [`MAX_CORPUS_BYTES`] is refused.
//!
//! Fetching from the upstream tag over the network is not implemented: the
//! machines Somite is proven on reach package registries only, so the
//! catalog is always imported from a local checkout.

use super::ManualSpec;
use crate::limits::{MAX_CORPUS_BYTES, MAX_PAGE_BYTES};
use serde::{Deserialize, Serialize};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Overrides the cache root.
const CACHE_DIR_ENV: &str = somite_api::EnvVars::SOMITE_MCP_DOCS_CACHE_DIR;

const CATALOG_FILE: &str = "catalog.json";
const CATALOG_FORMAT: u32 = 1;

/// A page as stored: its catalog path and source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawPage {
    pub path: String,
    pub text: String,
}

/// The cache root.
#[derive(Debug, Clone)]
pub struct DocsCache {
    root: PathBuf,
}

/// What an import stored.
#[derive(Debug, Clone, Serialize)]
pub struct ImportReport {
    pub directory: PathBuf,
    pub pages: usize,
    pub bytes: u64,
    pub skipped: Vec<SkippedPage>,
}

/// A page an import left out, and why.
#[derive(Debug, Clone, Serialize)]
pub struct SkippedPage {
    pub path: String,
    pub reason: String,
}

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("no documentation cache directory: set {CACHE_DIR_ENV}, XDG_CACHE_HOME or HOME")]
    NoCacheDir,
    #[error("{path} holds no Markdown pages of the manual")]
    EmptySource { path: PathBuf },
    #[error("the manual at {path} is {bytes} bytes, over the {MAX_CORPUS_BYTES}-byte limit")]
    CorpusTooLarge { path: PathBuf, bytes: u64 },
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
    #[error("the cached catalog {path} is damaged: {reason}")]
    Damaged { path: PathBuf, reason: String },
}

/// `catalog.json`: the commit record of one import.
#[derive(Debug, Serialize, Deserialize)]
struct CatalogRecord {
    format: u32,
    repository: String,
    tag: String,
    folder: String,
    imported_from: PathBuf,
    pages_dir: String,
    pages: Vec<PageRecord>,
    /// [`digest`] of the pages as imported: what the stored search index
    /// ([`super::stored`]) is keyed by. Absent in imports made before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    digest: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct PageRecord {
    path: String,
    bytes: u64,
}

impl DocsCache {
    /// The cache at an explicit root.
    pub fn at(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The cache at the platform location (see the module documentation).
    pub fn from_env() -> Result<Self, CacheError> {
        let var = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        if let Some(root) = var(CACHE_DIR_ENV) {
            return Ok(Self::at(root));
        }
        if let Some(xdg) = var("XDG_CACHE_HOME").map(PathBuf::from)
            && xdg.is_absolute()
        {
            return Ok(Self::at(xdg.join("somite").join("mcp-docs")));
        }
        let home = var("HOME")
            .map(PathBuf::from)
            .ok_or(CacheError::NoCacheDir)?;
        if cfg!(target_os = "macos") {
            Ok(Self::at(home.join("Library/Caches/Somite/mcp-docs")))
        } else {
            Ok(Self::at(home.join(".cache/somite/mcp-docs")))
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where `spec` is stored.
    pub fn manual_dir(&self, spec: &ManualSpec) -> PathBuf {
        self.root
            .join("github.com")
            .join(spec.repository)
            .join(spec.tag)
            .join(spec.folder)
    }

    /// The digest of the pages of `spec` as its import recorded it, or
    /// `None` when it was never imported or the import recorded none.
    pub fn recorded_digest(&self, spec: &ManualSpec) -> Result<Option<String>, CacheError> {
        let record_path = self.manual_dir(spec).join(CATALOG_FILE);
        match std::fs::read(&record_path) {
            Ok(bytes) => Ok(serde_json::from_slice::<CatalogRecord>(&bytes)
                .ok()
                .filter(|record| record.format == CATALOG_FORMAT)
                .and_then(|record| record.digest)),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(CacheError::Read {
                path: record_path,
                source,
            }),
        }
    }

    /// The cached pages of `spec`, or `None` when it was never imported.
    pub fn load(&self, spec: &ManualSpec) -> Result<Option<Vec<RawPage>>, CacheError> {
        let dir = self.manual_dir(spec);
        let record_path = dir.join(CATALOG_FILE);
        let record = match std::fs::read(&record_path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(CacheError::Read {
                    path: record_path,
                    source,
                });
            }
        };
        let damaged = |reason: String| CacheError::Damaged {
            path: record_path.clone(),
            reason,
        };
        let record: CatalogRecord =
            serde_json::from_slice(&record).map_err(|error| damaged(error.to_string()))?;
        if record.format != CATALOG_FORMAT
            || record.repository != spec.repository
            || record.tag != spec.tag
            || record.folder != spec.folder
        {
            return Err(damaged("it describes another manual or format".into()));
        }
        if !is_plain_name(&record.pages_dir) {
            return Err(damaged(format!(
                "invalid pages directory {:?}",
                record.pages_dir
            )));
        }
        let pages_dir = dir.join(&record.pages_dir);
        let mut pages = Vec::with_capacity(record.pages.len());
        for page in &record.pages {
            if !is_catalog_path(&page.path) {
                return Err(damaged(format!("invalid page path {:?}", page.path)));
            }
            let path = pages_dir.join(&page.path);
            let text = std::fs::read_to_string(&path)
                .map_err(|source| CacheError::Read { path, source })?;
            pages.push(RawPage {
                path: page.path.clone(),
                text,
            });
        }
        Ok(Some(pages))
    }

    /// Imports `spec` from a local checkout: `source` is either the manual
    /// folder itself or a repository checkout containing it.
    pub fn import(&self, spec: &ManualSpec, source: &Path) -> Result<ImportReport, CacheError> {
        let nested = source.join(spec.folder);
        let folder = if nested.is_dir() {
            nested
        } else {
            source.to_path_buf()
        };
        let mut files = Vec::new();
        collect_markdown(&folder, &folder, &mut files)?;
        files.sort();

        let mut skipped = Vec::new();
        let mut accepted = Vec::new();
        let mut total = 0u64;
        for (relative, absolute) in files {
            let metadata = std::fs::metadata(&absolute).map_err(|source| CacheError::Read {
                path: absolute.clone(),
                source,
            })?;
            if metadata.len() > MAX_PAGE_BYTES {
                skipped.push(SkippedPage {
                    path: relative,
                    reason: format!(
                        "{} bytes, over the {MAX_PAGE_BYTES}-byte page limit",
                        metadata.len()
                    ),
                });
                continue;
            }
            let bytes = std::fs::read(&absolute).map_err(|source| CacheError::Read {
                path: absolute.clone(),
                source,
            })?;
            let Ok(text) = String::from_utf8(bytes) else {
                skipped.push(SkippedPage {
                    path: relative,
                    reason: "not UTF-8 text".into(),
                });
                continue;
            };
            total += text.len() as u64;
            if total > MAX_CORPUS_BYTES {
                return Err(CacheError::CorpusTooLarge {
                    path: folder,
                    bytes: total,
                });
            }
            accepted.push(RawPage {
                path: relative,
                text,
            });
        }
        if accepted.is_empty() {
            return Err(CacheError::EmptySource { path: folder });
        }

        let dir = self.manual_dir(spec);
        let write_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| CacheError::Write { path, source }
        };
        std::fs::create_dir_all(&dir).map_err(write_error(&dir))?;
        let staging = tempfile::Builder::new()
            .prefix("pages-")
            .tempdir_in(&dir)
            .map_err(write_error(&dir))?;
        for page in &accepted {
            let target = staging.path().join(&page.path);
            write_atomically(&target, page.text.as_bytes())?;
        }
        let pages_dir = staging.keep();
        let pages_dir_name = pages_dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let previous = std::fs::read(dir.join(CATALOG_FILE))
            .ok()
            .and_then(|bytes| serde_json::from_slice::<CatalogRecord>(&bytes).ok())
            .map(|record| record.pages_dir)
            .filter(|name| is_plain_name(name) && *name != pages_dir_name);
        let record = CatalogRecord {
            format: CATALOG_FORMAT,
            repository: spec.repository.to_owned(),
            tag: spec.tag.to_owned(),
            folder: spec.folder.to_owned(),
            imported_from: folder,
            pages_dir: pages_dir_name,
            pages: accepted
                .iter()
                .map(|page| PageRecord {
                    path: page.path.clone(),
                    bytes: page.text.len() as u64,
                })
                .collect(),
            digest: Some(digest(&accepted)),
        };
        let json = serde_json::to_vec_pretty(&record).map_err(|error| CacheError::Write {
            path: dir.join(CATALOG_FILE),
            source: io::Error::other(error),
        })?;
        write_atomically(&dir.join(CATALOG_FILE), &json)?;
        if let Some(previous) = previous {
            // Best effort: a reader that loaded the old record may still be
            // reading it, and a leftover directory costs only disk space.
            let _ignored = std::fs::remove_dir_all(dir.join(previous));
        }
        Ok(ImportReport {
            directory: dir,
            pages: accepted.len(),
            bytes: total,
            skipped,
        })
    }
}

/// A manual's identity by content: BLAKE3 over every page's path and text,
/// each prefixed by its length, in the order given (imports sort by path).
pub fn digest(pages: &[RawPage]) -> String {
    let mut hasher = blake3::Hasher::new();
    for page in pages {
        for part in [page.path.as_bytes(), page.text.as_bytes()] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
    }
    format!("blake3:{}", hasher.finalize().to_hex())
}

/// Writes `bytes` to `target` through a temporary file in the same
/// directory, so `target` is never seen half-written, and syncs the file
/// and then the directory, so a crash after the call keeps it.
pub(crate) fn write_atomically(target: &Path, bytes: &[u8]) -> Result<(), CacheError> {
    let parent = target.parent().unwrap_or(Path::new("."));
    let error = |source| CacheError::Write {
        path: target.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(parent).map_err(error)?;
    let mut temp = tempfile::NamedTempFile::new_in(parent).map_err(error)?;
    temp.write_all(bytes).map_err(error)?;
    temp.as_file().sync_all().map_err(error)?;
    temp.persist(target)
        .map_err(|persist| error(persist.error))?;
    // Directories cannot be opened for syncing on every platform; there
    // the rename is as durable as the platform makes it.
    if let Ok(directory) = std::fs::File::open(parent) {
        directory.sync_all().map_err(error)?;
    }
    Ok(())
}

/// Every regular `.md` file below `dir`, as (path relative to `base`, path).
/// Symbolic links are not followed.
fn collect_markdown(
    base: &Path,
    dir: &Path,
    out: &mut Vec<(String, PathBuf)>,
) -> Result<(), CacheError> {
    let entries = std::fs::read_dir(dir).map_err(|source| CacheError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    for entry in entries {
        let entry = entry.map_err(|source| CacheError::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = entry.path();
        let file_type = entry.file_type().map_err(|source| CacheError::Read {
            path: path.clone(),
            source,
        })?;
        if file_type.is_dir() {
            collect_markdown(base, &path, out)?;
        } else if file_type.is_file() && path.extension().is_some_and(|ext| ext == "md") {
            let relative = path
                .strip_prefix(base)
                .map(|relative| relative.to_string_lossy().replace('\\', "/"))
                .unwrap_or_default();
            if is_catalog_path(&relative) {
                out.push((relative, path));
            }
        }
    }
    Ok(())
}

fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['/', '\\']) && name != "." && name != ".."
}

/// A relative `/`-separated path without empty, `.` or `..` segments.
fn is_catalog_path(path: &str) -> bool {
    !path.is_empty() && !path.starts_with('/') && path.split('/').all(is_plain_name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::PIXI_MANUAL;

    fn source() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("docs/workspace")).expect("mkdir");
        std::fs::write(dir.path().join("docs/index.md"), "# Pixi\n").expect("write");
        std::fs::write(dir.path().join("docs/workspace/lock_file.md"), "Lock.\n").expect("write");
        std::fs::write(dir.path().join("docs/logo.svg"), "<svg/>").expect("write");
        std::fs::write(
            dir.path().join("docs/huge.md"),
            vec![b'x'; (MAX_PAGE_BYTES + 1) as usize],
        )
        .expect("write");
        dir
    }

    #[test]
    fn an_import_is_loaded_back_and_replaces_the_previous_one() {
        let source = source();
        let cache_dir = tempfile::tempdir().expect("tempdir");
        let cache = DocsCache::at(cache_dir.path());
        assert!(cache.load(&PIXI_MANUAL).expect("load").is_none());

        let report = cache.import(&PIXI_MANUAL, source.path()).expect("import");
        assert_eq!(report.pages, 2);
        assert_eq!(report.skipped.len(), 1);
        assert_eq!(report.skipped[0].path, "huge.md");
        assert!(
            report
                .directory
                .ends_with("github.com/prefix-dev/pixi/v0.77.0/docs")
        );

        let pages = cache.load(&PIXI_MANUAL).expect("load").expect("present");
        let paths: Vec<&str> = pages.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["index.md", "workspace/lock_file.md"]);

        std::fs::write(source.path().join("docs/extra.md"), "Extra.\n").expect("write");
        cache
            .import(&PIXI_MANUAL, &source.path().join("docs"))
            .expect("reimport");
        let pages = cache.load(&PIXI_MANUAL).expect("load").expect("present");
        assert_eq!(pages.len(), 3);
        let page_dirs = std::fs::read_dir(report.directory)
            .expect("dir")
            .filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.file_name().to_string_lossy().starts_with("pages-"))
            })
            .count();
        assert_eq!(page_dirs, 1, "the previous import's pages are removed");
    }

    #[test]
    fn an_empty_source_is_refused() {
        let empty = tempfile::tempdir().expect("tempdir");
        let cache_dir = tempfile::tempdir().expect("tempdir");
        let cache = DocsCache::at(cache_dir.path());
        assert!(matches!(
            cache.import(&PIXI_MANUAL, empty.path()),
            Err(CacheError::EmptySource { .. })
        ));
    }
}
