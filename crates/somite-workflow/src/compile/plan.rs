//! The compile plan: one resolved, renderer-neutral model of the graph.
//!
//! Every generated file is rendered from this plan and nothing else, so they
//! cannot disagree about a process name, a channel, an environment or a
//! parameter value. The plan reads only what changes execution (nodes, their
//! pinned contracts, parameters and edges) and never the title, layout or
//! notes, which is what keeps presentation edits out of the package digest.
//! Names are assigned in node-id order and statements are emitted in
//! deterministic topological order, so the same graph always yields the same
//! plan.

use super::quote::identifier;
use crate::catalog::{Catalog, CatalogEntry};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::graph::{Edge, Node, WorkflowDocument};
use crate::operator::{ArgPart, ChecksumSpec, OperatorContract, OperatorKind};
use crate::resource::{BoundResources, ResolvedResource, is_reference};
use crate::types::PortType;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// The mate ports a paired-end tool reads; bound together they become one
/// tuple input, so R1 and R2 of a library always travel as a pair.
const MATE_PORTS: (&str, &str) = ("r1", "r2");

/// Everything the renderers need, resolved and named.
#[derive(Debug)]
pub(crate) struct Plan<'a> {
    pub graph_revision: String,
    /// Node ids in deterministic topological order.
    pub order: Vec<String>,
    /// Every node in id order, with what it became.
    pub nodes: Vec<PlannedNode<'a>>,
    /// Source and reference nodes in topological order.
    pub sources: Vec<SourceNode<'a>>,
    /// External nodes in topological order.
    pub processes: Vec<Process<'a>>,
    /// Distinct tool environments, by name.
    pub environments: Vec<Environment>,
}

#[derive(Debug)]
pub(crate) struct PlannedNode<'a> {
    pub node: &'a Node,
    pub entry: &'a CatalogEntry,
    /// The Nextflow process of an external node.
    pub process: Option<String>,
    /// An external node a validation stands in for with fixtures.
    pub substituted: bool,
}

/// A graph input: a node whose outputs are local paths held in params.
#[derive(Debug)]
pub(crate) struct SourceNode<'a> {
    pub node_id: &'a str,
    /// Every imported path, by parameter name (params `inputs`); a managed
    /// resource's reference is replaced by its verified folder.
    pub paths: BTreeMap<String, String>,
    /// The managed resources bound here, by parameter name.
    pub resources: BTreeMap<String, ResolvedResource>,
    /// The channels of outputs that feed a process.
    pub channels: Vec<SourceChannel>,
}

#[derive(Debug)]
pub(crate) struct SourceChannel {
    pub param: String,
    pub variable: String,
}

/// One Pixi environment: a distinct set of pinned tool packages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Environment {
    pub name: String,
    pub packages: BTreeMap<String, String>,
}

/// One external node as a Nextflow process.
#[derive(Debug)]
pub(crate) struct Process<'a> {
    pub node_id: &'a str,
    pub name: String,
    pub operator: &'a OperatorContract,
    pub operator_revision: &'a str,
    pub environment: String,
    pub cpus: Option<u32>,
    pub memory_gb: Option<u32>,
    pub inputs: Vec<ProcessInput>,
    /// Parameters passed through the environment, by parameter name.
    pub params: Vec<EnvParam>,
    /// The thread-count variable tied to `task.cpus` when the user left it unset.
    pub threads_from_cpus: Option<String>,
    /// `{flag.x}` placeholders: the variable holding `--x` or nothing.
    pub flags: Vec<FlagVariable>,
    pub command: Vec<CommandToken>,
    /// The file the command's standard output is written to.
    pub stdout: Option<String>,
    pub outputs: Vec<ProcessOutput>,
}

#[derive(Debug)]
pub(crate) enum ProcessInput {
    Single(StagedInput),
    /// R1 and R2 of one library, as one tuple.
    Pair(StagedInput, StagedInput),
}

