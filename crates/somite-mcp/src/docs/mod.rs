//! The versioned documentation catalog of Pixi and Nextflow.
//!
//! Each server carries the manual of the exact release its CLI contract is
//! proven against, so an agent reads about the flags the server actually
//! passes rather than whatever the web shows today. A manual is identified
//! by data — repository, tag and folder ([`ManualSpec`]) — and lives in the
//! user's cache ([`cache`]), fetched once from that tag when online
//! ([`fetch`]) or imported from a local checkout of it, and reused by every
//! later session. On load its pages are normalised to
//! Markdown ([`normalize`]) into a [`Catalog`] (listing and paged reads), and
//! a full-text index ([`index`]) is built in memory on first search; both are
//! then kept in the cache ([`stored`]), and a later load opens them instead.
//! [`tools`] holds the documentation tools' inputs and results, shared by
//! both servers and by `somite docs`.

pub mod cache;
pub mod catalog;
pub mod fetch;
pub mod index;
pub mod normalize;
pub mod stored;
pub mod tools;

pub use cache::{CacheError, DocsCache, ImportReport};
pub use catalog::{Catalog, Page, PageSlice};
pub use index::{DocsIndex, IndexError, SearchHit};
pub use normalize::Markup;

use crate::envelope::ToolError;
use somite_api::ToolCode;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Which manual, at which upstream tag: the identity of a catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManualSpec {
    /// Short name used on the command line and in tool names (`pixi`).
    pub tool: &'static str,
    pub display_name: &'static str,
    /// `owner/name` on GitHub.
    pub repository: &'static str,
    pub tag: &'static str,
    /// The manual's folder in the repository.
    pub folder: &'static str,
    pub markup: Markup,
    /// Environment variable naming a local copy to import from.
    pub source_env: &'static str,
}

/// Pixi's manual at the release Somite's Pixi contract (0.77.x) is proven against.
pub const PIXI_MANUAL: ManualSpec = ManualSpec {
    tool: "pixi",
    display_name: "Pixi",
    repository: "prefix-dev/pixi",
    tag: "v0.77.0",
    folder: "docs",
    markup: Markup::MkDocs,
    source_env: somite_api::EnvVars::SOMITE_MCP_DOCS_SOURCE_PIXI,
};

/// Nextflow's manual at the release Somite's Nextflow contract (26.04.x) is proven against.
pub const NEXTFLOW_MANUAL: ManualSpec = ManualSpec {
    tool: "nextflow",
    display_name: "Nextflow",
    repository: "nextflow-io/nextflow",
    tag: "v26.04.6",
    folder: "docs",
    markup: Markup::Myst,
    source_env: somite_api::EnvVars::SOMITE_MCP_DOCS_SOURCE_NEXTFLOW,
};

/// Every manual Somite knows.
pub const MANUALS: [ManualSpec; 2] = [PIXI_MANUAL, NEXTFLOW_MANUAL];

impl ManualSpec {
    /// Looks a manual up by its tool name.
    pub fn named(tool: &str) -> Option<&'static ManualSpec> {
        MANUALS.iter().find(|manual| manual.tool == tool)
    }

    /// The page's source file at the tag, for citation.
    pub fn page_url(&self, path: &str) -> String {
        format!(
            "https://github.com/{}/blob/{}/{}/{}",
            self.repository, self.tag, self.folder, path
        )
    }

    /// How to make this manual available when it is not in the cache.
    pub fn import_hint(&self) -> String {
        format!(
            "Fetch it from {repo} at tag {tag} once with `somite docs fetch {tool}` (online; \
             `somite serve` does this by itself), or import a local checkout of that tag: \
             `somite docs import {tool} DIR` \
             (DIR is the checkout or its `{folder}` folder), or start the server with \
             `--docs-source DIR` or {env}=DIR.",
            repo = self.repository,
            tag = self.tag,
            tool = self.tool,
            folder = self.folder,
            env = self.source_env,
        )
    }
}

