//! The production compiler: a ready graph revision in, a frozen,
//! content-addressed package out.
//!
//! There is exactly one compiler, and the web canvas, the agent's
//! `somite.workflow.compile`, `somite compile`, export and the run
//! supervisor all call it, so what a person reviews is what runs. It is
//! pure: it reads the document, the catalog and the readiness assessment the
//! caller made, and returns every file in memory; the project store decides
//! where they go and how they are published, and runs Pixi to add the lock.
//!
//! Determinism is the point. Every file is a function of the semantic graph
//! and the contracts it pins: the renderers never read the title, the layout
//! or the notes, maps are ordered, names are assigned in id order, and no
//! clock, path or environment variable of the compiling machine reaches a
//! file. The same graph revision therefore compiles to the same bytes on
//! every machine, and the package digest (the revision of the manifest of
//! every file's path, mode, size and BLAKE3) identifies a package exactly.

mod closure;
mod config;
mod documents;
mod manifest;
mod nextflow;
mod pixi;
mod plan;
mod quote;
mod source;
mod task;

pub use closure::{
    ClosureCompiler, ClosureEnvironment, ClosureInputOrigin, ClosureNode, ClosureOperator,
    ClosurePixi, ClosureResource, ClosureSource, ClosureSourceInput, ClosureTargets, ClosureTool,
    RUN_CLOSURE_SCHEMA, RUN_CLOSURE_SCHEMA_VERSION, RunClosure,
};
pub use config::PROFILES;
pub use documents::{NodeMap, NodeMapEntry, PACKAGED_TITLE};
pub use manifest::{ManifestEntry, PackageManifest};
pub use pixi::CHANNELS;
pub use source::{
    PIPELINE_DIR, PREVIEW_TASK, SOURCE_CONFIG, SOURCE_PROFILES, SourceEnvironment, SourceInputs,
    SourceProcessRun, compile_source,
};
pub use task::{TaskEnv, TaskInput, TaskOutput, TaskScript, task_script};

use crate::assessment::{Assessment, ItemKind};
use crate::canonical::{Revision, digest_bytes};
use crate::catalog::Catalog;
use crate::error::{ErrorCode, Result, SomiteError};
use crate::graph::WorkflowDocument;
use crate::resource::BoundResources;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The Nextflow release the generated pipeline is written and pinned for.
pub const TARGET_NEXTFLOW: &str = "26.04.6";
/// The OpenJDK release pinned beside it.
pub const TARGET_OPENJDK: &str = "25.0.2";
/// The Pixi releases the manifest accepts (`requires-pixi`).
pub const PIXI_REQUIREMENT: &str = ">=0.77,<0.78";
/// The task variable holding the path of the package's `pixi.toml`; local
/// and Slurm tasks activate that manifest's environment before the tool runs.
pub const PIXI_MANIFEST: &str = "SOMITE_PIXI_MANIFEST";
/// What nextflow.config exports instead: the same path, base64-encoded,
/// because Nextflow writes the config's `env` scope into `.command.run`
/// unescaped and a project folder may be named anything.
pub const PIXI_MANIFEST_ENCODED: &str = "SOMITE_B64_PIXI_MANIFEST";
/// The conda platforms the workspace is solved for, sorted. `osx-64` also
/// serves Apple silicon through Rosetta, where bioconda has the most builds.
pub const PLATFORMS: [&str; 2] = ["linux-64", "osx-64"];
/// The platform cloud containers are built for.
pub const CLOUD_PLATFORM: &str = "linux-64";
/// Where the conda explicit locks for the cloud profiles live.
pub const CONDA_SPEC_DIR: &str = "conda";
/// Who wrote a package, as the run closure records it.
pub const COMPILER_NAME: &str = "somite-workflow";
pub const COMPILER_VERSION: &str = env!("CARGO_PKG_VERSION");
/// The permission bits of every package file.
pub const FILE_MODE: u32 = 0o644;
/// Where outputs are published unless the run says otherwise.
pub const DEFAULT_OUTDIR: &str = "results";
/// Nextflow's trace file, relative to the launch directory.
pub const TRACE_FILE: &str = "trace.tsv";
/// The trace columns: the runner maps `name` back to a node and reads
/// `status`, `exit` and `hash` for node states and evidence.
pub const TRACE_FIELDS: [&str; 16] = [
    "task_id",
    "hash",
    "native_id",
    "process",
    "tag",
    "name",
    "status",
    "exit",
    "submit",
    "start",
    "complete",
    "duration",
    "realtime",
    "cpus",
    "memory",
    "peak_rss",
];
/// The largest `pixi.lock` a package may carry.
pub const MAX_PIXI_LOCK_BYTES: u64 = 64 * 1024 * 1024;
/// One generated file.
pub const MAX_GENERATED_FILE_BYTES: u64 = 128 * 1024 * 1024;
/// A whole frozen package.
pub const MAX_PACKAGE_BYTES: u64 = 256 * 1024 * 1024;

