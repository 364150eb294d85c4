//! What an edit changed, and whether the result still keeps every
//! invariant of a stored document, found from the change alone.
//!
//! A transaction clones the current document, applies its operations and
//! validates the result before anything is published. The clone shares
//! every node and edge with the current state (`Arc`), and an operation
//! copies the node it changes (`Arc::make_mut`), so comparing pointers
//! tells, in one walk over both lists, which nodes and edges are the
//! previous state's own, which are new versions of one, which are new and
//! which are gone. The previous state passed the whole validation, so only
//! what those can break needs checking again: the ids that joined, the
//! nodes and notes that are new or changed, the edges that are new or
//! lost an end or whose ports changed, and a cycle only through a new edge
//! (see [`keeps_invariants`]). [`crate::graph::WorkflowDocument::validate`]
//! stays the definition, run in full on open and import, and its error is
//! the one a transaction reports, so a fault reads the same whichever way
//! it was found; a test compares the two on generated edits.

use crate::error::Result;
use crate::graph::{
    Edge, Node, SCHEMA_VERSION, WorkflowDocument, check_edge_ends, check_node, check_note,
    is_valid_id,
};
use crate::limits::MAX_TITLE_CHARS;
use crate::source::SOURCE_OPERATOR_ID;
use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// How each element of a state's list relates to the previous state's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// The very element at this index of the previous list.
    Shared(usize),
    /// A new version of the element at this index of the previous list
    /// (the same id).
    Changed(usize),
    /// Nothing in the previous list answers to it (or the walk lost it:
    /// treating an element as new is never wrong, only slower).
    New,
}

/// Elements with an id.
pub(crate) trait Identified {
    fn id(&self) -> &str;
}

impl Identified for Node {
    fn id(&self) -> &str {
        &self.id
    }
}

impl Identified for Edge {
    fn id(&self) -> &str {
        &self.id
    }
}

/// The elements of `next` matched with those of `previous` in one walk
/// over both (edits keep the order of what they leave: they change in
/// place, append and remove), and the previous positions nothing in `next`
/// answers to.
pub(crate) fn correspond<T: Identified, P: Borrow<Arc<T>>>(
    previous: &[P],
    next: &[Arc<T>],
) -> (Vec<Origin>, Vec<usize>) {
    let mut origins = Vec::with_capacity(next.len());
    let mut removed = Vec::new();
    let mut j = 0;
    for element in next {
        let mut k = j;
        while k < previous.len() {
            let candidate: &Arc<T> = previous[k].borrow();
            if Arc::ptr_eq(candidate, element) || candidate.id() == element.id() {
                break;
            }
            k += 1;
        }
        if k == previous.len() {
            origins.push(Origin::New);
            continue;
        }
        removed.extend(j..k);
        let candidate: &Arc<T> = previous[k].borrow();
        origins.push(if Arc::ptr_eq(candidate, element) {
            Origin::Shared(k)
        } else {
            Origin::Changed(k)
        });
        j = k + 1;
    }
    removed.extend(j..previous.len());
    (origins, removed)
}

/// Validates `next`, a later state of `previous`, which passed
/// [`WorkflowDocument::validate`]: checks what differs, and on a fault
/// reports the whole validation's error.
pub(crate) fn validate_after(next: &WorkflowDocument, previous: &WorkflowDocument) -> Result<()> {
    if keeps_invariants(next, previous) {
        Ok(())
    } else {
        next.validate()
    }
}

