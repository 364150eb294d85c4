//! Applying a 64-operation transaction to a 2,000-node graph, including the
//! durable publication of the graph and of its sidecar slot with the
//! idempotency records (the autosave copy is written after the answer, by
//! its own thread, at most once a second); and catalog search over the
//! shipped catalog.
//!
//! What is timed is what the runtime does with an edit's request: parse its
//! body ([`GraphTransaction::from_json`]) and apply it; writing the body is
//! the client's work, done before the clock starts.
//!
//! The transaction's median is printed beside its anchor: a bare write,
//! fsync, rename and directory fsync of the graph file's bytes (the same
//! bytes the edit publishes), the least any durable edit of that graph
//! costs on this disk (goal: ≤ 1.5×). The two are timed in alternation, so
//! that on a shared machine both see the same load.
//!
//! Run with `cargo bench -p somite-project`; criterion prints the median.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use somite_project::{Project, Seed};
use somite_workflow::Catalog;
use somite_workflow::search::SearchRequest;
use somite_workflow::transaction::GraphTransaction;
use std::hint::black_box;
use std::io::Write as _;
use std::time::{Duration, Instant};

fn transaction(base: &str, key: &str, operations: Vec<serde_json::Value>) -> GraphTransaction {
    serde_json::from_value(json!({
        "base_state_revision": base, "idempotency_key": key, "summary": "bench",
        "operations": operations,
    }))
    .unwrap()
}

/// 1,000 read imports each feeding one FastQC node: 2,000 nodes, 1,000 edges.
fn large_project(dir: &std::path::Path) -> Project {
    let mut project = Project::open(dir, Seed::Empty).unwrap();
    for chunk in 0..(1000 / 32) + 1 {
        let mut ops = Vec::new();
        for i in chunk * 32..((chunk + 1) * 32).min(1000) {
            ops.push(json!({"op": "add_operator", "node_id": format!("reads{i}"), "operator_id": "files.import", "params": {"path": format!("r{i}.fastq")}, "x": i, "y": 0}));
            ops.push(json!({"op": "add_operator", "node_id": format!("qc{i}"), "operator_id": "qc.fastqc", "x": i, "y": 200}));
        }
        if ops.is_empty() {
            continue;
        }
        let base = project.state_revision().clone();
        project
            .apply_transaction(&transaction(&base, &format!("setup-{chunk:04}"), ops))
            .unwrap();
        let mut edges = Vec::new();
        for i in chunk * 32..((chunk + 1) * 32).min(1000) {
            edges.push(json!({"op": "connect", "edge_id": format!("e{i}"), "from_node": format!("reads{i}"), "from_port": "file", "to_node": format!("qc{i}"), "to_port": "reads"}));
        }
        let base = project.state_revision().clone();
        project
            .apply_transaction(&transaction(&base, &format!("edges-{chunk:04}"), edges))
            .unwrap();
    }
    assert_eq!(project.document().nodes.len(), 2000);
    project
}

/// Timed pairs: enough that one stall of the shared disk moves neither
/// median.
const PAIRS: usize = 301;

/// The medians of [`PAIRS`] runs each of `a` and `b`, run in alternation; each
/// returns how long its timed part took.
fn paired_medians(
    mut a: impl FnMut() -> Duration,
    mut b: impl FnMut() -> Duration,
) -> (Duration, Duration) {
    let (mut a_samples, mut b_samples): (Vec<Duration>, Vec<Duration>) =
        (0..PAIRS).map(|_| (a(), b())).unzip();
    a_samples.sort();
    b_samples.sort();
    (a_samples[PAIRS / 2], b_samples[PAIRS / 2])
}

/// The anchor: `bytes` written to a temporary file, fsynced, renamed over
/// `path`, and the directory fsynced; returns how long that took.
fn bare_publish(path: &std::path::Path, bytes: &[u8]) -> Duration {
    let start = Instant::now();
    let temp = path.with_extension("anchor-tmp");
    let mut file = std::fs::File::create(&temp).unwrap();
    file.write_all(bytes).unwrap();
    file.sync_all().unwrap();
    drop(file);
    std::fs::rename(&temp, path).unwrap();
    std::fs::File::open(path.parent().unwrap())
        .unwrap()
        .sync_all()
        .unwrap();
    start.elapsed()
}

fn bench_transactions(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut project = large_project(dir.path());
    let mut round = 0u64;
    // Returns how long parsing and applying the request took.
    let mut edit = move |project: &mut Project| {
        round += 1;
        let operations: Vec<_> = (0..64)
            .map(|i| json!({"op": "set_param", "node_id": format!("qc{i}"), "param": "threads", "value": 1 + (round + i) % 4}))
            .collect();
        let body = serde_json::to_vec(&json!({
            "base_state_revision": project.state_revision(),
            "idempotency_key": format!("bench-{round:010}"),
            "summary": "bench",
            "operations": operations,
        }))
        .unwrap();
        let start = Instant::now();
        let txn = GraphTransaction::from_json(&body).unwrap();
        black_box(project.apply_transaction(&txn).unwrap());
        start.elapsed()
    };
    c.bench_function("apply 64 operations to a 2,000-node graph (durable)", |b| {
        b.iter_custom(|iterations| (0..iterations).map(|_| edit(&mut project)).sum())
    });

    let graph = std::fs::read(project.layout().graph()).unwrap();
    let anchor_path = dir.path().join("anchor.json");
    // The anchor as a criterion figure too, so `scripts/bench` prints the
    // ratio of the two medians from one run.
    c.bench_function(
        "anchor: bare write, fsync, rename and directory fsync of the graph's bytes",
        |b| {
            b.iter_custom(|iterations| {
                (0..iterations)
                    .map(|_| bare_publish(&anchor_path, &graph))
                    .sum()
            })
        },
    );

    let (applied, anchor) =
        paired_medians(|| edit(&mut project), || bare_publish(&anchor_path, &graph));
    println!(
        "median 64-operation transaction on 2,000 nodes: {:.2} ms; bare durable write of its {} graph bytes: {:.2} ms; ratio {:.2}× (goal 1.5×)",
        applied.as_secs_f64() * 1000.0,
        graph.len(),
        anchor.as_secs_f64() * 1000.0,
        applied.as_secs_f64() / anchor.as_secs_f64()
    );
}

fn bench_search(c: &mut Criterion) {
    let catalog = Catalog::builtin().unwrap();
    for query in ["fastq quality", "align reads", "kraken2"] {
        c.bench_function(&format!("catalog search `{query}`"), |b| {
            b.iter(|| {
                black_box(
                    catalog
                        .search(&SearchRequest {
                            query: query.into(),
                            limit: None,
                            cursor: None,
                        })
                        .unwrap(),
                )
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench_transactions, bench_search
}
criterion_main!(benches);
