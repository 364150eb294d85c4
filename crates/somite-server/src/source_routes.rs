//! Source workflows over HTTP: search the nf-core catalog, resolve an
//! nf-core release or a GitHub ref onto an empty canvas, and read the
//! outline of a placed source node.
//!
//! A resolve is network work (the provider, the archive) followed by one
//! ordinary graph transaction: the pinned, outlined tree becomes a
//! `place_source` operation applied through [`AppState::apply`], so the
//! reply, compare-and-swap, idempotent replay and the feed announcement are
//! exactly those of `POST /api/transactions`. Every failure is the shared
//! envelope; provider failures keep their `source` codes (`rate_limited`
//! carries `details.reset_at`).

use crate::api_error::ApiError;
use crate::body::JsonBody;
use crate::routes::QueryParams;
use crate::state::{AppState, EditSource, blocking};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};
use serde_json::json;
use somite_api::FeedKind;
use somite_outline::Outline;
use somite_project::source::{
    DEFAULT_POSITION, PINNED_INPUTS_DIR, SourceEditRequest, SourcePinRequest, SourcePromoteRequest,
    ensure_pinned, invocations_of, outline_pinned, pinnable_url, place_transaction,
    verified_outline,
};
use somite_project::views::{InvocationView, TransactionReply};
use somite_source::{NfCoreSearchPage, PinnedSource, SourceStore};
use somite_workflow::source::{DEFAULT_SOURCE_NODE_ID, SourceBinding, SourceParam};
use somite_workflow::{ErrorCode, SomiteError};
use std::sync::Arc;

/// `GET /api/source/nfcore/search` query.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    #[serde(default)]
    q: String,
    #[serde(default)]
    limit: Option<usize>,
    #[serde(default)]
    cursor: Option<String>,
}

/// Where the resolved source goes, shared by both resolve bodies.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub base_state_revision: String,
    pub idempotency_key: String,
    #[serde(default)]
    pub node_id: Option<String>,
    #[serde(default)]
    pub x: Option<f64>,
    #[serde(default)]
    pub y: Option<f64>,
}

/// `POST /api/source/nfcore/resolve` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolveNfCore {
    pub pipeline: String,
    pub release: String,
    #[serde(flatten)]
    pub placement: Placement,
}

/// `POST /api/source/github/resolve` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolveGitHub {
    pub repository: String,
    #[serde(rename = "ref")]
    pub git_ref: String,
    #[serde(flatten)]
    pub placement: Placement,
}

/// `GET /api/source/nodes/{id}/outline` reply.
#[derive(Debug, Serialize)]
pub struct SourceOutline {
    pub node_id: String,
    pub repository: String,
    pub commit: String,
    pub tree_digest: String,
    pub outline: Outline,
    pub params: Vec<SourceParam>,
    /// Every process call of the pipeline with typed ports and the node's
    /// replacement of it, if any.
    pub invocations: Vec<InvocationView>,
}

fn store(state: &AppState) -> Result<SourceStore, ApiError> {
    state.sources.clone().ok_or_else(|| {
        ApiError::from(SomiteError::new(
            ErrorCode::Io,
            "no user cache folder is available for pinned pipeline sources",
            "set XDG_CACHE_HOME (or HOME) and restart Somite",
        ))
    })
}

pub async fn search(
    State(state): State<Arc<AppState>>,
    QueryParams(params): QueryParams<SearchParams>,
) -> Result<Json<NfCoreSearchPage>, ApiError> {
    store(&state)?
        .search_nfcore(&params.q, params.cursor.as_deref(), params.limit)
        .await
        .map(Json)
        .map_err(|e| ApiError::from(somite_api::Error::from(e)))
}

/// Pipeline resolves the runtime runs at once.
pub const MAX_RESOLVES: usize = 2;

/// A slot among the resolves the runtime runs at once ([`MAX_RESOLVES`]):
/// each holds an archive download and its extraction, so their number
/// bounds the memory and disk a burst of resolves takes. Past it the caller
/// is told `busy` and when to retry, never queued without end.
fn resolve_slot(state: &AppState) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    state.resolves.clone().try_acquire_owned().map_err(|_| {
        ApiError::new(
            somite_api::HttpCode::Busy,
            format!("{MAX_RESOLVES} pipeline resolves are already running"),
            "retry after the seconds Retry-After names",
        )
    })
}

