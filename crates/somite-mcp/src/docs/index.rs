//! Full-text search over one manual, with tantivy.
//!
//! The index lives in RAM. It is built from the normalised catalog on first
//! search (a manual is a few megabytes; building takes 60–80 ms, most of a
//! `somite docs search` process), and its files are kept in the
//! documentation cache ([`super::stored`]) so that a later process opens it
//! instead ([`DocsIndex::from_files`]).
//! Each page is one document with four analysed fields — title, headings,
//! path words and body — all English-stemmed so "dependencies" finds
//! "depends". A query is tokenised with the same analyser and scored with
//! BM25 as a disjunction of its terms over all fields, boosted by field
//! (title ≫ headings > path > body), plus phrase matches of the whole query
//! in the title, headings and body. User text never reaches a query parser,
//! so no input is a syntax error. Snippets come from the body with matched
//! terms in bold.
//!
//! A query costs well under a millisecond because nothing is read back from
//! the index but a page's ordinal (a fast field): the pages' text stays in
//! memory beside it, and a snippet is cut from the one passage (a block
//! between blank lines) that holds the most query words rather than from
//! the whole page — analysing every word of eight long pages for their
//! snippets was what made a query on the Nextflow manual cost 8 ms.

use super::catalog::Catalog;
use crate::limits::SNIPPET_CHARS;
use std::path::Path;
use std::sync::OnceLock;
use tantivy::collector::TopDocs;
use tantivy::directory::RamDirectory;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{FAST, Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions};
use tantivy::snippet::SnippetGenerator;
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{Directory, Index, IndexReader, Term, doc};

const ANALYZER: &str = "en_stem";
const WRITER_MEMORY: usize = 50_000_000;

/// Field weights: a match in a page's title says most about what it is.
const TITLE_BOOST: f32 = 6.0;
const HEADINGS_BOOST: f32 = 2.5;
const PATH_BOOST: f32 = 2.0;
const BODY_BOOST: f32 = 1.0;
const PHRASE_BOOST: f32 = 2.0;

/// The index could not be built or queried.
#[derive(Debug, thiserror::Error)]
#[error("documentation index: {0}")]
pub struct IndexError(#[from] tantivy::TantivyError);

/// One ranked page.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    pub path: String,
    pub title: String,
    pub score: f32,
    /// Context from the page body, matched terms in `**bold**`.
    pub snippet: String,
}

#[derive(Debug, Clone, Copy)]
struct Fields {
    title: Field,
    headings: Field,
    path_words: Field,
    body: Field,
}

/// The name of the fast field holding a document's page ordinal.
const ORDINAL: &str = "ordinal";
/// tantivy's record of the index's segments, written beside them.
const META_FILE: &str = "meta.json";

/// What a hit shows of its page, kept in memory beside the index.
struct IndexedPage {
    path: String,
    title: String,
    body: String,
    /// The body in lower case, where a passage's query words are counted;
    /// made when the page is first a hit, not for every page on load.
    lowered: OnceLock<String>,
}

/// A searchable manual.
pub struct DocsIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    analyzer: TextAnalyzer,
    pages: Vec<IndexedPage>,
}

impl std::fmt::Debug for DocsIndex {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("DocsIndex")
            .field("documents", &self.reader.searcher().num_docs())
            .finish_non_exhaustive()
    }
}

impl DocsIndex {
    /// Indexes every page of `catalog`.
    pub fn build(catalog: &Catalog) -> Result<Self, IndexError> {
        let text = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(ANALYZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let mut schema = Schema::builder();
        let ordinal = schema.add_u64_field(ORDINAL, FAST);
        let fields = Fields {
            title: schema.add_text_field("title", text.clone()),
            headings: schema.add_text_field("headings", text.clone()),
            path_words: schema.add_text_field("path_words", text.clone()),
            body: schema.add_text_field("body", text),
        };
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, WRITER_MEMORY)?;
        for (number, page) in catalog.pages().iter().enumerate() {
            writer.add_document(doc!(
                ordinal => number as u64,
                fields.title => page.title.as_str(),
                fields.headings => page.headings.join("\n"),
                fields.path_words => page.path.trim_end_matches(".md"),
                fields.body => page.markdown.as_str(),
            ))?;
        }
        writer.commit()?;
        writer.wait_merging_threads()?;
        Self::open(index, catalog)
    }

