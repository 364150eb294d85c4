//! One search over NCBI and Ensembl: read the query, ask the providers
//! that can answer it, and turn their answers into results with provenance
//! and recipes.
//!
//! Exact accessions go to the one endpoint that resolves them; free text
//! goes to the providers' own search (SRA `esearch`, Datasets' taxon
//! reports, Ensembl's species list and symbol lookup). When several
//! providers answer a free-text search, one that fails becomes a warning;
//! a search nobody could answer fails with the first provider's code.

use crate::accession::{Accession, Reading, classify, resolves_to};
use crate::config::{DataConfig, limits};
use crate::ensembl;
use crate::error::{DataError, Result};
use crate::fetch::{Fetched, Fetcher, age, rfc3339};
use crate::model::{
    AccessionKind, AssemblyFacts, DataProvider, Facts, GeneFacts, Interpretation, OrganismFacts,
    Provenance, ProviderChoice, ReadsFacts, ResultKind, SearchKind, SearchRequest, SearchResponse,
    SearchResult,
};
use crate::ncbi;
use crate::recipe;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

/// The search service; one per process, so its rate limiters see every
/// request.
pub struct DataSearch {
    fetcher: Fetcher,
}

/// Where the next page starts, bound to the query that produced it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Cursor {
    /// A digest of the query, kind, organism and provider.
    q: String,
    /// E-utilities' `retstart`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    o: Option<u32>,
    /// Datasets' `page_token`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    t: Option<String>,
}

struct Query<'a> {
    text: &'a str,
    kind: Option<SearchKind>,
    organism: Option<&'a str>,
    provider: Option<ProviderChoice>,
    limit: u32,
    cursor: Cursor,
}

impl Query<'_> {
    fn asks(&self, provider: ProviderChoice) -> bool {
        self.provider.is_none_or(|p| p == provider)
    }

    fn first_page(&self) -> bool {
        self.cursor.o.is_none() && self.cursor.t.is_none()
    }
}

/// One page gathered so far.
#[derive(Default)]
struct Gathered {
    results: Vec<SearchResult>,
    next: Option<Cursor>,
    warnings: Vec<String>,
    first_error: Option<DataError>,
    answered: bool,
}

impl Gathered {
    fn take(&mut self, outcome: Result<(Vec<SearchResult>, Option<Cursor>)>) {
        match outcome {
            Ok((results, next)) => {
                self.answered = true;
                self.results.extend(results);
                if next.is_some() {
                    self.next = next;
                }
            }
            Err(error) => {
                let envelope = error.to_envelope();
                self.warnings
                    .push(format!("{}: {}", envelope.code, envelope.message));
                self.first_error.get_or_insert(error);
            }
        }
    }

    fn finish(self) -> Result<(Vec<SearchResult>, Option<Cursor>, Vec<String>)> {
        match (self.answered, self.first_error) {
            (false, Some(error)) => Err(error),
            _ => Ok((self.results, self.next, self.warnings)),
        }
    }
}

impl DataSearch {
    pub fn new(config: DataConfig) -> Result<DataSearch> {
        Ok(DataSearch {
            fetcher: Fetcher::new(config)?,
        })
    }

    fn config(&self) -> &DataConfig {
        self.fetcher.config()
    }