/// One bound input port: how it is staged and where its channel comes from.
#[derive(Debug)]
pub(crate) struct StagedInput {
    pub port: String,
    /// The staging pattern: the contract's `stage_as`, or `in/<port>/*`,
    /// which keeps the original file name in a folder of its own.
    pub pattern: String,
    /// For an `in/<port>/*` input, the bash array its one path is read into.
    pub variable: Option<String>,
    pub channel: ChannelRef,
}

/// Where an input's channel comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ChannelRef {
    /// A graph input's `channel.value(file(...))`.
    Source(String),
    /// `PROCESS.out.emit`.
    Output { process: String, emit: String },
}

#[derive(Debug)]
pub(crate) struct EnvParam {
    pub param: String,
    /// The bash variable the command reads.
    pub variable: String,
    /// The `env` input carrying the value base64-encoded; its own prefix, so
    /// it never equals another parameter's variable.
    pub encoded_variable: String,
    pub value: Value,
}

#[derive(Debug)]
pub(crate) struct FlagVariable {
    pub param_variable: String,
    pub variable: String,
    pub flag: String,
}

#[derive(Debug)]
pub(crate) struct ProcessOutput {
    pub port: String,
    pub emit: String,
    pub glob: String,
    pub optional: bool,
    /// The command writes the glob without `.gz`; the task compresses it.
    pub gzip: bool,
    /// The published checksum the output is verified against.
    pub checksum: Option<ChecksumSpec>,
}

/// One argv element of the command.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CommandToken {
    Always(Vec<WordPart>),
    /// Contains a `{flag.x}`: passed only when it does not expand to nothing.
    UnlessEmpty(Vec<WordPart>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WordPart {
    Literal(String),
    /// `${NAME}`.
    Variable(String),
    /// `${NAME[0]}`: the one path staged for an input.
    FirstPath(String),
}

/// The graph (whose semantic revision is `graph_revision`) as a plan, or
/// why it cannot be compiled. Each node of `substituted` (a validation's
/// stand-ins for downloads, see [`super::compile_substituted`]) is planned
/// as a graph input: no process, and one input path per output port that
/// feeds a node outside the set, named after the port.
pub(crate) fn plan<'a>(
    doc: &'a WorkflowDocument,
    catalog: &'a Catalog,
    graph_revision: String,
    resources: &BoundResources,
    substituted: &BTreeSet<String>,
) -> Result<Plan<'a>> {
    let order = doc
        .topological_order()
        .map_err(|cycle| crate::graph::cycle_error(&cycle))?;
    let incoming: BTreeMap<(&str, &str), &Edge> = doc
        .edges
        .iter()
        .map(|e| ((e.to_node.as_str(), e.to_port.as_str()), &**e))
        .collect();
    // A node standing in for its outputs has no process, so only edges into
    // a node that runs count as consumers.
    let mut feeds_something: BTreeSet<(&str, &str)> = BTreeSet::new();
    for e in doc
        .edges
        .iter()
        .filter(|e| !substituted.contains(&e.to_node))
    {
        feeds_something.insert((e.from_node.as_str(), e.from_port.as_str()));
    }

    let mut by_id: BTreeMap<&str, &Node> = BTreeMap::new();
    for node in &doc.nodes {
        by_id.insert(node.id.as_str(), node);
    }
    let mut symbols = Symbols::default();
    let mut nodes = Vec::with_capacity(doc.nodes.len());
    let mut process_names: BTreeMap<&str, String> = BTreeMap::new();
    let mut source_variables: BTreeMap<(&str, &str), String> = BTreeMap::new();
    for (id, node) in &by_id {
        let entry = pinned_entry(catalog, node)?;
        let process = match role(entry, id, substituted) {
            OperatorKind::External => {
                let name = symbols.claim(identifier(id).to_uppercase());
                process_names.insert(id, name.clone());
                Some(name)
            }
            OperatorKind::Source | OperatorKind::Reference => {
                for port in &entry.contract.ports.outputs {
                    if feeds_something.contains(&(*id, port.name.as_str())) {
                        let base = format!(
                            "{}_{}",
                            identifier(id).to_lowercase(),
                            identifier(&port.name).to_lowercase()
                        );
                        let variable = symbols.claim(identifier(&base));
                        source_variables.insert((id, port.name.as_str()), variable);
                    }
                }
                None
            }
            OperatorKind::Inprocess => None,
        };
        nodes.push(PlannedNode {
            node,
            entry,
            process,
            substituted: substituted.contains(*id),
        });
    }
    if process_names.is_empty() {
        return Err(SomiteError::new(
            ErrorCode::WorkflowNotReady,
            "cannot compile: no node runs a tool yet",
            "add a tool from the catalog and connect it to an input",
        ));
    }

    let environments = environments(&nodes);
    let entries: BTreeMap<&str, &CatalogEntry> = nodes
        .iter()
        .map(|n| (n.node.id.as_str(), n.entry))
        .collect();
    let context = Context {
        entries: &entries,
        incoming: &incoming,
        process_names: &process_names,
        source_variables: &source_variables,
        substituted,
    };
    let mut sources = Vec::new();
    let mut processes = Vec::new();
    for id in &order {
        let node = by_id[id.as_str()];
        let contract = &entries[id.as_str()].contract;
        match contract.kind {
            OperatorKind::External if substituted.contains(id) => {
                sources.push(substituted_node(node, contract, &source_variables));
            }
            OperatorKind::Source | OperatorKind::Reference => {
                sources.push(source_node(node, contract, &source_variables, resources)?);
            }
            OperatorKind::External => {
                let environment = environments
                    .iter()
                    .find(|e| e.packages == contract.pixi)
                    .map(|e| e.name.clone())
                    .expect("every external contract has an environment");
                processes.push(process(&context, node, entries[id.as_str()], environment)?);
            }
            OperatorKind::Inprocess => {
                if let Some(edge) = doc.edges.iter().find(|e| e.from_node == node.id) {
                    return Err(SomiteError::new(
                        ErrorCode::WorkflowNotReady,
                        format!(
                            "cannot compile: {} ({}) is computed by Somite and cannot feed {}.{}",
                            node.id, node.operator_id, edge.to_node, edge.to_port
                        ),
                        "connect the tool to a file input or a tool output instead",
                    ));
                }
            }
        }
    }
    Ok(Plan {
        graph_revision,
        order,
        nodes,
        sources,
        processes,
        environments,
    })
}

