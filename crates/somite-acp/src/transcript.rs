//! Normalised, redacted transcripts of completed turns.
//!
//! After every turn the server writes one [`Transcript`] under
//! `.somite/agent-transcripts/` (as [`Transcript::file_name`]). It keeps what
//! the user saw, in order — the user's own words (never the routing
//! contract), the agent's messages and visible thought summaries, plans —
//! and correlates each tool call's input, results, permission decisions and
//! graph transaction by its ACP tool-call id. It does not claim to record a
//! model's hidden chain of thought.
//!
//! Everything is redacted on the way in: fields with secret-shaped names
//! (authorization values, API keys, tokens, passwords, credentials, secrets,
//! cookies, capabilities; any case, any nesting) and secret-shaped values
//! (bearer tokens, `sk-...` keys, ...) become [`REDACTED`], and so does any
//! value the session knows to be secret, such as the MCP capability — in any
//! case, and any 16-character piece of it ([`Redactor`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::events::{
    Generation, PermissionId, PermissionResolution, PlanEntry, ToolCallView, ToolKind, ToolStatus,
    TurnId, TurnOutcome,
};
use crate::permission::{PermissionChoice, ToolIdentity};
// `is_secret_name` too: the process log masks fields by the same rule.
pub use crate::secrets::{REDACTED, Redactor, is_secret_name};

/// The transcript format written by this crate.
pub const TRANSCRIPT_FORMAT: u32 = 1;

/// The tool whose input is a graph transaction, correlated separately.
const TRANSACTION_TOOL: &str = somite_api::tools::somite::GRAPH_APPLY_TRANSACTION;

/// Redacts secret-shaped fields and values, recursively (see the module docs).
#[must_use]
pub fn redact(value: Value) -> Value {
    Redactor::default().redact_value(value)
}

/// The normalised record of one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    /// [`TRANSCRIPT_FORMAT`].
    pub format: u32,
    /// The session generation.
    pub generation: Generation,
    /// The turn within the session.
    pub turn: TurnId,
    /// The agent's name, as it reported it.
    pub agent_name: Option<String>,
    /// The agent's version, as it reported it.
    pub agent_version: Option<String>,
    /// When the turn started, in milliseconds since the Unix epoch.
    pub started_at_unix_ms: u64,
    /// When it ended.
    pub ended_at_unix_ms: u64,
    /// The user's message, exactly as typed (redacted).
    pub user_message: String,
    /// How the turn ended.
    pub outcome: TurnOutcome,
    /// What the user saw, in order.
    pub timeline: Vec<TimelineEntry>,
    /// Every tool call of the turn, in order of first appearance.
    pub tool_calls: Vec<ToolCallRecord>,
}

impl Transcript {
    /// The file name to store it under: sortable by start time, unique per
    /// session generation and turn.
    #[must_use]
    pub fn file_name(&self) -> String {
        format!(
            "{:013}-g{}-t{}.json",
            self.started_at_unix_ms, self.generation.0, self.turn.0
        )
    }
}

/// One visible step of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TimelineEntry {
    /// The agent's reply (consecutive chunks joined).
    AgentMessage {
        /// The text.
        text: String,
    },
    /// The agent's visible reasoning summary (consecutive chunks joined).
    AgentThought {
        /// The text.
        text: String,
    },
    /// A tool call appeared; its record is in [`Transcript::tool_calls`].
    ToolCall {
        /// The tool call.
        tool_call_id: String,
    },
    /// A permission request was answered.
    Permission {
        /// The tool call it was about.
        tool_call_id: String,
        /// The request.
        permission_id: PermissionId,
        /// Who answered, and how.
        resolution: PermissionResolution,
    },
    /// The agent's plan at that point.
    Plan {
        /// The plan.
        entries: Vec<PlanEntry>,
    },
}

/// Everything about one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// The agent's id for it.
    pub tool_call_id: String,
    /// Its latest title.
    pub title: String,
    /// Its kind.
    pub kind: ToolKind,
    /// Its final status.
    pub status: ToolStatus,
    /// Its MCP server and tool, when its fields agree on one.
    pub identity: Option<ToolIdentity>,
    /// Its input.
    pub input: Option<Value>,
    /// Its output.
    pub output: Option<Value>,
    /// Its textual content (results, messages).
    pub content: Vec<String>,
    /// Its permission requests and their answers.
    pub permissions: Vec<PermissionRecord>,
    /// The graph transaction it submitted, for `somite.graph.apply_transaction`.
    pub transaction: Option<Value>,
}

/// One permission request about a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRecord {
    /// The request.
    pub permission_id: PermissionId,
    /// The options the agent offered.
    pub options: Vec<PermissionChoice>,
    /// Who answered, and how.
    pub resolution: PermissionResolution,
}

