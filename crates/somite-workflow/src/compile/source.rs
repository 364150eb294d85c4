//! Compiling a source workflow: freeze the pinned pipeline as it is.
//!
//! A source workflow is one `workflow.source` node (see [`crate::source`]),
//! so there is no `main.nf` to generate: the package carries the pinned tree
//! under `pipeline/`, byte for byte, and wraps it the way native packages
//! are wrapped — `pixi.toml` pins Nextflow and OpenJDK in the default
//! environment, and every distinct Conda environment a process declares (an
//! `environment.yml`, or packages its `conda` directive lists inline)
//! becomes a feature and an environment of its own in the same manifest, so
//! one `pixi.lock` freezes every tool.
//!
//! `somite.config` (passed with `-c`, after the pipeline's own config) makes
//! each process activate its environment. The `conda` directive is no way
//! to do that: it needs the Conda tool at run time even when it names an
//! existing environment folder. Instead each process gets a `beforeScript`
//! that evaluates `pixi shell-hook --frozen` for its environment, the
//! Pixi-native activation. Conda, every container engine, Wave and Fusion
//! are switched off, so a process never runs in a container silently (the
//! readiness refuses a process without an environment before compile).
//!
//! `node-map.json` makes the source node the run's one node, and the
//! manifest's `preview` task is what a validation runs: `-preview` proves
//! the pinned pipeline parses and its DAG resolves, no more.
//!
//! Like the native compiler this is pure: the caller reads and verifies the
//! tree and the environment files and hands them in.

use super::quote::{bash_literal, groovy_string, toml_string};
use super::{
    COMPILER_VERSION, ClosureCompiler, ClosureEnvironment, ClosurePixi, ClosureTargets,
    CompiledPackage, FILE_MODE, PIXI_REQUIREMENT, PLATFORMS, PackageFile, RUN_CLOSURE_SCHEMA,
    RUN_CLOSURE_SCHEMA_VERSION, RunClosure, TARGET_NEXTFLOW, TARGET_OPENJDK, TRACE_FIELDS,
    TRACE_FILE, gate, pretty, short_revision,
};
use crate::assessment::Assessment;
use crate::canonical::digest_bytes;
use crate::compile::closure::{ClosureInputOrigin, ClosureSource, ClosureSourceInput};
use crate::compile::pixi::CHANNELS;
use crate::compile::{NodeMap, NodeMapEntry};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::graph::{Node, WorkflowDocument};
use crate::operator::OperatorKind;
use crate::source::{EnvironmentChoice, SOURCE_OPERATOR_ID, SourceBinding, SourceProcess};
use crate::source_environment::{CondaPin, EnvironmentSpec, FrozenEnvironment, PypiPin, freeze};
use crate::source_paths::{PathTarget, path_target};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The folder of the package holding the pinned tree.
pub const PIPELINE_DIR: &str = "pipeline";
/// The generated config the run adds with `-c`.
pub const SOURCE_CONFIG: &str = "somite.config";
/// The executor profiles a source package adds to the pipeline's own.
pub const SOURCE_PROFILES: [&str; 2] = ["local", "slurm"];
/// The package task a validation runs: `nextflow run -preview`, which
/// compiles the script and resolves its DAG without running any task, so
/// it needs no process environment installed and no network.
pub const PREVIEW_TASK: &str = "preview";

/// One Conda environment of the pipeline, as read from the verified tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEnvironment {
    /// The file declaring it: an `environment.yml`, or a script whose
    /// `conda` directive lists the packages inline.
    pub file: String,
    /// The channels it lists.
    pub channels: Vec<String>,
    /// Its `dependencies`, as Conda match specs.
    pub dependencies: Vec<String>,
    /// Packages of a `- pip:` entry.
    pub pip: Vec<String>,
}

/// One process and the names it runs under (an include may alias it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceProcessRun {
    pub name: String,
    /// The script declaring it.
    pub file: String,
    /// Every name the process is called by: its own and the aliases.
    pub selectors: Vec<String>,
    /// The file declaring the Conda environment it declares, if any.
    pub environment: Option<String>,
}

/// What the caller read from the verified tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInputs {
    /// Every file of the tree, path relative to its root, with its mode.
    pub tree: Vec<PackageFile>,
    pub environments: Vec<SourceEnvironment>,
    pub processes: Vec<SourceProcessRun>,
}

