//! The package's JSON records and its README.
//!
//! These describe the package to the runner, to a reviewer and to whoever
//! opens an export years later: which node became which process
//! (`node-map.json`), the default run parameters (`params.json`), the
//! semantic graph (`workflow.somite.json`), the readiness it passed
//! (`assessment.json`) and the contracts it ran (`operators/<id>.json`).

use super::config::PROFILES;
use super::plan::Plan;
use super::{DEFAULT_OUTDIR, TRACE_FILE, conda_spec_path};
use crate::assessment::Assessment;
use crate::graph::{Node, WorkflowDocument};
use crate::operator::OperatorKind;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

/// The title every packaged graph carries: the real title is presentation
/// and stays in the project, so renaming a workflow cannot change a package.
pub const PACKAGED_TITLE: &str = "Compiled workflow";

/// `node-map.json`: graph node id <-> Nextflow process name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeMap {
    pub graph_revision: String,
    /// Every node, by id.
    pub nodes: Vec<NodeMapEntry>,
    /// Process name -> node id, for reading Nextflow's trace.
    pub processes: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeMapEntry {
    pub node_id: String,
    pub operator_id: String,
    pub kind: OperatorKind,
    /// The process of an external node, whose tasks the trace names
    /// `PROCESS (node_id)`; `null` for graph inputs.
    pub process: Option<String>,
    /// Where the node's outputs are published, under `outdir`.
    pub publish_dir: Option<String>,
    /// A tool node a validation package stands in for with fixtures: it
    /// has no process and its outputs are input paths (absent otherwise).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub substituted: bool,
}

pub(crate) fn node_map(plan: &Plan<'_>) -> NodeMap {
    let nodes = plan
        .nodes
        .iter()
        .map(|n| NodeMapEntry {
            node_id: n.node.id.clone(),
            operator_id: n.node.operator_id.clone(),
            kind: n.entry.contract.kind,
            process: n.process.clone(),
            publish_dir: n.process.as_ref().map(|_| n.node.id.clone()),
            substituted: n.substituted,
        })
        .collect();
    let processes = plan
        .processes
        .iter()
        .map(|p| (p.name.clone(), p.node_id.to_owned()))
        .collect();
    NodeMap {
        graph_revision: plan.graph_revision.clone(),
        nodes,
        processes,
    }
}

/// `params.json`: `{inputs, outdir, values}`, the same defaults as
/// nextflow.config, for `-params-file`.
pub(crate) fn params_json(plan: &Plan<'_>) -> Value {
    json!({
        "inputs": plan.input_paths(),
        "outdir": DEFAULT_OUTDIR,
        "values": plan.parameter_values(),
    })
}

/// `workflow.somite.json`: the graph without its presentation. The title,
/// notes, stages and colours are left out and the nodes are laid out in
/// columns by depth, so the file is a loadable document that depends only on
/// what the graph computes.
pub(crate) fn semantic_document(doc: &WorkflowDocument, order: &[String]) -> WorkflowDocument {
    const COLUMN: f64 = 320.0;
    const ROW: f64 = 180.0;
    let mut predecessors: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for e in &doc.edges {
        predecessors
            .entry(e.to_node.as_str())
            .or_default()
            .push(e.from_node.as_str());
    }
    let mut depth: BTreeMap<&str, usize> = BTreeMap::new();
    for id in order {
        let d = predecessors
            .get(id.as_str())
            .into_iter()
            .flatten()
            .filter_map(|from| depth.get(from))
            .map(|d| d + 1)
            .max()
            .unwrap_or(0);
        depth.insert(id, d);
    }
    let mut rows: BTreeMap<usize, usize> = BTreeMap::new();
    let mut positions: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for id in order {
        let column = depth[id.as_str()];
        let row = rows.entry(column).or_default();
        positions.insert(id, (column as f64 * COLUMN, *row as f64 * ROW));
        *row += 1;
    }
    let mut nodes: Vec<Arc<Node>> = doc
        .nodes
        .iter()
        .map(|n| {
            let (x, y) = positions[n.id.as_str()];
            Arc::new(Node {
                x,
                y,
                color: None,
                ..Node::clone(n)
            })
        })
        .collect();
    nodes.sort_by(|a, b| a.id.cmp(&b.id));
    let mut edges = doc.edges.clone();
    edges.sort_by(|a, b| a.id.cmp(&b.id));
    WorkflowDocument {
        schema_version: doc.schema_version,
        title: PACKAGED_TITLE.to_owned(),
        nodes,
        edges,
        notes: Vec::new(),
        stages: Vec::new(),
        variant_origin: None,
    }
}

/// `assessment.json`: the readiness that let the compile through, without
/// the catalog revision, so adding an unrelated contract to the catalog does
/// not change every package (the contracts used are in `operators/`).
pub(crate) fn packaged_assessment(assessment: &Assessment) -> Value {
    let mut value = serde_json::to_value(assessment).expect("assessments serialize");
    if let Value::Object(map) = &mut value {
        map.remove("catalog_revision");
    }
    value
}

/// `README.md`: what the package is and how to run it.
pub(crate) fn readme(plan: &Plan<'_>) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "# Somite compiled workflow\n\n\
         Frozen from graph revision `{}`. Every file here is listed, with its\n\
         size, mode and BLAKE3 digest, in the manifest the package digest is\n\
         made from; `run-closure.json` records the operators, the Pixi manifest\n\
         and lock, and the Nextflow and Java versions it targets.\n\n\
         ## Run it\n\n\
         ```console\n\
         pixi run --frozen run            # local executor\n\
         pixi run --frozen run slurm      # or: {}\n\
         ```\n\n\
         Without a `pixi.lock` (Pixi was not available when the package was\n\
         compiled), run `pixi lock` once first. Inputs and parameters come from\n\
         `params.json`; relative input paths resolve against the directory\n\
         Nextflow is launched from. Outputs are published under `{DEFAULT_OUTDIR}/<node>/`,\n\
         and Nextflow's trace is written to `{TRACE_FILE}`.\n\n\
         For the cloud profiles, `pixi run --frozen export-conda-specs` writes the\n\
         conda explicit locks (`{}`) that Wave builds each task's container from.\n\n\
         ## Inputs\n\n\
         | node | parameter | path |\n\
         | --- | --- | --- |\n",
        plan.graph_revision,
        PROFILES[1..].join(", "),
        conda_spec_path("<environment>"),
    );
    for (node, paths) in plan.input_paths() {
        for (param, path) in paths {
            let _ = writeln!(out, "| {node} | {param} | `{}` |", markdown_cell(path));
        }
    }
    out.push_str(
        "\n## Processes\n\n\
         | node | process | operator | Pixi environment |\n\
         | --- | --- | --- | --- |\n",
    );
    for p in &plan.processes {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} | {} |",
            p.node_id, p.name, p.operator.id, p.environment
        );
    }
    out
}

/// Text that cannot break a Markdown table cell or its code span.
fn markdown_cell(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '|' | '`' => '?',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}
