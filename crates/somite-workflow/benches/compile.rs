//! Compiling a 1,000-node graph and assessing the readiness of a 2,000-node
//! one: paired-end QC lanes (import, fastp, FastQC on each trimmed mate,
//! MultiQC), built from the shipped catalog. Criterion measures each; the
//! median of a separate timed series is printed on its own line for the
//! record (the goals: compile ≤ 50 ms, readiness ≤ 5 ms).

mod support;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use somite_workflow::Catalog;
use somite_workflow::assessment::{assess, assess_at};
use somite_workflow::compile::compile;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::transaction::{Operation, apply_operations};
use std::hint::black_box;
use std::time::Duration;
use support::median_ms;

/// `lanes` QC lanes of five nodes each.
fn lanes_graph(catalog: &Catalog, lanes: usize) -> WorkflowDocument {
    let mut operations = Vec::new();
    let add = |id: String, operator: &str, params: serde_json::Value| Operation::AddOperator {
        node_id: id,
        operator_id: operator.into(),
        params: serde_json::from_value(params).unwrap(),
        x: 0.0,
        y: 0.0,
    };
    let connect = |from: (&str, &str), to: (&str, &str)| Operation::Connect {
        edge_id: format!("{}.{}-{}.{}", from.0, from.1, to.0, to.1),
        from_node: from.0.into(),
        from_port: from.1.into(),
        to_node: to.0.into(),
        to_port: to.1.into(),
    };
    for lane in 0..lanes {
        let [reads, trim, qc1, qc2, report] =
            ["reads", "trim", "qc1", "qc2", "report"].map(|n| format!("{n}-{lane:03}"));
        operations.push(add(
            reads.clone(),
            "files.import_paired",
            json!({"r1": format!("data/{lane}_R1.fastq"), "r2": format!("data/{lane}_R2.fastq")}),
        ));
        operations.push(add(trim.clone(), "qc.fastp", json!({})));
        operations.push(add(qc1.clone(), "qc.fastqc", json!({})));
        operations.push(add(qc2.clone(), "qc.fastqc", json!({})));
        operations.push(add(report.clone(), "qc.multiqc", json!({})));
        operations.push(connect((&reads, "r1"), (&trim, "r1")));
        operations.push(connect((&reads, "r2"), (&trim, "r2")));
        operations.push(connect((&trim, "trimmed_r1"), (&qc1, "reads")));
        operations.push(connect((&trim, "trimmed_r2"), (&qc2, "reads")));
        operations.push(connect((&trim, "report_json"), (&report, "report_1")));
        operations.push(connect((&qc1, "report_zip"), (&report, "report_2")));
        operations.push(connect((&qc2, "report_zip"), (&report, "report_3")));
    }
    let doc = apply_operations(&WorkflowDocument::empty("Bench"), catalog, &operations)
        .expect("the bench graph is valid");
    assert_eq!(doc.nodes.len(), lanes * 5);
    doc
}

fn compile_thousand_nodes(c: &mut Criterion) {
    let catalog = Catalog::builtin().unwrap();
    let doc = lanes_graph(&catalog, 200);
    let assessment = assess(&doc, &catalog, &|_: &str| true);
    c.bench_function("compile 1,000-node graph", |b| {
        b.iter(|| compile(black_box(&doc), &catalog, &assessment).unwrap())
    });

    println!(
        "median compile of a 1,000-node graph: {:.2} ms (31 runs; goal 50 ms)",
        median_ms(|| compile(&doc, &catalog, &assessment).unwrap())
    );
}

fn readiness_two_thousand_nodes(c: &mut Criterion) {
    let catalog = Catalog::builtin().unwrap();
    let doc = lanes_graph(&catalog, 400);
    let probe = |_: &str| true;
    c.bench_function("readiness of a 2,000-node graph", |b| {
        b.iter(|| assess(black_box(&doc), &catalog, &probe))
    });
    println!(
        "median readiness of a 2,000-node graph: {:.2} ms (31 runs; goal 5 ms)",
        median_ms(|| assess(&doc, &catalog, &probe))
    );
    // The runtime keeps each published state's graph revision, so its
    // readiness does not compute it again.
    let revision = doc.graph_revision();
    println!(
        "median readiness of a 2,000-node graph, its revision kept: {:.2} ms (31 runs; goal 5 ms)",
        median_ms(|| assess_at(&doc, revision.clone(), &catalog, &probe))
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(8));
    targets = compile_thousand_nodes, readiness_two_thousand_nodes
}
criterion_main!(benches);
