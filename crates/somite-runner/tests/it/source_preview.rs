//! Validate on a source workflow: nf-core/demo 1.0.1, pinned in a source
//! store, compiled and run as its frozen package's `preview` task (Nextflow
//! `-preview`, against the test stand-in) through the same supervisor,
//! launch directory and evidence receipts as a native validation.

use crate::support::*;
use serde_json::{Value, json};
use somite_project::evidence::{ItemResult, ReceiptResult};
use somite_project::source::{outline_pinned, place_transaction};
use somite_project::{Project, Seed};
use somite_runner::receipt::{PREVIEW_DOES_NOT_PROVE, PREVIEW_PROVES};
use somite_runner::{NodeState, RunPhase, RunRequest, Supervisor};
use somite_source::{PinnedSource, SourceConfig, SourceOrigin, SourceStore};
use somite_workflow::transaction::GraphTransaction;
use std::fs;
use std::path::{Path, PathBuf};

const DEMO_1_0_1: &str = "04060b4644d68649180db796e89a3db2a466a8d8";

struct SourceProject {
    test: TestProject,
    cache: tempfile::TempDir,
    tree_digest: String,
}

impl SourceProject {
    fn toolchain(&self) -> somite_runner::RunnerToolchain {
        self.test.toolchain().with_source_cache(self.cache.path())
    }
}

/// An empty project with nf-core/demo 1.0.1 placed and ready: its
/// samplesheet (a relative path) and `outdir` set.
fn ready_demo() -> SourceProject {
    let cache = tempfile::tempdir().unwrap();
    let store = SourceStore::new(SourceConfig::new(cache.path())).unwrap();
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../somite-source/tests/data/nf-core-demo-{DEMO_1_0_1}.tar.gz"
    ));
    let repository = "nf-core/demo".parse().unwrap();
    let source = store
        .import_archive(&repository, &DEMO_1_0_1.parse().unwrap(), &archive)
        .unwrap();
    let binding = outline_pinned(&PinnedSource {
        repository,
        origin: SourceOrigin::NfCore {
            pipeline: "demo".into(),
            release: "1.0.1".into(),
            published_at: "2024-11-28T00:00:00Z".into(),
        },
        source,
    })
    .unwrap();
    let tree_digest = binding.tree_digest.to_string();
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("samplesheet.csv"),
        "sample,fastq_1,fastq_2\n",
    )
    .unwrap();
    let mut project = Project::open(dir.path(), Seed::Empty).unwrap();
    let place = place_transaction(
        binding,
        project.state_revision().clone(),
        "resolve-0001".into(),
        "source".into(),
        (0.0, 0.0),
    );
    project.apply_transaction(&place).unwrap();
    let set: GraphTransaction = serde_json::from_value(json!({
        "base_state_revision": project.state_revision(),
        "idempotency_key": "params-0001",
        "summary": "parameters",
        "operations": [
            {"op": "set_param", "node_id": "source", "param": "input", "value": "samplesheet.csv"},
            {"op": "set_param", "node_id": "source", "param": "outdir", "value": "results"},
        ],
    }))
    .unwrap();
    project.apply_transaction(&set).unwrap();
    SourceProject {
        test: TestProject { dir, project },
        cache,
        tree_digest,
    }
}

fn launch_dir(test: &TestProject, run_id: &str) -> PathBuf {
    test.root().join(".somite/runs").join(run_id).join("launch")
}

#[tokio::test]
async fn validating_a_source_runs_its_preview_and_records_what_that_proves() {
    let demo = ready_demo();
    let test = &demo.test;
    let supervisor = Supervisor::open(test.root(), demo.toolchain()).unwrap();
    let (started, status) = validate(&supervisor, &test.project, "preview-key-1").await;
    assert_eq!(status.phase, RunPhase::Completed, "{status:#?}");

    // The frozen package's preview task, through the same `pixi run --frozen`.
    let runs = test.standin_runs();
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0][..3], ["run", "--frozen", "--manifest-path"]);
    assert!(runs[0][3].ends_with("/launch/pixi.toml"), "{runs:?}");
    assert_eq!(runs[0][4..], ["preview"]);

    // No fixture stands for the pipeline's samplesheet: the relative path
    // is resolved against the project folder, and disclosed.
    assert!(status.fixtures.is_empty());
    assert_eq!(status.overrides.len(), 1, "{:?}", status.overrides);
    let input = &status.overrides[0];
    assert_eq!(
        (input.scope.as_str(), input.param.as_str()),
        ("params", "input")
    );
    assert_eq!(input.packaged, json!("samplesheet.csv"));
    assert_eq!(
        input.used,
        json!(test.root().join("samplesheet.csv").display().to_string())
    );

    // No task ran: no trace row, no work folder, no output; the node was
    // not run, and says so.
    let launch = launch_dir(test, &started.run_id);
    assert!(launch.join("pipeline/main.nf").is_file());
    assert!(!launch.join("trace.tsv").exists());
    assert!(!launch.join("work").exists() && !launch.join("results").exists());
    assert_eq!(status.states["source"], NodeState::Skipped);

    let evidence = supervisor.evidence(&status.graph_revision).unwrap();
    // A preview is its own claim: the pipeline parses and its DAG
    // resolves; no task ran, so the graph is not validated.
    assert!(evidence.previewed, "{evidence:#?}");
    assert!(!evidence.validated, "{evidence:#?}");
    let receipt = &evidence.receipts[0];
    assert_eq!(Some(&receipt.digest), status.evidence_receipt.as_ref());
    assert_eq!(receipt.result, ReceiptResult::Passed);
    assert_eq!(receipt.reason, None);
    assert_eq!(receipt.exit_code, Some(0));
    assert_eq!(
        receipt.verifier.command,
        [
            "pixi",
            "run",
            "--frozen",
            "--manifest-path",
            "pixi.toml",
            "preview"
        ]
    );
    assert_eq!(receipt.closure_digest, status.closure_digest);
    assert_eq!(receipt.nodes.len(), 1);
    assert_eq!(receipt.nodes[0].node_id, "source");
    assert_eq!(receipt.nodes[0].result, ItemResult::NotRun);
    let preview = receipt.source_preview.as_ref().expect("preview evidence");
    assert_eq!(preview.repository, "nf-core/demo");
    assert_eq!(preview.commit, DEMO_1_0_1);
    assert_eq!(preview.tree_digest, demo.tree_digest);
    assert_eq!(preview.proves, PREVIEW_PROVES);
    assert_eq!(preview.does_not_prove, PREVIEW_DOES_NOT_PROVE);
    assert!(preview.does_not_prove.starts_with("no task ran"));

    // The closure it names pins the same commit and tree.
    let closure: Value =
        serde_json::from_slice(&fs::read(launch.join("run-closure.json")).unwrap()).unwrap();
    assert_eq!(closure["source"]["commit"], DEMO_1_0_1);
    assert_eq!(closure["source"]["tree_digest"], json!(demo.tree_digest));
}

