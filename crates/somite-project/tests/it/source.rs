//! Source workflows in the project: nf-core/demo placed on an empty canvas
//! in one transaction (replay, stale base, non-empty canvas), its schema's
//! parameters typed, its readiness, and its compiled package.

use serde_json::{Value, json};
use somite_project::compiled::{self, Toolchain};
use somite_project::source::{outline_pinned, place_transaction};
use somite_project::{Project, Seed};
use somite_source::{PinnedSource, Repository, SourceConfig, SourceOrigin, SourceStore};
use somite_workflow::ErrorCode;
use somite_workflow::assessment::{AssessmentState, ItemKind};
use somite_workflow::source::SourceBinding;
use somite_workflow::transaction::GraphTransaction;
use std::path::{Path, PathBuf};

const DEMO_1_0_1: &str = "04060b4644d68649180db796e89a3db2a466a8d8";

fn fixture(commit: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../somite-source/tests/data")
        .join(format!("nf-core-{name}-{commit}.tar.gz"))
}

struct Fixture {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    cache: PathBuf,
    project: Project,
    store: SourceStore,
    binding: SourceBinding,
}

/// An empty project and nf-core/demo 1.0.1 in a fresh source store.
fn demo() -> Fixture {
    let project_dir = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let store = SourceStore::new(SourceConfig::new(cache_dir.path())).unwrap();
    let repository: Repository = "nf-core/demo".parse().unwrap();
    let commit = DEMO_1_0_1.parse().unwrap();
    let source = store
        .import_archive(&repository, &commit, &fixture(DEMO_1_0_1, "demo"))
        .unwrap();
    let pinned = PinnedSource {
        repository,
        origin: SourceOrigin::NfCore {
            pipeline: "demo".into(),
            release: "1.0.1".into(),
            published_at: "2024-11-28T00:00:00Z".into(),
        },
        source,
    };
    let binding = outline_pinned(&pinned).unwrap();
    Fixture {
        cache: cache_dir.path().to_path_buf(),
        project: Project::open(project_dir.path(), Seed::Empty).unwrap(),
        store,
        binding,
        _dirs: (project_dir, cache_dir),
    }
}

fn place(f: &mut Fixture, key: &str) -> Result<somite_project::TransactionOutcome, ErrorCode> {
    let txn = place_transaction(
        f.binding.clone(),
        f.project.state_revision().clone(),
        key.into(),
        "source".into(),
        (0.0, 0.0),
    );
    f.project.apply_transaction(&txn).map_err(|e| e.code)
}

fn edit(f: &mut Fixture, key: &str, operations: Value) -> Result<(), ErrorCode> {
    let txn: GraphTransaction = serde_json::from_value(json!({
        "base_state_revision": f.project.state_revision(),
        "idempotency_key": key,
        "summary": "edit",
        "operations": operations,
    }))
    .unwrap();
    f.project
        .apply_transaction(&txn)
        .map(|_| ())
        .map_err(|e| e.code)
}

#[test]
fn the_binding_pins_the_release_and_types_the_schema() {
    let f = demo();
    let b = &f.binding;
    assert_eq!(b.repository, "nf-core/demo");
    assert_eq!(b.release.as_deref(), Some("1.0.1"));
    assert_eq!(b.commit, DEMO_1_0_1);
    assert!(b.tree_digest.starts_with("blake3:"));
    let input = b.param("input").unwrap();
    assert!(input.required && input.exists);
    assert_eq!(input.format.as_deref(), Some("file-path"));
    assert!(b.param("outdir").unwrap().required);
    let names: Vec<&str> = b.processes.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"FASTQC"), "{names:?}");
    assert!(b.processes.iter().all(|p| p.environment.is_some()));
}

#[test]
fn placing_is_one_transaction_with_cas_and_replay() {
    let mut f = demo();
    let empty = f.project.state_revision().clone();
    let placed = place(&mut f, "resolve-0001").unwrap();
    assert!(!placed.replayed);
    assert_eq!(placed.operations, 1);
    let node = f.project.document().node("source").unwrap();
    assert_eq!(node.operator_id, "workflow.source");
    assert_eq!(node.source().unwrap(), &f.binding);

    // The same key and content replays the original outcome.
    let replay = place_transaction(
        f.binding.clone(),
        empty.clone(),
        "resolve-0001".into(),
        "source".into(),
        (0.0, 0.0),
    );
    let again = f.project.apply_transaction(&replay).unwrap();
    assert!(again.replayed);
    assert_eq!(again.state_revision, placed.state_revision);
    // A stale base is refused; a fresh base on a non-empty canvas too.
    let stale = place_transaction(
        f.binding.clone(),
        empty,
        "resolve-0002".into(),
        "source2".into(),
        (0.0, 0.0),
    );
    assert_eq!(
        f.project.apply_transaction(&stale).unwrap_err().code,
        ErrorCode::StaleRevision
    );
    assert_eq!(
        place(&mut f, "resolve-0003"),
        Err(ErrorCode::CanvasNotEmpty)
    );
    assert_eq!(f.project.document().nodes.len(), 1);
}

#[test]
fn a_client_cannot_send_place_source_nor_mix_native_nodes_in() {
    let mut f = demo();
    let forged = json!({
        "base_state_revision": f.project.state_revision(),
        "idempotency_key": "forged-0001",
        "summary": "forge",
        "operations": [{"op": "place_source", "node_id": "s",
                        "source": serde_json::to_value(&f.binding).unwrap(), "x": 0, "y": 0}],
    });
    assert!(GraphTransaction::from_json(forged.to_string().as_bytes()).is_err());
    place(&mut f, "resolve-0001").unwrap();
    assert_eq!(
        edit(
            &mut f,
            "native-0001",
            json!([{"op": "add_operator", "node_id": "reads", "operator_id": "files.import", "x": 0, "y": 0}])
        ),
        Err(ErrorCode::InvalidTransaction)
    );
}