/// Lookups shared by every process of one plan.
struct Context<'p, 'a> {
    entries: &'p BTreeMap<&'a str, &'a CatalogEntry>,
    incoming: &'p BTreeMap<(&'a str, &'a str), &'a Edge>,
    process_names: &'p BTreeMap<&'a str, String>,
    source_variables: &'p BTreeMap<(&'a str, &'a str), String>,
    substituted: &'p BTreeSet<String>,
}

/// Generated names that must not collide; a clash gets `_2`, `_3`, ...
#[derive(Default)]
struct Symbols {
    taken: BTreeSet<String>,
}

impl Symbols {
    fn claim(&mut self, base: String) -> String {
        if self.taken.insert(base.clone()) {
            return base;
        }
        (2..)
            .map(|n| format!("{base}_{n}"))
            .find(|candidate| self.taken.insert(candidate.clone()))
            .expect("an unbounded range always has a free name")
    }
}

/// What node `id` is planned as: its contract's kind, except that a
/// substituted external node is a graph input.
fn role(entry: &CatalogEntry, id: &str, substituted: &BTreeSet<String>) -> OperatorKind {
    match entry.contract.kind {
        OperatorKind::External if substituted.contains(id) => OperatorKind::Source,
        kind => kind,
    }
}

/// The catalog entry a node was made from, refusing a node whose pinned
/// revision the catalog no longer holds (readiness reports it first).
fn pinned_entry<'a>(catalog: &'a Catalog, node: &Node) -> Result<&'a CatalogEntry> {
    match catalog.get(&node.operator_id) {
        Some(entry) if entry.revision == node.operator_revision => Ok(entry),
        _ => Err(SomiteError::new(
            ErrorCode::WorkflowNotReady,
            format!(
                "cannot compile: {} pins {} at {}, which the catalog does not hold",
                node.id, node.operator_id, node.operator_revision
            ),
            "review the node's contract upgrade in the readiness panel",
        )
        .with_detail("node_id", &node.id)),
    }
}

