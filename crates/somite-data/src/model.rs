//! The wire shapes of one search: the request every surface accepts (HTTP
//! query, MCP arguments, CLI flags) and the answer every surface returns.
//!
//! The web client's zod schemas and the MCP output schema follow these
//! types; `/work`'s contract for issue 19 documents them for humans.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use somite_workflow::transaction::Operation;
use somite_workflow::types::PortType;

/// What the user looks for. Absent: an exact accession resolves exactly,
/// other text searches organisms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchKind {
    Reads,
    Assembly,
    Organism,
    Gene,
    /// The query must be an exact accession.
    Accession,
}

/// Which public provider to ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProviderChoice {
    Ncbi,
    Ensembl,
}

/// One search, as the MCP tool, the HTTP route and the CLI take it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    /// An accession (SRR…, PRJNA…, SAMN…, GCF_…/GCA_…, ENSG…, `GeneID:672`,
    /// `txid9606`) or free text (an organism name, a gene symbol).
    pub query: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<SearchKind>,
    /// An organism name or NCBI taxid that narrows free text (required for
    /// gene symbols).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organism: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<ProviderChoice>,
    /// Results per page (1 to 50, default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// The previous answer's `next_cursor`, verbatim, with the same query.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// The classes of accession Somite resolves exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AccessionKind {
    /// SRR, ERR, DRR.
    SraRun,
    /// SRP, ERP, DRP.
    SraStudy,
    /// PRJNA, PRJEB, PRJDB.
    Bioproject,
    /// SAMN, SAMEA, SAMD.
    Biosample,
    /// GCF_.
    RefseqAssembly,
    /// GCA_.
    GenbankAssembly,
    /// ENSG…, ENSMUSG…: an Ensembl gene stable id.
    EnsemblGene,
    /// `GeneID:672`, or digits with `kind: gene`.
    NcbiGene,
    /// `txid9606`, `taxid:9606`, or digits with `kind: organism`.
    Taxid,
}

/// How the query was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Interpretation {
    pub exact: bool,
    pub accession_kind: Option<AccessionKind>,
}

/// One page of results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResponse {
    pub query: String,
    pub kind: Option<SearchKind>,
    pub interpretation: Interpretation,
    pub results: Vec<SearchResult>,
    /// Pass back as `cursor` for the next page; `null` when there is none.
    pub next_cursor: Option<String>,
    /// A provider that failed while another answered (`provider: code: message`).
    pub warnings: Vec<String>,
}

/// What a result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResultKind {
    Reads,
    Assembly,
    Organism,
    Gene,
}

/// One thing found, with where it came from and how to fetch it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResult {
    pub kind: ResultKind,
    /// The accession, stable id or taxid.
    pub id: String,
    pub title: String,
    pub provenance: Provenance,
    pub facts: Facts,
    /// The native operators that fetch it, as one transaction's operations.
    pub recipe: Option<Recipe>,
    /// Why there is no recipe, when there is none.
    pub recipe_unavailable: Option<String>,
}

/// The provider endpoints Somite reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DataProvider {
    NcbiDatasets,
    NcbiEutils,
    EnsemblRest,
    EnsemblFtp,
}

impl DataProvider {
    pub fn as_str(self) -> &'static str {
        match self {
            DataProvider::NcbiDatasets => "ncbi_datasets",
            DataProvider::NcbiEutils => "ncbi_eutils",
            DataProvider::EnsemblRest => "ensembl_rest",
            DataProvider::EnsemblFtp => "ensembl_ftp",
        }
    }

    /// The organisation whose published rate limit applies.
    pub fn choice(self) -> ProviderChoice {
        match self {
            DataProvider::NcbiDatasets | DataProvider::NcbiEutils => ProviderChoice::Ncbi,
            DataProvider::EnsemblRest | DataProvider::EnsemblFtp => ProviderChoice::Ensembl,
        }
    }
}

/// Where a result came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Provenance {
    pub provider: DataProvider,
    /// The URL asked, without any API key.
    pub endpoint: String,
    /// When the provider answered (RFC 3339); older than now when cached.
    pub retrieved_at: String,
    pub from_cache: bool,
    pub age_seconds: u64,
    /// The provider's release or version when it states one.
    pub release: Option<String>,
}

/// The key facts of a result; absent facts are `null`, never guessed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Facts {
    Reads(ReadsFacts),
    Assembly(AssemblyFacts),
    Organism(OrganismFacts),
    Gene(GeneFacts),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    Single,
    Paired,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReadsFacts {
    pub run: String,
    pub experiment: Option<String>,
    pub study: Option<String>,
    pub bioproject: Option<String>,
    pub biosample: Option<String>,
    pub organism: Option<String>,
    pub taxid: Option<u64>,
    pub platform: Option<String>,
    pub instrument: Option<String>,
    pub layout: Option<Layout>,
    pub spots: Option<u64>,
    pub bases: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AssemblyFacts {
    pub accession: String,
    pub name: Option<String>,
    pub level: Option<String>,
    pub refseq_category: Option<String>,
    pub organism: Option<String>,
    pub taxid: Option<u64>,
    /// The annotation's name (for example a RefSeq annotation release).
    pub annotation: Option<String>,
    pub total_length: Option<u64>,
    pub release_date: Option<String>,
    pub paired_accession: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OrganismFacts {
    pub taxid: Option<u64>,
    pub scientific_name: Option<String>,
    pub common_name: Option<String>,
    pub rank: Option<String>,
    /// Ensembl's production name (`homo_sapiens`) when Ensembl has it.
    pub ensembl_species: Option<String>,
    /// Ensembl's default assembly for the species.
    pub ensembl_assembly: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GeneFacts {
    pub symbol: Option<String>,
    pub ncbi_gene_id: Option<String>,
    pub ensembl_id: Option<String>,
    pub description: Option<String>,
    pub organism: Option<String>,
    pub taxid: Option<u64>,
    pub location: Option<Location>,
    pub assembly: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    pub chromosome: String,
    pub start: u64,
    pub end: u64,
    /// `+` or `-` when stated.
    pub strand: Option<String>,
}

/// The ordered native operators that fetch a result: apply `operations`
/// as ONE `GraphTransaction` (with the canvas's `base_state_revision` and a
/// fresh `idempotency_key`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Recipe {
    pub summary: String,
    #[schemars(with = "Vec<serde_json::Value>")]
    pub operations: Vec<Operation>,
    /// The output ports the recipe leaves for the rest of the workflow.
    pub produces: Vec<ProducedPort>,
}

impl Recipe {
    /// The catalog operators the recipe adds, in order.
    pub fn operator_ids(&self) -> Vec<&str> {
        self.operations
            .iter()
            .filter_map(|op| match op {
                Operation::AddOperator { operator_id, .. } => Some(operator_id.as_str()),
                _ => None,
            })
            .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProducedPort {
    pub node_id: String,
    pub port: String,
    #[schemars(with = "String")]
    pub r#type: PortType,
}
