//! The `somite.source_workflow.*` tools: start from a published Nextflow
//! pipeline instead of an empty canvas.
//!
//! Like every tool of this server they are one call each into the
//! runtime's `/api/mcp/source/...` routes, which run the code behind the
//! web workspace's "Start from a pipeline". Search reads the nf-co.re
//! catalog (open world, read-only); a resolve downloads and pins a release
//! or ref to its commit and tree digest, then places one `workflow.source`
//! node on an empty canvas through an ordinary compare-and-swap transaction
//! (open world, writes; its idempotency key makes a repeat a replay).
//! Edit and promote are local transactions on the placed source node
//! (writes, not open world, replayed through their idempotency key).
//! Provider failures come back as the runtime's envelope (`rate_limited`
//! with `details.reset_at`, `release_not_found`, `canvas_not_empty`,
//! `not_a_nextflow_repository`, ...).

use super::{Outcome, SomiteServer, outcome_schema, percent_encode, serde_urlencoded_pairs};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use somite_project::source::{SourceEditRequest, SourcePromoteRequest};
use somite_project::views::AppliedTransaction;
use somite_source::NfCoreSearchPage;

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchNfCoreArgs {
    /// Words matched against pipeline names, descriptions and topics (empty
    /// lists every pipeline).
    pub query: String,
    /// Results per page, 1–100 (default 20).
    #[serde(default)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page of the same query.
    #[serde(default)]
    pub cursor: Option<String>,
}

/// Where the resolved source goes: an unchanged, empty canvas.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlacementArgs {
    /// The `state_revision` from somite.workflow.get; the canvas must be empty.
    pub base_state_revision: String,
    /// A fresh key per intended placement, `^[A-Za-z0-9_-]{8,128}$`;
    /// repeating the identical request with it replays the original result.
    pub idempotency_key: String,
    /// The new node's id (default `source`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<String>,
    /// Canvas position (default 0, 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveNfCoreArgs {
    /// `nf-core/NAME` exactly as search_nfcore returned it.
    pub pipeline: String,
    /// An exact release tag from search_nfcore's `releases` (never a branch).
    pub release: String,
    #[serde(flatten)]
    pub placement: PlacementArgs,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveGitHubArgs {
    /// `OWNER/REPO` of a Nextflow pipeline on GitHub (with `main.nf` at its root).
    pub repository: String,
    /// A tag, branch or commit SHA; it is pinned to the commit it names now.
    #[serde(rename = "ref")]
    pub git_ref: String,
    #[serde(flatten)]
    pub placement: PlacementArgs,
}

/// `somite.source_workflow.edit`: the edit route's body and the node.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceEditArgs {
    /// The id of the workflow.source node (from somite.workflow.get).
    pub node_id: String,
    #[serde(flatten)]
    pub body: SourceEditRequest,
}

/// `somite.source_workflow.promote`: the promote route's body and the node.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourcePromoteArgs {
    /// The id of the workflow.source node (from somite.workflow.get).
    pub node_id: String,
    #[serde(flatten)]
    pub body: SourcePromoteRequest,
}

