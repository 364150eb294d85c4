//! The Workflow assessment: what stands between this graph and a run.
//!
//! One deterministic function of (document, catalog, which input files
//! exist) that the status bar, the node badges, the agent's
//! `somite.readiness.get` and the compile/run/validate/export gates all read.
//! Every requirement says how it can be resolved; file, parameter and
//! connection work is never escalated to an agent, while a managed-resource
//! choice with a scientific effect (which Kraken2 database?) may be.
//!
//! Every requirement carries its [`Evidence`]: the contract field it was
//! derived from (operator, revision, field path, and the file and line that
//! declare it, recorded when the catalog was loaded), the graph node and
//! port or parameter it applies to, and for a file the path and, where known,
//! the digest recorded for it versus the one found. An agent escalating a
//! requirement hands the user these facts, not its own reading of them.

use crate::canonical::Revision;
use crate::catalog::{Catalog, CatalogEntry};
use crate::error::{ErrorCode, SomiteError};
use crate::graph::{Node, WorkflowDocument};
use crate::operator::{
    OperatorContract, OperatorKind, ParamType, PortSpec, ResolutionKind as ResourceResolutionKind,
    check_import_path,
};
use crate::resource::{ResourceFinding, is_reference};
use crate::source::{SourceBinding, SourceInvocation, SourceParam, SourceProcess, control_type};
use crate::source_map::SourceLocation;
use crate::source_paths::{PathTarget, path_target};
use crate::source_reach::{Lookup, Truth};
use crate::variant::UnrepresentedInvocation;
use crate::variant::equivalent;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum AssessmentState {
    /// No nodes yet.
    Empty,
    /// Nothing required is missing.
    Ready,
    /// Inputs are placed but no tool would run yet.
    Building,
    /// At least one required item is open.
    NeedsAction,
}

/// Requirement kinds, in priority order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    /// The graph file is not the one its input-origin sidecar recorded: every
    /// edit is refused until the user rebinds it, so it comes first.
    InputOrigin,
    Parameter,
    Input,
    ManagedResource,
    ManualCheckpoint,
    MethodDetails,
    LegacyTool,
    Adapter,
    Toolchain,
    /// A step of the source pipeline a promoted variant has no native node
    /// for (see [`crate::variant`]); last so the priorities of the kinds
    /// before it stay what clients already know.
    UnrepresentedSourceStep,
    /// A process of a source pipeline with no Pixi environment (it declares
    /// only a container, or a Conda environment Pixi cannot freeze); it
    /// blocks only where the parameters provably reach it.
    ProcessEnvironment,
    /// A path input Nextflow fetches from a remote location; informational.
    RemoteInput,
    /// A path input shipped inside the pinned pipeline; informational.
    BundledFile,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ResolutionKind {
    Connect,
    Configure,
    UseExisting,
    Download,
    Build,
    Attach,
    Review,
    Setup,
}

/// One known way to meet a requirement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Resolution {
    pub id: String,
    pub kind: ResolutionKind,
    pub label: String,
    pub recommended: bool,
    /// For `connect`: an existing output that fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_port: Option<String>,
    /// For `connect` or `use_existing`: an operator to add that provides it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operator_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scientific_effect: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
    /// For `configure`: the value this resolution sets, when it is one
    /// known value (a results folder in the project).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
}

/// A versioned, reviewed procedure that produces a resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Recipe {
    pub id: String,
    pub version: String,
    pub title: String,
    pub kind: ResolutionKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_url: Option<String>,
}

/// What a requirement was derived from; every member is present only when it
/// applies (a toolchain item, found on this machine, has none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Evidence {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract: Option<ContractEvidence>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphEvidence>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<FileEvidence>,
    /// For a step of a source pipeline: the conditions under which the
    /// pipeline reaches it and what they give with the current parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach: Option<ReachEvidence>,
}

/// When a source pipeline reaches a step, read from its code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ReachEvidence {
    /// Whether the current parameters reach it: `true`, `false`, or
    /// `unknown` where the code does not say statically.
    pub reached: Truth,
    /// The invocations of the step, by task name.
    pub invocations: Vec<String>,
    /// Each way the pipeline reaches it, as conditions in words; empty when
    /// it always does.
    pub conditions: Vec<String>,
    /// The parameters the conditions read, with the values they have now.
    pub params: Vec<ReachParam>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ReachParam {
    pub name: String,
    /// The value the run would see (none: unset).
    pub value: Option<Value>,
    /// False for a parameter the pipeline's schema does not declare: its
    /// value cannot be known.
    pub known: bool,
}

/// The operator contract field a requirement comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ContractEvidence {
    pub operator_id: String,
    /// The revision of the contract in the catalog that was assessed.
    pub operator_revision: Revision,
    /// The field path in the contract, e.g. `ports.in[0].resource`.
    pub field: String,
    /// The file and line declaring `field`; absent for a contract that did
    /// not come from a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
}

/// The place in the graph a requirement applies to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct GraphEvidence {
    pub node_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// The contract revision the node pins, when it differs from the catalog's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pinned_revision: Option<Revision>,
}

/// A file a requirement is about, as it was checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct FileEvidence {
    /// As the graph (or the project layout) names it; relative paths are
    /// relative to the project folder.
    pub path: String,
    /// Whether a file was found at `path`.
    pub found: bool,
    /// The digest recorded for the file, when one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_digest: Option<Revision>,
    /// The digest of the file found, when it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_digest: Option<Revision>,
    /// The location the record binds the file to, when it is not `path`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_location: Option<String>,
}

