//! The Operator Workshop's routes: drafting and proving operator candidates
//! (for people, and again under `/api/mcp/` for the agent's
//! `somite.operator_candidate.*` and `somite.operator_proof.status` tools),
//! and the Project tools panel's list, Accept and Reject.
//!
//! Accept and Reject are mounted on the human router only: a proof shows
//! that a contract runs on its fixture, not that the user wants to trust it
//! in the project, so no route reachable with the MCP capability can admit
//! a candidate to the catalog (a test asks the agent router for them).

use crate::api_error::ApiError;
use crate::body::{JsonBody, RawJson};
use crate::package_routes::NoOptions;
use crate::routes::QueryParams;
use crate::state::AppState;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Serialize;
use serde_json::{Value, json};
use somite_api::{Error, FeedKind};
use somite_project::candidates::{self, Accepted, Candidate, Drafted};
use somite_runner::StatusPoll;
use somite_runner::workshop::{ProofReceipt, ProofStatus, ProveRequest};
use somite_workflow::{Catalog, ErrorCode, SomiteError};
use std::sync::Arc;

/// Runs blocking workshop work off the async executor.
async fn blocking<T: Send + 'static>(
    state: &Arc<AppState>,
    work: impl FnOnce(&AppState) -> Result<T, Error> + Send + 'static,
) -> Result<T, ApiError> {
    let state = state.clone();
    tokio::task::spawn_blocking(move || work(&state))
        .await
        .map_err(|e| {
            ApiError::from(SomiteError::new(
                ErrorCode::Io,
                format!("the request's worker failed: {e}"),
                "retry; if it persists, restart Somite and report the log",
            ))
        })?
        .map_err(ApiError::from)
}

fn builtin() -> Result<Catalog, Error> {
    Catalog::builtin().map_err(Error::from)
}

