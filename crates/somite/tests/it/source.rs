//! `somite source` against a loopback stand-in of nf-co.re and the GitHub
//! API (the one `somite-source`'s tests serve, with its committed fixtures):
//! search, resolve by tag, a non-empty canvas, an unknown release and a
//! spent rate limit, each through the real binary and its `--json` envelope;
//! and the three `somite.source_workflow.*` MCP tools through
//! `somite mcp somite` onto a runtime whose sources come from the stand-in
//! (so the `/api/mcp/source/...` routes, replay, stale base and the isError
//! envelopes are exercised end to end).

use crate::standin::{DEMO_1_0_1, RESET_EPOCH, StandIn};
use crate::support::mcp::{connect, failure, ok};
use rmcp::service::RunningService;
use rmcp::{ClientLifecycleMode, RoleClient};
use serde_json::{Value, json};
use somite_api::tools::somite::{
    SOURCE_RESOLVE_GITHUB, SOURCE_RESOLVE_NFCORE, SOURCE_SEARCH_NFCORE, SOURCE_WORKFLOW_EDIT,
    SOURCE_WORKFLOW_PROMOTE, WORKFLOW_GET,
};
use std::path::PathBuf;
use std::process::Output;

/// A stand-in, a documentation cache and an empty project folder for
/// `somite source` runs.
struct Fixture {
    standin: StandIn,
    cache: tempfile::TempDir,
    project: tempfile::TempDir,
}

impl Fixture {
    async fn start() -> Self {
        Self {
            standin: StandIn::start().await,
            cache: tempfile::tempdir().unwrap(),
            project: tempfile::tempdir().unwrap(),
        }
    }

    /// Runs `somite source ARGS` with its providers at the stand-in and its
    /// cache in the fixture's, off the runtime that serves the stand-in.
    async fn source(&self, args: &[&str]) -> Output {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_somite"));
        command
            .arg("source")
            .args(args)
            .env(
                somite_api::EnvVars::SOMITE_NFCORE_PIPELINES_URL,
                format!("{}/pipelines.json", self.standin.base),
            )
            .env(
                somite_api::EnvVars::SOMITE_GITHUB_API_URL,
                &self.standin.base,
            )
            .env("XDG_CACHE_HOME", self.cache.path())
            .env_remove(somite_api::EnvVars::GITHUB_TOKEN);
        tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap()
    }

