//! A small real project for the compile, attach and export tests: paired
//! reads (files on disk) through fastp and FastQC, built with a transaction
//! like any edit.

#![allow(dead_code)]

use somite_project::compiled::{self, CompileOutcome, Toolchain};
use somite_project::{Project, Seed};
use somite_workflow::transaction::{GraphTransaction, Operation};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

pub struct Fixture {
    pub dir: TempDir,
    pub project: Project,
}

impl Fixture {
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn compile(&self) -> CompileOutcome {
        compiled::compile(&self.project, &Toolchain::without_pixi()).expect("the project compiles")
    }
}

/// A project at a fresh temporary folder whose graph is ready to compile.
pub fn ready_project() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    write_inputs(dir.path());
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    apply(&mut project, somite_test_support::paired_qc_operations());
    Fixture { dir, project }
}

pub fn write_inputs(root: &Path) {
    fs::create_dir_all(root.join("data")).unwrap();
    fs::write(root.join("data/R1.fastq"), b"@r1\nACGT\n+\nIIII\n").unwrap();
    fs::write(root.join("data/R2.fastq"), b"@r2\nTGCA\n+\nIIII\n").unwrap();
}

pub fn apply(project: &mut Project, operations: Vec<Operation>) {
    let txn = GraphTransaction {
        base_state_revision: project.state_revision().clone(),
        idempotency_key: format!(
            "test-edit-{}",
            project.state_revision().len() + operations.len()
        ),
        summary: "test edit".into(),
        operations,
    };
    project.apply_transaction(&txn).expect("the edit applies");
}

/// A stand-in `pixi` that writes a v7 lock and one conda spec per
/// environment, or fails with a message when `fail` is set.
pub fn fake_pixi(dir: &Path, fail: bool) -> PathBuf {
    let path = dir.join("pixi");
    let body = if fail {
        "#!/bin/sh\necho 'error: could not reach conda-forge' >&2\nexit 3\n".to_owned()
    } else {
        r#"#!/bin/sh
set -eu
case "$1" in
lock)
    manifest="$3"
    printf 'version: 7\nenvironments: {}\n' > "$(dirname "$manifest")/pixi.lock"
    ;;
workspace)
    out="$4"
    shift 4
    mkdir -p "$out"
    platform=""
    envs=""
    while [ $# -gt 0 ]; do
        case "$1" in
        --environment) envs="$envs $2"; shift 2 ;;
        --platform) platform="$2"; shift 2 ;;
        *) shift ;;
        esac
    done
    for env in $envs; do
        printf '@EXPLICIT\n' > "$out/${env}_${platform}_conda_spec.txt"
    done
    ;;
*) exit 2 ;;
esac
"#
        .to_owned()
    };
    fs::write(&path, body).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Names of the entries of `dir`, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match fs::read_dir(dir) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}