/// One environment per distinct package set, named after its packages.
fn environments(nodes: &[PlannedNode<'_>]) -> Vec<Environment> {
    let sets: BTreeSet<&BTreeMap<String, String>> = nodes
        .iter()
        .filter(|n| n.process.is_some())
        .map(|n| &n.entry.contract.pixi)
        .collect();
    let mut names = BTreeSet::new();
    let mut environments = Vec::with_capacity(sets.len());
    for packages in sets {
        let base: String = packages
            .keys()
            .map(|name| {
                name.chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() {
                            c.to_ascii_lowercase()
                        } else {
                            '-'
                        }
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("-");
        // `default` is Pixi's own environment: it holds Nextflow.
        let base = if base == "default" {
            "default-tools".to_owned()
        } else {
            base
        };
        let name = if names.insert(base.clone()) {
            base
        } else {
            (2..)
                .map(|n| format!("{base}-{n}"))
                .find(|candidate| names.insert(candidate.clone()))
                .expect("an unbounded range always has a free name")
        };
        environments.push(Environment {
            name,
            packages: packages.clone(),
        });
    }
    environments.sort_by(|a, b| a.name.cmp(&b.name));
    environments
}

fn source_node<'a>(
    node: &'a Node,
    contract: &OperatorContract,
    variables: &BTreeMap<(&str, &str), String>,
    bound: &BoundResources,
) -> Result<SourceNode<'a>> {
    let mut paths = BTreeMap::new();
    let mut resources = BTreeMap::new();
    let mut channels = Vec::new();
    for port in &contract.ports.outputs {
        let Some(param) = &port.import_param else {
            continue;
        };
        let path = node
            .params
            .get(param)
            .or(contract.param(param).and_then(|p| p.default.as_ref()))
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| {
                SomiteError::new(
                    ErrorCode::WorkflowNotReady,
                    format!("cannot compile: {} has no file for `{param}`", node.id),
                    "choose a local file for the node in the inspector",
                )
                .with_detail("node_id", &node.id)
            })?;
        let path = if is_reference(path) {
            let resolved = bound.get(path).ok_or_else(|| {
                SomiteError::new(
                    ErrorCode::WorkflowNotReady,
                    format!(
                        "cannot compile: `{path}` of {} is not a verified installed resource",
                        node.id
                    ),
                    "install the resource (or choose a folder on this machine), then compile again",
                )
                .with_detail("node_id", &node.id)
                .with_detail("reference", path)
            })?;
            resources.insert(param.clone(), resolved.clone());
            resolved.path.as_str()
        } else {
            path
        };
        paths.insert(param.clone(), path.to_owned());
        if let Some(variable) = variables.get(&(node.id.as_str(), port.name.as_str())) {
            channels.push(SourceChannel {
                param: param.clone(),
                variable: variable.clone(),
            });
        }
    }
    Ok(SourceNode {
        node_id: &node.id,
        paths,
        resources,
        channels,
    })
}

/// A substituted node as a graph input: one path per output port that
/// feeds a node that runs, keyed by the port's name. The packaged path is
/// empty; the validation binds a fixture to each and discloses it.
fn substituted_node<'a>(
    node: &'a Node,
    contract: &OperatorContract,
    variables: &BTreeMap<(&str, &str), String>,
) -> SourceNode<'a> {
    let mut paths = BTreeMap::new();
    let mut channels = Vec::new();
    for port in &contract.ports.outputs {
        if let Some(variable) = variables.get(&(node.id.as_str(), port.name.as_str())) {
            paths.insert(port.name.clone(), String::new());
            channels.push(SourceChannel {
                param: port.name.clone(),
                variable: variable.clone(),
            });
        }
    }
    SourceNode {
        node_id: &node.id,
        paths,
        resources: BTreeMap::new(),
        channels,
    }
}

