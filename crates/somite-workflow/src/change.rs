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
                        && (ends.contains(e.from_node.as_str())
                            || ends.contains(e.to_node.as_str()))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::write_canonical_into;
    use crate::canonical_state::CanonicalState;
    use crate::catalog::Catalog;
    use crate::graph::tests::defined_graph_revision;
    use crate::graph::{Note, Stage};
    use crate::limits::MAX_NOTE_CHARS;
    use crate::operator::Ports;
    use serde_json::{Value, json};

    /// xorshift64*: a fixed, seedable sequence without a dependency.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        }

        fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[self.below(items.len())]
        }

        fn chance(&mut self, percent: usize) -> bool {
            self.below(100) < percent
        }
    }

    /// Mostly fresh valid ids, sometimes one in use, sometimes an invalid one.
    fn id(rng: &mut Rng) -> String {
        match rng.below(20) {
            0 => "..".into(),
            1 => "bad id".into(),
            2..=6 => format!("n{}", rng.below(6)),
            _ => format!("x{}", rng.below(100_000)),
        }
    }

    /// A node of `operator`; a `pipe` passes reads through, so edges
    /// between pipes can close cycles.
    fn node(catalog: &Catalog, operator: &str, id: String, rng: &mut Rng) -> Node {
        let (operator_id, entry) = match operator {
            "pipe" => ("qc.fastqc", catalog.get("qc.fastqc").unwrap()),
            other => (other, catalog.get(other).unwrap()),
        };
        let ports = if operator == "pipe" {
            let input = entry.contract.ports.inputs[0].clone();
            let mut output = input.clone();
            output.name = "reads_out".into();
            Ports {
                inputs: vec![input],
                outputs: vec![output],
            }
        } else {
            entry.contract.ports.clone()
        };
        Node {
            id,
            operator_id: operator_id.into(),
            operator_revision: entry.revision.clone(),
            ports,
            params: Default::default(),
            x: rng.below(500) as f64,
            y: -(rng.below(500) as f64) / 3.0,
            color: rng.chance(20).then(|| "#a0b1c2".into()),
            source: None,
            replacements: Vec::new(),
            process_environments: Vec::new(),
            pinned_inputs: Vec::new(),
        }
    }

    fn param_value(rng: &mut Rng) -> Value {
        match rng.below(10) {
            0 => json!("a\u{0}b"),
            1 => json!("reads\n.fastq"),
            2 => json!({"z": [1, 2.5], "a": null}),
            3..=5 => json!(rng.below(8)),
            _ => json!(format!("data/r{} \"q\" ü.fastq", rng.below(50))),
        }
    }

    /// One edit of `doc` as an operation or a raw change could make it,
    /// valid or not; returns what it did, for a failure's message.
    fn mutate(doc: &mut WorkflowDocument, catalog: &Catalog, rng: &mut Rng) -> String {
        let n = doc.nodes.len();
        let choice = rng.below(30);
        match choice {
            0..=5 => {
                let operator =
                    *rng.pick(&["files.import", "qc.fastqc", "qc.fastp", "pipe", "pipe"]);
                let id = id(rng);
                doc.nodes
                    .push(Arc::new(node(catalog, operator, id.clone(), rng)));
                format!("add {operator} {id}")
            }
            6..=9 if n > 0 => {
                let i = rng.below(n);
                let node = Arc::make_mut(&mut doc.nodes[i]);
                let name = match node.operator_id.as_str() {
                    "files.import" => "path",
                    _ => "threads",
                };
                let value = param_value(rng);
                node.params.insert(name.into(), value.clone());
                format!("set {}.{name} = {value}", node.id)
            }
            10..=13 if n > 0 => {
                let from = doc.nodes[rng.below(n)].clone();
                let to = doc.nodes[rng.below(n)].clone();
                let from_port = match from.ports.outputs.first() {
                    Some(p) if rng.chance(90) => p.name.clone(),
                    _ => "nope".into(),
                };
                let to_port = match to.ports.inputs.first() {
                    Some(p) if rng.chance(90) => p.name.clone(),
                    _ => "nope".into(),
                };
                let id = id(rng);
                doc.edges.push(Arc::new(Edge {
                    id: id.clone(),
                    from_node: from.id.clone(),
                    from_port,
                    to_node: to.id.clone(),
                    to_port,
                }));
                format!("connect {id}: {} → {}", from.id, to.id)
            }
            14 if n > 0 => {
                let i = rng.below(n);
                let gone = doc.nodes.remove(i);
                if rng.chance(70) {
                    doc.edges
                        .retain(|e| e.from_node != gone.id && e.to_node != gone.id);
                }
                format!("remove {}", gone.id)
            }
            15 if !doc.edges.is_empty() => {
                let gone = doc.edges.remove(rng.below(doc.edges.len()));
                format!("disconnect {}", gone.id)
            }
            16 if n > 0 => {
                let i = rng.below(n);
                let node = Arc::make_mut(&mut doc.nodes[i]);
                node.x = if rng.chance(20) { f64::NAN } else { 12.5 };
                format!("move {}", node.id)
            }
            17 if n > 0 => {
                let i = rng.below(n);
                let node = Arc::make_mut(&mut doc.nodes[i]);
                match rng.below(4) {
                    0 => node.operator_revision = "blake3:0".into(),
                    1 => node.ports.inputs.clear(),
                    2 => node.operator_id = SOURCE_OPERATOR_ID.into(),
                    _ => node.color = Some("#000000".into()),
                }
                format!("alter {}", node.id)
            }
            18 if n > 1 => {
                let (i, j) = (rng.below(n), rng.below(n));
                doc.nodes.swap(i, j);
                format!("swap {i} {j}")
            }
            19 if n > 0 => {
                let i = rng.below(n);
                doc.nodes[i] = Arc::new(Node::clone(&doc.nodes[i]));
                format!("copy {}", doc.nodes[i].id)
            }
            20 if n > 0 => {
                // The same id, another operator: other ports at both ends
                // of its edges.
                let i = rng.below(n);
                let id = doc.nodes[i].id.clone();
                let operator = *rng.pick(&["files.import", "qc.fastp", "pipe"]);
                doc.nodes[i] = Arc::new(node(catalog, operator, id.clone(), rng));
                format!("replace {id} with {operator}")
            }
            21..=22 => {
                let id = id(rng);
                let long = rng.chance(10);
                doc.notes.push(Note {
                    id: id.clone(),
                    text: if long {
                        "n".repeat(MAX_NOTE_CHARS + 1)
                    } else {
                        "a \"note\"\n".into()
                    },
                    x: if rng.chance(10) { f64::INFINITY } else { 1.0 },
                    y: 2.0,
                    color: None,
                });
                format!("add note {id}")
            }
            23 if !doc.notes.is_empty() => {
                let i = rng.below(doc.notes.len());
                doc.notes[i].text = "edited".into();
                "edit note".into()
            }
            24 if !doc.notes.is_empty() => {
                doc.notes.remove(rng.below(doc.notes.len()));
                "remove note".into()
            }
            25 => {
                let id = id(rng);
                doc.stages.push(Stage {
                    id: id.clone(),
                    title: "QC".into(),
                    color: "#ffeeaa".into(),
                    x: 0.0,
                    y: 0.0,
                    width: 100.0,
                    height: 50.0,
                });
                format!("add stage {id}")
            }
            26 => {
                doc.title = if rng.chance(15) {
                    "t".repeat(MAX_TITLE_CHARS + 1)
                } else {
                    format!("Title {}", rng.below(9))
                };
                "retitle".into()
            }
            27 if rng.chance(10) => {
                doc.schema_version += 1;
                "schema".into()
            }
            _ => "nothing".into(),
        }
    }

    /// The canonical JSON by its definition: the generic writer over the
    /// whole document.
    fn defined_json(doc: &WorkflowDocument) -> Vec<u8> {
        let mut out = Vec::new();
        write_canonical_into(doc, &mut out);
        out
    }

    /// Generated chains of edits, valid and not: the check from the change
    /// accepts exactly what the whole validation accepts, and the canonical
    /// forms built from the previous state's are those written from scratch
    /// and those of their definitions.
    #[test]
    fn the_change_check_and_the_reused_canonical_forms_agree_with_their_definitions() {
        let catalog = Catalog::builtin().unwrap();
        let (mut accepted, mut refused) = (0, 0);
        for seed in 1..=60u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut previous = WorkflowDocument::empty("Generated");
            let mut state = CanonicalState::of(&previous);
            let mut log = Vec::new();
            for step in 0..80 {
                let mut next = previous.clone();
                for _ in 0..1 + rng.below(3) {
                    log.push(mutate(&mut next, &catalog, &mut rng));
                }
                let full = next.validate().is_ok();
                assert_eq!(
                    keeps_invariants(&next, &previous),
                    full,
                    "seed {seed}, step {step}, after: {log:#?}"
                );
                let reused = state.next(&next);
                assert_eq!(
                    &reused.json()[..],
                    &defined_json(&next)[..],
                    "seed {seed}, step {step}, after: {log:#?}"
                );
                assert_eq!(&reused.json()[..], &next.canonical_json()[..]);
                assert_eq!(reused.graph_revision(), &next.graph_revision());
                assert_eq!(reused.graph_revision(), &defined_graph_revision(&next));
                if full {
                    accepted += 1;
                    previous = next;
                    state = reused;
                } else {
                    refused += 1;
                    log.push("(refused)".into());
                }
            }
        }
        // Both sides of the comparison are well exercised.
        assert!(accepted > 1000 && refused > 1000, "{accepted} / {refused}");
    }
}