    pub async fn search(&self, request: &SearchRequest) -> Result<SearchResponse> {
        let query = checked(request)?;
        let reading = classify(query.text, query.kind);
        let (exact, accession) = match reading {
            Reading::Exact(accession) => (true, Some(accession)),
            Reading::AmbiguousNumber => {
                return Err(DataError::query(
                    "query",
                    "bare digits may be an NCBI Gene id or a taxid",
                ));
            }
            Reading::FreeText if query.kind == Some(SearchKind::Accession) => {
                return Err(DataError::query(
                    "query",
                    format!("`{}` is not an accession Somite recognises", query.text),
                ));
            }
            Reading::FreeText => (false, None),
        };
        let (results, next, warnings) = match &accession {
            Some(accession) => self.resolve(&query, accession).await?,
            None => self.free_text(&query).await?,
        };
        let next_cursor = next.map(|mut cursor| {
            cursor.q = fingerprint(request);
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&cursor).unwrap_or_default())
        });
        Ok(SearchResponse {
            query: query.text.to_owned(),
            kind: query.kind,
            interpretation: Interpretation {
                exact,
                accession_kind: accession.map(|a| a.kind),
            },
            results,
            next_cursor,
            warnings,
        })
    }

    async fn resolve(
        &self,
        query: &Query<'_>,
        accession: &Accession,
    ) -> Result<(Vec<SearchResult>, Option<Cursor>, Vec<String>)> {
        let target = resolves_to(accession.kind);
        if let Some(kind) = query.kind
            && kind != SearchKind::Accession
            && kind != target
        {
            return Err(DataError::query(
                "kind",
                format!("{} is not a {kind:?} accession", accession.value).to_lowercase(),
            ));
        }
        let owner = match accession.kind {
            AccessionKind::EnsemblGene => Some(ProviderChoice::Ensembl),
            AccessionKind::Taxid => None,
            _ => Some(ProviderChoice::Ncbi),
        };
        if let (Some(owner), Some(asked)) = (owner, query.provider)
            && owner != asked
        {
            return Err(DataError::query(
                "provider",
                format!(
                    "{} is resolved by {owner:?}, not {asked:?}",
                    accession.value
                ),
            ));
        }
        let mut gathered = Gathered::default();
        let value = accession.value.as_str();
        match accession.kind {
            AccessionKind::SraRun => {
                let outcome = self.reads(value, query, Some(value)).await;
                gathered.take(outcome);
            }
            AccessionKind::SraStudy | AccessionKind::Bioproject | AccessionKind::Biosample => {
                let outcome = self.reads(value, query, None).await;
                gathered.take(outcome);
            }
            AccessionKind::RefseqAssembly | AccessionKind::GenbankAssembly => {
                let url = self.datasets(&["genome", "accession", value, "dataset_report"]);
                let outcome = self.ncbi_assemblies(url).await;
                gathered.take(outcome);
            }
            AccessionKind::NcbiGene => {
                let url = self.datasets(&["gene", "id", value, "dataset_report"]);
                let outcome = self.ncbi_genes(url).await;
                gathered.take(outcome);
            }
            AccessionKind::EnsemblGene => {
                let url = self.rest(&["lookup", "id", value]);
                let outcome = self.ensembl_gene(url).await;
                gathered.take(outcome);
            }
            AccessionKind::Taxid => {
                let outcome = self.organisms(value, query).await;
                gathered.take(outcome);
            }
        }
        gathered.finish()
    }

    async fn free_text(
        &self,
        query: &Query<'_>,
    ) -> Result<(Vec<SearchResult>, Option<Cursor>, Vec<String>)> {
        let mut gathered = Gathered::default();
        match query.kind.unwrap_or(SearchKind::Organism) {
            SearchKind::Reads => {
                if !query.asks(ProviderChoice::Ncbi) {
                    return Err(DataError::query(
                        "provider",
                        "reads are searched in NCBI's SRA",
                    ));
                }
                let term = match query.organism {
                    Some(organism) => format!(
                        "({}) AND \"{}\"[Organism]",
                        query.text,
                        organism.replace('"', "")
                    ),
                    None => query.text.to_owned(),
                };
                let outcome = self.reads(&term, query, None).await;
                gathered.take(outcome);
            }
            SearchKind::Assembly => {
                if query.asks(ProviderChoice::Ncbi) {
                    let taxon = query.organism.unwrap_or(query.text);
                    let mut url = self.datasets(&["genome", "taxon", taxon, "dataset_report"]);
                    url.query_pairs_mut()
                        .append_pair("filters.reference_only", "true")
                        .append_pair("page_size", &query.limit.to_string());
                    if let Some(token) = &query.cursor.t {
                        url.query_pairs_mut().append_pair("page_token", token);
                    }
                    let narrow = query.organism.map(|_| query.text.to_lowercase());
                    let outcome = self.ncbi_assemblies(url).await.map(|(results, next)| {
                        let kept = results
                            .into_iter()
                            .filter(|r| narrow.as_ref().is_none_or(|n| matches_text(r, n)))
                            .collect();
                        (kept, next)
                    });
                    gathered.take(outcome);
                }
                if query.asks(ProviderChoice::Ensembl) && query.first_page() {
                    let species = query.organism.unwrap_or(query.text);
                    let outcome = self.ensembl_assembly(species).await;
                    gathered.take(outcome);
                }
            }
            SearchKind::Organism => {
                let outcome = self.organisms(query.text, query).await;
                gathered.take(outcome);
            }
            SearchKind::Gene => {
                let Some(organism) = query.organism else {
                    return Err(DataError::query(
                        "organism",
                        "a gene symbol needs an organism (a name or a taxid)",
                    ));
                };
                if query.asks(ProviderChoice::Ncbi) {
                    let mut url = self.datasets(&[
                        "gene",
                        "symbol",
                        query.text,
                        "taxon",
                        organism,
                        "dataset_report",
                    ]);
                    url.query_pairs_mut()
                        .append_pair("page_size", &query.limit.to_string());
                    let outcome = self.ncbi_genes(url).await;
                    gathered.take(outcome);
                }
                if query.asks(ProviderChoice::Ensembl) && query.first_page() {
                    let outcome = self.ensembl_symbol(organism, query.text).await;
                    gathered.take(outcome);
                }
            }
            SearchKind::Accession => unreachable_accession()?,
        }
        gathered.finish()
    }

    // ---- NCBI ----

    fn datasets(&self, segments: &[&str]) -> reqwest::Url {
        url_of(&self.config().ncbi_datasets_url, segments)
    }

    fn eutils(&self, tool: &str) -> reqwest::Url {
        url_of(&self.config().ncbi_eutils_url, &[tool])
    }

    /// SRA runs matching an `esearch` term, one page of experiments.
    async fn reads(
        &self,
        term: &str,
        query: &Query<'_>,
        only_run: Option<&str>,
    ) -> Result<(Vec<SearchResult>, Option<Cursor>)> {
        let provider = DataProvider::NcbiEutils;
        let offset = query.cursor.o.unwrap_or(0);
        let mut url = self.eutils("esearch.fcgi");
        url.query_pairs_mut()
            .append_pair("db", "sra")
            .append_pair("term", term)
            .append_pair("retmode", "json")
            .append_pair("retstart", &offset.to_string())
            .append_pair("retmax", &query.limit.to_string());
        let Some(found) = self.fetcher.get(provider, url).await? else {
            return Ok((Vec::new(), None));
        };
        let ids = self.parsed(provider, &found, ncbi::esearch)?;
        if ids.ids.is_empty() {
            return Ok((Vec::new(), None));
        }
        let mut url = self.eutils("esummary.fcgi");
        url.query_pairs_mut()
            .append_pair("db", "sra")
            .append_pair("id", &ids.ids.join(","))
            .append_pair("retmode", "json");
        let Some(summary) = self.fetcher.get(provider, url).await? else {
            return Ok((Vec::new(), None));
        };
        let runs = self.parsed(provider, &summary, ncbi::sra_summaries)?;
        let provenance = self.provenance(provider, &summary, None);
        let results = runs
            .into_iter()
            .filter(|run| only_run.is_none_or(|wanted| run.run == wanted))
            .map(|facts| reads_result(facts, provenance.clone()))
            .collect();
        let next_offset = offset as u64 + ids.ids.len() as u64;
        let next = (only_run.is_none() && next_offset < ids.count).then(|| Cursor {
            o: u32::try_from(next_offset).ok(),
            ..Cursor::default()
        });
        Ok((results, next))
    }

    /// One page of an NCBI Datasets report: fetched (a 404 is an empty
    /// page), read by `parse`, each item made a result carrying the page's
    /// provenance, and the cursor of the next page.
    async fn ncbi_datasets_page<T>(
        &self,
        url: reqwest::Url,
        parse: fn(&[u8]) -> std::result::Result<ncbi::Page<T>, String>,
        to_result: fn(T, Provenance) -> SearchResult,
    ) -> Result<(Vec<SearchResult>, Option<Cursor>)> {
        let provider = DataProvider::NcbiDatasets;
        let Some(found) = self.fetcher.get(provider, url).await? else {
            return Ok((Vec::new(), None));
        };
        let page = self.parsed(provider, &found, parse)?;
        let provenance = self.provenance(provider, &found, None);
        let results = page
            .items
            .into_iter()
            .map(|facts| to_result(facts, provenance.clone()))
            .collect();
        Ok((results, page.next_page_token.map(token_cursor)))
    }

    async fn ncbi_assemblies(
        &self,
        url: reqwest::Url,
    ) -> Result<(Vec<SearchResult>, Option<Cursor>)> {
        self.ncbi_datasets_page(url, ncbi::assembly_page, assembly_result)
            .await
    }

    async fn ncbi_genes(&self, url: reqwest::Url) -> Result<(Vec<SearchResult>, Option<Cursor>)> {
        self.ncbi_datasets_page(url, ncbi::gene_page, gene_result)
            .await
    }

    /// Organisms by taxid or name: NCBI Taxonomy, with Ensembl's species
    /// name and assembly added when Ensembl has the organism.
    async fn organisms(
        &self,
        taxon: &str,
        query: &Query<'_>,
    ) -> Result<(Vec<SearchResult>, Option<Cursor>)> {
        let species = if query.asks(ProviderChoice::Ensembl) {
            Some(self.ensembl_species().await)
        } else {
            None
        };
        if !query.asks(ProviderChoice::Ncbi) {
            let (found, all) = species.expect("asked Ensembl")?;
            let provenance = self.provenance(DataProvider::EnsemblRest, &found, None);
            return Ok((
                ensembl::find_species(&all, taxon)
                    .map(|s| organism_result(s.facts(), provenance))
                    .into_iter()
                    .collect(),
                None,
            ));
        }
        let provider = DataProvider::NcbiDatasets;
        let mut url = self.datasets(&["taxonomy", "taxon", taxon, "dataset_report"]);
        url.query_pairs_mut()
            .append_pair("page_size", &query.limit.to_string());
        if let Some(token) = &query.cursor.t {
            url.query_pairs_mut().append_pair("page_token", token);
        }
        let Some(found) = self.fetcher.get(provider, url).await? else {
            return Ok((Vec::new(), None));
        };
        let page = self.parsed(provider, &found, ncbi::taxonomy_page)?;
        let provenance = self.provenance(provider, &found, None);
        let ensembl = species.and_then(|s| s.ok()).map(|(_, all)| all);
        let results = page
            .items
            .into_iter()
            .map(|mut facts| {
                if let (Some(all), Some(taxid)) = (&ensembl, facts.taxid)
                    && let Some(s) = ensembl::find_species(all, &taxid.to_string())
                {
                    facts.ensembl_species = Some(s.name.clone());
                    facts.ensembl_assembly = s.assembly.clone();
                }
                organism_result(facts, provenance.clone())
            })
            .collect();
        Ok((results, page.next_page_token.map(token_cursor)))
    }

    // ---- Ensembl ----

    fn rest(&self, segments: &[&str]) -> reqwest::Url {
        let mut url = url_of(&self.config().ensembl_rest_url, segments);
        url.query_pairs_mut()
            .append_pair("content-type", "application/json");
        url
    }

    async fn ensembl_species(&self) -> Result<(Fetched, Vec<ensembl::Species>)> {
        let provider = DataProvider::EnsemblRest;
        let found = self
            .required(provider, self.rest(&["info", "species"]))
            .await?;
        let all = self.parsed(provider, &found, ensembl::species)?;
        Ok((found, all))
    }

    async fn ensembl_release(&self) -> Result<u32> {
        let provider = DataProvider::EnsemblRest;
        let found = self
            .required(provider, self.rest(&["info", "data"]))
            .await?;
        self.parsed(provider, &found, ensembl::release)
    }

    async fn ensembl_gene(&self, url: reqwest::Url) -> Result<(Vec<SearchResult>, Option<Cursor>)> {
        let provider = DataProvider::EnsemblRest;
        let release = self.ensembl_release().await?;
        let Some(found) = self.fetcher.get(provider, url).await? else {
            return Ok((Vec::new(), None));
        };
        let facts = self.parsed(provider, &found, ensembl::gene)?;
        let provenance = self.provenance(provider, &found, Some(format!("Ensembl {release}")));
        Ok((vec![gene_result(facts, provenance)], None))
    }

    async fn ensembl_symbol(
        &self,
        organism: &str,
        symbol: &str,
    ) -> Result<(Vec<SearchResult>, Option<Cursor>)> {
        let (_, all) = self.ensembl_species().await?;
        let Some(species) = ensembl::find_species(&all, organism) else {
            return Ok((Vec::new(), None));
        };
        let url = self.rest(&["lookup", "symbol", &species.name, symbol]);
        self.ensembl_gene(url).await
    }

    /// A species' current assembly, with a recipe when the release's
    /// `CHECKSUMS` lists its genome FASTA.
    async fn ensembl_assembly(
        &self,
        organism: &str,
    ) -> Result<(Vec<SearchResult>, Option<Cursor>)> {
        let rest = DataProvider::EnsemblRest;
        let (_, all) = self.ensembl_species().await?;
        let Some(species) = ensembl::find_species(&all, organism) else {
            return Ok((Vec::new(), None));
        };
        let release = self.ensembl_release().await?;
        let found = self
            .required(rest, self.rest(&["info", "assembly", &species.name]))
            .await?;
        let info = self.parsed(rest, &found, ensembl::assembly_info)?;
        let assembly = info.default_coord_system_version.clone();
        let release_dir = format!("release-{release}");
        let fasta_sums = self
            .checksums(&[&release_dir, "fasta", &species.name, "dna", "CHECKSUMS"])
            .await?;
        let gtf_sums = self
            .checksums(&[&release_dir, "gtf", &species.name, "CHECKSUMS"])
            .await?;
        let fasta = ensembl::pick_fasta(&fasta_sums, &species.name, &assembly);
        let gtf = ensembl::pick_gtf(&gtf_sums, &species.name, &assembly, release);
        let (recipe, recipe_unavailable) = match fasta {
            Some((_, region)) => (
                Some(recipe::ensembl_assembly(&recipe::EnsemblRelease {
                    base_url: &self.config().ensembl_ftp_url,
                    release,
                    species: &species.name,
                    assembly: &assembly,
                    region,
                    with_gtf: gtf.is_some(),
                })),
                None,
            ),
            None => (
                None,
                Some(format!(
                    "Ensembl release {release}'s CHECKSUMS lists no genome FASTA for {} {assembly}",
                    species.name
                )),
            ),
        };
        let organism_facts = species.facts();
        let facts = AssemblyFacts {
            accession: info
                .assembly_accession
                .clone()
                .unwrap_or_else(|| info.assembly_name.clone()),
            name: Some(info.assembly_name.clone()),
            level: None,
            refseq_category: None,
            organism: organism_facts.scientific_name,
            taxid: organism_facts.taxid,
            annotation: gtf.map(|_| format!("Ensembl release {release}")),
            total_length: None,
            release_date: info.assembly_date.clone(),
            paired_accession: None,
        };
        let provenance = self.provenance(rest, &found, Some(format!("Ensembl {release}")));
        Ok((
            vec![SearchResult {
                kind: ResultKind::Assembly,
                id: facts.accession.clone(),
                title: format!("{} (Ensembl {release})", assembly_title(&facts)),
                provenance,
                facts: Facts::Assembly(facts),
                recipe,
                recipe_unavailable,
            }],
            None,
        ))
    }

    async fn checksums(&self, segments: &[&str]) -> Result<Vec<recipe::EnsemblFile>> {
        let provider = DataProvider::EnsemblFtp;
        let url = url_of(&self.config().ensembl_ftp_url, segments);
        let Some(found) = self.fetcher.get(provider, url).await? else {
            return Ok(Vec::new());
        };
        self.parsed(provider, &found, |body| {
            let text = std::str::from_utf8(body).map_err(|_| "CHECKSUMS is not text".to_owned())?;
            ensembl::checksums(text)
        })
    }

    /// `found` read by `parse`: kept in the cache when it parsed, dropped
    /// from it when it did not (so the provider is asked again at once).
    fn parsed<T>(
        &self,
        provider: DataProvider,
        found: &Fetched,
        parse: impl FnOnce(&[u8]) -> std::result::Result<T, String>,
    ) -> Result<T> {
        match parse(&found.body) {
            Ok(value) => {
                self.fetcher.keep(found);
                Ok(value)
            }
            Err(detail) => {
                self.fetcher.forget(found);
                Err(invalid(provider, found, detail))
            }
        }
    }

    /// A GET whose 404 is the provider's failure, not an empty answer.
    async fn required(&self, provider: DataProvider, url: reqwest::Url) -> Result<Fetched> {
        let endpoint = url.to_string();
        self.fetcher
            .get(provider, url)
            .await?
            .ok_or_else(|| DataError::Unavailable {
                provider,
                detail: format!("{endpoint} answered HTTP 404"),
            })
    }

    fn provenance(
        &self,
        provider: DataProvider,
        fetched: &Fetched,
        release: Option<String>,
    ) -> Provenance {
        Provenance {
            provider,
            endpoint: fetched.endpoint.clone(),
            retrieved_at: rfc3339(fetched.retrieved_at),
            from_cache: fetched.from_cache,
            age_seconds: age(self.config().clock.now(), fetched.retrieved_at).as_secs(),
            release,
        }
    }
}

