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

use super::quote::{groovy_string, toml_string};
use super::{
    COMPILER_VERSION, ClosureCompiler, ClosureEnvironment, ClosurePixi, ClosureTargets,
    CompiledPackage, FILE_MODE, PIXI_REQUIREMENT, PLATFORMS, PackageFile, RUN_CLOSURE_SCHEMA,
    RUN_CLOSURE_SCHEMA_VERSION, RunClosure, TARGET_NEXTFLOW, TARGET_OPENJDK, TRACE_FIELDS,
    TRACE_FILE, gate, pretty, short_revision,
};
use crate::assessment::Assessment;
use crate::canonical::digest_bytes;
use crate::compile::closure::ClosureSource;
use crate::compile::pixi::CHANNELS;
use crate::compile::{NodeMap, NodeMapEntry};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::graph::WorkflowDocument;
use crate::operator::OperatorKind;
use crate::source::{SOURCE_OPERATOR_ID, SourceBinding};
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
    /// Its `dependencies`, as Conda match specs.
    pub dependencies: Vec<String>,
    /// Packages of a `- pip:` entry.
    pub pip: Vec<String>,
}

/// One process and the names it runs under (an include may alias it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceProcessRun {
    pub name: String,
    /// Every name the process is called by: its own and the aliases.
    pub selectors: Vec<String>,
    /// The file declaring the environment it activates.
    pub environment: String,
}

/// What the caller read from the verified tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInputs {
    /// Every file of the tree, path relative to its root, with its mode.
    pub tree: Vec<PackageFile>,
    pub environments: Vec<SourceEnvironment>,
    pub processes: Vec<SourceProcessRun>,
}

struct Environment<'a> {
    name: String,
    file: &'a str,
    packages: BTreeMap<String, Pin>,
}

#[derive(Clone, PartialEq, Eq)]
struct Pin {
    version: String,
    build: Option<String>,
    channel: Option<String>,
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
    let environments = environments(&inputs)?;
    let by_file: BTreeMap<&str, &str> = environments
        .iter()
        .map(|e| (e.file, e.name.as_str()))
        .collect();

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
    let pixi_toml = pixi_toml(binding, &graph_revision, &environments).into_bytes();
    let manifest_digest = digest_bytes(&pixi_toml);
    add("pixi.toml", pixi_toml);
    add(
        SOURCE_CONFIG,
        source_config(binding, &graph_revision, &inputs.processes, &by_file).into_bytes(),
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
    add("README.md", readme(binding).into_bytes());

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
                        .packages
                        .iter()
                        .map(|(name, pin)| (name.clone(), pin.closure_text()))
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
            processes: inputs
                .processes
                .iter()
                .map(|p| (p.name.clone(), by_file[p.environment.as_str()].to_owned()))
                .collect(),
        }),
        resources: Vec::new(),
    };
    CompiledPackage::seal(files, closure)
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

