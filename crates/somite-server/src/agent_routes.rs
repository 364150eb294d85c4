//! The Agent panel's routes (`docs/http-api.md`, "Agent panel"): thin, typed
//! adapters over [`AgentHost`](crate::agent::AgentHost).

use crate::agent::{ConnectRequest, LauncherList};
use crate::api_error::ApiError;
use crate::body::JsonBody;
use crate::package_routes::NoOptions;
use crate::state::AppState;
use axum::Json;
use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::{Value, json};
use somite_acp::{ConfigValue, PermissionAnswer};
use somite_workflow::{ErrorCode, SomiteError};
use std::sync::Arc;

/// The largest prompt the panel may send; far above any typed message and
/// far below the shared request limit.
pub const MAX_PROMPT_BYTES: usize = 256 * 1024;

pub async fn launchers(State(state): State<Arc<AppState>>) -> Json<LauncherList> {
    Json(state.agents.launchers().await)
}

pub async fn session(State(state): State<Arc<AppState>>) -> Json<Value> {
    Json(state.agents.view())
}

pub async fn connect(
    State(state): State<Arc<AppState>>,
    JsonBody(request): JsonBody<ConnectRequest>,
) -> Result<Json<Value>, ApiError> {
    state
        .agents
        .connect(request)
        .await
        .map(Json)
        .map_err(ApiError::from)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptRequest {
    text: String,
}

pub async fn prompt(
    State(state): State<Arc<AppState>>,
    JsonBody(PromptRequest { text }): JsonBody<PromptRequest>,
) -> Result<Json<Value>, ApiError> {
    if text.trim().is_empty() {
        return Err(ApiError::new(
            ErrorCode::InvalidRequest,
            "the message is empty",
            "type a message for the agent",
        ));
    }
    if text.len() > MAX_PROMPT_BYTES {
        return Err(ApiError::from(SomiteError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "the message has {} bytes; at most {MAX_PROMPT_BYTES} are accepted",
                text.len()
            ),
            "shorten the message; attach large material as files in the project",
        )));
    }
    let turn = state.agents.prompt(text).await.map_err(ApiError::from)?;
    Ok(Json(json!({ "turn": turn })))
}

pub async fn cancel(
    State(state): State<Arc<AppState>>,
    JsonBody(NoOptions {}): JsonBody<NoOptions>,
) -> Result<Json<Value>, ApiError> {
    state.agents.cancel().await.map_err(ApiError::from)?;
    Ok(Json(json!({})))
}

/// `{"option_id": ...}` selects an advertised option; `{"cancel": true}`
/// cancels the request.
#[derive(Debug, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum PermissionReply {
    Select { option_id: String },
    Cancel { cancel: bool },
}

pub async fn answer_permission(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    JsonBody(reply): JsonBody<PermissionReply>,
) -> Result<Json<Value>, ApiError> {
    let answer = match reply {
        PermissionReply::Select { option_id } => PermissionAnswer::Selected { option_id },
        PermissionReply::Cancel { cancel: true } => PermissionAnswer::Cancelled,
        PermissionReply::Cancel { cancel: false } => {
            return Err(ApiError::new(
                ErrorCode::InvalidRequest,
                "`cancel` must be true",
                "send {\"option_id\": ...} to pick an option or {\"cancel\": true}",
            ));
        }
    };
    state
        .agents
        .answer_permission(&id, answer)
        .await
        .map_err(ApiError::from)?;
    Ok(Json(json!({})))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigRequest {
    config_id: String,
    value: ConfigValue,
}

pub async fn set_config(
    State(state): State<Arc<AppState>>,
    JsonBody(ConfigRequest { config_id, value }): JsonBody<ConfigRequest>,
) -> Result<Json<Value>, ApiError> {
    let options = state
        .agents
        .set_config_option(config_id, value)
        .await
        .map_err(ApiError::from)?;
    Ok(Json(json!({ "config_options": options })))
}

pub async fn disconnect(
    State(state): State<Arc<AppState>>,
    JsonBody(NoOptions {}): JsonBody<NoOptions>,
) -> Result<Json<Value>, ApiError> {
    let cleanup = state.agents.disconnect().await.map_err(ApiError::from)?;
    Ok(Json(json!({ "cleanup": cleanup })))
}
