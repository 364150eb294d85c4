//! A finished validation, written down as an evidence receipt.
//!
//! The receipt says what was checked (the graph revision and the closure
//! observed in the launch directory), with what (the configuration and
//! fixture digests), by whom (the verifier and its command), and what
//! happened to every node and edge, with the digests of the artifacts and
//! logs the run left. Its verdict is deliberately narrow: `passed` only when
//! the command succeeded and every tool node is seen done or cached in the
//! trace; a run that succeeded but left a node unobserved is
//! `inconclusive`, never `passed`.
//!
//! A source pipeline is validated by Nextflow's `-preview` of its frozen
//! package instead, a narrower claim: its receipt carries
//! [`SourcePreview`] (the pinned commit and tree digest, and in words what
//! a pass does and does not prove), `passed` means the preview succeeded,
//! and its node is `not_run`, because no task ran.

use crate::limits::MAX_RECEIPT_ARTIFACTS;
use crate::status::NodeState;
use crate::trace::{Ending, NodeTasks};
use somite_project::evidence::{
    DigestedFile, EdgeResult, FixtureBinding, ItemResult, NodeResult, RECEIPT_SCHEMA,
    RECEIPT_SCHEMA_VERSION, Receipt, ReceiptConfiguration, ReceiptResult, ReceiptSubject,
    SourcePreview, UnexercisedNode, Verifier,
};
use somite_workflow::Revision;
use somite_workflow::compile::{ClosureSource, NodeMap, TRACE_FILE};
use somite_workflow::graph::Edge;
use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io;
use std::path::Path;

/// Everything a receipt is made from.
pub struct ValidationRecord<'a> {
    pub run_id: &'a str,
    pub graph_revision: &'a Revision,
    pub closure_digest: &'a Revision,
    pub configuration: ReceiptConfiguration,
    pub fixtures: Vec<FixtureBinding>,
    pub unexercised: Vec<UnexercisedNode>,
    /// The command, with paths relative to the launch directory.
    pub command: Vec<String>,
    pub exit_code: Option<i32>,
    pub ending: Ending,
    /// Why the run failed, when it did.
    pub failure: Option<String>,
    pub node_map: &'a NodeMap,
    pub states: &'a BTreeMap<String, NodeState>,
    pub tasks: &'a BTreeMap<String, NodeTasks>,
    pub edges: &'a [Edge],
    pub launch_dir: &'a Path,
    pub outdir: &'a str,
    /// Logs captured outside the launch directory (stdout, stderr).
    pub captured_logs: Vec<DigestedFile>,
    pub recorded_at: String,
    /// Set when the validation was the `-preview` of a source pipeline.
    pub source_preview: Option<SourcePreview>,
}

/// What a passing `-preview` shows.
pub const PREVIEW_PROVES: &str = "the pinned pipeline parses and its DAG resolves: Nextflow \
    compiled the frozen package's pipeline with these parameters and its configuration, and \
    wired its processes and channels (`nextflow run -preview`, offline)";
/// What a passing `-preview` does not show.
pub const PREVIEW_DOES_NOT_PROVE: &str = "no task ran: no process environment was installed \
    or used, no tool was executed, no input was read by a process, and no output was produced \
    or checked";

/// The preview evidence of the pinned source `source` of a run closure.
pub fn source_preview(source: &ClosureSource) -> SourcePreview {
    SourcePreview {
        repository: source.repository.clone(),
        commit: source.commit.clone(),
        tree_digest: source.tree_digest.clone(),
        proves: PREVIEW_PROVES.into(),
        does_not_prove: PREVIEW_DOES_NOT_PROVE.into(),
    }
}

