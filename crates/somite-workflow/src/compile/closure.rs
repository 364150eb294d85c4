//! `run-closure.json`: the complete, versioned record of what a package runs.
//!
//! Evidence binds to a closure, and the verified attachment trusts a package
//! only when its closure passes [`RunClosure::validate`], so the record is
//! strict in both directions: unknown fields are rejected when it is read,
//! every field is required (an absent lock is an explicit `null`), and the
//! validation checks the relations a type cannot express — sorted, unique
//! operator and node lists that agree with each other, digests of the right
//! shape, and the exact toolchain this compiler targets.

use super::{
    COMPILER_NAME, COMPILER_VERSION, PIXI_REQUIREMENT, PLATFORMS, TARGET_NEXTFLOW, TARGET_OPENJDK,
};
use crate::canonical::{Revision, is_revision};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::operator::OperatorKind;
use crate::source::SourceProvider;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The closure format this compiler writes and the verifier accepts.
pub const RUN_CLOSURE_SCHEMA: &str = "somite.run-closure";
pub const RUN_CLOSURE_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunClosure {
    pub schema: String,
    pub schema_version: u32,
    /// The semantic graph revision the package was frozen from.
    pub graph_revision: Revision,
    /// Every node, by id: what it runs and what it became.
    pub nodes: Vec<ClosureNode>,
    /// Every operator contract used, by id.
    pub operators: Vec<ClosureOperator>,
    /// The conda platforms the Pixi workspace is solved for.
    pub platforms: Vec<String>,
    pub pixi: ClosurePixi,
    pub compiler: ClosureCompiler,
    pub targets: ClosureTargets,
    /// The pinned pipeline of a source workflow; absent for a native one,
    /// whose nodes and operators say what runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ClosureSource>,
    /// The managed resources the graph binds (a Kraken2 database), by node
    /// and parameter: which database a result was produced with. Absent
    /// when the graph binds none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<ClosureResource>,
}

/// One managed resource a package uses where it is installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureResource {
    pub node_id: String,
    pub param: String,
    /// `somite-resource:<provider>@<release>`, as the graph names it.
    pub reference: String,
    pub provider_id: String,
    pub release: String,
    pub profile: String,
    /// The archive's checksum as its publisher lists it, `<algorithm>:<hex>`.
    pub checksum: String,
    /// `blake3:<hex>` of the installed tree, verified when compiling.
    pub tree_digest: String,
}

/// What a source workflow's package runs: the pipeline at one commit and
/// tree digest, and the Pixi environment of each of its processes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureSource {
    pub node_id: String,
    pub provider: SourceProvider,
    pub repository: String,
    #[serde(deserialize_with = "required")]
    pub release: Option<String>,
    #[serde(deserialize_with = "required")]
    pub git_ref: Option<String>,
    pub commit: String,
    pub tree_digest: Revision,
    /// Process name → Pixi environment.
    pub processes: BTreeMap<String, String>,
    /// Processes that run in the container they declare (process name →
    /// its images as written, not pinned by Somite), under the engine the
    /// run selects.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub containers: BTreeMap<String, Vec<String>>,
    /// Processes with no environment: a task that reaches one fails at once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<String>,
    /// Path inputs that are not plain local files: files of the pinned tree,
    /// remote inputs Nextflow fetches, remote inputs pinned to a copy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<ClosureSourceInput>,
}

