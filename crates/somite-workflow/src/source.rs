//! The `workflow.source` node: a real Nextflow pipeline, pinned to one
//! commit and tree digest, standing on the canvas as one node.
//!
//! Most people start from nf-core/rnaseq or their lab's pipeline rather than
//! an empty canvas. Such a pipeline is not made of Somite operators, so its
//! node carries its own contract instead of a catalog revision: the
//! [`SourceBinding`] pins the repository, release, commit and tree digest,
//! and lists the typed parameters of the pipeline's `nextflow_schema.json`
//! and its processes with the Conda environment each one declares. Keeping
//! that contract in the node keeps this crate pure: parameter checks and the
//! Workflow assessment need no file system and no network. The node's
//! `operator_revision` is the digest of its binding, so a document whose
//! binding was altered does not validate.
//!
//! Only the resolve surfaces create a binding (from a verified tree and its
//! static outline), through [`Operation::PlaceSource`](crate::transaction::Operation),
//! which a client cannot send. A source workflow is the source node alone:
//! it never mixes with native nodes, so its compile is the pinned pipeline
//! itself.

use crate::canonical::{Revision, is_revision, revision_of};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::operator::{ParamType, Ports, check_import_path};
use crate::source_environment::EnvironmentRefusal;
use crate::source_paths::{PathRefusal, PathTarget, path_target};
use crate::source_reach::SourceReach;
use crate::types::PortType;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The operator id every source node carries.
pub const SOURCE_OPERATOR_ID: &str = "workflow.source";

/// The node id the resolve surfaces use unless told otherwise.
pub const DEFAULT_SOURCE_NODE_ID: &str = "source";

/// Where a pinned pipeline came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub enum SourceProvider {
    #[serde(rename = "nf-core")]
    NfCore,
    #[serde(rename = "github")]
    GitHub,
}

/// The pin and the contract of a source node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceBinding {
    pub provider: SourceProvider,
    /// `owner/name` on GitHub.
    pub repository: String,
    /// The nf-core release tag; none for a GitHub source.
    pub release: Option<String>,
    /// The GitHub ref as the user gave it; none for an nf-core release.
    pub git_ref: Option<String>,
    /// The 40-hex commit the source is pinned to.
    pub commit: String,
    /// The tree digest checked before every use.
    pub tree_digest: Revision,
    /// The entry script, relative to the tree.
    pub entry: String,
    /// The manifest's name, else the repository.
    pub name: String,
    pub description: Option<String>,
    /// The manifest's Nextflow requirement as written (`!>=24.04.2`).
    pub nextflow_version: Option<String>,
    /// Typed parameters of `nextflow_schema.json`, in schema order.
    pub params: Vec<SourceParam>,
    /// Every process the outline found, by file and line.
    pub processes: Vec<SourceProcess>,
    /// Every process call reached from the entry workflow, in call order,
    /// with typed ports: what a replacement is checked against.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub invocations: Vec<SourceInvocation>,
    /// The files of the pinned tree that parameter defaults name
    /// (`${projectDir}/assets/…`), with their digests: readiness finds them
    /// here without reading the tree, and the closure binds them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bundled_files: Vec<BundledFile>,
}

/// A file shipped inside the pinned tree that a parameter default names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct BundledFile {
    /// Relative to the tree's root (`assets/known_adapters.fa`).
    pub path: String,
    pub bytes: u64,
    /// BLAKE3 of its bytes (the tree digest covers it too).
    pub digest: Revision,
}

/// One process call of the pipeline, named as Nextflow names its tasks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceInvocation {
    /// The fully-qualified name (`NFCORE_DEMO:DEMO:FASTQC`).
    pub id: String,
    /// The call name in its workflow (an include's alias when it has one).
    pub call: String,
    /// The workflow whose body makes the call; none for the entry workflow.
    pub workflow: Option<String>,
    /// The declared process name.
    pub process: String,
    pub file: String,
    pub line: u32,
    pub inputs: Vec<InvocationPort>,
    pub outputs: Vec<InvocationPort>,
    /// The conditions under which the entry workflow reaches the call
    /// (absent: always).
    #[serde(default, skip_serializing_if = "SourceReach::is_always")]
    pub reach: SourceReach,
}