impl Evidence {
    /// One line per fact, for text output (`somite assess`).
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(c) = &self.contract {
            let at = c
                .source
                .as_ref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            lines.push(format!(
                "contract {} {} field `{}`{at}",
                c.operator_id, c.operator_revision, c.field
            ));
        }
        if let Some(g) = &self.graph {
            let mut line = format!("node {}", g.node_id);
            if let Some(port) = &g.port {
                line += &format!(" port {port}");
            }
            if let Some(param) = &g.param {
                line += &format!(" parameter {param}");
            }
            if let Some(pinned) = &g.pinned_revision {
                line += &format!(" pins {pinned}");
            }
            lines.push(line);
        }
        if let Some(f) = &self.file {
            let mut line = format!(
                "file {} {}",
                f.path,
                if f.found { "found" } else { "not found" }
            );
            if let Some(location) = &f.recorded_location {
                line += &format!("; recorded at {location}");
            }
            match (&f.recorded_digest, &f.found_digest) {
                (Some(r), Some(d)) => line += &format!("; recorded {r}, found {d}"),
                (Some(r), None) => line += &format!("; recorded {r}"),
                (None, Some(d)) => line += &format!("; nothing recorded, found {d}"),
                (None, None) => {}
            }
            lines.push(line);
        }
        lines
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Item {
    pub id: String,
    pub node_id: Option<String>,
    pub operator_id: Option<String>,
    pub field: Option<String>,
    pub title: String,
    pub detail: String,
    pub kind: ItemKind,
    pub priority: u32,
    /// Whether this item blocks compile, run, validate and export.
    pub required: bool,
    pub escalatable: bool,
    pub resolutions: Vec<Resolution>,
    pub recipes: Vec<Recipe>,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Support {
    Supported,
    UnsupportedContract,
}

/// How the inspector edits a node field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ControlKind {
    /// A local path the node imports.
    File,
    /// A typed parameter value.
    Param,
}

/// A control the inspector shows for one node field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct InputControl {
    pub field: String,
    pub control: ControlKind,
    #[serde(rename = "type")]
    pub ty: ParamType,
    pub label: String,
    pub required: bool,
    pub value: Option<Value>,
    pub default: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
}