/// The files Pixi adds to a package once it has solved `pixi.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PixiArtifacts {
    /// `pixi.lock`.
    pub lock: Vec<u8>,
    /// Conda explicit locks for the cloud profiles, by environment name.
    pub conda_specs: BTreeMap<String, Vec<u8>>,
}

/// One file of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageFile {
    pub path: String,
    pub mode: u32,
    pub bytes: Vec<u8>,
}

/// A frozen package, in memory. Its manifest is the trusted description a
/// verifier checks copies against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledPackage {
    files: BTreeMap<String, PackageFile>,
    closure: RunClosure,
    manifest: PackageManifest,
    digest: Revision,
}

/// Compiles `doc` into a package, if `assessment` (the caller's readiness
/// assessment of this very graph) lets it through. A graph that binds a
/// managed resource needs [`compile_bound`].
pub fn compile(
    doc: &WorkflowDocument,
    catalog: &Catalog,
    assessment: &Assessment,
) -> Result<CompiledPackage> {
    compile_bound(doc, catalog, assessment, &BoundResources::new())
}

/// [`compile`], with the managed resources the graph's references name,
/// each verified by the caller just before: `params.json` carries each
/// resource's folder and `run-closure.json` its identity.
pub fn compile_bound(
    doc: &WorkflowDocument,
    catalog: &Catalog,
    assessment: &Assessment,
    resources: &BoundResources,
) -> Result<CompiledPackage> {
    compile_substituted(doc, catalog, assessment, resources, &BTreeSet::new())
}