/// Builds a turn's transcript from the session's events.
#[derive(Debug)]
pub(crate) struct TranscriptRecorder {
    transcript: Transcript,
    redactor: Redactor,
}

impl TranscriptRecorder {
    pub(crate) fn new(
        generation: Generation,
        turn: TurnId,
        agent: &crate::events::AgentInfo,
        user_message: &str,
        redactor: Redactor,
    ) -> Self {
        Self {
            transcript: Transcript {
                format: TRANSCRIPT_FORMAT,
                generation,
                turn,
                agent_name: agent.name.clone(),
                agent_version: agent.version.clone(),
                started_at_unix_ms: unix_ms_now(),
                ended_at_unix_ms: 0,
                user_message: redactor.redact_text(user_message),
                outcome: TurnOutcome::Interrupted,
                timeline: Vec::new(),
                tool_calls: Vec::new(),
            },
            redactor,
        }
    }

    pub(crate) fn agent_message(&mut self, chunk: &str) {
        if let Some(TimelineEntry::AgentMessage { text }) = self.transcript.timeline.last_mut() {
            text.push_str(chunk);
        } else {
            self.transcript.timeline.push(TimelineEntry::AgentMessage {
                text: chunk.to_owned(),
            });
        }
    }

    pub(crate) fn agent_thought(&mut self, chunk: &str) {
        if let Some(TimelineEntry::AgentThought { text }) = self.transcript.timeline.last_mut() {
            text.push_str(chunk);
        } else {
            self.transcript.timeline.push(TimelineEntry::AgentThought {
                text: chunk.to_owned(),
            });
        }
    }

    pub(crate) fn plan(&mut self, entries: &[PlanEntry]) {
        self.transcript.timeline.push(TimelineEntry::Plan {
            entries: entries.to_vec(),
        });
    }

    fn record_mut(&mut self, tool_call_id: &str) -> &mut ToolCallRecord {
        let index = match self
            .transcript
            .tool_calls
            .iter()
            .position(|record| record.tool_call_id == tool_call_id)
        {
            Some(index) => index,
            None => {
                self.transcript.timeline.push(TimelineEntry::ToolCall {
                    tool_call_id: tool_call_id.to_owned(),
                });
                self.transcript.tool_calls.push(ToolCallRecord {
                    tool_call_id: tool_call_id.to_owned(),
                    title: String::new(),
                    kind: ToolKind::Other,
                    status: ToolStatus::Pending,
                    identity: None,
                    input: None,
                    output: None,
                    content: Vec::new(),
                    permissions: Vec::new(),
                    transaction: None,
                });
                self.transcript.tool_calls.len() - 1
            }
        };
        &mut self.transcript.tool_calls[index]
    }

    /// Records a tool call's current state (already redacted by the session).
    pub(crate) fn tool_call(&mut self, view: &ToolCallView) {
        let record = self.record_mut(&view.tool_call_id);
        record.title.clone_from(&view.title);
        record.kind = view.kind;
        record.status = view.status;
        record.identity.clone_from(&view.identity);
        record.input.clone_from(&view.raw_input);
        record.output.clone_from(&view.raw_output);
        record.content.clone_from(&view.content);
        let submits_transaction = view
            .identity
            .as_ref()
            .is_some_and(|identity| identity.tool == TRANSACTION_TOOL);
        record.transaction = view
            .raw_input
            .as_ref()
            .filter(|_| submits_transaction)
            .map(|input| input.get("arguments").unwrap_or(input).clone());
    }

    pub(crate) fn permission(
        &mut self,
        tool_call_id: &str,
        permission_id: PermissionId,
        options: &[PermissionChoice],
        resolution: &PermissionResolution,
    ) {
        self.record_mut(tool_call_id)
            .permissions
            .push(PermissionRecord {
                permission_id,
                options: options.to_vec(),
                resolution: resolution.clone(),
            });
        self.transcript.timeline.push(TimelineEntry::Permission {
            tool_call_id: tool_call_id.to_owned(),
            permission_id,
            resolution: resolution.clone(),
        });
    }

    /// Closes the transcript. Joined message chunks are redacted here, where
    /// a secret split across chunks is whole again.
    pub(crate) fn finish(mut self, outcome: TurnOutcome) -> Transcript {
        self.transcript.outcome = outcome;
        self.transcript.ended_at_unix_ms = unix_ms_now();
        for entry in &mut self.transcript.timeline {
            if let TimelineEntry::AgentMessage { text } | TimelineEntry::AgentThought { text } =
                entry
            {
                *text = self.redactor.redact_text(text);
            }
        }
        self.transcript
    }
}

