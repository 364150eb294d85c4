//! Runs, validations and evidence: the routes behind Run, Validate and the
//! evidence view, mounted for people and again under `/api/mcp/` for the
//! agent's `somite.run.*`, `somite.validation.start` and
//! `somite.evidence.lookup` tools.
//!
//! Every route is a thin adapter over the one [`Supervisor`], so a person's
//! launch and an agent's are the same launch: the same readiness gate, the
//! same idempotency records, the same process-group cancellation.

use crate::api_error::ApiError;
use crate::body::JsonBody;
use crate::package_routes::NoOptions;
use crate::routes::QueryParams;
use crate::source_routes::ensure_source_tree_to_compile;
use crate::state::{AppState, blocking};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use somite_api::FeedKind;
use somite_runner::{
    EvidenceLookup, RunRequest, RunStarted, RunStatus, StatusPoll, Supervisor, ValidationRequest,
};
use somite_workflow::SomiteError;
use std::sync::Arc;

/// Forwards every status change of every run into the activity feed, for
/// the life of the runtime.
pub fn announce_runs(state: &Arc<AppState>) {
    let mut changes = state.runner.subscribe();
    let feed = state.feed.clone();
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match changes.recv().await {
                Ok(status) => {
                    feed.publish(
                        FeedKind::Run,
                        serde_json::to_value(&status).unwrap_or_default(),
                    );
                }
                // A burst outran the feed: the next status of each run is
                // complete by itself, so only intermediate snapshots are lost.
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            }
        }
    });
}

fn runner_error(error: somite_runner::RunnerError) -> ApiError {
    ApiError::from(SomiteError::from(error))
}

pub async fn start_run(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<RunRequest>,
) -> Result<(StatusCode, Json<RunStarted>), ApiError> {
    ensure_source_tree_to_compile(&state).await?;
    blocking(&state, move |s| {
        s.runner
            .start_run(&s.project(), &request)
            .map_err(SomiteError::from)
    })
    .await
    .map(|started| (StatusCode::ACCEPTED, Json(started)))
}

pub async fn start_validation(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<ValidationRequest>,
) -> Result<(StatusCode, Json<RunStarted>), ApiError> {
    ensure_source_tree_to_compile(&state).await?;
    blocking(&state, move |s| {
        s.runner
            .start_validation(&s.project(), &request)
            .map_err(SomiteError::from)
    })
    .await
    .map(|started| (StatusCode::ACCEPTED, Json(started)))
}

pub async fn status(
    State(state): State<Arc<AppState>>,
    Path(run_id): Path<String>,
    QueryParams(poll): QueryParams<StatusPoll>,
) -> Result<Json<RunStatus>, ApiError> {
    let runner: Supervisor = state.runner.clone();
    runner
        .status(&run_id, poll)
        .await
        .map(Json)
        .map_err(runner_error)
}

pub async fn cancel(
    State(state): State<Arc<AppState>>,
    Path(run_id): Path<String>,
    JsonBody(NoOptions {}): JsonBody<NoOptions>,
) -> Result<Json<RunStatus>, ApiError> {
    state.runner.cancel(&run_id).map(Json).map_err(runner_error)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceParams {
    /// Defaults to the current graph's revision.
    #[serde(default)]
    graph_revision: Option<String>,
}

pub async fn evidence(
    State(state): State<Arc<AppState>>,
    QueryParams(params): QueryParams<EvidenceParams>,
) -> Result<Json<EvidenceLookup>, ApiError> {
    blocking(&state, move |s| {
        let revision = match params.graph_revision {
            Some(revision) => revision,
            None => s.project().graph_revision(),
        };
        s.runner.evidence(&revision).map_err(SomiteError::from)
    })
    .await
    .map(Json)
}
