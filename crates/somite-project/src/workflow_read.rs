//! Bounded, navigable reads of the workflow: what `somite.workflow.get` and
//! `GET /api/workflow/read` answer.
//!
//! The whole document of a real graph outgrows what an agent can read in one
//! tool result (Claude Code refuses an answer over 25,000 tokens; a
//! 2,000-node graph is about a megabyte). So a read answers, within
//! [`MAX_READ_BYTES`] of JSON whatever the graph's size:
//!
//! - by default a summary page: counts and revisions, one line per node
//!   (`[id, operator_id, readiness]`, each operator's title once) and one
//!   per edge
//!   (`from.port>to.port`), with an opaque cursor for the next page bound to
//!   the state revision it was read at;
//! - for `node_ids`, those nodes in full (or the `fields` asked for), a
//!   source node's binding only when `source` is asked for;
//! - for `since_state_revision`, what changed since a revision the reader has
//!   seen (from the activity feed or an earlier read).
//!
//! Whatever does not fit is left out and the answer says so (`partial`) and
//! how to read the rest (`read_more`). Pure: the caller brings the
//! documents and the assessment.

use crate::views::RevisionHead;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use somite_workflow::assessment::Assessment;
use somite_workflow::graph::WorkflowDocument;
use somite_workflow::{Catalog, ErrorCode, Revision, SomiteError};
use std::collections::{BTreeMap, BTreeSet};

/// The largest answer a read gives, as JSON text (≈16k tokens): well under
/// the 25,000 tokens Claude Code accepts from one tool.
pub const MAX_READ_BYTES: usize = 64 * 1024;
/// Nodes on one summary page at most (≈60 bytes each).
pub const SUMMARY_PAGE_NODES: usize = 400;
/// Nodes read in full in one answer at most.
pub const MAX_NODE_IDS: usize = 64;

/// What to read; everything empty is the first summary page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ReadRequest {
    /// Nodes to read in full.
    pub node_ids: Vec<String>,
    /// The node fields to include for `node_ids` (all but `source` when
    /// empty).
    pub fields: Vec<NodeField>,
    /// The next summary page, from an earlier answer's `next_cursor`.
    pub cursor: Option<String>,
    /// A state revision the reader has seen: answer what changed since.
    pub since_state_revision: Option<String>,
}

/// A field of a node a read may project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum NodeField {
    OperatorRevision,
    Ports,
    Params,
    Position,
    Color,
    /// A source node's pinned pipeline binding (parameters, processes,
    /// invocations): large for real pipelines.
    Source,
    Replacements,
    ProcessEnvironments,
    PinnedInputs,
}

impl NodeField {
    const DEFAULT: [NodeField; 8] = [
        NodeField::OperatorRevision,
        NodeField::Ports,
        NodeField::Params,
        NodeField::Position,
        NodeField::Color,
        NodeField::Replacements,
        NodeField::ProcessEnvironments,
        NodeField::PinnedInputs,
    ];

    /// The document's keys this field reads.
    fn keys(self) -> &'static [&'static str] {
        match self {
            NodeField::OperatorRevision => &["operator_revision"],
            NodeField::Ports => &["ports"],
            NodeField::Params => &["params"],
            NodeField::Position => &["x", "y"],
            NodeField::Color => &["color"],
            NodeField::Source => &["source"],
            NodeField::Replacements => &["replacements"],
            NodeField::ProcessEnvironments => &["process_environments"],
            NodeField::PinnedInputs => &["pinned_inputs"],
        }
    }

    /// `params,ports` as a query writes them.
    pub fn parse_list(text: &str) -> Result<Vec<NodeField>, SomiteError> {
        text.split(',')
            .filter(|f| !f.is_empty())
            .map(|f| {
                serde_json::from_value(Value::String(f.to_owned())).map_err(|_| {
                    SomiteError::new(
                        ErrorCode::InvalidRequest,
                        format!("`{f}` is not a node field"),
                        "use operator_revision, ports, params, position, color, source, replacements, process_environments or pinned_inputs",
                    )
                })
            })
            .collect()
    }
}

