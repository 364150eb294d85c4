//! Catalog search: the one ranking a person at the palette and an agent over
//! MCP both see.
//!
//! Ranking is deliberately simple and fully deterministic: weighted exact and prefix term matches, score
//! descending, then id. There is no fuzzy matching, because a catalog answer
//! an agent acts on must be reproducible from the query and the catalog
//! revision alone — which is also what the opaque cursor is bound to.

use crate::canonical::Revision;
use crate::catalog::Catalog;
use crate::error::{ErrorCode, Result, SomiteError};
use crate::limits::{DEFAULT_SEARCH_LIMIT, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT};
use crate::operator::{OperatorContract, OperatorKind, ParamType};
use crate::types::PortType;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// How much a term found in each part of a contract counts.
mod weight {
    pub const ID: u32 = 10;
    pub const TITLE: u32 = 8;
    pub const PACKAGE: u32 = 6;
    pub const PORT: u32 = 4;
    pub const PALETTE: u32 = 3;
    pub const OUTPUT: u32 = 3;
    pub const PARAM: u32 = 2;
    pub const RESOURCE: u32 = 2;
    pub const SYNONYM: u32 = 2;
}

/// Per-operator term weights, built once per catalog.
#[derive(Debug, Default)]
pub struct SearchIndex {
    terms: BTreeMap<String, BTreeMap<String, u32>>,
}

impl SearchIndex {
    pub fn build<'a>(contracts: impl IntoIterator<Item = &'a OperatorContract>) -> SearchIndex {
        let terms = contracts
            .into_iter()
            .map(|c| (c.id.clone(), index_terms(c)))
            .collect();
        SearchIndex { terms }
    }
}

fn index_terms(c: &OperatorContract) -> BTreeMap<String, u32> {
    let mut terms = BTreeMap::new();
    let mut add = |text: &str, w: u32| {
        for term in tokenize(text) {
            let slot = terms.entry(term).or_insert(0);
            *slot = (*slot).max(w);
        }
    };
    add(&c.id, weight::ID);
    add(&c.title, weight::TITLE);
    add(&c.palette, weight::PALETTE);
    for package in c.pixi.keys() {
        add(package, weight::PACKAGE);
    }
    if let Some(bin) = &c.bin {
        add(bin, weight::PACKAGE);
    }
    // A pipeline's call is named for its module (`BWA_MEM` of `bwa/mem`).
    if let Some(nf_core) = &c.nf_core {
        add(&nf_core.module, weight::PACKAGE);
    }
    for p in &c.params {
        add(&p.name, weight::PARAM);
        add(&p.label, weight::PARAM);
    }
    let type_terms = |ty: PortType| ty.name().to_ascii_lowercase();
    for port in &c.ports.inputs {
        add(&port.name, weight::PORT);
        for ty in std::iter::once(port.ty).chain(port.union.iter().copied()) {
            add(&type_terms(ty), weight::PORT);
            for s in ty.synonyms() {
                add(s, weight::SYNONYM);
            }
        }
        if let Some(r) = &port.resource {
            add(&r.profile, weight::RESOURCE);
            add(&r.title, weight::RESOURCE);
            add(&r.detail, weight::RESOURCE);
        }
    }
    for port in &c.ports.outputs {
        add(&port.name, weight::OUTPUT);
        add(&type_terms(port.ty), weight::OUTPUT);
        for s in port.ty.synonyms() {
            add(s, weight::SYNONYM);
        }
        if matches!(port.name.as_str(), "r1" | "r2") {
            add("paired mate", weight::SYNONYM);
        }
        if let Some(profile) = &port.resource_profile {
            add(profile, weight::RESOURCE);
        }
    }
    terms
}

/// Lower-cases and splits on anything that is not a letter or digit.
pub fn tokenize(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A search request.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    pub query: String,
    #[serde(default)]
    pub limit: Option<usize>,
    #[serde(default)]
    pub cursor: Option<String>,
}

/// A port as a search result shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PortSummary {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: PortType,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub union: Vec<PortType>,
    pub optional: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_profile: Option<String>,
}

/// A parameter as a search result shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ParamSummary {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ParamType,
    pub required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
}

/// One ranked operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SearchMatch {
    pub id: String,
    pub title: String,
    pub palette: String,
    pub kind: OperatorKind,
    /// The exact operator revision a new node will pin.
    pub revision: Revision,
    pub score: u32,
    pub matched_terms: Vec<String>,
    pub packages: BTreeMap<String, String>,
    /// The nf-core module it stands for (`bwa/mem`): replacing one of that
    /// module's calls with it needs no port mapping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nf_core_module: Option<String>,
    pub inputs: Vec<PortSummary>,
    pub outputs: Vec<PortSummary>,
    pub params: Vec<ParamSummary>,
}

/// One page of results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct SearchPage {
    pub query: String,
    pub catalog_revision: Revision,
    pub total_matches: usize,
    pub matches: Vec<SearchMatch>,
    /// The next page's cursor, valid only for this query and catalog revision.
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CursorBody {
    v: u8,
    q: String,
    r: Revision,
    o: usize,
}

