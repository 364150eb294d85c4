//! A state's canonical JSON and graph revision, built from the previous
//! state's wherever the edit left a node or an edge alone.
//!
//! Every published state needs both: the canonical JSON is what its state
//! revision is a digest of (persisted in records and receipts), the graph
//! file's content and the body reads are served from; the graph revision
//! binds evidence and receipts. Written from scratch they cost as much as
//! the graph is large, for an edit that touched one node. Nodes and edges
//! are shared between states (`Arc`, see [`crate::graph`]), so a node the
//! edit did not touch is the very allocation the previous state held: its
//! canonical bytes are those the previous state wrote, copied (in runs)
//! instead of serialized again. A [`CanonicalState`] keeps its own handles
//! on the nodes and edges it was written from, so a pointer seen in it
//! always means the bytes recorded beside it, whoever calls.
//!
//! The bytes are exactly those of the generic canonical writer
//! ([`crate::canonical`]) over the whole document: the layout of a
//! document and of a node is spelled out here once (destructuring every
//! field, so a new field does not compile until it is placed), and tests
//! compare both with the generic writer on varied documents and edits.

use crate::canonical::{Revision, digest_bytes, write_canonical_into};
use crate::change::{Origin, correspond};
use crate::graph::{Edge, Node, WorkflowDocument};
use crate::operator::Ports;
use crate::variant::VariantOrigin;
use bytes::Bytes;
use std::borrow::Borrow;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// The canonical forms of one document, and where each node's and edge's
/// bytes lie in them.
#[derive(Debug, Clone)]
pub struct CanonicalState {
    /// Shared without copying: made from the buffer it was written to.
    json: Bytes,
    /// Computed on first use, from the bytes kept here: an edit hands the
    /// JSON to the disk first and hashes while the disk writes.
    graph_revision: OnceLock<Revision>,
    schema_version: u32,
    nodes: Vec<NodeBytes>,
    edges: Vec<EdgeBytes>,
    /// Node positions in id order, as the graph revision lists them.
    by_id: Vec<u32>,
    /// The graph revision's sorted `[[from_node, from_port, to_node,
    /// to_port], …]`.
    edge_tuples: Vec<u8>,
    origin: Option<(Arc<VariantOrigin>, Range<usize>)>,
}

#[derive(Debug, Clone)]
struct NodeBytes {
    node: Arc<Node>,
    /// The node's canonical object in the JSON.
    whole: Range<usize>,
    /// Its members that count for the graph revision, `"id":…` through
    /// `"ports":…` (and `"replacements":…`), inside `whole`.
    semantic: Range<usize>,
}

#[derive(Debug, Clone)]
struct EdgeBytes {
    edge: Arc<Edge>,
    whole: Range<usize>,
}

impl Borrow<Arc<Node>> for NodeBytes {
    fn borrow(&self) -> &Arc<Node> {
        &self.node
    }
}

impl Borrow<Arc<Edge>> for EdgeBytes {
    fn borrow(&self) -> &Arc<Edge> {
        &self.edge
    }
}

impl CanonicalState {
    /// Writes the canonical forms of `doc` from scratch.
    pub fn of(doc: &WorkflowDocument) -> CanonicalState {
        build(doc, None)
    }

    /// The canonical forms of `doc`, a later state than the one `self` was
    /// written from: the nodes and edges it shares with that state are
    /// copied from `self`, the rest written. The result is the same as
    /// [`Self::of`] in any case.
    pub fn next(&self, doc: &WorkflowDocument) -> CanonicalState {
        build(doc, Some(self))
    }

    /// The document's canonical JSON.
    pub fn json(&self) -> &Bytes {
        &self.json
    }

    /// The positions of the document's nodes in id order, as the graph
    /// revision lists them: an edit finds its nodes by binary search here
    /// ([`crate::transaction::apply_operations_in_id_order`]).
    pub fn nodes_by_id(&self) -> &[u32] {
        &self.by_id
    }