#[tokio::test]
async fn a_pipeline_that_does_not_compile_fails_its_preview_with_a_failed_receipt() {
    let demo = ready_demo();
    let test = &demo.test;
    let toolchain = demo
        .toolchain()
        .with_env(somite_api::EnvVars::SOMITE_STANDIN_SCRIPT_ERROR, "1");
    let supervisor = Supervisor::open(test.root(), toolchain).unwrap();
    let (_, status) = validate(&supervisor, &test.project, "preview-key-2").await;
    assert_eq!(status.phase, RunPhase::Failed, "{status:#?}");
    assert_eq!(status.exit_code, Some(1));
    let error = status.error.as_ref().unwrap();
    assert!(
        error
            .message
            .contains("`pixi run --frozen preview` exited with code 1"),
        "{error:?}"
    );
    assert!(
        status
            .stderr_tail
            .iter()
            .any(|l| l.contains("Script compilation failed")),
        "{:?}",
        status.stderr_tail
    );
    let evidence = supervisor.evidence(&status.graph_revision).unwrap();
    assert!(!evidence.validated && !evidence.previewed);
    let receipt = &evidence.receipts[0];
    assert_eq!(receipt.result, ReceiptResult::Failed);
    assert_eq!(receipt.exit_code, Some(1));
    assert!(receipt.source_preview.is_some());
}

#[tokio::test]
async fn a_source_run_launches_with_its_samplesheet_resolved_which_the_preview_needs() {
    let demo = ready_demo();
    let test = &demo.test;
    let supervisor = Supervisor::open(test.root(), demo.toolchain()).unwrap();
    let started = supervisor
        .start_run(
            &test.project,
            &RunRequest {
                idempotency_key: "run-key-0001".into(),
                profile: None,
            },
        )
        .unwrap();
    let status = wait_for_end(&supervisor, &started.run_id).await;
    let launch = launch_dir(test, &started.run_id);
    let params: Value =
        serde_json::from_slice(&fs::read(launch.join("params.json")).unwrap()).unwrap();
    let resolved = test.root().join("samplesheet.csv").display().to_string();
    assert_eq!(params["input"], json!(resolved), "{status:#?}");
    assert_eq!(params["outdir"], "results");
    assert_eq!(status.overrides.len(), 1);

    // The stand-in's preview checks `exists: true` parameters from the
    // launch folder the way nf-schema does: the packaged relative path
    // fails there, the resolved one passes.
    let preview = |input: &str| {
        fs::write(
            launch.join("params.json"),
            json!({"input": input, "outdir": "results"}).to_string(),
        )
        .unwrap();
        std::process::Command::new(standin())
            .args(["run", "--frozen", "--manifest-path"])
            .arg(launch.join("pixi.toml"))
            .arg("preview")
            .output()
            .unwrap()
    };
    let unresolved = preview("samplesheet.csv");
    assert_eq!(unresolved.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&unresolved.stderr)
            .contains("* --input (samplesheet.csv): the file or directory"),
        "{unresolved:?}"
    );
    assert!(preview(&resolved).status.success());
}

#[tokio::test]
async fn a_native_validation_still_runs_its_fixtures_not_a_preview() {
    let test = single_end_qc();
    let supervisor = Supervisor::open(test.root(), test.toolchain()).unwrap();
    let (_, status) = validate(&supervisor, &test.project, "native-key-1").await;
    assert_eq!(status.phase, RunPhase::Completed, "{status:#?}");
    assert_eq!(test.standin_runs()[0][4..], ["run", "local"]);
    let evidence = supervisor.evidence(&status.graph_revision).unwrap();
    assert!(evidence.receipts[0].source_preview.is_none());
}
