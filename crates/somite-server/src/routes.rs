//! The JSON routes of the loopback runtime (`docs/http-api.md`).
//!
//! Human routes serve the loopback web workspace. The same handlers are
//! mounted again under `/api/mcp/` behind the capability guard for Somite's
//! MCP adapter, so an agent reads and edits through exactly the code a person
//! does; only the feed attribution differs.

use crate::api_error::ApiError;
use crate::body::{JsonBody, RawJson};
use crate::feed::{Epoch, FeedEvent, Resume};
use crate::package_routes::NoOptions;
use crate::state::{AppState, EditSource, blocking};
use axum::Json;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use somite_api::FeedKind;
use somite_project::views::{RevisionHead, TransactionReply};
use somite_project::workflow_read::{
    NodeField, ReadRequest, ReadinessRead, ReadinessRequest, WorkflowRead,
};
use somite_workflow::assessment::Assessment;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::search::{SearchPage, SearchRequest};
use somite_workflow::transaction::GraphTransaction;
use somite_workflow::{ErrorCode, SomiteError};
use std::sync::Arc;

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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowParams {
    /// A state revision to serve instead of the current one: the current
    /// state, or one a recent transaction produced.
    #[serde(default)]
    state_revision: Option<String>,
}

/// `GET /api/health`: alive, and which server start this is (`instance`,
/// the feed epoch, also in the project's `server.json`).
pub async fn health(State(state): State<Arc<AppState>>) -> Json<Value> {
    Json(json!({
        "ok": true,
        "name": "somite",
        "version": env!("CARGO_PKG_VERSION"),
        "instance": state.feed.epoch().as_str(),
    }))
}

/// `GET /api/workflow`: the current graph, or with `?state_revision=` the
/// graph of that state while [`crate::revisions`] still holds it.
pub async fn workflow(
    State(state): State<Arc<AppState>>,
    QueryParams(params): QueryParams<WorkflowParams>,
) -> Result<Response, ApiError> {
    blocking(&state, move |s| {
        // The project lock is taken first even for a past revision: a
        // transaction stores its document and announces it under this lock,
        // so a reader reacting to the announcement cannot overtake the store.
        let p = s.project();
        if let Some(wanted) = params.state_revision.as_deref()
            && wanted != p.state_revision()
        {
            let published = s.documents.get(wanted).ok_or_else(|| {
                SomiteError::new(
                    ErrorCode::NotFound,
                    format!(
                        "the state revision `{wanted}` is not among the recent ones Somite keeps"
                    ),
                    "GET /api/workflow without state_revision for the current workflow",
                )
            })?;
            drop(p);
            let head = RevisionHead::new(
                published.state_revision.clone(),
                published.graph_revision.clone(),
            );
            return Ok(with_document(&head, &published.json));
        }
        // Transactions publish under the project lock, so this cursor and
        // the state are one consistent snapshot; the state is shared, so
        // the lock is released before the body is written.
        let snapshot = p.snapshot();
        let head = WorkflowHead {
            head: RevisionHead::new(
                snapshot.state_revision().clone(),
                snapshot.graph_revision().clone(),
            ),
            input_location: p.layout().graph_location(),
            recovery_required: p.recovery_needed().map(|r| r.reason.clone()),
            catalog_revision: p.catalog().revision().clone(),
        };
        let tail = WorkflowTail {
            feed_cursor: s.feed.last_cursor(),
            feed_epoch: s.feed.epoch().clone(),
        };
        drop(p);
        Ok(json_response(workflow_view_bytes(
            &head,
            snapshot.json(),
            &tail,
        )))
    })
    .await
}

/// The members of [`somite_project::views::WorkflowView`] before its
/// document, in its order.
#[derive(Serialize)]
struct WorkflowHead {
    #[serde(flatten)]
    head: RevisionHead,
    input_location: String,
    recovery_required: Option<String>,
    catalog_revision: String,
}

/// The members of [`somite_project::views::WorkflowView`] after its document.
#[derive(Serialize)]
struct WorkflowTail {
    feed_cursor: u64,
    feed_epoch: somite_api::feed::Epoch,
}