/// One data port of an invocation with its inferred Somite type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InvocationPort {
    pub name: String,
    /// None when neither the module's `meta.yml` nor the declaration says
    /// what the port holds: such a port cannot be mapped.
    #[serde(rename = "type")]
    pub ty: Option<PortType>,
    /// The declaration as written.
    pub text: String,
    /// For an input: outputs of earlier invocations that flow into it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from: Vec<InvocationPortRef>,
}

/// A port of another invocation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct InvocationPortRef {
    pub invocation: String,
    pub port: String,
}

/// A catalog operator standing in for one invocation of a source node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Replacement {
    pub invocation: String,
    pub operator_id: String,
    /// The catalog revision pinned when the replacement was made.
    pub operator_revision: Revision,
    /// The operator's port contract at that revision.
    pub ports: Ports,
    pub inputs: Vec<PortPair>,
    pub outputs: Vec<PortPair>,
}

/// One port of an invocation mapped to one port of its replacement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PortPair {
    pub invocation_port: String,
    pub operator_port: String,
}

impl PortPair {
    /// The pairs of a user's mapping: invocation port → operator port.
    pub fn from_map(map: &BTreeMap<String, String>) -> Vec<PortPair> {
        map.iter()
            .map(|(invocation_port, operator_port)| PortPair {
                invocation_port: invocation_port.clone(),
                operator_port: operator_port.clone(),
            })
            .collect()
    }
}

/// The Somite type of a port from what a module says about it: its file
/// patterns (`*.{fastq.gz}`, `*_{fastqc.html}`), else a single file-format
/// word in its description ("List of input FastQ files"). None when the
/// patterns disagree or nothing names a format: a guessed type would let a
/// wrong replacement through.
pub fn infer_port_type(patterns: &[String], description: Option<&str>) -> Option<PortType> {
    let mut found: Option<PortType> = None;
    let mut any = false;
    for pattern in patterns {
        for alternative in expand_braces(&pattern.to_ascii_lowercase()) {
            any = true;
            let ty = type_of_suffix(&alternative)?;
            match found {
                Some(seen) if seen != ty => return None,
                _ => found = Some(ty),
            }
        }
    }
    if any {
        return found;
    }
    let description = description?.to_ascii_lowercase();
    let mut words: Vec<PortType> = description
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|word| match word {
            "fastq" => Some(PortType::Fastq),
            "fasta" => Some(PortType::Fasta),
            "bam" => Some(PortType::Bam),
            "vcf" => Some(PortType::Vcf),
            "gtf" => Some(PortType::Gtf),
            "bed" => Some(PortType::Bed),
            _ => None,
        })
        .collect();
    words.dedup();
    match words.as_slice() {
        [only] => Some(*only),
        _ => None,
    }
}

/// `*.{fastq,fq}.gz` → `*.fastq.gz`, `*.fq.gz` (one level of braces).
fn expand_braces(pattern: &str) -> Vec<String> {
    match (pattern.find('{'), pattern.find('}')) {
        (Some(open), Some(close)) if open < close => pattern[open + 1..close]
            .split(',')
            .map(|alt| format!("{}{alt}{}", &pattern[..open], &pattern[close + 1..]))
            .collect(),
        _ => vec![pattern.to_owned()],
    }
}

fn type_of_suffix(name: &str) -> Option<PortType> {
    const SUFFIXES: &[(&str, PortType)] = &[
        (".fastq.gz", PortType::FastqGz),
        (".fq.gz", PortType::FastqGz),
        (".fastq", PortType::Fastq),
        (".fq", PortType::Fastq),
        (".fasta.gz", PortType::FastaGz),
        (".fa.gz", PortType::FastaGz),
        (".fna.gz", PortType::FastaGz),
        (".fasta", PortType::Fasta),
        (".fa", PortType::Fasta),
        (".fna", PortType::Fasta),
        (".gtf.gz", PortType::GtfGz),
        (".gtf", PortType::Gtf),
        (".gff3", PortType::Gff3),
        (".gff", PortType::Gff3),
        (".bam", PortType::Bam),
        (".bai", PortType::Bai),
        (".sam", PortType::Sam),
        (".vcf.gz", PortType::VcfGz),
        (".vcf", PortType::Vcf),
        (".bed", PortType::Bed),
        (".fai", PortType::Fai),
        (".dict", PortType::Dict),
        (".html", PortType::Html),
        (".zip", PortType::Zip),
        (".json", PortType::Json),
        (".tsv", PortType::Table),
        (".csv", PortType::Table),
        // Not `.yml`: in a module that is a configuration file or the
        // versions record, never the data a catalog operator takes or gives.
        (".txt", PortType::Text),
        (".log", PortType::Text),
        (".png", PortType::Image),
        (".svg", PortType::Image),
        (".pdf", PortType::Image),
    ];
    SUFFIXES
        .iter()
        .find(|(suffix, _)| name.ends_with(suffix))
        .map(|(_, ty)| *ty)
}