    /// The document's semantic revision ([`WorkflowDocument::graph_revision`]),
    /// computed the first time it is asked for.
    pub fn graph_revision(&self) -> &Revision {
        self.graph_revision.get_or_init(|| {
            graph_digest(
                &self.edge_tuples,
                self.by_id
                    .iter()
                    .map(|i| &self.json[self.nodes[*i as usize].semantic.clone()]),
                self.schema_version,
            )
        })
    }
}

/// A list's elements copied from the previous JSON in runs: elements that
/// followed each other there are copied with the comma between them, in
/// one piece.
struct Splicer<'a> {
    out: Vec<u8>,
    previous: &'a [u8],
    run: Option<Run>,
}

struct Run {
    previous: Range<usize>,
    last: usize,
    out_start: usize,
}

impl Splicer<'_> {
    /// Element `i` of the list is the previous list's element `j`, whose
    /// bytes were at `range`: how far its bytes move.
    fn copy(&mut self, i: usize, j: usize, range: &Range<usize>) -> isize {
        if let Some(run) = &mut self.run
            && run.last + 1 == j
        {
            run.previous.end = range.end;
            run.last = j;
            return run.out_start as isize - run.previous.start as isize;
        }
        self.flush();
        if i > 0 {
            self.out.push(b',');
        }
        let out_start = self.out.len();
        self.run = Some(Run {
            previous: range.clone(),
            last: j,
            out_start,
        });
        out_start as isize - range.start as isize
    }

    /// Element `i` is written afresh: the buffer to write it to.
    fn fresh(&mut self, i: usize) -> &mut Vec<u8> {
        self.flush();
        if i > 0 {
            self.out.push(b',');
        }
        &mut self.out
    }

    fn flush(&mut self) {
        if let Some(run) = self.run.take() {
            self.out.extend_from_slice(&self.previous[run.previous]);
        }
    }
}

/// `range` moved `by` bytes.
fn shift(range: &Range<usize>, by: isize) -> Range<usize> {
    let at = |offset: usize| {
        offset
            .checked_add_signed(by)
            .expect("a copied range stays in the buffer")
    };
    at(range.start)..at(range.end)
}