/// [`compile_bound`] for a validation that cannot run some tool nodes
/// offline (downloads): each node of `substituted` becomes a graph input
/// whose paths, one per output port feeding a node that runs, the
/// validation binds to fixtures. `node-map.json` marks those nodes
/// `substituted`. The package is the validation's own: its digest differs
/// from the package a run of the same graph executes.
pub fn compile_substituted(
    doc: &WorkflowDocument,
    catalog: &Catalog,
    assessment: &Assessment,
    resources: &BoundResources,
    substituted: &BTreeSet<String>,
) -> Result<CompiledPackage> {
    let graph_revision = doc.graph_revision();
    if assessment.graph_revision != graph_revision {
        return Err(SomiteError::new(
            ErrorCode::WorkflowNotReady,
            "cannot compile: the readiness assessment is for another graph revision",
            "assess the current workflow, then compile",
        )
        .with_detail("graph_revision", &graph_revision)
        .with_detail("assessed_graph_revision", &assessment.graph_revision));
    }
    gate(assessment)?;

    let plan = plan::plan(doc, catalog, graph_revision.clone(), resources, substituted)?;
    let mut files = BTreeMap::new();
    let mut add = |path: String, bytes: Vec<u8>| {
        files.insert(
            path.clone(),
            PackageFile {
                path,
                mode: FILE_MODE,
                bytes,
            },
        );
    };
    add("main.nf".into(), nextflow::main_nf(&plan).into_bytes());
    add(
        "nextflow.config".into(),
        config::nextflow_config(&plan).into_bytes(),
    );
    let pixi_toml = pixi::pixi_toml(&plan).into_bytes();
    let manifest_digest = digest_bytes(&pixi_toml);
    add("pixi.toml".into(), pixi_toml);
    add("params.json".into(), pretty(&documents::params_json(&plan)));
    add("node-map.json".into(), pretty(&documents::node_map(&plan)));
    add(
        "workflow.somite.json".into(),
        pretty(&documents::semantic_document(doc, &plan.order)),
    );
    add(
        "assessment.json".into(),
        pretty(&documents::packaged_assessment(assessment)),
    );
    let mut operators = BTreeMap::new();
    for planned in &plan.nodes {
        operators.insert(planned.entry.contract.id.as_str(), planned.entry);
    }
    for (id, entry) in &operators {
        add(format!("operators/{id}.json"), pretty(&entry.contract));
    }
    add("README.md".into(), documents::readme(&plan).into_bytes());

    let closure = RunClosure {
        schema: RUN_CLOSURE_SCHEMA.into(),
        schema_version: RUN_CLOSURE_SCHEMA_VERSION,
        graph_revision,
        nodes: plan
            .nodes
            .iter()
            .map(|n| ClosureNode {
                node_id: n.node.id.clone(),
                operator_id: n.node.operator_id.clone(),
                operator_revision: n.entry.revision.clone(),
                kind: n.entry.contract.kind,
                process: n.process.clone(),
                environment: n.process.as_ref().map(|_| {
                    plan.environments
                        .iter()
                        .find(|e| e.packages == n.entry.contract.pixi)
                        .expect("every external node has an environment")
                        .name
                        .clone()
                }),
                substituted: n.substituted,
            })
            .collect(),
        operators: operators
            .iter()
            .map(|(id, entry)| ClosureOperator {
                id: (*id).to_owned(),
                revision: entry.revision.clone(),
            })
            .collect(),
        platforms: PLATFORMS.iter().map(|p| (*p).to_owned()).collect(),
        pixi: ClosurePixi {
            requirement: PIXI_REQUIREMENT.into(),
            manifest_digest,
            lock_digest: None,
            environments: plan
                .environments
                .iter()
                .map(|e| ClosureEnvironment {
                    name: e.name.clone(),
                    packages: e.packages.clone(),
                })
                .collect(),
        },
        compiler: ClosureCompiler::current(),
        targets: ClosureTargets::current(),
        source: None,
        resources: plan
            .sources
            .iter()
            .flat_map(|source| {
                source.resources.iter().map(|(param, r)| ClosureResource {
                    node_id: source.node_id.to_owned(),
                    param: param.clone(),
                    reference: r.reference.clone(),
                    provider_id: r.provider_id.clone(),
                    release: r.release.clone(),
                    profile: r.profile.clone(),
                    checksum: r.checksum.clone(),
                    tree_digest: r.tree_digest.clone(),
                })
            })
            .collect(),
    };
    CompiledPackage::seal(files, closure)
}

/// What `details.requirements` of a refused compile lists.
#[derive(Serialize)]
struct BlockingRequirement<'a> {
    id: &'a str,
    kind: ItemKind,
    node_id: Option<&'a str>,
    title: &'a str,
}

/// Refuses to compile while a requirement is open, listing every blocking
/// one (compile surfaces show them all, not only the next).
pub fn gate(assessment: &Assessment) -> Result<()> {
    assessment
        .gate("compile")
        .map_err(|e| e.with_detail("requirements", blocking_requirements(assessment)))
}

fn blocking_requirements(assessment: &Assessment) -> Vec<BlockingRequirement<'_>> {
    assessment
        .items
        .iter()
        .filter(|i| i.required)
        .map(|i| BlockingRequirement {
            id: &i.id,
            kind: i.kind,
            node_id: i.node_id.as_deref(),
            title: &i.title,
        })
        .collect()
}

fn pretty<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("package documents serialize");
    bytes.push(b'\n');
    bytes
}

/// `conda/<environment>_linux-64_conda_spec.txt`: the name
/// `pixi workspace export conda-explicit-spec` gives the lock of one
/// environment on the cloud platform.
pub fn conda_spec_path(environment: &str) -> String {
    format!("{CONDA_SPEC_DIR}/{environment}_{CLOUD_PLATFORM}_conda_spec.txt")
}

/// The first 12 hex digits of a revision, for names a person reads.
pub(crate) fn short_revision(revision: &str) -> &str {
    let hex = revision.strip_prefix("blake3:").unwrap_or(revision);
    &hex[..hex.len().min(12)]
}

