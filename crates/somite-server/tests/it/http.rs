//! The runtime over real HTTP on loopback: every route's success and error
//! envelope, Host/Origin checks, body bounds, capabilities, concurrency and
//! the resumable activity stream (across a restart, too) and the documents
//! served by state revision beside a feed that does not carry them.

use crate::support::assert_envelope;
use futures_util::StreamExt;
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use somite_api::headers::CAPABILITY as CAPABILITY_HEADER;
use somite_project::{Project, Seed};
use somite_server::RunningServer;
use somite_server::body::MAX_REQUEST_BYTES;
use somite_server::config::ServerConfig;
use somite_test_support::ready_paired_reads;
use std::time::Duration;

struct Harness {
    server: RunningServer,
    client: Client,
    dir: tempfile::TempDir,
}

impl Harness {
    async fn start() -> Harness {
        Harness::start_with(|_| {}).await
    }

    /// A runtime over a project `prepare` wrote first.
    async fn start_with(prepare: impl FnOnce(&std::path::Path)) -> Harness {
        let dir = tempfile::tempdir().unwrap();
        prepare(dir.path());
        Harness::serve(dir).await
    }

    async fn serve(dir: tempfile::TempDir) -> Harness {
        let project = Project::open(dir.path(), Seed::Empty).unwrap();
        let config = ServerConfig {
            sse_keepalive: Duration::from_secs(1),
            ..ServerConfig::loopback(dir.path(), "somite").unwrap()
        };
        let server = somite_server::start(&config, project).await.unwrap();
        Harness {
            server,
            client: Client::new(),
            dir,
        }
    }

    /// Stops this runtime and starts another on the same project.
    async fn restart(self) -> Harness {
        self.server.shutdown().await.unwrap();
        Harness::serve(self.dir).await
    }

    /// The feed's epoch, from the workflow view.
    async fn epoch(&self) -> String {
        self.get("/api/workflow").await.1["feed_epoch"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.server.url())
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let response = self.client.get(self.url(path)).send().await.unwrap();
        let status = response.status();
        (status, response.json().await.unwrap())
    }

    async fn post(&self, path: &str, body: &Value) -> (StatusCode, Value) {
        let response = self
            .client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        (status, response.json().await.unwrap())
    }

    async fn state_revision(&self) -> String {
        self.get("/api/workflow").await.1["state_revision"]
            .as_str()
            .unwrap()
            .to_owned()
    }
}

fn add(base: &str, key: &str, node: &str) -> Value {
    json!({
        "base_state_revision": base,
        "idempotency_key": key,
        "summary": format!("add {node}"),
        "operations": [{"op": "add_operator", "node_id": node, "operator_id": "files.import", "params": {"path": "r.fastq"}, "x": 0, "y": 0}],
    })
}

