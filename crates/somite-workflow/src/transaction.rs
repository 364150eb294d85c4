//! `GraphTransaction`: the one way a workflow changes.
//!
//! Human and agent edits alike are a list of closed-shape operations applied
//! to a clone of the current document. Each operation is checked as it is
//! applied, so a failure names the exact operation index; the result is
//! validated again at the end (for what the operations changed, see
//! [`crate::change`]), and the caller publishes it only if every step
//! passed. Compare-and-swap and idempotency need the stored state and live in
//! the project store; this module is the pure part.

use crate::canonical::{Revision, revision_of};
use crate::catalog::Catalog;
use crate::error::{ErrorCode, Result, SomiteError};
use crate::graph::{
    Edge, Node, Note, WorkflowDocument, check_edge_alone, cycle_error, invalid_id, is_valid_id,
};
use crate::limits::{
    IDEMPOTENCY_KEY_CHARS, MAX_NOTE_CHARS, MAX_STRING_PARAM_BYTES, MAX_SUMMARY_CHARS,
    MAX_TITLE_CHARS, MAX_TRANSACTION_OPERATIONS,
};
use crate::operator::{OperatorContract, ParamFault, check_import_path, check_param_value};
use crate::source::{
    EnvironmentChoice, PinnedInput, PortPair, SOURCE_OPERATOR_ID, SourceBinding,
    check_process_environment, check_source_param,
};
use crate::variant;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// One intended edit, exactly as the specification shapes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphTransaction {
    pub base_state_revision: Revision,
    pub idempotency_key: String,
    pub summary: String,
    pub operations: Vec<Operation>,
}

/// The closed set of graph operations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Operation {
    AddOperator {
        node_id: String,
        operator_id: String,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        params: BTreeMap<String, Value>,
        x: f64,
        y: f64,
    },
    RemoveOperator {
        node_id: String,
    },
    SetParam {
        node_id: String,
        param: String,
        value: Value,
    },
    UnsetParam {
        node_id: String,
        param: String,
    },
    Connect {
        edge_id: String,
        from_node: String,
        from_port: String,
        to_node: String,
        to_port: String,
    },
    Disconnect {
        edge_id: String,
    },
    Move {
        node_id: String,
        x: f64,
        y: f64,
    },
    AddNote {
        note_id: String,
        text: String,
        x: f64,
        y: f64,
    },
    EditNote {
        note_id: String,
        text: String,
    },
    RemoveNote {
        note_id: String,
    },
    /// Renames the document (presentation: changes only the state revision).
    SetTitle {
        title: String,
    },
    /// Stands a catalog operator in for one invocation of a source node
    /// (see [`crate::variant`]); omitted port maps are matched by type.
    ReplaceInvocation {
        node_id: String,
        invocation: String,
        operator_id: String,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        inputs: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        outputs: BTreeMap<String, String>,
    },
    /// Drops the replacement of one invocation: the pipeline's own process
    /// stands again.
    RestoreInvocation {
        node_id: String,
        invocation: String,
    },
    /// Gives a process of a source node that has no Pixi environment of its
    /// own the one the user chose: a Conda specification, or its declared
    /// container (see [`crate::source::EnvironmentChoice`]).
    SetProcessEnvironment {
        node_id: String,
        process: String,
        choice: EnvironmentChoice,
    },
    /// Drops the user's choice for a process: it has no environment again.
    UnsetProcessEnvironment {
        node_id: String,
        process: String,
    },
    /// Turns a source workflow into a native variant promoting the selected
    /// replacements (see [`crate::variant::promote`]).
    PromoteSource {
        node_id: String,
        invocations: Vec<String>,
    },
    /// Restores the source node a variant was promoted from.
    RevertVariant {},
    /// Records that native node `node_id` of a variant does the work of an
    /// invocation the promotion could not represent, which meets its
    /// `unrepresented_source_step` requirement.
    RepresentInvocation {
        invocation: String,
        node_id: String,
    },
    /// Places a pinned source workflow on an empty canvas. Only the resolve
    /// surfaces build it, from a tree they just verified and outlined, so a
    /// client cannot send one (it does not deserialize); it is serialized
    /// for the feed and the idempotency digest.
    #[serde(skip_deserializing)]
    PlaceSource {
        node_id: String,
        source: Box<SourceBinding>,
        x: f64,
        y: f64,
    },
    /// Pins a remote input of a source node to the local copy the runtime
    /// just downloaded and digested: the parameter is set to the copy and the
    /// pin records where it came from. Like `place_source`, only the runtime
    /// builds it (it does not deserialize).
    #[serde(skip_deserializing)]
    PinInput {
        node_id: String,
        pin: PinnedInput,
    },
}

