//! The workflow document and the invariants no stored graph may break.
//!
//! A document is what the canvas shows and what the compiler freezes: nodes
//! that each pin the exact operator revision and port contract they were made
//! from, typed edges, and presentation (layout, notes, stage boxes, colours).
//! [`WorkflowDocument::validate`] is the single gate every stored document
//! passes — after a transaction, on open, on import — so an incompatible
//! connection, a duplicate id, an id that is not one safe path component, a
//! dangling port, a cycle, a NUL in a parameter or a control character in an
//! import path cannot exist on disk.

use crate::canonical::{Revision, is_revision, revision_of};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::limits::{MAX_ID_CHARS, MAX_NOTE_CHARS, MAX_TITLE_CHARS};
use crate::operator::{PortSpec, Ports};
use crate::source::{Replacement, SOURCE_OPERATOR_ID, SourceBinding};
use crate::variant::VariantOrigin;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The document format this build reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WorkflowDocument {
    pub schema_version: u32,
    pub title: String,
    #[serde(default)]
    pub nodes: Vec<Node>,
    #[serde(default)]
    pub edges: Vec<Edge>,
    #[serde(default)]
    pub notes: Vec<Note>,
    #[serde(default)]
    pub stages: Vec<Stage>,
    /// Set when this native graph was promoted from a source workflow: the
    /// source it came from (kept whole, so it can be restored) and what
    /// became of each of its invocations (see [`crate::variant`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_origin: Option<Box<VariantOrigin>>,
}

/// One operator instance on the canvas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Node {
    pub id: String,
    pub operator_id: String,
    /// The exact contract revision the node was created from.
    pub operator_revision: Revision,
    /// The port contract pinned at creation, so a later catalog cannot retype
    /// an existing connection.
    pub ports: Ports,
    /// Parameters the user set; the rest take the contract's defaults.
    #[serde(default)]
    pub params: BTreeMap<String, Value>,
    pub x: f64,
    pub y: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// The pin and contract of a `workflow.source` node; absent on native
    /// nodes (see [`crate::source`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Box<SourceBinding>>,
    /// On a source node: catalog operators standing in for invocations of
    /// the pipeline, in invocation order (see [`crate::variant`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replacements: Vec<Replacement>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Edge {
    pub id: String,
    pub from_node: String,
    pub from_port: String,
    pub to_node: String,
    pub to_port: String,
}

/// A sticky note: presentation only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Note {
    pub id: String,
    pub text: String,
    pub x: f64,
    pub y: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
}

/// A coloured box grouping nodes into a stage: presentation only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Stage {
    pub id: String,
    pub title: String,
    pub color: String,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

impl Node {
    pub fn input(&self, name: &str) -> Option<&PortSpec> {
        self.ports.inputs.iter().find(|p| p.name == name)
    }

    pub fn output(&self, name: &str) -> Option<&PortSpec> {
        self.ports.outputs.iter().find(|p| p.name == name)
    }

    /// The binding of a source node; none for a native node.
    pub fn source(&self) -> Option<&SourceBinding> {
        self.source.as_deref()
    }
}

/// Whether `id` may name a node, edge, note or stage.
///
/// A node id names the folder its outputs are published to
/// (`<outdir>/<id>`) and ends up in paths of the run's evidence, so it must
/// be one safe path component: `.` and `..` are refused, or a node `..`
/// would publish beside the results instead of inside them.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_CHARS
        && id != "."
        && id != ".."
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

pub(crate) fn invalid_id(id: &str) -> SomiteError {
    SomiteError::new(
        ErrorCode::InvalidTransaction,
        format!("`{id}` is not a valid id"),
        format!(
            "use 1–{MAX_ID_CHARS} characters of letters, digits, `_`, `-` or `.`, other than `.` and `..`"
        ),
    )
}

impl WorkflowDocument {
    /// An empty canvas.
    pub fn empty(title: impl Into<String>) -> WorkflowDocument {
        WorkflowDocument {
            schema_version: SCHEMA_VERSION,
            title: title.into(),
            nodes: Vec::new(),
            edges: Vec::new(),
            notes: Vec::new(),
            stages: Vec::new(),
            variant_origin: None,
        }
    }