/// A Pixi environment of the package: one per environment file of the
/// pipeline that a process uses, and one per Conda specification a user gave
/// a process.
struct Environment {
    name: String,
    /// What declares it: the pipeline's file, or the user's choice.
    origin: String,
    frozen: FrozenEnvironment,
}

/// How one process of the pipeline runs in the package.
enum ProcessRun {
    /// Activates this Pixi environment before its script.
    Pixi(String),
    /// Runs in the container it declares, under the engine the run selects.
    Container,
    /// Has no environment: a task that reaches it fails at once, saying why.
    Unresolved(String),
}

/// Compiles the source workflow `doc` with the tree and environments the
/// caller read, if `assessment` lets it through.
pub fn compile_source(
    doc: &WorkflowDocument,
    assessment: &Assessment,
    mut inputs: SourceInputs,
) -> Result<CompiledPackage> {
    let graph_revision = doc.graph_revision();
    if assessment.graph_revision != graph_revision {
        return Err(SomiteError::new(
            ErrorCode::WorkflowNotReady,
            "cannot compile: the readiness assessment is for another graph revision",
            "assess the current workflow, then compile",
        ));
    }
    gate(assessment)?;
    let node = doc.source_node().ok_or_else(|| {
        SomiteError::new(
            ErrorCode::InvalidDocument,
            "the workflow holds no source node",
            "compile native workflows with the native compiler",
        )
    })?;
    let binding = node.source().expect("a source node has a binding");

    let tree = std::mem::take(&mut inputs.tree);
    let (environments, runs) = plan_processes(node, binding, &inputs)?;

    let mut files = BTreeMap::new();
    for file in tree {
        let path = format!("{PIPELINE_DIR}/{}", file.path);
        files.insert(
            path.clone(),
            PackageFile {
                path,
                mode: file.mode,
                bytes: file.bytes,
            },
        );
    }
    let mut add = |path: &str, bytes: Vec<u8>| {
        files.insert(
            path.to_owned(),
            PackageFile {
                path: path.to_owned(),
                mode: FILE_MODE,
                bytes,
            },
        );
    };
    let containers = runs
        .iter()
        .any(|(_, run)| matches!(run, ProcessRun::Container));
    let pixi_toml = pixi_toml(binding, &graph_revision, &environments, containers).into_bytes();
    let manifest_digest = digest_bytes(&pixi_toml);
    add("pixi.toml", pixi_toml);
    add(
        SOURCE_CONFIG,
        source_config(binding, &graph_revision, &runs, containers).into_bytes(),
    );
    add("params.json", pretty(&node.params));
    add(
        "node-map.json",
        pretty(&source_node_map(&node.id, binding, &graph_revision)),
    );
    add(
        "workflow.somite.json",
        pretty(&super::documents::semantic_document(
            doc,
            std::slice::from_ref(&node.id),
        )),
    );
    add(
        "assessment.json",
        pretty(&super::documents::packaged_assessment(assessment)),
    );
    add("README.md", readme(binding, containers).into_bytes());

    let closure = RunClosure {
        schema: RUN_CLOSURE_SCHEMA.into(),
        schema_version: RUN_CLOSURE_SCHEMA_VERSION,
        graph_revision,
        nodes: Vec::new(),
        operators: Vec::new(),
        platforms: PLATFORMS.iter().map(|p| (*p).to_owned()).collect(),
        pixi: ClosurePixi {
            requirement: PIXI_REQUIREMENT.into(),
            manifest_digest,
            lock_digest: None,
            environments: environments
                .iter()
                .map(|e| ClosureEnvironment {
                    name: e.name.clone(),
                    packages: e
                        .frozen
                        .conda
                        .iter()
                        .map(|(name, pin)| (name.clone(), closure_text(pin)))
                        .chain(
                            e.frozen
                                .pypi
                                .iter()
                                .map(|(name, pin)| (format!("pypi:{name}"), pin.version.clone())),
                        )
                        .collect(),
                })
                .collect(),
        },
        compiler: ClosureCompiler::current(),
        targets: ClosureTargets::current(),
        source: Some(ClosureSource {
            node_id: node.id.clone(),
            provider: binding.provider,
            repository: binding.repository.clone(),
            release: binding.release.clone(),
            git_ref: binding.git_ref.clone(),
            commit: binding.commit.clone(),
            tree_digest: binding.tree_digest.clone(),
            processes: runs
                .iter()
                .filter_map(|(p, run)| match run {
                    ProcessRun::Pixi(env) => Some((p.name.clone(), env.clone())),
                    _ => None,
                })
                .collect(),
            containers: runs
                .iter()
                .filter(|(_, run)| matches!(run, ProcessRun::Container))
                .map(|(p, _)| {
                    let images = binding
                        .process(&p.name)
                        .map(|d| d.container.clone())
                        .unwrap_or_default();
                    (p.name.clone(), images)
                })
                .collect(),
            unresolved: runs
                .iter()
                .filter(|(_, run)| matches!(run, ProcessRun::Unresolved(_)))
                .map(|(p, _)| p.name.clone())
                .collect(),
            inputs: closure_inputs(node, binding),
        }),
        resources: Vec::new(),
    };
    CompiledPackage::seal(files, closure)
}