impl GraphTransaction {
    /// Parses a transaction from JSON, rejecting unknown fields and shapes.
    pub fn from_json(bytes: &[u8]) -> Result<GraphTransaction> {
        serde_json::from_slice(bytes).map_err(|e| {
            SomiteError::new(
                ErrorCode::InvalidTransaction,
                format!("the transaction does not parse: {e}"),
                "send {base_state_revision, idempotency_key, summary, operations} with closed operation shapes",
            )
        })
    }

    /// The identity of the request, for idempotent replay: the same key with
    /// another digest is a different edit.
    pub fn content_digest(&self) -> Revision {
        revision_of(self)
    }

    /// Checks the envelope before any operation is looked at.
    pub fn check_envelope(&self) -> Result<()> {
        check_idempotency_key(&self.idempotency_key)?;
        if self.summary.chars().count() > MAX_SUMMARY_CHARS {
            return Err(SomiteError::new(
                ErrorCode::InvalidTransaction,
                format!("the summary is longer than {MAX_SUMMARY_CHARS} characters"),
                "summarise the edit in one short sentence",
            ));
        }
        if self.operations.is_empty() {
            return Err(SomiteError::new(
                ErrorCode::InvalidTransaction,
                "the transaction has no operations",
                "send at least one operation",
            ));
        }
        if self.operations.len() > MAX_TRANSACTION_OPERATIONS {
            return Err(SomiteError::new(
                ErrorCode::TooManyOperations,
                format!(
                    "the transaction has {} operations; at most {MAX_TRANSACTION_OPERATIONS} are allowed",
                    self.operations.len()
                ),
                "split the edit into several transactions",
            )
            .with_detail("limit", MAX_TRANSACTION_OPERATIONS));
        }
        Ok(())
    }
}

/// Idempotency keys for edits, runs and validations: `^[A-Za-z0-9_-]{8,128}$`.
pub fn check_idempotency_key(key: &str) -> Result<()> {
    let ok = IDEMPOTENCY_KEY_CHARS.contains(&key.len())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(SomiteError::new(
            ErrorCode::InvalidTransaction,
            "the idempotency key must match ^[A-Za-z0-9_-]{8,128}$",
            "use a fresh random key such as `edit-018f3a2b9c` for each intended edit",
        ))
    }
}

/// Applies every operation to a clone of `doc`, which must have passed
/// [`WorkflowDocument::validate`] (every stored state has); the input is
/// never touched.
///
/// The clone shares `doc`'s nodes and edges, an operation copies what it
/// changes, and the result is validated for what the operations changed
/// (see [`crate::change`]): the cost follows the edit, not the graph.
pub fn apply_operations(
    doc: &WorkflowDocument,
    catalog: &Catalog,
    operations: &[Operation],
) -> Result<WorkflowDocument> {
    apply_with_positions(doc, NodePositions::default(), catalog, operations)
}