    /// Parses and validates a portable `.somite.json` document.
    pub fn from_json(bytes: &[u8]) -> Result<WorkflowDocument> {
        let doc: WorkflowDocument = serde_json::from_slice(bytes).map_err(|e| {
            SomiteError::new(
                ErrorCode::InvalidDocument,
                format!("the workflow document does not parse: {e}"),
                "open a .somite.json file written by Somite, or restore it from autosave",
            )
        })?;
        doc.validate()?;
        Ok(doc)
    }

    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    pub(crate) fn node_mut(&mut self, id: &str) -> Option<&mut Node> {
        self.nodes.iter_mut().find(|n| n.id == id)
    }

    /// The source node, when this is a source workflow.
    pub fn source_node(&self) -> Option<&Node> {
        self.nodes.iter().find(|n| n.source.is_some())
    }

    /// Whether any node, edge, note or stage already uses `id`.
    pub fn id_in_use(&self, id: &str) -> bool {
        self.nodes.iter().any(|n| n.id == id)
            || self.edges.iter().any(|e| e.id == id)
            || self.notes.iter().any(|n| n.id == id)
            || self.stages.iter().any(|s| s.id == id)
    }

    /// The edge ending at `node.port`, if any.
    pub fn edge_into(&self, node: &str, port: &str) -> Option<&Edge> {
        self.edges
            .iter()
            .find(|e| e.to_node == node && e.to_port == port)
    }

    /// The semantic revision: only what changes execution.
    pub fn graph_revision(&self) -> Revision {
        let mut nodes: Vec<&Node> = self.nodes.iter().collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let nodes: Vec<Value> = nodes
            .into_iter()
            .map(|n| {
                let mut node = json!({"id": n.id, "operator_id": n.operator_id,
                       "operator_revision": n.operator_revision, "ports": n.ports,
                       "params": n.params});
                // Replacements change what a source node stands for; a node
                // without any keeps the revision it always had.
                if !n.replacements.is_empty() {
                    node["replacements"] = json!(n.replacements);
                }
                node
            })
            .collect();
        let mut edges: Vec<(&str, &str, &str, &str)> = self
            .edges
            .iter()
            .map(|e| {
                (
                    e.from_node.as_str(),
                    e.from_port.as_str(),
                    e.to_node.as_str(),
                    e.to_port.as_str(),
                )
            })
            .collect();
        edges.sort();
        revision_of(&json!({
            "schema_version": self.schema_version,
            "nodes": nodes,
            "edges": edges,
        }))
    }

    /// The full revision compare-and-swap uses: the whole document, layout
    /// and notes included, plus the location it is bound to.
    pub fn state_revision(&self, input_location: &str) -> Revision {
        revision_of(&json!({"document": self, "input_location": input_location}))
    }

    /// Node ids in deterministic topological order (Kahn's algorithm, ready
    /// nodes taken in id order), or the ids caught in a cycle.
    pub fn topological_order(&self) -> std::result::Result<Vec<String>, Vec<String>> {
        let mut indegree: BTreeMap<&str, usize> =
            self.nodes.iter().map(|n| (n.id.as_str(), 0)).collect();
        let mut successors: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for e in &self.edges {
            if let Some(d) = indegree.get_mut(e.to_node.as_str()) {
                *d += 1;
            }
            successors
                .entry(e.from_node.as_str())
                .or_default()
                .push(e.to_node.as_str());
        }
        let mut ready: BTreeSet<&str> = indegree
            .iter()
            .filter(|(_, d)| **d == 0)
            .map(|(id, _)| *id)
            .collect();
        let mut order = Vec::with_capacity(self.nodes.len());
        while let Some(id) = ready.pop_first() {
            order.push(id.to_owned());
            for next in successors.get(id).into_iter().flatten() {
                let d = indegree.get_mut(next).expect("edge targets exist");
                *d -= 1;
                if *d == 0 {
                    ready.insert(next);
                }
            }
        }
        if order.len() == self.nodes.len() {
            Ok(order)
        } else {
            let done: BTreeSet<&str> = order.iter().map(String::as_str).collect();
            Err(indegree
                .keys()
                .filter(|id| !done.contains(*id))
                .map(|id| (*id).to_owned())
                .collect())
        }
    }