#[tool_router(router = source_workflow_router, vis = "pub(super)")]
impl SomiteServer {
    /// Search the nf-core pipeline catalog (nf-co.re, cached for an hour, served offline with its age): deterministic ranking over name, description and topics, each match with its exact repository and releases (tag, commit), and an opaque cursor.
    #[tool(
        name = "somite.source_workflow.search_nfcore",
        annotations(title = "Search nf-core pipelines"),
        output_schema = outcome_schema::<NfCoreSearchPage>()
    )]
    async fn source_search_nfcore(
        &self,
        Parameters(args): Parameters<SearchNfCoreArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<NfCoreSearchPage> {
        let mut query = vec![("q", args.query)];
        query.extend(args.limit.map(|l| ("limit", l.to_string())));
        query.extend(args.cursor.map(|c| ("cursor", c)));
        let path = format!("/source/nfcore/search?{}", serde_urlencoded_pairs(&query));
        Outcome(
            self.runtime
                .call(reqwest::Method::GET, &path, None, &context)
                .await,
        )
    }

    /// Download an exact nf-core release, pin it to its commit and verified tree digest, outline it and place it as one workflow.source node (typed parameters from its schema) on the empty canvas in one compare-and-swap transaction. Refused with canvas_not_empty, release_not_found or rate_limited (details.reset_at).
    #[tool(
        name = "somite.source_workflow.resolve_nfcore",
        annotations(title = "Start from an nf-core release"),
        output_schema = outcome_schema::<AppliedTransaction>()
    )]
    async fn source_resolve_nfcore(
        &self,
        Parameters(args): Parameters<ResolveNfCoreArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<AppliedTransaction> {
        self.resolve("/source/nfcore/resolve", &args, &context)
            .await
    }

    /// Resolve a GitHub ref of a Nextflow repository to its commit, download and pin that commit's tree, outline it and place it as one workflow.source node on the empty canvas in one compare-and-swap transaction. Refused with canvas_not_empty, ref_not_found, not_a_nextflow_repository or rate_limited (details.reset_at).
    #[tool(
        name = "somite.source_workflow.resolve_github",
        annotations(title = "Start from a GitHub pipeline"),
        output_schema = outcome_schema::<AppliedTransaction>()
    )]
    async fn source_resolve_github(
        &self,
        Parameters(args): Parameters<ResolveGitHubArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<AppliedTransaction> {
        self.resolve("/source/github/resolve", &args, &context)
            .await
    }

    /// Edit a workflow.source node in one compare-and-swap transaction: set_param/unset_param (checked against the pinned nextflow_schema.json: type, enum, pattern, minimum/maximum, existing files), replace_invocation (a catalog operator stands in for one fully-qualified process call such as NFCORE_DEMO:DEMO:FASTQC; ports matched by type unless mapped; a misfit is invocation_port_incompatible naming the port) and restore_invocation. A replacement runs only after promotion.
    #[tool(
        name = "somite.source_workflow.edit",
        annotations(title = "Edit a source workflow"),
        output_schema = outcome_schema::<AppliedTransaction>()
    )]
    async fn source_workflow_edit(
        &self,
        Parameters(args): Parameters<SourceEditArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<AppliedTransaction> {
        let path = format!("/source/nodes/{}/edit", percent_encode(&args.node_id));
        let body = serde_json::to_value(&args.body).unwrap_or(Value::Null);
        Outcome(
            self.runtime
                .call(reqwest::Method::POST, &path, Some(&body), &context)
                .await,
        )
    }

    /// Promote replaced invocations of a workflow.source node into a native variant in one transaction: the selected replacements become ordinary typed nodes, every other invocation with a catalog equivalent too, the rest are listed in variant_origin.unrepresented (each a blocking readiness item). The source is kept in variant_origin and restored by the revert_variant operation. Refused with promotion_refused naming the obstacle.
    #[tool(
        name = "somite.source_workflow.promote",
        annotations(title = "Promote into a native variant"),
        output_schema = outcome_schema::<AppliedTransaction>()
    )]
    async fn source_workflow_promote(
        &self,
        Parameters(args): Parameters<SourcePromoteArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<AppliedTransaction> {
        let path = format!("/source/nodes/{}/promote", percent_encode(&args.node_id));
        let body = serde_json::to_value(&args.body).unwrap_or(Value::Null);
        Outcome(
            self.runtime
                .call(reqwest::Method::POST, &path, Some(&body), &context)
                .await,
        )
    }
}

impl SomiteServer {
    /// Posts a resolve body as the route takes it (the argument shapes are
    /// the route's bodies). Downloading a large pipeline may take a while:
    /// it runs as long work with progress, bounded by the runtime's own
    /// provider timeouts and archive caps.
    async fn resolve<A: Serialize>(
        &self,
        path: &str,
        args: &A,
        context: &RequestContext<RoleServer>,
    ) -> Outcome<AppliedTransaction> {
        let body = serde_json::to_value(args).unwrap_or(Value::Null);
        Outcome(
            self.runtime
                .call_for(
                    super::Work::Long("downloading and pinning the pipeline"),
                    reqwest::Method::POST,
                    path,
                    Some(&body),
                    context,
                )
                .await,
        )
    }
}