fn unreachable_accession() -> Result<()> {
    // `kind: accession` with free text was refused before.
    Err(DataError::query(
        "kind",
        "an accession search needs an accession",
    ))
}

/// The request checked against every limit; the cursor decoded and bound
/// to this query.
fn checked(request: &SearchRequest) -> Result<Query<'_>> {
    let text = request.query.trim();
    if text.is_empty() {
        return Err(DataError::query("query", "the query is empty"));
    }
    if text.chars().count() > limits::MAX_QUERY_CHARS || text.chars().any(char::is_control) {
        return Err(DataError::query(
            "query",
            format!(
                "the query must be one line of at most {} characters",
                limits::MAX_QUERY_CHARS
            ),
        ));
    }
    let organism = request
        .organism
        .as_deref()
        .map(str::trim)
        .filter(|o| !o.is_empty());
    if organism.is_some_and(|o| {
        o.chars().count() > limits::MAX_QUERY_CHARS || o.chars().any(char::is_control)
    }) {
        return Err(DataError::query("organism", "the organism is too long"));
    }
    let limit = request.limit.unwrap_or(limits::DEFAULT_LIMIT);
    if !(1..=limits::MAX_LIMIT).contains(&limit) {
        return Err(DataError::query(
            "limit",
            format!("limit must be 1 to {}", limits::MAX_LIMIT),
        ));
    }
    let cursor = match &request.cursor {
        None => Cursor::default(),
        Some(text) => {
            let cursor: Cursor = URL_SAFE_NO_PAD
                .decode(text)
                .ok()
                .and_then(|bytes| serde_json::from_slice(&bytes).ok())
                .ok_or_else(|| DataError::query("cursor", "the cursor is not one Somite issued"))?;
            if cursor.q != fingerprint(request) {
                return Err(DataError::query(
                    "cursor",
                    "the cursor belongs to another query",
                ));
            }
            cursor
        }
    };
    Ok(Query {
        text,
        kind: request.kind,
        organism,
        provider: request.provider,
        limit,
        cursor,
    })
}