    /// Checks every structural invariant of a stored document.
    pub fn validate(&self) -> Result<()> {
        let invalid = |message: String| {
            Err(SomiteError::new(
                ErrorCode::InvalidDocument,
                message,
                "repair the document or restore the last autosave",
            ))
        };
        if self.schema_version != SCHEMA_VERSION {
            return invalid(format!(
                "schema version {} is not supported (this Somite reads {SCHEMA_VERSION})",
                self.schema_version
            ));
        }
        if self.title.chars().count() > MAX_TITLE_CHARS {
            return invalid(format!(
                "the title is longer than {MAX_TITLE_CHARS} characters"
            ));
        }
        let mut ids = BTreeSet::new();
        let all_ids = self
            .nodes
            .iter()
            .map(|n| n.id.as_str())
            .chain(self.edges.iter().map(|e| e.id.as_str()))
            .chain(self.notes.iter().map(|n| n.id.as_str()))
            .chain(self.stages.iter().map(|s| s.id.as_str()));
        for id in all_ids {
            if !is_valid_id(id) {
                return Err(invalid_id(id));
            }
            if !ids.insert(id) {
                return Err(SomiteError::new(
                    ErrorCode::DuplicateId,
                    format!("the id `{id}` is used twice"),
                    "nodes, edges, notes and stages share one id namespace; rename one",
                ));
            }
        }
        self.validate_source()?;
        crate::variant::validate(self)?;
        for n in &self.nodes {
            if !is_revision(&n.operator_revision) {
                return invalid(format!("node `{}` has no valid operator revision", n.id));
            }
            if !(n.x.is_finite() && n.y.is_finite()) {
                return invalid(format!("node `{}` has a non-finite position", n.id));
            }
            for (name, value) in &n.params {
                let Some(text) = value.as_str() else {
                    continue;
                };
                // A bash variable cannot hold NUL, so no task could receive it.
                if text.contains('\0') {
                    return invalid(format!("`{name}` of node `{}` contains NUL", n.id));
                }
                // Nextflow stages an input with an `ln -s` line that does not
                // escape a newline; the other characters its staging leaves
                // live are readiness items (see `check_import_path`), so a
                // document holding one still opens and can be repaired.
                if n.ports.imports(name)
                    && let Some(c) = text.chars().find(|c| c.is_control())
                {
                    return invalid(format!(
                        "the path `{name}` of node `{}` holds the control character U+{:04X}",
                        n.id, c as u32
                    ));
                }
            }
        }
        for n in &self.notes {
            if n.text.chars().count() > MAX_NOTE_CHARS || !(n.x.is_finite() && n.y.is_finite()) {
                return invalid(format!("note `{}` is too long or misplaced", n.id));
            }
        }
        let nodes: HashMap<&str, &Node> = self.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
        let mut taken: HashMap<(&str, &str), usize> = HashMap::new();
        for e in &self.edges {
            *taken
                .entry((e.to_node.as_str(), e.to_port.as_str()))
                .or_default() += 1;
        }
        for edge in &self.edges {
            let inputs = taken[&(edge.to_node.as_str(), edge.to_port.as_str())];
            check_edge_ends(edge, |id| nodes.get(id).copied(), inputs)?;
        }
        if let Err(cycle) = self.topological_order() {
            return Err(cycle_error(&cycle));
        }
        Ok(())
    }
}