pub async fn resolve_nfcore(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ResolveNfCore>,
) -> Result<Json<TransactionReply>, ApiError> {
    let _slot = resolve_slot(&state)?;
    let pinned = store(&state)?
        .resolve_nfcore(&body.pipeline, &body.release)
        .await;
    place(state, pinned, body.placement, edit_source(&headers)).await
}

pub async fn resolve_github(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<ResolveGitHub>,
) -> Result<Json<TransactionReply>, ApiError> {
    let _slot = resolve_slot(&state)?;
    let pinned = store(&state)?
        .resolve_github(&body.repository, &body.git_ref)
        .await;
    place(state, pinned, body.placement, edit_source(&headers)).await
}

/// The MCP adapter marks its calls with the activity header (and reaches
/// these routes only under `/api/mcp`, behind its capability).
fn edit_source(headers: &HeaderMap) -> EditSource {
    match headers
        .get(somite_api::headers::MCP_ACTIVITY)
        .and_then(|v| v.to_str().ok())
    {
        Some(activity) if activity.len() <= 256 => EditSource::Agent {
            activity: Some(activity.to_owned()),
        },
        _ => EditSource::Human,
    }
}

async fn place(
    state: Arc<AppState>,
    pinned: Result<PinnedSource, somite_source::SourceError>,
    placement: Placement,
    source: EditSource,
) -> Result<Json<TransactionReply>, ApiError> {
    let pinned = pinned.map_err(|e| ApiError::from(somite_api::Error::from(e)))?;
    let binding: SourceBinding = tokio::task::spawn_blocking(move || outline_pinned(&pinned))
        .await
        .map_err(|e| {
            ApiError::from(SomiteError::new(
                ErrorCode::Io,
                format!("the outline worker failed: {e}"),
                "retry; if it persists, restart Somite and report the log",
            ))
        })?
        .map_err(ApiError::from)?;
    let txn = place_transaction(
        binding,
        placement.base_state_revision,
        placement.idempotency_key,
        placement
            .node_id
            .unwrap_or_else(|| DEFAULT_SOURCE_NODE_ID.to_owned()),
        (
            placement.x.unwrap_or(DEFAULT_POSITION.0),
            placement.y.unwrap_or(DEFAULT_POSITION.1),
        ),
    );
    blocking(&state, move |s| s.apply(&txn, source))
        .await
        .map(Json)
}

/// Makes sure the tree the project's source node pins is on this machine
/// before anything reads it, fetching that exact commit again where the
/// store lacks it (announced on the feed as `source` events, so the web
/// shows the fetch). Offline, it is `source_unavailable` with the commit;
/// the canvas, parameters and readiness need no tree and keep working.
pub(crate) async fn ensure_source_tree(state: &Arc<AppState>) -> Result<(), ApiError> {
    let binding = {
        let project = state.project();
        match project.document().source_node().and_then(|n| n.source()) {
            Some(binding) => binding.clone(),
            None => return Ok(()),
        }
    };
    let store = store(state)?;
    let held = binding
        .commit
        .parse()
        .is_ok_and(|commit| store.holds(&commit));
    if held {
        return Ok(());
    }
    let event = |phase: &str, error: Option<&somite_api::Error>| {
        state.feed.publish(
            FeedKind::Source,
            json!({"repository": binding.repository, "commit": binding.commit,
                   "phase": phase, "error": error}),
        );
    };
    event("fetching", None);
    match ensure_pinned(&store, &binding).await {
        Ok(_) => {
            event("fetched", None);
            Ok(())
        }
        Err(error) => {
            event("failed", Some(&error));
            Err(ApiError::from(error))
        }
    }
}

/// [`ensure_source_tree`] for what compiles: only a ready workflow is worth
/// a fetch (a blocked one is refused before its tree is read, as ever).
pub(crate) async fn ensure_source_tree_to_compile(state: &Arc<AppState>) -> Result<(), ApiError> {
    let ready = {
        let project = state.project();
        project.document().source_node().is_some() && project.assess_graph().is_ready()
    };
    if ready {
        ensure_source_tree(state).await
    } else {
        Ok(())
    }
}

