//! `GET /api/data/search` (and `/api/mcp/data/search` for the MCP tool
//! `somite.source.search`): public reads, assemblies, organisms and genes
//! at NCBI and Ensembl, with provenance and source recipes.
//!
//! The route only searches: a recipe comes back as transaction operations
//! and is applied, if at all, as an ordinary transaction. The runtime keeps
//! one [`DataSearch`] (built from the environment on first use) so the
//! providers' rate limits hold across every caller.

use crate::api_error::ApiError;
use crate::routes::QueryParams;
use crate::state::AppState;
use axum::Json;
use axum::extract::State;
use somite_data::{DataConfig, DataSearch, SearchRequest, SearchResponse};
use std::sync::Arc;

pub async fn search(
    State(state): State<Arc<AppState>>,
    QueryParams(request): QueryParams<SearchRequest>,
) -> Result<Json<SearchResponse>, ApiError> {
    let search = match state.data.get() {
        Some(search) => search.clone(),
        None => {
            let config = DataConfig::from_env().map_err(|e| ApiError(e.to_envelope()))?;
            let search = Arc::new(DataSearch::new(config).map_err(|e| ApiError(e.to_envelope()))?);
            state.data.get_or_init(|| search).clone()
        }
    };
    search
        .search(&request)
        .await
        .map(Json)
        .map_err(|e| ApiError(e.to_envelope()))
}