/// Whether `next` passes [`WorkflowDocument::validate`], given that
/// `previous` does, checking only what differs between them.
pub(crate) fn keeps_invariants(next: &WorkflowDocument, previous: &WorkflowDocument) -> bool {
    if next.schema_version != SCHEMA_VERSION || next.title.chars().count() > MAX_TITLE_CHARS {
        return false;
    }
    let (node_origins, removed_nodes) = correspond(&previous.nodes, &next.nodes);
    let (edge_origins, _) = correspond(&previous.edges, &next.edges);
    let fresh_nodes: Vec<(&Node, Origin)> = next
        .nodes
        .iter()
        .zip(&node_origins)
        .filter(|(_, o)| !matches!(o, Origin::Shared(_)))
        .map(|(n, o)| (&**n, *o))
        .collect();
    let fresh_edges: Vec<(&Edge, Origin)> = next
        .edges
        .iter()
        .zip(&edge_origins)
        .filter(|(_, o)| !matches!(o, Origin::Shared(_)))
        .map(|(e, o)| (&**e, *o))
        .collect();

    // Ids: a node or edge matched with a previous one kept its id, which
    // was unique; the new ones', and the notes' and stages' when those
    // changed, must be valid and appear once in the whole document.
    let notes_changed = next.notes != previous.notes;
    let stages_changed = next.stages != previous.stages;
    let mut new_ids: Vec<&str> = fresh_nodes
        .iter()
        .filter(|(_, o)| *o == Origin::New)
        .map(|(n, _)| n.id.as_str())
        .chain(
            fresh_edges
                .iter()
                .filter(|(_, o)| *o == Origin::New)
                .map(|(e, _)| e.id.as_str()),
        )
        .collect();
    if notes_changed {
        new_ids.extend(next.notes.iter().map(|n| n.id.as_str()));
    }
    if stages_changed {
        new_ids.extend(next.stages.iter().map(|s| s.id.as_str()));
    }
    if !new_ids.is_empty() {
        if !new_ids.iter().all(|id| is_valid_id(id)) {
            return false;
        }
        let wanted: HashSet<&str> = new_ids.iter().copied().collect();
        if wanted.len() < new_ids.len() {
            return false;
        }
        let mut seen = HashSet::with_capacity(wanted.len());
        let all_ids = next
            .nodes
            .iter()
            .map(|n| n.id.as_str())
            .chain(next.edges.iter().map(|e| e.id.as_str()))
            .chain(next.notes.iter().map(|n| n.id.as_str()))
            .chain(next.stages.iter().map(|s| s.id.as_str()));
        for id in all_ids {
            if wanted.contains(id) && !seen.insert(id) {
                return false;
            }
        }
    }

    // Source workflows and variants. A valid document of two nodes or more
    // holds no source node, so none of its nodes has replacements: unless
    // a new or changed node is (or claims to be) one, only a new origin
    // needs checking.
    let sourceish = |n: &Node| {
        n.source.is_some() || n.operator_id == SOURCE_OPERATOR_ID || !n.replacements.is_empty()
    };
    if previous.nodes.len() <= 1 || fresh_nodes.iter().any(|(n, _)| sourceish(n)) {
        if next.validate_source().is_err() || crate::variant::validate(next).is_err() {
            return false;
        }
    } else if let Some(origin) = &next.variant_origin
        && !previous
            .variant_origin
            .as_ref()
            .is_some_and(|p| Arc::ptr_eq(p, origin))
        && crate::variant::validate(next).is_err()
    {
        return false;
    }

    if fresh_nodes.iter().any(|(n, _)| check_node(n).is_err()) {
        return false;
    }
    if notes_changed && next.notes.iter().any(|n| check_note(n).is_err()) {
        return false;
    }

    // Edges: the new ones, and those ending at a node that is gone or
    // whose ports changed (an edge depends on its ends' ids and ports only).
    let mut ends: HashSet<&str> = removed_nodes
        .iter()
        .map(|j| previous.nodes[*j].id.as_str())
        .collect();
    for (node, origin) in &fresh_nodes {
        if let Origin::Changed(j) = origin
            && previous.nodes[*j].ports != node.ports
        {
            ends.insert(&node.id);
        }
    }
    let mut recheck: Vec<&Edge> = fresh_edges.iter().map(|(e, _)| *e).collect();
    if !ends.is_empty() {
        recheck.extend(
            next.edges
                .iter()
                .zip(&edge_origins)
                .filter(|(e, o)| {
                    matches!(o, Origin::Shared(_))
                        && (ends.contains(e.from_node.as_str()) || ends.contains(e.to_node.as_str()))
                })
                .map(|(e, _)| &**e),
        );
    }
    if !recheck.is_empty() {
        let mut inputs: HashMap<(&str, &str), usize> = recheck
            .iter()
            .map(|e| ((e.to_node.as_str(), e.to_port.as_str()), 0))
            .collect();
        for e in &next.edges {
            if let Some(count) = inputs.get_mut(&(e.to_node.as_str(), e.to_port.as_str())) {
                *count += 1;
            }
        }
        // A few lookups scan the nodes; more build an index once.
        let index: Option<HashMap<&str, &Node>> = (recheck.len() > 8).then(|| {
            let mut index = HashMap::with_capacity(next.nodes.len());
            for n in &next.nodes {
                index.entry(n.id.as_str()).or_insert(&**n);
            }
            index
        });
        let lookup = |id: &str| match &index {
            Some(index) => index.get(id).copied(),
            None => next.node(id),
        };
        for edge in &recheck {
            let count = inputs[&(edge.to_node.as_str(), edge.to_port.as_str())];
            if check_edge_ends(edge, lookup, count).is_err() {
                return false;
            }
        }
    }

    // Cycles: the previous document had none, and a cycle runs through an
    // edge only when its source is reachable from its target.
    match fresh_edges.len() {
        0 => true,
        1..=2 => !fresh_edges
            .iter()
            .any(|(e, _)| next.reaches(&e.to_node, &e.from_node)),
        _ => next.topological_order().is_ok(),
    }
}
