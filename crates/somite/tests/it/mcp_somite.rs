//! `somite mcp somite` over stdio, driven by the official rmcp client,
//! against a real runtime on loopback: discovery, closed schemas with output
//! schemas covering the failure envelope, annotations that follow each
//! tool's declared effects, every tool's success and isError paths (an
//! unknown or missing argument included), progress notifications while a
//! compile runs Pixi, a non-loopback URL refused, a missing capability refused by the
//! runtime, the capability never showing in argv, results or the feed, and
//! an in-flight long-poll cancelled by the client (`notifications/cancelled`).

use rmcp::model::ProgressNotificationParam;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest,
};
use rmcp::service::NotificationContext;
use rmcp::service::{PeerRequestOptions, RequestHandle, ServiceError};
use rmcp::{ClientHandler, ClientLifecycleMode, RoleClient};

use crate::support::mcp::{connect, connect_with, failure, ok};
use crate::support::standin_pixi;
use serde_json::{Value, json};
use somite_mcp::effects::Effect;
use somite_mcp::somite_proxy::tool_effects;
use somite_project::{Project, Seed};
use somite_server::config::ServerConfig;
use somite_test_support::ready_paired_reads;
use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The runtime hands exactly this list to the permission policy, so the
/// server must advertise exactly these tools.
const TOOLS: &[&str] = somite_api::tools::somite::ALL;

struct Fixture {
    server: somite_server::RunningServer,
    _dir: tempfile::TempDir,
}