/// A [`somite_project::views::WorkflowView`]'s JSON, byte for byte, from its parts and the
/// document's JSON the published state keeps: the graph is serialized once
/// per state, not once per read.
fn workflow_view_bytes(head: &WorkflowHead, document: &[u8], tail: &WorkflowTail) -> Vec<u8> {
    let head = serde_json::to_vec(head).expect("workflow heads serialize");
    let tail = serde_json::to_vec(tail).expect("feed positions serialize");
    let mut body = Vec::with_capacity(head.len() + document.len() + tail.len() + 16);
    body.extend_from_slice(&head[..head.len() - 1]);
    body.extend_from_slice(b",\"document\":");
    body.extend_from_slice(document);
    body.push(b',');
    body.extend_from_slice(&tail[1..]);
    body
}

/// `head`'s JSON object with a `document` member holding `document`, the
/// stored JSON of a graph, spliced in as it is: the store keeps documents as
/// bytes (exactly bounded, shared by every reply), and serde_json's
/// `RawValue` would need a feature the whole workspace recompiles for.
fn with_document(head: &impl Serialize, document: &[u8]) -> Response {
    let head = serde_json::to_vec(head).expect("revision heads serialize");
    debug_assert!(head.len() > 2 && head.starts_with(b"{") && head.ends_with(b"}"));
    let mut body = Vec::with_capacity(head.len() + document.len() + 16);
    body.extend_from_slice(&head[..head.len() - 1]);
    body.extend_from_slice(b",\"document\":");
    body.extend_from_slice(document);
    body.push(b'}');
    json_response(body)
}

fn json_response(body: Vec<u8>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

fn parse_transaction(bytes: &[u8]) -> Result<GraphTransaction, ApiError> {
    GraphTransaction::from_json(bytes).map_err(ApiError::from)
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
        .get(somite_api::headers::MCP_ACTIVITY)
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 256)
        .map(str::to_owned);
    blocking(&state, move |s| {
        s.apply(&txn, EditSource::Agent { activity })
    })
    .await
    .map(Json)
}

/// What `POST /api/project/rebind` answers.
#[derive(Debug, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Rebound {
    pub state_revision: String,
}