/// What a cursor is bound to: everything but the cursor and the limit.
fn fingerprint(request: &SearchRequest) -> String {
    let bound = serde_json::json!([
        request.query.trim(),
        request.kind,
        request.organism.as_deref().map(str::trim),
        request.provider,
    ]);
    blake3::hash(bound.to_string().as_bytes()).to_hex()[..16].to_owned()
}

fn token_cursor(token: String) -> Cursor {
    Cursor {
        t: Some(token),
        ..Cursor::default()
    }
}

fn url_of(base: &str, segments: &[&str]) -> reqwest::Url {
    // Bases are checked http(s) URLs (config); a segment is pushed encoded,
    // so a query cannot add path components or parameters.
    let mut url = reqwest::Url::parse(base).expect("a checked base URL");
    if let Ok(mut path) = url.path_segments_mut() {
        path.pop_if_empty();
        for segment in segments {
            path.push(segment);
        }
    }
    url
}

fn invalid(provider: DataProvider, fetched: &Fetched, detail: String) -> DataError {
    DataError::Invalid {
        provider,
        endpoint: fetched.endpoint.clone(),
        detail,
    }
}

fn matches_text(result: &SearchResult, needle: &str) -> bool {
    let Facts::Assembly(facts) = &result.facts else {
        return false;
    };
    facts.accession.to_lowercase().contains(needle)
        || facts
            .name
            .as_deref()
            .is_some_and(|n| n.to_lowercase().contains(needle))
        || facts
            .organism
            .as_deref()
            .is_some_and(|o| o.to_lowercase().contains(needle))
}