/// A pipeline parameter's JSON Schema type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SourceParamType {
    String,
    Integer,
    Number,
    Boolean,
}

impl SourceParamType {
    /// The schema type name as written in `nextflow_schema.json`.
    pub fn from_schema(name: &str) -> Option<SourceParamType> {
        match name {
            "string" => Some(SourceParamType::String),
            "integer" => Some(SourceParamType::Integer),
            "number" => Some(SourceParamType::Number),
            "boolean" => Some(SourceParamType::Boolean),
            _ => None,
        }
    }

    fn param_type(self) -> ParamType {
        match self {
            SourceParamType::String => ParamType::String,
            SourceParamType::Integer => ParamType::Int,
            SourceParamType::Number => ParamType::Float,
            SourceParamType::Boolean => ParamType::Bool,
        }
    }
}

/// One typed parameter of the pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceParam {
    pub name: String,
    pub group: Option<String>,
    #[serde(rename = "type")]
    pub ty: SourceParamType,
    pub description: Option<String>,
    pub help_text: Option<String>,
    pub default: Option<Value>,
    /// The allowed values; empty allows any.
    #[serde(rename = "enum")]
    pub enum_values: Vec<Value>,
    /// A regular expression a string value must match.
    pub pattern: Option<String>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    /// `file-path`, `directory-path`, `path`, `file-path-pattern`, …
    pub format: Option<String>,
    /// The schema's `exists: true`: the path must be there before a run.
    pub exists: bool,
    pub required: bool,
    pub hidden: bool,
}

impl SourceParam {
    /// Whether the value names one local file or folder that must exist
    /// before a run (a glob pattern is matched at run time instead).
    pub fn is_path(&self) -> bool {
        matches!(
            self.format.as_deref(),
            Some("file-path" | "directory-path" | "path")
        )
    }

    /// Whether readiness checks that the path exists: the schema says so,
    /// or it names a file (a folder such as `outdir` is made by the run).
    pub fn must_exist(&self) -> bool {
        self.is_path() && (self.exists || self.format.as_deref() == Some("file-path"))
    }
}

/// One process declaration of the pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SourceProcess {
    pub name: String,
    pub file: String,
    pub line: u32,
    /// The file declaring the Conda environment the process runs in,
    /// relative to the tree: an `environment.yml`, or the process's own
    /// script when its `conda` directive lists the packages inline; none
    /// when it declares no Conda environment.
    pub environment: Option<String>,
    /// An `exec:` process: Groovy run inside Nextflow itself, so it needs
    /// no environment of its own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exec: bool,
    /// The container images its `container` directive names (nf-core names
    /// one per engine).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub container: Vec<String>,
    /// Why its declared Conda environment cannot be frozen by Pixi, when it
    /// cannot: the process then has no Pixi environment, like a
    /// container-only one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unfrozen: Option<UnfrozenEnvironment>,
}

impl SourceProcess {
    /// Whether the process runs in a Pixi environment built from what the
    /// pipeline declares (an `exec:` process needs none).
    pub fn has_pixi_environment(&self) -> bool {
        self.exec || (self.environment.is_some() && self.unfrozen.is_none())
    }
}

/// An entry of a process's Conda environment that Pixi cannot freeze.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UnfrozenEnvironment {
    pub file: String,
    pub line: Option<u32>,
    pub entry: String,
    pub reason: String,
}

impl From<EnvironmentRefusal> for UnfrozenEnvironment {
    fn from(refusal: EnvironmentRefusal) -> Self {
        UnfrozenEnvironment {
            file: refusal.file,
            line: refusal.line,
            entry: refusal.entry,
            reason: refusal.reason.to_owned(),
        }
    }
}

impl std::fmt::Display for UnfrozenEnvironment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": `{}` {}", self.entry, self.reason)
    }
}

