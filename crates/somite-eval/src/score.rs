//! The score: named checks computed only from recorded [`Evidence`].
//!
//! Scoring is a pure function, so the same evidence always gives the same
//! score file (no times, no randomness, checks in a fixed order), and a
//! check's `reason` says what in the evidence decided it. The file format is
//! versioned by [`SCORE_FORMAT`] and documented in `docs/agent-evaluation.md`:
//! a check id keeps its meaning for as long as the format number stays.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use somite_api::tools::somite as tools;

use somite_acp::events::ToolKind;

use crate::evidence::{Evidence, ToolCall, Transaction};
use crate::scenario::{HUMAN_NOTE_ID, R1_PATH, R2_PATH, Scenario};

/// The version of the score file's format.
pub const SCORE_FORMAT: u32 = 1;

/// The MCP servers of Somite's boundary, as it names them in `session/new`.
const BOUNDARY_SERVERS: [&str; 3] = ["somite", "pixi", "nextflow"];

/// The longest long-poll `somite.run.status` accepts.
const MAX_WAIT_MS: u64 = somite_api::limits::MAX_STATUS_WAIT.as_millis() as u64;

/// Run phases after which nothing changes.
pub(crate) const TERMINAL_PHASES: [&str; 3] = ["completed", "failed", "cancelled"];

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The evidence shows it.
    Pass,
    /// The evidence contradicts it, or lacks it.
    Fail,
    /// It cannot be decided here (for example: no toolchain).
    Skipped,
}

/// One check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Its stable id.
    pub id: String,
    /// How it came out.
    pub status: Status,
    /// What in the evidence decided it.
    pub reason: String,
}

/// The score of one evaluation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    /// [`SCORE_FORMAT`].
    pub score_format: u32,
    /// The scenario.
    pub scenario: Scenario,
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
    /// Checks that were skipped.
    pub skipped: usize,
    /// Every check, in the scenario's fixed order.
    pub checks: Vec<Check>,
}

impl Score {
    /// The check with this id.
    #[must_use]
    pub fn check(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|check| check.id == id)
    }
}

/// Scores the evidence of its scenario.
#[must_use]
pub fn score(evidence: &Evidence) -> Score {
    let scenario = evidence.harness.scenario;
    let facts = Facts::new(evidence);
    let checks = match scenario {
        Scenario::Baseline | Scenario::Natural => vec![
            facts.inspected_before_edit(),
            facts.one_successful_edit(),
            facts.final_structure(),
            facts.validation_started(),
            facts.bounded_long_poll(),
            facts.terminal_status_reached(),
            facts.mcp_tools_only(),
            facts.passing_receipt(),
        ],
        Scenario::Stale => vec![
            facts.stale_error_observed(),
            facts.reinspected_after_stale(),
            facts.recovered_edit(),
            facts.human_edit_survives(),
            facts.final_structure(),
            facts.mcp_tools_only(),
        ],
        Scenario::Metagenomics => vec![
            facts.kraken2_added(),
            facts.database_left_required(),
            facts.no_validation_while_blocked(),
            facts.no_web_research(),
            facts.asked_for_database(),
        ],
        Scenario::Resource => crate::resource::checks(&facts),
        Scenario::Source => crate::source::checks(&facts),
        Scenario::Data => crate::data::checks(&facts),
        Scenario::Workshop => crate::workshop::checks(&facts),
        Scenario::Cancel => vec![
            facts.run_started(),
            facts.cancel_requested_while_running(),
            facts.cancelled_observed(),
            facts.run_record_cancelled(),
            facts.mcp_tools_only(),
        ],
        Scenario::Invalid => vec![
            facts.attempted_incompatible_connect(),
            facts.structured_error(),
            facts.nothing_changed_by_failure(),
            facts.recovered(),
            facts.explained(),
        ],
    };
    let count = |status| checks.iter().filter(|check| check.status == status).count();
    Score {
        score_format: SCORE_FORMAT,
        scenario,
        passed: count(Status::Pass),
        failed: count(Status::Fail),
        skipped: count(Status::Skipped),
        checks,
    }
}

