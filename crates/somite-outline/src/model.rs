//! The outline's types: what a later nested canvas draws and what the MCP
//! tools return, so every type derives `Serialize` and `JsonSchema` here,
//! where it is owned, rather than in a mirror.
//!
//! Every item carries the [`Location`] it was read from. Lists of items are
//! ordered by location (file path, then line), so two outlines of one tree
//! serialize byte for byte the same.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use somite_workflow::source_reach::{SourceGuard, SourceReach};

/// Where an item was read: a `/`-separated path relative to the pipeline's
/// root and a 1-based line.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub struct Location {
    pub file: String,
    pub line: u32,
}

/// The static outline of one pipeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Outline {
    /// The entry script (`manifest.mainScript`, else `main.nf`).
    pub entry: String,
    pub manifest: Manifest,
    /// Parameter groups of `nextflow_schema.json`, in the schema's `allOf`
    /// order.
    pub param_groups: Vec<ParamGroup>,
    /// Parameters of the schema (by group, then line), then those only
    /// `nextflow.config` declares.
    pub params: Vec<Param>,
    /// Script files outlined, by path: the entry and what its includes
    /// reach.
    pub files: Vec<String>,
    pub includes: Vec<Include>,
    pub workflows: Vec<Workflow>,
    pub processes: Vec<Process>,
    pub functions: Vec<Function>,
    /// Top-level statements the outline does not model.
    pub opaque: Vec<Opaque>,
    /// What could not be read or resolved; the outline is partial there.
    pub diagnostics: Vec<Diagnostic>,
}

/// `manifest { }` of `nextflow.config`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Manifest {
    pub name: Option<String>,
    pub description: Option<String>,
    pub version: Option<String>,
    /// The requirement as written, e.g. `!>=24.04.2`.
    pub nextflow_version: Option<String>,
    pub main_script: Option<String>,
    pub home_page: Option<String>,
    /// Where the manifest is declared, when it is.
    pub location: Option<Location>,
}

/// A group of `nextflow_schema.json` (`definitions` in draft-07, `$defs` in
/// 2020-12 schemas).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ParamGroup {
    pub id: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub location: Location,
}

/// One pipeline parameter, from the schema and/or the config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Param {
    pub name: String,
    /// The schema group's id; none for config-only or ungrouped parameters.
    pub group: Option<String>,
    /// JSON Schema types (`string`, `integer`, `number`, `boolean`, …).
    pub types: Vec<String>,
    pub description: Option<String>,
    pub help_text: Option<String>,
    /// The schema's `default`.
    pub default: Option<Value>,
    #[serde(rename = "enum")]
    pub enum_values: Vec<Value>,
    pub pattern: Option<String>,
    pub required: bool,
    pub minimum: Option<Value>,
    pub maximum: Option<Value>,
    /// `file-path`, `directory-path`, `path`, `file-path-pattern`, …
    pub format: Option<String>,
    /// Whether the path must exist.
    pub exists: Option<bool>,
    pub mimetype: Option<String>,
    /// A schema the file's content must follow (nf-core samplesheets).
    pub schema: Option<String>,
    pub hidden: bool,
    /// The parameter's default in `nextflow.config`.
    pub config_default: Option<ConfigDefault>,
    /// Where the schema declares it, else where the config does.
    pub location: Location,
}

/// A parameter default as `nextflow.config` writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ConfigDefault {
    pub value: ConfigValue,
    pub location: Location,
}

/// A literal the outline can read, or an expression it keeps as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConfigValue {
    Literal(Value),
    Expression(String),
}

/// `include { A; B as C } from './path'`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Include {
    pub items: Vec<IncludeItem>,
    /// The path as written.
    pub source: String,
    /// The script file it names, when it is in the tree.
    pub resolved: Option<String>,
    /// The plugin of `from 'plugin/NAME'`.
    pub plugin: Option<String>,
    pub location: Location,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IncludeItem {
    pub name: String,
    pub alias: Option<String>,
}