/// A node's readiness on the summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum NodeReadiness {
    Ready,
    Blocked,
}

/// One node on the summary: `[id, operator_id, readiness]` (the
/// operator's title is in the answer's `operators`, once per operator).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct NodeLine(pub String, pub String, pub NodeReadiness);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct GraphCounts {
    pub nodes: usize,
    pub edges: usize,
    pub notes: usize,
    /// Nodes readiness blocks.
    pub blocked_nodes: usize,
}

/// What changed between two states.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct WorkflowChanges {
    pub since_state_revision: String,
    pub title_changed: bool,
    pub nodes_added: Vec<String>,
    pub nodes_removed: Vec<String>,
    /// Nodes whose operator, parameters, position or binding changed.
    pub nodes_changed: Vec<String>,
    /// `from.port>to.port`.
    pub edges_added: Vec<String>,
    pub edges_removed: Vec<String>,
    pub notes_changed: bool,
}

/// `somite.workflow.get`'s answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct WorkflowRead {
    #[serde(flatten)]
    pub head: RevisionHead,
    pub catalog_revision: Revision,
    pub title: String,
    pub counts: GraphCounts,
    /// For a native graph promoted from a source workflow: where it came
    /// from and what became of each invocation (the kept source node left
    /// out).
    pub variant_origin: Option<Map<String, Value>>,
    /// The summary page: `[id, operator_id, readiness]` per node, in
    /// document order; empty when nodes or changes were asked for.
    pub nodes: Vec<NodeLine>,
    /// The title of each operator on the page (a node's title is its
    /// operator's), once each.
    pub operators: BTreeMap<String, String>,
    /// `from.port>to.port` for each edge leaving a node on this page (or
    /// touching a node read in full).
    pub edges: Vec<String>,
    /// The nodes `node_ids` asked for, with the fields asked for.
    pub detail: Vec<Map<String, Value>>,
    /// What changed since `since_state_revision`.
    pub changes: Option<WorkflowChanges>,
    /// The next summary page: pass it as `cursor`.
    pub next_cursor: Option<String>,
    /// True when something asked for was left out to stay under the bound.
    pub partial: bool,
    /// How to read what was left out.
    pub read_more: Option<String>,
}

