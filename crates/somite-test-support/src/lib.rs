//! What the integration tests of several Somite crates share: small real
//! projects, built through graph transactions like any edit, with their
//! input files on disk.
//!
//! One copy of each fixture graph, so a change to an operator contract is
//! followed in one place; each crate keeps the helpers only it needs (its
//! stand-ins, its waiting loops). This crate is a dev-dependency only.

pub mod pixi_manifest;
mod skip;

pub use skip::skipped;

use serde_json::{Value, json};
use somite_project::{Project, Seed, TransactionOutcome};
use somite_workflow::transaction::{GraphTransaction, Operation};
use std::fs;
use std::path::Path;

/// Adds a node of `operator_id` at the origin.
pub fn add(node_id: &str, operator_id: &str, params: Value) -> Operation {
    add_at(node_id, operator_id, params, 0.0, 0.0)
}

/// Adds a node of `operator_id` at `(x, y)`.
pub fn add_at(node_id: &str, operator_id: &str, params: Value, x: f64, y: f64) -> Operation {
    Operation::AddOperator {
        node_id: node_id.into(),
        operator_id: operator_id.into(),
        params: serde_json::from_value(params).expect("parameters are an object"),
        x,
        y,
    }
}

/// Connects `from` (node, port) to `to` (node, port).
pub fn connect(edge_id: &str, from: (&str, &str), to: (&str, &str)) -> Operation {
    Operation::Connect {
        edge_id: edge_id.into(),
        from_node: from.0.into(),
        from_port: from.1.into(),
        to_node: to.0.into(),
        to_port: to.1.into(),
    }
}

/// Applies `operations` to the project's current state as one transaction.
pub fn apply(
    project: &mut Project,
    idempotency_key: &str,
    summary: &str,
    operations: Vec<Operation>,
) -> TransactionOutcome {
    let txn = GraphTransaction {
        base_state_revision: project.state_revision().clone(),
        idempotency_key: idempotency_key.into(),
        summary: summary.into(),
        operations,
    };
    project.apply_transaction(&txn).expect("the edit applies")
}

/// Writes `files` (paths relative to `root`), creating their folders.
pub fn write_files(root: &Path, files: &[(&str, &[u8])]) {
    for (path, bytes) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().expect("a file has a folder")).expect("create the folder");
        fs::write(path, bytes).expect("write the file");
    }
}

/// Paired reads (`data/R1.fastq`, `data/R2.fastq`) through fastp, and R1
/// through FastQC.
pub fn paired_qc_operations() -> Vec<Operation> {
    vec![
        add(
            "reads",
            "files.import_paired",
            json!({"r1": "data/R1.fastq", "r2": "data/R2.fastq"}),
        ),
        add("trim", "qc.fastp", json!({})),
        add("fastqc", "qc.fastqc", json!({})),
        connect("e1", ("reads", "r1"), ("trim", "r1")),
        connect("e2", ("reads", "r2"), ("trim", "r2")),
        connect("e3", ("reads", "r1"), ("fastqc", "reads")),
    ]
}

/// A project at `root` whose graph is paired reads through fastp, with the
/// read files on disk: ready to compile, run and validate.
pub fn ready_paired_reads(root: &Path) {
    write_files(
        root,
        &[
            ("data/R1.fastq", b"@a\nACGT\n+\nIIII\n"),
            ("data/R2.fastq", b"@a\nTGCA\n+\nIIII\n"),
        ],
    );
    let mut project = Project::open(root, Seed::Empty).expect("the project opens");
    apply(
        &mut project,
        "ready-graph-1",
        "paired reads through fastp",
        vec![
            add_at(
                "reads",
                "files.import_paired",
                json!({"r1": "data/R1.fastq", "r2": "data/R2.fastq"}),
                0.0,
                0.0,
            ),
            add_at("trim", "qc.fastp", json!({}), 200.0, 0.0),
            connect("r1", ("reads", "r1"), ("trim", "r1")),
            connect("r2", ("reads", "r2"), ("trim", "r2")),
        ],
    );
}

/// Pairs per transaction: 4 operations each, 64 per transaction (the limit).
const PAIRS_PER_TRANSACTION: usize = 16;

/// A project whose graph has `2 * pairs` nodes (paired-read imports, each
/// feeding a fastp node over two edges), built through the project's own
/// transactions.
pub fn project_with_pairs(root: &Path, pairs: usize) -> Project {
    let mut project = Project::open(root, Seed::Empty).expect("project");
    for (batch, chunk) in (0..pairs)
        .collect::<Vec<_>>()
        .chunks(PAIRS_PER_TRANSACTION)
        .enumerate()
    {
        let mut operations = Vec::new();
        for &i in chunk {
            let (x, y) = ((i % 25) as f64 * 400.0, (i / 25) as f64 * 150.0);
            operations.extend([
                json!({"op": "add_operator", "node_id": format!("reads_{i}"),
                       "operator_id": "files.import_paired",
                       "params": {"r1": format!("data/s{i}_R1.fastq"), "r2": format!("data/s{i}_R2.fastq")},
                       "x": x, "y": y}),
                json!({"op": "add_operator", "node_id": format!("trim_{i}"),
                       "operator_id": "qc.fastp", "params": {}, "x": x + 200.0, "y": y}),
                json!({"op": "connect", "edge_id": format!("r1_{i}"), "from_node": format!("reads_{i}"),
                       "from_port": "r1", "to_node": format!("trim_{i}"), "to_port": "r1"}),
                json!({"op": "connect", "edge_id": format!("r2_{i}"), "from_node": format!("reads_{i}"),
                       "from_port": "r2", "to_node": format!("trim_{i}"), "to_port": "r2"}),
            ]);
        }
        let transaction = serde_json::from_value(json!({
            "base_state_revision": project.state_revision(),
            "idempotency_key": format!("bench-graph-{batch:04}"),
            "summary": format!("bench batch {batch}"),
            "operations": operations,
        }))
        .expect("transaction");
        project.apply_transaction(&transaction).expect("apply");
    }
    project
}