impl CompiledPackage {
    /// Adds `run-closure.json`, checks the limits and computes the manifest.
    fn seal(
        mut files: BTreeMap<String, PackageFile>,
        closure: RunClosure,
    ) -> Result<CompiledPackage> {
        closure.validate()?;
        files.insert(
            "run-closure.json".into(),
            PackageFile {
                path: "run-closure.json".into(),
                mode: FILE_MODE,
                bytes: pretty(&closure),
            },
        );
        let too_large = |what: String, limit: u64| {
            SomiteError::new(
                ErrorCode::PayloadTooLarge,
                format!("cannot compile: {what} exceeds {limit} bytes"),
                "split the workflow into smaller ones",
            )
        };
        let mut total = 0u64;
        for file in files.values() {
            let size = file.bytes.len() as u64;
            if size > MAX_GENERATED_FILE_BYTES {
                return Err(too_large(file.path.clone(), MAX_GENERATED_FILE_BYTES));
            }
            total += size;
        }
        if total > MAX_PACKAGE_BYTES {
            return Err(too_large("the package".into(), MAX_PACKAGE_BYTES));
        }
        let manifest = PackageManifest::of(
            files
                .values()
                .map(|f| (f.path.as_str(), f.mode, f.bytes.as_slice())),
        );
        let digest = manifest.digest();
        Ok(CompiledPackage {
            files,
            closure,
            manifest,
            digest,
        })
    }

    /// Adds what Pixi produced: `pixi.lock` (recorded in the run closure)
    /// and the conda explicit locks of the cloud profiles. The result is a
    /// different package with its own digest.
    pub fn with_pixi_artifacts(self, artifacts: PixiArtifacts) -> Result<CompiledPackage> {
        if artifacts.lock.len() as u64 > MAX_PIXI_LOCK_BYTES {
            return Err(SomiteError::new(
                ErrorCode::PayloadTooLarge,
                format!("pixi.lock exceeds {MAX_PIXI_LOCK_BYTES} bytes"),
                "reduce the number of tool environments in the workflow",
            ));
        }
        let CompiledPackage {
            mut files,
            mut closure,
            ..
        } = self;
        for (environment, spec) in artifacts.conda_specs {
            if !closure
                .pixi
                .environments
                .iter()
                .any(|e| e.name == environment)
            {
                return Err(SomiteError::new(
                    ErrorCode::InvalidDocument,
                    format!("a conda spec names unknown environment `{environment}`"),
                    "export the specs from this package's own pixi.toml",
                ));
            }
            let path = conda_spec_path(&environment);
            files.insert(
                path.clone(),
                PackageFile {
                    path,
                    mode: FILE_MODE,
                    bytes: spec,
                },
            );
        }
        closure.pixi.lock_digest = Some(digest_bytes(&artifacts.lock));
        files.insert(
            "pixi.lock".into(),
            PackageFile {
                path: "pixi.lock".into(),
                mode: FILE_MODE,
                bytes: artifacts.lock,
            },
        );
        CompiledPackage::seal(files, closure)
    }

    /// `blake3:<hex>` of the manifest.
    pub fn digest(&self) -> &Revision {
        &self.digest
    }

    /// The 64 hex digits of the digest: the package's directory name.
    pub fn directory_name(&self) -> &str {
        self.digest.strip_prefix("blake3:").unwrap_or(&self.digest)
    }

    pub fn manifest(&self) -> &PackageManifest {
        &self.manifest
    }

    pub fn run_closure(&self) -> &RunClosure {
        &self.closure
    }

    /// Every file, in path order.
    pub fn files(&self) -> impl Iterator<Item = &PackageFile> {
        self.files.values()
    }

    pub fn file(&self, path: &str) -> Option<&PackageFile> {
        self.files.get(path)
    }

    /// The names of the tool environments, for `pixi` commands.
    pub fn environments(&self) -> impl Iterator<Item = &str> {
        self.closure
            .pixi
            .environments
            .iter()
            .map(|e| e.name.as_str())
    }

    /// The sum of all file sizes.
    pub fn total_size(&self) -> u64 {
        self.manifest.total_size()
    }
}
