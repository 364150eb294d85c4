//! A loaded manual: every page, normalised, with listing and paged reads.
//!
//! Pages are addressed by their path inside the manual folder
//! (`workspace/lock_file.md`), the same path the upstream repository uses, so
//! a citation is unambiguous. Reads are bounded slices cut at a line break,
//! with the offset to continue from.

use super::ManualSpec;
use super::cache::RawPage;
use super::normalize::{self, ManualContext};
use std::collections::HashMap;

/// One page of a manual.
#[derive(Debug, Clone)]
pub struct Page {
    pub path: String,
    pub title: String,
    /// The page normalised to Markdown.
    pub markdown: String,
    pub headings: Vec<String>,
}

/// A bounded slice of one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageSlice<'a> {
    pub content: &'a str,
    pub offset: usize,
    /// Where the next slice starts, when the page continues.
    pub next_offset: Option<usize>,
    pub total_bytes: usize,
}

/// All pages of one manual, sorted by path.
#[derive(Debug, Clone)]
pub struct Catalog {
    spec: &'static ManualSpec,
    pages: Vec<Page>,
    by_path: HashMap<String, usize>,
}

impl Catalog {
    /// Normalises `raw` pages into a catalog.
    pub fn build(spec: &'static ManualSpec, raw: Vec<RawPage>) -> Self {
        let raw: Vec<(String, String)> =
            raw.into_iter().map(|page| (page.path, page.text)).collect();
        let (labels, titles) = normalize::collect_targets(&raw);
        let raw_pages: HashMap<String, String> = raw.iter().cloned().collect();
        let context = ManualContext {
            markup: spec.markup,
            repository: spec.repository,
            tag: spec.tag,
            folder: spec.folder,
            raw_pages: &raw_pages,
            labels: &labels,
            titles: &titles,
        };
        let pages: Vec<Page> = raw
            .iter()
            .map(|(path, text)| {
                let normalized = normalize::normalize(text, path, &context);
                let headings = normalize::headings(&normalized.markdown);
                let title = normalized
                    .front_matter_title
                    .or_else(|| normalize::top_heading(&normalized.markdown))
                    .unwrap_or_else(|| title_from_path(path, spec.display_name));
                Page {
                    path: path.clone(),
                    title,
                    markdown: normalized.markdown,
                    headings,
                }
            })
            .collect();
        Self::from_pages(spec, pages)
    }

    /// A catalog of pages already normalised (as [`super::stored`] keeps
    /// them).
    pub fn from_pages(spec: &'static ManualSpec, mut pages: Vec<Page>) -> Self {
        pages.sort_by(|a, b| a.path.cmp(&b.path));
        let by_path = pages
            .iter()
            .enumerate()
            .map(|(index, page)| (page.path.clone(), index))
            .collect();
        Self {
            spec,
            pages,
            by_path,
        }
    }

    pub fn spec(&self) -> &'static ManualSpec {
        self.spec
    }

    pub fn pages(&self) -> &[Page] {
        &self.pages
    }

    /// The page at `path`; the `.md` suffix and a leading `./` are optional.
    pub fn page(&self, path: &str) -> Option<&Page> {
        let path = path.trim_start_matches("./");
        let index = self
            .by_path
            .get(path)
            .or_else(|| self.by_path.get(&format!("{path}.md")))?;
        self.pages.get(*index)
    }

    /// Up to `max_bytes` of `page` from byte `offset`, ending at a line break
    /// when one falls in the second half of the slice.
    pub fn read<'a>(&self, page: &'a Page, offset: usize, max_bytes: usize) -> PageSlice<'a> {
        let text = page.markdown.as_str();
        let total_bytes = text.len();
        let start = floor_char_boundary(text, offset.min(total_bytes));
        let mut end = floor_char_boundary(text, start.saturating_add(max_bytes).min(total_bytes));
        if end < total_bytes
            && let Some(newline) = text[start..end].rfind('\n')
            && newline + 1 > (end - start) / 2
        {
            end = start + newline + 1;
        }
        if end == start && start < total_bytes {
            // A slice smaller than one character still advances.
            end = ceil_char_boundary(text, start + 1);
        }
        PageSlice {
            content: &text[start..end],
            offset: start,
            next_offset: (end < total_bytes).then_some(end),
            total_bytes,
        }
    }
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_char_boundary(text: &str, mut index: usize) -> usize {
    while index < text.len() && !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// `workspace/lock_file.md` → "Lock file"; `build/index.md` → "Build".
fn title_from_path(path: &str, manual_name: &str) -> String {
    let trimmed = path.trim_end_matches(".md");
    let mut parts = trimmed.rsplit('/');
    let stem = match parts.next() {
        Some("index") => match parts.next() {
            Some(parent) => parent,
            None => return manual_name.to_owned(),
        },
        Some(stem) => stem,
        None => trimmed,
    };
    let words = stem.replace(['_', '-'], " ");
    let mut chars = words.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => manual_name.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::PIXI_MANUAL;

    fn catalog() -> Catalog {
        Catalog::build(
            &PIXI_MANUAL,
            vec![
                RawPage {
                    path: "workspace/lock_file.md".into(),
                    text: "Intro line.\n\n## What is a lock file?\n\nText é.\n".into(),
                },
                RawPage {
                    path: "reference/cli/pixi/lock.md".into(),
                    text: "---\ntitle: pixi lock\n---\n# [pixi](index.md) lock\n".into(),
                },
                RawPage {
                    path: "index.md".into(),
                    text: "# Getting Started\n".into(),
                },
            ],
        )
    }

    #[test]
    fn titles_come_from_front_matter_then_heading_then_path() {
        let catalog = catalog();
        let titles: Vec<(&str, &str)> = catalog
            .pages()
            .iter()
            .map(|p| (p.path.as_str(), p.title.as_str()))
            .collect();
        assert_eq!(
            titles,
            [
                ("index.md", "Getting Started"),
                ("reference/cli/pixi/lock.md", "pixi lock"),
                ("workspace/lock_file.md", "Lock file"),
            ]
        );
    }

    #[test]
    fn pages_are_found_with_or_without_the_suffix() {
        let catalog = catalog();
        assert!(catalog.page("workspace/lock_file").is_some());
        assert!(catalog.page("./workspace/lock_file.md").is_some());
        assert!(catalog.page("workspace/missing.md").is_none());
    }

    #[test]
    fn reads_are_bounded_and_resumable() {
        let catalog = catalog();
        let page = catalog.page("workspace/lock_file.md").expect("page");
        let mut offset = 0;
        let mut rebuilt = String::new();
        loop {
            let slice = catalog.read(page, offset, 16);
            assert!(slice.content.len() <= 16);
            rebuilt.push_str(slice.content);
            match slice.next_offset {
                Some(next) => offset = next,
                None => break,
            }
        }
        assert_eq!(rebuilt, page.markdown);
        let whole = catalog.read(page, 0, 1 << 20);
        assert_eq!(whole.next_offset, None);
        assert_eq!(whole.total_bytes, page.markdown.len());
    }
}