async fn runtime() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    let config = ServerConfig {
        sse_keepalive: Duration::from_secs(5),
        ..ServerConfig::loopback(dir.path(), env!("CARGO_BIN_EXE_somite")).unwrap()
    };
    Fixture {
        server: somite_server::start(&config, project).await.unwrap(),
        _dir: dir,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_somite_tools_edit_and_read_the_canvas_through_the_runtime() {
    let fixture = runtime().await;
    let (_, capability) = fixture.server.state.capabilities.issue();
    for lifecycle in [
        ClientLifecycleMode::Initialize,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        },
    ] {
        let client = connect(&fixture.server.url(), Some(capability.expose()), lifecycle).await;
        let tools = client.list_all_tools().await.unwrap();
        let names: BTreeSet<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, TOOLS.iter().copied().collect());
        for tool in &tools {
            assert_eq!(
                tool.input_schema.get("additionalProperties"),
                Some(&json!(false)),
                "{}",
                tool.name
            );
            let output = tool.output_schema.as_ref().expect("output schema");
            assert_eq!(output["type"], "object");
            assert!(output["$defs"].get("Error").is_some(), "{}", tool.name);
            // The hints follow from what each tool's work does, declared
            // once beside the tools: compiling runs `pixi lock` and a launch
            // runs Pixi and Nextflow, which reach package channels.
            let effects = tool_effects(&tool.name).expect("every tool declares its effects");
            let annotations = tool.annotations.as_ref().expect("annotations");
            assert_eq!(
                annotations.read_only_hint,
                Some(!effects.has(Effect::Writes) && !effects.has(Effect::Destroys)),
                "{}",
                tool.name
            );
            assert_eq!(
                annotations.destructive_hint,
                Some(effects.has(Effect::Destroys)),
                "{}",
                tool.name
            );
            assert_eq!(
                annotations.open_world_hint,
                Some(effects.has(Effect::ReachesNetwork)),
                "{}",
                tool.name
            );
            assert_eq!(annotations.idempotent_hint, Some(effects.idempotent));
        }
        for runs_pixi in [
            somite_api::tools::somite::WORKFLOW_COMPILE,
            somite_api::tools::somite::RUN_START,
            somite_api::tools::somite::VALIDATION_START,
        ] {
            let tool = tools.iter().find(|t| t.name == runs_pixi).unwrap();
            assert_eq!(
                tool.annotations.as_ref().and_then(|a| a.open_world_hint),
                Some(true),
                "{runs_pixi} runs Pixi, which reaches the package channels"
            );
        }
        client.cancel().await.unwrap();
    }

    let client = connect(
        &fixture.server.url(),
        Some(capability.expose()),
        ClientLifecycleMode::Initialize,
    )
    .await;
    let info = client.peer_info().expect("server info");
    assert!(
        info.instructions
            .as_deref()
            .is_some_and(|i| i.contains(somite_api::tools::somite::WORKFLOW_GET))
    );

    let workflow = ok(&client, somite_api::tools::somite::WORKFLOW_GET, json!({})).await;
    let base = workflow["state_revision"].as_str().unwrap().to_owned();
    let page = ok(
        &client,
        somite_api::tools::somite::CATALOG_SEARCH,
        json!({"query": "paired reads", "limit": 3}),
    )
    .await;
    assert!(
        page["matches"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == "files.import_paired"),
        "{page}"
    );
    let edit = json!({
        "base_state_revision": base, "idempotency_key": "agent-edit-0001", "summary": "Add reads and QC",
        "operations": [
            {"op": "add_operator", "node_id": "reads", "operator_id": "files.import_paired", "params": {"r1": "r1.fq", "r2": "r2.fq"}, "x": 0, "y": 0},
            {"op": "add_operator", "node_id": "qc", "operator_id": "qc.fastp", "params": {"threads": 2}, "x": 300, "y": 0},
            {"op": "connect", "edge_id": "r1", "from_node": "reads", "from_port": "r1", "to_node": "qc", "to_port": "r1"},
            {"op": "connect", "edge_id": "r2", "from_node": "reads", "from_port": "r2", "to_node": "qc", "to_port": "r2"}
        ]
    });
    let applied = ok(
        &client,
        somite_api::tools::somite::GRAPH_APPLY_TRANSACTION,
        edit.clone(),
    )
    .await;
    assert_eq!(applied["replayed"], false);
    assert!(
        applied.get("document").is_none(),
        "an edit answers with what changed, not the graph: {applied}"
    );
    let read = ok(&client, somite_api::tools::somite::WORKFLOW_GET, json!({})).await;
    assert_eq!(read["state_revision"], applied["state_revision"]);
    assert_eq!(read["edges"].as_array().unwrap().len(), 2, "{read}");
    let replay = ok(
        &client,
        somite_api::tools::somite::GRAPH_APPLY_TRANSACTION,
        edit.clone(),
    )
    .await;
    assert_eq!(replay["replayed"], true);

    let readiness = ok(&client, somite_api::tools::somite::READINESS_GET, json!({})).await;
    assert_eq!(readiness["graph_revision"], applied["graph_revision"]);
    assert_eq!(
        readiness["state"], "needs_action",
        "the FASTQ files do not exist"
    );

    // Expected failures are isError results with the runtime's codes.
    let stale = failure(
        &client,
        somite_api::tools::somite::GRAPH_APPLY_TRANSACTION,
        json!({
        "base_state_revision": base, "idempotency_key": "agent-edit-0002", "summary": "late",
        "operations": [{"op": "set_title", "title": "x"}]}),
    )
    .await;
    assert_eq!(stale["code"], "stale_revision");
    assert_eq!(
        stale["details"]["current_state_revision"],
        applied["state_revision"]
    );
    let current = applied["state_revision"].as_str().unwrap();
    let unknown = failure(&client, somite_api::tools::somite::GRAPH_APPLY_TRANSACTION, json!({
        "base_state_revision": current, "idempotency_key": "agent-edit-0003", "summary": "bad",
        "operations": [{"op": "add_operator", "node_id": "x", "operator_id": "qc.invented", "x": 0, "y": 0}]})).await;
    assert_eq!(unknown["code"], "unknown_operator");
    assert_eq!(
        failure(
            &client,
            somite_api::tools::somite::CATALOG_SEARCH,
            json!({"query": "reads", "cursor": "forged"})
        )
        .await["code"],
        "invalid_cursor"
    );
    assert_eq!(
        failure(
            &client,
            somite_api::tools::somite::CATALOG_SEARCH,
            json!({"query": ""})
        )
        .await["code"],
        "invalid_query"
    );

    // Compiling is gated by readiness: the FASTQ files do not exist.
    let blocked = failure(
        &client,
        somite_api::tools::somite::WORKFLOW_COMPILE,
        json!({}),
    )
    .await;
    assert_eq!(blocked["code"], "workflow_not_ready", "{blocked}");
    for tool in [
        somite_api::tools::somite::RUN_START,
        somite_api::tools::somite::VALIDATION_START,
    ] {
        let blocked = failure(&client, tool, json!({"idempotency_key": "agent-run-0001"})).await;
        assert_eq!(blocked["code"], "workflow_not_ready", "{tool}: {blocked}");
    }
    let missing = failure(
        &client,
        somite_api::tools::somite::RUN_STATUS,
        json!({"run_id": "nope", "wait_ms": 10}),
    )
    .await;
    assert_eq!(missing["code"], "not_found", "{missing}");
    let missing = failure(
        &client,
        somite_api::tools::somite::RUN_CANCEL,
        json!({"run_id": "../x"}),
    )
    .await;
    assert_eq!(missing["code"], "not_found", "{missing}");
    let evidence = ok(
        &client,
        somite_api::tools::somite::EVIDENCE_LOOKUP,
        json!({}),
    )
    .await;
    assert_eq!(evidence["validated"], false, "{evidence}");
    assert_eq!(evidence["graph_revision"], applied["graph_revision"]);

    // A closed input schema: unknown arguments are refused, never ignored.
    // It comes back like every other expected failure: `isError` with the
    // structured envelope, not a transport error or bare text.
    let refused = failure(
        &client,
        somite_api::tools::somite::WORKFLOW_GET,
        json!({"surprise": 1}),
    )
    .await;
    assert_eq!(refused["code"], "invalid_request", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown field `surprise`")),
        "{refused}"
    );
    let missing = failure(&client, somite_api::tools::somite::RUN_START, json!({})).await;
    assert_eq!(missing["code"], "invalid_request", "{missing}");
    assert!(
        missing["message"]
            .as_str()
            .is_some_and(|m| m.contains("missing field `idempotency_key`")),
        "{missing}"
    );

    // The agent's edit is on the feed, attributed, and no secret is anywhere.
    let feed = fixture.server.state.feed.since(0);
    assert_eq!(feed.events.len(), 1);
    assert_eq!(feed.events[0].data["source"]["kind"], "agent");
    assert!(
        feed.events[0].data["source"]["activity"]
            .as_str()
            .is_some_and(|a| a.starts_with("mcp-"))
    );
    let everything = format!("{:?}{applied}{readiness}{page}{workflow}", feed.events);
    assert!(!everything.contains(capability.expose()));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn without_a_capability_the_runtime_refuses_every_call() {
    let fixture = runtime().await;
    let client = connect(&fixture.server.url(), None, ClientLifecycleMode::Initialize).await;
    for tool in [
        somite_api::tools::somite::WORKFLOW_GET,
        somite_api::tools::somite::READINESS_GET,
    ] {
        assert_eq!(
            failure(&client, tool, json!({})).await["code"],
            "capability_required"
        );
    }
    assert_eq!(
        failure(
            &client,
            somite_api::tools::somite::CATALOG_SEARCH,
            json!({"query": "reads"})
        )
        .await["code"],
        "capability_required"
    );
    let forged = connect(
        &fixture.server.url(),
        Some(&"a".repeat(64)),
        ClientLifecycleMode::Initialize,
    )
    .await;
    assert_eq!(
        failure(&forged, somite_api::tools::somite::WORKFLOW_GET, json!({})).await["code"],
        "capability_required"
    );
}