/// Counts that drive the node's badges.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Badges {
    pub missing_inputs: usize,
    pub missing_parameters: usize,
    pub missing_resources: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct NodeAssessment {
    pub node_id: String,
    pub operator_id: String,
    pub support: Support,
    pub ready: bool,
    pub badges: Badges,
    pub items: Vec<String>,
    pub input_controls: Vec<InputControl>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Assessment {
    pub graph_revision: Revision,
    pub catalog_revision: Revision,
    pub state: AssessmentState,
    pub required_count: usize,
    /// Open items by kind, for the status bar.
    pub counts: BTreeMap<ItemKind, usize>,
    /// The id of the first required item: what to do next.
    pub next_requirement: Option<String>,
    pub items: Vec<Item>,
    pub nodes: Vec<NodeAssessment>,
}

/// Answers whether a local input path exists; I/O stays with the caller.
pub trait InputProbe {
    fn exists(&self, path: &str) -> bool;

    /// What a `somite-resource:` reference resolves to on this machine;
    /// `None` where no resource store is known (the reference then stays
    /// an open requirement).
    fn resource(&self, _reference: &str) -> Option<ResourceFinding> {
        None
    }
}

impl<F: Fn(&str) -> bool> InputProbe for F {
    fn exists(&self, path: &str) -> bool {
        self(path)
    }
}

impl Assessment {
    pub fn is_ready(&self) -> bool {
        self.required_count == 0
    }

    /// The `workflow_not_ready` failure for `action`, or `Ok` when nothing
    /// required is open. Compile, run, validate and export call this before
    /// any tool starts.
    pub fn gate(&self, action: &str) -> Result<(), SomiteError> {
        if self.state == AssessmentState::Empty {
            return Err(SomiteError::new(
                ErrorCode::WorkflowNotReady,
                format!("cannot {action}: the workflow is empty"),
                "add an input and a tool from the catalog first",
            ));
        }
        match self.items.iter().find(|i| i.required) {
            None => Ok(()),
            Some(next) => Err(SomiteError::new(
                ErrorCode::WorkflowNotReady,
                format!(
                    "cannot {action}: {} requirement(s) open; next: {}",
                    self.required_count, next.title
                ),
                "resolve the readiness requirements (somite.readiness.get lists each with its resolutions)",
            )
            .with_detail("required_count", self.required_count)
            .with_detail("next_requirement", &next.id)
            .with_detail("graph_revision", &self.graph_revision)),
        }
    }

    /// Records a missing or mismatched local tool. It does not block compile or
    /// export (they need no tool), so it is informational here; the runner
    /// fails with `toolchain_missing` itself.
    pub fn add_toolchain_item(&mut self, tool: &str, detail: &str, install_hint: &str) {
        self.items.push(Item {
            id: format!("toolchain:{tool}"),
            node_id: None,
            operator_id: None,
            field: Some(tool.to_owned()),
            title: format!("{tool} is not available"),
            detail: detail.to_owned(),
            kind: ItemKind::Toolchain,
            priority: priority(ItemKind::Toolchain),
            required: false,
            escalatable: false,
            resolutions: vec![resolution(
                format!("toolchain:{tool}:setup"),
                ResolutionKind::Setup,
                install_hint.to_owned(),
                true,
            )],
            recipes: Vec::new(),
            evidence: Evidence::default(),
        });
        *self.counts.entry(ItemKind::Toolchain).or_default() += 1;
    }

    /// Records that the graph file is not bound to its location (changed or
    /// moved by hand): edits, compile, run, validate and export are refused
    /// with `input_origin_recovery_required` until the user rebinds it, so
    /// the item is required and becomes the next requirement. `file` says
    /// which file, and the digest its sidecar recorded versus the one found.
    pub fn add_input_origin_item(&mut self, reason: &str, file: FileEvidence) {
        let id = format!("{}:{}", kind_slug(ItemKind::InputOrigin), file.path);
        self.items.push(Item {
            resolutions: vec![resolution(
                format!("{id}:rebind"),
                ResolutionKind::Review,
                "Inspect the graph, then rebind it to its location (Rebind in the workspace, \
                 or `somite project rebind`)"
                    .to_owned(),
                true,
            )],
            id,
            node_id: None,
            operator_id: None,
            field: None,
            title: "The workflow file is not the one Somite recorded".to_owned(),
            detail: format!("{reason}."),
            kind: ItemKind::InputOrigin,
            priority: priority(ItemKind::InputOrigin),
            required: true,
            escalatable: false,
            recipes: Vec::new(),
            evidence: Evidence {
                file: Some(file),
                ..Evidence::default()
            },
        });
        self.items.sort_by(item_order);
        *self.counts.entry(ItemKind::InputOrigin).or_default() += 1;
        self.required_count += 1;
        self.next_requirement = self.items.iter().find(|i| i.required).map(|i| i.id.clone());
        if self.state != AssessmentState::Empty {
            self.state = AssessmentState::NeedsAction;
        }
    }
}

fn item_order(a: &Item, b: &Item) -> std::cmp::Ordering {
    (a.priority, &a.node_id, &a.field, &a.id).cmp(&(b.priority, &b.node_id, &b.field, &b.id))
}

fn priority(kind: ItemKind) -> u32 {
    kind as u32 + 1
}

fn resolution(id: String, kind: ResolutionKind, label: String, recommended: bool) -> Resolution {
    Resolution {
        id,
        kind,
        label,
        recommended,
        from_node: None,
        from_port: None,
        operator_id: None,
        download_bytes: None,
        stored_bytes: None,
        scientific_effect: None,
        source_url: None,
        value: None,
    }
}

/// Assesses `doc` against `catalog`.
pub fn assess(doc: &WorkflowDocument, catalog: &Catalog, inputs: &dyn InputProbe) -> Assessment {
    assess_at(doc, doc.graph_revision(), catalog, inputs)
}

/// [`assess`] for a document whose graph revision is already known (a
/// published state keeps it), so the assessment does not compute it again.
pub fn assess_at(
    doc: &WorkflowDocument,
    graph_revision: Revision,
    catalog: &Catalog,
    inputs: &dyn InputProbe,
) -> Assessment {
    // The inputs that have an edge, looked up once per port instead of
    // scanning every edge for each.
    let connected: HashSet<(&str, &str)> = doc
        .edges
        .iter()
        .map(|e| (e.to_node.as_str(), e.to_port.as_str()))
        .collect();
    let mut items = Vec::new();
    let mut nodes = Vec::new();
    for node in &doc.nodes {
        let before = items.len();
        let (support, input_controls) = match (node.source(), catalog.get(&node.operator_id)) {
            (Some(binding), _) => {
                assess_source(catalog, node, binding, inputs, &mut items);
                (Support::Supported, source_controls(node, binding))
            }
            (None, Some(entry)) if entry.revision == node.operator_revision => {
                assess_node(doc, &connected, catalog, node, entry, inputs, &mut items);
                (Support::Supported, controls(node, &entry.contract))
            }
            (None, current) => {
                items.push(unsupported(node, current));
                (Support::UnsupportedContract, Vec::new())
            }
        };
        let mine = &items[before..];
        let count = |kind: ItemKind| mine.iter().filter(|i| i.kind == kind).count();
        nodes.push(NodeAssessment {
            node_id: node.id.clone(),
            operator_id: node.operator_id.clone(),
            support,
            ready: mine.iter().all(|i| !i.required),
            badges: Badges {
                missing_inputs: count(ItemKind::Input),
                missing_parameters: count(ItemKind::Parameter),
                missing_resources: count(ItemKind::ManagedResource),
            },
            items: mine.iter().map(|i| i.id.clone()).collect(),
            input_controls,
        });
    }
    if let Some(origin) = &doc.variant_origin {
        items.extend(origin.unrepresented.iter().map(unrepresented_step));
    }
    items.sort_by(item_order);
    nodes.sort_by(|a, b| a.node_id.cmp(&b.node_id));
    let required_count = items.iter().filter(|i| i.required).count();
    let mut counts = BTreeMap::new();
    for item in &items {
        *counts.entry(item.kind).or_default() += 1;
    }
    let runs_something = doc.nodes.iter().any(|n| {
        n.source.is_some()
            || catalog
                .get(&n.operator_id)
                .is_some_and(|e| e.contract.kind == OperatorKind::External)
    });
    let state = if doc.nodes.is_empty() {
        AssessmentState::Empty
    } else if required_count > 0 {
        AssessmentState::NeedsAction
    } else if !runs_something {
        AssessmentState::Building
    } else {
        AssessmentState::Ready
    };
    Assessment {
        graph_revision,
        catalog_revision: catalog.revision().clone(),
        state,
        required_count,
        counts,
        next_requirement: items.iter().find(|i| i.required).map(|i| i.id.clone()),
        items,
        nodes,
    }
}

fn item(node: &Node, kind: ItemKind, field: &str, title: String, detail: String) -> Item {
    Item {
        id: format!("{}:{}:{}", kind_slug(kind), node.id, field),
        node_id: Some(node.id.clone()),
        operator_id: Some(node.operator_id.clone()),
        field: Some(field.to_owned()),
        title,
        detail,
        kind,
        priority: priority(kind),
        required: true,
        escalatable: false,
        resolutions: Vec::new(),
        recipes: Vec::new(),
        evidence: Evidence::default(),
    }
}

/// The evidence of a requirement derived from `field` of `entry`'s contract
/// at `place` in the graph.
fn derived(entry: &CatalogEntry, field: String, place: GraphEvidence) -> Evidence {
    Evidence {
        contract: Some(ContractEvidence {
            operator_id: entry.contract.id.clone(),
            operator_revision: entry.revision.clone(),
            source: entry.contract.source.as_ref().map(|s| s.location(&field)),
            field,
        }),
        graph: Some(place),
        file: None,
        reach: None,
    }
}

fn at_port(node: &Node, port: &str) -> GraphEvidence {
    GraphEvidence {
        node_id: node.id.clone(),
        port: Some(port.to_owned()),
        param: None,
        pinned_revision: None,
    }
}

/// The node itself as the place of a requirement.
fn at_node(node: &Node) -> GraphEvidence {
    GraphEvidence {
        node_id: node.id.clone(),
        port: None,
        param: None,
        pinned_revision: None,
    }
}

fn at_param(node: &Node, param: &str) -> GraphEvidence {
    GraphEvidence {
        node_id: node.id.clone(),
        port: None,
        param: Some(param.to_owned()),
        pinned_revision: None,
    }
}

fn kind_slug(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::InputOrigin => "input_origin",
        ItemKind::Parameter => "parameter",
        ItemKind::Input => "input",
        ItemKind::UnrepresentedSourceStep => "unrepresented_source_step",
        ItemKind::ManagedResource => "managed_resource",
        ItemKind::ManualCheckpoint => "manual_checkpoint",
        ItemKind::MethodDetails => "method_details",
        ItemKind::LegacyTool => "legacy_tool",
        ItemKind::Adapter => "adapter",
        ItemKind::Toolchain => "toolchain",
        ItemKind::ProcessEnvironment => "process_environment",
        ItemKind::RemoteInput => "remote_input",
        ItemKind::BundledFile => "bundled_file",
    }
}