fn build(doc: &WorkflowDocument, previous: Option<&CanonicalState>) -> CanonicalState {
    let WorkflowDocument {
        schema_version,
        title,
        nodes,
        edges,
        notes,
        stages,
        variant_origin,
    } = doc;
    let capacity = previous.map_or(512 * (nodes.len() + edges.len()) + 256, |p| {
        p.json.len() + 4096
    });
    let mut splicer = Splicer {
        out: Vec::with_capacity(capacity),
        previous: previous.map_or(&[][..], |p| &p.json[..]),
        run: None,
    };

    splicer.out.extend_from_slice(b"{\"edges\":[");
    let edge_origins = match previous {
        Some(p) => correspond(&p.edges, edges).0,
        None => vec![Origin::New; edges.len()],
    };
    let mut edge_bytes = Vec::with_capacity(edges.len());
    for (i, (edge, origin)) in edges.iter().zip(&edge_origins).enumerate() {
        let whole = match (origin, previous) {
            (Origin::Shared(j), Some(p)) => {
                let before = &p.edges[*j].whole;
                shift(before, splicer.copy(i, *j, before))
            }
            _ => {
                let out = splicer.fresh(i);
                let start = out.len();
                write_canonical_into(&**edge, out);
                start..out.len()
            }
        };
        edge_bytes.push(EdgeBytes {
            edge: edge.clone(),
            whole,
        });
    }
    splicer.flush();

    splicer.out.extend_from_slice(b"],\"nodes\":[");
    let node_origins = match previous {
        Some(p) => correspond(&p.nodes, nodes).0,
        None => vec![Origin::New; nodes.len()],
    };
    let mut node_bytes = Vec::with_capacity(nodes.len());
    let mut ports = PortsSeen::default();
    for (i, (node, origin)) in nodes.iter().zip(&node_origins).enumerate() {
        let (whole, semantic) = match (origin, previous) {
            (Origin::Shared(j), Some(p)) => {
                let before = &p.nodes[*j];
                let by = splicer.copy(i, *j, &before.whole);
                (shift(&before.whole, by), shift(&before.semantic, by))
            }
            _ => {
                let out = splicer.fresh(i);
                let start = out.len();
                let semantic = write_node(node, out, &mut ports);
                (start..out.len(), semantic)
            }
        };
        node_bytes.push(NodeBytes {
            node: node.clone(),
            whole,
            semantic,
        });
    }
    splicer.flush();
    let mut out = splicer.out;

    out.extend_from_slice(b"],\"notes\":");
    write_canonical_into(notes, &mut out);
    out.extend_from_slice(b",\"schema_version\":");
    write_canonical_into(schema_version, &mut out);
    out.extend_from_slice(b",\"stages\":");
    write_canonical_into(stages, &mut out);
    out.extend_from_slice(b",\"title\":");
    write_canonical_into(title, &mut out);
    let origin = variant_origin.as_ref().map(|origin| {
        out.extend_from_slice(b",\"variant_origin\":");
        let start = out.len();
        match previous.and_then(|p| p.origin.as_ref()) {
            Some((before, range)) if Arc::ptr_eq(before, origin) => {
                let previous = previous.expect("an origin comes from a previous state");
                out.extend_from_slice(&previous.json[range.clone()]);
            }
            _ => write_canonical_into(&**origin, &mut out),
        }
        (origin.clone(), start..out.len())
    });
    out.push(b'}');

    // The graph revision: its edge list is kept while the edges are, and
    // the id order while every node keeps its place and id.
    let same_edges = previous.is_some_and(|p| {
        p.edges.len() == edges.len()
            && edge_origins
                .iter()
                .enumerate()
                .all(|(i, o)| *o == Origin::Shared(i))
    });
    let edge_tuples = match previous {
        Some(p) if same_edges => p.edge_tuples.clone(),
        _ => edge_tuples(edges),
    };
    let same_ids = previous.is_some_and(|p| {
        p.nodes.len() == nodes.len()
            && node_origins
                .iter()
                .enumerate()
                .all(|(i, o)| matches!(o, Origin::Shared(j) | Origin::Changed(j) if *j == i))
    });
    let by_id = match previous {
        Some(p) if same_ids => p.by_id.clone(),
        _ => {
            let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
            order.sort_by(|a, b| nodes[*a as usize].id.cmp(&nodes[*b as usize].id));
            order
        }
    };
    CanonicalState {
        json: Bytes::from(out),
        graph_revision: OnceLock::new(),
        schema_version: *schema_version,
        nodes: node_bytes,
        edges: edge_bytes,
        by_id,
        edge_tuples,
        origin,
    }
}

/// The canonical JSON of a whole document (see [`WorkflowDocument::canonical_json`]).
pub(crate) fn document_json(doc: &WorkflowDocument) -> Vec<u8> {
    CanonicalState::of(doc).json.to_vec()
}

/// Writes `node`'s canonical object and returns where its semantic members
/// lie. Its keys in byte order: `color`, `id`, `operator_id`,
/// `operator_revision`, `params`, `pinned_inputs`, `ports`,
/// `process_environments`, `replacements`, `source`, `x`,
/// `y`, the optional ones only when set, as the node serializes.
fn write_node<'d>(node: &'d Node, out: &mut Vec<u8>, ports: &mut PortsSeen<'d>) -> Range<usize> {
    let Node {
        id: _,
        operator_id: _,
        operator_revision: _,
        ports: _,
        params: _,
        replacements: _,
        process_environments: _,
        pinned_inputs: _,
        x,
        y,
        color,
        source,
    } = node;
    out.push(b'{');
    if let Some(color) = color {
        out.extend_from_slice(b"\"color\":");
        write_canonical_into(color, out);
        out.push(b',');
    }
    let start = out.len();
    write_semantic(node, out, ports);
    let semantic = start..out.len();
    if let Some(source) = source {
        out.extend_from_slice(b",\"source\":");
        write_canonical_into(&**source, out);
    }
    out.extend_from_slice(b",\"x\":");
    write_canonical_into(x, out);
    out.extend_from_slice(b",\"y\":");
    write_canonical_into(y, out);
    out.push(b'}');
    semantic
}