#[tokio::test]
async fn every_human_route_answers_with_its_contract() {
    let h = Harness::start().await;
    let (status, health) = h.get("/api/health").await;
    assert_eq!(
        (status, health["ok"].clone()),
        (StatusCode::OK, json!(true))
    );

    let (status, workflow) = h.get("/api/workflow").await;
    assert_eq!(status, StatusCode::OK);
    for field in [
        "state_revision",
        "graph_revision",
        "semantic_revision",
        "catalog_revision",
        "document",
        "feed_epoch",
    ] {
        assert!(!workflow[field].is_null(), "{field}");
    }
    assert_eq!(workflow["graph_revision"], workflow["semantic_revision"]);

    let base = workflow["state_revision"].as_str().unwrap();
    let (status, reply) = h
        .post("/api/transactions", &add(base, "edit-00000001", "reads"))
        .await;
    assert_eq!(status, StatusCode::OK, "{reply}");
    assert_eq!(reply["document"]["nodes"][0]["id"], "reads");
    assert_eq!(reply["previous_state_revision"], base);
    assert_eq!(reply["cursor"], 1);
    assert_eq!(reply["epoch"], workflow["feed_epoch"]);
    assert_eq!(
        h.state_revision().await,
        reply["state_revision"].as_str().unwrap()
    );

    let (status, replay) = h
        .post("/api/transactions", &add(base, "edit-00000001", "reads"))
        .await;
    assert_eq!(
        (status, replay["replayed"].clone()),
        (StatusCode::OK, json!(true))
    );
    assert_eq!(replay["state_revision"], reply["state_revision"]);

    let (status, readiness) = h.get("/api/readiness").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(readiness["graph_revision"], reply["graph_revision"]);
    assert_eq!(readiness["state"], "needs_action");
    // r.fastq is missing: the requirement names the contract field that
    // makes `path` a file input, where it is declared, and the file checked.
    let evidence = &readiness["items"][0]["evidence"];
    assert_eq!(
        evidence["contract"]["field"], "ports.out[0].import_param",
        "{evidence}"
    );
    assert_eq!(
        evidence["contract"]["source"]["file"],
        "operators/files.import.toml"
    );
    assert!(evidence["contract"]["source"]["line"].as_u64().is_some());
    assert_eq!(
        evidence["graph"],
        json!({"node_id": "reads", "param": "path"})
    );
    assert_eq!(evidence["file"], json!({"path": "r.fastq", "found": false}));

    let (status, page) = h.get("/api/catalog/search?q=fastq&limit=2").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(page["matches"].as_array().unwrap().len(), 2);
    let cursor = page["next_cursor"].as_str().unwrap();
    let (status, next) = h
        .get(&format!(
            "/api/catalog/search?q=fastq&limit=2&cursor={cursor}"
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_ne!(next["matches"][0]["id"], page["matches"][0]["id"]);

    let (status, op) = h.get("/api/catalog/operators/qc.fastp").await;
    assert_eq!(
        (status, op["contract"]["id"].clone()),
        (StatusCode::OK, json!("qc.fastp"))
    );

    let (status, activity) = h.get("/api/activity?after=0").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(activity["epoch"], workflow["feed_epoch"]);
    assert_eq!(activity["reset"], false);
    let event = &activity["events"][0];
    assert_eq!(event["kind"], "transaction");
    assert_eq!(event["data"]["source"]["kind"], "human");
    assert_eq!(event["data"]["operations"][0]["node_id"], "reads");
    assert!(event["data"].get("document").is_none());

    // The result graph of the transaction, by its state revision — also
    // after a later edit made it a past state.
    let revision = event["data"]["outcome"]["state_revision"].as_str().unwrap();
    let (_, later) = h
        .post("/api/transactions", &add(revision, "edit-00000002", "more"))
        .await;
    assert_ne!(later["state_revision"].as_str(), Some(revision));
    let (status, past) = h
        .get(&format!("/api/workflow?state_revision={revision}"))
        .await;
    assert_eq!(status, StatusCode::OK, "{past}");
    assert_eq!(past["state_revision"], revision);
    assert_eq!(past["graph_revision"], reply["graph_revision"]);
    assert_eq!(past["document"], reply["document"]);
    let (status, current) = h
        .get(&format!(
            "/api/workflow?state_revision={}",
            later["state_revision"].as_str().unwrap()
        ))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(current["document"], later["document"]);
    // The state the runtime opened on is kept too; one it never held is not.
    let (status, opened) = h.get(&format!("/api/workflow?state_revision={base}")).await;
    assert_eq!(status, StatusCode::OK, "{opened}");
    let unknown = "blake3:0000000000000000000000000000000000000000000000000000000000000000";
    let (status, gone) = h
        .get(&format!("/api/workflow?state_revision={unknown}"))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_envelope(&gone, "not_found");
}

#[tokio::test]
async fn errors_use_the_envelope_with_stable_codes() {
    let h = Harness::start().await;
    let base = h.state_revision().await;
    h.post("/api/transactions", &add(&base, "edit-00000001", "reads"))
        .await;

    let cases: Vec<(Value, StatusCode, &str)> = vec![
        (
            add(&base, "edit-00000002", "other"),
            StatusCode::CONFLICT,
            "stale_revision",
        ),
        (
            json!({"base_state_revision": base, "idempotency_key": "edit-00000001", "summary": "different", "operations": [{"op": "set_title", "title": "x"}]}),
            StatusCode::CONFLICT,
            "idempotency_conflict",
        ),
        (
            json!({"nonsense": true}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_transaction",
        ),
    ];
    for (body, status, code) in cases {
        let (got, reply) = h.post("/api/transactions", &body).await;
        assert_eq!(got, status, "{reply}");
        assert_envelope(&reply, code);
    }
    let current = h.state_revision().await;
    let (status, reply) = h
        .post("/api/transactions", &json!({"base_state_revision": current, "idempotency_key": "edit-00000003", "summary": "s", "operations": [{"op": "add_operator", "node_id": "x", "operator_id": "no.such", "x": 0, "y": 0}]}))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_envelope(&reply, "unknown_operator");
    assert_eq!(reply["details"]["operation_index"], 0);

    for (path, status, code) in [
        (
            "/api/catalog/search?q=",
            StatusCode::BAD_REQUEST,
            "invalid_query",
        ),
        (
            "/api/catalog/search?q=fastq&cursor=bogus",
            StatusCode::BAD_REQUEST,
            "invalid_cursor",
        ),
        (
            "/api/catalog/search?q=fastq&surprise=1",
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
        (
            "/api/catalog/operators/no.such",
            StatusCode::NOT_FOUND,
            "not_found",
        ),
        ("/api/no-such-route", StatusCode::NOT_FOUND, "not_found"),
    ] {
        let (got, reply) = h.get(path).await;
        assert_eq!(got, status, "{path}: {reply}");
        assert_envelope(&reply, code);
    }
    let response = h
        .client
        .post(h.url("/api/transactions"))
        .body("{}")
        .header("content-type", "text/plain")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_envelope(&response.json().await.unwrap(), "invalid_request");
    let response = h
        .client
        .delete(h.url("/api/workflow"))
        .send()
        .await
        .unwrap();
    assert_envelope(&response.json().await.unwrap(), "invalid_request");
}

#[tokio::test]
async fn non_loopback_host_and_origin_are_refused_everywhere() {
    let h = Harness::start().await;
    for path in ["/api/workflow", "/api/health", "/", "/api/mcp/workflow"] {
        let response = h
            .client
            .get(h.url(path))
            .header("host", "attacker.example:7310")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
        assert_envelope(&response.json().await.unwrap(), "forbidden_host");
        let response = h
            .client
            .get(h.url(path))
            .header("origin", "http://attacker.example")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path}");
        assert_envelope(&response.json().await.unwrap(), "forbidden_origin");
    }
    let base = h.state_revision().await;
    let response = h
        .client
        .post(h.url("/api/transactions"))
        .header("origin", "null")
        .json(&add(&base, "edit-00000001", "x"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        h.state_revision().await,
        base,
        "a refused request changes nothing"
    );
    // Somite's own page is accepted: the origin the Host names, also
    // through the web workspace's dev proxy (which keeps the browser's Host).
    let own = h.url("").trim_end_matches('/').to_owned();
    for (host, origin) in [
        (None, own.clone()),
        (Some("localhost:5173"), "http://localhost:5173".to_owned()),
    ] {
        let mut request = h.client.get(h.url("/api/health")).header("origin", &origin);
        if let Some(host) = host {
            request = request.header("host", host);
        }
        let ok = request.send().await.unwrap();
        assert_eq!(ok.status(), StatusCode::OK, "{origin}");
    }
    // Another local server's page, https, or a second Origin is not.
    let port = own.rsplit(':').next().unwrap().to_owned();
    for origins in [
        vec!["http://localhost:5173".to_owned()],
        vec![format!("https://127.0.0.1:{port}")],
        vec![own.clone(), "http://attacker.example".to_owned()],
    ] {
        let mut request = h.client.post(h.url("/api/transactions"));
        for origin in &origins {
            request = request.header("origin", origin);
        }
        let refused = request
            .json(&add(&base, "edit-00000002", "y"))
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), StatusCode::FORBIDDEN, "{origins:?}");
        assert_envelope(&refused.json().await.unwrap(), "forbidden_origin");
    }
    assert_eq!(h.state_revision().await, base, "nothing was applied");
}

#[tokio::test]
async fn oversized_bodies_are_refused_with_payload_too_large() {
    let h = Harness::start().await;
    let big = format!("{{\"summary\": \"{}\"}}", "x".repeat(MAX_REQUEST_BYTES));
    for path in ["/api/transactions"] {
        let response = h
            .client
            .post(h.url(path))
            .header("content-type", "application/json")
            .body(big.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_envelope(&response.json().await.unwrap(), "payload_too_large");
    }
}

#[tokio::test]
async fn mcp_routes_require_a_live_capability() {
    let h = Harness::start().await;
    let base = h.state_revision().await;
    let routes: Vec<(&str, Option<Value>)> = vec![
        ("/api/mcp/workflow", None),
        ("/api/mcp/readiness", None),
        ("/api/mcp/catalog/search?q=fastq", None),
        ("/api/mcp/catalog/operators/qc.fastp", None),
        (
            "/api/mcp/transactions",
            Some(add(&base, "edit-00000001", "x")),
        ),
    ];
    let (id, capability) = h.server.state.capabilities.issue();
    for (path, body) in &routes {
        for presented in [None, Some("wrong"), Some(&"0".repeat(64)[..])] {
            for activity_header in [false, true] {
                let mut request = match body {
                    Some(b) => h.client.post(h.url(path)).json(b),
                    None => h.client.get(h.url(path)),
                };
                if let Some(p) = presented {
                    request = request.header(CAPABILITY_HEADER, p);
                }
                if activity_header {
                    request = request.header(somite_api::headers::MCP_ACTIVITY, "call-1");
                }
                let response = request.send().await.unwrap();
                assert_eq!(
                    response.status(),
                    StatusCode::UNAUTHORIZED,
                    "{path} {presented:?}"
                );
                assert_envelope(&response.json().await.unwrap(), "capability_required");
            }
        }
        let request = match body {
            Some(b) => h.client.post(h.url(path)).json(b),
            None => h.client.get(h.url(path)),
        };
        let response = request
            .header(CAPABILITY_HEADER, capability.expose())
            .header(somite_api::headers::MCP_ACTIVITY, "call-7")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{path}");
    }
    let (_, activity) = h.get("/api/activity").await;
    let event = &activity["events"][0];
    assert_eq!(
        event["data"]["source"],
        json!({"kind": "agent", "activity": "call-7"})
    );
    assert!(
        !activity.to_string().contains(capability.expose()),
        "the feed never carries the capability"
    );

    h.server.state.capabilities.revoke(id);
    let response = h
        .client
        .get(h.url("/api/mcp/workflow"))
        .header(CAPABILITY_HEADER, capability.expose())
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::UNAUTHORIZED,
        "a revoked capability is refused"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_writers_on_one_base_get_exactly_one_winner_per_round() {
    let h = Harness::start().await;
    let mut chain = vec![h.state_revision().await];
    for round in 0..5 {
        let base = chain.last().unwrap().clone();
        let requests = (0..32).map(|writer| {
            let client = h.client.clone();
            let url = h.url("/api/transactions");
            let body = add(
                &base,
                &format!("race-{round}-{writer:04}"),
                &format!("n{round}_{writer}"),
            );
            tokio::spawn(async move {
                let response = client.post(url).json(&body).send().await.unwrap();
                (response.status(), response.json::<Value>().await.unwrap())
            })
        });
        let results = futures_util::future::join_all(requests).await;
        let mut winners = Vec::new();
        for result in results {
            let (status, body) = result.unwrap();
            match status {
                StatusCode::OK => winners.push(body),
                StatusCode::CONFLICT => assert_eq!(body["code"], "stale_revision", "{body}"),
                other => panic!("unexpected {other}: {body}"),
            }
        }
        assert_eq!(winners.len(), 1, "round {round}");
        assert_eq!(winners[0]["previous_state_revision"], json!(base));
        chain.push(winners[0]["state_revision"].as_str().unwrap().to_owned());
    }
    let (_, workflow) = h.get("/api/workflow").await;
    assert_eq!(
        workflow["document"]["nodes"].as_array().unwrap().len(),
        5,
        "every winner's edit is kept"
    );
    assert_eq!(workflow["state_revision"], json!(chain.last().unwrap()));
    let (_, activity) = h.get("/api/activity").await;
    let events = activity["events"].as_array().unwrap();
    assert_eq!(events.len(), 5);
    for (i, event) in events.iter().enumerate() {
        assert_eq!(
            event["data"]["outcome"]["previous_state_revision"],
            json!(chain[i])
        );
        assert_eq!(
            event["data"]["outcome"]["state_revision"],
            json!(chain[i + 1])
        );
    }
}

/// One server-sent event: its name, its id `<epoch>:<cursor>` and its data.
#[derive(Debug)]
struct Sse {
    kind: String,
    id: String,
    data: Value,
}

impl Sse {
    fn epoch(&self) -> &str {
        self.id.split_once(':').expect("ids are <epoch>:<cursor>").0
    }

    fn cursor(&self) -> u64 {
        self.id.split_once(':').unwrap().1.parse().unwrap()
    }
}

/// Reads SSE events from a response until `count` events with ids arrived.
async fn read_events(response: reqwest::Response, count: usize) -> Vec<Sse> {
    let mut stream = response.bytes_stream();
    let mut buffer = String::new();
    let mut events = Vec::new();
    while events.len() < count {
        let chunk = tokio::time::timeout(Duration::from_secs(10), stream.next())
            .await
            .expect("events arrive in time")
            .expect("the stream stays open")
            .unwrap();
        buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        while let Some(end) = buffer.find("\n\n") {
            let block: String = buffer.drain(..end + 2).collect();
            let (mut kind, mut id, mut data) = (String::new(), None, Value::Null);
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    kind = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("id:") {
                    id = Some(v.trim().to_owned());
                } else if let Some(v) = line.strip_prefix("data:") {
                    data = serde_json::from_str(v.trim()).unwrap();
                }
            }
            if let Some(id) = id {
                events.push(Sse { kind, id, data });
            }
        }
    }
    events
}

#[tokio::test]
async fn the_activity_stream_resumes_without_duplicates_or_gaps() {
    let h = Harness::start().await;
    let mut base = h.state_revision().await;
    for i in 0..3 {
        let (_, reply) = h
            .post(
                "/api/transactions",
                &add(&base, &format!("edit-{i:08}"), &format!("n{i}")),
            )
            .await;
        base = reply["state_revision"].as_str().unwrap().to_owned();
    }
    let first = h
        .client
        .get(h.url("/api/activity/stream"))
        .send()
        .await
        .unwrap();
    assert_eq!(first.headers()["content-type"], "text/event-stream");
    let seen = read_events(first, 3).await;
    assert_eq!(
        seen.iter().map(Sse::cursor).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    let epoch = h.epoch().await;
    assert!(seen.iter().all(|e| e.epoch() == epoch));
    // The browser disconnected; two more edits happen meanwhile.
    for i in 3..5 {
        let (_, reply) = h
            .post(
                "/api/transactions",
                &add(&base, &format!("edit-{i:08}"), &format!("n{i}")),
            )
            .await;
        base = reply["state_revision"].as_str().unwrap().to_owned();
    }
    let resumed = h
        .client
        .get(h.url("/api/activity/stream"))
        .header("last-event-id", format!("{epoch}:3"))
        .send()
        .await
        .unwrap();
    let mut reader = Box::pin(async move { read_events(resumed, 3).await });
    // A live edit after reconnecting arrives after the backlog, once.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (_, reply) = h
        .post("/api/transactions", &add(&base, "edit-00000005", "n5"))
        .await;
    assert_eq!(reply["cursor"], 6);
    let events = (&mut reader).await;
    assert_eq!(
        events.iter().map(Sse::cursor).collect::<Vec<_>>(),
        vec![4, 5, 6]
    );
    assert!(
        events
            .iter()
            .all(|e| e.kind == somite_api::FeedKind::Transaction.as_str())
    );
    // `?after=` resumes the same way.
    let by_query = h
        .client
        .get(h.url(&format!("/api/activity/stream?after={epoch}:5")))
        .send()
        .await
        .unwrap();
    assert_eq!(read_events(by_query, 1).await[0].cursor(), 6);
}

#[tokio::test]
async fn a_position_from_before_a_restart_gets_a_reset_then_every_new_edit() {
    let h = Harness::start().await;
    let mut base = h.state_revision().await;
    for i in 0..7 {
        let (_, reply) = h
            .post(
                "/api/transactions",
                &add(&base, &format!("old-{i:08}"), &format!("o{i}")),
            )
            .await;
        base = reply["state_revision"].as_str().unwrap().to_owned();
    }
    let stream = h
        .client
        .get(h.url("/api/activity/stream"))
        .send()
        .await
        .unwrap();
    // The browser's last position before the runtime went away.
    let old = read_events(stream, 7).await.pop().unwrap().id;
    let h = h.restart().await;

    let resumed = h
        .client
        .get(h.url("/api/activity/stream"))
        .header("last-event-id", &old)
        .send()
        .await
        .unwrap();
    let mut reader = Box::pin(async move { read_events(resumed, 6).await });
    tokio::time::sleep(Duration::from_millis(100)).await;
    for i in 0..5 {
        let (_, reply) = h
            .post(
                "/api/transactions",
                &add(&base, &format!("new-{i:08}"), &format!("n{i}")),
            )
            .await;
        base = reply["state_revision"].as_str().unwrap().to_owned();
    }
    let events = (&mut reader).await;
    let epoch = h.epoch().await;
    assert_ne!(
        old.split_once(':').unwrap().0,
        epoch,
        "a restart starts a new epoch"
    );
    assert_eq!(events[0].kind, "reset");
    assert_eq!(events[0].data, json!({"epoch": epoch, "cursor": 0}));
    assert_eq!(
        events[1..]
            .iter()
            .map(|e| (e.kind.as_str(), e.cursor()))
            .collect::<Vec<_>>(),
        (1..=5).map(|c| ("transaction", c)).collect::<Vec<_>>()
    );
    assert!(events.iter().all(|e| e.epoch() == epoch));

    let (_, page) = h.get(&format!("/api/activity?after={old}")).await;
    assert_eq!(
        (
            page["reset"].clone(),
            page["epoch"].clone(),
            page["last_cursor"].clone()
        ),
        (json!(true), json!(epoch), json!(5))
    );
    assert_eq!(page["events"], json!([]));
    // A bare number is no position of any epoch: reset as well.
    let (_, page) = h.get("/api/activity?after=3").await;
    assert_eq!(page["reset"], true);
}

/// An agent's edit of a large graph is answered with what changed: the
/// browser's reply carries the graph, the agent's does not.
#[tokio::test]
async fn an_agents_edit_is_answered_with_what_changed_not_with_the_graph() {
    let h = Harness::start().await;
    let notes: Vec<Value> = (0..10)
        .map(|i| json!({"op": "add_note", "note_id": format!("note{i}"), "text": "n".repeat(16_000), "x": 0, "y": 0}))
        .collect();
    let (status, human) = h
        .post(
            "/api/transactions",
            &json!({"base_state_revision": h.state_revision().await, "idempotency_key": "notes-00000001", "summary": "notes", "operations": notes}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{human}");
    assert!(human["document"].to_string().len() > 160_000);

    let (_, capability) = h.server.state.capabilities.issue();
    let response = h
        .client
        .post(h.url("/api/mcp/transactions"))
        .header(CAPABILITY_HEADER, capability.expose())
        .header(somite_api::headers::MCP_ACTIVITY, "call-1")
        .json(&add(
            human["state_revision"].as_str().unwrap(),
            "edit-00000001",
            "reads",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body = response.bytes().await.unwrap();
    assert!(body.len() < 2_000, "{} bytes", body.len());
    let agent: Value = serde_json::from_slice(&body).unwrap();
    assert!(agent.get("document").is_none(), "{agent}");
    assert_eq!(agent["previous_state_revision"], human["state_revision"]);
    assert_eq!(agent["state_revision"], h.state_revision().await.as_str());
    assert_eq!(agent["cursor"], 2);
}

#[tokio::test]
async fn a_feed_event_does_not_grow_with_the_document() {
    let h = Harness::start().await;
    let mut base = h.state_revision().await;
    // About 1 MB of graph: 60 notes of 16,000 characters.
    for batch in 0..6 {
        let operations: Vec<Value> = (0..10)
            .map(|i| json!({"op": "add_note", "note_id": format!("note{batch}-{i}"), "text": "n".repeat(16_000), "x": 0, "y": 0}))
            .collect();
        let (status, reply) = h
            .post(
                "/api/transactions",
                &json!({"base_state_revision": base, "idempotency_key": format!("notes-{batch:08}"), "summary": "notes", "operations": operations}),
            )
            .await;
        assert_eq!(status, StatusCode::OK, "{reply}");
        base = reply["state_revision"].as_str().unwrap().to_owned();
    }
    let (_, reply) = h
        .post(
            "/api/transactions",
            &json!({"base_state_revision": base, "idempotency_key": "title-00000001", "summary": "rename", "operations": [{"op": "set_title", "title": "Renamed"}]}),
        )
        .await;
    assert!(reply["document"].to_string().len() > 900_000);
    let (_, page) = h.get("/api/activity?after=0").await;
    let event = page["events"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    assert!(
        event.len() < 4096,
        "a one-field edit's event has {} bytes",
        event.len()
    );
}

#[tokio::test]
async fn the_web_workspace_page_is_served() {
    let h = Harness::start().await;
    let response = h.client.get(h.url("/")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.text().await.unwrap().contains("Somite"));
}

#[tokio::test]
async fn compile_and_export_freeze_the_current_graph_or_refuse_a_blocked_one() {
    let blocked = Harness::start().await;
    let (status, body) = blocked.post("/api/compile", &json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_envelope(&body, "workflow_not_ready");
    let (status, body) = blocked.post("/api/export", &json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_envelope(&body, "workflow_not_ready");
    let (status, body) = blocked.post("/api/compile", &json!({"target": "x"})).await;
    assert!(
        status.is_client_error(),
        "unknown options are refused: {body}"
    );

    let h = Harness::start_with(ready_paired_reads).await;
    let (status, first) = h.post("/api/compile", &json!({})).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    let path = first["path"].as_str().unwrap();
    assert!(
        path.starts_with(".somite/compiled/"),
        "relative to the project: {path}"
    );
    assert!(first["digest"].as_str().unwrap().starts_with("blake3:"));
    assert!(first["files"].as_u64().unwrap() > 5);
    assert_eq!(first["reused"], false);
    let (_, second) = h.post("/api/compile", &json!({})).await;
    assert_eq!(second["digest"], first["digest"]);
    assert_eq!(second["reused"], true);
    let (_, activity) = h.get("/api/activity").await;
    assert_eq!(activity["events"][0]["kind"], "compile");
    assert_eq!(activity["events"][0]["data"]["source"]["kind"], "human");

    let response = h
        .client
        .post(h.url("/api/export"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/zip");
    let disposition = response.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        disposition.starts_with("attachment; filename=\""),
        "{disposition}"
    );
    let bytes = response.bytes().await.unwrap();
    assert_eq!(&bytes[..4], b"PK\x03\x04", "a ZIP archive");
    let again = h
        .client
        .post(h.url("/api/export"))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(bytes, again, "exports are deterministic");

    // The MCP form needs the capability; without an agent session it
    // compiles but attaches nowhere.
    let (status, body) = h.post("/api/mcp/compile", &json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_envelope(&body, "capability_required");
    let (_, capability) = h.server.state.capabilities.issue();
    let attached: Value = h
        .client
        .post(h.url("/api/mcp/compile"))
        .header(CAPABILITY_HEADER, capability.expose())
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(attached["digest"], first["digest"]);
    assert_eq!(attached["output_path"], Value::Null);
}

#[tokio::test]
async fn agent_routes_refuse_calls_without_a_session_and_bad_bodies() {
    let h = Harness::start().await;
    let (status, view) = h.get("/api/agent/session").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(view["state"], "disconnected");
    let (status, launchers) = h.get("/api/agent/launchers").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(launchers["registry"]["kind"], "source");
    let ids: Vec<&str> = launchers["launchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"codex-acp"), "{ids:?}");
    // A registry agent that cannot start here is refused with the reason,
    // before anything runs.
    if let Some(missing) = launchers["launchers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["status"]["kind"] == "not_installed")
    {
        let (status, body) = h
            .post("/api/agent/connect", &json!({"launcher": missing["id"]}))
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        assert_envelope(&body, "agent_command_rejected");
        assert!(
            body["message"].as_str().unwrap().contains("not on PATH"),
            "{body}"
        );
    }

    for (path, body) in [
        ("/api/agent/prompt", json!({"text": "hi"})),
        ("/api/agent/cancel", json!({})),
        (
            "/api/agent/permissions/g1-p1",
            json!({"option_id": "allow"}),
        ),
        (
            "/api/agent/config",
            json!({"config_id": "model", "value": "fast"}),
        ),
        ("/api/agent/disconnect", json!({})),
    ] {
        let (status, body) = h.post(path, &body).await;
        assert_eq!(status, StatusCode::CONFLICT, "{path}: {body}");
        assert_envelope(&body, "agent_not_connected");
    }
    for (path, body) in [
        ("/api/agent/prompt", json!({"text": "   "})),
        ("/api/agent/prompt", json!({"text": "hi", "model": "x"})),
        (
            "/api/agent/connect",
            json!({"launcher": "x", "command": ["y"]}),
        ),
        ("/api/agent/connect", json!({"command": "codex --acp"})),
        ("/api/agent/permissions/g1-p1", json!({"cancel": false})),
    ] {
        let (status, body) = h.post(path, &body).await;
        assert!(status.is_client_error(), "{path} {body}");
        assert!(body["code"].is_string(), "{body}");
    }
    let (status, body) = h
        .post(
            "/api/agent/prompt",
            &json!({"text": "x".repeat(300 * 1024)}),
        )
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    let (status, body) = h
        .post(
            "/api/agent/connect",
            &json!({"command": ["/bin/sh", "-c", "true"]}),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_envelope(&body, "agent_command_rejected");
}

#[tokio::test]
async fn runs_and_validations_are_gated_before_any_process_starts() {
    let h = Harness::start().await;
    for path in ["/api/runs", "/api/validations"] {
        let (status, body) = h
            .post(path, &json!({"idempotency_key": "launch-0001"}))
            .await;
        assert_eq!(status, StatusCode::CONFLICT, "{path}: {body}");
        assert_envelope(&body, "workflow_not_ready");
        let (status, body) = h.post(path, &json!({"idempotency_key": "short"})).await;
        assert!(status.is_client_error(), "{path}: {body}");
        assert!(body["code"].is_string(), "{body}");
        let (status, body) = h.post(path, &json!({})).await;
        assert!(status.is_client_error(), "the key is required: {body}");
    }
    let (status, body) = h.get("/api/runs/no-such-run?wait_ms=10").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_envelope(&body, "not_found");
    let (status, body) = h.post("/api/runs/no-such-run/cancel", &json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = h.get("/api/runs/x?wait_ms=abc").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    let (status, evidence) = h.get("/api/evidence").await;
    assert_eq!(status, StatusCode::OK, "{evidence}");
    assert_eq!(evidence["validated"], false);
    assert_eq!(evidence["receipts"], json!([]));
    let (status, body) = h.get("/api/evidence?graph_revision=nonsense").await;
    assert!(status.is_client_error(), "{body}");
    let (status, body) = h.get("/api/mcp/evidence").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
}

#[tokio::test]
async fn a_ready_graph_without_pixi_reports_the_missing_toolchain() {
    let dir = tempfile::tempdir().unwrap();
    ready_paired_reads(dir.path());
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    let config = ServerConfig {
        pixi: None,
        ..ServerConfig::loopback(dir.path(), "somite").unwrap()
    };
    let server = somite_server::start(&config, project).await.unwrap();
    let client = Client::new();
    let response = client
        .post(format!("{}/api/runs", server.url()))
        .json(&json!({"idempotency_key": "launch-0002"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let body: Value = response.json().await.unwrap();
    assert_envelope(&body, "toolchain_missing");
    assert!(
        body["recovery"].as_str().unwrap().contains("pixi"),
        "the recovery says what to install: {body}"
    );
}

#[tokio::test]
async fn a_project_awaiting_recovery_refuses_every_write_until_rebound_from_the_web() {
    let h = Harness::start_with(|root| {
        ready_paired_reads(root);
        // The project's files were changed by hand: the sidecar no longer
        // binds the graph.
        std::fs::write(somite_project::Layout::new(root).input_origin_ring(), b"{}").unwrap();
    })
    .await;
    let (_, workflow) = h.get("/api/workflow").await;
    assert!(workflow["recovery_required"].is_string(), "{workflow}");
    let base = h.state_revision().await;
    let launch = json!({"idempotency_key": "launch-0001"});
    for (path, body) in [
        ("/api/transactions", add(&base, "edit-0001", "extra")),
        ("/api/compile", json!({})),
        ("/api/export", json!({})),
        ("/api/runs", launch.clone()),
        ("/api/validations", launch.clone()),
    ] {
        let (status, body) = h.post(path, &body).await;
        assert_eq!(status, StatusCode::CONFLICT, "{path}: {body}");
        assert_envelope(&body, "input_origin_recovery_required");
    }

    let (status, rebound) = h.post("/api/project/rebind", &json!({})).await;
    assert_eq!(status, StatusCode::OK, "{rebound}");
    assert_eq!(
        rebound["state_revision"],
        base.as_str(),
        "the graph as served is kept"
    );
    let (status, body) = h.post("/api/project/rebind", &json!({"x": 1})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_envelope(&body, "invalid_request");
    let (_, workflow) = h.get("/api/workflow").await;
    assert!(workflow["recovery_required"].is_null(), "{workflow}");
    let (_, feed) = h.get("/api/activity?after=0").await;
    assert!(
        feed["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|event| event["kind"] == somite_api::FeedKind::Rebind
                && event["data"]["state_revision"] == base.as_str()),
        "open workspaces learn of it: {feed}"
    );
    let (status, body) = h.post("/api/compile", &json!({})).await;
    assert_eq!(status, StatusCode::OK, "writes work again: {body}");
    let (status, body) = h
        .post("/api/transactions", &add(&base, "edit-0001", "extra"))
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn data_search_renders_its_failures_as_envelopes() {
    let h = Harness::start().await;
    let cache = tempfile::tempdir().unwrap();
    let mut config = somite_data::DataConfig::new(cache.path());
    // Port 9 (discard) refuses on loopback: a provider that is down.
    config.ncbi_datasets_url = "http://127.0.0.1:9/datasets/v2".into();
    config.request_timeout = Duration::from_secs(5);
    let search = somite_data::DataSearch::new(config).unwrap();
    assert!(h.server.state.data.set(std::sync::Arc::new(search)).is_ok());
    let (status, body) = h.get("/api/data/search?query=9606").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_envelope(&body, "invalid_query");
    let (status, body) = h.get("/api/data/search?query=GCF_000001405.40").await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert_envelope(&body, "source_unavailable");
    assert_eq!(body["details"]["provider"], "ncbi_datasets");
    let (status, body) = h.get("/api/data/search?query=human&surprise=1").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_envelope(&body, "invalid_request");
    // The MCP path exists and is behind the capability.
    let (status, body) = h.get("/api/mcp/data/search?query=human").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_envelope(&body, "capability_required");
}

/// An agent's install, or a cancel deleting the partial download, is acted
/// on only after the user answered its permission prompt: with a live
/// capability but no such answer, the runtime refuses and installs nothing.
#[tokio::test]
async fn an_agent_install_without_the_users_answer_is_refused() {
    let h = Harness::start().await;
    let (_, capability) = h.server.state.capabilities.issue();
    let consent = json!({"consent": {
        "download_bytes": 1, "stored_bytes": 2,
        "effect_digest": format!("blake3:{}", "0".repeat(64)),
    }});
    for (path, body) in [
        ("/api/mcp/resources/k2_standard_08gb/install", consent),
        (
            "/api/mcp/resources/k2_standard_08gb/cancel",
            json!({"keep_partial": false}),
        ),
        ("/api/mcp/resources/k2_standard_08gb/cancel", json!({})),
    ] {
        let response = h
            .client
            .post(h.url(path))
            .header(CAPABILITY_HEADER, capability.expose())
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{path} {body}");
        assert_envelope(
            &response.json().await.unwrap(),
            "resource_permission_required",
        );
    }
    // Keeping the partial needs no answer: nothing runs, so nothing to cancel.
    let kept = h
        .client
        .post(h.url("/api/mcp/resources/k2_standard_08gb/cancel"))
        .header(CAPABILITY_HEADER, capability.expose())
        .json(&json!({"keep_partial": true}))
        .send()
        .await
        .unwrap();
    assert_ne!(kept.status(), StatusCode::FORBIDDEN);
}