/// [`apply_operations`], finding the nodes the operations name by binary
/// search over `by_id`, the positions of `doc`'s nodes in id order (what a
/// [`crate::canonical_state::CanonicalState`] of `doc` keeps for its graph
/// revision), instead of an index built for this transaction. The order is
/// a hint: a node it does not lead to is looked for as without it, so a
/// wrong order costs time, never the wrong node.
pub fn apply_operations_in_id_order(
    doc: &WorkflowDocument,
    by_id: &[u32],
    catalog: &Catalog,
    operations: &[Operation],
) -> Result<WorkflowDocument> {
    let positions = NodePositions {
        by_id: Some(by_id),
        ..NodePositions::default()
    };
    apply_with_positions(doc, positions, catalog, operations)
}

fn apply_with_positions(
    doc: &WorkflowDocument,
    mut positions: NodePositions<'_>,
    catalog: &Catalog,
    operations: &[Operation],
) -> Result<WorkflowDocument> {
    let mut next = doc.clone();
    for (index, op) in operations.iter().enumerate() {
        apply_one(&mut next, &mut positions, catalog, op).map_err(|e| e.at_operation(index))?;
    }
    crate::change::validate_after(&next, doc)?;
    Ok(next)
}

/// Where each node sits, by a hash of its id: a transaction of many
/// operations on a large graph would otherwise scan the nodes for each.
/// Built once a few lookups were answered by scanning (a short transaction
/// scans for less than the index costs); an operation that adds, removes
/// or replaces nodes drops it. A position is used only after its node's id
/// is compared, so a hash shared by two ids costs a scan, never the wrong
/// node. Given the nodes' id order, it needs no index until an operation
/// moves them.
#[derive(Default)]
struct NodePositions<'o> {
    /// The node positions in id order, while the nodes keep their places.
    by_id: Option<&'o [u32]>,
    map: Option<HashMap<u64, usize, BuildHasherDefault<IdHash>>>,
    scans: usize,
}

/// Lookups answered by scanning before the index is built.
const SCANS_BEFORE_INDEX: usize = 4;

impl NodePositions<'_> {
    /// The position of the first node called `id`.
    fn of(&mut self, doc: &WorkflowDocument, id: &str) -> Option<usize> {
        if let Some(by_id) = self.by_id {
            let found = by_id.binary_search_by(|&i| {
                doc.nodes
                    .get(i as usize)
                    .map_or(std::cmp::Ordering::Greater, |n| n.id.as_str().cmp(id))
            });
            if let Ok(k) = found {
                return Some(by_id[k] as usize);
            }
        }
        if self.map.is_none() && self.scans < SCANS_BEFORE_INDEX {
            self.scans += 1;
            return doc.nodes.iter().position(|n| n.id == id);
        }
        let map = self.map.get_or_insert_with(|| {
            let mut map = HashMap::with_capacity_and_hasher(doc.nodes.len(), Default::default());
            for (i, n) in doc.nodes.iter().enumerate() {
                map.entry(fnv1a(&n.id)).or_insert(i);
            }
            map
        });
        match map.get(&fnv1a(id)) {
            Some(&i) if doc.nodes.get(i).is_some_and(|n| n.id == id) => Some(i),
            // Another id with the same hash, or none.
            _ => doc.nodes.iter().position(|n| n.id == id),
        }
    }

    fn forget(&mut self) {
        self.by_id = None;
        self.map = None;
    }
}