fn process<'a>(
    context: &Context<'_, 'a>,
    node: &'a Node,
    entry: &'a CatalogEntry,
    environment: String,
) -> Result<Process<'a>> {
    let contract = &entry.contract;
    let contract_error = |what: String| {
        SomiteError::new(
            ErrorCode::InvalidContract,
            format!("cannot compile {} ({}): {what}", node.id, contract.id),
            "fix the operator contract, reload the catalog, then compile again",
        )
        .with_detail("node_id", &node.id)
    };
    let bound = |port: &str| context.incoming.contains_key(&(node.id.as_str(), port));

    let mut staged: BTreeMap<&str, StagedInput> = BTreeMap::new();
    let mut input_dirs = BTreeSet::new();
    for port in &contract.ports.inputs {
        let Some(edge) = context
            .incoming
            .get(&(node.id.as_str(), port.name.as_str()))
        else {
            continue;
        };
        let channel = channel_of(context, edge)?;
        let input = match &port.stage_as {
            Some(name) => {
                if !is_stage_name(name) {
                    return Err(contract_error(format!(
                        "stage_as `{name}` of `{}` is not a plain relative name",
                        port.name
                    )));
                }
                StagedInput {
                    port: port.name.clone(),
                    pattern: name.clone(),
                    variable: None,
                    channel,
                }
            }
            None => {
                let dir = identifier(&port.name).to_lowercase();
                if !input_dirs.insert(dir.clone()) {
                    return Err(contract_error(format!(
                        "input `{}` stages into a folder another input uses",
                        port.name
                    )));
                }
                StagedInput {
                    port: port.name.clone(),
                    pattern: format!("in/{dir}/*"),
                    variable: Some(input_variable(&port.name)),
                    channel,
                }
            }
        };
        staged.insert(&port.name, input);
    }

    let mut inputs = Vec::new();
    let pair = bound(MATE_PORTS.0) && bound(MATE_PORTS.1);
    for port in &contract.ports.inputs {
        if pair && port.name == MATE_PORTS.1 {
            continue;
        }
        let Some(input) = staged.remove(port.name.as_str()) else {
            continue;
        };
        inputs.push(if pair && port.name == MATE_PORTS.0 {
            let mate = staged
                .remove(MATE_PORTS.1)
                .expect("both mates are bound and staged");
            ProcessInput::Pair(input, mate)
        } else {
            ProcessInput::Single(input)
        });
    }

    let threads_param = contract
        .resources
        .as_ref()
        .and_then(|r| r.threads_param.as_deref());
    let param_variable = |name: &str| format!("SOMITE_PARAM_{}", identifier(name).to_uppercase());
    let mut params: BTreeMap<String, EnvParam> = BTreeMap::new();
    let mut flags: BTreeMap<String, FlagVariable> = BTreeMap::new();
    let mut threads_from_cpus = None;
    let mut command = Vec::new();
    let mut variables_seen: BTreeMap<String, String> = BTreeMap::new();
    for template in contract.argv_templates() {
        if !template.applies(bound) {
            continue;
        }
        let mut parts = Vec::new();
        let mut has_flag = false;
        for part in &template.parts {
            match part {
                ArgPart::Literal(text) => {
                    if text.contains('\0') {
                        return Err(contract_error("an argv literal contains NUL".into()));
                    }
                    parts.push(WordPart::Literal(text.clone()));
                }
                ArgPart::Work => parts.push(WordPart::Variable("PWD".into())),
                ArgPart::Input(port) => {
                    if !bound(port) {
                        return Err(contract_error(format!(
                            "argv uses input `{port}` without a `?{port}:` guard, and it is not connected"
                        )));
                    }
                    let staged = &contract.input(port).expect("validated contract").stage_as;
                    parts.push(match staged {
                        Some(name) => WordPart::Literal(name.clone()),
                        None => WordPart::FirstPath(input_variable(port)),
                    });
                }
                ArgPart::Param(name) | ArgPart::Flag(name) => {
                    let variable = param_variable(name);
                    if let Some(other) = variables_seen.insert(variable.clone(), name.clone())
                        && other != *name
                    {
                        return Err(contract_error(format!(
                            "parameters `{other}` and `{name}` would share the variable {variable}"
                        )));
                    }
                    if threads_param == Some(name.as_str()) && !node.params.contains_key(name) {
                        threads_from_cpus = Some(variable.clone());
                    } else if !params.contains_key(name) {
                        let value = node
                            .params
                            .get(name)
                            .or(contract.param(name).and_then(|p| p.default.as_ref()))
                            .cloned()
                            .ok_or_else(|| {
                                SomiteError::new(
                                    ErrorCode::WorkflowNotReady,
                                    format!(
                                        "cannot compile: {} has no value for `{name}`",
                                        node.id
                                    ),
                                    "set the parameter in the inspector",
                                )
                                .with_detail("node_id", &node.id)
                            })?;
                        params.insert(
                            name.clone(),
                            EnvParam {
                                param: name.clone(),
                                variable: variable.clone(),
                                encoded_variable: format!(
                                    "SOMITE_B64_PARAM_{}",
                                    identifier(name).to_uppercase()
                                ),
                                value,
                            },
                        );
                    }
                    if let ArgPart::Flag(_) = part {
                        has_flag = true;
                        let flag = flags.entry(name.clone()).or_insert_with(|| FlagVariable {
                            param_variable: variable.clone(),
                            variable: format!("SOMITE_FLAG_{}", identifier(name).to_uppercase()),
                            flag: format!("--{name}"),
                        });
                        parts.push(WordPart::Variable(flag.variable.clone()));
                    } else {
                        parts.push(WordPart::Variable(variable));
                    }
                }
            }
        }
        let parts = merge_literals(parts);
        command.push(if has_flag {
            CommandToken::UnlessEmpty(parts)
        } else {
            CommandToken::Always(parts)
        });
    }

    let mut emits = BTreeSet::new();
    let mut outputs = Vec::new();
    let mut stdout = None;
    for port in &contract.ports.outputs {
        let emit = identifier(&port.name).to_lowercase();
        if !emits.insert(emit.clone()) {
            return Err(contract_error(format!(
                "output `{}` has the same channel name as another output",
                port.name
            )));
        }
        let spec = contract.outputs.get(&port.name);
        let (glob, optional) = match spec {
            Some(spec) => (spec.glob.clone(), spec.optional),
            None => (format!("out/{emit}.{}", stdout_extension(port.ty)), false),
        };
        if contract.stdout.as_deref() == Some(port.name.as_str()) {
            stdout = Some(glob.clone());
        }
        outputs.push(ProcessOutput {
            port: port.name.clone(),
            emit,
            glob,
            optional,
            gzip: spec.is_some_and(|s| s.gzip),
            checksum: spec.and_then(|s| s.checksum.clone()),
        });
    }

    let user_threads = threads_param
        .and_then(|p| node.params.get(p))
        .and_then(Value::as_u64)
        .map(|t| t.clamp(1, u64::from(u32::MAX)) as u32);
    Ok(Process {
        node_id: &node.id,
        name: context.process_names[node.id.as_str()].clone(),
        operator: contract,
        operator_revision: &entry.revision,
        environment,
        cpus: user_threads.or(contract.resources.as_ref().map(|r| r.cpus.max(1))),
        memory_gb: contract.resources.as_ref().map(|r| r.memory_gb),
        inputs,
        params: params.into_values().collect(),
        threads_from_cpus,
        flags: flags.into_values().collect(),
        command,
        stdout,
        outputs,
    })
}

