//! `somite.source.search`: public reads, reference assemblies, organisms and
//! genes at NCBI and Ensembl, through the runtime's `/data/search` (one
//! provider boundary, one set of rate limits and one cache for every
//! caller). Open-world and read-only: it asks public providers and changes
//! nothing; a result's recipe is applied, if at all, with
//! `somite.graph.apply_transaction`.

use super::{Outcome, SomiteServer, outcome_schema, serde_urlencoded_pairs};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use somite_data::{SearchRequest, SearchResponse};

/// The query string the runtime's route reads: the request's own fields.
fn encoded(request: SearchRequest) -> String {
    let as_text = |value: serde_json::Value| match value {
        serde_json::Value::String(text) => text,
        other => other.to_string(),
    };
    let mut pairs = vec![("query", request.query)];
    let mut push = |name: &'static str, value: Option<serde_json::Value>| {
        if let Some(value) = value {
            pairs.push((name, as_text(value)));
        }
    };
    push("kind", request.kind.map(|k| serde_json::json!(k)));
    push("organism", request.organism.map(serde_json::Value::from));
    push("provider", request.provider.map(|p| serde_json::json!(p)));
    push("limit", request.limit.map(serde_json::Value::from));
    push("cursor", request.cursor.map(serde_json::Value::from));
    serde_urlencoded_pairs(&pairs)
}

#[tool_router(router = source_router, vis = "pub(super)")]
impl SomiteServer {
    /// Search current NCBI or Ensembl reads, reference assemblies, organisms, accessions, and genes with structured provenance and ordered native source-recipe operators. Exact accessions (SRR/ERR/DRR, SRP, PRJNA, SAMN, GCF_/GCA_, ENSG…, GeneID:672, txid9606) resolve exactly; other text searches (kind reads|assembly|organism|gene; gene symbols need organism). Apply a result's recipe.operations as one somite.graph.apply_transaction. Prefer this over a generic web browser.
    #[tool(
        name = "somite.source.search",
        annotations(title = "Search public data (NCBI, Ensembl)"),
        output_schema = outcome_schema::<SearchResponse>()
    )]
    async fn source_search(
        &self,
        Parameters(request): Parameters<SearchRequest>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<SearchResponse> {
        let path = format!("/data/search?{}", encoded(request));
        Outcome(
            self.runtime
                .call(reqwest::Method::GET, &path, None, &context)
                .await,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use somite_data::model::{ProviderChoice, SearchKind};

    #[test]
    fn every_field_reaches_the_route_by_its_own_name() {
        let query = encoded(SearchRequest {
            query: "GRCh38 & more".into(),
            kind: Some(SearchKind::Assembly),
            organism: Some("Homo sapiens".into()),
            provider: Some(ProviderChoice::Ensembl),
            limit: Some(5),
            cursor: Some("abc".into()),
        });
        assert_eq!(
            query,
            "query=GRCh38%20%26%20more&kind=assembly&organism=Homo%20sapiens&provider=ensembl&limit=5&cursor=abc"
        );
    }
}
