//! `somite mcp somite`: the canvas and its evidence as typed MCP tools.
//!
//! This server holds no workflow state of its own. Every tool is one call
//! into the loopback runtime's `/api/mcp/` routes, which run exactly the code
//! behind the web workspace's controls, so an agent's edit is validated,
//! published and announced like a person's. The server accepts only a
//! loopback runtime URL, and presents the capability it received through its
//! environment on every call — the value never appears in argv, logs or
//! results. Expected failures (stale revision, unknown operator, bad cursor,
//! blocked readiness) come back as `isError: true` results carrying the
//! runtime's `{code, message, recovery}` envelope, as do arguments that do
//! not match a tool's schema (`invalid_request`). Compiling and launching
//! may run a cold `pixi lock` for minutes: those calls have no deadline of
//! the proxy's own and report MCP progress while they wait (see `Work`), so
//! the agent never sees a failure while the work goes on.
//!
//! A tool's success value is the very type the runtime serializes (the
//! project's views, the assessment, the search page, the run status), so
//! its `outputSchema` is generated from what the runtime actually returns.
//! The reply is passed on as the runtime wrote it ([`Passed`]): parsed once
//! for `structuredContent`, checked against that type on the parsed tree (a
//! reply that does not match is reported as `invalid_response`), and its
//! bytes handed on verbatim as the text content instead of serialising a
//! 500-node document again. All calls of this process share one client,
//! with Nagle off and a pool of kept-alive connections: a burst of calls
//! pays for one loopback handshake (about 0.2 ms each otherwise). A pooled
//! connection is dropped after [`somite_api::limits::RUNTIME_POOL_IDLE`],
//! before the runtime would close it, so no call is sent on a connection
//! that is being closed.

mod resource_tool;
mod source_workflow_tools;
mod workshop;

use crate::effects::{self, Effect, Effects};
use crate::envelope::outcome_schema_with;
use crate::serve::SUPPORTED_PROTOCOL_VERSIONS;
use crate::toolserver::NoArguments;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::IntoCallToolResult;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use somite_api::LinkCode;
use somite_project::evidence::EvidenceLookup;
use somite_project::views::{AppliedTransaction, AttachedCompile};
use somite_project::workflow_read::{NodeField, ReadinessRead, WorkflowRead};
use somite_runner::{RunStarted, RunStatus};
use somite_workflow::search::SearchPage;
use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

mod source_tools;

/// Bound on one runtime response (the document envelope plus room for the
/// reply around it).
const MAX_RESPONSE_BYTES: usize = 80 * 1024 * 1024;
/// Bound on one quick runtime call; long-polls stay well below it.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
const _: () = assert!(
    CALL_TIMEOUT.as_millis() > somite_api::limits::MAX_STATUS_WAIT.as_millis(),
    "a status long-poll must answer within a quick call's deadline"
);
/// Between progress notifications while long work runs. MCP clients give
/// up on a request after a timeout of their own (60 s in the TypeScript
/// SDK) unless progress resets it.
const PROGRESS_INTERVAL: Duration = Duration::from_secs(5);

const INSTRUCTIONS: &str = "Somite's workflow canvas. Work on it directly with these tools: \
1) call somite.workflow.get first and keep its state_revision: it answers a summary (one line per node and edge, paged with next_cursor); read the nodes you work on with node_ids, and after an edit ask what changed with since_state_revision rather than rereading everything; somite.readiness.get pages the same way and takes node_ids; 2) find operators with short, \
single-concept somite.catalog.search queries (several in parallel) and use only exact ids, \
ports and parameters from the results — never invent a contract. For public reads, reference \
assemblies, organisms and genes use somite.source.search (NCBI, Ensembl) rather than a generic \
web browser, and apply a result's recipe operations as one transaction; 3) make small edits with \
somite.graph.apply_transaction, passing the latest state_revision as base_state_revision and a \
fresh idempotency_key; on stale_revision read the workflow again and re-apply; 4) after editing, \
call somite.readiness.get and resolve what it lists. Missing local resources (e.g. a Kraken2 \
database) stay typed requirements: ask the user rather than searching the web for them; \
somite.resource inspect shows what Somite can install (sizes, memory, scientific effect), but only \
the user chooses and approves an install. Do not \
compile, run or validate while readiness is blocked; 5) validate with somite.validation.start, \
follow it with somite.run.status (long-poll wait_ms), and call the graph validated only when \
somite.evidence.lookup reports validated=true for its graph_revision; 6) when the catalog truly \
lacks a tool, draft one project.* contract with somite.operator_candidate.draft (a documentation \
URL, the exact package pin and a help excerpt for every flag), prove it with \
somite.operator_candidate.prove and read somite.operator_proof.status. A candidate is not in the \
catalog: only the user can accept it, in the Project tools panel — tell them it awaits their review. To start from a published \
Nextflow pipeline instead, on an empty canvas: somite.source_workflow.search_nfcore, then \
somite.source_workflow.resolve_nfcore with an exact release it returned (or \
somite.source_workflow.resolve_github with OWNER/REPO and a ref), then set the source node's \
required parameters with set_param and call somite.readiness.get; add no other nodes beside it. To \
swap one of its steps for a catalog operator, replace_invocation with somite.source_workflow.edit, \
then somite.source_workflow.promote it into a native variant.";

