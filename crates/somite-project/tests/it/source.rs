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

pub(crate) struct Fixture {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    pub(crate) cache: PathBuf,
    pub(crate) project: Project,
    store: SourceStore,
    pub(crate) binding: SourceBinding,
}

/// An empty project and nf-core/demo 1.0.1 in a fresh source store.
pub(crate) fn demo() -> Fixture {
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
    f.project.apply_transaction(&txn).map_err(|e| e.code)?;
    // The state's canonical forms, built from the previous state's for
    // what the edit left alone, are those of its definition: the source
    // node, its replacements and a variant's origin included.
    let snapshot = f.project.snapshot();
    let document = snapshot.document();
    assert_eq!(
        &snapshot.json()[..],
        somite_workflow::canonical::to_canonical_json(document).as_bytes()
    );
    assert_eq!(snapshot.graph_revision(), &document.graph_revision());
    Ok(())
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
        Err(ErrorCode::ParamPatternMismatch)
    );
    assert_eq!(
        edit(&mut f, "param-0003", set("nonsense", json!("x"))),
        Err(ErrorCode::UnknownParam)
    );
    // The schema says `exists: true`: a path with nothing there is refused.
    assert_eq!(
        edit(&mut f, "param-0004", set("input", json!("samplesheet.csv"))),
        Err(ErrorCode::ParamPathNotFound)
    );
    let sheet = f.project.layout().root().join("samplesheet.csv");
    std::fs::write(&sheet, "sample,fastq_1,fastq_2\n").unwrap();
    edit(&mut f, "param-0004", set("input", json!("samplesheet.csv"))).unwrap();
    edit(&mut f, "param-0005", set("outdir", json!("results"))).unwrap();
    // A samplesheet removed after it was chosen: an input item, "not found".
    std::fs::remove_file(&sheet).unwrap();
    let assessment = f.project.assess_graph();
    let item = assessment
        .items
        .iter()
        .find(|i| i.id == "input:source:input")
        .unwrap();
    assert!(!item.evidence.file.as_ref().unwrap().found);
    std::fs::write(&sheet, "sample,fastq_1,fastq_2\n").unwrap();
    let assessment = f.project.assess_graph();
    assert_eq!(
        assessment.state,
        AssessmentState::Ready,
        "{:?}",
        assessment.items
    );
}

