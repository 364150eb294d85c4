//! Progress from Nextflow's trace file.
//!
//! The compiled `nextflow.config` turns the trace on (`trace.tsv`, the
//! fields of [`TRACE_FIELDS`](somite_workflow::compile::TRACE_FIELDS)):
//! a header row, then one tab-separated row per task event, flushed as it
//! happens. A task is named `PROCESS (tag)`; `node-map.json` maps the
//! process back to its graph node. Reading the trace, rather than parsing
//! Nextflow's console, gives node states that mean the same thing on every
//! executor profile.
//!
//! The file is re-read whole on every poll (it is small, and Nextflow may
//! rewrite it); a last line without its newline is still being written and
//! is left for the next poll.

use crate::status::{NodeState, Progress};
use somite_workflow::compile::NodeMap;
use std::collections::BTreeMap;

/// A task status as Nextflow writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Submitted,
    Running,
    Completed,
    Cached,
    Failed,
    Aborted,
}

impl TaskStatus {
    pub fn parse(text: &str) -> Option<TaskStatus> {
        Some(match text {
            "SUBMITTED" => TaskStatus::Submitted,
            "RUNNING" => TaskStatus::Running,
            "COMPLETED" => TaskStatus::Completed,
            "CACHED" => TaskStatus::Cached,
            "FAILED" => TaskStatus::Failed,
            "ABORTED" => TaskStatus::Aborted,
            _ => return None,
        })
    }
}

/// One task event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceRow {
    /// What identifies the task across its rows: `task_id`, else `name`.
    pub task: String,
    /// The Nextflow process the task belongs to.
    pub process: String,
    pub status: TaskStatus,
    pub exit: Option<i32>,
    pub hash: Option<String>,
}

/// Why a trace could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("the trace has no `{0}` column")]
    MissingColumn(&'static str),
}

/// The task events of a trace, in file order. Rows with an unknown status
/// or too few columns are skipped; an empty file has no rows.
pub fn parse(text: &str) -> Result<Vec<TraceRow>, TraceError> {
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => return Ok(Vec::new()),
    };
    let mut lines = complete.lines();
    let Some(header) = lines.next() else {
        return Ok(Vec::new());
    };
    let columns: Vec<&str> = header.split('\t').map(str::trim).collect();
    let column = |name: &str| columns.iter().position(|c| *c == name);
    let name_at = column("name").ok_or(TraceError::MissingColumn("name"))?;
    let status_at = column("status").ok_or(TraceError::MissingColumn("status"))?;
    let exit_at = column("exit");
    let hash_at = column("hash");
    let task_at = column("task_id");
    let process_at = column("process");

    let mut rows = Vec::new();
    for line in lines {
        let cells: Vec<&str> = line.split('\t').collect();
        let cell = |at: Option<usize>| {
            at.and_then(|i| cells.get(i))
                .map(|c| c.trim())
                .filter(|c| !c.is_empty() && *c != "-")
        };
        let (Some(name), Some(status)) = (cell(Some(name_at)), cell(Some(status_at))) else {
            continue;
        };
        let Some(status) = TaskStatus::parse(status) else {
            continue;
        };
        let process = cell(process_at)
            .unwrap_or_else(|| process_of_task_name(name))
            .to_owned();
        rows.push(TraceRow {
            task: cell(task_at).unwrap_or(name).to_owned(),
            process,
            status,
            exit: cell(exit_at).and_then(|e| e.parse().ok()),
            hash: cell(hash_at).map(str::to_owned),
        });
    }
    Ok(rows)
}

/// `TRIM (trim)` → `TRIM`: a task's name is its process and its tag.
pub fn process_of_task_name(name: &str) -> &str {
    match name.find(" (") {
        Some(at) if name.ends_with(')') => &name[..at],
        _ => name,
    }
}

/// The latest event of each task of one node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeTasks {
    pub tasks: BTreeMap<String, TraceRow>,
}

impl NodeTasks {
    /// The node's state from its tasks' latest events, or `None` when the
    /// trace has none yet.
    pub fn state(&self) -> Option<NodeState> {
        if self.tasks.is_empty() {
            return None;
        }
        let has = |status| self.tasks.values().any(|t| t.status == status);
        let all = |f: fn(TaskStatus) -> bool| self.tasks.values().all(|t| f(t.status));
        Some(if has(TaskStatus::Failed) {
            NodeState::Failed
        } else if has(TaskStatus::Aborted) {
            NodeState::Cancelled
        } else if all(|s| s == TaskStatus::Submitted) {
            NodeState::Queued
        } else if has(TaskStatus::Running) || has(TaskStatus::Submitted) {
            NodeState::Running
        } else if all(|s| s == TaskStatus::Cached) {
            NodeState::Cached
        } else {
            NodeState::Done
        })
    }

    /// The exit status and hash of the task that decided the state: the
    /// failed one if any, else the last one.
    pub fn deciding_task(&self) -> Option<&TraceRow> {
        self.tasks
            .values()
            .find(|t| t.status == TaskStatus::Failed)
            .or_else(|| self.tasks.values().last())
    }
}