/// What the user chose for a process the pipeline gives no Pixi
/// environment: a Conda specification of their own, or its declared
/// container.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ProcessEnvironment {
    /// The declared process name.
    pub process: String,
    pub choice: EnvironmentChoice,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(tag = "use", rename_all = "snake_case", deny_unknown_fields)]
pub enum EnvironmentChoice {
    /// Conda match specs (`bioconda::deepvariant=1.5.0`), frozen by Pixi
    /// like the pipeline's own environments.
    Conda { dependencies: Vec<String> },
    /// The image the process declares, run by the container engine the run
    /// selects (`docker`, `singularity`, `apptainer` or `podman`).
    Container,
}

/// A remote input the user pinned: downloaded once, its size and BLAKE3
/// recorded, and the local copy staged instead of the URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PinnedInput {
    pub param: String,
    pub url: String,
    /// The local copy, relative to the project folder.
    pub path: String,
    pub bytes: u64,
    pub digest: Revision,
}

impl SourceBinding {
    /// The revision a node holding this binding pins.
    pub fn revision(&self) -> Revision {
        revision_of(self)
    }

    pub fn param(&self, name: &str) -> Option<&SourceParam> {
        self.params.iter().find(|p| p.name == name)
    }

    pub fn invocation(&self, id: &str) -> Option<&SourceInvocation> {
        self.invocations.iter().find(|i| i.id == id)
    }

    pub fn process(&self, name: &str) -> Option<&SourceProcess> {
        self.processes.iter().find(|p| p.name == name)
    }

    /// The invocations of `process` (its calls under every alias).
    pub fn invocations_of<'b>(
        &'b self,
        process: &'b SourceProcess,
    ) -> impl Iterator<Item = &'b SourceInvocation> + 'b {
        self.invocations
            .iter()
            .filter(move |i| i.process == process.name && i.file == process.file)
    }

    pub fn bundled_file(&self, path: &str) -> Option<&BundledFile> {
        self.bundled_files.iter().find(|f| f.path == path)
    }

    /// Checks what a stored binding must hold.
    pub fn validate(&self) -> Result<()> {
        let invalid = |message: String| {
            Err(SomiteError::new(
                ErrorCode::InvalidDocument,
                message,
                "resolve the pipeline again onto an empty canvas",
            ))
        };
        if self.commit.len() != 40
            || !self
                .commit
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return invalid(format!("`{}` is not a full commit SHA", self.commit));
        }
        if !is_revision(&self.tree_digest) {
            return invalid(format!("`{}` is not a tree digest", self.tree_digest));
        }
        if self.repository.split('/').count() != 2 {
            return invalid(format!("`{}` is not owner/name", self.repository));
        }
        let mut names = std::collections::BTreeSet::new();
        for p in &self.params {
            if !names.insert(p.name.as_str()) {
                return invalid(format!("the parameter `{}` is listed twice", p.name));
            }
        }
        Ok(())
    }
}