/// One path parameter of a source run and where its file comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureSourceInput {
    pub param: String,
    pub origin: ClosureInputOrigin,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClosureInputOrigin {
    /// A file of the pinned tree, bound by its digest.
    Bundled {
        path: String,
        bytes: u64,
        digest: Revision,
    },
    /// A remote location Nextflow fetches when the run needs it; nothing
    /// binds its bytes.
    UnpinnedRemote { url: String },
    /// A remote input downloaded once; the run stages the local copy, whose
    /// size and digest were recorded.
    PinnedRemote {
        url: String,
        path: String,
        bytes: u64,
        digest: Revision,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureNode {
    pub node_id: String,
    pub operator_id: String,
    pub operator_revision: Revision,
    pub kind: OperatorKind,
    /// The Nextflow process of an external node; `null` for the others.
    #[serde(deserialize_with = "required")]
    pub process: Option<String>,
    /// The Pixi environment the process runs in; `null` for the others.
    #[serde(deserialize_with = "required")]
    pub environment: Option<String>,
    /// An external node a validation package stands in for with fixtures
    /// (no process, no environment); absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub substituted: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureOperator {
    pub id: String,
    pub revision: Revision,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosurePixi {
    /// The Pixi versions the manifest requires (`requires-pixi`).
    pub requirement: String,
    /// BLAKE3 of `pixi.toml`.
    pub manifest_digest: Revision,
    /// BLAKE3 of `pixi.lock`, or `null` when Pixi was not available to lock.
    #[serde(deserialize_with = "required")]
    pub lock_digest: Option<Revision>,
    /// Each tool environment with its exact package pins.
    pub environments: Vec<ClosureEnvironment>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureEnvironment {
    pub name: String,
    pub packages: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureCompiler {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureTargets {
    pub nextflow: ClosureTool,
    pub java: ClosureTool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosureTool {
    /// The conda package that provides it.
    pub package: String,
    pub version: String,
}

/// Makes an `Option` field required: serde otherwise treats a missing
/// `Option` as `None`, and a closure must say `null` explicitly.
fn required<'de, D, T>(deserializer: D) -> std::result::Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::deserialize(deserializer)
}

impl ClosureTargets {
    /// The toolchain this compiler writes packages for.
    pub fn current() -> ClosureTargets {
        ClosureTargets {
            nextflow: ClosureTool {
                package: "nextflow".into(),
                version: TARGET_NEXTFLOW.into(),
            },
            java: ClosureTool {
                package: "openjdk".into(),
                version: TARGET_OPENJDK.into(),
            },
        }
    }
}

impl ClosureCompiler {
    pub fn current() -> ClosureCompiler {
        ClosureCompiler {
            name: COMPILER_NAME.into(),
            version: COMPILER_VERSION.into(),
        }
    }
}

impl RunClosure {
    /// Parses a closure strictly and validates it.
    pub fn from_json(bytes: &[u8]) -> Result<RunClosure> {
        let closure: RunClosure = serde_json::from_slice(bytes)
            .map_err(|e| invalid(format!("run-closure.json does not match the schema: {e}")))?;
        closure.validate()?;
        Ok(closure)
    }

    /// Checks everything the schema's types cannot.
    pub fn validate(&self) -> Result<()> {
        if self.schema != RUN_CLOSURE_SCHEMA || self.schema_version != RUN_CLOSURE_SCHEMA_VERSION {
            return Err(invalid(format!(
                "schema {} version {} is not {RUN_CLOSURE_SCHEMA} version {RUN_CLOSURE_SCHEMA_VERSION}",
                self.schema, self.schema_version
            )));
        }
        check_revision("graph_revision", &self.graph_revision)?;
        check_revision("pixi.manifest_digest", &self.pixi.manifest_digest)?;
        if let Some(lock) = &self.pixi.lock_digest {
            check_revision("pixi.lock_digest", lock)?;
        }
        if self.pixi.requirement != PIXI_REQUIREMENT {
            return Err(invalid(format!(
                "pixi.requirement is `{}`, not `{PIXI_REQUIREMENT}`",
                self.pixi.requirement
            )));
        }
        if self.compiler.name != COMPILER_NAME || self.compiler.version.is_empty() {
            return Err(invalid("compiler does not name this compiler".into()));
        }
        if self.targets != ClosureTargets::current() {
            return Err(invalid(format!(
                "targets are not Nextflow {TARGET_NEXTFLOW} on OpenJDK {TARGET_OPENJDK}"
            )));
        }
        if self.platforms.is_empty()
            || !strictly_sorted(self.platforms.iter().map(String::as_str))
            || self
                .platforms
                .iter()
                .any(|p| !PLATFORMS.contains(&p.as_str()))
        {
            return Err(invalid(format!(
                "platforms must be a sorted, non-empty subset of {}",
                PLATFORMS.join(", ")
            )));
        }

        if !strictly_sorted(self.operators.iter().map(|o| o.id.as_str())) {
            return Err(invalid(
                "operators must be sorted by id without repeats".into(),
            ));
        }
        for operator in &self.operators {
            check_revision(
                &format!("operators.{}.revision", operator.id),
                &operator.revision,
            )?;
        }
        let operators: BTreeMap<&str, &str> = self
            .operators
            .iter()
            .map(|o| (o.id.as_str(), o.revision.as_str()))
            .collect();

        let resource_keys: Vec<String> = self
            .resources
            .iter()
            .map(|r| format!("{}\u{0}{}", r.node_id, r.param))
            .collect();
        if !strictly_sorted(resource_keys.iter().map(String::as_str)) {
            return Err(invalid(
                "resources must be sorted by node and parameter without repeats".into(),
            ));
        }
        for resource in &self.resources {
            if !self.nodes.iter().any(|n| n.node_id == resource.node_id) {
                return Err(invalid(format!(
                    "resources names node {}, which is not in nodes",
                    resource.node_id
                )));
            }
            if !crate::resource::is_reference(&resource.reference) {
                return Err(invalid(format!(
                    "resources.{}.reference is not a managed-resource reference",
                    resource.node_id
                )));
            }
        }
        if !strictly_sorted(self.nodes.iter().map(|n| n.node_id.as_str())) {
            return Err(invalid("nodes must be sorted by id without repeats".into()));
        }
        let environments: BTreeSet<&str> = self
            .pixi
            .environments
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        if !strictly_sorted(self.pixi.environments.iter().map(|e| e.name.as_str())) {
            return Err(invalid(
                "pixi.environments must be sorted by name without repeats".into(),
            ));
        }
        let mut used = BTreeSet::new();
        let mut processes = BTreeSet::new();
        for node in &self.nodes {
            if operators.get(node.operator_id.as_str()) != Some(&node.operator_revision.as_str()) {
                return Err(invalid(format!(
                    "node {} pins {} at a revision the operators list does not hold",
                    node.node_id, node.operator_id
                )));
            }
            used.insert(node.operator_id.as_str());
            let external = node.kind == OperatorKind::External;
            match (&node.process, &node.environment) {
                (Some(process), Some(environment)) if external => {
                    if !processes.insert(process.as_str()) {
                        return Err(invalid(format!("process {process} appears twice")));
                    }
                    if !environments.contains(environment.as_str()) {
                        return Err(invalid(format!(
                            "node {} runs in unknown environment {environment}",
                            node.node_id
                        )));
                    }
                }
                (None, None) if !external || node.substituted => {}
                _ => {
                    return Err(invalid(format!(
                        "node {}: a process and an environment belong to exactly the external nodes",
                        node.node_id
                    )));
                }
            }
        }
        if used.len() != operators.len() {
            return Err(invalid("operators lists a contract no node uses".into()));
        }
        if let Some(source) = &self.source {
            check_revision("source.tree_digest", &source.tree_digest)?;
            if !self.nodes.is_empty() {
                return Err(invalid(
                    "a source closure runs the pipeline, not nodes".into(),
                ));
            }
            if let Some(env) = source
                .processes
                .values()
                .find(|e| !environments.contains(e.as_str()))
            {
                return Err(invalid(format!(
                    "a process runs in unknown environment {env}"
                )));
            }
        }
        Ok(())
    }
}

fn strictly_sorted<'a>(items: impl Iterator<Item = &'a str>) -> bool {
    let items: Vec<&str> = items.collect();
    items.windows(2).all(|pair| pair[0] < pair[1])
}

fn check_revision(field: &str, value: &str) -> Result<()> {
    if is_revision(value) {
        Ok(())
    } else {
        Err(invalid(format!("{field} is not a blake3:<64 hex> digest")))
    }
}

fn invalid(message: String) -> SomiteError {
    SomiteError::new(
        ErrorCode::InvalidDocument,
        format!("invalid run closure: {message}"),
        "compile the workflow again; a run closure is never edited by hand",
    )
}