fn unix_ms_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::events::AgentInfo;
    use crate::permission::PermissionAnswer;

    #[test]
    fn secret_fields_are_redacted_at_any_depth_in_any_case() {
        let redacted = redact(json!({
            "Authorization": "Bearer abc.def.ghi",
            "headers": [{"X-Api-Key": "k-123"}, {"cookie": "session=1"}],
            "nested": {"deeper": {"PASSWORD": "hunter2", "clientSecret": {"a": 1}}},
            "credentials": ["a", "b"],
            "refresh_token": 12345,
            "max_tokens": 4096,
            "query": "kraken2 database",
            "empty_token": null,
        }));
        assert_eq!(
            redacted,
            json!({
                "Authorization": REDACTED,
                "headers": [{"X-Api-Key": REDACTED}, {"cookie": REDACTED}],
                "nested": {"deeper": {"PASSWORD": REDACTED, "clientSecret": REDACTED}},
                "credentials": REDACTED,
                "refresh_token": REDACTED,
                "max_tokens": 4096,
                "query": "kraken2 database",
                "empty_token": null,
            })
        );
    }

    #[test]
    fn secret_shaped_values_are_redacted_under_innocent_keys() {
        let redacted = redact(json!({
            "note": "call with Bearer eyJhbGciOiJIUzI1NiJ9.payload-part and sk-live-0123456789abcdef",
            "args": ["--key", "sk-ant-api03-abcdefghijklmnopqrstu"],
        }));
        assert_eq!(
            redacted,
            json!({
                "note": format!("call with Bearer {REDACTED} and {REDACTED}"),
                "args": ["--key", REDACTED],
            })
        );
    }

    #[test]
    fn known_secrets_are_masked_wherever_they_appear() {
        let redactor = Redactor::with_known_secrets(["cap-0123456789".to_owned(), "x".to_owned()]);
        assert_eq!(
            redactor.redact_value(json!({"output": "echo cap-0123456789!", "x": "x"})),
            json!({"output": format!("echo {REDACTED}!"), "x": "x"})
        );
    }

    fn view(id: &str, tool: &str, input: Value) -> ToolCallView {
        ToolCallView {
            tool_call_id: id.into(),
            title: format!("Tool: somite/{tool}"),
            kind: ToolKind::Edit,
            status: ToolStatus::Completed,
            identity: Some(ToolIdentity {
                server: "somite".into(),
                tool: tool.into(),
            }),
            raw_input: Some(input),
            raw_output: Some(json!({"ok": true})),
            content: vec!["done".into()],
            locations: Vec::new(),
        }
    }

    #[test]
    fn a_turn_correlates_messages_tools_permissions_and_transactions() {
        let agent = AgentInfo {
            name: Some("test-agent".into()),
            title: None,
            version: Some("1.0.0".into()),
        };
        let mut recorder = TranscriptRecorder::new(
            Generation(2),
            TurnId(5),
            &agent,
            "add QC",
            Redactor::default(),
        );
        recorder.agent_message("Adding ");
        recorder.agent_message("QC. key sk-abcdefgh");
        recorder.agent_message("ijklmnopqrst");
        let transaction = json!({"summary": "Add QC", "operations": []});
        recorder.tool_call(&view(
            "call-1",
            TRANSACTION_TOOL,
            json!({"server": "somite", "tool": TRANSACTION_TOOL, "arguments": transaction}),
        ));
        let permission_id = PermissionId {
            generation: Generation(2),
            sequence: 1,
        };
        let resolution = PermissionResolution::User {
            answer: PermissionAnswer::Cancelled,
        };
        recorder.permission("call-2", permission_id, &[], &resolution);
        let transcript = recorder.finish(TurnOutcome::EndTurn);

        assert_eq!(transcript.user_message, "add QC");
        assert_eq!(transcript.outcome, TurnOutcome::EndTurn);
        assert_eq!(
            transcript.timeline,
            [
                TimelineEntry::AgentMessage {
                    text: format!("Adding QC. key {REDACTED}")
                },
                TimelineEntry::ToolCall {
                    tool_call_id: "call-1".into()
                },
                TimelineEntry::ToolCall {
                    tool_call_id: "call-2".into()
                },
                TimelineEntry::Permission {
                    tool_call_id: "call-2".into(),
                    permission_id,
                    resolution: resolution.clone()
                },
            ]
        );
        assert_eq!(transcript.tool_calls[0].transaction, Some(transaction));
        assert_eq!(transcript.tool_calls[1].permissions.len(), 1);
        assert_eq!(
            transcript.file_name().len(),
            "0000000000000-g2-t5.json".len()
        );
        assert!(transcript.file_name().ends_with("-g2-t5.json"));
    }
}