/// Checks `value` for the source parameter `name` of node `node_id`.
pub fn check_source_param(
    binding: &SourceBinding,
    node_id: &str,
    name: &str,
    value: &Value,
) -> Result<()> {
    let Some(spec) = binding.param(name) else {
        let names: Vec<&str> = binding.params.iter().map(|p| p.name.as_str()).collect();
        return Err(SomiteError::new(
            ErrorCode::UnknownParam,
            format!(
                "{} (node `{node_id}`) has no parameter `{name}`",
                binding.repository
            ),
            format!("its parameters are: {}", names.join(", ")),
        ));
    };
    let type_error = || {
        SomiteError::new(
            ErrorCode::InvalidParamType,
            format!("`{name}` takes a {:?} value", spec.ty.param_type()),
            "send the value with the parameter's type",
        )
    };
    let range = |message: String| {
        SomiteError::new(
            ErrorCode::ParamOutOfRange,
            message,
            "choose a value the pipeline's schema allows",
        )
    };
    let number = match spec.ty {
        SourceParamType::Boolean => {
            value.as_bool().ok_or_else(type_error)?;
            None
        }
        SourceParamType::Integer => Some(value.as_i64().ok_or_else(type_error)? as f64),
        SourceParamType::Number => {
            let n = value.as_f64().ok_or_else(type_error)?;
            if !n.is_finite() {
                return Err(type_error());
            }
            Some(n)
        }
        SourceParamType::String => {
            let text = value.as_str().ok_or_else(type_error)?;
            if text.len() > crate::limits::MAX_STRING_PARAM_BYTES {
                return Err(range(format!(
                    "`{name}` is longer than {} bytes",
                    crate::limits::MAX_STRING_PARAM_BYTES
                )));
            }
            if text.contains('\0') {
                return Err(range(format!("`{name}` cannot contain NUL")));
            }
            check_source_path(name, text, spec.is_path())?;
            // A pattern this engine cannot compile (JSON Schema patterns are
            // ECMA-262) is left to the pipeline's own validation at run time.
            if let Some(pattern) = &spec.pattern
                && let Ok(re) = regex::Regex::new(pattern)
                && !re.is_match(text)
            {
                return Err(SomiteError::new(
                    ErrorCode::ParamPatternMismatch,
                    format!("`{name}` must match the pattern `{pattern}`, and `{text}` does not"),
                    "send a value the pipeline's schema pattern accepts",
                )
                .with_detail("param", name)
                .with_detail("pattern", pattern));
            }
            None
        }
    };
    if !spec.enum_values.is_empty() && !spec.enum_values.contains(value) {
        let choices: Vec<String> = spec.enum_values.iter().map(Value::to_string).collect();
        return Err(SomiteError::new(
            ErrorCode::ParamNotInEnum,
            format!("`{name}` is one of {}, not {value}", choices.join(", ")),
            "choose one of the values the pipeline's schema lists",
        )
        .with_detail("param", name)
        .with_detail("allowed", &spec.enum_values));
    }
    if let Some(n) = number {
        let below = spec.minimum.is_some_and(|min| n < min);
        let above = spec.maximum.is_some_and(|max| n > max);
        if below || above {
            return Err(range(format!(
                "`{name}` must be within {}..={}, not {n}",
                spec.minimum.map_or("-∞".into(), |m| m.to_string()),
                spec.maximum.map_or("∞".into(), |m| m.to_string()),
            )));
        }
    }
    Ok(())
}

/// Checks what a string value names: a URL with a user name or password is
/// refused for every parameter (its text is never repeated), and a path
/// parameter's value must name a file of the pinned tree, a location Nextflow
/// fetches itself, or a local path the run can stage.
fn check_source_path(name: &str, text: &str, is_path: bool) -> Result<()> {
    let refused = |refusal: PathRefusal| {
        let code = match refusal {
            PathRefusal::Credentials => ErrorCode::UrlCredentials,
            PathRefusal::InvalidUrl | PathRefusal::UnsafeBundledPath => ErrorCode::ParamOutOfRange,
        };
        SomiteError::new(
            code,
            format!("`{name}` cannot be used: {refusal}"),
            match refusal {
                PathRefusal::Credentials => {
                    "give the URL without credentials (a public location), or download the file and choose the local copy"
                }
                _ => "choose a local file, a file of the pipeline (${projectDir}/…) or an http(s), ftp, s3, gs or az URL",
            },
        )
        .with_detail("param", name)
    };
    match path_target(text) {
        Err(refusal) if is_path || refusal == PathRefusal::Credentials => Err(refused(refusal)),
        Ok(PathTarget::Local(local)) if is_path => {
            check_import_path(name, local).map_err(|fault| {
                SomiteError::new(
                    ErrorCode::ParamOutOfRange,
                    fault.to_string(),
                    "choose a file whose path Nextflow stages as it is",
                )
            })
        }
        _ => Ok(()),
    }
}

/// Most Conda specs a user may give one process, and the longest one.
pub const MAX_USER_SPECS: usize = 64;
const MAX_USER_SPEC_CHARS: usize = 200;