    /// `somite source resolve [PROVIDER] REFERENCE` into the project folder,
    /// answering in JSON.
    async fn resolve(&self, reference: &[&str]) -> Output {
        let folder = self.project.path().to_str().unwrap();
        let mut args = vec!["resolve"];
        args.extend_from_slice(reference);
        args.extend(["--project", folder, "--json"]);
        self.source(&args).await
    }
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn assert_refused(output: &Output, code: &str) -> Value {
    assert!(!output.status.success(), "{output:?}");
    let envelope = json_of(output);
    assert_eq!(envelope["code"], code, "{envelope}");
    assert!(envelope["recovery"].as_str().is_some_and(|r| !r.is_empty()));
    envelope
}

#[tokio::test(flavor = "multi_thread")]
async fn search_ranks_the_catalog_with_exact_releases() {
    let fixture = Fixture::start().await;
    let out = fixture
        .source(&["search", "nf-core", "demo", "--json"])
        .await;
    assert!(out.status.success(), "{out:?}");
    let page = json_of(&out);
    assert_eq!(page["matches"][0]["repository"], "nf-core/demo");
    assert_eq!(page["matches"][0]["latest_release"]["tag"], "1.0.1");
    assert_eq!(page["matches"][0]["latest_release"]["commit"], DEMO_1_0_1);
    assert_eq!(page["catalog"]["origin"], "fetched");
}

#[tokio::test(flavor = "multi_thread")]
async fn resolve_by_tag_places_one_pinned_node_and_refuses_a_second() {
    let fixture = Fixture::start().await;
    let out = fixture.resolve(&["nf-core/demo@1.0.1"]).await;
    assert!(out.status.success(), "{out:?}");
    let reply = json_of(&out);
    assert_eq!(reply["operations"], 1, "{reply}");
    let project_state =
        somite_project::Project::open(fixture.project.path(), somite_project::Seed::Empty).unwrap();
    let document = serde_json::to_value(project_state.document()).unwrap();
    assert_eq!(
        reply["state_revision"],
        project_state.state_revision().as_str()
    );
    drop(project_state);
    let nodes = document["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 1, "{document}");
    assert_eq!(nodes[0]["operator_id"], "workflow.source");
    assert_eq!(nodes[0]["source"]["commit"], DEMO_1_0_1);
    assert_eq!(nodes[0]["source"]["release"], "1.0.1");

    let again = fixture.resolve(&["nf-core/demo@1.0.1"]).await;
    assert_refused(&again, "canvas_not_empty");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_release_is_refused_and_writes_nothing() {
    let fixture = Fixture::start().await;
    let out = fixture.resolve(&["nf-core/demo@9.9.9"]).await;
    assert_refused(&out, "release_not_found");
    assert_eq!(
        std::fs::read_dir(fixture.project.path()).unwrap().count(),
        0
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_spent_github_rate_limit_is_rate_limited_with_its_reset_time() {
    let fixture = Fixture::start().await;
    fixture.standin.with(|b| b.rate_limited = true);
    let out = fixture.resolve(&["github", "nf-core/demo@1.0.1"]).await;
    let envelope = assert_refused(&out, "rate_limited");
    assert_eq!(envelope["details"]["reset_at"], "2026-12-03T22:00:00Z");
    assert_eq!(RESET_EPOCH, 1_796_335_200);
}

/// A runtime on an empty project whose sources come from a fresh stand-in
/// (cached in a folder of its own), with `pixi` as its Pixi when given.
struct SourceRuntime {
    server: somite_server::RunningServer,
    dir: tempfile::TempDir,
    _cache: tempfile::TempDir,
    standin: StandIn,
}

impl SourceRuntime {
    async fn start(pixi: Option<PathBuf>) -> Self {
        let standin = StandIn::start().await;
        let cache = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let project =
            somite_project::Project::open(dir.path(), somite_project::Seed::Empty).unwrap();
        let config = somite_server::config::ServerConfig {
            sources: Some(standin.config(cache.path())),
            pixi,
            ..somite_server::config::ServerConfig::loopback(
                dir.path(),
                env!("CARGO_BIN_EXE_somite"),
            )
            .unwrap()
        };
        Self {
            server: somite_server::start(&config, project).await.unwrap(),
            dir,
            _cache: cache,
            standin,
        }
    }

    /// `somite mcp somite` onto the runtime, as an agent runs it: with a
    /// capability of its own.
    async fn agent(&self) -> RunningService<RoleClient, ()> {
        let (_, capability) = self.server.state.capabilities.issue();
        connect(
            &self.server.url(),
            Some(capability.expose()),
            ClientLifecycleMode::Initialize,
        )
        .await
    }
}

async fn refused(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    arguments: Value,
    code: &str,
) -> Value {
    let envelope = failure(client, tool, arguments).await;
    assert_eq!(envelope["code"], code, "{envelope}");
    assert!(envelope["recovery"].as_str().is_some_and(|r| !r.is_empty()));
    envelope
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mcp_tools_search_and_place_a_pinned_release_once() {
    let runtime = SourceRuntime::start(None).await;
    let (standin, server) = (&runtime.standin, &runtime.server);
    let client = runtime.agent().await;

    let page = ok(&client, SOURCE_SEARCH_NFCORE, json!({"query": "demo"})).await;
    assert_eq!(page["matches"][0]["repository"], "nf-core/demo");
    let release = page["matches"][0]["latest_release"]["tag"]
        .as_str()
        .unwrap()
        .to_owned();

    let base = ok(&client, WORKFLOW_GET, json!({})).await["state_revision"]
        .as_str()
        .unwrap()
        .to_owned();
    let resolve = json!({
        "pipeline": "nf-core/demo", "release": release,
        "base_state_revision": base, "idempotency_key": "resolve-demo-0001",
    });
    let placed = ok(&client, SOURCE_RESOLVE_NFCORE, resolve.clone()).await;
    assert_eq!(placed["replayed"], false);
    assert!(
        placed.get("document").is_none(),
        "what changed, not the graph"
    );
    let graph = ok(&client, WORKFLOW_GET, json!({})).await;
    assert_eq!(graph["state_revision"], placed["state_revision"]);
    assert_eq!(graph["nodes"][0][1], "workflow.source", "{graph}");
    let id = graph["nodes"][0][0].clone();
    let graph = ok(
        &client,
        WORKFLOW_GET,
        json!({"node_ids": [id], "fields": ["source"]}),
    )
    .await;
    let node = &graph["detail"][0];
    assert_eq!(node["operator_id"], "workflow.source");
    assert_eq!(node["source"]["commit"], DEMO_1_0_1);

    // The same request with the same key replays; a new key on the old
    // base is stale; on the new base the canvas is no longer empty.
    let replay = ok(&client, SOURCE_RESOLVE_NFCORE, resolve).await;
    assert_eq!(replay["replayed"], true);
    assert_eq!(replay["state_revision"], placed["state_revision"]);
    refused(
        &client,
        SOURCE_RESOLVE_NFCORE,
        json!({"pipeline": "nf-core/demo", "release": "1.0.1",
               "base_state_revision": base, "idempotency_key": "resolve-demo-0002"}),
        "stale_revision",
    )
    .await;
    // Each later request is on the placed node's revision with a new key.
    let on_placed = |mut arguments: Value, key: &str| {
        arguments["base_state_revision"] = placed["state_revision"].clone();
        arguments["idempotency_key"] = key.into();
        arguments
    };
    let github = json!({"repository": "nf-core/demo", "ref": "1.0.1"});
    let arguments = on_placed(github, "resolve-demo-0003");
    refused(
        &client,
        SOURCE_RESOLVE_GITHUB,
        arguments,
        "canvas_not_empty",
    )
    .await;
    let unknown = json!({"pipeline": "nf-core/demo", "release": "9.9.9"});
    let arguments = on_placed(unknown, "resolve-demo-0004");
    refused(
        &client,
        SOURCE_RESOLVE_NFCORE,
        arguments,
        "release_not_found",
    )
    .await;
    standin.with(|b| b.rate_limited = true);
    let github = json!({"repository": "nf-core/demo", "ref": "1.0.0"});
    let arguments = on_placed(github, "resolve-demo-0005");
    let limited = refused(&client, SOURCE_RESOLVE_GITHUB, arguments, "rate_limited").await;
    assert_eq!(limited["details"]["reset_at"], "2026-12-03T22:00:00Z");
    refused(
        &client,
        SOURCE_SEARCH_NFCORE,
        json!({"query": "demo", "extra": 1}),
        "invalid_request",
    )
    .await;

    // Edit: replace FastQC's call by the catalog's FastQC, once.
    let fastqc = "NFCORE_DEMO:DEMO:FASTQC";
    let edit = json!({
        "node_id": "source", "base_state_revision": placed["state_revision"],
        "idempotency_key": "edit-demo-0001",
        "edits": [{"op": "replace_invocation", "invocation": fastqc, "operator_id": "qc.fastqc"}],
    });
    let edited = ok(&client, SOURCE_WORKFLOW_EDIT, edit.clone()).await;
    assert_eq!(edited["replayed"], false);
    let graph = ok(&client, WORKFLOW_GET, json!({"node_ids": ["source"]})).await;
    let replacement = &graph["detail"][0]["replacements"][0];
    assert_eq!(replacement["operator_id"], "qc.fastqc");
    assert_eq!(replacement["inputs"][0]["invocation_port"], "reads");
    assert_eq!(
        ok(&client, SOURCE_WORKFLOW_EDIT, edit).await["replayed"],
        true
    );
    // The outline draws the replaced call with its replacement.
    let outline: Value = reqwest::get(format!("{}/api/source/nodes/source/outline", server.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let invocations = outline["invocations"].as_array().unwrap();
    assert_eq!(invocations[0]["id"], fastqc);
    assert_eq!(invocations[0]["inputs"][0]["type"], "Fastq");
    assert_eq!(invocations[0]["replacement"]["operator_id"], "qc.fastqc");
    assert!(invocations[1]["replacement"].is_null());
    let misfit = refused(
        &client,
        SOURCE_WORKFLOW_EDIT,
        json!({"node_id": "source", "base_state_revision": edited["state_revision"],
               "idempotency_key": "edit-demo-0002",
               "edits": [{"op": "replace_invocation", "invocation": fastqc, "operator_id": "align.bwa"}]}),
        "invocation_port_incompatible",
    )
    .await;
    assert_eq!(misfit["details"]["port"], "index");
    refused(
        &client,
        SOURCE_WORKFLOW_EDIT,
        json!({"node_id": "source", "base_state_revision": placed["state_revision"],
               "idempotency_key": "edit-demo-0003",
               "edits": [{"op": "set_param", "param": "outdir", "value": "results"}]}),
        "stale_revision",
    )
    .await;
    refused(
        &client,
        SOURCE_WORKFLOW_PROMOTE,
        json!({"node_id": "source", "base_state_revision": edited["state_revision"],
               "idempotency_key": "promote-demo-0001",
               "invocations": ["NFCORE_DEMO:DEMO:MULTIQC"]}),
        "promotion_refused",
    )
    .await;
    let promoted = ok(
        &client,
        SOURCE_WORKFLOW_PROMOTE,
        json!({"node_id": "source", "base_state_revision": edited["state_revision"],
               "idempotency_key": "promote-demo-0002", "invocations": [fastqc]}),
    )
    .await;
    let graph = ok(&client, WORKFLOW_GET, json!({})).await;
    assert_eq!(graph["state_revision"], promoted["state_revision"]);
    let document = &graph;
    assert_eq!(document["nodes"][0][0], "fastqc");
    assert_eq!(document["variant_origin"]["commit"], DEMO_1_0_1);
    // MultiQC comes along: the catalog's qc.multiqc stands for its module.
    assert_eq!(
        document["variant_origin"]["promoted"][2],
        json!({"invocation": "NFCORE_DEMO:DEMO:MULTIQC", "node_id": "multiqc", "how": "catalog_equivalent"})
    );
    assert_eq!(document["variant_origin"]["unrepresented"], json!([]));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_cli_edits_and_promotes_a_resolved_source() {
    let fixture = Fixture::start().await;
    let out = fixture.resolve(&["nf-core/demo@1.0.1"]).await;
    assert!(out.status.success(), "{out:?}");
    let base = json_of(&out)["state_revision"].as_str().unwrap().to_owned();
    let project = fixture.project.path();
    let folder = project.to_str().unwrap();
    let body = project.join("edit.json");
    let write = |edits: Value, key: &str, base: &str| {
        std::fs::write(
            &body,
            json!({"base_state_revision": base, "idempotency_key": key, "edits": edits})
                .to_string(),
        )
        .unwrap();
    };
    let file = body.to_str().unwrap();
    let edit = [
        "edit",
        "--node",
        "source",
        file,
        "--project",
        folder,
        "--json",
    ];
    write(
        json!([{"op": "set_param", "param": "publish_dir_mode", "value": "teleport"}]),
        "cli-edit-0001",
        &base,
    );
    let out = fixture.source(&edit).await;
    assert_refused(&out, "param_not_in_enum");
    write(
        json!([{"op": "replace_invocation", "invocation": "NFCORE_DEMO:DEMO:FASTQC", "operator_id": "qc.fastqc"}]),
        "cli-edit-0002",
        &base,
    );
    let out = fixture.source(&edit).await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(json_of(&out)["operations"], 1);
    let promote = [
        "promote",
        "--node",
        "source",
        "--invocation",
        "NFCORE_DEMO:DEMO:FASTQC",
        "--project",
        folder,
        "--json",
    ];
    let out = fixture.source(&promote).await;
    assert!(out.status.success(), "{out:?}");
    let state = somite_project::Project::open(project, somite_project::Seed::Empty).unwrap();
    let document = state.document();
    assert!(document.source_node().is_none());
    assert!(document.node("fastqc").is_some());
    assert!(document.variant_origin.is_some());
}

/// Validate on a resolved nf-core/demo, through the runtime both ways the
/// product starts one: the web's `POST /api/validations` and the agent's
/// `somite.validation.start`. Both reach the supervisor's `-preview` of the
/// frozen package (the Pixi stand-in plays it) with the pinned tree from
/// the store the source routes resolved into, and end with a receipt that
/// says what the preview proves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validate_on_a_source_workflow_records_preview_evidence_from_web_and_mcp() {
    let runtime = SourceRuntime::start(Some(crate::support::sibling("somite-pixi-standin"))).await;
    let server = &runtime.server;
    std::fs::write(
        runtime.dir.path().join("samplesheet.csv"),
        "sample,fastq_1,fastq_2\n",
    )
    .unwrap();
    let http = reqwest::Client::new();
    let post = |path: &str, body: Value| {
        let request = http.post(format!("{}/api{path}", server.url())).json(&body);
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        }
    };
    let base: Value = reqwest::get(format!("{}/api/workflow", server.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let (code, placed) = post(
        "/source/nfcore/resolve",
        json!({"pipeline": "nf-core/demo", "release": "1.0.1",
               "base_state_revision": base["state_revision"], "idempotency_key": "resolve-0001"}),
    )
    .await;
    assert_eq!(code, 200, "{placed}");
    let (code, edited) = post(
        "/source/nodes/source/edit",
        json!({"base_state_revision": placed["state_revision"], "idempotency_key": "params-0001",
               "edits": [{"op": "set_param", "param": "input", "value": "samplesheet.csv"},
                         {"op": "set_param", "param": "outdir", "value": "results"}]}),
    )
    .await;
    assert_eq!(code, 200, "{edited}");

    // The web's Validate button.
    let (code, started) = post(
        "/validations",
        json!({"idempotency_key": "validate-web-0001"}),
    )
    .await;
    assert_eq!(code, 202, "{started}");
    let run_id = started["run_id"].as_str().unwrap();
    let status = loop {
        let status: Value =
            reqwest::get(format!("{}/api/runs/{run_id}?wait_ms=5000", server.url()))
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
        if ["completed", "failed", "cancelled"].contains(&status["phase"].as_str().unwrap()) {
            break status;
        }
    };
    assert_eq!(status["phase"], "completed", "{status}");
    assert_eq!(status["states"]["source"], "skipped", "{status}");

    // The agent's tool, on the same graph revision.
    let client = runtime.agent().await;
    let started = ok(
        &client,
        somite_api::tools::somite::VALIDATION_START,
        json!({"idempotency_key": "validate-mcp-0001"}),
    )
    .await;
    let mcp_run = started["run_id"].as_str().unwrap().to_owned();
    let status = loop {
        let status = ok(
            &client,
            somite_api::tools::somite::RUN_STATUS,
            json!({"run_id": mcp_run, "wait_ms": 5000}),
        )
        .await;
        if ["completed", "failed", "cancelled"].contains(&status["phase"].as_str().unwrap()) {
            break status;
        }
    };
    assert_eq!(status["phase"], "completed", "{status}");
    let evidence = ok(
        &client,
        somite_api::tools::somite::EVIDENCE_LOOKUP,
        json!({"graph_revision": status["graph_revision"]}),
    )
    .await;
    // Previewed, not validated: Nextflow's -preview runs no task.
    assert_eq!(evidence["previewed"], true, "{evidence}");
    assert_eq!(evidence["validated"], false, "{evidence}");
    let receipts = evidence["receipts"].as_array().unwrap();
    assert_eq!(receipts.len(), 2, "{evidence}");
    for receipt in receipts {
        assert_eq!(receipt["result"], "passed");
        assert_eq!(
            receipt["verifier"]["command"]
                .as_array()
                .unwrap()
                .last()
                .unwrap(),
            "preview"
        );
        let preview = &receipt["source_preview"];
        assert_eq!(preview["repository"], "nf-core/demo");
        assert_eq!(preview["commit"], DEMO_1_0_1);
        assert_eq!(
            preview["tree_digest"],
            placed["document"]["nodes"][0]["source"]["tree_digest"]
        );
        assert!(
            preview["does_not_prove"]
                .as_str()
                .unwrap()
                .starts_with("no task ran")
        );
    }
    client.cancel().await.unwrap();
}

/// Runs `somite ARGS` against the stand-in with `cache` as the user cache.
async fn somite_with_cache(fixture: &Fixture, cache: &std::path::Path, args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_somite"));
    command
        .args(args)
        .env(
            somite_api::EnvVars::SOMITE_NFCORE_PIPELINES_URL,
            format!("{}/pipelines.json", fixture.standin.base),
        )
        .env(
            somite_api::EnvVars::SOMITE_GITHUB_API_URL,
            &fixture.standin.base,
        )
        .env(somite_api::EnvVars::XDG_CACHE_HOME, cache)
        .env_remove(somite_api::EnvVars::GITHUB_TOKEN);
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_project_fetches_its_pinned_source_again_where_the_cache_lacks_it() {
    let fixture = Fixture::start().await;
    assert!(
        fixture
            .resolve(&["nf-core/demo@1.0.1"])
            .await
            .status
            .success()
    );
    let folder = fixture.project.path();
    std::fs::write(folder.join("samplesheet.csv"), "sample,fastq_1,fastq_2\n").unwrap();
    {
        let mut project =
            somite_project::Project::open(folder, somite_project::Seed::Empty).unwrap();
        let txn: somite_workflow::transaction::GraphTransaction = serde_json::from_value(json!({
            "base_state_revision": project.state_revision(),
            "idempotency_key": "ready-0001",
            "summary": "ready",
            "operations": [
                {"op": "set_param", "node_id": "source", "param": "input", "value": "samplesheet.csv"},
                {"op": "set_param", "node_id": "source", "param": "outdir", "value": "results"},
            ],
        }))
        .unwrap();
        project.apply_transaction(&txn).unwrap();
    }
    let project = folder.to_str().unwrap();
    let downloads = || fixture.standin.count("GET /repos/nf-core/demo/tarball");
    let before = downloads();

    // Another machine (an empty cache): the exact commit is fetched again,
    // its tree digest checked, and the package compiles.
    let elsewhere = tempfile::tempdir().unwrap();
    let out = somite_with_cache(
        &fixture,
        elsewhere.path(),
        &["compile", "--project", project, "--json"],
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(downloads(), before + 1);
    // Now it is there: compiling again fetches nothing.
    let out = somite_with_cache(
        &fixture,
        elsewhere.path(),
        &["compile", "--project", project, "--json"],
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(downloads(), before + 1);

    // Offline (the provider no longer serves it) on a third machine: the
    // compile says so with the commit, and readiness still answers.
    fixture.standin.with(|b| b.archives.clear());
    let offline = tempfile::tempdir().unwrap();
    let out = somite_with_cache(
        &fixture,
        offline.path(),
        &["compile", "--project", project, "--json"],
    )
    .await;
    let envelope = assert_refused(&out, "source_unavailable");
    assert_eq!(envelope["details"]["commit"], DEMO_1_0_1);
    assert!(
        !envelope["message"]
            .as_str()
            .unwrap()
            .contains(offline.path().to_str().unwrap())
    );
    let out = somite_with_cache(
        &fixture,
        offline.path(),
        &["assess", "--project", project, "--json"],
    )
    .await;
    assert!(out.status.success(), "{out:?}");
    assert_eq!(json_of(&out)["state"], "ready");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pipeline_whose_default_carries_credentials_is_refused_and_nothing_is_placed() {
    use crate::standin::{Entry, tarball_of};
    let fixture = Fixture::start().await;
    let commit = "1111111111111111111111111111111111111111";
    let main = "nf-core-demo-1111111/main.nf";
    let schema_path = "nf-core-demo-1111111/nextflow_schema.json";
    let schema = r##"{"$defs": {"input_output_options": {"properties": {
        "genome": {"type": "string", "format": "file-path",
                   "default": "https://alice:hunter2@example.org/genome.fa"}}}},
        "allOf": [{"$ref": "#/$defs/input_output_options"}]}"##;
    let archive = tarball_of(&[
        Entry::File(main, b"workflow { }\n"),
        Entry::File(schema_path, schema.as_bytes()),
    ]);
    fixture
        .standin
        .serve_archive("nf-core/demo", commit, archive);
    fixture.standin.with(|b| {
        b.refs
            .insert(("nf-core/demo".into(), commit.into()), commit.into())
    });
    let out = fixture
        .resolve(&["github", &format!("nf-core/demo@{commit}")])
        .await;
    let envelope = assert_refused(&out, "url_credentials");
    let shown = envelope.to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        !shown.contains("hunter2") && !shown.contains("alice"),
        "{shown}"
    );
    assert_eq!(envelope["details"]["param"], "genome");
    assert_eq!(
        std::fs::read_dir(fixture.project.path()).unwrap().count(),
        0
    );
}

/// A loopback file host for pinned inputs: `/introns.tsv.gz` (the bytes),
/// `/short` (announces more than it sends), `/hop/N` (N redirects to the file).
async fn file_host(bytes: &'static [u8]) -> String {
    use axum::response::IntoResponse;
    use axum::routing::get;
    async fn hop(axum::extract::Path(n): axum::extract::Path<u32>) -> axum::response::Response {
        let to = if n == 0 {
            "/introns.tsv.gz".to_owned()
        } else {
            format!("/hop/{}", n - 1)
        };
        (
            axum::http::StatusCode::FOUND,
            [(axum::http::header::LOCATION, to)],
        )
            .into_response()
    }
    let app = axum::Router::new()
        .route("/introns.tsv.gz", get(move || async move { bytes }))
        .route("/hop/{n}", get(hop));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

/// A host whose every answer announces 1,000 bytes, sends 7 and closes: a
/// download cut short (hyper will not serve one, so it is written by hand).
async fn short_host() -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut request = [0u8; 4096];
            let _ = socket.read(&mut request).await;
            let _ = socket
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial")
                .await;
        }
    });
    base
}

#[tokio::test(flavor = "multi_thread")]
async fn a_remote_input_is_pinned_to_a_digested_copy_and_a_bad_download_leaves_nothing() {
    use crate::standin::{Entry, tarball_of};
    const INTRONS: &[u8] = b"chr1\t100\t200\tintron\n";
    let host = file_host(INTRONS).await;
    let short = short_host().await;
    let fixture = Fixture::start().await;
    let commit = "2222222222222222222222222222222222222222";
    let schema = format!(
        r##"{{"$defs": {{"input_output_options": {{"properties": {{
        "introns": {{"type": "string", "format": "file-path", "default": "{host}/introns.tsv.gz"}},
        "other": {{"type": "string", "format": "file-path", "default": "{short}/introns.tsv.gz"}},
        "far": {{"type": "string", "format": "file-path", "default": "{host}/hop/9"}}}}}}}},
        "allOf": [{{"$ref": "#/$defs/input_output_options"}}]}}"##
    );
    let archive = tarball_of(&[
        Entry::File(
            "nf-core-demo-2222222/main.nf",
            b"process HELLO {\n  exec:\n  true\n}\nworkflow { HELLO() }\n",
        ),
        Entry::File(
            "nf-core-demo-2222222/nextflow_schema.json",
            schema.as_bytes(),
        ),
    ]);
    fixture
        .standin
        .serve_archive("nf-core/demo", commit, archive);
    fixture.standin.with(|b| {
        b.refs
            .insert(("nf-core/demo".into(), commit.into()), commit.into())
    });
    let out = fixture
        .resolve(&["github", &format!("nf-core/demo@{commit}")])
        .await;
    assert!(out.status.success(), "{out:?}");
    let project = fixture.project.path().to_str().unwrap();
    let out = fixture
        .source(&[
            "pin",
            "--node",
            "source",
            "--param",
            "introns",
            "--project",
            project,
            "--json",
        ])
        .await;
    assert!(out.status.success(), "{out:?}");
    let opened =
        somite_project::Project::open(fixture.project.path(), somite_project::Seed::Empty).unwrap();
    let node = opened.document().node("source").unwrap().clone();
    drop(opened);
    let pin = &node.pinned_inputs[0];
    assert_eq!(pin.url, format!("{host}/introns.tsv.gz"));
    assert_eq!(pin.bytes, INTRONS.len() as u64);
    assert_eq!(
        pin.digest,
        somite_workflow::canonical::digest_bytes(INTRONS)
    );
    assert_eq!(node.params["introns"], json!(pin.path));
    assert_eq!(
        std::fs::read(fixture.project.path().join(&pin.path)).unwrap(),
        INTRONS
    );

    // A body shorter than announced, and a chain of more redirects than
    // Somite follows: refused, the parameter untouched, no file left.
    for (param, code) in [
        ("other", "provider_response_invalid"),
        ("far", "provider_response_invalid"),
    ] {
        let out = fixture
            .source(&[
                "pin",
                "--node",
                "source",
                "--param",
                param,
                "--project",
                project,
                "--json",
            ])
            .await;
        assert_refused(&out, code);
    }
    let kept: Vec<_> = walk(&fixture.project.path().join("inputs/remote"));
    assert_eq!(kept, vec![pin.path.clone()], "only the pinned copy is kept");
}

