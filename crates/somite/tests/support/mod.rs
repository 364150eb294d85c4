//! What several of `somite`'s integration tests share: the binaries built
//! beside `somite`, the ready paired-reads graph, and the Pixi stand-in
//! behind a wrapper. Each test crate uses its own part of it.
#![allow(dead_code)]

use serde_json::json;
use std::path::{Path, PathBuf};

/// A binary the workspace build puts beside `somite`.
pub fn sibling(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_somite")).with_file_name(name);
    assert!(
        path.is_file(),
        "{} is missing: build the workspace (`cargo build --workspace`; the workspace test run builds it)",
        path.display()
    );
    path
}

/// Paired reads through fastp with the read files on disk: ready to
/// compile, run and validate.
pub fn ready_project(root: &Path) {
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::write(root.join("data/R1.fastq"), b"@a\nACGT\n+\nIIII\n").unwrap();
    std::fs::write(root.join("data/R2.fastq"), b"@a\nTGCA\n+\nIIII\n").unwrap();
    let mut project = somite_project::Project::open(root, somite_project::Seed::Empty).unwrap();
    let txn = serde_json::from_value(json!({
        "base_state_revision": project.state_revision(),
        "idempotency_key": "ready-graph-1",
        "summary": "paired reads through fastp",
        "operations": [
            {"op": "add_operator", "node_id": "reads", "operator_id": "files.import_paired",
             "params": {"r1": "data/R1.fastq", "r2": "data/R2.fastq"}, "x": 0, "y": 0},
            {"op": "add_operator", "node_id": "trim", "operator_id": "qc.fastp", "params": {}, "x": 200, "y": 0},
            {"op": "connect", "edge_id": "r1", "from_node": "reads", "from_port": "r1", "to_node": "trim", "to_port": "r1"},
            {"op": "connect", "edge_id": "r2", "from_node": "reads", "from_port": "r2", "to_node": "trim", "to_port": "r2"}
        ]
    }))
    .unwrap();
    project.apply_transaction(&txn).unwrap();
}

/// A `pixi` in `dir` that runs `somite-pixi-standin`, a STAND-IN for Pixi
/// and Nextflow (neither can be installed here), with `settings` (e.g.
/// `SOMITE_STANDIN_HANG=1`): the runner gives Pixi a cleared environment,
/// so the stand-in's settings cannot come from ours.
pub fn standin_pixi(dir: &Path, settings: &str) -> PathBuf {
    let wrapper = dir.join("pixi");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n{settings} exec '{}' \"$@\"\n",
            sibling("somite-pixi-standin").display()
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&wrapper).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&wrapper, permissions).unwrap();
    wrapper
}