/// Every path input the run reads that is not a plain local file: files of
/// the pinned tree (bound by their digest), remote inputs Nextflow fetches
/// (unpinned) and remote inputs pinned to a local copy.
fn closure_inputs(node: &Node, binding: &SourceBinding) -> Vec<ClosureSourceInput> {
    let mut out = Vec::new();
    for spec in binding.params.iter().filter(|p| p.is_path()) {
        if let Some(pin) = node.pinned_inputs.iter().find(|p| p.param == spec.name) {
            out.push(ClosureSourceInput {
                param: spec.name.clone(),
                origin: ClosureInputOrigin::PinnedRemote {
                    url: pin.url.clone(),
                    path: pin.path.clone(),
                    bytes: pin.bytes,
                    digest: pin.digest.clone(),
                },
            });
            continue;
        }
        let Some(value) = node
            .params
            .get(&spec.name)
            .or(spec.default.as_ref())
            .and_then(Value::as_str)
        else {
            continue;
        };
        match path_target(value) {
            Ok(PathTarget::Bundled(path)) => {
                if let Some(file) = binding.bundled_file(path) {
                    out.push(ClosureSourceInput {
                        param: spec.name.clone(),
                        origin: ClosureInputOrigin::Bundled {
                            path: file.path.clone(),
                            bytes: file.bytes,
                            digest: file.digest.clone(),
                        },
                    });
                }
            }
            Ok(PathTarget::Remote(remote)) => out.push(ClosureSourceInput {
                param: spec.name.clone(),
                origin: ClosureInputOrigin::UnpinnedRemote {
                    url: remote.url.to_owned(),
                },
            }),
            _ => {}
        }
    }
    out
}