/// A manual could not be made available.
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    #[error(
        "the {} manual ({} {}) is not in the documentation cache",
        spec.display_name,
        spec.repository,
        spec.tag
    )]
    NotImported { spec: &'static ManualSpec },
    #[error(transparent)]
    Cache(#[from] CacheError),
}

/// The local copy to import a manual from: the explicit one, else the
/// manual's environment variable.
pub fn configured_source(spec: &ManualSpec, explicit: Option<&Path>) -> Option<PathBuf> {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(spec.source_env).map(PathBuf::from))
        .filter(|path| !path.as_os_str().is_empty())
}

/// One manual, loaded: its catalog and (once searched) its index.
#[derive(Debug)]
pub struct Manual {
    catalog: Catalog,
    index: OnceLock<Result<DocsIndex, IndexError>>,
    /// Where a freshly built index is kept for later loads, and its key.
    store: Option<(PathBuf, String)>,
    from_store: bool,
}

impl Manual {
    /// Loads `spec` from `cache`, importing it from `source` first when the
    /// cache does not hold it yet. A manual built and indexed by an earlier
    /// load of the same import is opened from the cache ([`stored`]);
    /// otherwise its pages are normalised here and its index is built on
    /// first search and then stored.
    pub fn load(
        spec: &'static ManualSpec,
        cache: &DocsCache,
        source: Option<&Path>,
    ) -> Result<Self, DocsError> {
        let stored_path = cache.manual_dir(spec).join(stored::FILE);
        if let Some(digest) = cache.recorded_digest(spec)? {
            match stored::load(&stored_path, spec, &stored::key(spec, &digest)) {
                Ok(Some((catalog, index))) => {
                    return Ok(Self {
                        catalog,
                        index: OnceLock::from(Ok(index)),
                        store: None,
                        from_store: true,
                    });
                }
                Ok(None) => {}
                Err(reason) => {
                    tracing::info!(path = %stored_path.display(), %reason, "rebuilding the stored search index");
                }
            }
        }
        let pages = match cache.load(spec)? {
            Some(pages) => pages,
            None => match source {
                Some(source) => {
                    let report = cache.import(spec, source)?;
                    for skipped in &report.skipped {
                        tracing::warn!(path = %skipped.path, reason = %skipped.reason, "page not imported");
                    }
                    cache.load(spec)?.ok_or(DocsError::NotImported { spec })?
                }
                None => {
                    return Err(DocsError::NotImported { spec });
                }
            },
        };
        // Keyed by the pages actually read, not by the record's claim.
        let key = stored::key(spec, &cache::digest(&pages));
        let mut manual = Self::from_catalog(Catalog::build(spec, pages));
        manual.store = Some((stored_path, key));
        Ok(manual)
    }

    /// A manual of `catalog` that is never stored.
    pub fn from_catalog(catalog: Catalog) -> Self {
        Self {
            catalog,
            index: OnceLock::new(),
            store: None,
            from_store: false,
        }
    }

    /// Whether the catalog and index were opened from the cache rather than
    /// built by this load.
    pub fn from_store(&self) -> bool {
        self.from_store
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The full-text index, built on first use (blocking: call it off the
    /// async executor).
    pub fn index(&self) -> Result<&DocsIndex, &IndexError> {
        self.index
            .get_or_init(|| {
                let built = DocsIndex::build(&self.catalog);
                if let (Ok(index), Some((path, key))) = (&built, &self.store) {
                    // A failure to store costs the next process a rebuild, nothing more.
                    if let Err(error) = stored::save(path, key, &self.catalog, index) {
                        tracing::warn!(%error, "cannot keep the search index in the cache");
                    }
                }
                built
            })
            .as_ref()
    }
}

impl From<&DocsError> for ToolError {
    fn from(error: &DocsError) -> Self {
        let recovery = match error {
            DocsError::NotImported { spec } => spec.import_hint(),
            DocsError::Cache(_) => {
                "Check that the documentation cache directory is writable, or set SOMITE_MCP_DOCS_CACHE_DIR.".to_owned()
            }
        };
        ToolError::new(ToolCode::DocsUnavailable, error.to_string(), recovery)
    }
}
