//! Round trips of one MCP tool call through the whole agent path, for the
//! tracker's MCP issue: the real `somite mcp somite` binary over stdio →
//! the loopback runtime (in process, `somite_server::start`) → back, for
//! `somite.workflow.get` on a 500-node graph (250 paired-read imports, each
//! feeding a fastp node over two edges). It shows what an agent pays for
//! reading the canvas; besides criterion's estimate it prints the median and
//! p99 of 200 individually timed calls.

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::Value;
use somite_server::config::ServerConfig;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

const PAIRS: usize = 250;
const TIMED_CALLS: usize = 200;

/// The `somite` binary the bench spawns.
fn somite_binary() -> PathBuf {
    let path = PathBuf::from(env!("CARGO_BIN_EXE_somite"));
    assert!(
        path.is_file(),
        "{} is missing: run the bench through `cargo bench -p somite --bench mcp_round_trip`, \
         which builds it",
        path.display()
    );
    path
}

async fn connect(url: &str, capability: &str) -> RunningService<RoleClient, ()> {
    let mut command = tokio::process::Command::new(somite_binary());
    command
        .args(["mcp", "somite", "--server-url", url])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env(somite_api::EnvVars::SOMITE_MCP_CAPABILITY, capability);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn somite mcp somite");
    ().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
        .await
        .expect("MCP session")
}

/// One `somite.workflow.get` (its default summary); returns the graph's
/// node count and the bytes of the answer's text.
async fn workflow_get(client: &RunningService<RoleClient, ()>) -> (usize, usize) {
    let result = client
        .call_tool(CallToolRequestParams::new(
            somite_api::tools::somite::WORKFLOW_GET,
        ))
        .await
        .expect(somite_api::tools::somite::WORKFLOW_GET);
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let text: usize = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.len())
        .sum();
    let content: Value = result.structured_content.expect("structured content");
    (
        content["counts"]["nodes"].as_u64().unwrap_or(0) as usize,
        text,
    )
}

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn round_trip(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let project = somite_test_support::project_with_pairs(dir.path(), PAIRS);
    let config = ServerConfig::loopback(dir.path(), somite_binary()).expect("config");
    let server = runtime
        .block_on(somite_server::start(&config, project))
        .expect("runtime");
    let (_, capability) = server.state.capabilities.issue();
    let client = runtime.block_on(connect(&server.url(), capability.expose()));
    let (nodes, bytes) = runtime.block_on(workflow_get(&client));
    assert_eq!(nodes, 2 * PAIRS);
    println!(
        "mcp_round_trip: the default answer on {nodes} nodes is {bytes} bytes of text (≈{} tokens, {:.1} bytes per node)",
        bytes / 4,
        bytes as f64 / nodes as f64
    );

    // Individually timed calls, for the median and p99 the issue asks for.
    let mut samples: Vec<Duration> = (0..TIMED_CALLS)
        .map(|_| {
            let start = Instant::now();
            runtime.block_on(workflow_get(&client));
            start.elapsed()
        })
        .collect();
    samples.sort();
    let median = samples[samples.len() / 2];
    // Nearest rank: the smallest sample at or above 99 % of them.
    let p99 = samples[(samples.len() * 99).div_ceil(100) - 1];
    println!(
        "mcp_round_trip: somite.workflow.get on {} nodes, {TIMED_CALLS} calls: \
         median {:.2} ms, p99 {:.2} ms, min {:.2} ms, max {:.2} ms",
        2 * PAIRS,
        millis(median),
        millis(p99),
        millis(samples[0]),
        millis(samples[samples.len() - 1]),
    );

    let mut group = c.benchmark_group("mcp_round_trip");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("workflow_get_500_nodes", |b| {
        b.iter(|| runtime.block_on(workflow_get(&client)));
    });
    group.finish();

    runtime.block_on(async {
        client.cancel().await.expect("close the MCP session");
        server.shutdown().await.expect("stop the runtime");
    });
}

criterion_group!(benches, round_trip);
criterion_main!(benches);