/// Decides how each process runs and the Pixi environments that takes.
fn plan_processes<'i>(
    node: &Node,
    binding: &SourceBinding,
    inputs: &'i SourceInputs,
) -> Result<(Vec<Environment>, ProcessRuns<'i>)> {
    let mut environments: Vec<Environment> = Vec::new();
    // Process index → environment index, filled once the names are final.
    let mut planned: Vec<(&SourceProcessRun, Planned)> = Vec::new();
    for process in &inputs.processes {
        let declared = binding
            .processes
            .iter()
            .find(|p| p.name == process.name && p.file == process.file);
        if declared.is_some_and(|p| p.exec) {
            continue;
        }
        let chosen = node
            .process_environments
            .iter()
            .find(|e| e.process == process.name);
        let plan = match (chosen.map(|c| &c.choice), declared) {
            (Some(EnvironmentChoice::Container), _) => Planned::Container,
            (Some(EnvironmentChoice::Conda { dependencies }), _) => {
                let frozen = freeze(&EnvironmentSpec {
                    file: &process.name,
                    channels: &[],
                    dependencies,
                    pip: &[],
                    text: None,
                })
                .map_err(|refusal| unfreezable(&refusal.to_string()))?;
                environments.push(Environment {
                    name: format!("user-{}", pixi_name(&process.name)),
                    origin: format!(
                        "the Conda specification given for {} in Somite",
                        process.name
                    ),
                    frozen,
                });
                Planned::Pixi(environments.len() - 1)
            }
            (None, Some(declared)) if !declared.has_pixi_environment() => {
                Planned::Unresolved(unresolved_reason(declared))
            }
            (None, _) => match &process.environment {
                Some(file) => {
                    let index = match environments.iter().position(|e| e.origin == *file) {
                        Some(index) => index,
                        None => {
                            let env = inputs
                                .environments
                                .iter()
                                .find(|e| e.file == *file)
                                .ok_or_else(|| {
                                    SomiteError::new(
                                        ErrorCode::InvalidContract,
                                        format!("cannot compile: the pipeline's `{file}` could not be read"),
                                        "resolve the pipeline again; its tree is incomplete",
                                    )
                                })?;
                            let frozen = freeze(&EnvironmentSpec {
                                file,
                                channels: &env.channels,
                                dependencies: &env.dependencies,
                                pip: &env.pip,
                                text: None,
                            })
                            .map_err(|refusal| unfreezable(&refusal.to_string()))?;
                            environments.push(Environment {
                                name: environment_name(file),
                                origin: file.clone(),
                                frozen,
                            });
                            environments.len() - 1
                        }
                    };
                    Planned::Pixi(index)
                }
                None => Planned::Unresolved(
                    "it declares no Conda environment, only a container".to_owned(),
                ),
            },
        };
        planned.push((process, plan));
    }
    // Names are unique: two files in folders of the same name get the
    // digest of their path appended.
    let mut seen = std::collections::BTreeSet::new();
    for env in &mut environments {
        if !seen.insert(env.name.clone()) {
            env.name = format!(
                "{}-{}",
                env.name,
                &blake3::hash(env.origin.as_bytes()).to_hex()[..8]
            );
            seen.insert(env.name.clone());
        }
    }
    let runs = planned
        .into_iter()
        .map(|(process, plan)| {
            let run = match plan {
                Planned::Pixi(index) => ProcessRun::Pixi(environments[index].name.clone()),
                Planned::Container => ProcessRun::Container,
                Planned::Unresolved(reason) => ProcessRun::Unresolved(reason),
            };
            (process, run)
        })
        .collect();
    environments.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((environments, runs))
}
/// Each process of the tree with how it runs.
type ProcessRuns<'i> = Vec<(&'i SourceProcessRun, ProcessRun)>;

/// A process's run before the environments have their final names.
enum Planned {
    Pixi(usize),
    Container,
    Unresolved(String),
}

/// Why a process the pipeline declares has no Pixi environment, for the
/// message a task that reaches it fails with.
fn unresolved_reason(process: &SourceProcess) -> String {
    match &process.unfrozen {
        Some(unfrozen) => format!("its Conda environment cannot be frozen ({unfrozen})"),
        None => "it declares no Conda environment, only a container".to_owned(),
    }
}

fn unfreezable(message: &str) -> SomiteError {
    SomiteError::new(
        ErrorCode::InvalidContract,
        format!("cannot compile: {message}"),
        "assess the workflow again: readiness lists the process with what can be done",
    )
}

/// The source node as the one node of the run: every call of the pipeline
/// (the trace names a task by its fully qualified process, which is the
/// invocation id) counts towards it, so a run's progress and a
/// validation's node result read the trace like a native package's.
fn source_node_map(node_id: &str, binding: &SourceBinding, graph_revision: &str) -> NodeMap {
    NodeMap {
        graph_revision: graph_revision.to_owned(),
        nodes: vec![NodeMapEntry {
            node_id: node_id.to_owned(),
            operator_id: SOURCE_OPERATOR_ID.to_owned(),
            kind: OperatorKind::External,
            process: Some(binding.repository.clone()),
            publish_dir: None,
            substituted: false,
        }],
        processes: binding
            .invocations
            .iter()
            .map(|i| (i.id.clone(), node_id.to_owned()))
            .collect(),
    }
}

/// `DEEPVARIANT_RUNDEEPVARIANT` → `deepvariant-rundeepvariant`: a Pixi
/// environment name (`[a-z0-9-]+`).
fn pixi_name(text: &str) -> String {
    let mut name = String::new();
    for c in text.chars() {
        let c = c.to_ascii_lowercase();
        let c = if c.is_ascii_alphanumeric() { c } else { '-' };
        if !(c == '-' && (name.is_empty() || name.ends_with('-'))) {
            name.push(c);
        }
    }
    name.trim_end_matches('-').to_owned()
}

