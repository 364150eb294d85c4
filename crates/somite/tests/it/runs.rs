//! Run and Validate through `somite serve`, as the web controls and the
//! agent's tools use them: a launch is idempotent, its progress reaches the
//! feed and the long-poll, and a validation's receipt is what makes the
//! graph validated. (Cancellation of the process group is tested in
//! `somite-runner`, where the stand-in's behaviour can be chosen.)
//!
//! Pixi and Nextflow cannot be installed on these machines, so `SOMITE_PIXI`
//! points the runtime at `somite-pixi-standin`, a STAND-IN that follows
//! their documented process contract (see `crates/somite-runner`); the
//! runtime's own code path — compile, `pixi run --frozen`, trace parsing,
//! receipts — is the production one.

use crate::support::{ServeChild, sibling};
use serde_json::{Value, json};
use somite_test_support::ready_paired_reads;
use std::time::{Duration, Instant};

async fn post(client: &reqwest::Client, url: String, body: Value) -> (u16, Value) {
    let response = client.post(url).json(&body).send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

async fn get(client: &reqwest::Client, url: String) -> Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

async fn until_terminal(client: &reqwest::Client, serve: &ServeChild, run_id: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = get(
            client,
            format!("{}/api/runs/{run_id}?wait_ms=5000", serve.url),
        )
        .await;
        if ["completed", "failed", "cancelled"].contains(&status["phase"].as_str().unwrap_or("")) {
            return status;
        }
        assert!(Instant::now() < deadline, "the run did not end: {status}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_validation_through_the_runtime_ends_with_a_receipt_that_validates_the_graph() {
    let project = tempfile::tempdir().unwrap();
    ready_paired_reads(project.path());
    let serve = ServeChild::start(project.path(), |command| {
        command.env(
            somite_api::EnvVars::SOMITE_PIXI,
            sibling("somite-pixi-standin"),
        );
    });
    let client = reqwest::Client::new();

    let evidence = get(&client, format!("{}/api/evidence", serve.url)).await;
    assert_eq!(
        evidence["validated"], false,
        "compiled is not validated: {evidence}"
    );

    let (status, started) = post(
        &client,
        format!("{}/api/validations", serve.url),
        json!({"idempotency_key": "validate-0001"}),
    )
    .await;
    assert_eq!(status, 202, "{started}");
    let run_id = started["run_id"].as_str().unwrap().to_owned();
    let (_, replay) = post(
        &client,
        format!("{}/api/validations", serve.url),
        json!({"idempotency_key": "validate-0001"}),
    )
    .await;
    assert_eq!(replay["run_id"], run_id.as_str());
    assert_eq!(replay["replayed"], true);
    let (status, conflict) = post(
        &client,
        format!("{}/api/runs", serve.url),
        json!({"idempotency_key": "validate-0001"}),
    )
    .await;
    assert_eq!(
        (status, conflict["code"].as_str()),
        (409, Some("idempotency_conflict")),
        "{conflict}"
    );

    let done = until_terminal(&client, &serve, &run_id).await;
    assert_eq!(done["phase"], "completed", "{done}");
    assert_eq!(done["states"]["trim"], "done", "{done}");
    let receipt = done["evidence_receipt"]
        .as_str()
        .expect("a receipt")
        .to_owned();

    let evidence = get(&client, format!("{}/api/evidence", serve.url)).await;
    assert_eq!(evidence["validated"], true, "{evidence}");
    assert_eq!(evidence["receipts"].as_array().unwrap().len(), 1);
    // The feed announces the terminal state after the status shows it (the
    // runtime relays the supervisor's progress), so wait for it, bounded.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let feed = get(&client, format!("{}/api/activity?after=0", serve.url)).await;
        let runs: Vec<Value> = feed["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| {
                e["kind"] == somite_api::FeedKind::Run && e["data"]["run_id"] == run_id.as_str()
            })
            .cloned()
            .collect();
        let announced = runs
            .last()
            .map(|run| run["data"]["evidence_receipt"].clone());
        if announced == Some(Value::from(receipt.as_str())) {
            assert!(runs.len() >= 3, "progress reaches the feed: {runs:#?}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the feed never announced the receipt: {runs:#?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