    /// The index whose files [`DocsIndex::files`] returned, over the same
    /// `catalog`.
    pub fn from_files(
        catalog: &Catalog,
        files: Vec<(String, Vec<u8>)>,
    ) -> Result<Self, IndexError> {
        let directory = RamDirectory::create();
        for (name, bytes) in files {
            directory
                .atomic_write(Path::new(&name), &bytes)
                .map_err(tantivy::TantivyError::from)?;
        }
        Self::open(Index::open(directory)?, catalog)
    }

    /// Every file of the index, by name, for [`DocsIndex::from_files`].
    pub fn files(&self) -> Result<Vec<(String, Vec<u8>)>, IndexError> {
        let directory = self.index.directory();
        let mut names: Vec<_> = directory
            .list_managed_files()
            .into_iter()
            .chain([Path::new(META_FILE).to_path_buf()])
            .collect();
        names.sort();
        names.dedup();
        let mut files = Vec::with_capacity(names.len());
        for name in names {
            // Lock files come and go with a writer; they are no part of the index.
            if !directory
                .exists(&name)
                .map_err(tantivy::TantivyError::from)?
                || name.to_string_lossy().starts_with(".tantivy")
            {
                continue;
            }
            let bytes = directory
                .atomic_read(&name)
                .map_err(tantivy::TantivyError::from)?;
            files.push((name.to_string_lossy().into_owned(), bytes));
        }
        Ok(files)
    }

    /// A searcher over `index`, whose documents are the pages of `catalog`.
    fn open(index: Index, catalog: &Catalog) -> Result<Self, IndexError> {
        let schema = index.schema();
        let fields = Fields {
            title: schema.get_field("title")?,
            headings: schema.get_field("headings")?,
            path_words: schema.get_field("path_words")?,
            body: schema.get_field("body")?,
        };
        let reader = index.reader()?;
        let documents = reader.searcher().num_docs();
        if documents != catalog.pages().len() as u64 {
            return Err(IndexError(tantivy::TantivyError::InvalidArgument(format!(
                "the index holds {documents} pages, the manual {}",
                catalog.pages().len()
            ))));
        }
        let analyzer = index.tokenizer_for_field(fields.body)?;
        let pages = catalog
            .pages()
            .iter()
            .map(|page| IndexedPage {
                path: page.path.clone(),
                title: page.title.clone(),
                body: page.markdown.clone(),
                lowered: OnceLock::new(),
            })
            .collect();
        Ok(Self {
            index,
            reader,
            fields,
            analyzer,
            pages,
        })
    }

    /// The best `limit` pages for `query`, best first.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit>, IndexError> {
        let Some((query, tokens)) = self.query(query) else {
            return Ok(Vec::new());
        };
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?;
        let mut snippets = SnippetGenerator::create(&searcher, &query, self.fields.body)?;
        snippets.set_max_num_chars(SNIPPET_CHARS);
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let ordinals = searcher
                .segment_reader(address.segment_ord)
                .fast_fields()
                .u64(ORDINAL)?;
            let Some(page) = ordinals
                .first(address.doc_id)
                .and_then(|ordinal| self.pages.get(ordinal as usize))
            else {
                continue;
            };
            let snippet = snippets.snippet(best_passage(page, &tokens));
            let snippet = if snippet.fragment().trim().is_empty() {
                leading_text(&page.body)
            } else {
                bold_highlights(snippet.fragment(), snippet.highlighted())
            };
            hits.push(SearchHit {
                path: page.path.clone(),
                title: page.title.clone(),
                score,
                snippet,
            });
        }
        Ok(hits)
    }

    /// The number of indexed pages.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The query, and its analysed words.
    fn query(&self, text: &str) -> Option<(BooleanQuery, Vec<String>)> {
        let mut analyzer = self.analyzer.clone();
        let mut tokens = Vec::new();
        let mut stream = analyzer.token_stream(text);
        while stream.advance() {
            let token = stream.token().text.clone();
            if !tokens.contains(&token) {
                tokens.push(token);
            }
        }
        if tokens.is_empty() {
            return None;
        }
        let weighted = [
            (self.fields.title, TITLE_BOOST),
            (self.fields.headings, HEADINGS_BOOST),
            (self.fields.path_words, PATH_BOOST),
            (self.fields.body, BODY_BOOST),
        ];
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field, boost) in weighted {
            for token in &tokens {
                let term = TermQuery::new(
                    Term::from_field_text(field, token),
                    IndexRecordOption::WithFreqs,
                );
                clauses.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(term), boost)),
                ));
            }
            if tokens.len() > 1 && field != self.fields.path_words {
                let phrase = PhraseQuery::new(
                    tokens
                        .iter()
                        .map(|token| Term::from_field_text(field, token))
                        .collect(),
                );
                clauses.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(phrase), boost * PHRASE_BOOST)),
                ));
            }
        }
        Some((BooleanQuery::new(clauses), tokens))
    }
}