/// FNV-1a: ids are short, and this map needs no defence against chosen
/// collisions (a collision only costs a scan).
fn fnv1a(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Hashes the map's keys, already hashes, to themselves.
#[derive(Default)]
struct IdHash(u64);

impl Hasher for IdHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) | u64::from(*b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

fn apply_one(
    doc: &mut WorkflowDocument,
    positions: &mut NodePositions<'_>,
    catalog: &Catalog,
    op: &Operation,
) -> Result<()> {
    // Operations that add, remove or replace nodes move the others.
    if matches!(
        op,
        Operation::AddOperator { .. }
            | Operation::PlaceSource { .. }
            | Operation::RemoveOperator { .. }
            | Operation::PromoteSource { .. }
            | Operation::RevertVariant {}
    ) {
        positions.forget();
    }
    match op {
        Operation::AddOperator {
            node_id,
            operator_id,
            params,
            x,
            y,
        } => {
            claim_id(doc, node_id)?;
            finite(*x, *y)?;
            refuse_beside_source(doc)?;
            let entry = catalog
                .get(operator_id)
                .ok_or_else(|| unknown_operator(catalog, operator_id))?;
            for (name, value) in params {
                check_param(&entry.contract, node_id, name, value)?;
            }
            doc.nodes.push(Arc::new(Node {
                id: node_id.clone(),
                operator_id: operator_id.clone(),
                operator_revision: entry.revision.clone(),
                ports: entry.contract.ports.clone(),
                params: params.clone(),
                x: *x,
                y: *y,
                color: None,
                source: None,
                replacements: Vec::new(),
                process_environments: Vec::new(),
                pinned_inputs: Vec::new(),
            }));
        }
        Operation::PlaceSource {
            node_id,
            source,
            x,
            y,
        } => {
            if !doc.nodes.is_empty() {
                return Err(SomiteError::new(
                    ErrorCode::CanvasNotEmpty,
                    format!(
                        "the canvas holds {} node(s); a source workflow starts from an empty canvas",
                        doc.nodes.len()
                    ),
                    "remove every node first (or open a new project), then resolve the pipeline again",
                )
                .with_detail("nodes", doc.nodes.len()));
            }
            claim_id(doc, node_id)?;
            finite(*x, *y)?;
            source.validate()?;
            doc.nodes.push(Arc::new(Node {
                id: node_id.clone(),
                operator_id: SOURCE_OPERATOR_ID.to_owned(),
                operator_revision: source.revision(),
                ports: Default::default(),
                params: BTreeMap::new(),
                x: *x,
                y: *y,
                color: None,
                source: Some(source.clone()),
                replacements: Vec::new(),
                process_environments: Vec::new(),
                pinned_inputs: Vec::new(),
            }));
        }
        Operation::ReplaceInvocation {
            node_id,
            invocation,
            operator_id,
            inputs,
            outputs,
        } => {
            let node = source_node(doc, node_id)?;
            let entry = catalog
                .get(operator_id)
                .ok_or_else(|| unknown_operator(catalog, operator_id))?;
            let binding = node.source().expect("a source node");
            let replacement = variant::replacement(
                binding,
                entry,
                invocation,
                &PortPair::from_map(inputs),
                &PortPair::from_map(outputs),
            )?;
            let node = doc.node_mut(node_id).expect("checked above");
            variant::put_replacement(node, replacement);
        }
        Operation::RestoreInvocation {
            node_id,
            invocation,
        } => {
            let node = source_node(doc, node_id)?;
            variant::invocation(node.source().expect("a source node"), invocation)?;
            if !node
                .replacements
                .iter()
                .any(|r| r.invocation == *invocation)
            {
                return Err(SomiteError::new(
                    ErrorCode::UnknownInvocation,
                    format!("{invocation} has no replacement to restore"),
                    "read the source node's replacements and restore one of them",
                )
                .with_detail("invocation", invocation));
            }
            let node = doc.node_mut(node_id).expect("checked above");
            node.replacements.retain(|r| r.invocation != *invocation);
        }
        Operation::SetProcessEnvironment {
            node_id,
            process,
            choice,
        } => {
            let node = source_node(doc, node_id)?;
            check_process_environment(node.source().expect("a source node"), process, choice)?;
            let node = doc.node_mut(node_id).expect("checked above");
            node.process_environments.retain(|e| e.process != *process);
            node.process_environments
                .push(crate::source::ProcessEnvironment {
                    process: process.clone(),
                    choice: choice.clone(),
                });
            node.process_environments
                .sort_by(|a, b| a.process.cmp(&b.process));
        }
        Operation::UnsetProcessEnvironment { node_id, process } => {
            let node = source_node(doc, node_id)?;
            if !node
                .process_environments
                .iter()
                .any(|e| e.process == *process)
            {
                return Err(SomiteError::new(
                    ErrorCode::UnknownProcess,
                    format!("{process} has no environment chosen for it"),
                    "read the source node's process_environments and unset one of them",
                )
                .with_detail("process", process));
            }
            let node = doc.node_mut(node_id).expect("checked above");
            node.process_environments.retain(|e| e.process != *process);
        }
        Operation::PinInput { node_id, pin } => {
            let node = source_node(doc, node_id)?;
            let binding = node.source().expect("a source node");
            check_source_param(
                binding,
                node_id,
                &pin.param,
                &Value::String(pin.path.clone()),
            )?;
            let node = doc.node_mut(node_id).expect("checked above");
            node.params
                .insert(pin.param.clone(), Value::String(pin.path.clone()));
            node.pinned_inputs.retain(|p| p.param != pin.param);
            node.pinned_inputs.push(pin.clone());
            node.pinned_inputs.sort_by(|a, b| a.param.cmp(&b.param));
        }
        Operation::PromoteSource {
            node_id,
            invocations,
        } => variant::promote(doc, catalog, node_id, invocations)?,
        Operation::RevertVariant {} => variant::revert(doc)?,
        Operation::RepresentInvocation {
            invocation,
            node_id,
        } => variant::represent(doc, invocation, node_id)?,
        Operation::RemoveOperator { node_id } => {
            existing_node(doc, node_id)?;
            doc.nodes.retain(|n| n.id != *node_id);
            doc.edges
                .retain(|e| e.from_node != *node_id && e.to_node != *node_id);
        }
        Operation::SetParam {
            node_id,
            param,
            value,
        } => {
            let at = positions
                .of(doc, node_id)
                .ok_or_else(|| unknown_node(node_id))?;
            let node = &doc.nodes[at];
            if let Some(binding) = node.source() {
                check_source_param(binding, node_id, param, value)?;
            } else {
                check_param(pinned_contract(node, catalog)?, node_id, param, value)?;
            }
            let node = Arc::make_mut(&mut doc.nodes[at]);
            node.params.insert(param.clone(), value.clone());
            // A new value is no longer the pinned copy.
            node.pinned_inputs.retain(|p| p.param != *param);
        }
        Operation::UnsetParam { node_id, param } => {
            let at = positions
                .of(doc, node_id)
                .ok_or_else(|| unknown_node(node_id))?;
            if let Some(binding) = doc.nodes[at].source() {
                if binding.param(param).is_none() {
                    return Err(SomiteError::new(
                        ErrorCode::UnknownParam,
                        format!(
                            "{} (node `{node_id}`) has no parameter `{param}`",
                            binding.repository
                        ),
                        "read the node's parameters and use one of their names",
                    ));
                }
            } else {
                let contract = pinned_contract(&doc.nodes[at], catalog)?;
                if contract.param(param).is_none() {
                    return Err(unknown_param(contract, node_id, param));
                }
            }
            let node = Arc::make_mut(&mut doc.nodes[at]);
            node.params.remove(param);
            node.pinned_inputs.retain(|p| p.param != *param);
        }
        Operation::Connect {
            edge_id,
            from_node,
            from_port,
            to_node,
            to_port,
        } => {
            claim_id(doc, edge_id)?;
            let edge = Edge {
                id: edge_id.clone(),
                from_node: from_node.clone(),
                from_port: from_port.clone(),
                to_node: to_node.clone(),
                to_port: to_port.clone(),
            };
            // What the edge names must exist and fit before the input's
            // occupancy means anything: a typo in `from_node` is an unknown
            // node, whatever already ends at the input.
            check_edge_alone(doc, &edge)?;
            if let Some(existing) = doc.edge_into(to_node, to_port) {
                return Err(SomiteError::new(
                    ErrorCode::PortAlreadyConnected,
                    format!(
                        "input {to_node}.{to_port} is already connected by edge `{}`",
                        existing.id
                    ),
                    "disconnect that edge in the same transaction first; an input takes one edge",
                )
                .with_detail("edge_id", &existing.id));
            }
            // The document is acyclic, so the edge closes a cycle exactly
            // when its source is reachable from its target; only then is
            // the full order computed, for the nodes the error names.
            let closes_cycle = doc.reaches(to_node, from_node);
            doc.edges.push(Arc::new(edge));
            if closes_cycle && let Err(cycle) = doc.topological_order() {
                return Err(cycle_error(&cycle));
            }
        }
        Operation::Disconnect { edge_id } => {
            let before = doc.edges.len();
            doc.edges.retain(|e| e.id != *edge_id);
            if doc.edges.len() == before {
                return Err(SomiteError::new(
                    ErrorCode::UnknownEdge,
                    format!("there is no edge `{edge_id}`"),
                    "read the workflow and use an existing edge id",
                ));
            }
        }
        Operation::Move { node_id, x, y } => {
            finite(*x, *y)?;
            let at = positions
                .of(doc, node_id)
                .ok_or_else(|| unknown_node(node_id))?;
            let node = Arc::make_mut(&mut doc.nodes[at]);
            node.x = *x;
            node.y = *y;
        }
        Operation::AddNote {
            note_id,
            text,
            x,
            y,
        } => {
            claim_id(doc, note_id)?;
            finite(*x, *y)?;
            note_text(text)?;
            doc.notes.push(Note {
                id: note_id.clone(),
                text: text.clone(),
                x: *x,
                y: *y,
                color: None,
            });
        }
        Operation::EditNote { note_id, text } => {
            note_text(text)?;
            let note = doc
                .notes
                .iter_mut()
                .find(|n| n.id == *note_id)
                .ok_or_else(|| unknown_note(note_id))?;
            note.text = text.clone();
        }
        Operation::RemoveNote { note_id } => {
            let before = doc.notes.len();
            doc.notes.retain(|n| n.id != *note_id);
            if doc.notes.len() == before {
                return Err(unknown_note(note_id));
            }
        }
        Operation::SetTitle { title } => {
            if title.chars().count() > MAX_TITLE_CHARS {
                return Err(SomiteError::new(
                    ErrorCode::InvalidTransaction,
                    format!("the title is longer than {MAX_TITLE_CHARS} characters"),
                    "choose a shorter title",
                ));
            }
            doc.title = title.clone();
        }
    }
    Ok(())
}

fn unknown_operator(catalog: &Catalog, operator_id: &str) -> SomiteError {
    SomiteError::new(
        ErrorCode::UnknownOperator,
        format!("the catalog has no operator `{operator_id}`"),
        "search the catalog and use an exact operator id from its results",
    )
    .with_detail("catalog_revision", catalog.revision())
}

/// The source node `node_id`, or why there is none.
fn source_node<'a>(doc: &'a WorkflowDocument, node_id: &str) -> Result<&'a Node> {
    doc.node(node_id)
        .filter(|n| n.source.is_some())
        .ok_or_else(|| variant::not_a_source(doc, node_id))
}