/// Every file under `dir`, relative to the project folder above `inputs/`.
fn walk(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    let root = dir.parent().unwrap().parent().unwrap().to_path_buf();
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(
                    path.strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resolves_beyond_the_runtimes_slots_are_told_busy_with_a_retry_time() {
    let runtime = SourceRuntime::start(None).await;
    // Each resolve waits on a slow provider, holding its slot.
    runtime
        .standin
        .with(|b| b.slow = Some(std::time::Duration::from_millis(1500)));
    let base = runtime.server.state.project().state_revision().to_string();
    let url = format!("{}/api/source/github/resolve", runtime.server.url());
    let resolve = |key: &'static str| {
        let (url, base) = (url.clone(), base.clone());
        async move {
            reqwest::Client::new()
                .post(url)
                .json(&json!({"repository": "nf-core/demo", "ref": "1.0.1",
                              "base_state_revision": base, "idempotency_key": key}))
                .send()
                .await
                .unwrap()
        }
    };
    let running: Vec<_> = ["busy-resolve-0001", "busy-resolve-0002"]
        .into_iter()
        .map(|key| tokio::spawn(resolve(key)))
        .collect();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let refused = resolve("busy-resolve-0003").await;
    assert_eq!(refused.status(), 503);
    assert_eq!(
        refused.headers()["retry-after"],
        somite_server::api_error::BUSY_RETRY_AFTER_SECS
            .to_string()
            .as_str()
    );
    let envelope: Value = refused.json().await.unwrap();
    assert_eq!(envelope["code"], "busy", "{envelope}");
    for answer in running {
        assert_ne!(
            answer.await.unwrap().status(),
            503,
            "the two in their slots ran"
        );
    }
    // Slots free again: the next one runs.
    assert_ne!(resolve("busy-resolve-0004").await.status(), 503);
}

/// Every file under `root` with its bytes: what a read-only call leaves
/// exactly as it was.
fn files_of(root: &std::path::Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut folders = vec![root.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                files.insert(path.strip_prefix(root).unwrap().to_owned(), bytes);
            }
        }
    }
    files
}