impl Catalog {
    /// Ranks the catalog for `request` (see the module docs).
    pub fn search(&self, request: &SearchRequest) -> Result<SearchPage> {
        let terms = parse_query(&request.query)?;
        let limit = request.limit.unwrap_or(DEFAULT_SEARCH_LIMIT);
        if !(1..=MAX_SEARCH_LIMIT).contains(&limit) {
            return Err(SomiteError::new(
                ErrorCode::InvalidQuery,
                format!("limit must be within 1..={MAX_SEARCH_LIMIT}, not {limit}"),
                format!("ask for at most {MAX_SEARCH_LIMIT} results and page with the cursor"),
            ));
        }
        let query_key = query_key(&terms);
        let offset = match &request.cursor {
            None => 0,
            Some(cursor) => self.decode_cursor(cursor, &query_key)?,
        };

        let mut ranked: Vec<(u32, &str, Vec<String>)> = self
            .index()
            .terms
            .iter()
            .filter_map(|(id, indexed)| {
                let (score, matched) = score(indexed, &terms);
                (!matched.is_empty()).then_some((score, id.as_str(), matched))
            })
            .filter(|(_, _, matched)| terms.len() < 2 || matched.len() >= 2)
            .collect();
        if ranked.iter().any(|(_, _, m)| m.len() == terms.len()) {
            ranked.retain(|(_, _, m)| m.len() == terms.len());
        }
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));

        let total_matches = ranked.len();
        let matches: Vec<SearchMatch> = ranked
            .into_iter()
            .skip(offset)
            .take(limit)
            .map(|(score, id, matched_terms)| {
                let entry = self.get(id).expect("index and catalog agree");
                summarize(&entry.contract, &entry.revision, score, matched_terms)
            })
            .collect();
        let next = offset + matches.len();
        let next_cursor = (next < total_matches).then(|| {
            let body = CursorBody {
                v: 1,
                q: query_key,
                r: self.revision().clone(),
                o: next,
            };
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&body).expect("cursor serializes"))
        });
        Ok(SearchPage {
            query: request.query.clone(),
            catalog_revision: self.revision().clone(),
            total_matches,
            matches,
            next_cursor,
        })
    }

    fn decode_cursor(&self, cursor: &str, query_key: &str) -> Result<usize> {
        let invalid = |why: &str| {
            SomiteError::new(
                ErrorCode::InvalidCursor,
                format!("the cursor is not valid here: {why}"),
                "repeat the search without a cursor; a cursor is valid only for the query and catalog revision that produced it",
            )
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(cursor)
            .map_err(|_| invalid("it is not a Somite cursor"))?;
        let body: CursorBody =
            serde_json::from_slice(&bytes).map_err(|_| invalid("it is not a Somite cursor"))?;
        if body.v != 1 {
            return Err(invalid("it is from another cursor version"));
        }
        if body.r != *self.revision() {
            return Err(invalid("the catalog has changed since")
                .with_detail("catalog_revision", self.revision()));
        }
        if body.q != query_key {
            return Err(invalid("it belongs to another query"));
        }
        Ok(body.o)
    }
}

fn parse_query(query: &str) -> Result<Vec<String>> {
    let chars = query.chars().count();
    if chars == 0 || chars > MAX_QUERY_CHARS || query.chars().any(char::is_control) {
        return Err(SomiteError::new(
            ErrorCode::InvalidQuery,
            format!("a query is 1–{MAX_QUERY_CHARS} printable characters"),
            "search with a short single-concept query such as `fastq quality`",
        ));
    }
    let mut terms = Vec::new();
    for term in tokenize(query) {
        if !terms.contains(&term) {
            terms.push(term);
        }
    }
    if terms.is_empty() {
        return Err(SomiteError::new(
            ErrorCode::InvalidQuery,
            "the query has no letters or digits",
            "search with words such as `align reads` or a tool name",
        ));
    }
    Ok(terms)
}

fn query_key(terms: &[String]) -> String {
    blake3::hash(terms.join(" ").as_bytes()).to_hex()[..32].to_owned()
}

/// The score of one indexed entry (term → weight) and the query terms it
/// matched, in query order: the best of an exact match and half a prefix
/// match (terms of three characters or more) per term. The one ranking rule
/// of the operator catalog and of the nf-core pipeline search.
pub fn score(indexed: &BTreeMap<String, u32>, terms: &[String]) -> (u32, Vec<String>) {
    let mut total = 0;
    let mut matched = Vec::new();
    for term in terms {
        let exact = indexed.get(term).copied();
        let prefix = (term.chars().count() >= 3)
            .then(|| {
                indexed
                    .range(term.clone()..)
                    .take_while(|(t, _)| t.starts_with(term.as_str()))
                    .map(|(_, w)| (w / 2).max(1))
                    .max()
            })
            .flatten();
        if let Some(best) = exact.into_iter().chain(prefix).max() {
            total += best;
            matched.push(term.clone());
        }
    }
    (total, matched)
}

fn summarize(
    c: &OperatorContract,
    revision: &Revision,
    score: u32,
    matched_terms: Vec<String>,
) -> SearchMatch {
    let ports = |ports: &[crate::operator::PortSpec]| {
        ports
            .iter()
            .map(|p| PortSummary {
                name: p.name.clone(),
                ty: p.ty,
                union: p.union.clone(),
                optional: p.optional,
                resource_profile: p
                    .resource
                    .as_ref()
                    .map(|r| r.profile.clone())
                    .or_else(|| p.resource_profile.clone()),
            })
            .collect()
    };
    SearchMatch {
        id: c.id.clone(),
        title: c.title.clone(),
        palette: c.palette.clone(),
        kind: c.kind,
        revision: revision.clone(),
        score,
        matched_terms,
        packages: c.pixi.clone(),
        nf_core_module: c.nf_core.as_ref().map(|n| n.module.clone()),
        inputs: ports(&c.ports.inputs),
        outputs: ports(&c.ports.outputs),
        params: c
            .params
            .iter()
            .map(|p| ParamSummary {
                name: p.name.clone(),
                ty: p.ty,
                required: p.required,
                default: p.default.clone(),
                min: p.min,
                max: p.max,
                choices: p.choices.clone(),
            })
            .collect(),
    }
}