fn claim_id(doc: &WorkflowDocument, id: &str) -> Result<()> {
    if !is_valid_id(id) {
        return Err(invalid_id(id));
    }
    if doc.id_in_use(id) {
        return Err(SomiteError::new(
            ErrorCode::DuplicateId,
            format!("the id `{id}` is already in use"),
            "choose a new id; nodes, edges, notes and stages share one namespace",
        )
        .with_detail("id", id));
    }
    Ok(())
}

/// A source workflow is its source node alone: native nodes do not join it.
fn refuse_beside_source(doc: &WorkflowDocument) -> Result<()> {
    match doc.source_node() {
        Some(node) => Err(SomiteError::new(
            ErrorCode::InvalidTransaction,
            format!(
                "the canvas holds the source workflow `{}`; native nodes do not mix with it",
                node.id
            ),
            "set the source's parameters, or remove the source node to build a native workflow",
        )),
        None => Ok(()),
    }
}

fn finite(x: f64, y: f64) -> Result<()> {
    if x.is_finite() && y.is_finite() {
        Ok(())
    } else {
        Err(SomiteError::new(
            ErrorCode::InvalidTransaction,
            "a position must be finite numbers",
            "send x and y as ordinary numbers",
        ))
    }
}

fn note_text(text: &str) -> Result<()> {
    if text.chars().count() > MAX_NOTE_CHARS {
        return Err(SomiteError::new(
            ErrorCode::InvalidTransaction,
            format!("a note holds at most {MAX_NOTE_CHARS} characters"),
            "split the text over several notes",
        ));
    }
    Ok(())
}