/// The hints each tool advertises, checked against what a call of it does
/// rather than against the declarations they are derived from: a read-only
/// tool leaves every file of the project as it was and a writing one changes
/// some; an open-world tool reaches a provider (the loopback nf-co.re and
/// GitHub stand-in logs each request) and a closed-world one reaches none.
/// The tools whose open world is Pixi's (compile, run, validation) reach the
/// package channels only through a real `pixi`, which the real-toolchain
/// tests exercise where it is installed.
#[tokio::test(flavor = "multi_thread")]
async fn each_tools_hints_follow_from_what_a_call_of_it_does() {
    let runtime = SourceRuntime::start(None).await;
    let client = runtime.agent().await;
    let tools = client.list_all_tools().await.unwrap();
    let requests = || runtime.standin.with(|b| b.log.len());
    let state = |graph: &Value| graph["state_revision"].clone();

    let mut checked = Vec::new();
    let mut call = async |tool: &str, arguments: Value| -> Value {
        let hints = tools
            .iter()
            .find(|t| t.name == tool)
            .and_then(|t| t.annotations.clone())
            .unwrap_or_else(|| panic!("{tool} advertises its hints"));
        let (files, asked) = (files_of(runtime.dir.path()), requests());
        let answer = ok(&client, tool, arguments).await;
        let wrote = files_of(runtime.dir.path()) != files;
        let reached = requests() > asked;
        assert_eq!(
            hints.read_only_hint,
            Some(!wrote),
            "{tool}: read-only is {:?}, and the call {} the project's files",
            hints.read_only_hint,
            if wrote { "changed" } else { "left alone" }
        );
        assert_eq!(
            hints.open_world_hint,
            Some(reached),
            "{tool}: open-world is {:?}, and the call {} a provider",
            hints.open_world_hint,
            if reached { "reached" } else { "reached no" }
        );
        checked.push(tool.to_owned());
        answer
    };

    // Reads, open and closed.
    call(SOURCE_SEARCH_NFCORE, json!({"query": "demo"})).await;
    let graph = call(WORKFLOW_GET, json!({})).await;
    call(somite_api::tools::somite::READINESS_GET, json!({})).await;
    call(
        somite_api::tools::somite::CATALOG_SEARCH,
        json!({"query": "fastqc"}),
    )
    .await;
    call(somite_api::tools::somite::EVIDENCE_LOOKUP, json!({})).await;

    // Writes: a resolve downloads the pipeline; edits and promotion are local.
    let placed = call(
        SOURCE_RESOLVE_NFCORE,
        json!({"pipeline": "nf-core/demo", "release": "1.0.1",
               "base_state_revision": state(&graph), "idempotency_key": "hints-resolve-1"}),
    )
    .await;
    let edited = call(
        SOURCE_WORKFLOW_EDIT,
        json!({"node_id": "source", "base_state_revision": state(&placed),
               "idempotency_key": "hints-edit-1",
               "edits": [{"op": "replace_invocation", "invocation": "NFCORE_DEMO:DEMO:FASTQC",
                          "operator_id": "qc.fastqc"}]}),
    )
    .await;
    let promoted = call(
        SOURCE_WORKFLOW_PROMOTE,
        json!({"node_id": "source", "base_state_revision": state(&edited),
               "idempotency_key": "hints-promote-1",
               "invocations": ["NFCORE_DEMO:DEMO:FASTQC"]}),
    )
    .await;
    call(
        somite_api::tools::somite::GRAPH_APPLY_TRANSACTION,
        json!({"base_state_revision": state(&promoted), "idempotency_key": "hints-apply-1",
               "summary": "a note", "operations": [
                   {"op": "add_note", "note_id": "hint", "text": "checked", "x": 0, "y": 0}]}),
    )
    .await;
    assert_eq!(checked.len(), 9, "{checked:?}");
    client.cancel().await.unwrap();
}
