//! Operator contracts: what a node on the canvas may be.
//!
//! A contract is a reviewed file under `operators/` (or a project's
//! `.somite/operators/`). It is parsed strictly — an unknown field is an error,
//! not a silently ignored typo — and then checked as a whole: every argv
//! placeholder must name a real parameter or port, every output port must have
//! a glob, every default must fit its own range. The command is an argv array;
//! there is no shell string anywhere for a value to be interpolated into.

use crate::canonical::{Revision, revision_of};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::source_map::ContractSource;
use crate::types::PortType;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// What running a node of this operator means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum OperatorKind {
    /// Runs a pinned binary as a Nextflow process.
    External,
    /// Computed by Somite itself; never becomes a process.
    Inprocess,
    /// Binds a reference resource (a database, an index) from a local path.
    Reference,
    /// Binds user data (reads, a genome) from a local path.
    Source,
}

/// A rough size of the work, for the palette and the run planner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Cost {
    Trivial,
    Light,
    Moderate,
    Heavy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ParamType {
    Bool,
    Int,
    Float,
    String,
}

/// A typed parameter of an operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ParamType,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    #[serde(default)]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
}

/// How a requirement can be met.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
// Named apart from the assessment's wider set of the same name.
#[cfg_attr(feature = "schemars", schemars(rename = "ResourceResolutionKind"))]
#[serde(rename_all = "snake_case")]
pub enum ResolutionKind {
    UseExisting,
    Download,
    Build,
}

/// One reviewed way to provide a managed resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ResourceResolution {
    pub id: String,
    pub label: String,
    pub kind: ResolutionKind,
    #[serde(default)]
    pub recommended: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored_bytes: Option<u64>,
    /// What choosing this resource changes in the science (e.g. which taxa a
    /// database can classify). A choice with a scientific effect is one an
    /// agent may escalate to the user rather than make silently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scientific_effect: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// The recipe version, so a readiness answer names exactly what would run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// A managed resource an input needs (a database, a prebuilt index).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ResourceRequirement {
    pub profile: String,
    pub title: String,
    pub detail: String,
    #[serde(default)]
    pub resolutions: Vec<ResourceResolution>,
}

/// One input or output port of an operator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: PortType,
    /// Further types an input accepts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub union: Vec<PortType>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// For an input: the managed resource it needs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<ResourceRequirement>,
    /// For an output: the resource profile it provides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_profile: Option<String>,
    /// For an input: the file name it is staged as in the task directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage_as: Option<String>,
    /// For a source or reference output: the parameter holding its local path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import_param: Option<String>,
}

impl PortSpec {
    /// Whether an edge from `source` may end at this input port.
    pub fn accepts(&self, source: &PortSpec) -> bool {
        let type_ok = source.ty == self.ty || self.union.contains(&source.ty);
        let profile_ok = match &self.resource {
            Some(need) => source.resource_profile.as_deref() == Some(need.profile.as_str()),
            None => true,
        };
        type_ok && profile_ok
    }

    /// Why an edge from `source` may not end here, for a refusal a person can act on.
    pub fn refusal(&self, source: &PortSpec) -> Option<String> {
        if !(source.ty == self.ty || self.union.contains(&source.ty)) {
            let mut accepted = vec![self.ty.name()];
            accepted.extend(self.union.iter().map(|t| t.name()));
            return Some(format!(
                "port `{}` accepts {}, not {}",
                self.name,
                accepted.join(" | "),
                source.ty
            ));
        }
        if let Some(need) = &self.resource
            && source.resource_profile.as_deref() != Some(need.profile.as_str())
        {
            return Some(format!(
                "port `{}` needs a {} resource (profile `{}`)",
                self.name, source.ty, need.profile
            ));
        }
        None
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Ports {
    #[serde(default, rename = "in")]
    pub inputs: Vec<PortSpec>,
    #[serde(default, rename = "out")]
    pub outputs: Vec<PortSpec>,
}

/// Where a declared output is found after the command ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OutputSpec {
    /// A glob relative to the task directory, usually under `{work}/out`.
    pub glob: String,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<PortType>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
    /// The command writes the glob's path without its `.gz` suffix and the
    /// task compresses it (`gzip -n`): for a tool with no compressed output
    /// of its own, such as fasterq-dump.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gzip: bool,
    /// A published checksum the output must match before the task counts
    /// as done (a download verified against its provider's listing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<ChecksumSpec>,
}

/// How a downloaded output is verified.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChecksumSpec {
    pub algorithm: ChecksumAlgorithm,
    /// The checksum listing the command fetched, relative to the task
    /// folder; the output's line in it is found by the output's file name.
    pub listing: String,
}

