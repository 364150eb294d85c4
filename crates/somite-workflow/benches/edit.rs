//! One edit's CPU on a 2,000-node graph (1,000 `files.import` → `qc.fastqc`
//! pairs, an edge each): cloning the document, validating it, applying 64
//! `set_param` operations (clone, operations and validation), the next
//! state's canonical JSON and its graph revision, written whole and from
//! the current state's (reusing what the edit left alone). Each median is printed
//! on its own line (goals: apply ≤ 0.3 ms, canonical JSON ≤ 0.2 ms, graph
//! revision ≤ 0.15 ms).

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use somite_workflow::Catalog;
use somite_workflow::canonical_state::CanonicalState;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::transaction::{Operation, apply_operations, apply_operations_in_id_order};
use std::hint::black_box;
use std::time::Duration;
use support::median_ms;

/// 1,000 read imports each feeding one FastQC node: 2,000 nodes, 1,000 edges.
fn pairs_graph(catalog: &Catalog) -> WorkflowDocument {
    let mut operations = Vec::new();
    for i in 0..1000 {
        operations.push(Operation::AddOperator {
            node_id: format!("reads{i}"),
            operator_id: "files.import".into(),
            params: serde_json::from_value(json!({"path": format!("r{i}.fastq")})).unwrap(),
            x: i as f64,
            y: 0.0,
        });
        operations.push(Operation::AddOperator {
            node_id: format!("qc{i}"),
            operator_id: "qc.fastqc".into(),
            params: Default::default(),
            x: i as f64,
            y: 200.0,
        });
        operations.push(Operation::Connect {
            edge_id: format!("e{i}"),
            from_node: format!("reads{i}"),
            from_port: "file".into(),
            to_node: format!("qc{i}"),
            to_port: "reads".into(),
        });
    }
    let doc = apply_operations(&WorkflowDocument::empty("Bench"), catalog, &operations)
        .expect("the bench graph is valid");
    assert_eq!(doc.nodes.len(), 2000);
    doc
}

/// 64 `set_param` operations, varied by `round`.
fn set_params(round: u64) -> Vec<Operation> {
    (0..64)
        .map(|i| Operation::SetParam {
            node_id: format!("qc{}", i * 15),
            param: "threads".into(),
            value: json!(1 + (round + i) % 4),
        })
        .collect()
}

fn edit_two_thousand_nodes(c: &mut Criterion) {
    let catalog = Catalog::builtin().unwrap();
    let doc = pairs_graph(&catalog);
    let operations = set_params(1);
    c.bench_function("apply 64 set_param operations to 2,000 nodes", |b| {
        b.iter(|| apply_operations(black_box(&doc), &catalog, &operations).unwrap())
    });
    let next = apply_operations(&doc, &catalog, &operations).unwrap();
    let current = CanonicalState::of(&doc);
    c.bench_function(
        "apply 64 set_param operations to 2,000 nodes, found by their id order",
        |b| {
            b.iter(|| {
                apply_operations_in_id_order(
                    black_box(&doc),
                    current.nodes_by_id(),
                    &catalog,
                    &operations,
                )
                .unwrap()
            })
        },
    );
    c.bench_function(
        "canonical JSON of the next state, from the current one's",
        |b| b.iter(|| current.next(black_box(&next))),
    );
    c.bench_function(
        "canonical JSON and graph revision of the next state, from the current one's",
        |b| b.iter(|| current.next(black_box(&next)).graph_revision().clone()),
    );

    let mut clones = Vec::with_capacity(31);
    println!(
        "median clone of a 2,000-node document: {:.3} ms",
        median_ms(|| clones.push(doc.clone()))
    );
    println!(
        "median drop of a 2,000-node document: {:.3} ms",
        median_ms(|| drop(clones.pop()))
    );
    println!(
        "median full validation of a 2,000-node document: {:.3} ms",
        median_ms(|| doc.validate().unwrap())
    );
    println!(
        "median 64 set_param operations on 2,000 nodes (clone, apply, validate): {:.3} ms (goal 0.3 ms)",
        median_ms(|| apply_operations(&doc, &catalog, &operations).unwrap())
    );
    println!(
        "median canonical JSON of the next state ({} bytes), written whole: {:.3} ms",
        next.canonical_json().len(),
        median_ms(|| next.canonical_json())
    );
    println!(
        "median graph revision of the next state, written whole: {:.3} ms",
        median_ms(|| next.graph_revision())
    );
    println!(
        "median canonical JSON and graph revision of the next state from the current one's: {:.3} ms (goal 0.2 + 0.15 ms)",
        median_ms(|| {
            let state = current.next(&next);
            state.graph_revision();
            state
        })
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3));
    targets = edit_two_thousand_nodes
}
criterion_main!(benches);