/// The passage of `page` (a block between blank lines) that holds the most
/// of the query's analysed words, the first of equals; the whole body when
/// none holds any. A stem is looked for as a substring of the lower-cased
/// text ("depend" finds "dependencies"), which is enough to choose where
/// the snippet generator, which analyses properly, should look.
fn best_passage<'a>(page: &'a IndexedPage, tokens: &[String]) -> &'a str {
    let lowered = page.lowered.get_or_init(|| page.body.to_lowercase());
    let mut best = (0, 0..page.body.len());
    let mut start = 0;
    for end in passage_ends(lowered) {
        let passage = &lowered[start..end];
        let found = tokens
            .iter()
            .filter(|token| passage.contains(token.as_str()))
            .count();
        if found > best.0 {
            best = (found, start..end);
            if found == tokens.len() {
                break;
            }
        }
        start = end;
    }
    // Lower-casing can change a text's byte length; then the passage
    // bounds do not carry over and the whole body is used.
    let (start, end) = (best.1.start, best.1.end);
    if lowered.len() == page.body.len()
        && page.body.is_char_boundary(start)
        && page.body.is_char_boundary(end)
    {
        &page.body[start..end]
    } else {
        &page.body
    }
}

/// Where each passage of `text` ends: after every blank line, and at the end.
fn passage_ends(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.match_indices("\n\n")
        .map(|(at, separator)| at + separator.len())
        .chain(std::iter::once(text.len()))
}

/// `fragment` with each highlighted byte range wrapped in `**`.
fn bold_highlights(fragment: &str, highlighted: &[std::ops::Range<usize>]) -> String {
    let mut out = String::with_capacity(fragment.len() + highlighted.len() * 4);
    let mut cursor = 0;
    for range in highlighted {
        if range.start < cursor || range.end > fragment.len() {
            continue;
        }
        out.push_str(&fragment[cursor..range.start]);
        out.push_str("**");
        out.push_str(&fragment[range.clone()]);
        out.push_str("**");
        cursor = range.end;
    }
    out.push_str(&fragment[cursor..]);
    collapse_whitespace(&out)
}

fn leading_text(body: &str) -> String {
    let mut end = SNIPPET_CHARS.min(body.len());
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    collapse_whitespace(&body[..end])
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::docs::PIXI_MANUAL;
    use crate::docs::cache::RawPage;

    fn index() -> DocsIndex {
        let pages = [
            (
                "workspace/lock_file.md",
                "A lock file records exact versions.\n",
            ),
            (
                "workspace/advanced_tasks.md",
                "# Tasks\n\n## Depends on\n\nTasks can depend on other tasks.\n",
            ),
            (
                "reference/pixi_manifest.md",
                "# Manifest\n\nThe lock is mentioned. Files too.\n",
            ),
        ];
        let catalog = Catalog::build(
            &PIXI_MANUAL,
            pages
                .iter()
                .map(|(path, text)| RawPage {
                    path: (*path).into(),
                    text: (*text).into(),
                })
                .collect(),
        );
        DocsIndex::build(&catalog).expect("index")
    }

    #[test]
    fn the_page_about_the_query_ranks_first_with_a_bold_snippet() {
        let index = index();
        assert_eq!(index.len(), 3);
        let hits = index.search("lock file", 5).expect("search");
        assert_eq!(hits[0].path, "workspace/lock_file.md");
        assert_eq!(hits[0].title, "Lock file");
        assert!(hits[0].snippet.contains("**lock**"), "{}", hits[0].snippet);
        let hits = index.search("task dependencies", 5).expect("search");
        assert_eq!(hits[0].path, "workspace/advanced_tasks.md");
    }

    #[test]
    fn queries_without_words_or_matches_return_nothing() {
        let index = index();
        assert!(index.search("  ?!(", 5).expect("search").is_empty());
        assert!(index.search("zebra", 5).expect("search").is_empty());
        assert!(index.search("\"unbalanced", 5).is_ok());
    }
}