/// The trace's events grouped by graph node (process nodes only; rows of
/// processes the node map does not know are ignored).
pub fn tasks_by_node(node_map: &NodeMap, rows: &[TraceRow]) -> BTreeMap<String, NodeTasks> {
    let mut by_node: BTreeMap<String, NodeTasks> = BTreeMap::new();
    for row in rows {
        let Some(node_id) = node_map.processes.get(&row.process) else {
            continue;
        };
        by_node
            .entry(node_id.clone())
            .or_default()
            .tasks
            .insert(row.task.clone(), row.clone());
    }
    by_node
}

/// Every node's state while the run is going: tool nodes from the trace
/// (`queued` until their first event), graph inputs `done` once the
/// pipeline has started (their files are bound) and `queued` before.
pub fn live_states(
    node_map: &NodeMap,
    tasks: &BTreeMap<String, NodeTasks>,
    started: bool,
) -> BTreeMap<String, NodeState> {
    node_map
        .nodes
        .iter()
        .map(|node| {
            let state = match &node.process {
                Some(_) => tasks
                    .get(&node.node_id)
                    .and_then(NodeTasks::state)
                    .unwrap_or(NodeState::Queued),
                None if node.substituted => NodeState::Unexercised,
                None if started => NodeState::Done,
                None => NodeState::Queued,
            };
            (node.node_id.clone(), state)
        })
        .collect()
}

/// How a run ended, for settling the nodes that were still open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Succeeded,
    Failed,
    Cancelled,
}

/// Settles every node still queued or running when the run ended: after a
/// cancellation it was `cancelled`; otherwise it never got to run
/// (`skipped`) — or, if it was running when a failure stopped the run,
/// it was cancelled by that stop.
pub fn settle(states: &mut BTreeMap<String, NodeState>, ending: Ending) {
    for state in states.values_mut() {
        *state = match (*state, ending) {
            (NodeState::Queued, Ending::Cancelled) | (NodeState::Running, _) => {
                NodeState::Cancelled
            }
            (NodeState::Queued, _) => NodeState::Skipped,
            (settled, _) => settled,
        };
    }
}