/// The TCP connections to `port` that are open or closed moments ago
/// (TIME_WAIT on whichever side closed first), as the kernel lists them,
/// told apart by the client's port: a connection per call leaves one per
/// call.
#[cfg(target_os = "linux")]
fn connections_to(port: u16) -> usize {
    const LISTEN: &str = "0A";
    let port_of = |address: &str| {
        address
            .rsplit_once(':')
            .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
    };
    let mut clients = BTreeSet::new();
    for line in std::fs::read_to_string("/proc/net/tcp")
        .unwrap()
        .lines()
        .skip(1)
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let (local, remote) = (port_of(fields[1]), port_of(fields[2]));
        if fields[3] == LISTEN {
            continue;
        }
        if local == Some(port) {
            clients.extend(remote);
        } else if remote == Some(port) {
            clients.extend(local);
        }
    }
    clients.len()
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_keeps_its_connection_to_the_runtime_across_calls() {
    let fixture = runtime().await;
    let (_, capability) = fixture.server.state.capabilities.issue();
    let client = connect(
        &fixture.server.url(),
        Some(capability.expose()),
        ClientLifecycleMode::Initialize,
    )
    .await;
    let calls = 10;
    for _ in 0..calls {
        ok(&client, somite_api::tools::somite::WORKFLOW_GET, json!({})).await;
    }
    // Not a claim about timing: a pooled connection may expire between two
    // calls on a slow machine, but one connection per call means none was
    // kept.
    let connections = connections_to(fixture.server.address.port());
    assert!(
        (1..calls).contains(&connections),
        "{connections} connections for {calls} calls"
    );
    client.cancel().await.unwrap();
}