fn existing_node<'a>(doc: &'a WorkflowDocument, node_id: &str) -> Result<&'a Node> {
    doc.node(node_id).ok_or_else(|| unknown_node(node_id))
}

fn unknown_node(node_id: &str) -> SomiteError {
    SomiteError::new(
        ErrorCode::UnknownNode,
        format!("there is no node `{node_id}`"),
        "read the workflow and use an existing node id",
    )
}

fn unknown_note(note_id: &str) -> SomiteError {
    SomiteError::new(
        ErrorCode::UnknownNote,
        format!("there is no note `{note_id}`"),
        "read the workflow and use an existing note id",
    )
}

/// The contract a node was created from, as long as the catalog still holds
/// that exact revision: parameters are checked against what the node runs.
fn pinned_contract<'c>(node: &Node, catalog: &'c Catalog) -> Result<&'c OperatorContract> {
    let node_id = &node.id;
    match catalog.get(&node.operator_id) {
        Some(entry) if entry.revision == node.operator_revision => Ok(&entry.contract),
        _ => Err(SomiteError::new(
            ErrorCode::UnknownOperator,
            format!(
                "node `{node_id}` pins {} at {}, which this catalog no longer holds",
                node.operator_id, node.operator_revision
            ),
            "replace the node with one from the current catalog",
        )),
    }
}