#[test]
fn parameters_are_typed_and_readiness_reports_them_like_native_nodes() {
    let mut f = demo();
    place(&mut f, "resolve-0001").unwrap();
    let assessment = f.project.assess_graph();
    assert_eq!(assessment.state, AssessmentState::NeedsAction);
    let ids: Vec<&str> = assessment.items.iter().map(|i| i.id.as_str()).collect();
    assert!(ids.contains(&"input:source:input"), "{ids:?}");
    assert!(ids.contains(&"input:source:outdir"), "{ids:?}");
    let input = assessment
        .items
        .iter()
        .find(|i| i.id == "input:source:input")
        .unwrap();
    assert_eq!(input.kind, ItemKind::Input);
    assert!(input.required);

    let set = |name: &str, value: Value| json!([{"op": "set_param", "node_id": "source", "param": name, "value": value}]);
    assert_eq!(
        edit(&mut f, "param-0001", set("input", json!(3))),
        Err(ErrorCode::InvalidParamType)
    );
    assert_eq!(
        edit(&mut f, "param-0002", set("input", json!("samples.tsv"))),
        Err(ErrorCode::ParamOutOfRange)
    );
    assert_eq!(
        edit(&mut f, "param-0003", set("nonsense", json!("x"))),
        Err(ErrorCode::UnknownParam)
    );
    edit(&mut f, "param-0004", set("input", json!("samplesheet.csv"))).unwrap();
    edit(&mut f, "param-0005", set("outdir", json!("results"))).unwrap();
    // The samplesheet does not exist yet: still an input item, now "not found".
    let assessment = f.project.assess_graph();
    let item = assessment
        .items
        .iter()
        .find(|i| i.id == "input:source:input")
        .unwrap();
    assert!(!item.evidence.file.as_ref().unwrap().found);
    std::fs::write(
        f.project.layout().root().join("samplesheet.csv"),
        "sample,fastq_1,fastq_2\n",
    )
    .unwrap();
    let assessment = f.project.assess_graph();
    assert_eq!(
        assessment.state,
        AssessmentState::Ready,
        "{:?}",
        assessment.items
    );
}

fn ready(f: &mut Fixture) {
    place(f, "resolve-0001").unwrap();
    let set = |name: &str, value: &str| json!({"op": "set_param", "node_id": "source", "param": name, "value": value});
    edit(
        f,
        "param-0001",
        json!([set("input", "samplesheet.csv"), set("outdir", "results")]),
    )
    .unwrap();
    std::fs::write(
        f.project.layout().root().join("samplesheet.csv"),
        "sample,fastq_1,fastq_2\n",
    )
    .unwrap();
}

#[test]
fn compile_freezes_the_verified_tree_with_one_environment_per_process_environment() {
    let mut f = demo();
    ready(&mut f);
    let toolchain = Toolchain::without_pixi().with_source_cache(&f.cache);
    let outcome = compiled::compile(&f.project, &toolchain).unwrap();
    let package = &outcome.package;
    let closure = package.run_closure();
    let source = closure.source.as_ref().unwrap();
    assert_eq!(source.commit, DEMO_1_0_1);
    assert_eq!(source.tree_digest, f.binding.tree_digest);
    assert!(package.file("pipeline/main.nf").is_some());
    assert!(package.file("pipeline/nextflow_schema.json").is_some());
    let text = |path: &str| String::from_utf8(package.file(path).unwrap().bytes.clone()).unwrap();
    let pixi = text("pixi.toml");
    let parsed: toml::Value = toml::from_str(&pixi).unwrap();
    assert_eq!(
        parsed["dependencies"]["nextflow"].as_str(),
        Some("==26.04.6")
    );
    let environments = parsed["environments"].as_table().unwrap();
    let distinct: std::collections::BTreeSet<&str> = f
        .binding
        .processes
        .iter()
        .filter_map(|p| p.environment.as_deref())
        .collect();
    assert_eq!(environments.len(), distinct.len());
    let config = text("somite.config");
    assert!(config.contains("withName: 'FASTQC'"));
    assert!(config.contains("pixi shell-hook --frozen"));
    assert!(config.contains("docker.enabled = false") && config.contains("wave.enabled = false"));
    assert_eq!(
        text("params.json").trim(),
        r#"{
  "input": "samplesheet.csv",
  "outdir": "results"
}"#
    );
    let files: Vec<&str> = package
        .files()
        .map(|f| f.path.as_str())
        .filter(|p| !p.starts_with("pipeline/"))
        .collect();
    insta::assert_snapshot!("demo_pixi_toml", pixi);
    insta::assert_snapshot!("demo_somite_config", config);
    insta::assert_debug_snapshot!("demo_package_files", files);
}

#[test]
fn a_tampered_store_is_refused_at_compile() {
    let mut f = demo();
    ready(&mut f);
    let commit = DEMO_1_0_1.parse().unwrap();
    let tree = f.store.open(&commit, None).unwrap().path().to_path_buf();
    std::fs::write(tree.join("main.nf"), "workflow { evil() }\n").unwrap();
    let toolchain = Toolchain::without_pixi().with_source_cache(&f.cache);
    let err = compiled::compile(&f.project, &toolchain).unwrap_err();
    assert_eq!(err.details.unwrap()["source_code"], "source_tampered");
    assert!(
        f.project
            .layout()
            .compiled()
            .read_dir()
            .map_or(true, |mut d| d.next().is_none())
    );
}
