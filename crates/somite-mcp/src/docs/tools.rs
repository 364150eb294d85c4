//! The documentation tools' inputs and results, shared by both servers and
//! by `somite docs`, so the command line and an agent see the same thing.

use super::{Manual, ManualSpec};
use crate::envelope::ToolError;
use crate::limits::{
    DEFAULT_READ_BYTES, DEFAULT_SEARCH_HITS, MAX_QUERY_CHARS, MAX_READ_BYTES, MAX_SEARCH_HITS,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use somite_api::{DomainCode, ToolCode};

/// `*_docs_list` takes no arguments.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocsListArgs {}

/// `*_docs_read`: one page, or one slice of it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocsReadArgs {
    /// The page's path as listed by `*_docs_list` (e.g. `workspace/lock_file.md`).
    #[schemars(length(min = 1, max = 512))]
    pub path: String,
    /// Byte offset to start from: 0, or a previous read's `next_offset`.
    #[serde(default)]
    pub offset: Option<u64>,
    /// Bytes to return at most (default 32768, at most 131072).
    #[serde(default)]
    #[schemars(range(min = 1, max = 131_072))]
    pub max_bytes: Option<u32>,
}

/// `*_docs_search`: full-text search over the manual.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DocsSearchArgs {
    /// Words to look for, e.g. `lock file` or `process directives`.
    #[schemars(length(min = 1, max = 200))]
    pub query: String,
    /// Pages to return at most (default 8, at most 25).
    #[serde(default)]
    #[schemars(range(min = 1, max = 25))]
    pub limit: Option<u32>,
}

/// Which manual a result comes from.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ManualInfo {
    pub tool: String,
    pub repository: String,
    pub tag: String,
    pub folder: String,
    pub page_count: usize,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PageEntry {
    pub path: String,
    pub title: String,
    /// Size of the normalised Markdown.
    pub bytes: usize,
}

/// Every page of the manual.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocsList {
    pub manual: ManualInfo,
    pub pages: Vec<PageEntry>,
}

/// A page, or a slice of it, as Markdown.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocsPage {
    pub manual: ManualInfo,
    pub path: String,
    pub title: String,
    /// The page's source at the manual's tag.
    pub source_url: String,
    pub offset: usize,
    /// Pass as `offset` to read on; null at the end of the page.
    pub next_offset: Option<usize>,
    pub total_bytes: usize,
    pub content: String,
}

/// Ranked pages for a query.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocsSearch {
    pub manual: ManualInfo,
    pub query: String,
    pub hits: Vec<DocsHit>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DocsHit {
    /// 1 for the best match.
    pub rank: usize,
    pub path: String,
    pub title: String,
    /// BM25 relevance; comparable only within one result.
    pub score: f32,
    /// Context from the page with the matched words in bold.
    pub snippet: String,
    pub source_url: String,
}

fn manual_info(manual: &Manual) -> ManualInfo {
    let spec: &ManualSpec = manual.catalog().spec();
    ManualInfo {
        tool: spec.tool.to_owned(),
        repository: spec.repository.to_owned(),
        tag: spec.tag.to_owned(),
        folder: spec.folder.to_owned(),
        page_count: manual.catalog().pages().len(),
    }
}

/// The complete page list.
pub fn list(manual: &Manual) -> DocsList {
    DocsList {
        manual: manual_info(manual),
        pages: manual
            .catalog()
            .pages()
            .iter()
            .map(|page| PageEntry {
                path: page.path.clone(),
                title: page.title.clone(),
                bytes: page.markdown.len(),
            })
            .collect(),
    }
}

/// One bounded slice of a page.
pub fn read(manual: &Manual, args: &DocsReadArgs) -> Result<DocsPage, ToolError> {
    let catalog = manual.catalog();
    let tool = catalog.spec().tool;
    let page = catalog.page(&args.path).ok_or_else(|| {
        ToolError::new(
            DomainCode::NotFound,
            format!(
                "the {} manual has no page {:?}",
                catalog.spec().display_name,
                args.path
            ),
            format!("Use a path from {tool}_docs_list, or find the page with {tool}_docs_search."),
        )
    })?;
    let max_bytes = args.max_bytes.map_or(DEFAULT_READ_BYTES, |max| {
        (max as usize).clamp(1, MAX_READ_BYTES)
    });
    let offset = usize::try_from(args.offset.unwrap_or(0)).unwrap_or(usize::MAX);
    let slice = catalog.read(page, offset, max_bytes);
    Ok(DocsPage {
        manual: manual_info(manual),
        path: page.path.clone(),
        title: page.title.clone(),
        source_url: catalog.spec().page_url(&page.path),
        offset: slice.offset,
        next_offset: slice.next_offset,
        total_bytes: slice.total_bytes,
        content: slice.content.to_owned(),
    })
}

/// Ranked search (blocking: builds the index on first use).
pub fn search(manual: &Manual, args: &DocsSearchArgs) -> Result<DocsSearch, ToolError> {
    let query = args.query.trim();
    if query.is_empty() || query.chars().count() > MAX_QUERY_CHARS {
        return Err(ToolError::new(
            ToolCode::InvalidArgument,
            format!("a query has 1 to {MAX_QUERY_CHARS} characters"),
            "Search with a few keywords, e.g. `lock file`.",
        ));
    }
    let limit = args.limit.map_or(DEFAULT_SEARCH_HITS, |limit| {
        (limit as usize).clamp(1, MAX_SEARCH_HITS)
    });
    let search_failed = |error: &dyn std::fmt::Display| {
        ToolError::new(
            ToolCode::SearchFailed,
            error.to_string(),
            "Read pages through the docs list tool instead; report the failure.",
        )
    };
    let index = manual.index().map_err(|error| search_failed(error))?;
    let hits = index
        .search(query, limit)
        .map_err(|error| search_failed(&error))?;
    let spec = manual.catalog().spec();
    Ok(DocsSearch {
        manual: manual_info(manual),
        query: query.to_owned(),
        hits: hits
            .into_iter()
            .enumerate()
            .map(|(position, hit)| DocsHit {
                rank: position + 1,
                source_url: spec.page_url(&hit.path),
                path: hit.path,
                title: hit.title,
                score: hit.score,
                snippet: hit.snippet,
            })
            .collect(),
    })
}