#[test]
fn a_non_loopback_runtime_url_is_refused_at_start() {
    for url in [
        "http://example.com:7310",
        "http://192.0.2.1:7310",
        "https://127.0.0.1:7310",
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_somite"))
            .args(["mcp", "somite", "--server-url", url])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{url}");
        assert!(
            output.stdout.is_empty(),
            "stdout is reserved for the protocol"
        );
        assert!(String::from_utf8_lossy(&output.stderr).contains("loopback"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_long_poll_stops_promptly_and_the_server_stays_healthy() {
    let dir = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    ready_paired_reads(dir.path());
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    let config = ServerConfig {
        // Its first task keeps running until it is signalled.
        pixi: Some(standin_pixi(
            tools.path(),
            &format!("{}=1", somite_api::EnvVars::SOMITE_STANDIN_HANG),
        )),
        ..ServerConfig::loopback(dir.path(), env!("CARGO_BIN_EXE_somite")).unwrap()
    };
    let server = somite_server::start(&config, project).await.unwrap();
    let state = server.state.clone();
    let (_, capability) = state.capabilities.issue();
    let client = connect(
        &server.url(),
        Some(capability.expose()),
        ClientLifecycleMode::Initialize,
    )
    .await;

    let started = ok(
        &client,
        somite_api::tools::somite::VALIDATION_START,
        json!({"idempotency_key": "cancel-test-0001"}),
    )
    .await;
    let run_id = started["run_id"].as_str().unwrap().to_owned();
    // Wait until the run sits in its hanging task: a long-poll on the
    // current revision then has nothing to answer with for 25 s.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut status = ok(
        &client,
        somite_api::tools::somite::RUN_STATUS,
        json!({"run_id": run_id}),
    )
    .await;
    loop {
        assert!(Instant::now() < deadline, "the run never settled: {status}");
        assert!(
            ["preparing", "running"].contains(&status["phase"].as_str().unwrap()),
            "{status}"
        );
        let next = ok(
            &client,
            somite_api::tools::somite::RUN_STATUS,
            json!({"run_id": run_id, "wait_ms": 1500, "since_revision": status["revision"]}),
        )
        .await;
        if next["revision"] == status["revision"] && next["phase"] == "running" {
            break;
        }
        status = next;
    }

    let Value::Object(arguments) = json!({
        "run_id": run_id, "wait_ms": 25_000, "since_revision": status["revision"]
    }) else {
        unreachable!()
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new(somite_api::tools::somite::RUN_STATUS).with_arguments(arguments),
    ));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    // Let the request reach the runtime's long-poll before cancelling it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    // `RequestHandle::cancel` consumes the receiver; keep it to observe
    // what the call itself returns once `notifications/cancelled` is sent.
    let RequestHandle { rx, peer, id, .. } = handle;
    let cancelling = Instant::now();
    peer.send_notification(
        CancelledNotification::new(CancelledNotificationParam::new(
            Some(id),
            Some("the test no longer wants the status".into()),
        ))
        .into(),
    )
    .await
    .unwrap();
    let outcome = tokio::time::timeout(Duration::from_secs(10), rx)
        .await
        .expect("the cancelled call returned within 10 s")
        .expect("the call's responder was kept");
    assert!(
        matches!(outcome, Err(ServiceError::Cancelled { .. })),
        "{outcome:?}"
    );
    assert!(cancelling.elapsed() < Duration::from_secs(10));

    // The server stays healthy and answers the next call.
    let workflow = ok(&client, somite_api::tools::somite::WORKFLOW_GET, json!({})).await;
    assert_eq!(workflow["counts"]["nodes"], 2, "{workflow}");

    // The server dropped its call into the runtime: the runtime's graceful
    // shutdown waits for in-flight requests, so it would sit out the 25 s
    // long-poll if the proxy had not watched the request's cancellation.
    let stopping = Instant::now();
    tokio::time::timeout(Duration::from_secs(10), server.shutdown())
        .await
        .expect("no request into the runtime is still in flight")
        .unwrap();
    assert!(stopping.elapsed() < Duration::from_secs(10));

    // Stop the hanging run's process group before the test ends.
    state.runner.cancel(&run_id).unwrap();
    let poll = serde_json::from_value(json!({"wait_ms": 5000})).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !["cancelled", "failed"].contains(
        &serde_json::to_value(state.runner.status(&run_id, poll).await.unwrap()).unwrap()["phase"]
            .as_str()
            .unwrap(),
    ) {
        assert!(Instant::now() < deadline, "the run did not stop");
    }
    client.cancel().await.unwrap();
}

/// A client that keeps the progress notifications it receives.
#[derive(Clone)]
struct ProgressRecorder(tokio::sync::mpsc::UnboundedSender<ProgressNotificationParam>);

impl ClientHandler for ProgressRecorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _receiver_gone = self.0.send(params);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_work_reports_progress_to_a_client_that_sent_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let tools = tempfile::tempdir().unwrap();
    ready_paired_reads(dir.path());
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    let config = ServerConfig {
        pixi: Some(standin_pixi(tools.path(), "")),
        ..ServerConfig::loopback(dir.path(), env!("CARGO_BIN_EXE_somite")).unwrap()
    };
    let server = somite_server::start(&config, project).await.unwrap();
    let (_, capability) = server.state.capabilities.issue();
    let (sender, mut progress) = tokio::sync::mpsc::unbounded_channel();
    let client = connect_with(
        ProgressRecorder(sender),
        &server.url(),
        Some(capability.expose()),
        ClientLifecycleMode::Initialize,
    )
    .await;

    // Compiling runs `pixi lock`, which may take minutes on a cold cache:
    // a client that sent a progress token (rmcp's client sends one with
    // every request) hears that it is under way, and then gets the result
    // rather than a timeout.
    let compiled = ok(
        &client,
        somite_api::tools::somite::WORKFLOW_COMPILE,
        json!({}),
    )
    .await;
    assert_eq!(compiled["pixi"], "locked", "{compiled}");
    let first = tokio::time::timeout(Duration::from_secs(10), progress.recv())
        .await
        .expect("a progress notification for the long call")
        .expect("the recorder is alive");
    assert!(
        first
            .message
            .as_deref()
            .is_some_and(|m| m.contains("compiling")),
        "{first:?}"
    );

    // Quick calls report no progress: they answer at once.
    ok(&client, somite_api::tools::somite::WORKFLOW_GET, json!({})).await;
    ok(&client, somite_api::tools::somite::READINESS_GET, json!({})).await;
    client.cancel().await.unwrap();
    while let Some(more) = progress.recv().await {
        assert_eq!(more.progress_token, first.progress_token, "{more:?}");
    }
    server.shutdown().await.unwrap();
}

/// The MCP servers log through the same setup as `somite serve`: levelled
/// lines on stderr, stdout left to the protocol.
#[test]
fn a_missing_capability_is_logged_as_a_warning_on_stderr() {
    const CAPABILITY_ENV: &str = somite_api::EnvVars::SOMITE_MCP_CAPABILITY;
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_somite"))
        .args(["mcp", "somite", "--server-url", "http://127.0.0.1:7310"])
        .env_remove(CAPABILITY_ENV)
        .env_remove(somite_api::EnvVars::SOMITE_LOG)
        .env_remove(somite_api::EnvVars::RUST_LOG)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        output.stdout.is_empty(),
        "stdout is reserved for the protocol"
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.lines().any(|line| line.contains(" WARN ")
            && line.contains(&format!("{CAPABILITY_ENV} is not set"))),
        "{stderr}"
    );
}