/// `POST /api/operator-candidates`: checks and stores one candidate; the
/// same content again is a replay (200), a new one is created (201).
pub async fn draft(
    State(state): State<Arc<AppState>>,
    RawJson(bytes): RawJson,
) -> Result<(StatusCode, Json<Drafted>), ApiError> {
    let drafted = blocking(&state, move |s| {
        let candidate = candidates::parse_draft(&bytes, &builtin()?)?;
        let project = s.project();
        candidates::store(project.layout(), candidate)
    })
    .await?;
    if !drafted.replayed {
        state.feed.publish(
            FeedKind::Workshop,
            json!({"event": "drafted", "digest": drafted.candidate.digest,
                   "operator_id": drafted.candidate.operator_id}),
        );
    }
    let status = if drafted.replayed {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok((status, Json(drafted)))
}

/// One candidate as the Project tools panel shows it.
#[derive(Debug, Serialize)]
pub struct ListedCandidate {
    #[serde(flatten)]
    pub candidate: Candidate,
    /// The digest of the earlier candidate of the same operator id, if any.
    pub previous_digest: Option<String>,
    /// The contract the catalog holds under this id now (an accepted
    /// earlier version), if any.
    pub accepted_contract: Option<Value>,
    /// Its proofs with their state now, oldest first.
    pub proofs: Vec<ProofStatus>,
    /// Whether a proof of exactly this candidate passed: only then may a
    /// person accept it (`proof_required` otherwise).
    pub acceptable: bool,
}

#[derive(Debug, Serialize)]
pub struct CandidateList {
    pub catalog_revision: String,
    pub candidates: Vec<ListedCandidate>,
}

/// `GET /api/operator-candidates` (human only).
pub async fn list(State(state): State<Arc<AppState>>) -> Result<Json<CandidateList>, ApiError> {
    let (stored, catalog) = blocking(&state, move |s| {
        let (layout, catalog) = {
            let project = s.project();
            (project.layout().clone(), project.catalog().clone())
        };
        Ok((candidates::list(&layout)?, catalog))
    })
    .await?;
    let mut listed: Vec<ListedCandidate> = Vec::new();
    for candidate in stored {
        let previous_digest = listed
            .iter()
            .rev()
            .find(|l| l.candidate.operator_id == candidate.operator_id)
            .map(|l| l.candidate.digest.to_string());
        let proofs = state
            .workshop
            .proofs_of(&candidate.digest)
            .await
            .map_err(ApiError::from)?;
        listed.push(ListedCandidate {
            accepted_contract: catalog
                .get(&candidate.operator_id)
                .map(|e| serde_json::to_value(&e.contract).expect("contracts serialize")),
            acceptable: proofs.iter().any(|p| p.passed),
            proofs,
            previous_digest,
            candidate,
        });
    }
    Ok(Json(CandidateList {
        catalog_revision: catalog.revision().to_string(),
        candidates: listed,
    }))
}

/// `POST /api/operator-candidates/{digest}/proofs`: runs the candidate once
/// in its isolated fixture graph through the production supervisor.
pub async fn prove(
    State(state): State<Arc<AppState>>,
    Path(digest): Path<String>,
    JsonBody(request): JsonBody<ProveRequest>,
) -> Result<(StatusCode, Json<ProofReceipt>), ApiError> {
    let receipt = blocking(&state, move |s| {
        let (layout, catalog) = {
            let project = s.project();
            (project.layout().clone(), project.catalog().clone())
        };
        let candidate = candidates::read(&layout, &digest)?;
        s.workshop.prove(&catalog, &candidate, &request)
    })
    .await?;
    if !receipt.replayed {
        state.feed.publish(
            FeedKind::Workshop,
            json!({"event": "proving", "proof_id": receipt.proof_id,
                   "digest": receipt.candidate_digest, "run_id": receipt.run_id}),
        );
    }
    Ok((StatusCode::ACCEPTED, Json(receipt)))
}

/// `GET /api/operator-proofs/{id}`: the receipt and its run's evidence,
/// long-polling like run status.
pub async fn proof_status(
    State(state): State<Arc<AppState>>,
    Path(proof_id): Path<String>,
    QueryParams(poll): QueryParams<StatusPoll>,
) -> Result<Json<ProofStatus>, ApiError> {
    state
        .workshop
        .status(&proof_id, poll)
        .await
        .map(Json)
        .map_err(ApiError::from)
}

/// `POST /api/operator-candidates/{digest}/accept` — human only.
pub async fn accept(
    State(state): State<Arc<AppState>>,
    Path(digest): Path<String>,
    JsonBody(NoOptions {}): JsonBody<NoOptions>,
) -> Result<Json<Accepted>, ApiError> {
    let candidate = {
        let layout = state.project().layout().clone();
        let digest = digest.clone();
        blocking(&state, move |_| candidates::read(&layout, &digest)).await?
    };
    state
        .workshop
        .require_passed_proof(&candidate.digest)
        .await
        .map_err(ApiError::from)?;
    let accepted = blocking(&state, move |s| {
        candidates::accept(&mut s.project(), &digest)
    })
    .await?;
    state.feed.publish(
        FeedKind::Workshop,
        json!({"event": "accepted", "operator_id": accepted.operator_id,
               "catalog_revision": accepted.catalog_revision}),
    );
    Ok(Json(accepted))
}

/// `POST /api/operator-candidates/{digest}/reject` — human only.
pub async fn reject(
    State(state): State<Arc<AppState>>,
    Path(digest): Path<String>,
    JsonBody(NoOptions {}): JsonBody<NoOptions>,
) -> Result<Json<Value>, ApiError> {
    let rejected = digest.clone();
    blocking(&state, move |s| {
        candidates::reject(s.project().layout(), &digest)
    })
    .await?;
    state.feed.publish(
        FeedKind::Workshop,
        json!({"event": "rejected", "digest": rejected}),
    );
    Ok(Json(json!({"rejected": rejected})))
}