pub(crate) fn ready(f: &mut Fixture) {
    place(f, "resolve-0001").unwrap();
    std::fs::write(
        f.project.layout().root().join("samplesheet.csv"),
        "sample,fastq_1,fastq_2\n",
    )
    .unwrap();
    let set = |name: &str, value: &str| json!({"op": "set_param", "node_id": "source", "param": name, "value": value});
    edit(
        f,
        "param-0001",
        json!([set("input", "samplesheet.csv"), set("outdir", "results")]),
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

const FASTQC: &str = "NFCORE_DEMO:DEMO:FASTQC";
const SEQTK: &str = "NFCORE_DEMO:DEMO:SEQTK_TRIM";
const MULTIQC: &str = "NFCORE_DEMO:DEMO:MULTIQC";

fn edit_err(f: &mut Fixture, key: &str, operations: Value) -> somite_workflow::SomiteError {
    let txn: GraphTransaction = serde_json::from_value(json!({
        "base_state_revision": f.project.state_revision(),
        "idempotency_key": key,
        "summary": "edit",
        "operations": operations,
    }))
    .unwrap();
    f.project.apply_transaction(&txn).unwrap_err()
}

fn replace(invocation: &str, operator: &str) -> Value {
    json!([{"op": "replace_invocation", "node_id": "source", "invocation": invocation, "operator_id": operator}])
}

#[test]
fn invocations_are_fully_qualified_with_ports_typed_from_the_modules() {
    let f = demo();
    let ids: Vec<&str> = f
        .binding
        .invocations
        .iter()
        .map(|i| i.id.as_str())
        .collect();
    assert_eq!(ids, [FASTQC, SEQTK, MULTIQC], "{ids:?}");
    let fastqc = f.binding.invocation(FASTQC).unwrap();
    assert_eq!(fastqc.workflow.as_deref(), Some("DEMO"));
    assert_eq!(fastqc.file, "modules/nf-core/fastqc/main.nf");
    let ty = |ports: &[somite_workflow::source::InvocationPort], name: &str| {
        ports
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("no port {name} in {ports:?}"))
            .ty
            .map(|t| t.name())
    };
    // `val(meta)` is not a port; `reads` is typed from meta.yml's description.
    assert_eq!(fastqc.inputs.len(), 1);
    assert_eq!(ty(&fastqc.inputs, "reads"), Some("Fastq"));
    assert_eq!(ty(&fastqc.outputs, "html"), Some("Html"));
    assert_eq!(ty(&fastqc.outputs, "zip"), Some("Zip"));
    assert_eq!(ty(&fastqc.outputs, "versions"), None);
    let seqtk = f.binding.invocation(SEQTK).unwrap();
    assert_eq!(ty(&seqtk.inputs, "reads"), Some("FastqGz"));
    // MultiQC's collected reports flow from FastQC's zip output.
    let multiqc = f.binding.invocation(MULTIQC).unwrap();
    let files = multiqc
        .inputs
        .iter()
        .find(|p| p.name == "multiqc_files")
        .unwrap();
    assert!(
        files
            .from
            .iter()
            .any(|r| r.invocation == FASTQC && r.port == "zip"),
        "{files:?}"
    );
}

#[test]
fn replacing_fastqc_by_qc_fastqc_is_one_undoable_transaction() {
    let mut f = demo();
    place(&mut f, "resolve-0001").unwrap();
    let before = f.project.document().clone();
    let before_state = f.project.state_revision().clone();
    let before_graph = f.project.graph_revision();
    edit(&mut f, "replace-0001", replace(FASTQC, "qc.fastqc")).unwrap();
    let node = f.project.document().node("source").unwrap();
    let r = &node.replacements[0];
    assert_eq!(r.invocation, FASTQC);
    assert_eq!(r.operator_id, "qc.fastqc");
    assert_eq!(
        r.operator_revision,
        f.project.catalog().get("qc.fastqc").unwrap().revision
    );
    let pairs = |list: &[somite_workflow::source::PortPair]| {
        list.iter()
            .map(|p| (p.invocation_port.clone(), p.operator_port.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(pairs(&r.inputs), [("reads".into(), "reads".into())]);
    assert_eq!(
        pairs(&r.outputs),
        [
            ("html".into(), "report_html".into()),
            ("zip".into(), "report_zip".into())
        ]
    );
    // An edit of the graph: a new graph revision, and readiness says the
    // replacement runs only once promoted.
    assert_ne!(f.project.graph_revision(), before_graph);
    let assessment = f.project.assess_graph();
    assert!(
        assessment
            .items
            .iter()
            .any(|i| i.id == format!("adapter:source:replacement:{FASTQC}") && i.required)
    );
    // Replay with the same key and body; a stale base is refused.
    let txn: GraphTransaction = serde_json::from_value(json!({
        "base_state_revision": before_state,
        "idempotency_key": "replace-0001",
        "summary": "edit",
        "operations": replace(FASTQC, "qc.fastqc"),
    }))
    .unwrap();
    assert!(f.project.apply_transaction(&txn).unwrap().replayed);
    let stale = GraphTransaction {
        idempotency_key: "replace-0002".into(),
        ..txn
    };
    assert_eq!(
        f.project.apply_transaction(&stale).unwrap_err().code,
        ErrorCode::StaleRevision
    );
    // Undo is the inverse operation: the document is the one before.
    edit(
        &mut f,
        "undo-0001",
        json!([{"op": "restore_invocation", "node_id": "source", "invocation": FASTQC}]),
    )
    .unwrap();
    assert_eq!(f.project.document(), &before);
    assert_eq!(f.project.graph_revision(), before_graph);
    // Restoring what is not replaced is refused.
    assert_eq!(
        edit(
            &mut f,
            "undo-0002",
            json!([{"op": "restore_invocation", "node_id": "source", "invocation": FASTQC}]),
        ),
        Err(ErrorCode::UnknownInvocation)
    );
}

#[test]
fn a_mismatched_replacement_is_refused_naming_the_port() {
    let mut f = demo();
    place(&mut f, "resolve-0001").unwrap();
    // An aligner needs an index FastQC's call does not have.
    let err = edit_err(&mut f, "replace-0001", replace(FASTQC, "align.bwa"));
    assert_eq!(err.code, ErrorCode::InvocationPortIncompatible);
    let details = err.details.unwrap();
    assert_eq!(details["invocation"], FASTQC);
    assert_eq!(details["port"], "index");
    assert_eq!(details["direction"], "input");
    assert_eq!(details["expected_type"], "Directory");
    // An explicit output mapping of the wrong type names the invocation's port.
    let err = edit_err(
        &mut f,
        "replace-0002",
        json!([{"op": "replace_invocation", "node_id": "source", "invocation": FASTQC,
                "operator_id": "qc.fastqc", "outputs": {"html": "report_zip"}}]),
    );
    assert_eq!(err.code, ErrorCode::InvocationPortIncompatible);
    let details = err.details.unwrap();
    assert_eq!(details["port"], "html");
    assert_eq!(details["direction"], "output");
    assert_eq!(details["expected_type"], "Html");
    assert_eq!(details["found_type"], "Zip");
    assert_eq!(
        edit(&mut f, "replace-0003", replace("DEMO:NOPE", "qc.fastqc")),
        Err(ErrorCode::UnknownInvocation)
    );
    assert_eq!(
        edit(&mut f, "replace-0004", replace(FASTQC, "qc.nope")),
        Err(ErrorCode::UnknownOperator)
    );
    assert!(
        f.project
            .document()
            .node("source")
            .unwrap()
            .replacements
            .is_empty()
    );
}

/// Sets `param` to `value` on the placed source node.
fn set(f: &mut Fixture, key: &str, param: &str, value: Value) -> Result<(), ErrorCode> {
    edit(
        f,
        key,
        json!([{"op": "set_param", "node_id": "source", "param": param, "value": value}]),
    )
}

#[test]
fn every_schema_constraint_of_demo_is_refused_with_its_code() {
    let mut f = demo();
    place(&mut f, "resolve-0001").unwrap();
    assert_eq!(
        set(&mut f, "param-edit-0001", "skip_trim", json!("yes")),
        Err(ErrorCode::InvalidParamType)
    );
    assert_eq!(
        set(
            &mut f,
            "param-edit-0002",
            "publish_dir_mode",
            json!("teleport")
        ),
        Err(ErrorCode::ParamNotInEnum)
    );
    assert_eq!(
        set(&mut f, "param-edit-0003", "email", json!("not-an-address")),
        Err(ErrorCode::ParamPatternMismatch)
    );
    assert_eq!(
        set(&mut f, "param-edit-0004", "input", json!("missing.csv")),
        Err(ErrorCode::ParamPathNotFound)
    );
    set(&mut f, "param-edit-0005", "publish_dir_mode", json!("copy")).unwrap();
    set(&mut f, "param-edit-0006", "email", json!("me@example.org")).unwrap();
}

/// nf-core/fetchngs 1.12.0 placed on an empty canvas.
pub(crate) fn fetchngs() -> Fixture {
    const FETCHNGS: &str = "8ec2d934f9301c818d961b1e4fdf7fc79610bdc5";
    let project_dir = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let store = SourceStore::new(SourceConfig::new(cache_dir.path())).unwrap();
    let repository: Repository = "nf-core/fetchngs".parse().unwrap();
    let source = store
        .import_archive(
            &repository,
            &FETCHNGS.parse().unwrap(),
            &fixture(FETCHNGS, "fetchngs"),
        )
        .unwrap();
    let pinned = PinnedSource {
        repository,
        origin: SourceOrigin::NfCore {
            pipeline: "fetchngs".into(),
            release: "1.12.0".into(),
            published_at: "2024-02-29T00:00:00Z".into(),
        },
        source,
    };
    let binding = outline_pinned(&pinned).unwrap();
    let mut f = Fixture {
        cache: cache_dir.path().to_path_buf(),
        project: Project::open(project_dir.path(), Seed::Empty).unwrap(),
        store,
        binding,
        _dirs: (project_dir, cache_dir),
    };
    place(&mut f, "resolve-0001").unwrap();
    f
}

#[test]
fn every_schema_constraint_of_fetchngs_is_refused_with_its_code() {
    let mut f = fetchngs();
    assert!(!f.binding.invocations.is_empty());
    assert_eq!(
        set(&mut f, "param-edit-0001", "skip_fastq_download", json!(1)),
        Err(ErrorCode::InvalidParamType)
    );
    assert_eq!(
        set(
            &mut f,
            "param-edit-0002",
            "download_method",
            json!("carrier-pigeon")
        ),
        Err(ErrorCode::ParamNotInEnum)
    );
    assert_eq!(
        set(&mut f, "param-edit-0003", "input", json!("ids.json")),
        Err(ErrorCode::ParamPatternMismatch)
    );
    assert_eq!(
        set(&mut f, "param-edit-0004", "input", json!("ids.csv")),
        Err(ErrorCode::ParamPathNotFound)
    );
    std::fs::write(f.project.layout().root().join("ids.csv"), "SRR0000001\n").unwrap();
    set(&mut f, "param-edit-0005", "input", json!("ids.csv")).unwrap();
    set(
        &mut f,
        "param-edit-0006",
        "download_method",
        json!("sratools"),
    )
    .unwrap();
}

#[test]
fn promote_makes_a_native_variant_that_compiles_and_reverts() {
    let mut f = demo();
    place(&mut f, "resolve-0001").unwrap();
    let source_state = f.project.state_revision().clone();
    assert_eq!(
        edit_err(
            &mut f,
            "promote-0000",
            json!([{"op": "promote_source", "node_id": "source", "invocations": [FASTQC]}])
        )
        .details
        .unwrap()["obstacle"],
        "not_replaced"
    );
    edit(&mut f, "replace-0001", replace(FASTQC, "qc.fastqc")).unwrap();
    let source_node = f.project.document().node("source").unwrap().clone();
    edit(
        &mut f,
        "promote-0001",
        json!([{"op": "promote_source", "node_id": "source", "invocations": [FASTQC]}]),
    )
    .unwrap();
    let doc = f.project.document().clone();
    assert!(doc.nodes.iter().all(|n| n.source.is_none()));
    let ids: Vec<(&str, &str)> = doc
        .nodes
        .iter()
        .map(|n| (n.id.as_str(), n.operator_id.as_str()))
        .collect();
    assert_eq!(
        ids,
        [
            ("fastqc", "qc.fastqc"),
            ("seqtk_trim", "seq.seqtk_trimfq"),
            ("multiqc", "qc.multiqc")
        ]
    );
    let origin = doc.variant_origin.as_deref().unwrap();
    assert_eq!(origin.repository, "nf-core/demo");
    assert_eq!(origin.commit, DEMO_1_0_1);
    assert_eq!(origin.source.as_ref(), &source_node);
    let how: Vec<String> = origin
        .promoted
        .iter()
        .map(|p| format!("{} {} {:?}", p.invocation, p.node_id, p.how))
        .collect();
    assert_eq!(
        how,
        [
            format!("{FASTQC} fastqc Selected"),
            format!("{SEQTK} seqtk_trim CatalogEquivalent"),
            format!("{MULTIQC} multiqc CatalogEquivalent")
        ]
    );
    assert!(origin.unrepresented.is_empty());
    // The outline's flow from FastQC into MultiQC is drawn as an edge.
    let drawn: Vec<String> = doc
        .edges
        .iter()
        .map(|e| {
            format!(
                "{}.{}>{}.{}",
                e.from_node, e.from_port, e.to_node, e.to_port
            )
        })
        .collect();
    assert!(
        drawn.contains(&"fastqc.report_zip>multiqc.report_1".to_owned()),
        "{drawn:?}"
    );

    // Connect the rest natively: reads in, MultiQC over FastQC's report.
    let reads = f.project.layout().root().join("reads.fastq.gz");
    std::fs::write(&reads, b"").unwrap();
    edit(
        &mut f,
        "native-0001",
        json!([
            {"op": "add_operator", "node_id": "reads", "operator_id": "files.import_fastq_gz",
             "params": {"path": "reads.fastq.gz"}, "x": 0, "y": 200},
            {"op": "connect", "edge_id": "e1", "from_node": "reads", "from_port": "reads", "to_node": "fastqc", "to_port": "reads"},
            {"op": "connect", "edge_id": "e2", "from_node": "reads", "from_port": "reads", "to_node": "seqtk_trim", "to_port": "reads"},
        ]),
    )
    .unwrap();
    let assessment = f.project.assess_graph();
    assert!(
        assessment
            .items
            .iter()
            .all(|i| i.kind != ItemKind::UnrepresentedSourceStep),
        "{:?}",
        assessment.items
    );
    let toolchain = Toolchain::without_pixi().with_source_cache(&f.cache);
    let outcome = compiled::compile(&f.project, &toolchain).unwrap();
    let main = String::from_utf8(outcome.package.file("main.nf").unwrap().bytes.clone()).unwrap();
    insta::assert_snapshot!("demo_variant_main_nf", main);
    // The kept source node is compared whole above; the snapshot shows the rest.
    let mut origin = serde_json::to_value(&f.project.document().variant_origin).unwrap();
    origin.as_object_mut().unwrap().remove("source");
    insta::with_settings!({sort_maps => true}, {
        insta::assert_json_snapshot!("demo_variant_origin", origin);
    });

    // Revert restores the source node alone, as it was.
    edit(&mut f, "revert-0001", json!([{"op": "revert_variant"}])).unwrap();
    let doc = f.project.document();
    assert_eq!(doc.nodes, vec![std::sync::Arc::new(source_node)]);
    assert!(doc.edges.is_empty() && doc.variant_origin.is_none());
    assert_ne!(f.project.state_revision(), &source_state);
    assert_eq!(
        edit(&mut f, "revert-0002", json!([{"op": "revert_variant"}])),
        Err(ErrorCode::NotAVariant)
    );
}

#[test]
fn promote_lists_what_the_catalog_cannot_represent_and_representing_it_clears_it() {
    // fetchngs downloads with nf-core's sratools modules, which the catalog
    // stands for, around the pipeline's own local processes, which it does
    // not.
    let mut f = fetchngs();
    let catalog = f.project.catalog().clone();
    let binding = f.binding.clone();
    let standing: Vec<&str> = binding
        .invocations
        .iter()
        .filter(|i| somite_workflow::variant::equivalent(&catalog, i).is_ok())
        .map(|i| i.id.as_str())
        .collect();
    let own: Vec<&str> = binding
        .invocations
        .iter()
        .filter(|i| somite_workflow::variant::nf_core_module(i).is_none())
        .map(|i| i.id.as_str())
        .collect();
    assert!(
        !standing.is_empty() && !own.is_empty(),
        "{standing:?} {own:?}"
    );
    let first = binding.invocation(standing[0]).unwrap();
    let operator = somite_workflow::variant::equivalent(&catalog, first)
        .unwrap()
        .operator_id;
    edit(&mut f, "fetchngs-replace-1", replace(&first.id, &operator)).unwrap();
    edit(
        &mut f,
        "fetchngs-promote-1",
        json!([{"op": "promote_source", "node_id": "source", "invocations": [first.id]}]),
    )
    .unwrap();
    let origin = f.project.document().variant_origin.clone().unwrap();
    let promoted: Vec<&str> = origin
        .promoted
        .iter()
        .map(|p| p.invocation.as_str())
        .collect();
    assert_eq!(promoted, standing);
    let unrepresented: Vec<&str> = origin
        .unrepresented
        .iter()
        .map(|u| u.invocation.as_str())
        .collect();
    for id in &own {
        assert!(unrepresented.contains(id), "{id} is listed, never dropped");
    }
    assert_eq!(
        promoted.len() + unrepresented.len(),
        binding.invocations.len()
    );

    // Each is a blocking requirement until a native node does its work.
    let step = own[0];
    let assessment = f.project.assess_graph();
    let item = assessment
        .items
        .iter()
        .find(|i| i.id == format!("unrepresented_source_step:{step}"))
        .unwrap();
    assert_eq!(item.kind, ItemKind::UnrepresentedSourceStep);
    assert!(item.required);
    edit(
        &mut f,
        "fetchngs-native-1",
        json!([
            {"op": "add_operator", "node_id": "by_hand", "operator_id": "files.import", "x": 0, "y": 200},
            {"op": "represent_invocation", "invocation": step, "node_id": "by_hand"},
        ]),
    )
    .unwrap();
    let assessment = f.project.assess_graph();
    assert!(
        assessment
            .items
            .iter()
            .all(|i| i.id != format!("unrepresented_source_step:{step}"))
    );
    let origin = f.project.document().variant_origin.clone().unwrap();
    assert!(origin.promoted.iter().any(|p| p.invocation == step
        && p.node_id == "by_hand"
        && p.how == somite_workflow::variant::PromotedHow::Added));
}

/// fetchngs placed, its ids file and `outdir` set.
pub(crate) fn ready_fetchngs() -> Fixture {
    let mut f = fetchngs();
    std::fs::write(f.project.layout().root().join("ids.csv"), "SRR0000001\n").unwrap();
    set(&mut f, "param-0001", "input", json!("ids.csv")).unwrap();
    set(&mut f, "param-0002", "outdir", json!("results")).unwrap();
    f
}

#[test]
fn compile_freezes_fetchngs_with_one_environment_per_process_environment() {
    let f = ready_fetchngs();
    let assessment = f.project.assess_graph();
    assert_eq!(
        assessment.state,
        AssessmentState::Ready,
        "{:?}",
        assessment.items
    );
    let toolchain = Toolchain::without_pixi().with_source_cache(&f.cache);
    let package = compiled::compile(&f.project, &toolchain).unwrap().package;
    let source = package.run_closure().source.clone().unwrap();
    assert_eq!(source.repository, "nf-core/fetchngs");
    assert_eq!(source.tree_digest, f.binding.tree_digest);
    let text = |path: &str| String::from_utf8(package.file(path).unwrap().bytes.clone()).unwrap();
    let pixi = text("pixi.toml");
    let parsed: toml::Value = toml::from_str(&pixi).unwrap();
    let distinct: std::collections::BTreeSet<&str> = f
        .binding
        .processes
        .iter()
        .filter_map(|p| p.environment.as_deref())
        .collect();
    assert_eq!(
        parsed["environments"].as_table().unwrap().len(),
        distinct.len()
    );
    // Every process activates its environment, those whose `conda` lists
    // packages inline too; an `exec:` process runs inside Nextflow.
    let config = text("somite.config");
    for process in &f.binding.processes {
        assert_eq!(
            config.contains(&format!("withName: '{}", process.name)),
            !process.exec,
            "{process:?}"
        );
    }
    let runinfo = f
        .binding
        .processes
        .iter()
        .find(|p| p.name == "SRA_IDS_TO_RUNINFO")
        .unwrap();
    assert_eq!(
        runinfo.environment.as_deref(),
        Some("modules/local/sra_ids_to_runinfo/main.nf")
    );
    assert!(
        f.binding
            .processes
            .iter()
            .any(|p| p.name == "SRA_TO_SAMPLESHEET" && p.exec && p.environment.is_none())
    );
    // The pinned tree is in the package whole; the snapshot lists the rest.
    let tree = package
        .files()
        .filter(|f| f.path.starts_with("pipeline/"))
        .count();
    assert!(tree > 100, "{tree} files of the pipeline");
    let files: Vec<&str> = package
        .files()
        .map(|f| f.path.as_str())
        .filter(|p| !p.starts_with("pipeline/"))
        .collect();
    insta::assert_debug_snapshot!("fetchngs_package_files", files);
    insta::assert_snapshot!("fetchngs_pixi_toml", pixi);
    insta::assert_snapshot!("fetchngs_somite_config", config);
}