/// A `workflow` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Workflow {
    /// None for the entry workflow (`workflow { … }`).
    pub name: Option<String>,
    pub takes: Vec<String>,
    pub calls: Vec<Call>,
    pub emits: Vec<Emit>,
    /// Sections the outline does not model (`publish:`, …).
    pub opaque: Vec<Opaque>,
    pub location: Location,
}

/// A process, workflow or function called in a workflow body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Call {
    /// The name as called (an include's alias when it has one); a later
    /// `NAME.out` refers to this call.
    pub name: String,
    pub target: Option<CallTarget>,
    pub arguments: Vec<Argument>,
    /// The `if`/`else` conditions around the call in its workflow's body,
    /// outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guards: Vec<SourceGuard>,
    pub location: Location,
}

/// What a call resolves to through the includes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CallTarget {
    pub kind: TargetKind,
    /// The declared name (before any alias).
    pub name: String,
    pub file: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    Process,
    Workflow,
    Function,
}

/// One argument of a call: its text and the channels that statically flow
/// into it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Argument {
    pub text: String,
    pub sources: Vec<ChannelSource>,
}

/// An `emit:` entry of a workflow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Emit {
    /// None for an unnamed emit (`emit: X.out.bam`).
    pub name: Option<String>,
    pub text: String,
    pub sources: Vec<ChannelSource>,
    pub location: Location,
}

/// Where a channel comes from, as far as the source shows it: through
/// variables (`ch = X.out.y`, `.set { ch }`, `ch = ch.mix(…)`) and directly.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChannelSource {
    /// An output of an earlier call in the same workflow.
    Output {
        call: String,
        output: OutputSelector,
    },
    /// One of the workflow's `take:` inputs.
    Take { name: String },
    /// `params.NAME`.
    Param { name: String },
}

/// Which output of a call: `X.out` or `X(…)` as a whole, `X.out.NAME`,
/// `X.out[N]`.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OutputSelector {
    All,
    Emit(String),
    Index(u32),
}

/// A `process` declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Process {
    pub name: String,
    pub labels: Vec<String>,
    pub conda: Option<Conda>,
    pub container: Option<Container>,
    /// The other directives (`tag`, `cpus`, `publishDir`, …) as written.
    pub directives: Vec<Directive>,
    pub inputs: Vec<Declaration>,
    pub outputs: Vec<Declaration>,
    /// `script`, `shell`, `exec` or `template`; none when unclear.
    pub body: Option<String>,
    pub opaque: Vec<Opaque>,
    pub location: Location,
    /// The nf-core `meta.yml` beside the process's script, when there is
    /// one: what its inputs and outputs hold, in the module's own words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<ModuleMeta>,
    /// The process's `when:` guard, unless it is nf-core's standard
    /// `task.ext.when == null || task.ext.when` (which holds unless a config
    /// sets `ext.when`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<SourceGuard>,
}

/// The ports an nf-core module's `meta.yml` documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModuleMeta {
    pub file: String,
    pub inputs: Vec<MetaPort>,
    pub outputs: Vec<MetaPort>,
}

/// One documented component of a module's input or output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MetaPort {
    /// The output channel (`emit:` name) the component belongs to, in the
    /// nested `meta.yml` layout; none in the flat one.
    pub channel: Option<String>,
    /// The component's name (`reads`) or file pattern (`*.html`).
    pub name: String,
    /// `file`, `map`, `string`, … as the module writes it.
    pub kind: Option<String>,
    pub description: Option<String>,
    pub pattern: Option<String>,
    /// EDAM ontology URLs (`http://edamontology.org/format_1930`).
    pub ontologies: Vec<String>,
}