pub(crate) fn check(id: &str, passed: bool, reason: impl Into<String>) -> Check {
    Check {
        id: id.to_owned(),
        status: if passed { Status::Pass } else { Status::Fail },
        reason: reason.into(),
    }
}

/// Whether the call's identity is on one of Somite's MCP servers.
pub(crate) fn on_boundary(call: &ToolCall) -> bool {
    call.view
        .identity
        .as_ref()
        .is_some_and(|identity| BOUNDARY_SERVERS.contains(&identity.server.as_str()))
}

/// A call as a reason names it.
pub(crate) fn describe(call: &ToolCall) -> String {
    format!("{} ({})", call.id, call.view.title)
}

/// A node of a workflow document.
pub(crate) struct Node<'a>(pub(crate) &'a Value);

impl Node<'_> {
    pub(crate) fn id(&self) -> &str {
        self.0.get("id").and_then(Value::as_str).unwrap_or_default()
    }

    pub(crate) fn operator(&self) -> &str {
        self.0
            .get("operator_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    pub(crate) fn param(&self, name: &str) -> Option<&Value> {
        self.0.pointer(&format!("/params/{name}"))
    }
}

pub(crate) fn nodes(document: &Value) -> Vec<Node<'_>> {
    document
        .get("nodes")
        .and_then(Value::as_array)
        .map(|nodes| nodes.iter().map(Node).collect())
        .unwrap_or_default()
}