pub async fn outline(
    State(state): State<Arc<AppState>>,
    Path(node_id): Path<String>,
) -> Result<Json<SourceOutline>, ApiError> {
    ensure_source_tree(&state).await?;
    let (binding, replacements) = {
        let project = state.project();
        let node = project
            .document()
            .node(&node_id)
            .filter(|n| n.source.is_some());
        node.map(|n| {
            (
                n.source().cloned().expect("filtered"),
                n.replacements.clone(),
            )
        })
        .ok_or_else(|| {
            ApiError::from(SomiteError::new(
                ErrorCode::UnknownNode,
                format!("there is no source node `{node_id}`"),
                "read the workflow and use the id of its workflow.source node",
            ))
        })?
    };
    let store = store(&state)?;
    let (verified, outline) = tokio::task::spawn_blocking(move || {
        verified_outline(&store, &binding).map(|r| (r, binding))
    })
    .await
    .map_err(|e| {
        ApiError::from(SomiteError::new(
            ErrorCode::Io,
            format!("the outline worker failed: {e}"),
            "retry",
        ))
    })?
    .map(|((verified, outline), binding)| ((verified, binding), outline))
    .map_err(ApiError::from)?;
    let (verified, binding) = verified;
    // A node pinned before invocations were recorded has none in its
    // binding; the outline just read gives them (read-only: without them in
    // the binding the node cannot be edited per invocation). An outline
    // that reaches none lists none: this view refuses nothing.
    let invocations = if binding.invocations.is_empty() {
        invocations_of(&outline).unwrap_or_default()
    } else {
        binding.invocations.clone()
    };
    Ok(Json(SourceOutline {
        node_id,
        repository: binding.repository,
        commit: verified.commit.as_str().to_owned(),
        tree_digest: verified.tree_digest.as_str().to_owned(),
        outline,
        params: binding.params,
        invocations: InvocationView::list(invocations, &replacements),
    }))
}

/// `POST /api/source/nodes/{id}/edit`: typed edits of a source node as one
/// ordinary transaction (compare-and-swap, replay, feed).
pub async fn edit(
    State(state): State<Arc<AppState>>,
    Path(node_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<SourceEditRequest>,
) -> Result<Json<TransactionReply>, ApiError> {
    let txn = body.transaction(&node_id);
    let source = edit_source(&headers);
    blocking(&state, move |s| s.apply(&txn, source))
        .await
        .map(Json)
}

/// `POST /api/source/nodes/{id}/pin`: downloads the remote input a parameter
/// names once, records its size and BLAKE3, and sets the parameter to the
/// copy in the project (one transaction, so compare-and-swap and replay hold).
/// A stale base is refused before anything is downloaded.
pub async fn pin(
    State(state): State<Arc<AppState>>,
    Path(node_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<SourcePinRequest>,
) -> Result<Json<TransactionReply>, ApiError> {
    let (url, root) = {
        let project = state.project();
        if project.state_revision().as_str() != body.base_state_revision {
            return Err(ApiError::from(SomiteError::new(
                ErrorCode::StaleRevision,
                "the workflow changed since base_state_revision was read",
                "read the workflow again, then pin on the current state_revision",
            )));
        }
        (
            pinnable_url(project.document(), &node_id, &body.param)?,
            project.layout().root().to_path_buf(),
        )
    };
    let config = store(&state)?.config().clone();
    let download = somite_source::remote::download_pinned(
        &config,
        &url,
        &root.join(PINNED_INPUTS_DIR),
        somite_api::limits::MAX_PINNED_INPUT_BYTES,
    )
    .await
    .map_err(|e| ApiError::from(somite_api::Error::from(e)))?;
    let relative = download
        .path
        .strip_prefix(&root)
        .unwrap_or(&download.path)
        .to_string_lossy()
        .into_owned();
    let txn = body.transaction(&node_id, url, relative, download.bytes, download.digest);
    let source = edit_source(&headers);
    blocking(&state, move |s| s.apply(&txn, source))
        .await
        .map(Json)
}

/// `POST /api/source/nodes/{id}/promote`: the selected replacements (and
/// every invocation the catalog has an equivalent for) become a native
/// variant, in one transaction.
pub async fn promote(
    State(state): State<Arc<AppState>>,
    Path(node_id): Path<String>,
    headers: HeaderMap,
    JsonBody(body): JsonBody<SourcePromoteRequest>,
) -> Result<Json<TransactionReply>, ApiError> {
    let txn = body.transaction(&node_id);
    let source = edit_source(&headers);
    blocking(&state, move |s| s.apply(&txn, source))
        .await
        .map(Json)
}