/// Why the server cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(
        "--server-url must be a loopback http URL such as http://127.0.0.1:7310, not {0:?}; \
         the Somite runtime is only ever reached on this machine"
    )]
    NotLoopback(String),
    #[error("cannot build the runtime client: {0}")]
    Client(#[from] reqwest::Error),
}

/// Checks that `url` is `http://<loopback>[:port]` and returns it without a
/// trailing slash.
pub fn loopback_base_url(url: &str) -> Result<String, StartError> {
    let refuse = || StartError::NotLoopback(url.to_owned());
    let rest = url.strip_prefix("http://").ok_or_else(refuse)?;
    let authority = rest.trim_end_matches('/');
    if authority.contains(['/', '@', '?', '#']) {
        return Err(refuse());
    }
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map(|(h, _)| h).ok_or_else(refuse)?,
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    };
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        return Err(refuse());
    }
    Ok(format!("http://{authority}"))
}

/// The runtime's failure envelope, as tools return it: the wire envelope
/// itself, with the adapter's own link codes ([`LinkCode`]) beside the
/// runtime's.
type Failure = somite_api::Error;

/// A tool's result: the runtime's reply of type `T`, passed on, or its
/// failure envelope.
pub struct Outcome<T>(Result<Passed<T>, Failure>);

/// A runtime reply that was checked to be a `T`, kept as the runtime wrote
/// it: the bytes for the text content, the parsed tree for
/// `structuredContent`.
pub struct Passed<T> {
    text: String,
    value: Value,
    kind: PhantomData<fn() -> T>,
}

impl<T: serde::de::DeserializeOwned> Passed<T> {
    /// Parses `bytes` once and checks the tree is a `T` (the type the tool's
    /// `outputSchema` is generated from) without parsing the text again.
    fn decode(bytes: Vec<u8>) -> Result<Self, serde_json::Error> {
        let value: Value = serde_json::from_slice(&bytes)?;
        T::deserialize(&value)?;
        // serde_json accepted the bytes, so they are UTF-8.
        let text = String::from_utf8(bytes).map_err(serde::de::Error::custom)?;
        Ok(Passed {
            text,
            value,
            kind: PhantomData,
        })
    }
}

impl<T: serde::de::DeserializeOwned> Passed<T> {
    /// The reply as its type, for a tool that builds its answer from
    /// several runtime replies (the tree was checked to be a `T`).
    fn into_inner(self) -> T {
        T::deserialize(self.value).expect("the reply was checked to be a T when decoded")
    }
}

impl<T: Serialize> Passed<T> {
    /// A result the adapter composed itself, serialised once.
    fn composed(result: &T) -> Self {
        let value = serde_json::to_value(result).expect("tool results serialize");
        Passed {
            text: value.to_string(),
            value,
            kind: PhantomData,
        }
    }
}

