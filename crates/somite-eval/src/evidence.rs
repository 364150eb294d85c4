//! The recorded evidence of one evaluation, and the views the checks read.
//!
//! Everything a score depends on is a file of the evaluation's directory,
//! so `somite eval rescore DIR` recomputes the same score from disk and a
//! reader can audit every check against what it cites. The views normalise
//! how different agents present the same thing: an MCP call's arguments sit
//! in `rawInput.arguments` for Codex ACP and in `rawInput` itself for Claude
//! ACP; its result may be the structured content, an MCP result with
//! `structuredContent`, or JSON text.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use somite_acp::events::{ToolCallView, ToolStatus};

use crate::scenario::Scenario;

/// The files of an evaluation directory the score is computed from.
pub mod files {
    /// The feed events seen during the turn, one JSON object per line; each
    /// `transaction` event with the `document` the harness fetched by its
    /// state revision (the runtime's event names the graph, not carries it).
    pub const EVENTS: &str = "events.jsonl";
    /// What the harness itself did and saw.
    pub const HARNESS: &str = "harness.json";
    /// `GET /api/workflow` before the prompt.
    pub const WORKFLOW_INITIAL: &str = "workflow-initial.json";
    /// `GET /api/workflow` after the turn.
    pub const WORKFLOW_FINAL: &str = "workflow-final.json";
    /// `GET /api/readiness` after the turn.
    pub const READINESS_FINAL: &str = "readiness-final.json";
    /// The final status of every run the turn started.
    pub const RUNS: &str = "runs.json";
    /// `GET /api/evidence` for the final graph.
    pub const EVIDENCE: &str = "evidence.json";
    /// The score.
    pub const SCORE: &str = "score.json";
}

/// One activity-feed event, as `GET /api/activity` serves it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FeedEvent {
    /// Its position in the feed.
    pub cursor: u64,
    /// A [`somite_api::FeedKind`] by its wire name.
    pub kind: String,
    /// When the runtime published it.
    #[serde(default)]
    pub time_ms: u64,
    /// The payload.
    pub data: Value,
}

/// A human edit the harness made during the turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Injection {
    /// The agent's tool call after which it was made.
    pub after_tool_call_id: String,
    /// The note it added.
    pub note_id: String,
    /// The state revision it produced.
    pub state_revision: String,
}

/// A permission request the harness refused.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    /// Somite's id for the request.
    pub permission_id: String,
    /// The tool call it was about.
    pub tool_call_id: String,
    /// The tool call's title.
    pub title: String,
    /// Why Somite's policy did not allow it itself.
    pub reason: Value,
    /// The answer: a reject option's id, or `cancelled`.
    pub answer: String,
}

/// The Pixi the runtime used, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Toolchain {
    /// Its path.
    pub pixi: Option<String>,
    /// `SOMITE_PIXI` or `PATH`.
    pub source: Option<String>,
}

/// What the harness did and saw, besides the feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HarnessRecord {
    /// The scenario.
    pub scenario: Scenario,
    /// The turn the prompt started.
    pub turn: Option<u64>,
    /// How it ended (`turn_ended.outcome`), if it did.
    pub turn_outcome: Option<Value>,
    /// Whether the harness had to cancel the turn at its deadline.
    pub timed_out: bool,
    /// How often the feed had evicted events (or a transaction's document)
    /// before the harness read them, or reset after a runtime restart.
    pub feed_gaps: u32,
    /// Human edits made during the turn.
    pub injections: Vec<Injection>,
    /// Permission requests refused.
    pub refusals: Vec<Refusal>,
    /// The toolchain the runtime found.
    pub toolchain: Toolchain,
    /// Runs the harness cancelled after the turn, so the runtime could stop.
    pub cleanup_cancelled_runs: Vec<String>,
    /// What went wrong in the harness itself (never in the agent).
    pub problems: Vec<String>,
}

/// Everything a score is computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    /// What the harness did.
    pub harness: HarnessRecord,
    /// The feed events of the turn, in order.
    pub events: Vec<FeedEvent>,
    /// The workflow before the prompt.
    pub initial_workflow: Value,
    /// The workflow after the turn.
    pub final_workflow: Value,
    /// The Workflow assessment after the turn.
    pub final_readiness: Value,
    /// The final status of each run.
    pub runs: Vec<Value>,
    /// The evidence lookup for the final graph.
    pub evidence: Value,
}

/// Evidence that cannot be read back.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {file} of the evaluation: {message}")]
pub struct UnreadableEvidence {
    /// The file.
    pub file: String,
    /// What was wrong.
    pub message: String,
}