/// The unsealed receipt of a validation; [`somite_project::evidence::record`]
/// seals and stores it.
pub fn build(record: ValidationRecord<'_>) -> Receipt {
    let item = |state: Option<&NodeState>| match state {
        Some(s) if s.succeeded() => ItemResult::Passed,
        Some(NodeState::Failed) => ItemResult::Failed,
        _ => ItemResult::NotRun,
    };
    let nodes: Vec<NodeResult> = record
        .node_map
        .nodes
        .iter()
        .map(|n| {
            let state = record.states.get(&n.node_id);
            let task = record
                .tasks
                .get(&n.node_id)
                .and_then(NodeTasks::deciding_task);
            NodeResult {
                node_id: n.node_id.clone(),
                state: state.map_or("queued", |s| s.name()).to_owned(),
                result: item(state),
                exit: task.and_then(|t| t.exit),
                task_hash: task.and_then(|t| t.hash.clone()),
            }
        })
        .collect();
    let edges = record
        .edges
        .iter()
        .map(|e| {
            let from = item(record.states.get(&e.from_node));
            let to = item(record.states.get(&e.to_node));
            let result = match (from, to) {
                (ItemResult::Passed, ItemResult::Passed) => ItemResult::Passed,
                (ItemResult::Failed, _) | (_, ItemResult::Failed) => ItemResult::Failed,
                _ => ItemResult::NotRun,
            };
            EdgeResult {
                edge_id: e.id.clone(),
                from_node: e.from_node.clone(),
                from_port: e.from_port.clone(),
                to_node: e.to_node.clone(),
                to_port: e.to_port.clone(),
                result,
            }
        })
        .collect();

    let unobserved: Vec<&str> = record
        .node_map
        .nodes
        .iter()
        .filter(|n| n.process.is_some())
        .filter(|n| !record.states.get(&n.node_id).is_some_and(|s| s.succeeded()))
        .map(|n| n.node_id.as_str())
        .collect();
    let (result, reason) = match record.ending {
        Ending::Failed | Ending::Cancelled => (
            ReceiptResult::Failed,
            Some(
                record
                    .failure
                    .unwrap_or_else(|| "the validation run did not succeed".into()),
            ),
        ),
        // A preview runs no task: its claim is the command's success alone.
        Ending::Succeeded if unobserved.is_empty() || record.source_preview.is_some() => {
            (ReceiptResult::Passed, None)
        }
        Ending::Succeeded => (
            ReceiptResult::Inconclusive,
            Some(format!(
                "the run succeeded but the trace shows no finished task for {}",
                unobserved.join(", ")
            )),
        ),
    };

    let (artifacts, listed_all) =
        digest_tree(&record.launch_dir.join(record.outdir), record.launch_dir);
    let reason = if listed_all {
        reason
    } else {
        Some(format!(
            "{}only the first {MAX_RECEIPT_ARTIFACTS} artifacts are listed",
            reason.map(|r| format!("{r}; ")).unwrap_or_default()
        ))
    };
    let mut logs = Vec::new();
    for name in [TRACE_FILE, ".nextflow.log"] {
        if let Some(file) = digest_file(&record.launch_dir.join(name), name) {
            logs.push(file);
        }
    }
    logs.extend(record.captured_logs);

    Receipt {
        schema: RECEIPT_SCHEMA.into(),
        schema_version: RECEIPT_SCHEMA_VERSION,
        digest: String::new(),
        recorded_at: record.recorded_at,
        run_id: record.run_id.to_owned(),
        subject: ReceiptSubject {
            graph_revision: record.graph_revision.clone(),
        },
        closure_digest: record.closure_digest.clone(),
        configuration: record.configuration,
        fixtures: record.fixtures,
        unexercised: record.unexercised,
        verifier: Verifier {
            name: "somite-runner".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            command: record.command,
        },
        result,
        reason,
        exit_code: record.exit_code,
        nodes,
        edges,
        artifacts,
        logs,
        source_preview: record.source_preview,
    }
}

/// Every regular file under `dir` (symbolic links are not followed), by
/// path relative to `base`, in path order, at most
/// [`MAX_RECEIPT_ARTIFACTS`]; and whether that was all of them.
fn digest_tree(dir: &Path, base: &Path) -> (Vec<DigestedFile>, bool) {
    let mut paths = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let Ok(entries) = fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                paths.push(entry.path());
            }
        }
    }
    paths.sort();
    let listed_all = paths.len() <= MAX_RECEIPT_ARTIFACTS;
    let files = paths
        .iter()
        .take(MAX_RECEIPT_ARTIFACTS)
        .filter_map(|path| {
            let relative = path.strip_prefix(base).unwrap_or(path);
            digest_file(path, &relative.to_string_lossy())
        })
        .collect();
    (files, listed_all)
}

/// The size and BLAKE3 of one file, streamed; `None` when it cannot be read.
pub fn digest_file(path: &Path, shown_as: &str) -> Option<DigestedFile> {
    let mut file = File::open(path).ok()?;
    let mut hasher = blake3::Hasher::new();
    let bytes = io::copy(&mut file, &mut hasher).ok()?;
    Some(DigestedFile {
        path: shown_as.to_owned(),
        bytes,
        digest: format!("blake3:{}", hasher.finalize().to_hex()),
    })
}