/// The checksum algorithms providers publish that a task can verify.
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChecksumAlgorithm {
    /// The Unix `sum` command's default (BSD) 16-bit checksum and its count
    /// of 1 KiB blocks, one `CHECKSUM BLOCKS NAME` line per file: what
    /// Ensembl's FTP `CHECKSUMS` files hold (Ensembl's release pipeline
    /// writes them with `sum`: ensembl-production's
    /// `Pipeline/Common/ChksumGenerator.pm`). Verified with GNU `sum -r`,
    /// which the `sum(1)` manual documents as the BSD algorithm with 1K
    /// blocks.
    BsdSum,
}

/// The palette group of the operators that fetch public data (source
/// recipes). A validation stands in with fixtures for the download nodes
/// and for the nodes of this group they alone feed (fasterq-dump after
/// prefetch, the package extraction after `datasets`), whose inputs only a
/// download produces.
pub const PUBLIC_DATA_PALETTE: &str = "Public data";

/// A reviewed operator contract.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OperatorContract {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub palette: String,
    pub kind: OperatorKind,
    pub cost: Cost,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bin: Option<String>,
    /// Pinned conda packages: name → exact version.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pixi: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ContractResources>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<ParamSpec>,
    #[serde(default)]
    pub ports: Ports,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub argv: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub outputs: BTreeMap<String, OutputSpec>,
    /// The output port that receives the command's standard output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// The command fetches public data over the network (an SRA run, an
    /// assembly package, an Ensembl file): readiness says so, and a
    /// validation, which runs offline, substitutes a fixture for its outputs.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub network: bool,
    /// The nf-core module this operator stands for, when it runs the same
    /// tool the same way, with how the module's channels meet its ports:
    /// replacing or promoting that module's invocations uses this mapping.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nf_core: Option<NfCoreModule>,
    /// Where the catalog read this contract from, field by field; set by
    /// [`crate::catalog::Catalog::parse_contract`], never part of the file.
    #[serde(skip)]
    pub source: Option<ContractSource>,
}

/// The nf-core module an operator stands for (`[nf_core]` of a contract).
///
/// A module's channel may carry several files an operator takes on several
/// ports: nf-core's `tuple val(meta), path(reads)` holds one FASTQ or a pair,
/// which an operator takes as `r1` and `r2`. So each channel names the
/// operator ports it meets, in order: the first file to the first port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NfCoreModule {
    /// The module's path under `modules/nf-core/` (`fastqc`, `bwa/mem`).
    pub module: String,
    /// Each input component the module declares (`reads`, `index`) → the
    /// operator inputs it feeds. `val(meta)` is never a port.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inputs: BTreeMap<String, Vec<String>>,
    /// Each output the module emits (`bam`, `html`) → the operator outputs
    /// that stand for it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub outputs: BTreeMap<String, Vec<String>>,
    /// A channel's name in older versions of the module → its name in
    /// `inputs` or `outputs` (`bam` → `reads`): a pipeline pins the module
    /// at the version it was written against.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub renamed: BTreeMap<String, String>,
}

impl NfCoreModule {
    /// A module path: one or two lower-case segments of letters, digits and
    /// `_`, as nf-core/modules names them.
    fn is_module_path(path: &str) -> bool {
        let segments: Vec<&str> = path.split('/').collect();
        segments.len() <= 2
            && segments.iter().all(|s| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            })
    }
}