impl Evidence {
    /// Reads the evidence of an evaluation directory.
    pub fn load(dir: &Path) -> Result<Self, UnreadableEvidence> {
        let read = |file: &str| {
            std::fs::read_to_string(dir.join(file)).map_err(|error| UnreadableEvidence {
                file: file.to_owned(),
                message: error.to_string(),
            })
        };
        fn parse<T: serde::de::DeserializeOwned>(
            file: &str,
            text: &str,
        ) -> Result<T, UnreadableEvidence> {
            serde_json::from_str(text).map_err(|error| UnreadableEvidence {
                file: file.to_owned(),
                message: error.to_string(),
            })
        }
        let events = read(files::EVENTS)?
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| parse(files::EVENTS, line))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            harness: parse(files::HARNESS, &read(files::HARNESS)?)?,
            events,
            initial_workflow: parse(files::WORKFLOW_INITIAL, &read(files::WORKFLOW_INITIAL)?)?,
            final_workflow: parse(files::WORKFLOW_FINAL, &read(files::WORKFLOW_FINAL)?)?,
            final_readiness: parse(files::READINESS_FINAL, &read(files::READINESS_FINAL)?)?,
            runs: parse(files::RUNS, &read(files::RUNS)?)?,
            evidence: parse(files::EVIDENCE, &read(files::EVIDENCE)?)?,
        })
    }

    /// The agent's tool calls, each in its latest state, in the order they
    /// first appeared.
    #[must_use]
    pub fn tool_calls(&self) -> Vec<ToolCall> {
        let mut calls: Vec<ToolCall> = Vec::new();
        for event in self.agent_events("tool_call") {
            let Some(view) = event
                .data
                .get("tool_call")
                .and_then(|view| serde_json::from_value::<ToolCallView>(view.clone()).ok())
            else {
                continue;
            };
            match calls.iter_mut().find(|call| call.id == view.tool_call_id) {
                Some(call) => call.update(event.cursor, view),
                None => calls.push(ToolCall::new(event.cursor, view)),
            }
        }
        calls
    }

    /// The successful, fresh edits of the turn, in feed order.
    #[must_use]
    pub fn transactions(&self) -> Vec<Transaction> {
        self.events
            .iter()
            .filter(|event| event.kind == somite_api::FeedKind::Transaction.as_str())
            .filter(|event| event.data.pointer("/outcome/replayed") != Some(&Value::Bool(true)))
            .map(|event| Transaction {
                cursor: event.cursor,
                by_agent: event.data.pointer("/source/kind").and_then(Value::as_str)
                    == Some("agent"),
                document: event.data.get("document").cloned().unwrap_or(Value::Null),
            })
            .collect()
    }

    /// The agent's visible reply, chunk by chunk, with the cursor of each.
    #[must_use]
    pub fn agent_messages(&self) -> Vec<(u64, String)> {
        self.agent_events("agent_message")
            .filter_map(|event| {
                let text = event.data.get("text")?.as_str()?;
                Some((event.cursor, text.to_owned()))
            })
            .collect()
    }

    /// The agent's whole reply after a cursor, joined.
    #[must_use]
    pub fn reply_after(&self, cursor: u64) -> String {
        self.agent_messages()
            .into_iter()
            .filter(|(at, _)| *at > cursor)
            .map(|(_, text)| text)
            .collect()
    }

    fn agent_events<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a FeedEvent> + 'a {
        self.events.iter().filter(move |event| {
            event.kind == somite_api::FeedKind::Agent.as_str()
                && event.data.get("type").and_then(Value::as_str) == Some(kind)
        })
    }
}

/// An edit that entered the feed.
#[derive(Debug, Clone, PartialEq)]
pub struct Transaction {
    /// Where.
    pub cursor: u64,
    /// Whether the agent made it (else a human).
    pub by_agent: bool,
    /// The complete result graph, as the harness recorded it (null if the
    /// runtime no longer held it; that counts as a feed gap).
    pub document: Value,
}

/// One tool call of the agent, in its latest state.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The agent's id for it.
    pub id: String,
    /// The cursor of its first event.
    pub first_cursor: u64,
    /// The cursor of its latest event.
    pub last_cursor: u64,
    /// The whole latest view.
    pub view: ToolCallView,
}

impl ToolCall {
    fn new(cursor: u64, view: ToolCallView) -> Self {
        Self {
            id: view.tool_call_id.clone(),
            first_cursor: cursor,
            last_cursor: cursor,
            view,
        }
    }