/// Answers `request` on the current state; `since` is the document of
/// `request.since_state_revision` when the caller still holds it.
pub fn read(
    doc: &WorkflowDocument,
    head: RevisionHead,
    catalog: &Catalog,
    assessment: &Assessment,
    request: &ReadRequest,
    since: Option<&WorkflowDocument>,
) -> Result<WorkflowRead, SomiteError> {
    let blocked: BTreeSet<&str> = assessment
        .nodes
        .iter()
        .filter(|n| !n.ready)
        .map(|n| n.node_id.as_str())
        .collect();
    let mut answer = WorkflowRead {
        catalog_revision: catalog.revision().clone(),
        title: doc.title.clone(),
        counts: GraphCounts {
            nodes: doc.nodes.len(),
            edges: doc.edges.len(),
            notes: doc.notes.len(),
            blocked_nodes: blocked.len(),
        },
        variant_origin: doc.variant_origin.as_ref().and_then(|origin| {
            let Value::Object(mut fields) = serde_json::to_value(origin.as_ref()).ok()? else {
                return None;
            };
            fields.remove("source");
            Some(fields)
        }),
        nodes: Vec::new(),
        operators: BTreeMap::new(),
        edges: Vec::new(),
        detail: Vec::new(),
        changes: None,
        next_cursor: None,
        partial: false,
        read_more: None,
        head,
    };
    if let Some(wanted) = &request.since_state_revision {
        let old = since.ok_or_else(|| {
            SomiteError::new(
                ErrorCode::NotFound,
                format!("the state revision `{wanted}` is not among the recent ones Somite keeps"),
                "read afresh: somite.workflow.get without since_state_revision",
            )
        })?;
        answer.changes = Some(changes(wanted, old, doc));
        return Ok(bounded_changes(answer));
    }
    if !request.node_ids.is_empty() {
        return detail(doc, request, answer);
    }
    let start = match &request.cursor {
        Some(cursor) => decode_cursor(cursor, answer.head.state_revision.as_str())?,
        None => 0,
    };
    let mut page = SUMMARY_PAGE_NODES;
    loop {
        let end = (start + page).min(doc.nodes.len());
        let on_page = &doc.nodes[start.min(end)..end];
        let ids: BTreeSet<&str> = on_page.iter().map(|n| n.id.as_str()).collect();
        answer.nodes = on_page
            .iter()
            .map(|n| {
                NodeLine(
                    n.id.clone(),
                    n.operator_id.clone(),
                    if blocked.contains(n.id.as_str()) {
                        NodeReadiness::Blocked
                    } else {
                        NodeReadiness::Ready
                    },
                )
            })
            .collect();
        answer.operators = on_page
            .iter()
            .map(|n| {
                let title = catalog
                    .get(&n.operator_id)
                    .map(|e| e.contract.title.clone())
                    .unwrap_or_default();
                (n.operator_id.clone(), title)
            })
            .collect();
        answer.edges = doc
            .edges
            .iter()
            .filter(|e| ids.contains(e.from_node.as_str()))
            .map(|e| edge_line(e))
            .collect();
        answer.next_cursor = (end < doc.nodes.len())
            .then(|| encode_cursor(end, answer.head.state_revision.as_str()));
        answer.read_more = answer.next_cursor.as_ref().map(|_| {
            format!(
                "nodes {start}–{end} of {}: pass next_cursor as cursor for the rest; node_ids reads nodes in full",
                doc.nodes.len()
            )
        });
        if size(&answer) <= MAX_READ_BYTES || page == 1 {
            return Ok(answer);
        }
        page /= 2;
    }
}

fn edge_line(edge: &somite_workflow::graph::Edge) -> String {
    format!(
        "{}.{}>{}.{}",
        edge.from_node, edge.from_port, edge.to_node, edge.to_port
    )
}

/// The bytes of `answer` as JSON.
fn size(answer: &impl Serialize) -> usize {
    serde_json::to_vec(answer).map_or(usize::MAX, |b| b.len())
}

/// Refuses more than [`MAX_NODE_IDS`] ids in one read.
fn check_node_ids(ids: &[String]) -> Result<(), SomiteError> {
    if ids.len() > MAX_NODE_IDS {
        return Err(SomiteError::new(
            ErrorCode::InvalidRequest,
            format!(
                "{} node ids; a read takes at most {MAX_NODE_IDS}",
                ids.len()
            ),
            "read the nodes in smaller groups",
        ));
    }
    Ok(())
}

/// The nodes `node_ids` names, projected, as many as fit.
fn detail(
    doc: &WorkflowDocument,
    request: &ReadRequest,
    mut answer: WorkflowRead,
) -> Result<WorkflowRead, SomiteError> {
    check_node_ids(&request.node_ids)?;
    let fields: BTreeSet<NodeField> = if request.fields.is_empty() {
        NodeField::DEFAULT.into_iter().collect()
    } else {
        request.fields.iter().copied().collect()
    };
    let by_id: BTreeMap<&str, _> = doc.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let mut left_out = Vec::new();
    for id in &request.node_ids {
        let node = by_id.get(id.as_str()).ok_or_else(|| {
            SomiteError::new(
                ErrorCode::NotFound,
                format!("no node `{id}` in the workflow"),
                "read the summary (somite.workflow.get without node_ids) for the node ids",
            )
        })?;
        let full = serde_json::to_value(node.as_ref()).expect("nodes serialize");
        let mut projected = Map::new();
        projected.insert("id".into(), Value::String(node.id.clone()));
        projected.insert(
            "operator_id".into(),
            Value::String(node.operator_id.clone()),
        );
        for field in &fields {
            for key in field.keys() {
                if let Some(value) = full.get(*key) {
                    projected.insert((*key).to_owned(), value.clone());
                }
            }
        }
        answer.detail.push(projected);
        if size(&answer) > MAX_READ_BYTES {
            answer.detail.pop();
            left_out.push(id.clone());
        }
    }
    let read: BTreeSet<&str> = answer
        .detail
        .iter()
        .filter_map(|n| n.get("id").and_then(Value::as_str))
        .collect();
    answer.edges = doc
        .edges
        .iter()
        .filter(|e| read.contains(e.from_node.as_str()) || read.contains(e.to_node.as_str()))
        .map(|e| edge_line(e))
        .collect();
    while size(&answer) > MAX_READ_BYTES && answer.edges.pop().is_some() {
        answer.partial = true;
    }
    if !left_out.is_empty() {
        answer.partial = true;
        answer.read_more = Some(format!(
            "left out to stay under {MAX_READ_BYTES} bytes: {}; read them alone, or with fewer fields (a source node's `source` is large: GET /api/source/nodes/{{id}}/outline pages nothing but is the full binding)",
            left_out.join(", ")
        ));
    }
    Ok(answer)
}