fn unknown_param(contract: &OperatorContract, node_id: &str, param: &str) -> SomiteError {
    let names: Vec<&str> = contract.params.iter().map(|p| p.name.as_str()).collect();
    SomiteError::new(
        ErrorCode::UnknownParam,
        format!(
            "{} (node `{node_id}`) has no parameter `{param}`",
            contract.id
        ),
        format!("its parameters are: {}", names.join(", ")),
    )
}

fn check_param(
    contract: &OperatorContract,
    node_id: &str,
    name: &str,
    value: &Value,
) -> Result<()> {
    let spec = contract
        .param(name)
        .ok_or_else(|| unknown_param(contract, node_id, name))?;
    if value
        .as_str()
        .is_some_and(|s| s.len() > MAX_STRING_PARAM_BYTES)
    {
        return Err(SomiteError::new(
            ErrorCode::ParamOutOfRange,
            format!("`{name}` is longer than {MAX_STRING_PARAM_BYTES} bytes"),
            "shorten the value",
        ));
    }
    if let Some(path) = value.as_str()
        && contract.ports.imports(name)
        && let Err(fault) = check_import_path(name, path)
    {
        return Err(SomiteError::new(
            ErrorCode::ParamOutOfRange,
            fault.to_string(),
            "rename the file (or link it) to a name without control characters, `$` or glob characters, then choose it",
        ));
    }
    check_param_value(spec, value).map_err(|fault| match fault {
        ParamFault::Type(message) => SomiteError::new(
            ErrorCode::InvalidParamType,
            message,
            "send the value with the parameter's type",
        ),
        ParamFault::Range(message) => SomiteError::new(
            ErrorCode::ParamOutOfRange,
            message,
            "choose a value inside the parameter's range",
        ),
    })
}
