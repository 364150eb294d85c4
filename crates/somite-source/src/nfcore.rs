//! The nf-core catalog: parsing `pipelines.json`, ranking it for a query,
//! and naming the exact commit of a release.
//!
//! The document is what `nf-core pipelines list` reads (nf-core/tools,
//! `nf_core/pipelines/list.py`): `{"remote_workflows": [{name, full_name,
//! description, topics, archived, stargazers_count, releases: [{tag_name,
//! tag_sha, published_at}]}]}`. As there, a release without `published_at`
//! is a pre-release and is skipped; so is `dev`, which names a moving branch,
//! and any release whose `tag_sha` is not a full commit id, because Somite
//! only pins sources to commits. A document without that shape is
//! `provider_response_invalid` naming nf-core.
//!
//! Ranking is deterministic, like the operator catalog's search: a query
//! term counts by where it matches exactly (name 10, topic 6, description
//! 3) or, from three characters, as a prefix (half that); pipelines that
//! match every term are preferred to those matching some. Archived
//! pipelines rank after every current one but are kept: their releases
//! are still exact, reproducible sources (a paper may cite one), and
//! hiding them would answer "not found" for a pipeline that exists. Ties
//! break by name. An empty query lists every pipeline by name. The cursor
//! is bound to the query and the catalog revision (the BLAKE3 of the
//! document as served).

use crate::error::{Provider, Result, SourceError};
use crate::ids::{CommitSha, Repository};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use somite_workflow::search::{score, tokenize};
use std::collections::BTreeMap;

/// Results per page unless asked otherwise.
pub const DEFAULT_SEARCH_LIMIT: usize = 20;
/// The most results one page may hold.
pub const MAX_SEARCH_LIMIT: usize = 100;
/// The longest query accepted, in characters.
pub const MAX_QUERY_CHARS: usize = 256;

mod weight {
    pub const NAME: u32 = 10;
    pub const TOPIC: u32 = 6;
    pub const DESCRIPTION: u32 = 3;
}

/// One published, pinnable release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NfCoreRelease {
    /// The Git tag, e.g. `1.12.0`.
    pub tag: String,
    /// The commit the tag names (the catalog's `tag_sha`).
    pub commit: CommitSha,
    /// RFC 3339.
    pub published_at: String,
}

/// One pipeline of the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NfCorePipeline {
    /// The short name, e.g. `fetchngs`.
    pub name: String,
    /// The GitHub repository, e.g. `nf-core/fetchngs`.
    pub repository: Repository,
    pub description: String,
    pub topics: Vec<String>,
    pub archived: bool,
    /// Newest first.
    pub releases: Vec<NfCoreRelease>,
}

/// A parsed catalog document.
#[derive(Debug, Clone, PartialEq)]
pub struct NfCoreCatalog {
    /// `blake3:` and the hex digest of the document as served.
    pub revision: String,
    /// In document order.
    pub pipelines: Vec<NfCorePipeline>,
}

#[derive(Deserialize)]
struct WireCatalog {
    remote_workflows: Vec<WireWorkflow>,
}

#[derive(Deserialize)]
struct WireWorkflow {
    name: String,
    full_name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    topics: Option<Vec<String>>,
    #[serde(default)]
    archived: Option<bool>,
    #[serde(default)]
    releases: Option<Vec<WireRelease>>,
}

#[derive(Deserialize)]
struct WireRelease {
    tag_name: String,
    #[serde(default)]
    tag_sha: Option<String>,
    #[serde(default)]
    published_at: Option<String>,
}

/// The nf-core branch every pipeline has, never a pinnable release.
const DEV_BRANCH: &str = "dev";

