//! Compile and export: the routes behind the workspace's Compile and Export
//! buttons and the agent's `somite.workflow.compile`.
//!
//! All of them go through `somite_project::compiled::compile`, the one
//! production path the CLI uses too, so the recovery and readiness gates are
//! the same for a person, an agent and a script. The MCP form additionally
//! attaches the package to the calling session's shared Pixi/Nextflow root,
//! so the agent's toolchain servers can inspect exactly what was frozen.

use crate::api_error::ApiError;
use crate::body::JsonBody;
use crate::capability::CapabilityId;
use crate::source_routes::ensure_source_tree_to_compile;
use crate::state::{AppState, EditSource, blocking};
use axum::Extension;
use axum::Json;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;
use somite_api::FeedKind;
use somite_project::compiled::{self, CompileOutcome, CompileSummary};
use somite_project::export;
use somite_project::views::AttachedCompile;
use somite_workflow::SomiteError;
use std::sync::Arc;

/// A body that must be `{}`: the routes act on the current graph.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoOptions {}

fn compile_current(state: &AppState) -> Result<(CompileOutcome, CompileSummary), SomiteError> {
    let project = state.project();
    let outcome = compiled::compile(&project, &state.compile_toolchain)?;
    let relative = outcome
        .path
        .strip_prefix(project.layout().root())
        .unwrap_or(&outcome.path)
        .display()
        .to_string();
    let summary = outcome.summary(relative);
    Ok((outcome, summary))
}

fn announce(state: &AppState, source: &EditSource, summary: &CompileSummary) {
    state.feed.publish(
        FeedKind::Compile,
        json!({"source": source, "summary": summary}),
    );
}

pub async fn compile(
    State(state): State<Arc<AppState>>,
    JsonBody(NoOptions {}): JsonBody<NoOptions>,
) -> Result<Json<CompileSummary>, ApiError> {
    ensure_source_tree_to_compile(&state).await?;
    blocking(&state, |s| {
        let (_, summary) = compile_current(s)?;
        announce(s, &EditSource::Human, &summary);
        Ok(summary)
    })
    .await
    .map(Json)
}

pub async fn agent_compile(
    State(state): State<Arc<AppState>>,
    Extension(capability): Extension<CapabilityId>,
    JsonBody(NoOptions {}): JsonBody<NoOptions>,
) -> Result<Json<AttachedCompile>, ApiError> {
    ensure_source_tree_to_compile(&state).await?;
    blocking(&state, move |s| {
        let (outcome, summary) = compile_current(s)?;
        announce(s, &EditSource::Agent { activity: None }, &summary);
        let attachment = match s.agents.attachments_for(capability) {
            None => None,
            Some(session) => {
                let mut root = session.root.lock().unwrap_or_else(|p| p.into_inner());
                Some(root.attach(session.generation, &outcome.package)?)
            }
        };
        Ok(AttachedCompile {
            summary,
            copy_method: attachment.as_ref().map(|a| a.copy_method),
            output_path: attachment.map(|a| a.output_path),
        })
    })
    .await
    .map(Json)
}

/// `POST /api/export`: the deterministic ZIP of the compiled package.
pub async fn export(
    State(state): State<Arc<AppState>>,
    JsonBody(NoOptions {}): JsonBody<NoOptions>,
) -> Result<Response, ApiError> {
    ensure_source_tree_to_compile(&state).await?;
    let (name, bytes) = blocking(&state, |s| {
        let project = s.project();
        // The archive is written (atomically) to a private scratch folder,
        // read back and sent; nothing is left in the project.
        let scratch =
            tempfile::tempdir().map_err(|e| SomiteError::io(&std::env::temp_dir(), &e))?;
        let out = scratch.path().join("export.zip");
        let outcome = export::export(&project, &s.compile_toolchain, &out)?;
        let bytes = std::fs::read(&outcome.path).map_err(|e| SomiteError::io(&outcome.path, &e))?;
        let digest = outcome.compile.package.directory_name();
        let name = format!(
            "{}-{}.zip",
            file_stem(&project.document().title),
            &digest[..digest.len().min(12)]
        );
        Ok((name, bytes))
    })
    .await?;
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment; filename=\"workflow.zip\""));
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/zip"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        bytes,
    )
        .into_response())
}

/// A file name from a document title: letters, digits and dashes only.
fn file_stem(title: &str) -> String {
    let mut stem = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            stem.push(c.to_ascii_lowercase());
        } else if !stem.ends_with('-') && !stem.is_empty() {
            stem.push('-');
        }
        if stem.len() >= 64 {
            break;
        }
    }
    let stem = stem.trim_end_matches('-');
    if stem.is_empty() {
        "workflow".to_owned()
    } else {
        stem.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn file_stems_keep_only_safe_characters() {
        assert_eq!(file_stem("RNA-seq QC (v2)"), "rna-seq-qc-v2");
        assert_eq!(file_stem("  "), "workflow");
        assert_eq!(file_stem("\"; rm -rf /"), "rm-rf");
        assert!(file_stem(&"x".repeat(500)).len() <= 64);
    }
}
