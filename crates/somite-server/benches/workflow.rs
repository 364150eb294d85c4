//! `GET /api/workflow` on a 500-node graph, through the runtime's router
//! (guards, handler, body) without a socket: the server's share of a read.
//! The median of a timed series is printed beside the goal (≤ 1 ms).
//!
//! Run with `cargo bench -p somite-server`.

use axum::body::Body;
use axum::http::Request;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use somite_project::{Project, Seed};
use somite_server::config::ServerConfig;
use somite_workflow::transaction::GraphTransaction;
use std::hint::black_box;
use std::time::{Duration, Instant};
use tower::ServiceExt;

/// 250 read imports each feeding one FastQC node: 500 nodes, 250 edges.
fn project_of_500_nodes(dir: &std::path::Path) -> Project {
    let mut project = Project::open(dir, Seed::Empty).unwrap();
    let mut ops = Vec::new();
    for i in 0..250 {
        ops.push(json!({"op": "add_operator", "node_id": format!("reads{i}"), "operator_id": "files.import", "params": {"path": format!("r{i}.fastq")}, "x": i, "y": 0}));
        ops.push(json!({"op": "add_operator", "node_id": format!("qc{i}"), "operator_id": "qc.fastqc", "x": i, "y": 200}));
        ops.push(json!({"op": "connect", "edge_id": format!("e{i}"), "from_node": format!("reads{i}"), "from_port": "file", "to_node": format!("qc{i}"), "to_port": "reads"}));
    }
    for (n, chunk) in ops.chunks(64).enumerate() {
        let txn: GraphTransaction = serde_json::from_value(json!({
            "base_state_revision": project.state_revision(), "idempotency_key": format!("setup-{n:04}"),
            "summary": "bench", "operations": chunk,
        }))
        .unwrap();
        project.apply_transaction(&txn).unwrap();
    }
    assert_eq!(project.document().nodes.len(), 500);
    project
}

fn bench_workflow_get(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let project = project_of_500_nodes(dir.path());
    let config = ServerConfig::loopback(dir.path(), "somite").unwrap();
    let server = runtime
        .block_on(somite_server::start(&config, project))
        .unwrap();
    let host = server.address.to_string();
    let app = somite_server::router(server.state.clone(), None);
    let get = || {
        let request = Request::get("/api/workflow")
            .header("host", &host)
            .body(Body::empty())
            .unwrap();
        runtime.block_on(async {
            let response = app.clone().oneshot(request).await.unwrap();
            assert!(response.status().is_success());
            axum::body::to_bytes(response.into_body(), usize::MAX)
                .await
                .unwrap()
        })
    };
    let bytes = get().len();
    c.bench_function("GET /api/workflow on a 500-node graph", |b| {
        b.iter(|| black_box(get()))
    });
    let mut samples: Vec<Duration> = (0..101)
        .map(|_| {
            let start = Instant::now();
            black_box(get());
            start.elapsed()
        })
        .collect();
    samples.sort();
    println!(
        "median GET /api/workflow on a 500-node graph ({bytes} bytes): {:.3} ms server time (101 runs; goal 1 ms)",
        samples[samples.len() / 2].as_secs_f64() * 1000.0
    );
    runtime.block_on(server.shutdown()).unwrap();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench_workflow_get
}
criterion_main!(benches);
