//! The agent at scale: on a 2,000-node graph (1,000 paired-read imports,
//! each feeding fastp over two edges) every read answer of
//! `somite.workflow.get` and `somite.readiness.get` stays under
//! [`MAX_READ_BYTES`] of text and of structured content, as Claude Code's
//! 25,000-token limit for one tool result requires; the summary pages reach
//! every node exactly once; `node_ids` reads nodes in full; a cursor from an
//! earlier state is refused; and `since_state_revision` answers what an edit
//! changed. The sizes are printed (`--nocapture`), not timed.

use crate::support::mcp::{call, connect, failure, ok};
use rmcp::ClientLifecycleMode;
use rmcp::model::CallToolResult;
use serde_json::{Value, json};
use somite_api::tools::somite::{GRAPH_APPLY_TRANSACTION, READINESS_GET, WORKFLOW_GET};
use somite_project::workflow_read::MAX_READ_BYTES;
use somite_server::config::ServerConfig;
use std::collections::BTreeSet;

const PAIRS: usize = 1000;

/// The bytes of a result's text and of its structured content.
fn sizes(result: &CallToolResult) -> (usize, usize) {
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.len())
        .sum();
    let structured = result
        .structured_content
        .as_ref()
        .map_or(0, |s| serde_json::to_vec(s).unwrap().len());
    (text, structured)
}

fn bounded(tool: &str, result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
    let (text, structured) = sizes(result);
    assert!(text <= MAX_READ_BYTES, "{tool}: {text} bytes of text");
    assert!(
        structured <= MAX_READ_BYTES,
        "{tool}: {structured} bytes of structured content"
    );
    result.structured_content.clone().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_read_of_a_2000_node_graph_stays_under_the_bound_and_reaches_every_node() {
    let dir = tempfile::tempdir().unwrap();
    let project = somite_test_support::project_with_pairs(dir.path(), PAIRS);
    let config = ServerConfig::loopback(dir.path(), env!("CARGO_BIN_EXE_somite")).unwrap();
    let server = somite_server::start(&config, project).await.unwrap();
    let (_, capability) = server.state.capabilities.issue();
    let client = connect(
        &server.url(),
        Some(capability.expose()),
        ClientLifecycleMode::Initialize,
    )
    .await;

    // The summary, page by page.
    let mut seen = BTreeSet::new();
    let mut edges = 0;
    let mut cursor: Option<String> = None;
    let mut first_page = None;
    let mut pages = 0;
    loop {
        let arguments = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let result = call(&client, WORKFLOW_GET, arguments).await;
        let page = bounded(WORKFLOW_GET, &result);
        pages += 1;
        assert_eq!(page["counts"]["nodes"], 2 * PAIRS);
        let lines = page["nodes"].as_array().unwrap();
        for line in lines {
            assert!(
                seen.insert(line[0].as_str().unwrap().to_owned()),
                "{line} twice"
            );
            assert!(
                ["ready", "blocked"].contains(&line[2].as_str().unwrap()),
                "{line}"
            );
            assert!(
                page["operators"][line[1].as_str().unwrap()].is_string(),
                "a title for {line}"
            );
        }
        edges += page["edges"].as_array().unwrap().len();
        if first_page.is_none() {
            let bytes = serde_json::to_vec(lines).unwrap().len();
            println!(
                "workflow.get summary: {} nodes on the first page, {:.1} bytes per node line, {} bytes of text",
                lines.len(),
                bytes as f64 / lines.len() as f64,
                sizes(&result).0
            );
            first_page = Some(page.clone());
        }
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen.len(), 2 * PAIRS, "every node once");
    assert_eq!(edges, 2 * PAIRS, "every edge once, with the node it leaves");
    println!("workflow.get: {pages} pages for {} nodes", 2 * PAIRS);
    let first_page = first_page.unwrap();

    // Nodes in full, by id.
    let detail = bounded(
        WORKFLOW_GET,
        &call(
            &client,
            WORKFLOW_GET,
            json!({"node_ids": ["reads_7", "trim_7"], "fields": ["params"]}),
        )
        .await,
    );
    assert_eq!(detail["detail"][0]["params"]["r1"], "data/s7_R1.fastq");
    assert_eq!(detail["detail"][1]["operator_id"], "qc.fastp");
    assert!(
        detail["detail"][1].get("ports").is_none(),
        "only the fields asked for"
    );
    assert_eq!(detail["edges"].as_array().unwrap().len(), 2);
    let unknown = failure(&client, WORKFLOW_GET, json!({"node_ids": ["nope"]})).await;
    assert_eq!(unknown["code"], "not_found");

    // Readiness pages the same way.
    let readiness = bounded(
        READINESS_GET,
        &call(&client, READINESS_GET, json!({})).await,
    );
    println!(
        "readiness.get: {} of {} items on the first page",
        readiness["items"].as_array().unwrap().len(),
        readiness["total_items"]
    );
    let for_node = bounded(
        READINESS_GET,
        &call(&client, READINESS_GET, json!({"node_ids": ["reads_7"]})).await,
    );
    assert!(
        for_node["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["node_id"] == "reads_7"),
        "{for_node}"
    );
    assert!(
        for_node["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["node_id"] == "reads_7")
    );

    // An edit; the old cursor is refused, the changes since are named.
    let before = first_page["state_revision"].clone();
    ok(
        &client,
        GRAPH_APPLY_TRANSACTION,
        json!({
            "base_state_revision": before,
            "idempotency_key": "scale-edit-0001",
            "summary": "one more fastp",
            "operations": [
                {"op": "add_operator", "node_id": "extra", "operator_id": "qc.fastp", "x": 0, "y": 0},
                {"op": "set_param", "node_id": "reads_3", "param": "r1", "value": "data/other_R1.fastq"},
            ],
        }),
    )
    .await;
    let stale = failure(
        &client,
        WORKFLOW_GET,
        json!({"cursor": first_page["next_cursor"]}),
    )
    .await;
    assert_eq!(stale["code"], "invalid_request", "{stale}");
    let changed = bounded(
        WORKFLOW_GET,
        &call(
            &client,
            WORKFLOW_GET,
            json!({"since_state_revision": before}),
        )
        .await,
    );
    assert_eq!(
        changed["changes"]["nodes_added"],
        json!(["extra"]),
        "{changed}"
    );
    assert_eq!(changed["changes"]["nodes_changed"], json!(["reads_3"]));
    let evicted = failure(
        &client,
        WORKFLOW_GET,
        json!({"since_state_revision": "blake3:00"}),
    )
    .await;
    assert_eq!(evicted["code"], "not_found");
    assert!(evicted["recovery"].as_str().unwrap().contains("afresh"));

    client.cancel().await.unwrap();
    server.shutdown().await.unwrap();
}
