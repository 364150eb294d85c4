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
//!
//! States share what they have in common. Every edit clones the current
//! document, so its nodes and edges are held by `Arc`: the clone copies
//! pointers, an operation copies only the node it changes
//! (`Arc::make_mut`), dropping a superseded state frees only what no later
//! state holds, and a node's pointer says whether an edit touched it. That
//! is what lets a transaction validate only what it changed
//! ([`crate::change`]) and reuse the canonical bytes of the rest
//! ([`crate::canonical_state`]). The whole node is shared rather than only
//! its heavy parts (the pinned ports) behind `Arc`: the clone then costs
//! nothing per node, and identity means the entire node, which those two
//! need. The wire format is unchanged (serde's `rc` feature writes and
//! reads an `Arc<T>` as a `T`).

use crate::canonical::{Revision, digest_parts, is_revision, write_canonical_into};
use crate::canonical_state::{PortsSeen, document_json, edge_tuples, graph_digest, write_semantic};
use crate::error::{ErrorCode, Result, SomiteError};
use crate::limits::{MAX_ID_CHARS, MAX_NOTE_CHARS, MAX_TITLE_CHARS};
use crate::operator::{PortSpec, Ports};
use crate::source::{
    PinnedInput, ProcessEnvironment, Replacement, SOURCE_OPERATOR_ID, SourceBinding,
};
use crate::variant::VariantOrigin;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// The document format this build reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct WorkflowDocument {
    pub schema_version: u32,
    pub title: String,
    // Nodes and edges are shared between states (see the module docs; a
    // plain comment, as doc comments become the wire schema's text): an
    // edit clones the vectors, not what they hold, and copies only the
    // node it changes (`Arc::make_mut`).
    #[serde(default)]
    pub nodes: Vec<Arc<Node>>,
    #[serde(default)]
    pub edges: Vec<Arc<Edge>>,
    #[serde(default)]
    pub notes: Vec<Note>,
    #[serde(default)]
    pub stages: Vec<Stage>,
    /// Set when this native graph was promoted from a source workflow: the
    /// source it came from (kept whole, so it can be restored) and what
    /// became of each of its invocations (see [`crate::variant`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant_origin: Option<Arc<VariantOrigin>>,
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
    /// On a source node: the environment the user chose for each process
    /// the pipeline gives no Pixi environment, by process name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub process_environments: Vec<ProcessEnvironment>,
    /// On a source node: remote inputs pinned to a downloaded local copy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned_inputs: Vec<PinnedInput>,
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
        self.nodes.iter().find(|n| n.id == id).map(|n| &**n)
    }

    /// The node `id`, copied first if an earlier state shares it.
    pub(crate) fn node_mut(&mut self, id: &str) -> Option<&mut Node> {
        self.nodes
            .iter_mut()
            .find(|n| n.id == id)
            .map(Arc::make_mut)
    }

    /// The source node, when this is a source workflow.
    pub fn source_node(&self) -> Option<&Node> {
        self.nodes.iter().find(|n| n.source.is_some()).map(|n| &**n)
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
            .map(|e| &**e)
    }

    /// The semantic revision: only what changes execution.
    ///
    /// It is the digest of the canonical JSON of
    /// `{"edges": [[from_node, from_port, to_node, to_port], …] (sorted),
    /// "nodes": [{"id", "operator_id", "operator_revision", "params",
    /// "ports", and only when not empty "pinned_inputs",
    /// "process_environments" and "replacements"}, …] (by id),
    /// "schema_version"}`, laid out by [`crate::canonical_state`] (keys
    /// written in byte order) so that the port contract, the same for every
    /// node pinning one operator revision, is canonicalized once per
    /// revision rather than once per node, and so that a state can reuse the
    /// previous state's bytes for the nodes an edit left alone.
    pub fn graph_revision(&self) -> Revision {
        let mut nodes: Vec<&Node> = self.nodes.iter().map(|n| &**n).collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let mut out = Vec::with_capacity(256 * nodes.len() + 64);
        let mut ports = PortsSeen::default();
        let mut ranges = Vec::with_capacity(nodes.len());
        for n in nodes {
            let start = out.len();
            write_semantic(n, &mut out, &mut ports);
            ranges.push(start..out.len());
        }
        graph_digest(
            &edge_tuples(&self.edges),
            ranges.iter().map(|r| &out[r.clone()]),
            self.schema_version,
        )
    }

    /// The full revision compare-and-swap uses: the whole document, layout
    /// and notes included, plus the location it is bound to.
    pub fn state_revision(&self, input_location: &str) -> Revision {
        Self::state_revision_of_canonical(&self.canonical_json(), input_location)
    }

    /// The document's canonical JSON (see [`crate::canonical`], laid out by
    /// [`crate::canonical_state`]): what its
    /// state revision is computed over, and a JSON text that reads back as
    /// the same document, so a caller that keeps it can store or serve it
    /// without serializing the document again.
    pub fn canonical_json(&self) -> Vec<u8> {
        document_json(self)
    }

    /// [`Self::state_revision`] from the document's [`Self::canonical_json`]:
    /// the revision of the canonical `{"document": …, "input_location": …}`
    /// (keys in byte order), hashed around the document's bytes instead of
    /// copying them.
    pub fn state_revision_of_canonical(canonical: &[u8], input_location: &str) -> Revision {
        let mut location = Vec::with_capacity(input_location.len() + 2);
        write_canonical_into(input_location, &mut location);
        digest_parts(&[
            b"{\"document\":",
            canonical,
            b",\"input_location\":",
            &location,
            b"}",
        ])
    }

    /// Node ids in deterministic topological order (Kahn's algorithm, ready
    /// nodes taken in id order), or the ids caught in a cycle (and those
    /// downstream of it), in id order.
    pub fn topological_order(&self) -> std::result::Result<Vec<String>, Vec<String>> {
        // Nodes by position: the counts and successor lists are plain
        // vectors, and only the set of ready nodes is ordered by id.
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(self.nodes.len());
        let mut ids: Vec<&str> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            index.entry(n.id.as_str()).or_insert_with(|| {
                ids.push(n.id.as_str());
                ids.len() - 1
            });
        }
        let mut indegree = vec![0usize; ids.len()];
        let mut successors: Vec<Vec<usize>> = vec![Vec::new(); ids.len()];
        for e in &self.edges {
            let to = index.get(e.to_node.as_str()).copied();
            if let Some(to) = to {
                indegree[to] += 1;
            }
            if let Some(&from) = index.get(e.from_node.as_str()) {
                successors[from].push(to.expect("edge targets exist"));
            }
        }
        let mut ready: BTreeSet<(&str, usize)> = indegree
            .iter()
            .enumerate()
            .filter(|(_, d)| **d == 0)
            .map(|(i, _)| (ids[i], i))
            .collect();
        let mut order = Vec::with_capacity(self.nodes.len());
        let mut done = vec![false; ids.len()];
        while let Some((id, i)) = ready.pop_first() {
            order.push(id.to_owned());
            done[i] = true;
            for &next in &successors[i] {
                indegree[next] -= 1;
                if indegree[next] == 0 {
                    ready.insert((ids[next], next));
                }
            }
        }
        if order.len() == self.nodes.len() {
            Ok(order)
        } else {
            let mut caught: Vec<String> = (0..ids.len())
                .filter(|i| !done[*i])
                .map(|i| ids[i].to_owned())
                .collect();
            caught.sort();
            Err(caught)
        }
    }

    /// Whether an edge from `from` to `to` would close a cycle in this
    /// acyclic document: whether `from` is reachable from `to`. Linear in
    /// the edges, where a full topological order also sorts every node.
    pub(crate) fn reaches(&self, to: &str, from: &str) -> bool {
        if to == from {
            return true;
        }
        let mut successors: HashMap<&str, Vec<&str>> = HashMap::new();
        for e in &self.edges {
            successors
                .entry(e.from_node.as_str())
                .or_default()
                .push(e.to_node.as_str());
        }
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        let mut stack = vec![to];
        while let Some(id) = stack.pop() {
            for &next in successors.get(id).into_iter().flatten() {
                if next == from {
                    return true;
                }
                if seen.insert(next) {
                    stack.push(next);
                }
            }
        }
        false
    }

    /// Checks every structural invariant of a stored document.
    pub fn validate(&self) -> Result<()> {
        let invalid = |message: String| Err(invalid_document(message));
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
        let mut ids = std::collections::HashSet::with_capacity(
            self.nodes.len() + self.edges.len() + self.notes.len() + self.stages.len(),
        );
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
            check_node(n)?;
        }
        for n in &self.notes {
            check_note(n)?;
        }
        let nodes: HashMap<&str, &Node> =
            self.nodes.iter().map(|n| (n.id.as_str(), &**n)).collect();
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
    pub(crate) fn validate_source(&self) -> Result<()> {
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

fn invalid_document(message: String) -> SomiteError {
    SomiteError::new(
        ErrorCode::InvalidDocument,
        message,
        "repair the document or restore the last autosave",
    )
}

/// The invariants of one node on its own.
pub(crate) fn check_node(n: &Node) -> Result<()> {
    if !is_revision(&n.operator_revision) {
        return Err(invalid_document(format!(
            "node `{}` has no valid operator revision",
            n.id
        )));
    }
    if !(n.x.is_finite() && n.y.is_finite()) {
        return Err(invalid_document(format!(
            "node `{}` has a non-finite position",
            n.id
        )));
    }
    for (name, value) in &n.params {
        let Some(text) = value.as_str() else {
            continue;
        };
        // A bash variable cannot hold NUL, so no task could receive it.
        if text.contains('\0') {
            return Err(invalid_document(format!(
                "`{name}` of node `{}` contains NUL",
                n.id
            )));
        }
        // Nextflow stages an input with an `ln -s` line that does not
        // escape a newline; the other characters its staging leaves
        // live are readiness items (see `check_import_path`), so a
        // document holding one still opens and can be repaired.
        if n.ports.imports(name)
            && let Some(c) = text.chars().find(|c| c.is_control())
        {
            return Err(invalid_document(format!(
                "the path `{name}` of node `{}` holds the control character U+{:04X}",
                n.id, c as u32
            )));
        }
    }
    Ok(())
}

/// The invariants of one note.
pub(crate) fn check_note(n: &Note) -> Result<()> {
    if n.text.chars().count() > MAX_NOTE_CHARS || !(n.x.is_finite() && n.y.is_finite()) {
        return Err(invalid_document(format!(
            "note `{}` is too long or misplaced",
            n.id
        )));
    }
    Ok(())
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
pub(crate) fn check_edge_ends<'a>(
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::canonical::revision_of;
    use crate::catalog::Catalog;
    use crate::transaction::{Operation, apply_operations};
    use serde_json::json;

    /// The semantic revision as its definition states it, built as a value.
    pub(crate) fn defined_graph_revision(doc: &WorkflowDocument) -> Revision {
        let mut nodes: Vec<&Node> = doc.nodes.iter().map(|n| &**n).collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let nodes: Vec<Value> = nodes
            .into_iter()
            .map(|n| {
                let mut node = json!({"id": n.id, "operator_id": n.operator_id,
                       "operator_revision": n.operator_revision, "ports": n.ports,
                       "params": n.params});
                if !n.replacements.is_empty() {
                    node["replacements"] = json!(n.replacements);
                }
                if !n.process_environments.is_empty() {
                    node["process_environments"] = json!(n.process_environments);
                }
                if !n.pinned_inputs.is_empty() {
                    node["pinned_inputs"] = json!(n.pinned_inputs);
                }
                node
            })
            .collect();
        let mut edges: Vec<_> = doc
            .edges
            .iter()
            .map(|e| (&e.from_node, &e.from_port, &e.to_node, &e.to_port))
            .collect();
        edges.sort();
        revision_of(&json!({"schema_version": doc.schema_version, "nodes": nodes, "edges": edges}))
    }

    #[test]
    fn the_semantic_revision_is_its_definition_with_ports_shared_or_not() {
        let catalog = Catalog::builtin().unwrap();
        let add = |id: &str, operator: &str, params: Value| Operation::AddOperator {
            node_id: id.into(),
            operator_id: operator.into(),
            params: serde_json::from_value(params).unwrap(),
            x: 0.0,
            y: 0.0,
        };
        let operations = vec![
            add("b-reads", "files.import", json!({"path": "r.fastq"})),
            add("a-qc", "qc.fastqc", json!({"threads": 2})),
            add("c-qc", "qc.fastqc", json!({})),
            Operation::Connect {
                edge_id: "e1".into(),
                from_node: "b-reads".into(),
                from_port: "file".into(),
                to_node: "c-qc".into(),
                to_port: "reads".into(),
            },
        ];
        let mut doc =
            apply_operations(&WorkflowDocument::empty("t"), &catalog, &operations).unwrap();
        assert_eq!(doc.graph_revision(), defined_graph_revision(&doc));
        // A node whose pinned ports differ from another's of the same
        // revision is not given the other's.
        Arc::make_mut(&mut doc.nodes[2]).ports.inputs.clear();
        assert_eq!(doc.graph_revision(), defined_graph_revision(&doc));
    }

    #[test]
    fn the_state_revision_is_its_definition_and_its_canonical_json_reads_back() {
        let catalog = Catalog::builtin().unwrap();
        let operations = vec![Operation::AddOperator {
            node_id: "reads".into(),
            operator_id: "files.import".into(),
            params: serde_json::from_value(json!({"path": "r \"1\".fastq"})).unwrap(),
            x: 1.5,
            y: -2.0,
        }];
        let doc =
            apply_operations(&WorkflowDocument::empty("tïtle"), &catalog, &operations).unwrap();
        for location in [".somite/web.somite.json", "/p/\"quoted\"/ü.json"] {
            assert_eq!(
                doc.state_revision(location),
                revision_of(&json!({"document": doc, "input_location": location}))
            );
        }
        let canonical = doc.canonical_json();
        assert_eq!(WorkflowDocument::from_json(&canonical).unwrap(), doc);
    }
}