fn assembly_title(facts: &AssemblyFacts) -> String {
    let mut title = facts.accession.clone();
    if let Some(name) = &facts.name {
        title = format!("{name} ({title})");
    }
    if let Some(organism) = &facts.organism {
        title = format!("{organism} {title}");
    }
    title
}

fn assembly_result(facts: AssemblyFacts, provenance: Provenance) -> SearchResult {
    let recipe = recipe::ncbi_assembly(&facts.accession, facts.annotation.is_some());
    SearchResult {
        kind: ResultKind::Assembly,
        id: facts.accession.clone(),
        title: assembly_title(&facts),
        provenance,
        facts: Facts::Assembly(facts),
        recipe: Some(recipe),
        recipe_unavailable: None,
    }
}

fn reads_result(facts: ReadsFacts, provenance: Provenance) -> SearchResult {
    let (recipe, recipe_unavailable) = match recipe::sra_run(&facts.run, facts.layout) {
        Some(recipe) => (Some(recipe), None),
        None => (
            None,
            Some(
                "SRA states no library layout, so single or paired output cannot be chosen".into(),
            ),
        ),
    };
    let title = [
        Some(facts.run.as_str()),
        facts.organism.as_deref(),
        facts.platform.as_deref(),
        facts.layout.map(|l| match l {
            crate::model::Layout::Paired => "paired",
            crate::model::Layout::Single => "single",
        }),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ");
    SearchResult {
        kind: ResultKind::Reads,
        id: facts.run.clone(),
        title,
        provenance,
        facts: Facts::Reads(facts),
        recipe,
        recipe_unavailable,
    }
}

fn gene_result(facts: GeneFacts, provenance: Provenance) -> SearchResult {
    let id = facts
        .ensembl_id
        .clone()
        .filter(|_| provenance.provider == DataProvider::EnsemblRest)
        .or_else(|| facts.ncbi_gene_id.clone())
        .unwrap_or_default();
    let title = [facts.symbol.as_deref(), facts.organism.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
    SearchResult {
        kind: ResultKind::Gene,
        id,
        title,
        provenance,
        facts: Facts::Gene(facts),
        recipe: None,
        recipe_unavailable: Some(
            "a gene is fetched with its assembly: search kind assembly for its organism".into(),
        ),
    }
}

fn organism_result(facts: OrganismFacts, provenance: Provenance) -> SearchResult {
    SearchResult {
        kind: ResultKind::Organism,
        id: facts.taxid.map(|t| t.to_string()).unwrap_or_default(),
        title: [
            facts.scientific_name.as_deref(),
            facts.common_name.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · "),
        provenance,
        facts: Facts::Organism(facts),
        recipe: None,
        recipe_unavailable: Some(
            "an organism has no files of its own: search kind assembly or reads with this organism"
                .into(),
        ),
    }
}