/// The channel feeding `edge`'s input.
fn channel_of(context: &Context<'_, '_>, edge: &Edge) -> Result<ChannelRef> {
    let from = edge.from_node.as_str();
    match role(context.entries[from], from, context.substituted) {
        OperatorKind::External => {
            let emit = identifier(&edge.from_port).to_lowercase();
            Ok(ChannelRef::Output {
                process: context.process_names[from].clone(),
                emit,
            })
        }
        OperatorKind::Source | OperatorKind::Reference => Ok(ChannelRef::Source(
            context.source_variables[&(from, edge.from_port.as_str())].clone(),
        )),
        OperatorKind::Inprocess => Err(SomiteError::new(
            ErrorCode::WorkflowNotReady,
            format!(
                "cannot compile: {} is computed by Somite and cannot feed {}.{}",
                edge.from_node, edge.to_node, edge.to_port
            ),
            "connect the tool to a file input or a tool output instead",
        )),
    }
}

/// The bash array holding the path staged for input `port`.
fn input_variable(port: &str) -> String {
    format!("SOMITE_INPUT_{}", identifier(port).to_uppercase())
}

/// Joins neighbouring literals so a word renders as few quoted runs as possible.
fn merge_literals(parts: Vec<WordPart>) -> Vec<WordPart> {
    let mut merged: Vec<WordPart> = Vec::with_capacity(parts.len());
    for part in parts {
        match (merged.last_mut(), part) {
            (Some(WordPart::Literal(previous)), WordPart::Literal(next)) => {
                previous.push_str(&next);
            }
            (_, part) => merged.push(part),
        }
    }
    merged
}