/// One environment per distinct file declaring a process's environment, named
/// after its folder, sorted by name.
fn environments(inputs: &SourceInputs) -> Result<Vec<Environment<'_>>> {
    let mut used: Vec<&str> = inputs
        .processes
        .iter()
        .map(|p| p.environment.as_str())
        .collect();
    used.sort_unstable();
    used.dedup();
    let mut out: Vec<Environment<'_>> = Vec::new();
    for file in used {
        let env = inputs
            .environments
            .iter()
            .find(|e| e.file == file)
            .ok_or_else(|| {
                SomiteError::new(
                    ErrorCode::InvalidContract,
                    format!("cannot compile: the pipeline's `{file}` could not be read"),
                    "resolve the pipeline again; its tree is incomplete",
                )
            })?;
        if !env.pip.is_empty() {
            return Err(SomiteError::new(
                ErrorCode::InvalidContract,
                format!(
                    "cannot compile: `{file}` installs pip packages, which Somite does not freeze"
                ),
                "use a pipeline release whose environments list only Conda packages",
            ));
        }
        let mut packages = BTreeMap::new();
        for spec in &env.dependencies {
            let (name, pin) = parse_match_spec(spec).ok_or_else(|| {
                SomiteError::new(
                    ErrorCode::InvalidContract,
                    format!("cannot compile: `{spec}` in `{file}` is not a Conda match spec Somite reads"),
                    "use a pipeline release whose environments pin `channel::name=version`",
                )
            })?;
            packages.insert(name, pin);
        }
        let mut name = environment_name(file);
        if out.iter().any(|e| e.name == name) {
            name = format!("{name}-{}", &blake3::hash(file.as_bytes()).to_hex()[..8]);
        }
        out.push(Environment {
            name,
            file,
            packages,
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// `modules/nf-core/fastqc/environment.yml` → `nf-core-fastqc`: a Pixi
/// environment name (`[a-z0-9-]+`) a person recognises.
fn environment_name(file: &str) -> String {
    let dir = file.rsplit_once('/').map_or("", |(dir, _)| dir);
    let dir = dir.strip_prefix("modules/").unwrap_or(dir);
    let mut name = String::new();
    for c in dir.chars() {
        let c = c.to_ascii_lowercase();
        let c = if c.is_ascii_alphanumeric() { c } else { '-' };
        if !(c == '-' && (name.is_empty() || name.ends_with('-'))) {
            name.push(c);
        }
    }
    let name = name.trim_end_matches('-');
    if name.is_empty() || name == "default" {
        format!("env-{}", &blake3::hash(file.as_bytes()).to_hex()[..8])
    } else {
        name.to_owned()
    }
}

/// Reads `[channel::]name[op version[=build]]` (the forms Conda
/// `environment.yml` files use). `name=1.2` is Conda's fuzzy `1.2.*`.
fn parse_match_spec(spec: &str) -> Option<(String, Pin)> {
    let spec = spec.trim();
    let (channel, rest) = match spec.split_once("::") {
        Some((channel, rest)) => (Some(channel.to_owned()), rest),
        None => (None, spec),
    };
    if let Some(channel) = &channel
        && !CHANNELS.contains(&channel.as_str())
    {
        return None;
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(rest.len());
    let (name, constraint) = rest.split_at(end);
    if name.is_empty() || constraint.contains(char::is_whitespace) {
        return None;
    }
    let (version, build) = if let Some(single) = constraint
        .strip_prefix('=')
        .filter(|_| !constraint.starts_with("=="))
    {
        let (version, build) = match single.split_once('=') {
            Some((v, b)) => (v, Some(b.to_owned())),
            None => (single, None),
        };
        if version.is_empty() {
            return None;
        }
        let fuzzy = if version.ends_with('*') {
            version.to_owned()
        } else {
            format!("{version}.*")
        };
        (fuzzy, build)
    } else if constraint.is_empty() {
        ("*".to_owned(), None)
    } else {
        (constraint.to_owned(), None)
    };
    Some((
        name.to_ascii_lowercase(),
        Pin {
            version,
            build,
            channel,
        },
    ))
}

impl Pin {
    fn toml(&self) -> String {
        let mut fields = vec![format!("version = {}", toml_string(&self.version))];
        if let Some(build) = &self.build {
            fields.push(format!("build = {}", toml_string(build)));
        }
        if let Some(channel) = &self.channel {
            fields.push(format!("channel = {}", toml_string(channel)));
        }
        format!("{{ {} }}", fields.join(", "))
    }

    fn closure_text(&self) -> String {
        let mut text = self.version.clone();
        if let Some(build) = &self.build {
            text = format!("{text} {build}");
        }
        match &self.channel {
            Some(channel) => format!("{channel}::{text}"),
            None => text,
        }
    }
}

fn pixi_toml(binding: &SourceBinding, graph_revision: &str, envs: &[Environment<'_>]) -> String {
    let list = |items: &[&str]| {
        let quoted: Vec<String> = items.iter().map(|s| toml_string(s)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let flags: String = envs
        .iter()
        .map(|e| format!(" --environment {}", e.name))
        .collect();
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
         cmd = \"nextflow run {PIPELINE_DIR} -c {SOURCE_CONFIG} -params-file params.json -profile {{{{ profile }}}}\"\n\
         args = [{{ arg = \"profile\", default = \"local\", choices = {} }}]\n\
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
        list(&SOURCE_PROFILES),
    );
    for env in envs {
        let _ = writeln!(out, "# {}", env.file);
        let _ = writeln!(out, "[feature.{}.dependencies]", env.name);
        for (package, pin) in &env.packages {
            let _ = writeln!(out, "{} = {}", toml_string(package), pin.toml());
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
    processes: &[SourceProcessRun],
    by_file: &BTreeMap<&str, &str>,
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
         // Every process runs in its own frozen Pixi environment, never in a container.\n\
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
         // package's pixi.toml; each process evaluates its own before its script.\n\
         process {{\n",
        binding.repository,
        binding.commit,
        groovy_string(TRACE_FILE),
        groovy_string(&TRACE_FIELDS.join(",")),
    );
    let mut processes: Vec<&SourceProcessRun> = processes.iter().collect();
    processes.sort_by(|a, b| a.name.cmp(&b.name));
    for p in processes {
        let environment = by_file[p.environment.as_str()];
        let selector = p.selectors.join("|");
        let _ = write!(
            out,
            "    withName: {} {{\n        \
             beforeScript = \"eval \\\"\\$(pixi shell-hook --frozen --manifest-path \\\"\\$(printf %s '${{{MANIFEST_B64}}}' | base64 -d)\\\" --environment {environment})\\\"\"\n    \
             }}\n",
            groovy_string(&selector),
        );
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
         }\n\
         }\n",
    );
    out
}

fn readme(binding: &SourceBinding) -> String {
    let pinned = match (&binding.release, &binding.git_ref) {
        (Some(release), _) => format!("release {release}"),
        (None, Some(r)) => format!("ref `{r}`"),
        (None, None) => "a commit".to_owned(),
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
         offline, without running any task.\n",
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
    fn match_specs_read_as_pixi_pins() {
        let (name, pin) = parse_match_spec("bioconda::fastqc=0.12.1").unwrap();
        assert_eq!(name, "fastqc");
        assert_eq!(
            pin.toml(),
            r#"{ version = "0.12.1.*", channel = "bioconda" }"#
        );
        let (_, pin) = parse_match_spec("conda-forge::python=3.9=h1_0").unwrap();
        assert_eq!(
            pin.toml(),
            r#"{ version = "3.9.*", build = "h1_0", channel = "conda-forge" }"#
        );
        let (_, pin) = parse_match_spec("multiqc==1.25.1").unwrap();
        assert_eq!(pin.toml(), r#"{ version = "==1.25.1" }"#);
        let (_, pin) = parse_match_spec("sed").unwrap();
        assert_eq!(pin.version, "*");
        assert!(parse_match_spec("defaults::zlib=1").is_none());
        assert!(parse_match_spec("bad spec").is_none());
    }

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
    }
}