impl NfCoreCatalog {
    /// Parses the document as nf-co.re serves it.
    pub fn parse(body: &[u8]) -> Result<NfCoreCatalog> {
        let invalid = |detail: String| SourceError::ProviderResponseInvalid {
            provider: Provider::NfCore,
            detail,
        };
        let wire: WireCatalog = serde_json::from_slice(body).map_err(|e| {
            invalid(format!(
                "pipelines.json does not have the documented shape: {e}"
            ))
        })?;
        let mut pipelines = Vec::with_capacity(wire.remote_workflows.len());
        for w in wire.remote_workflows {
            let repository: Repository = w
                .full_name
                .parse()
                .map_err(|_| invalid(format!("`{}` is not a GitHub repository", w.full_name)))?;
            if repository.name() != w.name {
                return Err(invalid(format!(
                    "pipeline `{}` names the repository `{}`",
                    w.name, w.full_name
                )));
            }
            let mut releases: Vec<NfCoreRelease> = w
                .releases
                .unwrap_or_default()
                .into_iter()
                .filter(|r| r.tag_name != DEV_BRANCH)
                .filter_map(|r| {
                    let published: jiff::Timestamp = r.published_at?.parse().ok()?;
                    Some(NfCoreRelease {
                        commit: r.tag_sha?.parse().ok()?,
                        tag: r.tag_name,
                        published_at: published.to_string(),
                    })
                })
                .collect();
            releases.sort_by(|a, b| {
                b.published_at
                    .cmp(&a.published_at)
                    .then_with(|| b.tag.cmp(&a.tag))
            });
            pipelines.push(NfCorePipeline {
                name: w.name,
                repository,
                description: w.description.unwrap_or_default(),
                topics: w.topics.unwrap_or_default(),
                archived: w.archived.unwrap_or(false),
                releases,
            });
        }
        Ok(NfCoreCatalog {
            revision: format!("blake3:{}", blake3::hash(body).to_hex()),
            pipelines,
        })
    }

    /// The pipeline named `pipeline` (`fetchngs` or `nf-core/fetchngs`, any case).
    pub fn pipeline(&self, pipeline: &str) -> Result<&NfCorePipeline> {
        let name = pipeline.strip_prefix("nf-core/").unwrap_or(pipeline);
        self.pipelines
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| SourceError::PipelineNotFound {
                pipeline: pipeline.to_owned(),
            })
    }

    /// The exact published release `release` of `pipeline`.
    pub fn release(
        &self,
        pipeline: &str,
        release: &str,
    ) -> Result<(&NfCorePipeline, &NfCoreRelease)> {
        let p = self.pipeline(pipeline)?;
        match p.releases.iter().find(|r| r.tag == release) {
            Some(r) => Ok((p, r)),
            None => Err(SourceError::ReleaseNotFound {
                pipeline: p.name.clone(),
                release: release.to_owned(),
                known: p.releases.iter().map(|r| r.tag.clone()).collect(),
            }),
        }
    }

    /// One page of pipelines ranked for `query` (see the module documentation).
    pub fn search(
        &self,
        query: &str,
        cursor: Option<&str>,
        limit: Option<usize>,
    ) -> Result<NfCoreSearchResults> {
        let (terms, limit) = search_terms(query, limit)?;
        let query_key = blake3::hash(terms.join(" ").as_bytes()).to_hex()[..32].to_owned();
        let offset = match cursor {
            None => 0,
            Some(cursor) => decode_cursor(cursor, &query_key, &self.revision)?,
        };

        let mut ranked: Vec<(&NfCorePipeline, u32, Vec<String>)> = self
            .pipelines
            .iter()
            .filter_map(|p| {
                let (score, matched) = score(&index_terms(p), &terms);
                (terms.is_empty() || !matched.is_empty()).then_some((p, score, matched))
            })
            .collect();
        if ranked.iter().any(|(_, _, m)| m.len() == terms.len()) {
            ranked.retain(|(_, _, m)| m.len() == terms.len());
        }
        ranked.sort_by(|a, b| {
            (a.0.archived, std::cmp::Reverse(a.1), &a.0.name).cmp(&(
                b.0.archived,
                std::cmp::Reverse(b.1),
                &b.0.name,
            ))
        });

        let total_matches = ranked.len();
        let matches: Vec<NfCoreMatch> = ranked
            .into_iter()
            .skip(offset)
            .take(limit)
            .map(|(p, score, matched_terms)| NfCoreMatch {
                name: p.name.clone(),
                repository: p.repository.clone(),
                description: p.description.clone(),
                topics: p.topics.clone(),
                archived: p.archived,
                score,
                matched_terms,
                latest_release: p.releases.first().cloned(),
                releases: p.releases.clone(),
            })
            .collect();
        let next = offset + matches.len();
        let next_cursor = (next < total_matches).then(|| {
            let body = CursorBody {
                v: 1,
                q: query_key,
                r: self.revision.clone(),
                o: next,
            };
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&body).expect("cursor serializes"))
        });
        Ok(NfCoreSearchResults {
            total_matches,
            matches,
            next_cursor,
        })
    }
}