/// Whether a `stage_as` name stays inside the task directory.
fn is_stage_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('/')
        && name
            .split('/')
            .all(|segment| !segment.is_empty() && segment != "." && segment != "..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
}

/// The file extension of a captured standard output, so the next tool
/// recognises the format by name as well as by content.
fn stdout_extension(ty: PortType) -> &'static str {
    match ty {
        PortType::Sra => "sra",
        PortType::Fastq => "fastq",
        PortType::FastqGz => "fastq.gz",
        PortType::Fasta => "fa",
        PortType::FastaGz => "fa.gz",
        PortType::Gtf => "gtf",
        PortType::GtfGz => "gtf.gz",
        PortType::Gff3 => "gff3",
        PortType::Sam => "sam",
        PortType::Bam | PortType::ReadGroupedBam | PortType::GatkReadyBam => "bam",
        PortType::Bai => "bai",
        PortType::Fai => "fai",
        PortType::Dict => "dict",
        PortType::Vcf => "vcf",
        PortType::VcfGz => "vcf.gz",
        PortType::Tbi => "tbi",
        PortType::Bed => "bed",
        PortType::Agp => "agp",
        PortType::Chain => "chain",
        PortType::Table => "tsv",
        PortType::Json => "json",
        PortType::Html => "html",
        PortType::Image => "png",
        PortType::Zip => "zip",
        PortType::Directory | PortType::Preview => "out",
        PortType::Text => "txt",
    }
}

impl Plan<'_> {
    /// params `inputs`: node id -> parameter -> local path, for every graph input.
    pub(crate) fn input_paths(&self) -> BTreeMap<&str, &BTreeMap<String, String>> {
        self.sources.iter().map(|s| (s.node_id, &s.paths)).collect()
    }

    /// params `values`: node id -> parameter -> value, for every parameter a
    /// command reads from its environment.
    pub(crate) fn parameter_values(&self) -> BTreeMap<&str, BTreeMap<&str, &Value>> {
        self.processes
            .iter()
            .filter(|p| !p.params.is_empty())
            .map(|p| {
                let values = p
                    .params
                    .iter()
                    .map(|param| (param.param.as_str(), &param.value))
                    .collect();
                (p.node_id, values)
            })
            .collect()
    }
}
