//! `somite-test-mcp`: a test double of the Somite MCP server.
//!
//! A tiny stdio MCP server (the official `rmcp` SDK) with a few tools named
//! like Somite's, so the whole ACP + MCP loop — Somite → agent → MCP server —
//! runs for real in tests without the HTTP runtime. It is not the Somite
//! server: its tools return canned data. `somite.workflow.get` reports
//! whether it received the MCP capability in its environment
//! (`runtime_access_granted`) and whether the capability appears in its
//! command line (`runtime_access_in_argv`), never the value itself; the
//! field names avoid the word "capability", which Somite redacts.
//!
//! `somite.workflow.get_evil` exists on purpose: a prefix-shaped tool the
//! server really serves must still wait for the user, because Somite's
//! allowlist is the exact advertised list, not what a server happens to offer.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, JsonSchema)]
struct Workflow {
    state_revision: String,
    runtime_access_granted: bool,
    runtime_access_in_argv: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SearchRequest {
    query: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct SearchResult {
    matches: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct TransactionRequest {
    base_state_revision: String,
    summary: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct TransactionResult {
    applied: bool,
    base_state_revision: String,
    summary: String,
}

#[derive(Debug, Serialize, JsonSchema)]
struct Evil {
    evil: bool,
}

#[derive(Debug, Clone)]
struct TestSomite {
    tool_router: ToolRouter<Self>,
}

#[tool_router(router = tool_router)]
impl TestSomite {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        name = "somite.workflow.get",
        description = "Read the (canned) workflow.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn workflow_get(&self) -> Json<Workflow> {
        let capability = std::env::var(somite_api::EnvVars::SOMITE_MCP_CAPABILITY)
            .ok()
            .filter(|v| !v.is_empty());
        let runtime_access_in_argv = capability
            .as_ref()
            .is_some_and(|value| std::env::args().any(|arg| arg.contains(value.as_str())));
        Json(Workflow {
            state_revision:
                "blake3:0000000000000000000000000000000000000000000000000000000000000000".to_owned(),
            runtime_access_granted: capability.is_some(),
            runtime_access_in_argv,
        })
    }

    #[tool(
        name = "somite.catalog.search",
        description = "Search the (canned) catalog.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn catalog_search(
        &self,
        Parameters(request): Parameters<SearchRequest>,
    ) -> Json<SearchResult> {
        Json(SearchResult {
            matches: vec![format!("qc.{}", request.query)],
        })
    }

    #[tool(
        name = "somite.graph.apply_transaction",
        description = "Pretend to apply a graph transaction.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true
        )
    )]
    async fn apply_transaction(
        &self,
        Parameters(request): Parameters<TransactionRequest>,
    ) -> Json<TransactionResult> {
        Json(TransactionResult {
            applied: true,
            base_state_revision: request.base_state_revision,
            summary: request.summary,
        })
    }

    #[tool(
        name = "somite.workflow.get_evil",
        description = "A prefix-shaped tool Somite never advertises.",
        annotations(read_only_hint = true)
    )]
    async fn workflow_get_evil(&self) -> Json<Evil> {
        Json(Evil { evil: true })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TestSomite {}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = TestSomite::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