/// Compute a task asks for, as written in a contract file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ContractResources {
    pub cpus: u32,
    pub memory_gb: u32,
    /// The parameter that sets the tool's thread count; the compiler ties it
    /// to `task.cpus` when the user has not set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads_param: Option<String>,
}

/// A parsed argv token: literal text interleaved with placeholders, possibly
/// conditional on whether an input is bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgTemplate {
    pub condition: Option<ArgCondition>,
    pub parts: Vec<ArgPart>,
}

impl ArgTemplate {
    /// Whether the token is part of the command, given which input ports are
    /// connected (`?port:` only when bound, `?!port:` only when unbound).
    pub fn applies(&self, bound: impl Fn(&str) -> bool) -> bool {
        match &self.condition {
            None => true,
            Some(ArgCondition::Bound(port)) => bound(port),
            Some(ArgCondition::Unbound(port)) => !bound(port),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgCondition {
    /// `?port:tok` — only when `port` is connected.
    Bound(String),
    /// `?!port:tok` — only when `port` is not connected.
    Unbound(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgPart {
    Literal(String),
    /// `{param.x}`: the parameter's value.
    Param(String),
    /// `{flag.x}`: `--x` when the boolean parameter is true, nothing otherwise.
    Flag(String),
    /// `{input.port}`: the staged file name of the input.
    Input(String),
    /// `{work}`: the task's working directory.
    Work,
}

impl ArgTemplate {
    /// Parses one argv token of a contract.
    pub fn parse(token: &str) -> std::result::Result<ArgTemplate, String> {
        let (condition, body) = if let Some(rest) = token.strip_prefix("?!") {
            let (port, body) = rest
                .split_once(':')
                .ok_or_else(|| format!("`{token}`: a condition needs `?!port:token`"))?;
            (Some(ArgCondition::Unbound(port.to_owned())), body)
        } else if let Some(rest) = token.strip_prefix('?') {
            let (port, body) = rest
                .split_once(':')
                .ok_or_else(|| format!("`{token}`: a condition needs `?port:token`"))?;
            (Some(ArgCondition::Bound(port.to_owned())), body)
        } else {
            (None, token)
        };
        let mut parts = Vec::new();
        let mut rest = body;
        while let Some(start) = rest.find('{') {
            if start > 0 {
                parts.push(ArgPart::Literal(rest[..start].to_owned()));
            }
            let end = rest[start..]
                .find('}')
                .ok_or_else(|| format!("`{token}`: unclosed `{{`"))?
                + start;
            let name = &rest[start + 1..end];
            let part = match name.split_once('.') {
                Some(("param", p)) => ArgPart::Param(p.to_owned()),
                Some(("flag", p)) => ArgPart::Flag(p.to_owned()),
                Some(("input", p)) => ArgPart::Input(p.to_owned()),
                None if name == "work" => ArgPart::Work,
                _ => return Err(format!("`{token}`: unknown placeholder `{{{name}}}`")),
            };
            parts.push(part);
            rest = &rest[end + 1..];
        }
        if !rest.is_empty() {
            parts.push(ArgPart::Literal(rest.to_owned()));
        }
        if parts.is_empty() {
            return Err(format!("`{token}`: an empty argv token"));
        }
        Ok(ArgTemplate { condition, parts })
    }
}

impl Ports {
    /// Whether parameter `param` holds the local path an output imports.
    pub fn imports(&self, param: &str) -> bool {
        self.outputs
            .iter()
            .any(|p| p.import_param.as_deref() == Some(param))
    }
}

impl OperatorContract {
    /// Parses a TOML contract file strictly and validates it.
    pub fn from_toml(text: &str) -> Result<OperatorContract> {
        let contract: OperatorContract = toml::from_str(text).map_err(|e| {
            SomiteError::new(
                ErrorCode::InvalidContract,
                format!("operator contract does not parse: {e}"),
                "fix the contract file; unknown fields are rejected",
            )
        })?;
        contract.validate()?;
        Ok(contract)
    }

    /// Parses a JSON contract strictly and validates it.
    pub fn from_json(text: &str) -> Result<OperatorContract> {
        let contract: OperatorContract = serde_json::from_str(text).map_err(|e| {
            SomiteError::new(
                ErrorCode::InvalidContract,
                format!("operator contract does not parse: {e}"),
                "fix the contract file; unknown fields are rejected",
            )
        })?;
        contract.validate()?;
        Ok(contract)
    }

    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }

    pub fn input(&self, name: &str) -> Option<&PortSpec> {
        self.ports.inputs.iter().find(|p| p.name == name)
    }

    pub fn output(&self, name: &str) -> Option<&PortSpec> {
        self.ports.outputs.iter().find(|p| p.name == name)
    }

    /// The parsed argv templates. Contracts are validated on load, so this
    /// cannot fail for a contract that came from the catalog.
    pub fn argv_templates(&self) -> Vec<ArgTemplate> {
        self.argv
            .iter()
            .map(|t| ArgTemplate::parse(t).expect("validated contract"))
            .collect()
    }

    /// The execution-relevant identity: what changes if the command changes,
    /// and nothing that only changes how it is shown.
    pub fn revision(&self) -> Revision {
        let params: Vec<Value> = self
            .params
            .iter()
            .map(|p| {
                json!({"name": p.name, "type": p.ty, "default": p.default, "required": p.required,
                       "min": p.min, "max": p.max, "choices": p.choices})
            })
            .collect();
        let ports = |ports: &[PortSpec]| -> Vec<Value> {
            ports
                .iter()
                .map(|p| {
                    json!({"name": p.name, "type": p.ty, "union": p.union, "optional": p.optional,
                           "resource": p.resource.as_ref().map(|r| &r.profile),
                           "resource_profile": p.resource_profile, "stage_as": p.stage_as,
                           "import_param": p.import_param})
                })
                .collect()
        };
        let mut identity = json!({
            "id": self.id,
            "kind": self.kind,
            "bin": self.bin,
            "pixi": self.pixi,
            "resources": self.resources,
            "params": params,
            "ports": {"in": ports(&self.ports.inputs), "out": ports(&self.ports.outputs)},
            "argv": self.argv,
            "outputs": self.outputs,
            "stdout": self.stdout,
        });
        // Only when set, so the revisions of contracts without it (every
        // tool contract before network operators existed) stay as pinned.
        if self.network {
            identity["network"] = json!(true);
        }
        revision_of(&identity)
    }

    /// Checks the contract as a whole.
    pub fn validate(&self) -> Result<()> {
        let fail = |what: String| {
            Err(SomiteError::new(
                ErrorCode::InvalidContract,
                format!("operator `{}`: {what}", self.id),
                "fix the contract file and reload the catalog",
            ))
        };
        if !is_operator_id(&self.id) {
            return fail(format!(
                "an id is `family.name` in lower case letters, digits and `_`, at most {} characters",
                crate::limits::MAX_OPERATOR_ID_BYTES
            ));
        }
        let mut names = BTreeSet::new();
        for p in &self.params {
            if !names.insert(("param", p.name.as_str())) {
                return fail(format!("parameter `{}` is declared twice", p.name));
            }
            if let Some(default) = &p.default
                && let Err(e) = check_param_value(p, default)
            {
                return fail(format!("the default of `{}` is invalid: {e}", p.name));
            }
            if p.ty == ParamType::String && (p.min.is_some() || p.max.is_some()) {
                return fail(format!("string parameter `{}` cannot have a range", p.name));
            }
        }
        for p in self.ports.inputs.iter().chain(&self.ports.outputs) {
            if !names.insert(("port", p.name.as_str())) {
                return fail(format!("port `{}` is declared twice", p.name));
            }
        }
        for p in &self.ports.outputs {
            if let Some(param) = &p.import_param {
                if self.param(param).is_none_or(|s| s.ty != ParamType::String) {
                    return fail(format!(
                        "output `{}` imports from `{param}`, which is not a string parameter",
                        p.name
                    ));
                }
                continue;
            }
            if self.kind == OperatorKind::External
                && !self.outputs.contains_key(&p.name)
                && self.stdout.as_deref() != Some(p.name.as_str())
            {
                return fail(format!("output `{}` has no glob and is not stdout", p.name));
            }
        }
        for (port, spec) in &self.outputs {
            match self.output(port) {
                None => return fail(format!("outputs names unknown port `{port}`")),
                Some(p) if spec.ty.is_some_and(|t| t != p.ty) => {
                    return fail(format!("outputs.{port}.type differs from the port's type"));
                }
                Some(_) => {}
            }
        }
        for (port, spec) in &self.outputs {
            if spec.gzip {
                let plain = spec.glob.strip_suffix(".gz").unwrap_or_default();
                if plain.is_empty() || plain.contains(GLOB_CHARS) {
                    return fail(format!(
                        "outputs.{port}.gzip needs a literal glob ending in `.gz`"
                    ));
                }
                if !self.pixi.contains_key("gzip") {
                    return fail(format!("outputs.{port}.gzip needs gzip pinned in pixi"));
                }
            }
            if let Some(checksum) = &spec.checksum {
                if !is_task_relative(&checksum.listing) {
                    return fail(format!(
                        "outputs.{port}.checksum.listing must be a literal path inside the task folder"
                    ));
                }
                if !self.pixi.contains_key("coreutils") {
                    return fail(format!(
                        "outputs.{port}.checksum needs coreutils (`sum`) pinned in pixi"
                    ));
                }
            }
        }
        if let Some(nf_core) = &self.nf_core {
            if !NfCoreModule::is_module_path(&nf_core.module) {
                return fail(format!(
                    "nf_core.module `{}` is not an nf-core module path such as `bwa/mem`",
                    nf_core.module
                ));
            }
            for (side, map, ports) in [
                ("inputs", &nf_core.inputs, &self.ports.inputs),
                ("outputs", &nf_core.outputs, &self.ports.outputs),
            ] {
                let mut met = BTreeSet::new();
                for (channel, targets) in map {
                    if targets.is_empty() {
                        return fail(format!("nf_core.{side}.{channel} names no port"));
                    }
                    for port in targets {
                        if !ports.iter().any(|p| p.name == *port) {
                            return fail(format!(
                                "nf_core.{side}.{channel} names unknown port `{port}`"
                            ));
                        }
                        if !met.insert(port.as_str()) {
                            return fail(format!("nf_core.{side} meets port `{port}` twice"));
                        }
                    }
                }
            }
            for (old, current) in &nf_core.renamed {
                let known = |name: &str| {
                    nf_core.inputs.contains_key(name) || nf_core.outputs.contains_key(name)
                };
                if !known(current) || known(old) {
                    return fail(format!(
                        "nf_core.renamed.{old} must name a channel of inputs or outputs, under a name they do not use"
                    ));
                }
            }
        }
        if self.network && self.kind != OperatorKind::External {
            return fail("only an external operator fetches over the network".into());
        }
        if let Some(port) = &self.stdout
            && self.output(port).is_none()
        {
            return fail(format!("stdout names unknown port `{port}`"));
        }
        if let Some(resources) = &self.resources
            && let Some(param) = &resources.threads_param
            && self.param(param).is_none_or(|p| p.ty != ParamType::Int)
        {
            return fail(format!("threads_param `{param}` is not an int parameter"));
        }
        match self.kind {
            OperatorKind::External => {
                if self.argv.is_empty() || self.bin.is_none() || self.pixi.is_empty() {
                    return fail("an external operator needs bin, pixi and argv".into());
                }
                if self.argv[0] != *self.bin.as_ref().expect("checked") {
                    return fail("argv must start with the binary named in bin".into());
                }
            }
            OperatorKind::Source | OperatorKind::Reference | OperatorKind::Inprocess => {
                if !self.argv.is_empty() {
                    return fail("only external operators have an argv".into());
                }
            }
        }
        for token in &self.argv {
            let template = match ArgTemplate::parse(token) {
                Ok(t) => t,
                Err(e) => return fail(e),
            };
            if let Some(ArgCondition::Bound(port) | ArgCondition::Unbound(port)) =
                &template.condition
                && self.input(port).is_none()
            {
                return fail(format!("argv condition names unknown input `{port}`"));
            }
            for part in &template.parts {
                match part {
                    ArgPart::Param(p) if self.param(p).is_none() => {
                        return fail(format!("argv names unknown parameter `{p}`"));
                    }
                    ArgPart::Flag(p) if self.param(p).is_none_or(|s| s.ty != ParamType::Bool) => {
                        return fail(format!("argv flag `{p}` is not a bool parameter"));
                    }
                    ArgPart::Input(p) if self.input(p).is_none() => {
                        return fail(format!("argv names unknown input `{p}`"));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }
}

/// The characters that make a glob match more than one literal name.
const GLOB_CHARS: &[char] = &['*', '?', '['];

/// A literal relative path that stays inside the task folder.
fn is_task_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.contains(GLOB_CHARS)
        && !path.chars().any(char::is_control)
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// `family.name`, lower case.
pub fn is_operator_id(id: &str) -> bool {
    if id.len() > crate::limits::MAX_OPERATOR_ID_BYTES {
        return false;
    }
    let word = |w: &str| {
        !w.is_empty()
            && w.starts_with(|c: char| c.is_ascii_lowercase())
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    };
    matches!(id.split_once('.'), Some((family, name)) if word(family) && word(name))
}

/// Checks one parameter value against its spec, returning a reason on failure
/// and whether that reason is a type or a range problem.
pub fn check_param_value(spec: &ParamSpec, value: &Value) -> std::result::Result<(), ParamFault> {
    let type_fault = || ParamFault::Type(format!("`{}` takes a {:?} value", spec.name, spec.ty));
    match spec.ty {
        ParamType::Bool => {
            value.as_bool().ok_or_else(type_fault)?;
        }
        ParamType::Int => {
            let n = value.as_i64().ok_or_else(type_fault)?;
            check_range(spec, n as f64)?;
        }
        ParamType::Float => {
            let n = value.as_f64().ok_or_else(type_fault)?;
            if !n.is_finite() {
                return Err(type_fault());
            }
            check_range(spec, n)?;
        }
        ParamType::String => {
            let s = value.as_str().ok_or_else(type_fault)?;
            if let Some(choices) = &spec.choices
                && !choices.iter().any(|c| c == s)
            {
                return Err(ParamFault::Range(format!(
                    "`{}` is one of {}, not `{s}`",
                    spec.name,
                    choices.join(", ")
                )));
            }
            if s.contains('\0') {
                return Err(ParamFault::Range(format!(
                    "`{}` cannot contain NUL",
                    spec.name
                )));
            }
        }
    }
    Ok(())
}

/// The characters an import path may not hold, besides control characters.
///
/// Nextflow stages an input with `ln -s SOURCE TARGET` in `.command.run`,
/// escaping quotes, spaces, parentheses, backticks, `;` and the like
/// (`Escape.path`) but not `$` or the glob characters, so bash would expand
/// `${HOME}` or `[12]` and link a different file than the one chosen; and it
/// does not escape a newline at all, which ends the command.
pub const IMPORT_PATH_FORBIDDEN: &[char] = &['$', '*', '?', '[', ']', '{', '}'];

/// Checks a local path a source or reference node imports (its
/// `import_param`), refusing what Nextflow's staging line would not keep
/// literal: control characters and [`IMPORT_PATH_FORBIDDEN`]. An edit that
/// sets such a path is refused; a stored document holding one (only control
/// characters make a document invalid) gets a blocking readiness item, so it
/// still opens and the file can be chosen again.
pub fn check_import_path(param: &str, path: &str) -> std::result::Result<(), ParamFault> {
    if let Some(c) = path
        .chars()
        .find(|c| c.is_control() || IMPORT_PATH_FORBIDDEN.contains(c))
    {
        let shown = if c.is_control() {
            format!("the control character U+{:04X}", c as u32)
        } else {
            format!("`{c}`")
        };
        return Err(ParamFault::Range(format!(
            "`{param}` cannot be imported: the path holds {shown}, which Nextflow \
             would not stage literally"
        )));
    }
    Ok(())
}

fn check_range(spec: &ParamSpec, n: f64) -> std::result::Result<(), ParamFault> {
    let below = spec.min.is_some_and(|min| n < min);
    let above = spec.max.is_some_and(|max| n > max);
    if below || above {
        let bound = |b: Option<f64>| b.map_or("∞".to_owned(), |b| b.to_string());
        return Err(ParamFault::Range(format!(
            "`{}` must be within {}..={}, not {n}",
            spec.name,
            bound(spec.min),
            bound(spec.max)
        )));
    }
    Ok(())
}

/// Why a parameter value was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamFault {
    Type(String),
    Range(String),
}

impl std::fmt::Display for ParamFault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamFault::Type(s) | ParamFault::Range(s) => f.write_str(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FASTP: &str = r#"
id = "qc.fastp"
title = "fastp"
palette = "Quality control"
kind = "external"
cost = "light"
bin = "fastp"
pixi = { fastp = "0.24.0" }
resources = { cpus = 2, memory_gb = 4, threads_param = "threads" }
argv = ["fastp", "--in1", "{input.r1}", "?r2:--in2", "?r2:{input.r2}", "--thread", "{param.threads}", "--out1", "{work}/out/trimmed_R1.fastq.gz"]

[[params]]
name = "threads"
type = "int"
label = "Threads"
default = 2
min = 1
max = 16

[[ports.in]]
name = "r1"
type = "Fastq"
union = ["FastqGz"]

[[ports.in]]
name = "r2"
type = "Fastq"
union = ["FastqGz"]
optional = true

[[ports.out]]
name = "trimmed_r1"
type = "FastqGz"

[outputs]
trimmed_r1 = { glob = "out/trimmed_R1.fastq.gz" }
"#;

    #[test]
    fn a_valid_contract_parses() {
        let c = OperatorContract::from_toml(FASTP).unwrap();
        assert_eq!(c.id, "qc.fastp");
        assert_eq!(c.argv_templates().len(), 9);
    }

    #[test]
    fn unknown_fields_are_rejected() {
        let err = OperatorContract::from_toml(&format!("surprise = 1\n{FASTP}")).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidContract);
        assert!(err.message.contains("surprise"), "{}", err.message);
    }

    #[test]
    fn placeholders_must_name_real_fields() {
        let bad = FASTP.replace("{param.threads}", "{param.thread}");
        let err = OperatorContract::from_toml(&bad).unwrap_err();
        assert!(
            err.message.contains("unknown parameter `thread`"),
            "{}",
            err.message
        );
        let bad = FASTP.replace("{input.r1}", "{input.r3}");
        assert!(OperatorContract::from_toml(&bad).is_err());
        let bad = FASTP.replace("?r2:--in2", "?r9:--in2");
        assert!(OperatorContract::from_toml(&bad).is_err());
        let bad = FASTP.replace("{work}/out", "{workdir}/out");
        assert!(OperatorContract::from_toml(&bad).is_err());
    }

    #[test]
    fn a_default_outside_its_range_is_rejected() {
        let bad = FASTP.replace("default = 2", "default = 99");
        let err = OperatorContract::from_toml(&bad).unwrap_err();
        assert!(err.message.contains("default"), "{}", err.message);
    }

    #[test]
    fn an_output_without_a_glob_is_rejected() {
        let bad = FASTP.replace("trimmed_r1 = { glob", "other = { glob");
        assert!(OperatorContract::from_toml(&bad).is_err());
    }

    #[test]
    fn the_revision_ignores_presentation() {
        let a = OperatorContract::from_toml(FASTP).unwrap();
        let mut b = a.clone();
        b.title = "Trim reads".into();
        b.palette = "Other".into();
        b.params[0].label = "CPU threads".into();
        assert_eq!(a.revision(), b.revision());
        b.params[0].default = Some(serde_json::json!(4));
        assert_ne!(a.revision(), b.revision());
    }

    #[test]
    fn compressed_and_verified_outputs_need_literal_paths_and_their_tools() {
        let gz = FASTP
            .replace("fastp = \"0.24.0\"", "fastp = \"0.24.0\", gzip = \"1.14\"")
            .replace(
                "{ glob = \"out/trimmed_R1.fastq.gz\" }",
                "{ glob = \"out/trimmed_R1.fastq.gz\", gzip = true }",
            );
        OperatorContract::from_toml(&gz).unwrap();
        let wild = gz.replace("out/trimmed_R1.fastq.gz\", gzip", "out/*.fastq.gz\", gzip");
        assert!(OperatorContract::from_toml(&wild).is_err());
        let unpinned = gz.replace(", gzip = \"1.14\"", "");
        assert!(OperatorContract::from_toml(&unpinned).is_err());

        let verified = FASTP
            .replace("fastp = \"0.24.0\"", "fastp = \"0.24.0\", coreutils = \"9.11\"")
            .replace(
                "{ glob = \"out/trimmed_R1.fastq.gz\" }",
                "{ glob = \"out/*.gz\", checksum = { algorithm = \"bsd_sum\", listing = \"tmp/CHECKSUMS\" } }",
            );
        OperatorContract::from_toml(&verified).unwrap();
        for listing in ["../CHECKSUMS", "/tmp/CHECKSUMS", "tmp/*", ""] {
            let bad = verified.replace("tmp/CHECKSUMS", listing);
            assert!(OperatorContract::from_toml(&bad).is_err(), "{listing}");
        }
        let bad = verified.replace("bsd_sum", "md5");
        assert!(OperatorContract::from_toml(&bad).is_err());
        let bad = verified.replace(", coreutils = \"9.11\"", "");
        assert!(OperatorContract::from_toml(&bad).is_err());
    }

    #[test]
    fn only_tool_operators_fetch_over_the_network_and_the_flag_is_identity() {
        let plain = OperatorContract::from_toml(FASTP).unwrap();
        let network = OperatorContract::from_toml(&format!("network = true\n{FASTP}")).unwrap();
        assert!(network.network);
        assert_ne!(plain.revision(), network.revision());
        let source = "id = \"files.x\"\ntitle = \"x\"\npalette = \"Inputs\"\nkind = \"source\"\ncost = \"trivial\"\nnetwork = true\n";
        assert!(OperatorContract::from_toml(source).is_err());
    }

    #[test]
    fn argv_templates_parse_conditions_and_parts() {
        let t = ArgTemplate::parse("?!r2:--prefix={work}/out/{param.name}.x").unwrap();
        assert_eq!(t.condition, Some(ArgCondition::Unbound("r2".into())));
        assert_eq!(
            t.parts,
            vec![
                ArgPart::Literal("--prefix=".into()),
                ArgPart::Work,
                ArgPart::Literal("/out/".into()),
                ArgPart::Param("name".into()),
                ArgPart::Literal(".x".into()),
            ]
        );
        assert!(ArgTemplate::parse("{param.x").is_err());
        assert!(ArgTemplate::parse("?r2").is_err());
    }

    #[test]
    fn resource_profiles_gate_connections() {
        let db_in = PortSpec {
            name: "db".into(),
            ty: PortType::Directory,
            union: vec![],
            optional: false,
            resource: Some(ResourceRequirement {
                profile: "kraken2-database".into(),
                title: "Kraken2 database".into(),
                detail: String::new(),
                resolutions: vec![],
            }),
            resource_profile: None,
            stage_as: None,
            import_param: None,
        };
        let mut plain_dir = db_in.clone();
        plain_dir.resource = None;
        assert!(!db_in.accepts(&plain_dir));
        assert!(
            db_in
                .refusal(&plain_dir)
                .unwrap()
                .contains("kraken2-database")
        );
        plain_dir.resource_profile = Some("kraken2-database".into());
        assert!(db_in.accepts(&plain_dir));
    }
}