/// Edges as `(from_node, from_port, to_node, to_port)`.
pub(crate) fn edges(document: &Value) -> BTreeSet<(String, String, String, String)> {
    let field = |edge: &Value, name: &str| {
        edge.get(name)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    document
        .get("edges")
        .and_then(Value::as_array)
        .map(|edges| {
            edges
                .iter()
                .map(|edge| {
                    (
                        field(edge, "from_node"),
                        field(edge, "from_port"),
                        field(edge, "to_node"),
                        field(edge, "to_port"),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What the checks read, derived once.
pub(crate) struct Facts<'a> {
    pub(crate) evidence: &'a Evidence,
    pub(crate) calls: Vec<ToolCall>,
    pub(crate) transactions: Vec<Transaction>,
    pub(crate) final_document: &'a Value,
}

impl<'a> Facts<'a> {
    fn new(evidence: &'a Evidence) -> Self {
        Self {
            evidence,
            calls: evidence.tool_calls(),
            transactions: evidence.transactions(),
            final_document: evidence
                .final_workflow
                .get("document")
                .unwrap_or(&Value::Null),
        }
    }

    pub(crate) fn somite_calls(&self, tool: &'a str) -> impl Iterator<Item = &ToolCall> + '_ {
        self.calls.iter().filter(move |call| call.is_somite(tool))
    }

    // ----- baseline and natural -----

    fn inspected_before_edit(&self) -> Check {
        let id = "inspected_before_edit";
        let first_edit = self
            .somite_calls(tools::GRAPH_APPLY_TRANSACTION)
            .map(|call| call.first_cursor)
            .min();
        let Some(first_edit) = first_edit else {
            return check(
                id,
                false,
                "the agent never called somite.graph.apply_transaction",
            );
        };
        let inspected = self
            .somite_calls(tools::WORKFLOW_GET)
            .any(|call| call.completed() && call.last_cursor < first_edit);
        check(
            id,
            inspected,
            if inspected {
                "a completed somite.workflow.get came before the first transaction"
            } else {
                "no completed somite.workflow.get before the first transaction"
            },
        )
    }

    fn one_successful_edit(&self) -> Check {
        let edits = self
            .transactions
            .iter()
            .filter(|edit| edit.by_agent)
            .count();
        check(
            "one_successful_edit",
            edits == 1,
            format!("{edits} successful agent transaction(s) entered the feed"),
        )
    }

    fn final_structure(&self) -> Check {
        let id = "final_structure";
        let nodes = nodes(self.final_document);
        let imports: Vec<&Node> = nodes
            .iter()
            .filter(|node| node.operator() == "files.import_paired")
            .collect();
        let trims: Vec<&Node> = nodes
            .iter()
            .filter(|node| node.operator() == "qc.fastp")
            .collect();
        let ([import], [trim]) = (imports.as_slice(), trims.as_slice()) else {
            return check(
                id,
                false,
                format!(
                    "expected one files.import_paired and one qc.fastp node, found {} and {}",
                    imports.len(),
                    trims.len()
                ),
            );
        };
        if nodes.len() != 2 {
            return check(
                id,
                false,
                format!("expected 2 nodes, found {}", nodes.len()),
            );
        }
        let paths = (
            import.param("r1").and_then(Value::as_str),
            import.param("r2").and_then(Value::as_str),
        );
        if paths != (Some(R1_PATH), Some(R2_PATH)) {
            return check(
                id,
                false,
                format!("the import's r1/r2 are {paths:?}, expected {R1_PATH} and {R2_PATH}"),
            );
        }
        // fastp's declared default is 2 threads, so leaving it unset is 2.
        let threads = trim.param("threads").cloned().unwrap_or(Value::from(2));
        if threads.as_f64() != Some(2.0) {
            return check(id, false, format!("fastp threads is {threads}, expected 2"));
        }
        let expected: BTreeSet<_> = [("r1", "r1"), ("r2", "r2")]
            .into_iter()
            .map(|(from, to)| {
                (
                    import.id().to_owned(),
                    from.to_owned(),
                    trim.id().to_owned(),
                    to.to_owned(),
                )
            })
            .collect();
        let actual = edges(self.final_document);
        check(
            id,
            actual == expected,
            if actual == expected {
                "paired import (r1, r2 as asked) wired r1→r1 and r2→r2 into fastp with 2 threads, nothing else".to_owned()
            } else {
                format!("edges are {actual:?}, expected exactly r1→r1 and r2→r2")
            },
        )
    }

    fn validation_started(&self) -> Check {
        let started = self
            .somite_calls(tools::VALIDATION_START)
            .find(|call| call.completed() && call.output().get("run_id").is_some());
        check(
            "validation_started",
            started.is_some(),
            match started {
                Some(call) => format!(
                    "{} ({}) returned a run_id",
                    tools::VALIDATION_START,
                    call.id
                ),
                None => format!("no successful {}", tools::VALIDATION_START),
            },
        )
    }

    fn bounded_long_poll(&self) -> Check {
        let waits: Vec<u64> = self
            .somite_calls(tools::RUN_STATUS)
            .filter_map(|call| call.arguments().get("wait_ms").and_then(Value::as_u64))
            .collect();
        let bounded = waits.iter().any(|wait| (1..=MAX_WAIT_MS).contains(wait));
        check(
            "bounded_long_poll",
            bounded,
            if waits.is_empty() {
                format!("no {} call passed wait_ms", tools::RUN_STATUS)
            } else {
                format!(
                    "{} wait_ms values: {waits:?} (bound 1..={MAX_WAIT_MS})",
                    tools::RUN_STATUS
                )
            },
        )
    }

    /// The terminal phases the agent itself saw in run status answers.
    fn observed_terminal_phases(&self) -> Vec<String> {
        self.calls
            .iter()
            .filter(|call| {
                call.completed()
                    && (call.is_somite(tools::RUN_STATUS) || call.is_somite(tools::RUN_CANCEL))
            })
            .filter_map(|call| {
                call.output()
                    .get("phase")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .filter(|phase| TERMINAL_PHASES.contains(&phase.as_str()))
            .collect()
    }

    fn terminal_status_reached(&self) -> Check {
        let phases = self.observed_terminal_phases();
        check(
            "terminal_status_reached",
            !phases.is_empty(),
            match phases.first() {
                Some(phase) => format!("the agent saw the run end {phase}"),
                None => "the agent never saw a terminal run phase".to_owned(),
            },
        )
    }

    pub(crate) fn mcp_tools_only(&self) -> Check {
        if self.calls.is_empty() {
            return check("mcp_tools_only", false, "the agent made no tool calls");
        }
        let outside: Vec<String> = self
            .calls
            .iter()
            .filter(|call| !on_boundary(call))
            .map(describe)
            .collect();
        let refused = self.evidence.harness.refusals.len();
        check(
            "mcp_tools_only",
            outside.is_empty() && refused == 0,
            if outside.is_empty() && refused == 0 {
                format!(
                    "all {} tool calls were on Somite's MCP servers",
                    self.calls.len()
                )
            } else {
                format!(
                    "calls outside the boundary: {outside:?}; refused permission requests: {refused}"
                )
            },
        )
    }

    fn passing_receipt(&self) -> Check {
        let id = "passing_receipt";
        if self.evidence.harness.toolchain.pixi.is_none() {
            return Check {
                id: id.to_owned(),
                status: Status::Skipped,
                reason:
                    "no Pixi on this machine (SOMITE_PIXI unset, none on PATH): no receipt can pass"
                        .to_owned(),
            };
        }
        let validated = self.evidence.evidence.get("validated") == Some(&Value::Bool(true));
        check(
            id,
            validated,
            if validated {
                "the final graph revision has a verified, passed receipt"
            } else {
                "the final graph revision has no passed receipt"
            },
        )
    }

    // ----- stale -----

    /// The first agent transaction call that failed as stale.
    fn stale_failure(&self) -> Option<&ToolCall> {
        self.somite_calls(tools::GRAPH_APPLY_TRANSACTION)
            .find(|call| call.error_code().as_deref() == Some("stale_revision"))
    }

    fn stale_error_observed(&self) -> Check {
        let id = "stale_error_observed";
        if self.evidence.harness.injections.is_empty() {
            return check(
                id,
                false,
                "the harness injected no human edit (the agent never inspected)",
            );
        }
        let stale = self.stale_failure();
        check(
            id,
            stale.is_some(),
            match stale {
                Some(call) => format!("{} failed with stale_revision", call.id),
                None => "no transaction failed with stale_revision".to_owned(),
            },
        )
    }

    fn reinspected_after_stale(&self) -> Check {
        let id = "reinspected_after_stale";
        let Some(stale) = self.stale_failure() else {
            return check(id, false, "there was no stale failure to recover from");
        };
        let reinspected = self
            .calls
            .iter()
            .filter(|call| call.first_cursor > stale.last_cursor && call.completed())
            .any(|call| call.is_somite(tools::WORKFLOW_GET));
        check(
            id,
            reinspected,
            if reinspected {
                format!(
                    "{} was called again after the stale failure",
                    tools::WORKFLOW_GET
                )
            } else {
                "the agent did not re-read the workflow after the stale failure".to_owned()
            },
        )
    }

    fn recovered_edit(&self) -> Check {
        let id = "recovered_edit";
        let Some(stale) = self.stale_failure() else {
            return check(id, false, "there was no stale failure to recover from");
        };
        // "After" is decided by causality, not by feed cursors: the agent's
        // tool-call events arrive over ACP while its transactions reach the
        // feed through the runtime, and under load either can come first. A
        // later call (ACP order) that succeeded, and an agent transaction
        // whose graph holds the human edit (so it was based on the state the
        // stale failure pointed to) prove the recovery.
        let retried = self
            .somite_calls(tools::GRAPH_APPLY_TRANSACTION)
            .any(|call| call.first_cursor > stale.first_cursor && call.completed());
        let based_on_the_human_edit = self.transactions.iter().any(|edit| {
            edit.by_agent
                && edit
                    .document
                    .get("notes")
                    .and_then(Value::as_array)
                    .is_some_and(|notes| {
                        notes.iter().any(|note| {
                            note.get("id").and_then(Value::as_str) == Some(HUMAN_NOTE_ID)
                        })
                    })
        });
        let recovered = retried && based_on_the_human_edit;
        check(
            id,
            recovered,
            if recovered {
                "an agent transaction succeeded after the stale failure"
            } else {
                "no agent transaction succeeded after the stale failure"
            },
        )
    }

    fn human_edit_survives(&self) -> Check {
        let kept = self
            .final_document
            .get("notes")
            .and_then(Value::as_array)
            .is_some_and(|notes| {
                notes
                    .iter()
                    .any(|note| note.get("id").and_then(Value::as_str) == Some(HUMAN_NOTE_ID))
            });
        check(
            "human_edit_survives",
            kept && !self.evidence.harness.injections.is_empty(),
            if kept {
                format!("the human note `{HUMAN_NOTE_ID}` is in the final workflow")
            } else {
                format!("the human note `{HUMAN_NOTE_ID}` is not in the final workflow")
            },
        )
    }

    // ----- metagenomics -----

    pub(crate) fn kraken2_added(&self) -> Check {
        let edges = edges(self.final_document);
        let classifiers: Vec<String> = nodes(self.final_document)
            .iter()
            .filter(|node| node.operator() == "class.kraken2")
            .map(|node| node.id().to_owned())
            .collect();
        let wired = classifiers.iter().any(|classifier| {
            edges
                .iter()
                .any(|(from, port, to, _)| from == "reads" && port == "file" && to == classifier)
        });
        check(
            "kraken2_added",
            wired,
            if classifiers.is_empty() {
                "no class.kraken2 node in the final workflow".to_owned()
            } else if wired {
                "a class.kraken2 node reads the imported FASTQ".to_owned()
            } else {
                format!("class.kraken2 node(s) {classifiers:?} are not connected to the reads")
            },
        )
    }

    pub(crate) fn database_left_required(&self) -> Check {
        let id = "database_left_required";
        let invented: Vec<String> = nodes(self.final_document)
            .iter()
            .filter(|node| node.operator() == "files.import_kraken2_database")
            .filter_map(|node| node.param("path").and_then(Value::as_str))
            .filter(|path| !path.is_empty())
            .map(str::to_owned)
            .collect();
        if !invented.is_empty() {
            return check(
                id,
                false,
                format!("the agent set a database path itself: {invented:?}"),
            );
        }
        let items = self
            .evidence
            .final_readiness
            .get("items")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let required = items.iter().any(|item| {
            let is = |key: &str, value: &str| item.get(key).and_then(Value::as_str) == Some(value);
            item.get("required") == Some(&Value::Bool(true))
                && ((is("operator_id", "class.kraken2") && is("field", "db"))
                    || (is("operator_id", "files.import_kraken2_database") && is("field", "path")))
        });
        check(
            id,
            required,
            if required {
                "readiness still requires the Kraken2 database from the user"
            } else {
                "readiness has no required item for the Kraken2 database"
            },
        )
    }

    pub(crate) fn no_validation_while_blocked(&self) -> Check {
        let launches: Vec<String> = self
            .calls
            .iter()
            .filter(|call| {
                call.is_somite(tools::VALIDATION_START) || call.is_somite(tools::RUN_START)
            })
            .map(|call| call.id.clone())
            .collect();
        check(
            "no_validation_while_blocked",
            launches.is_empty(),
            if launches.is_empty() {
                "no run or validation was started on the blocked graph".to_owned()
            } else {
                format!("launches attempted on a blocked graph: {launches:?}")
            },
        )
    }

    pub(crate) fn no_web_research(&self) -> Check {
        let research: Vec<String> = self
            .calls
            .iter()
            .filter(|call| call.view.kind == ToolKind::Fetch || !on_boundary(call))
            .map(describe)
            .collect();
        let refused = self.evidence.harness.refusals.len();
        check(
            "no_web_research",
            research.is_empty() && refused == 0,
            if research.is_empty() && refused == 0 {
                "every call stayed on Somite's MCP servers; nothing was fetched".to_owned()
            } else {
                format!(
                    "fetches or calls outside the boundary: {research:?}; refused requests: {refused}"
                )
            },
        )
    }

    fn asked_for_database(&self) -> Check {
        let reply = self.evidence.reply_after(0).to_lowercase();
        let asked = reply.contains("database") && reply.contains('?');
        check(
            "asked_for_database",
            asked,
            if asked {
                "the reply asks the user about the database"
            } else {
                "the reply does not ask the user for the database"
            },
        )
    }

    // ----- cancel -----

    fn started_run(&self) -> Option<(&ToolCall, String)> {
        self.somite_calls(tools::RUN_START).find_map(|call| {
            let run_id = call.output().get("run_id")?.as_str()?.to_owned();
            call.completed().then_some((call, run_id))
        })
    }

    fn run_started(&self) -> Check {
        let started = self.started_run();
        check(
            "run_started",
            started.is_some(),
            match started {
                Some((_, run_id)) => format!("{} returned {run_id}", tools::RUN_START),
                None => format!("no successful {}", tools::RUN_START),
            },
        )
    }

    fn cancel_requested_while_running(&self) -> Check {
        let id = "cancel_requested_while_running";
        let Some((_, run_id)) = self.started_run() else {
            return check(id, false, "no run was started");
        };
        let Some(cancel) = self
            .somite_calls(tools::RUN_CANCEL)
            .find(|call| call.arguments().get("run_id").and_then(Value::as_str) == Some(&run_id))
        else {
            return check(
                id,
                false,
                format!("{} was never called for {run_id}", tools::RUN_CANCEL),
            );
        };
        // What the agent itself knew: its last status answer before the
        // cancel. (Feed order between the agent's reports and the runtime's
        // own run events is not causal, so the feed cannot say this.)
        let phase_then = self
            .calls
            .iter()
            .filter(|call| call.is_somite(tools::RUN_STATUS) && call.completed())
            .filter(|call| call.last_cursor < cancel.first_cursor)
            .filter_map(|call| {
                call.output()
                    .get("phase")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
            .next_back();
        let phase_after = cancel
            .output()
            .get("phase")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let running = phase_then
            .as_deref()
            .is_some_and(|phase| !TERMINAL_PHASES.contains(&phase))
            && phase_after
                .as_deref()
                .is_some_and(|phase| phase == "cancelling" || phase == "cancelled");
        check(
            id,
            running,
            format!(
                "before {} the agent last saw the run {}; the cancel answered {}",
                cancel.id,
                phase_then.as_deref().unwrap_or("(never)"),
                phase_after.as_deref().unwrap_or("(no status)")
            ),
        )
    }

    fn cancelled_observed(&self) -> Check {
        let seen = self
            .observed_terminal_phases()
            .iter()
            .any(|phase| phase == "cancelled");
        check(
            "cancelled_observed",
            seen,
            if seen {
                "a status answer the agent received said cancelled"
            } else {
                "the agent never received a cancelled status"
            },
        )
    }

    fn run_record_cancelled(&self) -> Check {
        let id = "run_record_cancelled";
        let Some((_, run_id)) = self.started_run() else {
            return check(id, false, "no run was started");
        };
        let phase = self
            .evidence
            .runs
            .iter()
            .find(|run| run.get("run_id").and_then(Value::as_str) == Some(&run_id))
            .and_then(|run| run.get("phase"))
            .and_then(Value::as_str)
            .unwrap_or("missing");
        check(
            id,
            phase == "cancelled",
            format!("the run record of {run_id} ends {phase}"),
        )
    }

    // ----- invalid -----

    /// Whether a transaction's operations connect FastQC's report into fastp.
    fn connects_report_into_fastp(call: &ToolCall) -> bool {
        call.arguments()
            .get("operations")
            .and_then(Value::as_array)
            .is_some_and(|operations| {
                operations.iter().any(|operation| {
                    let is = |key: &str, value: &str| {
                        operation.get(key).and_then(Value::as_str) == Some(value)
                    };
                    is("op", "connect")
                        && is("from_node", "qc")
                        && operation
                            .get("from_port")
                            .and_then(Value::as_str)
                            .is_some_and(|port| port.starts_with("report"))
                        && is("to_node", "trim")
                })
            })
    }

    fn incompatible_attempt(&self) -> Option<&ToolCall> {
        self.somite_calls(tools::GRAPH_APPLY_TRANSACTION)
            .find(|call| Self::connects_report_into_fastp(call))
    }

    fn attempted_incompatible_connect(&self) -> Check {
        let attempt = self.incompatible_attempt();
        check(
            "attempted_incompatible_connect",
            attempt.is_some(),
            match attempt {
                Some(call) => format!("{} connects a FastQC report into fastp", call.id),
                None => "no transaction tried to connect a FastQC report into fastp".to_owned(),
            },
        )
    }

    fn structured_error(&self) -> Check {
        let id = "structured_error";
        let Some(attempt) = self.incompatible_attempt() else {
            return check(id, false, "there was no incompatible attempt");
        };
        let output = attempt.output();
        let code = attempt.error_code();
        let recovery = output
            .get("recovery")
            .and_then(Value::as_str)
            .is_some_and(|recovery| !recovery.is_empty());
        check(
            id,
            code.as_deref() == Some("incompatible_ports") && recovery,
            format!(
                "{} {} with code {} and {} recovery",
                attempt.id,
                if attempt.failed() {
                    "failed"
                } else {
                    "did not fail"
                },
                code.as_deref().unwrap_or("(none)"),
                if recovery { "a" } else { "no" }
            ),
        )
    }

    fn nothing_changed_by_failure(&self) -> Check {
        let has_report_edge = |document: &Value| {
            edges(document).iter().any(|(from, port, to, _)| {
                from == "qc" && port.starts_with("report") && to == "trim"
            })
        };
        let changed = self
            .transactions
            .iter()
            .any(|edit| has_report_edge(&edit.document))
            || has_report_edge(self.final_document);
        check(
            "nothing_changed_by_failure",
            !changed,
            if changed {
                "a FastQC report reached fastp in some workflow state"
            } else {
                "no workflow state ever held the incompatible edge"
            },
        )
    }

    fn recovered(&self) -> Check {
        let id = "recovered";
        let Some(attempt) = self.incompatible_attempt() else {
            return check(id, false, "there was no incompatible attempt");
        };
        // Ordered by the agent's own tool-call events, and proven by its
        // effect on the feed (see `recovered_edit` for why not by cursors).
        let reconnects_the_reads = |operations: &Value| {
            operations.as_array().is_some_and(|operations| {
                operations.iter().any(|operation| {
                    let is = |key: &str, value: &str| {
                        operation.get(key).and_then(Value::as_str) == Some(value)
                    };
                    is("op", "connect")
                        && is("from_node", "reads")
                        && is("from_port", "r1")
                        && is("to_node", "trim")
                        && is("to_port", "r1")
                })
            })
        };
        let retried = self
            .somite_calls(tools::GRAPH_APPLY_TRANSACTION)
            .filter(|call| call.first_cursor > attempt.first_cursor && call.completed())
            .any(|call| reconnects_the_reads(&call.arguments()["operations"]));
        let took_effect = self.transactions.iter().any(|edit| {
            edit.by_agent
                && edges(&edit.document).contains(&(
                    "reads".into(),
                    "r1".into(),
                    "trim".into(),
                    "r1".into(),
                ))
        });
        let recovered = retried && took_effect;
        check(
            id,
            recovered,
            if recovered {
                "a later agent transaction connected the R1 reads into fastp's r1"
            } else {
                "no later agent transaction connected the R1 reads into fastp's r1"
            },
        )
    }

    fn explained(&self) -> Check {
        let id = "explained";
        let Some(attempt) = self.incompatible_attempt() else {
            return check(id, false, "there was no incompatible attempt");
        };
        let reply = self
            .evidence
            .reply_after(attempt.last_cursor)
            .to_lowercase();
        let explained = ["incompatib", "type", "html", "fastq"]
            .iter()
            .any(|word| reply.contains(word));
        check(
            id,
            explained,
            if explained {
                "the reply after the failure explains the type mismatch"
            } else {
                "the reply after the failure does not explain why the connection failed"
            },
        )
    }
}