/// One process call reached from the entry workflow, named as Nextflow
/// names its tasks: the call names of the workflows down to it, joined
/// with `:` (`NFCORE_DEMO:DEMO:FASTQC`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Invocation {
    pub id: String,
    /// The name as called (an include's alias when it has one).
    pub call: String,
    /// The workflow whose body makes the call; none for the entry workflow.
    pub workflow: Option<String>,
    /// The declared process name.
    pub process: String,
    /// Where the process is declared.
    pub location: Location,
    pub inputs: Vec<InvocationPort>,
    pub outputs: Vec<InvocationPort>,
    /// When the entry workflow reaches this task: each way to it (one per
    /// call site with this task name) with the guards on that way.
    pub reach: SourceReach,
}

/// One data port of an invocation: an input component other than the
/// `val(meta)` map, or an output declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InvocationPort {
    /// An input's component name, an output's `emit:` name (else `out<N>`).
    pub name: String,
    /// The declaration as written.
    pub text: String,
    /// File patterns known for the port: the `meta.yml` pattern, then the
    /// declaration's own.
    pub patterns: Vec<String>,
    /// The `meta.yml` description.
    pub description: Option<String>,
    pub ontologies: Vec<String>,
    /// For an input: the outputs of earlier invocations in the same
    /// workflow that statically flow into it.
    pub from: Vec<PortRef>,
}

/// A port of another invocation.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub struct PortRef {
    pub invocation: String,
    pub port: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Directive {
    pub name: String,
    pub text: String,
    pub location: Location,
}

/// The software environment a process asks Conda for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Conda {
    /// The `conda` directive's value as written; none when the process has
    /// no directive and only an `environment.yml` beside it.
    pub directive: Option<String>,
    /// Package specs when the directive lists them itself.
    pub packages: Vec<String>,
    /// The `environment.yml` the directive names (`${moduleDir}/…`), or the
    /// one beside the process's script.
    pub environment: Option<Environment>,
}

/// A Conda `environment.yml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Environment {
    pub file: String,
    pub name: Option<String>,
    pub channels: Vec<String>,
    pub dependencies: Vec<String>,
    /// Packages of a `- pip:` entry.
    pub pip: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Container {
    pub text: String,
    /// Every constant string in the directive: nf-core writes one image per
    /// container engine in a conditional.
    pub images: Vec<String>,
}

/// One `input:` or `output:` declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Declaration {
    /// `val`, `path`, `file`, `tuple`, `env`, `each`, `stdin`, `stdout`, …
    pub qualifier: String,
    /// The declared items; a `tuple` has one per element, the others one.
    pub components: Vec<Component>,
    pub emit: Option<String>,
    pub optional: bool,
    pub topic: Option<String>,
    pub text: String,
    pub location: Location,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Component {
    pub qualifier: String,
    /// A name (`meta`), a file pattern (`*.bam`, interpolations as
    /// `${…}`), or the expression as written.
    pub value: String,
}

/// A function (`def name(…) { … }`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Function {
    pub name: String,
    pub location: Location,
}

/// A construct the outline does not model, kept as an opaque step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Opaque {
    /// The construct's first word (`workflow.onComplete`, `publish`, …).
    pub kind: String,
    /// Its first line, shortened.
    pub excerpt: String,
    pub location: Location,
}

/// Something the outline could not read or resolve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Diagnostic {
    pub code: DiagnosticCode,
    pub message: String,
    pub file: String,
    pub line: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticCode {
    /// The tokenizer had to guess (an unterminated string or comment).
    Syntax,
    /// A block whose brackets do not balance, read as opaque.
    Unbalanced,
    /// A file over the size limit, not read.
    FileTooLarge,
    /// A file that could not be read.
    Unreadable,
    /// An include whose path is not a script in the tree.
    UnresolvedInclude,
    /// A name an include imports that its file does not declare.
    UnknownIncludeName,
    /// `nextflow_schema.json` or an `environment.yml` that does not parse.
    InvalidDocument,
    /// Nesting deeper than the limit, read as opaque.
    TooDeep,
    /// A list cut at its limit (channel sources of one value).
    Truncated,
}