/// `modules/nf-core/fastqc/environment.yml` → `nf-core-fastqc`: the name a
/// person recognises (`user-…` is kept for the environments users give).
fn environment_name(file: &str) -> String {
    let dir = file.rsplit_once('/').map_or("", |(dir, _)| dir);
    let name = pixi_name(dir.strip_prefix("modules/").unwrap_or(dir));
    if name.is_empty() || name == "default" || name.starts_with("user-") {
        format!("env-{}", &blake3::hash(file.as_bytes()).to_hex()[..8])
    } else {
        name
    }
}

/// A Conda pin as Pixi writes it in `pixi.toml`.
fn pin_toml(pin: &CondaPin) -> String {
    let mut fields = vec![format!("version = {}", toml_string(&pin.version))];
    if let Some(build) = &pin.build {
        fields.push(format!("build = {}", toml_string(build)));
    }
    if let Some(channel) = &pin.channel {
        fields.push(format!("channel = {}", toml_string(channel)));
    }
    format!("{{ {} }}", fields.join(", "))
}

/// A PyPI pin as Pixi writes it in `pixi.toml`.
fn pypi_toml(pin: &PypiPin) -> String {
    if pin.extras.is_empty() {
        return toml_string(&pin.version);
    }
    let extras: Vec<String> = pin.extras.iter().map(|e| toml_string(e)).collect();
    format!(
        "{{ version = {}, extras = [{}] }}",
        toml_string(&pin.version),
        extras.join(", ")
    )
}

/// A Conda pin as the closure records it: `channel::version build`.
fn closure_text(pin: &CondaPin) -> String {
    let mut text = pin.version.clone();
    if let Some(build) = &pin.build {
        text = format!("{text} {build}");
    }
    match &pin.channel {
        Some(channel) => format!("{channel}::{text}"),
        None => text,
    }
}

/// The container engines a run may select for the processes that run in
/// their declared containers.
pub const CONTAINER_ENGINES: [&str; 4] = ["docker", "singularity", "apptainer", "podman"];
/// The `containers` argument's value that selects no engine.
const NO_CONTAINERS: &str = "none";