/// What changed from `old` to `new`.
pub fn changes(since: &str, old: &WorkflowDocument, new: &WorkflowDocument) -> WorkflowChanges {
    let before: BTreeMap<&str, _> = old.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let after: BTreeMap<&str, _> = new.nodes.iter().map(|n| (n.id.as_str(), n)).collect();
    let edges_before: BTreeSet<String> = old.edges.iter().map(|e| edge_line(e)).collect();
    let edges_after: BTreeSet<String> = new.edges.iter().map(|e| edge_line(e)).collect();
    WorkflowChanges {
        since_state_revision: since.to_owned(),
        title_changed: old.title != new.title,
        nodes_added: after
            .keys()
            .filter(|id| !before.contains_key(*id))
            .map(|id| (*id).to_owned())
            .collect(),
        nodes_removed: before
            .keys()
            .filter(|id| !after.contains_key(*id))
            .map(|id| (*id).to_owned())
            .collect(),
        nodes_changed: after
            .iter()
            .filter(|(id, node)| before.get(*id).is_some_and(|old| old != *node))
            .map(|(id, _)| (*id).to_owned())
            .collect(),
        edges_added: edges_after.difference(&edges_before).cloned().collect(),
        edges_removed: edges_before.difference(&edges_after).cloned().collect(),
        notes_changed: old.notes != new.notes,
    }
}

/// Changes cut to the bound: a reader told that much changed reads afresh.
fn bounded_changes(mut answer: WorkflowRead) -> WorkflowRead {
    if size(&answer) <= MAX_READ_BYTES {
        return answer;
    }
    if let Some(changes) = answer.changes.as_mut() {
        for list in [
            &mut changes.edges_added,
            &mut changes.edges_removed,
            &mut changes.nodes_changed,
            &mut changes.nodes_added,
            &mut changes.nodes_removed,
        ] {
            list.clear();
        }
    }
    answer.partial = true;
    answer.read_more = Some(
        "more changed than one answer holds: read afresh (somite.workflow.get without since_state_revision)"
            .into(),
    );
    answer
}

fn encode_cursor(offset: usize, state_revision: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{offset}@{state_revision}"))
}

fn decode_cursor(cursor: &str, state_revision: &str) -> Result<usize, SomiteError> {
    let invalid = |why: &str| {
        SomiteError::new(
            ErrorCode::InvalidRequest,
            format!("the cursor {why}"),
            "read the summary again without cursor and page from its next_cursor",
        )
    };
    let text = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| invalid("is not one Somite gave"))?;
    let (offset, revision) = text
        .split_once('@')
        .ok_or_else(|| invalid("is not one Somite gave"))?;
    if revision != state_revision {
        return Err(invalid("belongs to an earlier state of the workflow"));
    }
    offset
        .parse()
        .map_err(|_| invalid("is not one Somite gave"))
}

/// Requirements on one readiness page at most.
pub const READINESS_PAGE_ITEMS: usize = 100;