/// `POST /api/project/rebind` (body `{}`): binds the graph as served to its
/// location again after its files were changed or moved by hand, while the
/// server runs. Announced on the feed as `rebind`, so every open workspace
/// reloads and its edits, compile, run, validate and export work again.
pub async fn rebind(
    State(state): State<Arc<AppState>>,
    JsonBody(NoOptions {}): JsonBody<NoOptions>,
) -> Result<Json<Rebound>, ApiError> {
    blocking(&state, |s| {
        let state_revision = s.project().rebind()?;
        s.feed
            .publish(FeedKind::Rebind, json!({"state_revision": state_revision}));
        Ok(Rebound { state_revision })
    })
    .await
    .map(Json)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowReadParams {
    /// Comma-separated node ids to read in full.
    #[serde(default)]
    node_ids: Option<String>,
    /// Comma-separated node fields (see `NodeField`).
    #[serde(default)]
    fields: Option<String>,
    #[serde(default)]
    cursor: Option<String>,
    #[serde(default)]
    since_state_revision: Option<String>,
}

/// `GET /api/workflow/read`: a bounded read of the workflow (a summary page,
/// nodes in full, or the changes since a revision; see
/// [`somite_project::workflow_read`]).
pub async fn workflow_read(
    State(state): State<Arc<AppState>>,
    QueryParams(params): QueryParams<WorkflowReadParams>,
) -> Result<Json<WorkflowRead>, ApiError> {
    let request = ReadRequest {
        node_ids: comma_list(params.node_ids),
        fields: NodeField::parse_list(params.fields.as_deref().unwrap_or_default())
            .map_err(ApiError::from)?,
        cursor: params.cursor,
        since_state_revision: params.since_state_revision,
    };
    blocking(&state, move |s| {
        let p = s.project();
        let since = request
            .since_state_revision
            .as_deref()
            .filter(|revision| *revision != p.state_revision().as_str())
            .and_then(|revision| s.documents.get(revision))
            .and_then(|published| serde_json::from_slice::<WorkflowDocument>(&published.json).ok());
        let assessment = p.assess(&s.compile_toolchain);
        somite_project::workflow_read::read(
            p.document(),
            RevisionHead::of(&p),
            p.catalog(),
            &assessment,
            &request,
            // The current revision itself: nothing changed since.
            since.as_ref().or_else(|| {
                (request.since_state_revision.as_deref() == Some(p.state_revision().as_str()))
                    .then(|| p.document())
            }),
        )
    })
    .await
    .map(Json)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadinessReadParams {
    /// Comma-separated node ids.
    #[serde(default)]
    node_ids: Option<String>,
    #[serde(default)]
    cursor: Option<String>,
}

/// `GET /api/readiness/read`: one bounded page of the assessment (see
/// [`somite_project::workflow_read::readiness`]).
pub async fn readiness_read(
    State(state): State<Arc<AppState>>,
    QueryParams(params): QueryParams<ReadinessReadParams>,
) -> Result<Json<ReadinessRead>, ApiError> {
    let request = ReadinessRequest {
        node_ids: comma_list(params.node_ids),
        cursor: params.cursor,
    };
    blocking(&state, move |s| {
        let p = s.project();
        let assessment = p.assess(&s.compile_toolchain);
        somite_project::workflow_read::readiness(assessment, p.state_revision().as_str(), &request)
    })
    .await
    .map(Json)
}

/// `a,b,c` as a query writes a list.
fn comma_list(text: Option<String>) -> Vec<String> {
    text.unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
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
        .map_err(ApiError::from)
}

pub async fn catalog_operator(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let catalog = state.project().catalog().clone();
    let entry = catalog.get(&id).ok_or_else(|| {
        ApiError::from(SomiteError::new(
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
    /// A feed position, `<epoch>:<cursor>` (see [`crate::feed::Position`]),
    /// or `0` (the default) for everything held.
    #[serde(default)]
    after: Option<String>,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct ActivityPage {
    /// The feed's epoch; `<epoch>:<last_cursor>` is the position to continue from.
    pub epoch: Epoch,
    pub last_cursor: u64,
    /// Set when `after` was not a position of this feed (another server
    /// process's, or unparsable): `events` is empty and the reader reloads
    /// what it shows, then continues from `last_cursor`.
    pub reset: bool,
    /// Set when events after `after` were evicted: the first cursor held.
    pub gap_until: Option<u64>,
    pub events: Vec<Arc<FeedEvent>>,
}

pub async fn activity(
    State(state): State<Arc<AppState>>,
    QueryParams(params): QueryParams<ActivityParams>,
) -> Json<ActivityPage> {
    let backlog = state.feed.since_position(params.after.as_deref());
    Json(ActivityPage {
        epoch: state.feed.epoch().clone(),
        last_cursor: backlog
            .events
            .last()
            .map_or(backlog.resume.after(), |e| e.cursor),
        reset: matches!(backlog.resume, Resume::Reset { .. }),
        gap_until: backlog.gap_until,
        events: backlog.events,
    })
}

pub async fn not_found() -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        "no such route",
        "see docs/http-api.md for the routes Somite serves",
    )
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::new(
        ErrorCode::InvalidRequest,
        "this route does not accept that method",
        "use the method docs/http-api.md lists for the route",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use somite_project::views::{WorkflowState, WorkflowView};
    use somite_workflow::graph::WorkflowDocument;

    #[test]
    fn the_spliced_workflow_view_is_the_serialized_one() {
        let document = WorkflowDocument::empty("A \"quoted\" title");
        let epoch = somite_api::feed::Epoch::from_bytes(b"e1");
        for recovery_required in [None, Some("moved by hand".to_owned())] {
            let head = WorkflowHead {
                head: RevisionHead::new("blake3:s".into(), "blake3:g".into()),
                input_location: "/p/.somite/web.somite.json".into(),
                recovery_required: recovery_required.clone(),
                catalog_revision: "blake3:c".into(),
            };
            let tail = WorkflowTail {
                feed_cursor: 7,
                feed_epoch: epoch.clone(),
            };
            let view = WorkflowView {
                state: WorkflowState {
                    head: head.head.clone(),
                    input_location: head.input_location.clone(),
                    recovery_required,
                    catalog_revision: head.catalog_revision.clone(),
                    document: document.clone(),
                },
                feed_cursor: 7,
                feed_epoch: epoch.clone(),
            };
            let spliced =
                workflow_view_bytes(&head, &serde_json::to_vec(&document).unwrap(), &tail);
            assert_eq!(
                String::from_utf8(spliced).unwrap(),
                serde_json::to_string(&view).unwrap()
            );
        }
    }
}
