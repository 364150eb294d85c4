//! Managed resources: the routes behind the consent dialog, the install
//! progress and the Project tools list (`docs/resources.md`).
//!
//! Reading (the overview, one provider, the resolutions of a requirement, a
//! folder check) is mounted for people and again under `/api/mcp/`.
//! Installing and cancelling are mounted twice too, but differently: the
//! person's own routes act on the consent the workspace's dialog sent,
//! while the MCP routes ([`agent_install`], [`agent_cancel`]) act only on a
//! permission the user answered in the agent session for that very
//! provider and consent ([`crate::agent::AgentHost::take_resource_grant`]),
//! and refuse with `resource_permission_required` otherwise — an agent
//! never installs, nor deletes a partial download, on its own say-so. A
//! cancel that keeps the partial needs no grant. Every route is a thin adapter over the one
//! [`ResourceManager`]; its job events reach the activity feed as
//! [`FeedKind::Resource`].

use crate::api_error::ApiError;
use crate::body::JsonBody;
use crate::capability::CapabilityId;
use crate::routes::QueryParams;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;
use somite_api::tools::resource as action;
use somite_api::{FeedKind, ResourceCode};
use somite_resource::model::{
    CancelRequest, DirectoryCheck, DirectoryCheckRequest, InstallRequest, JobStatus, Resolutions,
    ResourceInspect, ResourceOverview,
};
use somite_resource::{ResourceError, ResourceManager};
use std::sync::Arc;

fn manager(state: &AppState) -> Result<ResourceManager, ApiError> {
    state.resources.clone().map_err(ApiError)
}

fn failure(error: ResourceError) -> ApiError {
    ApiError(error.into())
}

/// Runs store work (it reads and hashes files) off the async executor.
async fn blocking<T: Send + 'static>(
    state: &Arc<AppState>,
    work: impl FnOnce(ResourceManager) -> Result<T, ResourceError> + Send + 'static,
) -> Result<T, ApiError> {
    let manager = manager(state)?;
    tokio::task::spawn_blocking(move || work(manager))
        .await
        .map_err(|e| {
            ApiError::new(
                somite_api::DomainCode::Io,
                format!("the request's worker failed: {e}"),
                "retry; if it persists, restart Somite and report the log",
            )
        })?
        .map_err(failure)
}

/// Forwards every install job's progress to the activity feed and resumes
/// the installs a previous runtime accepted but did not finish.
pub fn announce_resources(state: &Arc<AppState>) {
    let Ok(manager) = state.resources.clone() else {
        return;
    };
    let mut events = manager.subscribe();
    let feed = state.feed.clone();
    tokio::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match events.recv().await {
                Ok(status) => {
                    feed.publish(
                        FeedKind::Resource,
                        serde_json::to_value(&status).unwrap_or_default(),
                    );
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            }
        }
    });
    for outcome in manager.resume_interrupted() {
        if let Err(error) = outcome {
            tracing::warn!(%error, "an interrupted resource install could not resume");
        }
    }
}

pub async fn overview(
    State(state): State<Arc<AppState>>,
) -> Result<Json<ResourceOverview>, ApiError> {
    blocking(&state, |m| Ok(m.overview())).await.map(Json)
}

pub async fn inspect(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<ResourceInspect>, ApiError> {
    blocking(&state, move |m| m.inspect(&id)).await.map(Json)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResolutionsQuery {
    pub profile: String,
}

pub async fn resolutions(
    State(state): State<Arc<AppState>>,
    QueryParams(query): QueryParams<ResolutionsQuery>,
) -> Result<Json<Resolutions>, ApiError> {
    blocking(&state, move |m| m.resolutions(&query.profile))
        .await
        .map(Json)
}

pub async fn check_directory(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<DirectoryCheckRequest>,
) -> Result<Json<DirectoryCheck>, ApiError> {
    blocking(&state, move |m| m.check_directory(&request))
        .await
        .map(Json)
}

pub async fn install(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<InstallRequest>,
) -> Result<(StatusCode, Json<JobStatus>), ApiError> {
    let manager = manager(&state)?;
    manager
        .install(&id, &request.consent)
        .map(|status| (StatusCode::ACCEPTED, Json(status)))
        .map_err(failure)
}

pub async fn cancel(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<CancelRequest>,
) -> Result<Json<JobStatus>, ApiError> {
    let manager = manager(&state)?;
    manager
        .cancel(&id, request.keep_partial)
        .await
        .map(Json)
        .map_err(failure)
}

fn permission_required(id: &str, what: &str) -> ApiError {
    ApiError(
        somite_api::Error::new(
            ResourceCode::ResourcePermissionRequired,
            format!("the user has not allowed this session to {what} `{id}`"),
            "ask the user: only they choose a resource, in the consent dialog or by answering the permission prompt for this exact call",
        )
        .with_details(serde_json::json!({"provider_id": id})),
    )
}

/// `POST /api/mcp/resources/{id}/install`: an agent's install, on the
/// user's answer to its permission prompt.
pub async fn agent_install(
    State(state): State<Arc<AppState>>,
    Extension(capability): Extension<CapabilityId>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<InstallRequest>,
) -> Result<(StatusCode, Json<JobStatus>), ApiError> {
    let consent = serde_json::to_value(&request.consent).unwrap_or_default();
    if !state
        .agents
        .take_resource_grant(capability, &id, action::INSTALL, Some(&consent))
    {
        return Err(permission_required(&id, "install"));
    }
    install(State(state), Path(id), JsonBody(request)).await
}

/// `POST /api/mcp/resources/{id}/cancel`: an agent's cancel; deleting the
/// partial download needs the user's answer to its permission prompt.
pub async fn agent_cancel(
    State(state): State<Arc<AppState>>,
    Extension(capability): Extension<CapabilityId>,
    Path(id): Path<String>,
    JsonBody(request): JsonBody<CancelRequest>,
) -> Result<Json<JobStatus>, ApiError> {
    if !request.keep_partial
        && !state
            .agents
            .take_resource_grant(capability, &id, action::CANCEL, None)
    {
        return Err(permission_required(
            &id,
            "cancel and delete the partial download of",
        ));
    }
    cancel(State(state), Path(id), JsonBody(request)).await
}