/// One ranked pipeline with every pinnable release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct NfCoreMatch {
    pub name: String,
    pub repository: Repository,
    pub description: String,
    pub topics: Vec<String>,
    pub archived: bool,
    pub score: u32,
    /// The query terms this pipeline matched, in query order.
    pub matched_terms: Vec<String>,
    /// The newest published release, if any.
    pub latest_release: Option<NfCoreRelease>,
    /// Newest first; each is an exact repository/release/commit triple.
    pub releases: Vec<NfCoreRelease>,
}

/// The ranked part of a search page; [`crate::NfCoreSearchPage`] adds
/// where the catalog came from.
#[derive(Debug, Clone, PartialEq)]
pub struct NfCoreSearchResults {
    pub total_matches: usize,
    pub matches: Vec<NfCoreMatch>,
    pub next_cursor: Option<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CursorBody {
    v: u8,
    q: String,
    r: String,
    o: usize,
}

fn decode_cursor(cursor: &str, query_key: &str, revision: &str) -> Result<usize> {
    let invalid = |detail: &str| SourceError::InvalidCursor {
        detail: detail.to_owned(),
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(cursor)
        .map_err(|_| invalid("it is not a Somite cursor"))?;
    let body: CursorBody =
        serde_json::from_slice(&bytes).map_err(|_| invalid("it is not a Somite cursor"))?;
    if body.v != 1 {
        return Err(invalid("it is from another cursor version"));
    }
    if body.r != revision {
        return Err(invalid("the nf-core catalog has changed since"));
    }
    if body.q != query_key {
        return Err(invalid("it belongs to another query"));
    }
    Ok(body.o)
}

/// Lower-cased terms split on anything that is not a letter or digit, each once.
fn parse_query(query: &str) -> Result<Vec<String>> {
    if query.chars().count() > MAX_QUERY_CHARS || query.chars().any(char::is_control) {
        return Err(SourceError::InvalidQuery {
            detail: format!("a query is at most {MAX_QUERY_CHARS} printable characters"),
        });
    }
    let mut terms = Vec::new();
    for term in tokenize(query) {
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    Ok(terms)
}

fn index_terms(p: &NfCorePipeline) -> BTreeMap<String, u32> {
    let mut terms = BTreeMap::new();
    let mut add = |text: &str, w: u32| {
        for term in tokenize(text) {
            let slot = terms.entry(term).or_insert(0);
            *slot = (*slot).max(w);
        }
    };
    add(&p.name, weight::NAME);
    // The whole name too, so `rna-seq`-style names match as one word.
    add(&p.name.replace(['-', '_'], ""), weight::NAME);
    for topic in &p.topics {
        add(topic, weight::TOPIC);
    }
    add(&p.description, weight::DESCRIPTION);
    terms
}

/// The terms and page size of a search, or why the query is refused: checked
/// before the catalog is fetched, so a bad query is refused even with the
/// provider down.
pub(crate) fn search_terms(query: &str, limit: Option<usize>) -> Result<(Vec<String>, usize)> {
    let terms = parse_query(query)?;
    let limit = limit.unwrap_or(DEFAULT_SEARCH_LIMIT);
    if !(1..=MAX_SEARCH_LIMIT).contains(&limit) {
        return Err(SourceError::InvalidQuery {
            detail: format!("limit must be within 1..={MAX_SEARCH_LIMIT}, not {limit}"),
        });
    }
    Ok((terms, limit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use somite_api::{DomainCode, SourceCode};

    const FIXTURE: &[u8] = include_bytes!("../tests/data/pipelines.json");

    fn catalog() -> NfCoreCatalog {
        NfCoreCatalog::parse(FIXTURE).unwrap()
    }

    #[test]
    fn releases_are_newest_first_with_their_commits() {
        let c = catalog();
        let (p, r) = c.release("nf-core/fetchngs", "1.12.0").unwrap();
        assert_eq!(p.repository.as_str(), "nf-core/fetchngs");
        assert_eq!(
            r.commit.as_str(),
            "8ec2d934f9301c818d961b1e4fdf7fc79610bdc5"
        );
        let tags: Vec<_> = p.releases.iter().map(|r| r.tag.as_str()).collect();
        assert_eq!(tags, ["1.12.0", "1.11.0", "1.10.1", "1.10.0"]);
    }

    #[test]
    fn an_unknown_release_lists_the_known_ones() {
        let err = catalog().release("demo", "9.9.9").unwrap_err();
        assert_eq!(err.code(), SourceCode::ReleaseNotFound);
        assert!(
            err.recovery().contains("1.0.1, 1.0.0"),
            "{}",
            err.recovery()
        );
        assert_eq!(
            catalog().release("nope", "1").unwrap_err().code(),
            SourceCode::PipelineNotFound
        );
    }

    #[test]
    fn dev_unpublished_and_unpinnable_releases_are_skipped() {
        let body = br#"{"remote_workflows":[{"name":"x","full_name":"nf-core/x","releases":[
            {"tag_name":"dev","tag_sha":"0000000000000000000000000000000000000001","published_at":"2024-01-01T00:00:00Z"},
            {"tag_name":"2.0.0rc","tag_sha":"0000000000000000000000000000000000000002"},
            {"tag_name":"1.9","tag_sha":"abc","published_at":"2024-01-01T00:00:00Z"},
            {"tag_name":"1.0","tag_sha":"0000000000000000000000000000000000000003","published_at":"2023-01-01T00:00:00Z"}]}]}"#;
        let c = NfCoreCatalog::parse(body).unwrap();
        let tags: Vec<_> = c.pipelines[0]
            .releases
            .iter()
            .map(|r| r.tag.as_str())
            .collect();
        assert_eq!(tags, ["1.0"]);
        assert_eq!(c.pipelines[0].description, "");
    }

    #[test]
    fn a_document_of_another_shape_names_nf_core() {
        for body in [
            &b"[]"[..],
            br#"{"remote_workflows":[{"name":"x"}]}"#,
            br#"{"remote_workflows":[{"name":"x","full_name":"a/b"}]}"#,
        ] {
            let err = NfCoreCatalog::parse(body).unwrap_err();
            assert_eq!(err.code(), SourceCode::ProviderResponseInvalid);
            assert!(err.to_string().contains("nf-core"), "{err}");
        }
    }

    #[test]
    fn ranking_prefers_names_then_topics_then_descriptions() {
        let c = catalog();
        let names = |q: &str| -> Vec<String> {
            c.search(q, None, None)
                .unwrap()
                .matches
                .into_iter()
                .map(|m| m.name)
                .collect()
        };
        assert_eq!(names("rnaseq"), ["rnaseq"]);
        assert_eq!(names("fastq"), ["fetchngs"]);
        assert_eq!(names("demo"), ["demo"]);
        assert_eq!(names(""), ["demo", "fetchngs", "rnaseq"]);
        // `sequencing` is only in rnaseq's description.
        let m = &c.search("sequencing", None, None).unwrap().matches;
        assert_eq!(
            (m[0].name.as_str(), m[0].score),
            ("rnaseq", weight::DESCRIPTION)
        );
    }

    #[test]
    fn archived_pipelines_rank_last() {
        let body = br#"{"remote_workflows":[
            {"name":"aaa","full_name":"nf-core/aaa","description":"rna tool","archived":true,"releases":[]},
            {"name":"zzz","full_name":"nf-core/zzz","description":"rna tool","archived":false,"releases":[]}]}"#;
        let c = NfCoreCatalog::parse(body).unwrap();
        let page = c.search("rna", None, None).unwrap();
        let names: Vec<_> = page
            .matches
            .iter()
            .map(|m| (m.name.as_str(), m.archived))
            .collect();
        assert_eq!(names, [("zzz", false), ("aaa", true)]);
    }

    #[test]
    fn cursors_page_and_are_bound_to_query_and_revision() {
        let c = catalog();
        let first = c.search("", None, Some(2)).unwrap();
        assert_eq!(first.total_matches, 3);
        let cursor = first.next_cursor.unwrap();
        let second = c.search("", Some(&cursor), Some(2)).unwrap();
        assert_eq!(second.matches.len(), 1);
        assert_eq!(second.matches[0].name, "rnaseq");
        assert!(second.next_cursor.is_none());

        let other_query = c.search("demo", Some(&cursor), None).unwrap_err();
        assert_eq!(other_query.code(), DomainCode::InvalidCursor);
        let mut changed = c.clone();
        changed.revision = "blake3:other".into();
        assert_eq!(
            changed
                .search("", Some(&cursor), Some(2))
                .unwrap_err()
                .code(),
            DomainCode::InvalidCursor
        );
        assert_eq!(
            c.search("", Some("garbage!"), None).unwrap_err().code(),
            DomainCode::InvalidCursor
        );
        assert_eq!(
            c.search("", None, Some(0)).unwrap_err().code(),
            DomainCode::InvalidQuery
        );
    }
}