/// Checks a user's environment choice for `process`: the pipeline must
/// declare it without a Pixi environment of its own, a Conda specification
/// must be match specs Pixi freezes from Somite's channels, and a container
/// choice needs an image the process declares.
pub fn check_process_environment(
    binding: &SourceBinding,
    process: &str,
    choice: &EnvironmentChoice,
) -> Result<()> {
    let Some(declared) = binding.process(process) else {
        return Err(SomiteError::new(
            ErrorCode::UnknownProcess,
            format!("{} declares no process `{process}`", binding.repository),
            "read the source node's processes and name one of them",
        )
        .with_detail("process", process));
    };
    if declared.has_pixi_environment() {
        return Err(SomiteError::new(
            ErrorCode::UnknownProcess,
            format!("{process} already runs in the Pixi environment the pipeline declares for it"),
            "choose an environment only for a process readiness lists without one",
        )
        .with_detail("process", process));
    }
    let invalid = |message: String, recovery: &str| {
        Err(
            SomiteError::new(ErrorCode::InvalidTransaction, message, recovery)
                .with_detail("process", process),
        )
    };
    match choice {
        EnvironmentChoice::Conda { dependencies } => {
            if dependencies.is_empty() || dependencies.len() > MAX_USER_SPECS {
                return invalid(
                    format!("a Conda specification lists 1 to {MAX_USER_SPECS} packages"),
                    "list the packages the process runs, as `channel::name=version`",
                );
            }
            for spec in dependencies {
                let parsed = (spec.chars().count() <= MAX_USER_SPEC_CHARS)
                    .then(|| crate::source_environment::parse_match_spec(spec))
                    .flatten();
                let channel_ok = parsed.as_ref().is_some_and(|(_, pin)| {
                    pin.channel
                        .as_deref()
                        .is_none_or(|c| crate::compile::CHANNELS.contains(&c))
                });
                if !channel_ok {
                    return invalid(
                        format!(
                            "`{}` is not a Conda match spec from conda-forge or bioconda",
                            spec.chars().take(MAX_USER_SPEC_CHARS).collect::<String>()
                        ),
                        "write each package as `bioconda::name=version` or `conda-forge::name=version`",
                    );
                }
            }
        }
        EnvironmentChoice::Container => {
            if declared.container.is_empty() {
                return invalid(
                    format!("{process} declares no container image"),
                    "give it a Conda specification instead",
                );
            }
        }
    }
    Ok(())
}

/// The type an inspector control shows for a source parameter.
pub(crate) fn control_type(param: &SourceParam) -> ParamType {
    param.ty.param_type()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn port_types_come_from_patterns_then_a_single_format_word() {
        let p = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            infer_port_type(&p(&["*.{fastq.gz}"]), None),
            Some(PortType::FastqGz)
        );
        assert_eq!(
            infer_port_type(&p(&["*_{fastqc.html}", "*.html"]), None),
            Some(PortType::Html)
        );
        // Patterns that disagree, or name what Somite has no type for: unknown.
        assert_eq!(infer_port_type(&p(&["*.{bam,cram}"]), None), None);
        assert_eq!(infer_port_type(&p(&["*.bam", "*.bai"]), None), None);
        assert_eq!(infer_port_type(&p(&["versions.yml"]), None), None);
        // No pattern: one format word in the description, else unknown.
        assert_eq!(
            infer_port_type(&[], Some("List of input FastQ files")),
            Some(PortType::Fastq)
        );
        assert_eq!(infer_port_type(&[], Some("FastQC report")), None);
        assert_eq!(infer_port_type(&[], Some("BAM or FASTA files")), None);
        // A pattern wins over the description.
        assert_eq!(
            infer_port_type(&p(&["*.bam"]), Some("FastQ files")),
            Some(PortType::Bam)
        );
    }

    #[test]
    fn minimum_and_maximum_are_refused_as_out_of_range() {
        let spec: SourceParam = serde_json::from_value(json!({
            "name": "threads", "group": null, "type": "integer", "description": null,
            "help_text": null, "default": 2, "enum": [], "pattern": null,
            "minimum": 1.0, "maximum": 8.0, "format": null, "exists": false,
            "required": false, "hidden": false,
        }))
        .unwrap();
        let binding = SourceBinding {
            provider: SourceProvider::NfCore,
            repository: "nf-core/demo".into(),
            release: Some("1.0.1".into()),
            git_ref: None,
            commit: "0".repeat(40),
            tree_digest: format!("blake3:{}", "0".repeat(64)),
            entry: "main.nf".into(),
            name: "demo".into(),
            description: None,
            nextflow_version: None,
            params: vec![spec],
            processes: Vec::new(),
            invocations: Vec::new(),
            bundled_files: Vec::new(),
        };
        let code =
            |v: Value| check_source_param(&binding, "source", "threads", &v).map_err(|e| e.code);
        assert_eq!(code(json!(0)), Err(ErrorCode::ParamOutOfRange));
        assert_eq!(code(json!(9)), Err(ErrorCode::ParamOutOfRange));
        assert_eq!(code(json!(2.5)), Err(ErrorCode::InvalidParamType));
        assert_eq!(code(json!(8)), Ok(()));
    }
}