/// What to read of readiness; everything empty is the first page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct ReadinessRequest {
    /// Only the requirements and node assessments of these nodes.
    pub node_ids: Vec<String>,
    pub cursor: Option<String>,
}

/// `somite.readiness.get`'s answer: the assessment with one page of its
/// requirements (in priority order) and the assessments of the nodes they
/// name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct ReadinessRead {
    #[serde(flatten)]
    pub assessment: Assessment,
    /// Requirements in the whole assessment (of the nodes asked for).
    pub total_items: usize,
    pub next_cursor: Option<String>,
    pub partial: bool,
    pub read_more: Option<String>,
}

/// One bounded page of `assessment`, read at `state_revision`.
pub fn readiness(
    mut assessment: Assessment,
    state_revision: &str,
    request: &ReadinessRequest,
) -> Result<ReadinessRead, SomiteError> {
    check_node_ids(&request.node_ids)?;
    let wanted: BTreeSet<&str> = request.node_ids.iter().map(String::as_str).collect();
    let mut items = std::mem::take(&mut assessment.items);
    let mut nodes = std::mem::take(&mut assessment.nodes);
    if !wanted.is_empty() {
        items.retain(|i| i.node_id.as_deref().is_some_and(|n| wanted.contains(n)));
        nodes.retain(|n| wanted.contains(n.node_id.as_str()));
    }
    let total_items = items.len();
    let start = match &request.cursor {
        Some(cursor) => decode_cursor(cursor, state_revision)?,
        None => 0,
    };
    let mut page = READINESS_PAGE_ITEMS;
    loop {
        let end = (start + page).min(items.len());
        let on_page = &items[start.min(end)..end];
        let named: BTreeSet<&str> = on_page
            .iter()
            .filter_map(|i| i.node_id.as_deref())
            .collect();
        let mut answer = ReadinessRead {
            assessment: Assessment {
                items: on_page.to_vec(),
                nodes: nodes
                    .iter()
                    .filter(|n| !wanted.is_empty() || named.contains(n.node_id.as_str()))
                    .cloned()
                    .collect(),
                ..assessment.clone()
            },
            total_items,
            next_cursor: (end < items.len()).then(|| encode_cursor(end, state_revision)),
            partial: false,
            read_more: None,
        };
        answer.read_more = answer.next_cursor.as_ref().map(|_| {
            format!("requirements {start}–{end} of {total_items}: pass next_cursor as cursor for the rest, or node_ids for one node's")
        });
        let fits = size(&answer) <= MAX_READ_BYTES;
        if fits {
            return Ok(answer);
        }
        if page == 1 {
            // One requirement or the nodes asked for outgrow the bound:
            // their node assessments go first.
            answer.assessment.nodes.clear();
            answer.partial = true;
            answer.read_more = Some(
                "the node assessments were left out to stay under the bound; ask for fewer node_ids".into(),
            );
            return Ok(answer);
        }
        page /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_only_at_its_own_state() {
        let cursor = encode_cursor(400, "blake3:aa");
        assert_eq!(decode_cursor(&cursor, "blake3:aa").unwrap(), 400);
        for (cursor, state) in [
            (cursor.as_str(), "blake3:bb"),
            ("not base64!", "blake3:aa"),
            ("eHl6", "blake3:aa"),
        ] {
            let refused = decode_cursor(cursor, state).unwrap_err();
            assert_eq!(refused.code, ErrorCode::InvalidRequest, "{cursor}");
        }
    }

    #[test]
    fn the_fields_a_query_names_parse_and_an_unknown_one_is_refused() {
        assert_eq!(
            NodeField::parse_list("params,source,pinned_inputs").unwrap(),
            [
                NodeField::Params,
                NodeField::Source,
                NodeField::PinnedInputs
            ]
        );
        assert!(NodeField::parse_list("").unwrap().is_empty());
        assert_eq!(
            NodeField::parse_list("params,secrets").unwrap_err().code,
            ErrorCode::InvalidRequest
        );
    }
}