/// The bounded progress of the tool nodes (graph inputs are not work).
pub fn progress(
    node_map: &NodeMap,
    states: &BTreeMap<String, NodeState>,
    headline: &str,
) -> Progress {
    let tools: Vec<(&str, NodeState)> = node_map
        .nodes
        .iter()
        .filter(|n| n.process.is_some())
        .map(|n| {
            let state = states.get(&n.node_id).copied().unwrap_or(NodeState::Queued);
            (n.node_id.as_str(), state)
        })
        .collect();
    let completed = tools.iter().filter(|(_, s)| s.succeeded()).count() as u64;
    let cached = tools
        .iter()
        .filter(|(_, s)| *s == NodeState::Cached)
        .count();
    let named = |wanted: NodeState| -> Vec<&str> {
        tools
            .iter()
            .filter(|(_, s)| *s == wanted)
            .map(|(id, _)| *id)
            .collect()
    };
    let mut message = format!("{headline}: {completed} of {} nodes done", tools.len());
    if cached > 0 {
        message.push_str(&format!(" ({cached} cached)"));
    }
    for (state, label) in [
        (NodeState::Running, "running"),
        (NodeState::Failed, "failed"),
    ] {
        let ids = named(state);
        if !ids.is_empty() {
            message.push_str(&format!("; {label} {}", ids.join(", ")));
        }
    }
    Progress {
        completed,
        total: tools.len() as u64,
        unit: "nodes".into(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use somite_workflow::compile::NodeMapEntry;
    use somite_workflow::operator::OperatorKind;

    const HEADER: &str = "task_id\thash\tnative_id\tprocess\ttag\tname\tstatus\texit\tsubmit\tstart\tcomplete\tduration\trealtime\tcpus\tmemory\tpeak_rss\n";

    fn row(task: u32, process: &str, tag: &str, status: &str, exit: &str) -> String {
        format!(
            "{task}\tab/cdef{task:02}\t{}\t{process}\t{tag}\t{process} ({tag})\t{status}\t{exit}\t-\t-\t-\t-\t-\t1\t-\t-\n",
            1000 + task
        )
    }

    fn node_map() -> NodeMap {
        let entry = |id: &str, process: Option<&str>| NodeMapEntry {
            node_id: id.into(),
            operator_id: "test.op".into(),
            kind: if process.is_some() {
                OperatorKind::External
            } else {
                OperatorKind::Source
            },
            process: process.map(str::to_owned),
            publish_dir: process.map(|_| id.to_owned()),
            substituted: false,
        };
        let tools = [
            ("a", "A"),
            ("b", "B"),
            ("c", "C"),
            ("d", "D"),
            ("e", "E"),
            ("f", "F"),
            ("g", "G"),
        ];
        let mut nodes = vec![entry("reads", None)];
        nodes.extend(tools.iter().map(|(id, p)| entry(id, Some(p))));
        NodeMap {
            graph_revision: "blake3:test".into(),
            nodes,
            processes: tools
                .iter()
                .map(|(id, p)| ((*p).to_owned(), (*id).to_owned()))
                .collect(),
        }
    }

    #[test]
    fn every_task_status_maps_to_its_node_state() {
        let text = [
            HEADER.to_owned(),
            row(1, "A", "a", "SUBMITTED", "-"),
            row(2, "B", "b", "SUBMITTED", "-"),
            row(2, "B", "b", "RUNNING", "-"),
            row(3, "C", "c", "COMPLETED", "0"),
            row(4, "D", "d", "CACHED", "0"),
            row(5, "E", "e", "FAILED", "1"),
            row(6, "F", "f", "ABORTED", "-"),
        ]
        .concat();
        let rows = parse(&text).unwrap();
        assert_eq!(rows.len(), 7);
        assert_eq!(rows[5].exit, Some(1));
        assert_eq!(rows[5].hash.as_deref(), Some("ab/cdef05"));
        let map = node_map();
        let tasks = tasks_by_node(&map, &rows);
        let states = live_states(&map, &tasks, true);
        let expected: BTreeMap<String, NodeState> = [
            ("reads", NodeState::Done),
            ("a", NodeState::Queued),
            ("b", NodeState::Running),
            ("c", NodeState::Done),
            ("d", NodeState::Cached),
            ("e", NodeState::Failed),
            ("f", NodeState::Cancelled),
            ("g", NodeState::Queued),
        ]
        .into_iter()
        .map(|(id, s)| (id.to_owned(), s))
        .collect();
        assert_eq!(states, expected);

        let mut settled = states.clone();
        settle(&mut settled, Ending::Failed);
        assert_eq!(settled["a"], NodeState::Skipped);
        assert_eq!(settled["b"], NodeState::Cancelled);
        assert_eq!(settled["g"], NodeState::Skipped);
        assert_eq!(settled["c"], NodeState::Done);
        let mut cancelled = states;
        settle(&mut cancelled, Ending::Cancelled);
        assert_eq!(cancelled["a"], NodeState::Cancelled);

        let progress = progress(&map, &settled, "failed");
        assert_eq!((progress.completed, progress.total), (2, 7));
        assert_eq!(progress.unit, "nodes");
        assert_eq!(
            progress.message,
            "failed: 2 of 7 nodes done (1 cached); failed e"
        );
    }

    #[test]
    fn later_rows_of_a_task_supersede_earlier_ones() {
        let text = [
            HEADER.to_owned(),
            row(1, "A", "a", "SUBMITTED", "-"),
            row(1, "A", "a", "RUNNING", "-"),
            row(1, "A", "a", "COMPLETED", "0"),
        ]
        .concat();
        let map = node_map();
        let tasks = tasks_by_node(&map, &parse(&text).unwrap());
        assert_eq!(tasks["a"].state(), Some(NodeState::Done));
        assert_eq!(tasks["a"].deciding_task().unwrap().exit, Some(0));
    }

    #[test]
    fn a_partly_written_last_line_waits_for_the_next_read() {
        let full = row(1, "A", "a", "COMPLETED", "0");
        let text = format!("{HEADER}{}", &full[..full.len() - 4]);
        assert!(parse(&text).unwrap().is_empty());
        assert!(parse("").unwrap().is_empty());
        assert!(parse("task_id\tname\tstatus").unwrap().is_empty());
    }

    #[test]
    fn the_process_comes_from_the_task_name_when_there_is_no_process_column() {
        let text = "name\tstatus\texit\thash\nTRIM (trim)\tCOMPLETED\t0\t1a/2b3c\nFASTQC\tCACHED\t0\t-\nX\tWHATEVER\t-\t-\n";
        let rows = parse(text).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].process, "TRIM");
        assert_eq!(rows[0].task, "TRIM (trim)");
        assert_eq!(rows[1].process, "FASTQC");
        assert_eq!(rows[1].hash, None);
        assert_eq!(process_of_task_name("MULTI (a (b))"), "MULTI");
    }

    #[test]
    fn a_trace_without_name_or_status_is_refused() {
        assert_eq!(
            parse("task_id\tstatus\n1\tCOMPLETED\n"),
            Err(TraceError::MissingColumn("name"))
        );
        assert_eq!(
            parse("name\texit\nA\t0\n"),
            Err(TraceError::MissingColumn("status"))
        );
    }

    #[test]
    fn before_the_pipeline_starts_every_node_is_queued() {
        let map = node_map();
        let states = live_states(&map, &BTreeMap::new(), false);
        assert!(states.values().all(|s| *s == NodeState::Queued));
        let progress = progress(&map, &states, "preparing");
        assert_eq!(progress.message, "preparing: 0 of 7 nodes done");
    }
}
