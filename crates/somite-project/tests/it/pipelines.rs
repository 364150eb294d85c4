//! Real nf-core pipelines as their users meet them: files shipped inside the
//! pipeline, remote defaults, pip entries, processes without a Conda
//! environment and an output folder, each read from the trimmed corpus in
//! `tests/data/nf-core-corpus/` and followed from the binding through
//! readiness to the compiled package.

use crate::pixi_schema::{assert_valid, manifest};
use serde_json::{Value, json};
use somite_project::compiled::{self, Toolchain};
use somite_project::source::{outline_pinned, place_transaction};
use somite_project::{Project, Seed};
use somite_source::{PinnedSource, Repository, SourceConfig, SourceOrigin, SourceStore};
use somite_workflow::assessment::{Assessment, Item, ItemKind};
use somite_workflow::compile::{ClosureInputOrigin, CompiledPackage};
use somite_workflow::source::SourceBinding;
use somite_workflow::source_reach::Truth;
use somite_workflow::transaction::GraphTransaction;
use somite_workflow::{ErrorCode, SomiteError};
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/nf-core-corpus")
}

pub(crate) struct Pipeline {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    cache: PathBuf,
    pub(crate) project: Project,
    pub(crate) binding: SourceBinding,
}

/// A corpus pipeline (`smrnaseq`), imported into a fresh store, outlined and
/// placed on an empty project.
pub(crate) fn pipeline(name: &str) -> Pipeline {
    let catalog: Value = serde_json::from_str(
        &std::fs::read_to_string(corpus_dir().join("pipelines.json")).unwrap(),
    )
    .unwrap();
    let entry = catalog["remote_workflows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["name"] == name)
        .unwrap_or_else(|| panic!("{name} is in the corpus"));
    let release = &entry["releases"][0];
    let sha = release["tag_sha"].as_str().unwrap();
    let project_dir = tempfile::tempdir().unwrap();
    let cache_dir = tempfile::tempdir().unwrap();
    let store = SourceStore::new(SourceConfig::new(cache_dir.path())).unwrap();
    let repository: Repository = format!("nf-core/{name}").parse().unwrap();
    let source = store
        .import_archive(
            &repository,
            &sha.parse().unwrap(),
            &corpus_dir().join(format!("nf-core-{name}-{sha}.tar.gz")),
        )
        .unwrap();
    let pinned = PinnedSource {
        repository,
        origin: SourceOrigin::NfCore {
            pipeline: name.into(),
            release: release["tag_name"].as_str().unwrap().into(),
            published_at: release["published_at"].as_str().unwrap().into(),
        },
        source,
    };
    let binding = outline_pinned(&pinned).unwrap();
    let mut project = Project::open(project_dir.path(), Seed::Empty).unwrap();
    let txn = place_transaction(
        binding.clone(),
        project.state_revision().clone(),
        "resolve-0001".into(),
        "source".into(),
        (0.0, 0.0),
    );
    project.apply_transaction(&txn).unwrap();
    Pipeline {
        cache: cache_dir.path().to_path_buf(),
        project,
        binding,
        _dirs: (project_dir, cache_dir),
    }
}

impl Pipeline {
    pub(crate) fn edit(&mut self, key: &str, operations: Value) -> Result<(), SomiteError> {
        let txn: GraphTransaction = serde_json::from_value(json!({
            "base_state_revision": self.project.state_revision(),
            "idempotency_key": key,
            "summary": "edit",
            "operations": operations,
        }))
        .unwrap();
        self.project.apply_transaction(&txn).map(|_| ())
    }

    /// Sets each required parameter readiness asks for, with a tiny local
    /// file for a path and `results` for the output folder.
    pub(crate) fn set_required(&mut self) {
        let mut operations = Vec::new();
        for item in self.assess().items {
            let Some(field) = item.field.as_deref() else {
                continue;
            };
            let Some(spec) = self.binding.param(field) else {
                continue;
            };
            if !item.required || !matches!(item.kind, ItemKind::Input | ItemKind::Parameter) {
                continue;
            }
            let value = if let Some(value) = item.resolutions.iter().find_map(|r| r.value.clone()) {
                value
            } else if spec.is_path() {
                let name = format!("{field}.csv");
                std::fs::write(self.project.layout().root().join(&name), "sample\n").unwrap();
                json!(name)
            } else {
                match spec.enum_values.first() {
                    Some(first) => first.clone(),
                    None => json!("x"),
                }
            };
            operations.push(
                json!({"op": "set_param", "node_id": "source", "param": field, "value": value}),
            );
        }
        if !operations.is_empty() {
            self.edit("required-0001", Value::Array(operations))
                .unwrap();
        }
    }

    /// Gives every process readiness requires an environment for one: its
    /// declared container where it names one, else a stand-in Conda
    /// specification (any real bioconda package: this is about compiling).
    pub(crate) fn settle_process_environments(&mut self) {
        let operations: Vec<Value> = self
            .assess()
            .items
            .iter()
            .filter(|i| i.required && i.kind == ItemKind::ProcessEnvironment)
            .map(|i| {
                let choice = if i.resolutions.iter().any(|r| r.id.ends_with(":container")) {
                    json!({"use": "container"})
                } else {
                    json!({"use": "conda", "dependencies": ["bioconda::samtools=1.21"]})
                };
                json!({"op": "set_process_environment", "node_id": "source", "process": i.field, "choice": choice})
            })
            .collect();
        if !operations.is_empty() {
            self.edit("environments-0001", Value::Array(operations))
                .unwrap();
        }
    }

    pub(crate) fn assess(&self) -> Assessment {
        let root = self.project.layout().root().to_path_buf();
        somite_workflow::assessment::assess(
            self.project.document(),
            &somite_workflow::Catalog::builtin().unwrap(),
            &move |p: &str| root.join(p).exists(),
        )
    }

    pub(crate) fn compile(&self) -> Result<CompiledPackage, SomiteError> {
        let toolchain = Toolchain::without_pixi().with_source_cache(&self.cache);
        compiled::compile(&self.project, &toolchain).map(|o| o.package)
    }

    fn item(&self, id: &str) -> Item {
        let assessment = self.assess();
        assessment
            .items
            .into_iter()
            .find(|i| i.id == id)
            .unwrap_or_else(|| panic!("readiness lists {id}"))
    }
}

fn text(package: &CompiledPackage, path: &str) -> String {
    String::from_utf8(package.file(path).unwrap().bytes.clone()).unwrap()
}

#[test]
fn a_file_shipped_in_the_pipeline_is_bound_by_its_digest_and_compiles() {
    let mut p = pipeline("smrnaseq");
    let bundled = p
        .binding
        .bundled_file("assets/known_adapters.fa")
        .expect("the default names a file of the tree")
        .clone();
    assert!(bundled.bytes > 0 && bundled.digest.starts_with("blake3:"));
    let item = p.item("bundled_file:source:fastp_known_mirna_adapters");
    assert!(!item.required, "a shipped file is nothing to do");
    assert!(
        item.title.contains("shipped with the pipeline"),
        "{}",
        item.title
    );
    assert_eq!(
        item.evidence
            .file
            .as_ref()
            .unwrap()
            .recorded_digest
            .as_ref(),
        Some(&bundled.digest)
    );
    p.set_required();
    let package = p.compile().unwrap();
    let inputs = &package.run_closure().source.as_ref().unwrap().inputs;
    assert!(inputs.iter().any(|i| i.param == "fastp_known_mirna_adapters"
        && matches!(&i.origin, ClosureInputOrigin::Bundled { digest, .. } if *digest == bundled.digest)));
    // The package carries it where `${projectDir}` points at run time.
    assert!(package.file("pipeline/assets/known_adapters.fa").is_some());
}

#[test]
fn a_remote_default_is_a_remote_input_not_a_missing_file() {
    let mut p = pipeline("rnafusion");
    let item = p.item("remote_input:source:ctatsplicing_cancer_introns");
    assert!(!item.required);
    assert!(
        item.title.contains("data.broadinstitute.org"),
        "{}",
        item.title
    );
    assert!(item.resolutions.iter().any(|r| r.id.ends_with(":pin")));
    assert!(
        !p.assess().items.iter().any(|i| i.kind == ItemKind::Input
            && i.field.as_deref() == Some("ctatsplicing_cancer_introns"))
    );
    p.set_required();
    // rnafusion's container-only steps, reached or not, run in their
    // containers.
    let containers: Vec<Value> = p
        .assess()
        .items
        .iter()
        .filter(|i| i.kind == ItemKind::ProcessEnvironment)
        .filter(|i| i.resolutions.iter().any(|r| r.id.ends_with(":container")))
        .map(|i| json!({"op": "set_process_environment", "node_id": "source", "process": i.field, "choice": {"use": "container"}}))
        .collect();
    assert!(!containers.is_empty(), "rnafusion has container-only steps");
    p.edit("containers-0001", Value::Array(containers)).unwrap();
    p.settle_process_environments();
    let package = p.compile().unwrap();
    let inputs = &package.run_closure().source.as_ref().unwrap().inputs;
    assert!(inputs.iter().any(|i| i.param == "ctatsplicing_cancer_introns"
        && matches!(&i.origin, ClosureInputOrigin::UnpinnedRemote { url } if url.starts_with("https://data.broadinstitute.org/"))));
    // The pip entry of fusioninspector's environment is locked by Pixi.
    let pixi = text(&package, "pixi.toml");
    let parsed: toml::Value = toml::from_str(&pixi).unwrap();
    let feature = &parsed["feature"]["nf-core-fusioninspector"];
    assert_eq!(
        feature["pypi-dependencies"]["intervaltree"].as_str(),
        Some("==3.1.0")
    );
    assert_eq!(feature["dependencies"]["python"].as_str(), Some("*"));
    assert_valid("nf-core/rnafusion", &manifest(&package));
    // Steps chosen to run in their containers: an engine profile, and the
    // run task names it.
    let config = text(&package, "somite.config");
    for engine in ["docker", "singularity", "apptainer", "podman"] {
        assert!(
            config.contains(&format!("{engine}.enabled = true")),
            "{engine}"
        );
    }
    assert!(
        parsed["tasks"]["run"]["cmd"]
            .as_str()
            .unwrap()
            .contains("{{ containers }}")
    );
}

#[test]
fn a_pip_entry_pixi_cannot_lock_is_named_with_its_file_and_line() {
    let p = pipeline("ampliseq");
    let sidle = p
        .binding
        .processes
        .iter()
        .find(|process| {
            process.environment.as_deref() == Some("modules/local/envs/pipesidle-0-1-0-beta.yml")
        })
        .expect("ampliseq's SIDLE steps use the pipesidle environment");
    let unfrozen = sidle.unfrozen.as_ref().expect("a git URL is not a pin");
    assert_eq!(unfrozen.file, "modules/local/envs/pipesidle-0-1-0-beta.yml");
    assert_eq!(unfrozen.line, Some(11));
    assert!(
        unfrozen
            .entry
            .starts_with("git+https://github.com/jwdebelius/q2-sidle.git")
    );
    let item = p.item(&format!("process_environment:source:{}", sidle.name));
    assert!(
        item.detail.contains("pipesidle-0-1-0-beta.yml:11"),
        "{}",
        item.detail
    );
}

#[test]
fn a_container_only_process_gets_the_environment_its_user_chooses() {
    let mut p = pipeline("nanoseq");
    let item = p.item("process_environment:source:DEEPVARIANT");
    assert!(
        item.title.contains("runs only in a container"),
        "{}",
        item.title
    );
    assert!(
        item.detail.contains("google/deepvariant:1.4.0"),
        "{}",
        item.detail
    );
    assert!(
        item.resolutions
            .iter()
            .any(|r| r.id.ends_with(":container"))
    );
    assert!(item.resolutions.iter().any(|r| r.id.ends_with(":conda")));
    // nanoseq calls variants with DeepVariant only when asked: its defaults
    // never reach the step, so it does not block them.
    let reach = item.evidence.reach.as_ref().unwrap();
    assert_eq!(reach.reached, Truth::False, "{reach:?}");
    assert!(!item.required);
    let read: Vec<&str> = reach.params.iter().map(|p| p.name.as_str()).collect();
    for param in ["call_variants", "variant_caller", "protocol"] {
        assert!(read.contains(&param), "{param} in {read:?}");
    }
    assert!(
        reach
            .conditions
            .iter()
            .any(|c| c.contains("params.variant_caller == 'deepvariant'")),
        "{:?}",
        reach.conditions
    );
    // Asked for, it blocks until its environment is chosen.
    p.edit(
        "reach-0001",
        json!([
            {"op": "set_param", "node_id": "source", "param": "call_variants", "value": true},
            {"op": "set_param", "node_id": "source", "param": "protocol", "value": "DNA"},
            {"op": "set_param", "node_id": "source", "param": "variant_caller", "value": "deepvariant"},
        ]),
    )
    .unwrap();
    let asked = p.item("process_environment:source:DEEPVARIANT");
    assert_eq!(asked.evidence.reach.as_ref().unwrap().reached, Truth::True);
    assert!(asked.required, "{asked:?}");

    // A Conda specification from Somite's channels is checked as it is set.
    let conda = |specs: Value| {
        json!([{"op": "set_process_environment", "node_id": "source", "process": "DEEPVARIANT",
                "choice": {"use": "conda", "dependencies": specs}}])
    };
    let refused = p
        .edit("conda-0001", conda(json!(["defaults::deepvariant=1.4.0"])))
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidTransaction);
    let refused = p
        .edit(
            "conda-0002",
            json!([{"op": "set_process_environment", "node_id": "source",
               "process": "FASTQC", "choice": {"use": "container"}}]),
        )
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::UnknownProcess, "{refused:?}");
    p.edit("conda-0003", conda(json!(["bioconda::deepvariant=1.4.0"])))
        .unwrap();
    assert!(!p.assess().items.iter().any(|i| i.id == item.id));

    p.set_required();
    // Whatever the outline says of the other steps' reach, settle them so
    // the package compiles; each unsettled one would fail fast instead.
    p.settle_process_environments();
    let package = p.compile().unwrap();
    let pixi = text(&package, "pixi.toml");
    let parsed: toml::Value = toml::from_str(&pixi).unwrap();
    assert_eq!(
        parsed["feature"]["user-deepvariant"]["dependencies"]["deepvariant"]["version"].as_str(),
        Some("1.4.0.*")
    );
    assert_valid("nf-core/nanoseq", &manifest(&package));
    let closure = package.run_closure();
    assert_eq!(
        closure
            .source
            .as_ref()
            .unwrap()
            .processes
            .get("DEEPVARIANT")
            .map(String::as_str),
        Some("user-deepvariant")
    );

    // Unset again: it has no environment, and a task that reaches it fails
    // at once, saying why, instead of running without its tools.
    p.edit(
        "unset-0001",
        json!([{"op": "unset_process_environment", "node_id": "source", "process": "DEEPVARIANT"}]),
    )
    .unwrap();
    p.edit(
        "reach-0002",
        json!([{"op": "set_param", "node_id": "source", "param": "variant_caller", "value": "medaka"}]),
    )
    .unwrap();
    assert!(p.assess().is_ready(), "{:?}", p.assess().items);
    let config = text(&p.compile().unwrap(), "somite.config");
    let block = config.split("withName: 'DEEPVARIANT'").nth(1).unwrap();
    assert!(
        block.contains("exit 1") && block.contains("has no Pixi environment"),
        "{block}"
    );
}

#[test]
fn the_output_folder_is_offered_in_the_project_not_attached_as_a_file() {
    let p = pipeline("viralrecon");
    let item = p.item("input:source:outdir");
    assert!(item.required);
    assert_eq!(item.title, "Choose where source writes its results");
    assert!(!item.detail.contains("file"), "{}", item.detail);
    let results = item
        .resolutions
        .iter()
        .find(|r| r.recommended)
        .expect("a recommended resolution");
    assert_eq!(results.value, Some(json!("results")));
    assert!(
        !item
            .resolutions
            .iter()
            .any(|r| r.label.contains("local file"))
    );
}

#[test]
fn a_remote_value_with_credentials_is_refused_without_repeating_it() {
    let mut p = pipeline("rnafusion");
    let error = p
        .edit(
            "secret-0001",
            json!([{"op": "set_param", "node_id": "source",
               "param": "ctatsplicing_cancer_introns",
               "value": "https://alice:hunter2@example.org/introns.tsv.gz"}]),
        )
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::UrlCredentials);
    let shown = serde_json::to_string(&error).unwrap();
    assert!(
        !shown.contains("hunter2") && !shown.contains("alice"),
        "{shown}"
    );
}