fn unsupported(node: &Node, current: Option<&CatalogEntry>) -> Item {
    let mut it = item(
        node,
        ItemKind::LegacyTool,
        "operator",
        format!(
            "{} ({}) is not in the current catalog",
            node.id, node.operator_id
        ),
        format!("The node pins revision {}.", node.operator_revision),
    );
    let pinned = GraphEvidence {
        node_id: node.id.clone(),
        port: None,
        param: None,
        pinned_revision: Some(node.operator_revision.clone()),
    };
    it.evidence = match current {
        Some(entry) => derived(entry, "id".to_owned(), pinned),
        None => Evidence {
            graph: Some(pinned),
            ..Evidence::default()
        },
    };
    it.resolutions.push(match current.map(|e| &e.revision) {
        Some(revision) => resolution(
            format!("{}:review-upgrade", it.id),
            ResolutionKind::Review,
            format!("Review the change and replace the node with revision {revision}"),
            true,
        ),
        None => resolution(
            format!("{}:review-remove", it.id),
            ResolutionKind::Review,
            "Remove the node or add its contract to the project's operators".into(),
            true,
        ),
    });
    it
}

fn assess_node(
    doc: &WorkflowDocument,
    connected: &HashSet<(&str, &str)>,
    catalog: &Catalog,
    node: &Node,
    entry: &CatalogEntry,
    inputs: &dyn InputProbe,
    items: &mut Vec<Item>,
) {
    let contract = &entry.contract;
    for (index, spec) in contract.params.iter().enumerate() {
        let value = node.params.get(&spec.name).or(spec.default.as_ref());
        let import_port = contract
            .ports
            .outputs
            .iter()
            .position(|p| p.import_param.as_deref() == Some(spec.name.as_str()));
        if let Some(import_port) = import_port {
            let path_value = value.and_then(Value::as_str).filter(|p| !p.is_empty());
            if let Some(reference) = path_value.filter(|p| is_reference(p)) {
                let profile = contract.ports.outputs[import_port]
                    .resource_profile
                    .as_deref();
                if let Some(mut it) = resource_binding_item(node, spec, reference, profile, inputs)
                {
                    let file = it.evidence.file.take();
                    it.evidence = derived(
                        entry,
                        format!("ports.out[{import_port}].import_param"),
                        at_param(node, &spec.name),
                    );
                    it.evidence.file = file;
                    items.push(it);
                }
                continue;
            }
            let path = PathParam {
                name: &spec.name,
                label: &spec.label,
                value: value.and_then(Value::as_str),
                required: true,
                must_exist: true,
            };
            let evidence = derived(
                entry,
                format!("ports.out[{import_port}].import_param"),
                at_param(node, &spec.name),
            );
            items.extend(path_param_item(node, &path, inputs, evidence));
        } else if spec.required && value.is_none() {
            let evidence = derived(
                entry,
                format!("params[{index}].required"),
                at_param(node, &spec.name),
            );
            items.push(unset_param_item(
                node,
                &spec.name,
                &spec.label,
                &contract.id,
                evidence,
            ));
        }
    }
    for (index, port) in contract.ports.inputs.iter().enumerate() {
        if port.optional || connected.contains(&(node.id.as_str(), port.name.as_str())) {
            continue;
        }
        let mut it = match &port.resource {
            Some(_) => resource_item(doc, catalog, node, port),
            None => connection_item(doc, catalog, node, port),
        };
        // A resource need is declared by its `resource` table; a plain
        // input is required by being declared without `optional = true`.
        let field = match &port.resource {
            Some(_) => format!("ports.in[{index}].resource"),
            None => format!("ports.in[{index}]"),
        };
        it.evidence = derived(entry, field, at_port(node, &port.name));
        items.push(it);
    }
    if contract.network {
        items.push(network_item(node, entry));
    }
}

/// A parameter whose value is a local file the run stages: a native
/// operator's import parameter or a source pipeline's path parameter.
struct PathParam<'a> {
    name: &'a str,
    label: &'a str,
    value: Option<&'a str>,
    /// Whether an empty value is itself a requirement.
    required: bool,
    /// Whether the file must already exist (a folder the run makes need not).
    must_exist: bool,
}

/// The requirement a path parameter raises, if any — no file chosen, a path
/// that cannot be staged, or a file that is not there — carrying `evidence`
/// (which differs only in where the parameter is declared) and the file
/// it found.
fn path_param_item(
    node: &Node,
    param: &PathParam<'_>,
    inputs: &dyn InputProbe,
    evidence: Evidence,
) -> Option<Item> {
    let PathParam { name, label, .. } = *param;
    let path = param.value.filter(|p| !p.is_empty());
    let (title, detail) = match path {
        None if param.required => (
            format!("Choose {label} for {}", node.id),
            "No file is chosen yet.".to_owned(),
        ),
        None => return None,
        Some(p) => match check_import_path(name, p) {
            Err(fault) => (
                format!("{label} of {} cannot be staged", node.id),
                format!("{fault}; rename the file or choose another."),
            ),
            Ok(()) if param.must_exist && !inputs.exists(p) => (
                format!("{label} of {} was not found", node.id),
                format!("No readable file at `{p}`."),
            ),
            Ok(()) => return None,
        },
    };
    let mut it = item(node, ItemKind::Input, name, title, detail);
    it.evidence = evidence;
    it.evidence.file = path.map(|p| FileEvidence {
        path: p.to_owned(),
        found: inputs.exists(p),
        recorded_digest: None,
        found_digest: None,
        recorded_location: None,
    });
    it.resolutions.push(resolution(
        format!("{}:attach", it.id),
        ResolutionKind::Attach,
        format!("Choose a local file for {label}"),
        true,
    ));
    Some(it)
}