impl<T> IntoCallToolResult for Outcome<T> {
    fn into_call_tool_result(self) -> Result<CallToolResponse, rmcp::ErrorData> {
        let result = match self.0 {
            Ok(Passed { text, value, .. }) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                result.structured_content = Some(value);
                result
            }
            Err(failure) => CallToolResult::structured_error(
                serde_json::to_value(&failure).map_err(|error| {
                    rmcp::ErrorData::internal_error(
                        format!("cannot serialise a tool result: {error}"),
                        None,
                    )
                })?,
            ),
        };
        Ok(result.into())
    }
}

/// The output schema of a tool returning [`Outcome<T>`]: a `T` or a [`Failure`].
fn outcome_schema<T: JsonSchema>() -> Arc<JsonObject> {
    outcome_schema_with::<T, Failure>()
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// 1–120 characters; short single-concept queries work best.
    pub query: String,
    /// Results per page, 1–50 (default 12).
    #[serde(default)]
    pub limit: Option<u32>,
    /// The `next_cursor` of the previous page of the same query.
    #[serde(default)]
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransactionArgs {
    /// The `state_revision` from somite.workflow.get (not the graph revision).
    pub base_state_revision: String,
    /// A fresh key per intended edit, `^[A-Za-z0-9_-]{8,128}$`; repeating an
    /// identical request with it replays the original result.
    pub idempotency_key: String,
    pub summary: String,
    /// Up to 64 operations, applied all or nothing. Shapes (closed):
    /// `{op:"add_operator", node_id, operator_id, params?, x, y}`,
    /// `{op:"remove_operator", node_id}`, `{op:"set_param", node_id, param, value}`,
    /// `{op:"unset_param", node_id, param}`,
    /// `{op:"connect", edge_id, from_node, from_port, to_node, to_port}`,
    /// `{op:"disconnect", edge_id}`, `{op:"move", node_id, x, y}`,
    /// `{op:"add_note", note_id, text, x, y}`, `{op:"edit_note", note_id, text}`,
    /// `{op:"remove_note", note_id}`, `{op:"set_title", title}`.
    pub operations: Vec<Map<String, Value>>,
}

/// The `node_ids=a,b` query of a bounded read, when ids are given.
fn node_ids_query(ids: Option<Vec<String>>) -> Option<(&'static str, String)> {
    ids.filter(|ids| !ids.is_empty())
        .map(|ids| ("node_ids", ids.join(",")))
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowGetArgs {
    /// Up to 64 node ids to read in full (ids from the summary).
    pub node_ids: Option<Vec<String>>,
    /// The node fields to include with node_ids; all but `source` when absent.
    pub fields: Option<Vec<NodeField>>,
    /// The summary page after the one that gave this next_cursor.
    pub cursor: Option<String>,
    /// A state_revision you read earlier (or from the activity feed): answer
    /// what changed since.
    pub since_state_revision: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadinessGetArgs {
    /// Up to 64 node ids: only their requirements and assessments.
    pub node_ids: Option<Vec<String>>,
    /// The page after the one that gave this next_cursor.
    pub cursor: Option<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunStartArgs {
    /// A fresh key per intended launch, `^[A-Za-z0-9_-]{8,128}$`; repeating
    /// the same launch with it returns the original run_id with replayed=true.
    pub idempotency_key: String,
    /// A Nextflow profile of the package (`local` when absent).
    #[serde(default)]
    pub profile: Option<String>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidationArgs {
    /// A fresh key per intended validation, `^[A-Za-z0-9_-]{8,128}$`.
    pub idempotency_key: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunStatusArgs {
    pub run_id: String,
    /// Long-poll: wait up to this many milliseconds (at most 25,000) for a change.
    #[serde(default)]
    pub wait_ms: Option<u64>,
    /// The `revision` of the status you already have; a newer one answers at once.
    #[serde(default)]
    pub since_revision: Option<u64>,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunIdArgs {
    pub run_id: String,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvidenceArgs {
    /// The graph revision to look up (default: the current graph's).
    #[serde(default)]
    pub graph_revision: Option<String>,
}

/// How the proxy reaches the runtime.
#[derive(Debug, Clone)]
struct Runtime {
    base: String,
    capability: Option<String>,
    client: reqwest::Client,
}

/// How long a runtime call may take.
#[derive(Debug, Clone, Copy)]
enum Work {
    /// Answers within [`CALL_TIMEOUT`] (reads, edits, long-polls).
    Quick,
    /// May run a cold `pixi lock` or install for minutes (compile, launches):
    /// no deadline of the proxy's own, since giving up would report a
    /// failure while the runtime goes on and finishes the work. The runtime
    /// bounds the Pixi it runs, a runtime that exits closes the connection,
    /// and the client can cancel. Meanwhile the proxy reports progress every
    /// [`PROGRESS_INTERVAL`] to a client that sent a progress token, naming
    /// what it waits for.
    Long(&'static str),
}

impl Runtime {
    async fn call<T: serde::de::DeserializeOwned>(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Passed<T>, Failure> {
        self.call_for(Work::Quick, method, path, body, context)
            .await
    }

    async fn call_for<T: serde::de::DeserializeOwned>(
        &self,
        work: Work,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Passed<T>, Failure> {
        let mut request = self
            .client
            .request(method, format!("{}/api/mcp{path}", self.base))
            .header(
                somite_api::headers::MCP_ACTIVITY,
                format!("mcp-{}", context.id),
            );
        if let Some(capability) = &self.capability {
            request = request.header(somite_api::headers::CAPABILITY, capability);
        }
        if let Some(body) = body {
            request = request.json(body);
        }
        if let Work::Quick = work {
            request = request.timeout(CALL_TIMEOUT);
        }
        let call = async {
            let response = request.send().await.map_err(unreachable_runtime)?;
            let status = response.status();
            let bytes = read_bounded(response).await?;
            if status.is_success() {
                Passed::decode(bytes).map_err(|e| {
                    Failure::new(
                        LinkCode::InvalidResponse,
                        format!("the runtime's reply does not match its contract: {e}"),
                        "make sure the server URL is a Somite runtime of the same version",
                    )
                })
            } else {
                Err(
                    serde_json::from_slice::<Failure>(&bytes).unwrap_or_else(|_| {
                        Failure::new(
                            LinkCode::InvalidResponse,
                            format!("the runtime answered {status} without an error envelope"),
                            "make sure the server URL is a Somite runtime",
                        )
                    }),
                )
            }
        };
        let progress = async {
            match (work, context.meta.get_progress_token()) {
                (Work::Long(what), Some(token)) => report_progress(what, token, context).await,
                _ => std::future::pending().await,
            }
        };
        tokio::select! {
            result = call => result,
            () = progress => unreachable!("progress reporting never ends"),
            () = context.ct.cancelled() => Err(Failure::new(
                LinkCode::Cancelled,
                "the call was cancelled by the client",
                "nothing more to do; a transaction that was already applied stays applied and replays with the same idempotency key",
            )),
        }
    }
}

/// Notifies the client that `what` is still under way: once at once, then
/// every [`PROGRESS_INTERVAL`], with the seconds waited as the progress.
/// Never returns; the caller stops it when the work ends.
async fn report_progress(what: &str, token: ProgressToken, context: &RequestContext<RoleServer>) {
    let started = tokio::time::Instant::now();
    let mut ticks = tokio::time::interval(PROGRESS_INTERVAL);
    loop {
        ticks.tick().await;
        let waited = started.elapsed().as_secs();
        let notification = ProgressNotificationParam::new(token.clone(), waited as f64)
            .with_message(format!("{what}: still working after {waited} s"));
        // A client that cannot take the notification still gets the result.
        if let Err(error) = context.peer.notify_progress(notification).await {
            tracing::debug!(%error, "cannot send a progress notification");
        }
    }
}

fn unreachable_runtime(e: reqwest::Error) -> Failure {
    Failure::new(
        LinkCode::RuntimeUnavailable,
        format!(
            "the Somite runtime did not answer: {}",
            if e.is_timeout() {
                "timed out"
            } else {
                "connection failed"
            }
        ),
        "check that `somite serve` is running on the URL this server was started with",
    )
}

async fn read_bounded(mut response: reqwest::Response) -> Result<Vec<u8>, Failure> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(unreachable_runtime)? {
        if bytes.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(Failure::new(
                somite_api::DomainCode::PayloadTooLarge,
                format!("the runtime's reply exceeds {MAX_RESPONSE_BYTES} bytes"),
                "split the workflow; a document holds at most 64 MiB",
            ));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// The Somite MCP server.
#[derive(Debug, Clone)]
pub struct SomiteServer {
    runtime: Runtime,
    tool_router: ToolRouter<SomiteServer>,
}

impl SomiteServer {
    /// A server for the runtime at `server_url`, presenting `capability`
    /// (normally read from [`somite_api::EnvVars::SOMITE_MCP_CAPABILITY`]).
    pub fn new(server_url: &str, capability: Option<String>) -> Result<SomiteServer, StartError> {
        let base = loopback_base_url(server_url)?;
        // No client-wide timeout: each call sets its own (see `Work`).
        let client = reqwest::Client::builder()
            .no_proxy()
            .pool_idle_timeout(somite_api::limits::RUNTIME_POOL_IDLE)
            .tcp_nodelay(true)
            .build()?;
        Ok(SomiteServer {
            runtime: Runtime {
                base,
                capability,
                client,
            },
            tool_router: effects::finish(
                Self::tool_router()
                    + Self::workshop_router()
                    + Self::resource_router()
                    + Self::source_router()
                    + Self::source_workflow_router(),
                tool_effects,
                argument_error,
            ),
        })
    }

    /// The tools this server advertises, as `tools/list` returns them.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }
}

/// What each tool's work does (see [`effects`]); its annotations follow.
pub fn tool_effects(tool: &str) -> Option<Effects> {
    const EDITS: Effects = Effects {
        effects: &[Effect::Writes, Effect::Destroys],
        idempotent: true,
    };
    // Compiling writes the package and runs `pixi lock`, which solves
    // against the package channels; launches also run `pixi install` and
    // Nextflow, which download packages and containers.
    const REACHES_CHANNELS: Effects = Effects {
        effects: &[Effect::Writes, Effect::ReachesNetwork],
        idempotent: true,
    };
    Some(match tool {
        somite_api::tools::somite::WORKFLOW_GET
        | somite_api::tools::somite::READINESS_GET
        | somite_api::tools::somite::CATALOG_SEARCH
        | somite_api::tools::somite::RUN_STATUS
        | somite_api::tools::somite::EVIDENCE_LOOKUP
        | somite_api::tools::somite::OPERATOR_PROOF_STATUS => Effects::READ_LOCAL,
        // A draft adds a file by its content digest and never replaces one.
        somite_api::tools::somite::OPERATOR_CANDIDATE_DRAFT => Effects {
            effects: &[Effect::Writes],
            idempotent: true,
        },
        // An edit may remove nodes and edges; cancelling stops a run.
        somite_api::tools::somite::GRAPH_APPLY_TRANSACTION
        | somite_api::tools::somite::RUN_CANCEL => EDITS,
        // Asks NCBI or Ensembl (or serves their cached answers); changes nothing.
        somite_api::tools::somite::SOURCE_SEARCH => Effects {
            effects: &[Effect::ReachesNetwork],
            idempotent: true,
        },
        somite_api::tools::somite::SOURCE_SEARCH_NFCORE => Effects {
            effects: &[Effect::ReachesNetwork],
            idempotent: true,
        },
        // A resolve downloads the pipeline and places a node on an empty
        // canvas: it removes nothing, and its idempotency key replays it.
        somite_api::tools::somite::SOURCE_RESOLVE_NFCORE
        | somite_api::tools::somite::SOURCE_RESOLVE_GITHUB => Effects {
            effects: &[Effect::Writes, Effect::ReachesNetwork],
            idempotent: true,
        },
        // Typed edits and promotion of a source node: local, compare-and-swap
        // transactions (a replacement or promotion supersedes what was
        // there, kept whole in the document), replayed through their key.
        somite_api::tools::somite::SOURCE_WORKFLOW_EDIT
        | somite_api::tools::somite::SOURCE_WORKFLOW_PROMOTE => Effects {
            effects: &[Effect::Writes],
            idempotent: true,
        },
        // Inspect reads; install downloads gigabytes into the user's store;
        // cancel may delete the partial download; a second install of the
        // same provider is refused while the first runs.
        somite_api::tools::somite::RESOURCE => Effects {
            effects: &[Effect::Writes, Effect::Destroys, Effect::ReachesNetwork],
            idempotent: false,
        },
        somite_api::tools::somite::WORKFLOW_COMPILE
        | somite_api::tools::somite::RUN_START
        | somite_api::tools::somite::VALIDATION_START
        | somite_api::tools::somite::OPERATOR_CANDIDATE_PROVE => REACHES_CHANNELS,
        _ => return None,
    })
}

/// Arguments that do not match a tool's input schema, as the runtime's
/// envelope for a malformed request.
fn argument_error(message: String) -> Value {
    serde_json::json!({
        "code": somite_api::DomainCode::InvalidRequest,
        "message": message,
        "recovery": "pass only the arguments the tool's inputSchema declares, with their declared types",
    })
}

#[tool_router]
impl SomiteServer {
    /// Read the workflow within 64 KiB whatever its size: by default a summary page (counts, state_revision and graph_revision, one [id, operator_id, title, readiness] line per node and one from.port>to.port line per edge, next_cursor for the next page); node_ids reads up to 64 nodes in full (fields projects them; a source node's binding only with fields=["source"]); since_state_revision answers what changed since a revision you saw. partial and read_more say what was left out and how to read it.
    #[tool(
        name = "somite.workflow.get",
        annotations(title = "Read the workflow"),
        output_schema = outcome_schema::<WorkflowRead>()
    )]
    async fn workflow_get(
        &self,
        Parameters(args): Parameters<WorkflowGetArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<WorkflowRead> {
        let mut query: Vec<(&str, String)> = node_ids_query(args.node_ids).into_iter().collect();
        if let Some(fields) = args.fields.filter(|f| !f.is_empty()) {
            let names: Vec<String> = fields
                .iter()
                .map(|f| {
                    serde_json::to_value(f)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default()
                })
                .collect();
            query.push(("fields", names.join(",")));
        }
        query.extend(args.cursor.map(|c| ("cursor", c)));
        query.extend(
            args.since_state_revision
                .map(|r| ("since_state_revision", r)),
        );
        let encoded = serde_urlencoded_pairs(&query);
        Outcome(
            self.runtime
                .call(
                    reqwest::Method::GET,
                    &format!("/workflow/read?{encoded}"),
                    None,
                    &context,
                )
                .await,
        )
    }

    /// Read the Workflow assessment within 64 KiB: its state, counts and next requirement, one page of the ordered requirements (resolutions, recipes, escalation eligibility) with the node assessments they name, and next_cursor for the next page; node_ids (up to 64) reads only those nodes' requirements and assessments.
    #[tool(
        name = "somite.readiness.get",
        annotations(title = "Assess readiness"),
        output_schema = outcome_schema::<ReadinessRead>()
    )]
    async fn readiness_get(
        &self,
        Parameters(args): Parameters<ReadinessGetArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<ReadinessRead> {
        let mut query: Vec<(&str, String)> = node_ids_query(args.node_ids).into_iter().collect();
        query.extend(args.cursor.map(|c| ("cursor", c)));
        let encoded = serde_urlencoded_pairs(&query);
        Outcome(
            self.runtime
                .call(
                    reqwest::Method::GET,
                    &format!("/readiness/read?{encoded}"),
                    None,
                    &context,
                )
                .await,
        )
    }

    /// Search exact operator contracts, ports, parameters, Pixi packages and revisions, with deterministic ranking, matched terms and an opaque cursor bound to the query and catalog revision.
    #[tool(
        name = "somite.catalog.search",
        annotations(title = "Search the operator catalog"),
        output_schema = outcome_schema::<SearchPage>()
    )]
    async fn catalog_search(
        &self,
        Parameters(args): Parameters<SearchArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<SearchPage> {
        let mut query = vec![("q", args.query)];
        query.extend(args.limit.map(|l| ("limit", l.to_string())));
        query.extend(args.cursor.map(|c| ("cursor", c)));
        let encoded = serde_urlencoded_pairs(&query);
        Outcome(
            self.runtime
                .call(
                    reqwest::Method::GET,
                    &format!("/catalog/search?{encoded}"),
                    None,
                    &context,
                )
                .await,
        )
    }

    /// Apply up to 64 graph operations as one validated compare-and-swap transaction; answers with the new state_revision and what changed, not the graph.
    #[tool(
        name = "somite.graph.apply_transaction",
        annotations(title = "Edit the workflow"),
        output_schema = outcome_schema::<AppliedTransaction>()
    )]
    async fn apply_transaction(
        &self,
        Parameters(args): Parameters<TransactionArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<AppliedTransaction> {
        let body = serde_json::json!({
            "base_state_revision": args.base_state_revision,
            "idempotency_key": args.idempotency_key,
            "summary": args.summary,
            "operations": args.operations,
        });
        Outcome(
            self.runtime
                .call(
                    reqwest::Method::POST,
                    "/transactions",
                    Some(&body),
                    &context,
                )
                .await,
        )
    }

    /// Freeze the current graph through the production compiler (refused while readiness is blocked) and attach one verified package to this session's shared Pixi/Nextflow workspace root; returns output_path relative to that root.
    #[tool(
        name = "somite.workflow.compile",
        annotations(title = "Compile the workflow"),
        output_schema = outcome_schema::<AttachedCompile>()
    )]
    async fn workflow_compile(
        &self,
        Parameters(_args): Parameters<NoArguments>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<AttachedCompile> {
        Outcome(
            self.runtime
                .call_for(
                    Work::Long("compiling the workflow (Pixi may be solving against the channels)"),
                    reqwest::Method::POST,
                    "/compile",
                    Some(&Value::Object(Map::new())),
                    &context,
                )
                .await,
        )
    }

    /// Start a run of the current graph on its configured inputs (refused with workflow_not_ready while readiness is blocked); executes the compiled package under `pixi run --frozen`.
    #[tool(
        name = "somite.run.start",
        annotations(title = "Run the workflow"),
        output_schema = outcome_schema::<RunStarted>()
    )]
    async fn run_start(
        &self,
        Parameters(args): Parameters<RunStartArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<RunStarted> {
        let mut body = Map::new();
        body.insert(
            "idempotency_key".into(),
            Value::String(args.idempotency_key),
        );
        if let Some(profile) = args.profile {
            body.insert("profile".into(), Value::String(profile));
        }
        Outcome(
            self.runtime
                .call_for(
                    Work::Long("preparing the run"),
                    reqwest::Method::POST,
                    "/runs",
                    Some(&Value::Object(body)),
                    &context,
                )
                .await,
        )
    }

    /// Validate the current graph on small representative fixtures through the same frozen path (a pinned source workflow: its Nextflow -preview, which runs no task; the receipt's source_preview says what that proves, and evidence.lookup answers previewed, never validated); it ends with an evidence receipt for the exact graph revision. A graph is validated only when somite.evidence.lookup says so.
    #[tool(
        name = "somite.validation.start",
        annotations(title = "Validate the workflow"),
        output_schema = outcome_schema::<RunStarted>()
    )]
    async fn validation_start(
        &self,
        Parameters(args): Parameters<ValidationArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<RunStarted> {
        let body = serde_json::json!({"idempotency_key": args.idempotency_key});
        Outcome(
            self.runtime
                .call_for(
                    Work::Long("preparing the validation"),
                    reqwest::Method::POST,
                    "/validations",
                    Some(&body),
                    &context,
                )
                .await,
        )
    }

    /// Read a run's phase, node states and progress; long-poll with wait_ms (up to 25,000) to wait for the next change.
    #[tool(
        name = "somite.run.status",
        annotations(title = "Read a run's status"),
        output_schema = outcome_schema::<RunStatus>()
    )]
    async fn run_status(
        &self,
        Parameters(args): Parameters<RunStatusArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<RunStatus> {
        let path = long_poll_path("/runs", &args.run_id, args.wait_ms, args.since_revision);
        Outcome(
            self.runtime
                .call(reqwest::Method::GET, &path, None, &context)
                .await,
        )
    }

    /// Cancel a run or validation: its whole process group is stopped and it ends cancelled.
    #[tool(
        name = "somite.run.cancel",
        annotations(title = "Cancel a run"),
        output_schema = outcome_schema::<RunStatus>()
    )]
    async fn run_cancel(
        &self,
        Parameters(args): Parameters<RunIdArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<RunStatus> {
        let path = format!("/runs/{}/cancel", percent_encode(&args.run_id));
        Outcome(
            self.runtime
                .call(
                    reqwest::Method::POST,
                    &path,
                    Some(&Value::Object(Map::new())),
                    &context,
                )
                .await,
        )
    }

    /// Look up the immutable evidence receipts of a graph revision (default: the current graph), each re-verified on read.
    #[tool(
        name = "somite.evidence.lookup",
        annotations(title = "Look up evidence"),
        output_schema = outcome_schema::<EvidenceLookup>()
    )]
    async fn evidence_lookup(
        &self,
        Parameters(args): Parameters<EvidenceArgs>,
        context: RequestContext<RoleServer>,
    ) -> Outcome<EvidenceLookup> {
        let query: Vec<(&str, String)> = args
            .graph_revision
            .map(|r| ("graph_revision", r))
            .into_iter()
            .collect();
        let path = format!("/evidence?{}", serde_urlencoded_pairs(&query));
        Outcome(
            self.runtime
                .call(reqwest::Method::GET, &path, None, &context)
                .await,
        )
    }
}

/// The path of a long-polled read of `id` in `collection` (`/runs`,
/// `/operator-proofs`): the runtime holds the request up to `wait_ms` for a
/// revision newer than `since_revision`.
fn long_poll_path(
    collection: &str,
    id: &str,
    wait_ms: Option<u64>,
    since_revision: Option<u64>,
) -> String {
    let mut query = Vec::new();
    query.extend(wait_ms.map(|w| ("wait_ms", w.to_string())));
    query.extend(since_revision.map(|r| ("since_revision", r.to_string())));
    format!(
        "{collection}/{}?{}",
        percent_encode(id),
        serde_urlencoded_pairs(&query)
    )
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// `application/x-www-form-urlencoded` query pairs.
fn serde_urlencoded_pairs(pairs: &[(&str, String)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={}", percent_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SomiteServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("somite", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(SUPPORTED_PROTOCOL_VERSIONS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_runtime_urls_are_accepted() {
        for ok in [
            "http://127.0.0.1:7310",
            "http://localhost:1/",
            "http://[::1]:7310",
        ] {
            assert!(loopback_base_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "https://127.0.0.1:7310",
            "http://example.com:7310",
            "http://127.0.0.1.evil.io",
            "http://user@127.0.0.1:7310",
            "http://10.0.0.1",
            "127.0.0.1:7310",
            "http://127.0.0.1:7310/api",
        ] {
            assert!(loopback_base_url(bad).is_err(), "{bad}");
        }
    }

    /// Accepting or rejecting a candidate is a person's decision: no tool
    /// of this server can do it, and every workshop tool is declared.
    #[test]
    fn candidate_acceptance_is_absent_from_mcp() {
        let server = SomiteServer::new("http://127.0.0.1:1", None).unwrap();
        let names: Vec<String> = server.tools().iter().map(|t| t.name.to_string()).collect();
        for workshop in [
            somite_api::tools::somite::OPERATOR_CANDIDATE_DRAFT,
            somite_api::tools::somite::OPERATOR_CANDIDATE_PROVE,
            somite_api::tools::somite::OPERATOR_PROOF_STATUS,
        ] {
            assert!(names.iter().any(|n| n == workshop), "{names:?}");
        }
        for name in &names {
            assert!(
                !["accept", "reject", "publish", "admit"]
                    .iter()
                    .any(|verb| name.contains(verb)),
                "{name} decides a candidate"
            );
        }
        let draft = tool_effects(somite_api::tools::somite::OPERATOR_CANDIDATE_DRAFT).unwrap();
        assert!(draft.has(Effect::Writes) && !draft.has(Effect::Destroys));
        let prove = tool_effects(somite_api::tools::somite::OPERATOR_CANDIDATE_PROVE).unwrap();
        assert!(prove.has(Effect::Writes) && prove.has(Effect::ReachesNetwork));
        let status = tool_effects(somite_api::tools::somite::OPERATOR_PROOF_STATUS).unwrap();
        assert!(status.effects.is_empty());
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(
            serde_urlencoded_pairs(&[("q", "fastq & reads".into()), ("cursor", "a+b/=".into())]),
            "q=fastq%20%26%20reads&cursor=a%2Bb%2F%3D"
        );
    }
}