fn pixi_toml(
    binding: &SourceBinding,
    graph_revision: &str,
    envs: &[Environment],
    containers: bool,
) -> String {
    let list = |items: &[&str]| {
        let quoted: Vec<String> = items.iter().map(|s| toml_string(s)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let flags: String = envs
        .iter()
        .map(|e| format!(" --environment {}", e.name))
        .collect();
    // With processes that run in their declared containers, the run also
    // names the engine that runs them (`pixi run --frozen run local docker`).
    let (profile, container_arg) = if containers {
        let mut choices = vec![NO_CONTAINERS];
        choices.extend(CONTAINER_ENGINES);
        (
            "{{ profile }}{% if containers != \"none\" %},{{ containers }}{% endif %}",
            format!(
                ", {{ arg = \"containers\", default = {}, choices = {} }}",
                toml_string(NO_CONTAINERS),
                list(&choices)
            ),
        )
    } else {
        ("{{ profile }}", String::new())
    };
    let mut out = String::new();
    let _ = write!(
        out,
        "# Compiled by Somite {COMPILER_VERSION} from graph revision\n\
         # {graph_revision}:\n\
         # {} at commit {} (tree {}).\n\
         # `pixi run --frozen run` runs the pipeline; see README.md.\n\n\
         [workspace]\n\
         name = \"somite-{}\"\n\
         channels = {}\n\
         platforms = {}\n\
         requires-pixi = {}\n\n\
         # The default environment runs Nextflow itself.\n\
         [dependencies]\n\
         nextflow = \"=={TARGET_NEXTFLOW}\"\n\
         openjdk = \"=={TARGET_OPENJDK}\"\n\n\
         [tasks.install-tools]\n\
         cmd = {}\n\
         description = \"Install every process environment before the tasks start\"\n\n\
         [tasks.run]\n\
         cmd = {}\n\
         args = [{{ arg = \"profile\", default = \"local\", choices = {} }}{container_arg}]\n\
         depends-on = [\"install-tools\"]\n\
         description = \"Run the pinned pipeline (profile: local by default)\"\n\n\
         # What Validate runs: Nextflow compiles the pipeline and resolves its DAG, no task runs.\n\
         [tasks.{PREVIEW_TASK}]\n\
         cmd = \"nextflow run {PIPELINE_DIR} -c {SOURCE_CONFIG} -params-file params.json -profile local -preview\"\n\
         env = {{ NXF_OFFLINE = \"true\" }}\n\
         description = \"Check that the pinned pipeline parses and its DAG resolves, running no task\"\n\n\
         # One feature and environment per distinct Conda environment of the pipeline.\n",
        binding.repository,
        binding.commit,
        binding.tree_digest,
        short_revision(graph_revision),
        list(&CHANNELS),
        list(&PLATFORMS),
        toml_string(PIXI_REQUIREMENT),
        toml_string(&format!("pixi install --frozen{flags}")),
        toml_string(&format!(
            "nextflow run {PIPELINE_DIR} -c {SOURCE_CONFIG} -params-file params.json -profile {profile}"
        )),
        list(&SOURCE_PROFILES),
    );
    for env in envs {
        // The origin is data from the pinned tree: quoted as a TOML string
        // (control characters escaped), it cannot end the comment line.
        let _ = writeln!(out, "# from {}", toml_string(&env.origin));
        if !env.frozen.channels.is_empty() {
            let mut channels: Vec<&str> = env.frozen.channels.iter().map(String::as_str).collect();
            channels.extend(CHANNELS);
            let _ = writeln!(
                out,
                "[feature.{}]\nchannels = {}\n",
                env.name,
                list(&channels)
            );
        }
        let _ = writeln!(out, "[feature.{}.dependencies]", env.name);
        for (package, pin) in &env.frozen.conda {
            let _ = writeln!(out, "{} = {}", toml_string(package), pin_toml(pin));
        }
        if !env.frozen.pypi.is_empty() {
            // Pixi resolves PyPI packages with the environment's own Python
            // (its manual asks for `python` among the dependencies); an
            // environment that lists only `pip` gets Python through it.
            if !env.frozen.conda.contains_key("python") {
                let _ = writeln!(out, "python = \"*\"");
            }
            let _ = writeln!(out, "\n[feature.{}.pypi-dependencies]", env.name);
            for (package, pin) in &env.frozen.pypi {
                let _ = writeln!(out, "{} = {}", toml_string(package), pypi_toml(pin));
            }
        }
        out.push('\n');
    }
    out.push_str("[environments]\n");
    for env in envs {
        let _ = writeln!(
            out,
            "{} = {{ features = [{}], no-default-feature = true }}",
            env.name,
            toml_string(&env.name)
        );
    }
    out
}

/// The Groovy expression of this package's `pixi.toml` path, base64-encoded:
/// the folder may be named anything, and base64 survives shell quoting.
const MANIFEST_B64: &str = "java.util.Base64.getEncoder().encodeToString(projectDir.getParent().resolve('pixi.toml').toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))";

fn source_config(
    binding: &SourceBinding,
    graph_revision: &str,
    runs: &[(&SourceProcessRun, ProcessRun)],
    containers: bool,
) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "/*\n \
         * Compiled by Somite {COMPILER_VERSION} from graph revision\n \
         * {graph_revision}.\n \
         * Added with `-c` after {}'s own config ({}).\n \
         * Do not edit: change the workflow in Somite and compile again.\n \
         */\n\n\
         // Every process runs in its own frozen Pixi environment, never in a container\n\
         // (except those chosen to run in their declared container, under a profile below).\n\
         conda.enabled = false\n\
         docker.enabled = false\n\
         podman.enabled = false\n\
         singularity.enabled = false\n\
         apptainer.enabled = false\n\
         charliecloud.enabled = false\n\
         shifter.enabled = false\n\
         wave.enabled = false\n\
         fusion.enabled = false\n\n\
         // Somite follows progress from the trace: one row per finished or cached task.\n\
         trace {{\n    \
         enabled = true\n    \
         file = {}\n    \
         overwrite = true\n    \
         fields = {}\n\
         }}\n\n\
         // `pixi shell-hook --frozen` prints the activation of one environment of this\n\
         // package's pixi.toml; each process evaluates its own before its script, and\n\
         // `container = ''` keeps it out of any container an engine profile enables.\n\
         process {{\n",
        binding.repository,
        binding.commit,
        groovy_string(TRACE_FILE),
        groovy_string(&TRACE_FIELDS.join(",")),
    );
    let mut runs: Vec<&(&SourceProcessRun, ProcessRun)> = runs.iter().collect();
    runs.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    for (process, run) in runs {
        let selector = groovy_string(&process.selectors.join("|"));
        match run {
            ProcessRun::Pixi(environment) => {
                let _ = write!(
                    out,
                    "    withName: {selector} {{\n        \
                     beforeScript = \"eval \\\"\\$(pixi shell-hook --frozen --manifest-path \\\"\\$(printf %s '${{{MANIFEST_B64}}}' | base64 -d)\\\" --environment {environment})\\\"\"\n        \
                     container = ''\n    \
                     }}\n",
                );
            }
            ProcessRun::Container => {
                let _ = writeln!(
                    out,
                    "    // {}: runs in the container it declares; choose the engine when running.",
                    process.name
                );
            }
            ProcessRun::Unresolved(reason) => {
                let message = format!(
                    "Somite: {} has no Pixi environment: {reason}. The pipeline reached it with these parameters; give it an environment in Somite's readiness (a Conda specification, its declared container, or a catalog operator) and compile again.",
                    process.name
                );
                let script = format!("printf '%s\\n' {} >&2; exit 1", bash_literal(&message));
                let _ = write!(
                    out,
                    "    withName: {selector} {{\n        \
                     beforeScript = {}\n        \
                     container = ''\n    \
                     }}\n",
                    groovy_string(&script),
                );
            }
        }
    }
    out.push_str(
        "}\n\n\
         profiles {\n    \
         local {\n        \
         process.executor = 'local'\n    \
         }\n    \
         slurm {\n        \
         // Choose the partition with `process.queue`; this folder and `pixi` must be\n        \
         // reachable from every compute node.\n        \
         process.executor = 'slurm'\n    \
         }\n",
    );
    if containers {
        for engine in CONTAINER_ENGINES {
            let _ = write!(
                out,
                "    {engine} {{\n        {engine}.enabled = true\n    }}\n"
            );
        }
    }
    out.push_str("}\n");
    out
}