/// The requirement of a required parameter with neither a value nor a
/// default; `owner` names what declares it (an operator or a pipeline).
fn unset_param_item(node: &Node, name: &str, label: &str, owner: &str, evidence: Evidence) -> Item {
    let mut it = item(
        node,
        ItemKind::Parameter,
        name,
        format!("Set {label} on {}", node.id),
        format!("{owner} has no default for `{name}`."),
    );
    it.evidence = evidence;
    it.resolutions.push(resolution(
        format!("{}:configure", it.id),
        ResolutionKind::Configure,
        format!("Set {label}"),
        true,
    ));
    it
}

/// The requirement a `somite-resource:` reference leaves open, if any: one
/// that is not installed, whose files changed since it was installed, or
/// whose profile is not the one the input declares. A verified resource of
/// the right profile meets the input.
fn resource_binding_item(
    node: &Node,
    spec: &crate::operator::ParamSpec,
    reference: &str,
    profile: Option<&str>,
    inputs: &dyn InputProbe,
) -> Option<Item> {
    let (title, detail, reinstall) = match inputs.resource(reference) {
        Some(ResourceFinding::Verified(found)) => match profile {
            Some(wanted) if wanted != found.profile => (
                format!(
                    "{} of {} is the wrong kind of resource",
                    spec.label, node.id
                ),
                format!(
                    "`{reference}` is a {} but the input needs a {wanted}.",
                    found.profile
                ),
                false,
            ),
            _ => return None,
        },
        Some(ResourceFinding::Missing { code, detail }) => (
            format!("{} of {} is not installed", spec.label, node.id),
            format!("{detail} ({code})."),
            false,
        ),
        Some(ResourceFinding::Tampered { code, detail }) => (
            format!(
                "{} of {} changed since it was installed",
                spec.label, node.id
            ),
            format!("{detail} ({code})."),
            true,
        ),
        None => (
            format!("{} of {} cannot be resolved here", spec.label, node.id),
            format!("No managed-resource store is available to resolve `{reference}`."),
            false,
        ),
    };
    let mut it = item(node, ItemKind::ManagedResource, &spec.name, title, detail);
    it.evidence.file = Some(FileEvidence {
        path: reference.to_owned(),
        found: false,
        recorded_digest: None,
        found_digest: None,
        recorded_location: None,
    });
    it.resolutions.push(resolution(
        format!("{}:install", it.id),
        ResolutionKind::Download,
        if reinstall {
            "Install the resource again (its tree is replaced, never merged)".into()
        } else {
            "Install the resource (after consenting to its size and effect)".into()
        },
        true,
    ));
    it.resolutions.push(resolution(
        format!("{}:use_existing", it.id),
        ResolutionKind::UseExisting,
        format!("Choose a folder already on this machine for {}", spec.label),
        false,
    ));
    Some(it)
}

/// A node that fetches public data is an input that needs the network: not
/// a blocker (nothing is missing), but the run needs a connection, and a
/// validation, which runs offline, substitutes a fixture for its outputs
/// and reports the node as not exercised.
fn network_item(node: &Node, entry: &CatalogEntry) -> Item {
    let mut it = item(
        node,
        ItemKind::Input,
        "network",
        format!("{} downloads its data when the workflow runs", node.id),
        format!(
            "{} ({}) fetches over the network at run time; the run needs a connection. \
             A validation runs offline: it substitutes a fixture for the node's outputs \
             and reports the node as not exercised.",
            node.id, entry.contract.title
        ),
    );
    it.required = false;
    it.evidence = derived(entry, "network".to_owned(), at_node(node));
    it.resolutions.push(resolution(
        format!("{}:review", it.id),
        ResolutionKind::Review,
        "Run where NCBI or Ensembl is reachable".into(),
        true,
    ));
    it
}

/// A step of the pipeline the variant does not represent: the variant is not
/// the pipeline until the user adds a native node doing its work (and then
/// drops the entry by reverting and promoting again, or accepts the gap by
/// editing it out of the document).
fn unrepresented_step(step: &UnrepresentedInvocation) -> Item {
    let kind = ItemKind::UnrepresentedSourceStep;
    let id = format!("{}:{}", kind_slug(kind), step.invocation);
    Item {
        resolutions: vec![resolution(
            format!("{id}:add"),
            ResolutionKind::Build,
            format!("Add a native node for {}", step.process),
            true,
        )],
        id,
        node_id: None,
        operator_id: None,
        field: Some(step.invocation.clone()),
        title: format!("{} has no native node", step.invocation),
        detail: format!("{}.", step.reason),
        kind,
        priority: priority(kind),
        required: true,
        escalatable: false,
        recipes: Vec::new(),
        evidence: Evidence::default(),
    }
}

/// The evidence of a requirement derived from `field` of a source node's
/// own binding (its contract is the pinned pipeline, not a catalog entry).
fn source_derived(node: &Node, field: String, place: GraphEvidence) -> Evidence {
    Evidence {
        contract: Some(ContractEvidence {
            operator_id: node.operator_id.clone(),
            operator_revision: node.operator_revision.clone(),
            field,
            source: None,
        }),
        graph: Some(place),
        file: None,
        reach: None,
    }
}