/// Writes the members of `node` the graph revision counts, without braces:
/// `"id"`, `"operator_id"`, `"operator_revision"`, `"params"`, `"ports"`
/// and, only when there are any, `"pinned_inputs"`,
/// `"process_environments"` and `"replacements"`, in byte order.
pub(crate) fn write_semantic<'d>(node: &'d Node, out: &mut Vec<u8>, ports: &mut PortsSeen<'d>) {
    out.extend_from_slice(b"\"id\":");
    write_canonical_into(&node.id, out);
    out.extend_from_slice(b",\"operator_id\":");
    write_canonical_into(&node.operator_id, out);
    out.extend_from_slice(b",\"operator_revision\":");
    write_canonical_into(&node.operator_revision, out);
    out.extend_from_slice(b",\"params\":");
    write_canonical_into(&node.params, out);
    // A source node's choices change what runs; a node without any keeps
    // the revision it always had.
    if !node.pinned_inputs.is_empty() {
        out.extend_from_slice(b",\"pinned_inputs\":");
        write_canonical_into(&node.pinned_inputs, out);
    }
    out.extend_from_slice(b",\"ports\":");
    ports.write(node, out);
    if !node.process_environments.is_empty() {
        out.extend_from_slice(b",\"process_environments\":");
        write_canonical_into(&node.process_environments, out);
    }
    // Replacements change what a source node stands for, likewise.
    if !node.replacements.is_empty() {
        out.extend_from_slice(b",\"replacements\":");
        write_canonical_into(&node.replacements, out);
    }
}

/// The graph revision's sorted edge tuples.
pub(crate) fn edge_tuples(edges: &[Arc<Edge>]) -> Vec<u8> {
    let mut tuples: Vec<(&str, &str, &str, &str)> = edges
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
    tuples.sort();
    let mut out = Vec::with_capacity(48 * tuples.len() + 2);
    write_canonical_into(&tuples, &mut out);
    out
}

/// The graph revision from its parts: `{"edges": …, "nodes": [{…}, …],
/// "schema_version": …}`, keys in byte order, each node's semantic members
/// in id order.
pub(crate) fn graph_digest<'b>(
    edge_tuples: &[u8],
    semantic_in_id_order: impl ExactSizeIterator<Item = &'b [u8]> + Clone,
    schema_version: u32,
) -> Revision {
    let len = semantic_in_id_order
        .clone()
        .map(|s| s.len() + 3)
        .sum::<usize>();
    let mut out = Vec::with_capacity(edge_tuples.len() + len + 64);
    out.extend_from_slice(b"{\"edges\":");
    out.extend_from_slice(edge_tuples);
    out.extend_from_slice(b",\"nodes\":[");
    for (i, semantic) in semantic_in_id_order.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'{');
        out.extend_from_slice(semantic);
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"schema_version\":");
    write_canonical_into(&schema_version, &mut out);
    out.push(b'}');
    digest_bytes(&out)
}

/// The canonical port contracts already written to one buffer, by operator
/// revision: the nodes pinning one revision almost always pin the same
/// ports, which are then written once and copied.
#[derive(Default)]
pub(crate) struct PortsSeen<'d> {
    seen: HashMap<(&'d str, &'d str), (&'d Ports, Range<usize>)>,
}

impl<'d> PortsSeen<'d> {
    fn write(&mut self, node: &'d Node, out: &mut Vec<u8>) {
        let key = (node.operator_id.as_str(), node.operator_revision.as_str());
        match self.seen.get(&key) {
            Some((ports, range)) if **ports == node.ports => {
                let range = range.clone();
                out.extend_from_within(range);
            }
            _ => {
                let start = out.len();
                write_canonical_into(&node.ports, out);
                self.seen.insert(key, (&node.ports, start..out.len()));
            }
        }
    }
}