    fn update(&mut self, cursor: u64, view: ToolCallView) {
        self.last_cursor = cursor;
        self.view = view;
    }

    /// Whether it is this tool of this server.
    #[must_use]
    pub fn is(&self, server: &str, tool: &str) -> bool {
        self.view
            .identity
            .as_ref()
            .is_some_and(|identity| identity.server == server && identity.tool == tool)
    }

    /// Whether it is this Somite tool.
    #[must_use]
    pub fn is_somite(&self, tool: &str) -> bool {
        self.is("somite", tool)
    }

    /// Whether it finished successfully.
    #[must_use]
    pub fn completed(&self) -> bool {
        self.view.status == ToolStatus::Completed
    }

    /// Whether it failed.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.view.status == ToolStatus::Failed
    }

    /// The arguments it was called with.
    #[must_use]
    pub fn arguments(&self) -> Value {
        match &self.view.raw_input {
            Some(Value::Object(input))
                if input.contains_key("server") && input.contains_key("tool") =>
            {
                input.get("arguments").cloned().unwrap_or(Value::Null)
            }
            Some(input) => input.clone(),
            None => Value::Null,
        }
    }

    /// Its result: the structured content where the agent passed it on,
    /// else JSON found in its text.
    #[must_use]
    pub fn output(&self) -> Value {
        if let Some(output) = self.view.raw_output.as_ref().and_then(structured) {
            return output;
        }
        self.view
            .content
            .iter()
            .find_map(|text| serde_json::from_str::<Value>(text).ok())
            .filter(Value::is_object)
            .unwrap_or(Value::Null)
    }

    /// The stable code of its structured failure, if it has one.
    #[must_use]
    pub fn error_code(&self) -> Option<String> {
        if !self.failed() {
            return None;
        }
        self.output()
            .get("code")
            .and_then(Value::as_str)
            .map(str::to_owned)
    }
}

/// The structured result inside the shapes agents report an MCP result in.
fn structured(output: &Value) -> Option<Value> {
    match output {
        Value::Object(object) => {
            for wrapper in ["structuredContent", "structured_content", "Ok", "Err"] {
                if let Some(inner) = object.get(wrapper) {
                    return structured(inner);
                }
            }
            if let Some(Value::Array(blocks)) = object.get("content") {
                return blocks.iter().find_map(|block| {
                    block
                        .get("text")
                        .and_then(Value::as_str)
                        .and_then(|text| serde_json::from_str(text).ok())
                        .filter(Value::is_object)
                });
            }
            Some(output.clone())
        }
        Value::String(text) => serde_json::from_str(text).ok().filter(Value::is_object),
        Value::Array(blocks) => blocks.iter().find_map(structured),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(raw_input: Value, raw_output: Value, content: Vec<&str>) -> ToolCall {
        let view: ToolCallView = serde_json::from_value(json!({
            "tool_call_id": "c1", "title": "t", "kind": "other", "status": "failed",
            "identity": {"server": "somite", "tool": somite_api::tools::somite::GRAPH_APPLY_TRANSACTION},
            "raw_input": raw_input, "raw_output": raw_output,
            "content": content, "locations": [],
        }))
        .unwrap();
        ToolCall::new(1, view)
    }

    #[test]
    fn arguments_are_unwrapped_from_codex_and_taken_whole_from_claude() {
        let codex = call(
            json!({"server": "somite", "tool": "x", "arguments": {"a": 1}}),
            Value::Null,
            vec![],
        );
        assert_eq!(codex.arguments(), json!({"a": 1}));
        let claude = call(json!({"a": 2}), Value::Null, vec![]);
        assert_eq!(claude.arguments(), json!({"a": 2}));
    }

    #[test]
    fn a_failure_code_is_found_in_every_shape_agents_report_results_in() {
        let envelope = json!({"code": "stale_revision", "recovery": "re-read"});
        let shapes = [
            call(Value::Null, envelope.clone(), vec![]),
            call(
                Value::Null,
                json!({"structuredContent": envelope.clone(), "isError": true}),
                vec![],
            ),
            call(
                Value::Null,
                json!({"Ok": {"content": [{"type": "text", "text": envelope.to_string()}]}}),
                vec![],
            ),
            call(Value::Null, json!(envelope.to_string()), vec![]),
            call(
                Value::Null,
                Value::Null,
                vec!["not json", &envelope.to_string()],
            ),
        ];
        for shape in shapes {
            assert_eq!(
                shape.error_code().as_deref(),
                Some("stale_revision"),
                "{:?}",
                shape.view.raw_output
            );
        }
    }
}