/// A source node's requirements, shaped exactly as a native node's: a
/// required parameter without a value, a path parameter whose file is not
/// there, and — unlike a native node — a process Somite cannot give a Pixi
/// environment (see [`process_item`]). Files shipped inside the pipeline and
/// remote inputs Nextflow fetches are listed for what they are, without
/// blocking.
fn assess_source(
    catalog: &Catalog,
    node: &Node,
    binding: &SourceBinding,
    inputs: &dyn InputProbe,
    items: &mut Vec<Item>,
) {
    for (index, spec) in binding.params.iter().enumerate() {
        let value = node.params.get(&spec.name).or(spec.default.as_ref());
        if spec.is_path() {
            let evidence = source_derived(
                node,
                format!("source.params[{index}].format"),
                at_param(node, &spec.name),
            );
            items.extend(source_path_item(
                node, binding, spec, value, inputs, evidence,
            ));
        } else if spec.required && value.is_none() {
            let evidence = source_derived(
                node,
                format!("source.params[{index}].required"),
                at_param(node, &spec.name),
            );
            items.push(unset_param_item(
                node,
                &spec.name,
                &spec.name,
                &binding.repository,
                evidence,
            ));
        }
    }
    for (index, replacement) in node.replacements.iter().enumerate() {
        let mut it = item(
            node,
            ItemKind::Adapter,
            &format!("replacement:{}", replacement.invocation),
            format!(
                "{} is replaced by {} on the canvas only",
                replacement.invocation, replacement.operator_id
            ),
            "A source workflow runs the pinned pipeline as it is; the replacement runs once it is promoted into a native variant.".to_owned(),
        );
        it.evidence = source_derived(
            node,
            format!("replacements[{index}]"),
            at_param(node, &replacement.invocation),
        );
        it.resolutions.push(resolution(
            format!("{}:promote", it.id),
            ResolutionKind::Build,
            "Promote the replacement into a native variant".to_owned(),
            true,
        ));
        it.resolutions.push(resolution(
            format!("{}:restore", it.id),
            ResolutionKind::Review,
            format!("Restore the pipeline's own {}", replacement.invocation),
            false,
        ));
        items.push(it);
    }
    for (index, process) in binding.processes.iter().enumerate() {
        items.extend(process_item(catalog, node, binding, index, process));
    }
}

/// The requirement (or the note) of one path parameter of a source node:
/// a file of the pinned tree, a remote location, or a local path.
fn source_path_item(
    node: &Node,
    binding: &SourceBinding,
    spec: &SourceParam,
    value: Option<&Value>,
    inputs: &dyn InputProbe,
    evidence: Evidence,
) -> Option<Item> {
    let name = spec.name.as_str();
    let text = value.and_then(Value::as_str).filter(|p| !p.is_empty());
    let Some(text) = text else {
        if spec.required && spec.format.as_deref() == Some("directory-path") && !spec.must_exist() {
            return Some(folder_item(node, spec, evidence));
        }
        let path = PathParam {
            name,
            label: name,
            value: None,
            required: spec.required,
            must_exist: spec.must_exist(),
        };
        return path_param_item(node, &path, inputs, evidence);
    };
    let choose_local = |it: &Item| {
        resolution(
            format!("{}:attach", it.id),
            ResolutionKind::Attach,
            format!("Choose a local file for {name} instead"),
            false,
        )
    };
    let mut it = match path_target(text) {
        Err(refusal) => {
            let mut it = item(
                node,
                ItemKind::Input,
                name,
                format!("{name} of {} cannot be used", node.id),
                // The refusal never repeats the value: it may hold a credential.
                format!("{refusal}."),
            );
            it.resolutions.push(resolution(
                format!("{}:attach", it.id),
                ResolutionKind::Attach,
                format!("Choose a local file for {name}"),
                true,
            ));
            it
        }
        Ok(PathTarget::Bundled(path)) => match binding.bundled_file(path) {
            Some(file) => {
                let mut it = item(
                    node,
                    ItemKind::BundledFile,
                    name,
                    format!("{name} uses {path}, shipped with the pipeline"),
                    format!(
                        "The file is part of the pinned tree ({} bytes, {}); the run reads it from there.",
                        file.bytes, file.digest
                    ),
                );
                it.required = false;
                it.resolutions.push(choose_local(&it));
                it.evidence = evidence;
                it.evidence.file = Some(FileEvidence {
                    path: path.to_owned(),
                    found: true,
                    recorded_digest: Some(file.digest.clone()),
                    found_digest: None,
                    recorded_location: Some(format!("{}@{}", binding.repository, binding.commit)),
                });
                return Some(it);
            }
            None => {
                let mut it = item(
                    node,
                    ItemKind::Input,
                    name,
                    format!("{name} names {path}, which the pinned pipeline does not ship"),
                    format!(
                        "No file `{path}` is in {} at commit {}.",
                        binding.repository,
                        &binding.commit[..7]
                    ),
                );
                it.resolutions.push(resolution(
                    format!("{}:attach", it.id),
                    ResolutionKind::Attach,
                    format!("Choose a local file for {name}"),
                    true,
                ));
                it
            }
        },
        Ok(PathTarget::Remote(remote)) => {
            let mut it = item(
                node,
                ItemKind::RemoteInput,
                name,
                format!("{name} is read from {} ({})", remote.host, remote.scheme),
                format!(
                    "Nextflow fetches `{}` when the run needs it. It is not pinned: the run's closure records it as an unpinned remote input.",
                    remote.url
                ),
            );
            it.required = false;
            if remote.pinnable() && spec.format.as_deref() != Some("directory-path") {
                it.resolutions.push(resolution(
                    format!("{}:pin", it.id),
                    ResolutionKind::Download,
                    "Pin it: download it once, record its size and BLAKE3, and stage the copy"
                        .to_owned(),
                    false,
                ));
            }
            it.resolutions.push(choose_local(&it));
            it.evidence = evidence;
            return Some(it);
        }
        Ok(PathTarget::Local(local)) => {
            let path = PathParam {
                name,
                label: name,
                value: Some(local),
                required: spec.required,
                must_exist: spec.must_exist(),
            };
            return path_param_item(node, &path, inputs, evidence);
        }
    };
    it.evidence = evidence;
    Some(it)
}