impl WorkflowDocument {
    /// A source node stands alone (no native nodes, no edges), carries the
    /// source operator id, no ports, and pins the digest of its binding, so
    /// an altered binding never passes for the resolved one.
    fn validate_source(&self) -> Result<()> {
        let invalid = |message: String| {
            Err(SomiteError::new(
                ErrorCode::InvalidDocument,
                message,
                "resolve the pipeline again onto an empty canvas",
            ))
        };
        let sources = self.nodes.iter().filter(|n| n.source.is_some()).count();
        if sources > 0 && (self.nodes.len() > 1 || !self.edges.is_empty()) {
            return invalid("a source workflow holds its one source node and nothing else".into());
        }
        for n in &self.nodes {
            match n.source() {
                None if n.operator_id == SOURCE_OPERATOR_ID => {
                    return invalid(format!("source node `{}` has no binding", n.id));
                }
                None => {}
                Some(binding) => {
                    if n.operator_id != SOURCE_OPERATOR_ID
                        || !n.ports.inputs.is_empty()
                        || !n.ports.outputs.is_empty()
                    {
                        return invalid(format!(
                            "source node `{}` must be a `{SOURCE_OPERATOR_ID}` without ports",
                            n.id
                        ));
                    }
                    binding.validate()?;
                    if n.operator_revision != binding.revision() {
                        return invalid(format!(
                            "source node `{}` pins {}, not the digest of its binding",
                            n.id, n.operator_revision
                        ));
                    }
                    if let Some(name) = n.params.keys().find(|k| binding.param(k).is_none()) {
                        return invalid(format!(
                            "source node `{}` sets `{name}`, which the pipeline does not declare",
                            n.id
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

pub(crate) fn cycle_error(cycle: &[String]) -> SomiteError {
    SomiteError::new(
        ErrorCode::Cycle,
        format!(
            "the connection would create a cycle through {}",
            cycle.join(", ")
        ),
        "workflows are acyclic; connect to a node downstream instead",
    )
    .with_detail("nodes", cycle)
}

/// Checks an edge about to join the document: both ends exist, the ports
/// exist, the types fit and it is no self-loop. Whether its input is still
/// free is left to the caller, which can name the edge holding it.
pub(crate) fn check_edge_alone(doc: &WorkflowDocument, edge: &Edge) -> Result<()> {
    check_edge_ends(edge, |id| doc.node(id), 1)
}

/// The edge checks, given a node lookup and how many edges end at the same
/// input (the edge itself included), so validating a whole document stays
/// linear in its size.
fn check_edge_ends<'a>(
    edge: &Edge,
    lookup: impl Fn(&str) -> Option<&'a Node>,
    inputs: usize,
) -> Result<()> {
    let node = |id: &str| {
        lookup(id).ok_or_else(|| {
            SomiteError::new(
                ErrorCode::UnknownNode,
                format!("edge `{}` names unknown node `{id}`", edge.id),
                "read the workflow and use an existing node id",
            )
        })
    };
    let from = node(&edge.from_node)?;
    let to = node(&edge.to_node)?;
    let unknown_port = |node: &Node, port: &str, side: &str| {
        let names: Vec<&str> = if side == "output" {
            node.ports.outputs.iter().map(|p| p.name.as_str()).collect()
        } else {
            node.ports.inputs.iter().map(|p| p.name.as_str()).collect()
        };
        SomiteError::new(
            ErrorCode::UnknownPort,
            format!("node `{}` has no {side} port `{port}`", node.id),
            format!("its {side} ports are: {}", names.join(", ")),
        )
    };
    let source = from
        .output(&edge.from_port)
        .ok_or_else(|| unknown_port(from, &edge.from_port, "output"))?;
    let target = to
        .input(&edge.to_port)
        .ok_or_else(|| unknown_port(to, &edge.to_port, "input"))?;
    if let Some(reason) = target.refusal(source) {
        return Err(SomiteError::new(
            ErrorCode::IncompatiblePorts,
            format!(
                "cannot connect {}.{} ({}) to {}.{}: {reason}",
                edge.from_node, edge.from_port, source.ty, edge.to_node, edge.to_port
            ),
            "search the catalog for an operator that converts between these types",
        ));
    }
    if edge.from_node == edge.to_node {
        return Err(cycle_error(std::slice::from_ref(&edge.from_node)));
    }
    if inputs > 1 {
        return Err(SomiteError::new(
            ErrorCode::PortAlreadyConnected,
            format!(
                "input {}.{} already has a connection",
                edge.to_node, edge.to_port
            ),
            "disconnect the existing edge first; an input takes one edge",
        ));
    }
    Ok(())
}
