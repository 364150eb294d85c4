//! The Operator Workshop's tools: draft a `project.*` operator candidate,
//! prove it, and read the proof.
//!
//! Each is one call into the runtime's `/api/mcp/operator-candidates` and
//! `/api/mcp/operator-proofs` routes. Accepting or rejecting a candidate is
//! deliberately not a tool: a proof shows that a contract runs on its
//! fixture, not that the user wants to trust it, so that decision stays
//! with the Project tools panel, on routes the capability cannot reach.

use super::{Outcome, SomiteServer, long_poll_path, percent_encode};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::JsonObject;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use somite_project::candidates::Drafted;
use somite_runner::workshop::{ProofReceipt, ProofStatus};
use std::sync::Arc;

fn outcome_schema<T: JsonSchema>() -> Arc<JsonObject> {
    super::outcome_schema::<T>()
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DraftArgs {
    /// One operator contract in the catalog's strict format (as JSON): an id
    /// under `project.` that no reviewed operator uses, kind `external`, an
    /// argv array starting with `bin` (no shell, no conda/pixi/docker/
    /// nextflow), exact `pixi` pins, typed ports and an output glob or
    /// `stdout` port for every output.
    pub contract: Map<String, Value>,
    /// `{documentation, packages, flags}`: the tool's https documentation URL
    /// or a citation; one `name==version` per `pixi` pin; and for every flag
    /// in argv `{flag, excerpt}` quoting the help or manual text it came from.
    pub evidence: Map<String, Value>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProveArgs {
    /// The digest somite.operator_candidate.draft returned.
    pub digest: String,
    /// A fresh key per intended proof, `^[A-Za-z0-9_-]{8,128}$`; it becomes
    /// the proof_id. Repeating it for the same candidate replays the proof.
    pub idempotency_key: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProofStatusArgs {
    pub proof_id: String,
    /// Long-poll: wait up to this many milliseconds (at most 25,000) for a change.
    #[serde(default)]
    pub wait_ms: Option<u64>,
    /// The run `revision` you already have; a newer one answers at once.
    #[serde(default)]
    pub since_revision: Option<u64>,
}

#[tool_router(router = workshop_router, vis = "pub(super)")]
impl SomiteServer {
    /// Persist one evidence-backed `project.*` operator candidate (the catalog's strict contract format plus documentation, package spec and a help excerpt per flag) without admitting it to the catalog; the same content again is a replay. Only a person can accept a candidate, in the Project tools panel.
    #[tool(
        name = "somite.operator_candidate.draft",
        annotations(title = "Draft an operator candidate"),
        output_schema = outcome_schema::<Drafted>()
    )]
    async fn operator_candidate_draft(
        &self,
        Parameters(args): Parameters<DraftArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<Drafted> {
        let body = serde_json::json!({"contract": args.contract, "evidence": args.evidence});
        Outcome(
            self.runtime
                .call(
                    reqwest::Method::POST,
                    "/operator-candidates",
                    Some(&body),
                    &context,
                )
                .await,
        )
    }

    /// Run the exact candidate once in an isolated, ready tiny-fixture graph through the production supervisor, as a validation runs (plus the real tool's task proof when it is on PATH); returns a proof receipt bound to the candidate digest and run closure.
    #[tool(
        name = "somite.operator_candidate.prove",
        annotations(title = "Prove an operator candidate"),
        output_schema = outcome_schema::<ProofReceipt>()
    )]
    async fn operator_candidate_prove(
        &self,
        Parameters(args): Parameters<ProveArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<ProofReceipt> {
        let body = serde_json::json!({"idempotency_key": args.idempotency_key});
        let path = format!(
            "/operator-candidates/{}/proofs",
            percent_encode(&args.digest)
        );
        Outcome(
            self.runtime
                .call_for(
                    super::Work::Long("preparing the candidate's proof"),
                    reqwest::Method::POST,
                    &path,
                    Some(&body),
                    &context,
                )
                .await,
        )
    }

    /// Read a candidate proof through its run's terminal evidence; long-poll with wait_ms (up to 25,000). proven is true only once the run ended with a verified passing receipt.
    #[tool(
        name = "somite.operator_proof.status",
        annotations(title = "Read a candidate proof"),
        output_schema = outcome_schema::<ProofStatus>()
    )]
    async fn operator_proof_status(
        &self,
        Parameters(args): Parameters<ProofStatusArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<ProofStatus> {
        let path = long_poll_path(
            "/operator-proofs",
            &args.proof_id,
            args.wait_ms,
            args.since_revision,
        );
        Outcome(
            self.runtime
                .call(reqwest::Method::GET, &path, None, &context)
                .await,
        )
    }
}