/// The folder a pipeline writes to (nf-core's `outdir`), or another folder
/// the run creates: a name to give, not a file to attach.
fn folder_item(node: &Node, spec: &SourceParam, evidence: Evidence) -> Item {
    let name = spec.name.as_str();
    let results = name == NFCORE_OUTDIR;
    let mut it = item(
        node,
        ItemKind::Input,
        name,
        if results {
            format!("Choose where {} writes its results", node.id)
        } else {
            format!("Name a folder for {name}")
        },
        if results {
            format!(
                "`{name}` is the folder the pipeline writes its results to; the run creates it."
            )
        } else {
            format!("`{name}` is a folder; the run creates it when it is missing.")
        },
    );
    it.evidence = evidence;
    if results {
        let mut use_results = resolution(
            format!("{}:results", it.id),
            ResolutionKind::Configure,
            format!("Use `{RESULTS_FOLDER}` in the project folder"),
            true,
        );
        use_results.value = Some(Value::String(RESULTS_FOLDER.to_owned()));
        it.resolutions.push(use_results);
    }
    it.resolutions.push(resolution(
        format!("{}:configure", it.id),
        ResolutionKind::Configure,
        format!("Name the folder for {name}"),
        !results,
    ));
    it
}

/// The parameter every nf-core pipeline writes its results under.
const NFCORE_OUTDIR: &str = "outdir";
/// The folder in the project a results parameter is offered.
pub const RESULTS_FOLDER: &str = "results";

/// The item of a process the pipeline gives no Pixi environment, unless
/// the user chose one or the entry workflow never calls it. It is required
/// only when the current parameters provably reach one of its invocations;
/// where they provably do not, or the code does not say, it is listed with
/// its conditions and a run that reaches it fails that one task at once.
fn process_item(
    catalog: &Catalog,
    node: &Node,
    binding: &SourceBinding,
    index: usize,
    process: &SourceProcess,
) -> Option<Item> {
    if process.has_pixi_environment()
        || node
            .process_environments
            .iter()
            .any(|e| e.process == process.name)
    {
        return None;
    }
    let invocations: Vec<&SourceInvocation> = binding.invocations_of(process).collect();
    // A binding pinned before invocations were recorded cannot say: the
    // process is taken as reached, as it always was.
    if invocations.is_empty() && !binding.invocations.is_empty() {
        return None;
    }
    let value_of = |name: &str| match binding.param(name) {
        Some(spec) => Lookup::Known(
            node.params
                .get(name)
                .or(spec.default.as_ref())
                .filter(|v| !v.is_null()),
        ),
        None => Lookup::Unknown,
    };
    let reached = if invocations.is_empty() {
        Truth::True
    } else {
        Truth::any(invocations.iter().map(|i| i.reach.evaluate(&value_of)))
    };
    let mut conditions: Vec<String> = invocations
        .iter()
        .filter(|i| !i.reach.is_always())
        .flat_map(|i| i.reach.describe())
        .collect();
    conditions.sort();
    conditions.dedup();
    let mut read: Vec<&str> = invocations.iter().flat_map(|i| i.reach.params()).collect();
    read.sort_unstable();
    read.dedup();
    let params: Vec<ReachParam> = read
        .iter()
        .map(|name| match value_of(name) {
            Lookup::Known(value) => ReachParam {
                name: (*name).to_owned(),
                value: value.cloned(),
                known: true,
            },
            Lookup::Unknown => ReachParam {
                name: (*name).to_owned(),
                value: None,
                known: false,
            },
        })
        .collect();

    let (title, why) = match (&process.unfrozen, process.container.first()) {
        (Some(unfrozen), _) => (
            format!("{}'s Conda environment cannot be frozen", process.name),
            format!("Pixi cannot freeze its Conda environment: {unfrozen}."),
        ),
        (None, Some(image)) => (
            format!("{} runs only in a container", process.name),
            format!(
                "{}:{} declares a container (`{image}`) and no Conda environment; Somite runs each step in a Pixi environment built from a Conda specification.",
                process.file, process.line
            ),
        ),
        (None, None) => (
            format!("{} has no software environment", process.name),
            format!(
                "{}:{} declares neither a Conda environment nor a container.",
                process.file, process.line
            ),
        ),
    };
    let when = if conditions.is_empty() {
        "The pipeline always runs it.".to_owned()
    } else {
        format!(
            "The pipeline runs it only when {}.",
            conditions.join("; or when ")
        )
    };
    let now = match reached {
        Truth::True => {
            "The current parameters reach it, so it must have an environment before a run."
        }
        Truth::False => "The current parameters do not reach it: it does not block a run.",
        Truth::Unknown => {
            "Whether the current parameters reach it cannot be read from the code; if a run reaches it, that one task stops at once and says why."
        }
    };
    let mut it = item(
        node,
        ItemKind::ProcessEnvironment,
        &process.name,
        title,
        format!("{why} {when} {now}"),
    );
    it.required = reached == Truth::True;
    it.evidence = source_derived(
        node,
        format!("source.processes[{index}].environment"),
        at_node(node),
    );
    it.evidence.reach = Some(ReachEvidence {
        reached,
        invocations: invocations.iter().map(|i| i.id.clone()).collect(),
        conditions,
        params,
    });
    if let Some((invocation, replacement)) = invocations
        .iter()
        .find_map(|i| equivalent(catalog, i).ok().map(|r| (i, r)))
    {
        let mut replace = resolution(
            format!("{}:replace", it.id),
            ResolutionKind::Build,
            format!(
                "Replace {} with the catalog's {} (then promote it into a native variant)",
                invocation.id, replacement.operator_id
            ),
            true,
        );
        replace.operator_id = Some(replacement.operator_id);
        // The invocation it replaces: the one value the edit needs.
        replace.value = Some(Value::String(invocation.id.clone()));
        it.resolutions.push(replace);
    }
    it.resolutions.push(resolution(
        format!("{}:conda", it.id),
        ResolutionKind::Configure,
        "Give it a Conda specification (packages from bioconda or conda-forge)".to_owned(),
        it.resolutions.is_empty(),
    ));
    if let Some(image) = process.container.first() {
        it.resolutions.push(resolution(
            format!("{}:container", it.id),
            ResolutionKind::Setup,
            format!(
                "Run it in its declared container (`{image}`) with Docker, Singularity, Apptainer or Podman"
            ),
            false,
        ));
    }
    Some(it)
}

