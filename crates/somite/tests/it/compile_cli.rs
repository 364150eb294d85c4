//! `somite compile` and `somite export` as separate processes: the same
//! graph compiles to byte-identical packages in two projects and two runs,
//! exports are byte-identical, and a blocked graph is refused with exit 1.

use serde_json::{Value, json};
use somite_project::{Project, Seed};
use somite_workflow::transaction::{GraphTransaction, Operation};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A project with paired reads through fastp, its input files on disk.
fn project(root: &Path, with_inputs: bool) {
    if with_inputs {
        fs::create_dir_all(root.join("data")).unwrap();
        fs::write(root.join("data/R1.fastq"), b"@a\nACGT\n+\nIIII\n").unwrap();
        fs::write(root.join("data/R2.fastq"), b"@a\nTGCA\n+\nIIII\n").unwrap();
    }
    let mut project = Project::open(root, Seed::Empty).unwrap();
    let operations = vec![
        Operation::AddOperator {
            node_id: "reads".into(),
            operator_id: "files.import_paired".into(),
            params: serde_json::from_value(json!({"r1": "data/R1.fastq", "r2": "data/R2.fastq"}))
                .unwrap(),
            x: 0.0,
            y: 0.0,
        },
        Operation::AddOperator {
            node_id: "trim".into(),
            operator_id: "qc.fastp".into(),
            params: Default::default(),
            x: 200.0,
            y: 0.0,
        },
        Operation::Connect {
            edge_id: "r1".into(),
            from_node: "reads".into(),
            from_port: "r1".into(),
            to_node: "trim".into(),
            to_port: "r1".into(),
        },
        Operation::Connect {
            edge_id: "r2".into(),
            from_node: "reads".into(),
            from_port: "r2".into(),
            to_node: "trim".into(),
            to_port: "r2".into(),
        },
    ];
    project
        .apply_transaction(&GraphTransaction {
            base_state_revision: project.state_revision().clone(),
            idempotency_key: "cli-test-edit".into(),
            summary: "paired reads through fastp".into(),
            operations,
        })
        .unwrap();
}

/// Runs `somite ARGS` with a PATH that holds no Pixi, so every run is the
/// same on any machine.
fn somite(args: &[&str], path_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_somite"))
        .args(args)
        .env("PATH", path_dir)
        .output()
        .expect("somite runs")
}

fn compile_json(root: &Path, path_dir: &Path) -> Value {
    let out = somite(
        &["compile", "--project", root.to_str().unwrap(), "--json"],
        path_dir,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every file of a package directory, relative path -> bytes.
fn package_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push((
                    path.strip_prefix(dir).unwrap().to_owned(),
                    fs::read(&path).unwrap(),
                ));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn separate_processes_compile_and_export_identical_bytes() {
    let empty_path = tempfile::tempdir().unwrap();
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    project(a.path(), true);
    project(b.path(), true);

    let first = compile_json(a.path(), empty_path.path());
    let second = compile_json(b.path(), empty_path.path());
    assert_eq!(first["digest"], second["digest"]);
    assert_eq!(first["pixi"], "unavailable");
    assert_eq!(first["toolchain"][0]["id"], "toolchain:pixi");
    let dir_a = PathBuf::from(first["path"].as_str().unwrap());
    let dir_b = PathBuf::from(second["path"].as_str().unwrap());
    assert_eq!(dir_a.file_name(), dir_b.file_name());
    assert_eq!(package_files(&dir_a), package_files(&dir_b));

    let zip_a = a.path().join("one.zip");
    let zip_b = b.path().join("two.zip");
    for (root, zip) in [(a.path(), &zip_a), (a.path(), &zip_b)] {
        let out = somite(
            &[
                "export",
                zip.to_str().unwrap(),
                "--project",
                root.to_str().unwrap(),
            ],
            empty_path.path(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(fs::read(&zip_a).unwrap(), fs::read(&zip_b).unwrap());
    let zip_c = b.path().join("three.zip");
    let out = somite(
        &[
            "export",
            zip_c.to_str().unwrap(),
            "--project",
            b.path().to_str().unwrap(),
        ],
        empty_path.path(),
    );
    assert!(out.status.success());
    assert_eq!(fs::read(&zip_a).unwrap(), fs::read(&zip_c).unwrap());
}

#[test]
fn a_blocked_graph_is_refused_with_its_code() {
    let empty_path = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    project(root.path(), false);
    let out = somite(
        &[
            "compile",
            "--project",
            root.path().to_str().unwrap(),
            "--json",
        ],
        empty_path.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let error: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(error["code"], "workflow_not_ready");
    assert!(error["details"]["requirements"].as_array().unwrap().len() >= 2);

    let zip = root.path().join("out.zip");
    let out = somite(
        &[
            "export",
            zip.to_str().unwrap(),
            "--project",
            root.path().to_str().unwrap(),
        ],
        empty_path.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("workflow_not_ready"));
    assert!(!zip.exists());
}