fn readme(binding: &SourceBinding, containers: bool) -> String {
    let pinned = match (&binding.release, &binding.git_ref) {
        (Some(release), _) => format!("release {release}"),
        (None, Some(r)) => format!("ref `{r}`"),
        (None, None) => "a commit".to_owned(),
    };
    let engines = if containers {
        format!(
            "\nSome processes run in the container the pipeline declares for them: name the\n\
             engine after the profile, `pixi run --frozen run local docker` (one of {}).\n",
            CONTAINER_ENGINES.join(", ")
        )
    } else {
        String::new()
    };
    format!(
        "# {name}\n\n\
         A frozen Somite package of {repository} ({pinned}), pinned to commit\n\
         `{commit}` with tree digest `{digest}`.\n\n\
         - `{PIPELINE_DIR}/` is the pipeline exactly as pinned.\n\
         - `pixi.toml` pins Nextflow {TARGET_NEXTFLOW} and OpenJDK {TARGET_OPENJDK}, and one\n  \
         environment per Conda environment of the pipeline; `pixi.lock` freezes them.\n\
         - `{SOURCE_CONFIG}` activates each process's environment and turns containers off.\n\
         - `params.json` holds the parameters set in Somite.\n\n\
         Run it with `pixi run --frozen run` (profile `local`) or\n\
         `pixi run --frozen run slurm`. `pixi run --frozen {PREVIEW_TASK}` is what Somite's\n\
         Validate runs: Nextflow's `-preview` parses the pipeline and resolves its DAG,\n\
         offline, without running any task.\n{engines}",
        name = binding.name,
        repository = binding.repository,
        commit = binding.commit,
        digest = binding.tree_digest,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_names_follow_the_module_folder() {
        assert_eq!(
            environment_name("modules/nf-core/fastqc/environment.yml"),
            "nf-core-fastqc"
        );
        assert_eq!(
            environment_name("modules/local/sra_ids_to_runinfo/environment.yml"),
            "local-sra-ids-to-runinfo"
        );
        assert!(environment_name("environment.yml").starts_with("env-"));
        assert!(environment_name("modules/user-x/environment.yml").starts_with("env-"));
        assert_eq!(
            pixi_name("DEEPVARIANT_RUNDEEPVARIANT"),
            "deepvariant-rundeepvariant"
        );
    }
}