fn source_controls(node: &Node, binding: &SourceBinding) -> Vec<InputControl> {
    binding
        .params
        .iter()
        .filter(|p| !p.hidden)
        .map(|p| InputControl {
            field: p.name.clone(),
            control: if p.is_path() {
                ControlKind::File
            } else {
                ControlKind::Param
            },
            ty: control_type(p),
            label: p.name.clone(),
            required: p.required,
            value: node.params.get(&p.name).cloned(),
            default: p.default.clone(),
            min: p.minimum,
            max: p.maximum,
            choices: (!p.enum_values.is_empty()).then(|| {
                p.enum_values
                    .iter()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                    .collect()
            }),
        })
        .collect()
}

/// Existing outputs in the document that `port` would accept.
fn compatible_outputs<'a>(
    doc: &'a WorkflowDocument,
    node: &Node,
    port: &PortSpec,
) -> Vec<(&'a str, &'a str)> {
    doc.nodes
        .iter()
        .filter(|n| n.id != node.id)
        .flat_map(|n| n.ports.outputs.iter().map(move |o| (n, o)))
        .filter(|(_, o)| port.accepts(o))
        .map(|(n, o)| (n.id.as_str(), o.name.as_str()))
        .collect()
}

/// Catalog operators with no inputs that provide what `port` accepts:
/// the imports a user can add to satisfy it.
fn providing_sources<'c>(catalog: &'c Catalog, port: &PortSpec) -> Vec<&'c str> {
    catalog
        .entries()
        .filter(|e| {
            matches!(
                e.contract.kind,
                OperatorKind::Source | OperatorKind::Reference
            )
        })
        .filter(|e| e.contract.ports.outputs.iter().any(|o| port.accepts(o)))
        .map(|e| e.contract.id.as_str())
        .collect()
}

fn connection_item(
    doc: &WorkflowDocument,
    catalog: &Catalog,
    node: &Node,
    port: &PortSpec,
) -> Item {
    let mut it = item(
        node,
        ItemKind::Input,
        &port.name,
        format!("Connect {} input `{}` of {}", port.ty, port.name, node.id),
        format!("{} needs a {} input here.", node.operator_id, port.ty),
    );
    push_connect_resolutions(&mut it, doc, catalog, node, port);
    it
}

fn push_connect_resolutions(
    it: &mut Item,
    doc: &WorkflowDocument,
    catalog: &Catalog,
    node: &Node,
    port: &PortSpec,
) {
    let existing = compatible_outputs(doc, node, port);
    let first_existing = !existing.is_empty();
    for (i, (from_node, from_port)) in existing.into_iter().enumerate() {
        let mut r = resolution(
            format!("{}:connect:{from_node}.{from_port}", it.id),
            ResolutionKind::Connect,
            format!("Connect {from_node}.{from_port}"),
            i == 0,
        );
        r.from_node = Some(from_node.to_owned());
        r.from_port = Some(from_port.to_owned());
        it.resolutions.push(r);
    }
    for (i, operator_id) in providing_sources(catalog, port).into_iter().enumerate() {
        let mut r = resolution(
            format!("{}:add:{operator_id}", it.id),
            ResolutionKind::Connect,
            format!("Add {operator_id} and connect it"),
            !first_existing && i == 0,
        );
        r.operator_id = Some(operator_id.to_owned());
        it.resolutions.push(r);
    }
}

fn resource_item(doc: &WorkflowDocument, catalog: &Catalog, node: &Node, port: &PortSpec) -> Item {
    let need = port.resource.as_ref().expect("called for resource ports");
    let mut it = item(
        node,
        ItemKind::ManagedResource,
        &port.name,
        format!("Provide {} for {}", need.title, node.id),
        need.detail.clone(),
    );
    push_connect_resolutions(&mut it, doc, catalog, node, port);
    for r in &need.resolutions {
        let kind = match r.kind {
            ResourceResolutionKind::UseExisting => ResolutionKind::UseExisting,
            ResourceResolutionKind::Download => ResolutionKind::Download,
            ResourceResolutionKind::Build => ResolutionKind::Build,
        };
        let mut res = resolution(
            format!("{}:{}", it.id, r.id),
            kind,
            r.label.clone(),
            r.recommended,
        );
        res.download_bytes = r.download_bytes;
        res.stored_bytes = r.stored_bytes;
        res.scientific_effect = r.scientific_effect.clone();
        res.source_url = r.source_url.clone();
        it.resolutions.push(res);
        if let (Some(version), ResolutionKind::Download | ResolutionKind::Build) =
            (&r.version, kind)
        {
            it.recipes.push(Recipe {
                id: format!("{}@{version}", r.id),
                version: version.clone(),
                title: r.label.clone(),
                kind,
                source_url: r.source_url.clone(),
            });
        }
    }
    it.escalatable = need
        .resolutions
        .iter()
        .any(|r| r.scientific_effect.is_some());
    it
}

fn controls(node: &Node, contract: &OperatorContract) -> Vec<InputControl> {
    let imported: Vec<&str> = contract
        .ports
        .outputs
        .iter()
        .filter_map(|p| p.import_param.as_deref())
        .collect();
    contract
        .params
        .iter()
        .map(|p| InputControl {
            field: p.name.clone(),
            control: if imported.contains(&p.name.as_str()) {
                ControlKind::File
            } else {
                ControlKind::Param
            },
            ty: p.ty,
            label: p.label.clone(),
            required: p.required,
            value: node.params.get(&p.name).cloned(),
            default: p.default.clone(),
            min: p.min,
            max: p.max,
            choices: p.choices.clone(),
        })
        .collect()
}
