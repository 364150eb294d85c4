//! What the MCP benches share: the graph they read, built the same way for
//! each, so their figures describe the same workflow.

use serde_json::json;
use somite_project::{Project, Seed};
use std::path::Path;

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
