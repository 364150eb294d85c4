//! The JSON routes of DESIGN.md ("Wire contracts").
//!
//! Human routes serve the loopback web workspace. The same handlers are
//! mounted again under `/api/mcp/` behind the capability guard for Somite's
//! MCP adapter, so an agent reads and edits through exactly the code a person
//! does; only the feed attribution differs.

use crate::api_error::ApiError;
use crate::body::RawJson;
use crate::feed::FeedEvent;
use crate::state::{AppState, EditSource, TransactionReply, blocking};
use axum::Json;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use somite_workflow::assessment::Assessment;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::search::{SearchPage, SearchRequest};
use somite_workflow::transaction::GraphTransaction;
use somite_workflow::{ErrorCode, SomiteError};
use std::sync::Arc;

/// The header with which the MCP adapter names the agent activity (its MCP
/// request or tool call) behind a request, for correlation in the feed.
pub const ACTIVITY_HEADER: &str = "x-somite-mcp-activity";

/// Query parameters parsed into a closed type, failing with the envelope.
pub struct QueryParams<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        axum::extract::Query::<T>::try_from_uri(&parts.uri)
            .map(|q| QueryParams(q.0))
            .map_err(|e| {
                ApiError::new(
                    ErrorCode::InvalidRequest,
                    format!("the query string is invalid: {}", e.body_text()),
                    "fix the named parameter; unknown parameters are rejected",
                )
            })
    }
}

/// The graph with its identities.
#[derive(Debug, Serialize)]
pub struct WorkflowView {
    pub state_revision: String,
    pub graph_revision: String,
    /// The same value as `graph_revision`: the semantic identity evidence binds to.
    pub semantic_revision: String,
    pub input_location: String,
    pub recovery_required: Option<String>,
    pub catalog_revision: String,
    pub document: WorkflowDocument,
    /// The feed's last cursor when the document was read: every transaction
    /// after it arrives as a feed event with a larger cursor.
    pub feed_cursor: u64,
}

pub async fn health() -> Json<Value> {
    Json(json!({"ok": true, "name": "somite", "version": env!("CARGO_PKG_VERSION")}))
}

pub async fn workflow(State(state): State<Arc<AppState>>) -> Result<Json<WorkflowView>, ApiError> {
    blocking(&state, |s| {
        let p = s.project();
        Ok(WorkflowView {
            state_revision: p.state_revision().clone(),
            graph_revision: p.graph_revision(),
            semantic_revision: p.graph_revision(),
            input_location: p.layout().graph_location(),
            recovery_required: p.recovery_needed().map(|r| r.reason.clone()),
            catalog_revision: p.catalog().revision().clone(),
            document: p.document().clone(),
            // Transactions publish under the project lock, so this cursor
            // and the document are one consistent snapshot.
            feed_cursor: s.feed.last_cursor(),
        })
    })
    .await
    .map(Json)
}

fn parse_transaction(bytes: &[u8]) -> Result<GraphTransaction, ApiError> {
    GraphTransaction::from_json(bytes).map_err(ApiError)
}

pub async fn human_transaction(
    State(state): State<Arc<AppState>>,
    RawJson(body): RawJson,
) -> Result<Json<TransactionReply>, ApiError> {
    let txn = parse_transaction(&body)?;
    blocking(&state, move |s| s.apply(&txn, EditSource::Human))
        .await
        .map(Json)
}

pub async fn agent_transaction(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    RawJson(body): RawJson,
) -> Result<Json<TransactionReply>, ApiError> {
    let txn = parse_transaction(&body)?;
    let activity = headers
        .get(ACTIVITY_HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 256)
        .map(str::to_owned);
    blocking(&state, move |s| {
        s.apply(&txn, EditSource::Agent { activity })
    })
    .await
    .map(Json)
}

pub async fn readiness(State(state): State<Arc<AppState>>) -> Result<Json<Assessment>, ApiError> {
    blocking(&state, |s| Ok(s.project().assess(&s.compile_toolchain)))
        .await
        .map(Json)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    q: String,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    cursor: Option<String>,
}

pub async fn catalog_search(
    State(state): State<Arc<AppState>>,
    QueryParams(params): QueryParams<SearchParams>,
) -> Result<Json<SearchPage>, ApiError> {
    let catalog = state.project().catalog().clone();
    catalog
        .search(&SearchRequest {
            query: params.q,
            limit: params.limit,
            cursor: params.cursor,
        })
        .map(Json)
        .map_err(ApiError)
}

pub async fn catalog_operator(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let catalog = state.project().catalog().clone();
    let entry = catalog.get(&id).ok_or_else(|| {
        ApiError(SomiteError::new(
            ErrorCode::NotFound,
            format!("the catalog has no operator `{id}`"),
            "search the catalog for the exact id",
        ))
    })?;
    Ok(Json(json!({
        "revision": entry.revision,
        "catalog_revision": catalog.revision(),
        "contract": entry.contract,
    })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActivityParams {
    #[serde(default)]
    after: u64,
}

#[derive(Debug, Serialize)]
pub struct ActivityPage {
    pub last_cursor: u64,
    /// Set when events after `after` were evicted: the first cursor held.
    pub gap_until: Option<u64>,
    pub events: Vec<Arc<FeedEvent>>,
}

pub async fn activity(
    State(state): State<Arc<AppState>>,
    QueryParams(params): QueryParams<ActivityParams>,
) -> Json<ActivityPage> {
    let backlog = state.feed.since(params.after);
    Json(ActivityPage {
        last_cursor: state.feed.last_cursor(),
        gap_until: backlog.gap_until,
        events: backlog.events,
    })
}

pub async fn not_found() -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        "no such route",
        "see DESIGN.md \"Wire contracts\" for the routes Somite serves",
    )
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::InvalidRequest,
        "this route does not accept that method",
        "use the method DESIGN.md lists for the route",
    )
}
