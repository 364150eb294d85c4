//! What a session reports, in Somite's own terms.
//!
//! ACP schema types stay inside this crate: the server and the browser see
//! these serialisable domain types only, so a new ACP schema release changes
//! one conversion module rather than every consumer.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::permission::{AskReason, PermissionAnswer, PermissionChoice, ToolIdentity};
use crate::transcript::Transcript;

/// Which connection of the server's life a session is. Request ids restart
/// with every agent connection, so everything a session hands out (turns,
/// permissions, events) is bound to its generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Generation(pub u64);

impl fmt::Display for Generation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// One prompt turn of a session, numbered from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct TurnId(pub u64);

/// A permission request waiting for (or answered by) the user: `g<generation>-p<n>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PermissionId {
    /// The session generation it belongs to.
    pub generation: Generation,
    /// Its number within the session, from 1.
    pub sequence: u64,
}

impl fmt::Display for PermissionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "g{}-p{}", self.generation.0, self.sequence)
    }
}

/// A string that is not a [`PermissionId`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("`{0}` is not a permission id (expected g<generation>-p<number>)")]
pub struct InvalidPermissionId(pub String);

impl FromStr for PermissionId {
    type Err = InvalidPermissionId;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidPermissionId(text.to_owned());
        let (generation, sequence) = text
            .strip_prefix('g')
            .and_then(|rest| rest.split_once("-p"))
            .ok_or_else(invalid)?;
        let number = |digits: &str| {
            (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
                .then(|| digits.parse().ok())
                .flatten()
        };
        Ok(Self {
            generation: Generation(number(generation).ok_or_else(invalid)?),
            sequence: number(sequence).ok_or_else(invalid)?,
        })
    }
}

impl Serialize for PermissionId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for PermissionId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One event of one session, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionEvent {
    /// The session it belongs to.
    pub generation: Generation,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// What happened in a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// The agent is initialised and its session exists: prompts may be sent.
    Ready {
        /// The session as the agent described it.
        session: SessionInfo,
    },
    /// The agent needs the user to log in before it creates a session.
    LoginRequired {
        /// The agent's login methods.
        methods: Vec<LoginMethod>,
    },
    /// A chunk of the agent's visible reply.
    AgentMessage {
        /// The turn it belongs to, if any.
        turn: Option<TurnId>,
        /// The text.
        text: String,
    },
    /// A chunk of the agent's visible reasoning summary.
    AgentThought {
        /// The turn it belongs to, if any.
        turn: Option<TurnId>,
        /// The text.
        text: String,
    },
    /// A tool call started or changed; the whole current state.
    ToolCall {
        /// The turn it belongs to, if any.
        turn: Option<TurnId>,
        /// The tool call.
        tool_call: ToolCallView,
    },
    /// The agent's plan, replacing any earlier one.
    Plan {
        /// The turn it belongs to, if any.
        turn: Option<TurnId>,
        /// The plan.
        entries: Vec<PlanEntry>,
    },
    /// The agent's session configuration changed; the whole list.
    ConfigOptions {
        /// The options, in the agent's priority order.
        options: Vec<ConfigOption>,
    },
    /// The agent switched mode.
    ModeChanged {
        /// The new mode.
        mode_id: String,
    },
    /// A permission request waits for the user.
    PermissionRequested {
        /// The request.
        permission: PendingPermission,
    },
    /// A permission request was answered.
    PermissionResolved {
        /// The request.
        permission_id: PermissionId,
        /// The tool call it was about.
        tool_call_id: String,
        /// Who answered, and how.
        resolution: PermissionResolution,
    },
    /// A turn finished; its transcript is ready to persist.
    TurnEnded {
        /// The turn.
        turn: TurnId,
        /// How it ended.
        outcome: TurnOutcome,
        /// The normalised, redacted transcript.
        transcript: Transcript,
    },
    /// The session is over and cleaned up. Always the last event.
    Ended {
        /// Why it ended.
        reason: EndReason,
        /// What cleaning up did.
        cleanup: CleanupReport,
    },
}

/// The session as the agent described it after `session/new`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    /// The agent's session id.
    pub session_id: String,
    /// The agent.
    pub agent: AgentInfo,
    /// The agent's configuration options.
    pub config_options: Vec<ConfigOption>,
    /// The agent's modes, if it has the older mode API.
    pub modes: Option<ModeState>,
    /// The disposable directory the agent works in.
    pub workspace: PathBuf,
}

/// The agent's self-description from `initialize`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AgentInfo {
    /// Its name, when it gave one.
    pub name: Option<String>,
    /// Its display title.
    pub title: Option<String>,
    /// Its version.
    pub version: Option<String>,
}

/// A way to log in to the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoginMethod {
    /// The agent's id for it.
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// Whether Somite can start it.
    pub kind: LoginKind,
}

/// Who carries out a login.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoginKind {
    /// The agent itself, through `authenticate` ([`crate::AgentSession::log_in`]).
    Agent,
    /// The user, by running the agent interactively in a terminal.
    Terminal,
}

/// An agent configuration option Somite renders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigOption {
    /// The agent's id for it.
    pub id: String,
    /// Its label.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// `mode`, `model`, `model_config`, `thought_level`, or the agent's own.
    pub category: Option<String>,
    /// Its control and current value.
    pub control: ConfigControl,
}

/// The control of a configuration option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConfigControl {
    /// One value out of a list.
    Select {
        /// The current value.
        current_value: String,
        /// The possible values.
        choices: Vec<ConfigChoice>,
    },
    /// On or off.
    Boolean {
        /// The current value.
        current_value: bool,
    },
}

/// One value of a select option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigChoice {
    /// The value.
    pub value: String,
    /// Its label.
    pub name: String,
    /// What it means.
    pub description: Option<String>,
    /// The label of the group it is listed under, if grouped.
    pub group: Option<String>,
}

/// A new value for a configuration option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ConfigValue {
    /// A boolean option's value.
    Boolean(bool),
    /// A select option's value.
    Select(String),
}

/// The agent's modes (the older API; configuration options supersede it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeState {
    /// The current mode.
    pub current_mode_id: String,
    /// The modes.
    pub available: Vec<Mode>,
}

/// One mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mode {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
}

/// The current state of one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallView {
    /// The agent's id for it, which correlates everything about it.
    pub tool_call_id: String,
    /// What the agent calls it.
    pub title: String,
    /// What kind of work it does.
    pub kind: ToolKind,
    /// Where it is.
    pub status: ToolStatus,
    /// Its MCP server and tool, when its fields agree on one.
    pub identity: Option<ToolIdentity>,
    /// Its input, redacted.
    pub raw_input: Option<Value>,
    /// Its output, redacted.
    pub raw_output: Option<Value>,
    /// Its textual content, redacted.
    pub content: Vec<String>,
    /// The files it touches.
    pub locations: Vec<String>,
}

/// What kind of work a tool call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads data.
    Read,
    /// Edits data.
    Edit,
    /// Deletes data.
    Delete,
    /// Moves data.
    Move,
    /// Searches.
    Search,
    /// Runs a command or code.
    Execute,
    /// Thinks.
    Think,
    /// Fetches from the network.
    Fetch,
    /// Switches the agent's mode.
    SwitchMode,
    /// Anything else.
    #[default]
    Other,
}

/// Where a tool call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// Not started.
    #[default]
    Pending,
    /// Running.
    InProgress,
    /// Finished.
    Completed,
    /// Failed.
    Failed,
}

/// One step of the agent's plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanEntry {
    /// What the step is.
    pub content: String,
    /// How much it matters.
    pub priority: PlanPriority,
    /// Where it is.
    pub status: PlanStatus,
}

/// How much a plan step matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanPriority {
    /// High.
    High,
    /// Medium.
    Medium,
    /// Low.
    Low,
}

/// Where a plan step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    /// Not started.
    Pending,
    /// Under way.
    InProgress,
    /// Done.
    Completed,
}

/// A permission request waiting for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingPermission {
    /// Somite's id for the request, for answering it.
    pub id: PermissionId,
    /// The exact tool call it is about.
    pub tool_call: ToolCallView,
    /// The agent's options, in its order; answer with one of their ids.
    pub options: Vec<PermissionChoice>,
    /// Why Somite did not answer it itself.
    pub reason: AskReason,
    /// How long the user has before Somite answers it.
    pub timeout_ms: u64,
}

/// Who answered a permission request, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum PermissionResolution {
    /// Somite, because the call's identity is on an automatic allowlist.
    Policy {
        /// The `allow_once` option selected.
        option_id: String,
        /// The identity that matched.
        identity: ToolIdentity,
    },
    /// The user.
    User {
        /// The answer.
        answer: PermissionAnswer,
    },
    /// Somite, because nobody answered within the timeout.
    Timeout {
        /// The answer (`reject_once`, else `cancelled`).
        answer: PermissionAnswer,
    },
    /// Somite answered `cancelled` because the user cancelled the turn.
    TurnCancelled,
    /// Somite answered `cancelled` because the session ended.
    SessionEnded,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TurnOutcome {
    /// The agent finished.
    EndTurn,
    /// The agent ran out of tokens.
    MaxTokens,
    /// The agent hit its request limit.
    MaxTurnRequests,
    /// The agent refused.
    Refusal,
    /// The user cancelled (whatever the agent answered afterwards).
    Cancelled,
    /// The agent answered the prompt with an error.
    Failed {
        /// The agent's message.
        message: String,
    },
    /// The session ended during the turn.
    Interrupted,
}

/// Why a session ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EndReason {
    /// Somite disconnected it.
    Disconnected,
    /// The agent exited or closed its output.
    AgentExited {
        /// How it exited, when known.
        exit: Option<ExitSummary>,
        /// The end of its standard error, redacted.
        stderr_tail: String,
    },
    /// The agent wrote a frame larger than the limit.
    FrameTooLarge {
        /// The limit.
        limit: usize,
    },
    /// The agent wrote something that is not a protocol message.
    MalformedOutput {
        /// What was wrong.
        message: String,
    },
    /// The agent does not speak ACP v1.
    UnsupportedProtocolVersion {
        /// What it answered.
        message: String,
    },
    /// `initialize` or `session/new` failed.
    InitializationFailed {
        /// The agent's message.
        message: String,
    },
    /// The connection failed.
    ConnectionFailed {
        /// What failed.
        message: String,
    },
}

/// How a process exited.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitSummary {
    /// Its exit code, when it exited normally.
    pub code: Option<i32>,
    /// The signal that ended it, on Unix.
    pub signal: Option<i32>,
}

impl From<std::process::ExitStatus> for ExitSummary {
    fn from(status: std::process::ExitStatus) -> Self {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal = None;
        Self {
            code: status.code(),
            signal,
        }
    }
}

/// What cleaning up after a session did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CleanupReport {
    /// How the agent exited, when it was reaped.
    pub agent_exit: Option<ExitSummary>,
    /// How hard Somite had to push.
    pub stop: StopEscalation,
    /// Whether the private workspace is gone.
    pub workspace: WorkspaceRemoval,
}

impl CleanupReport {
    /// Whether the agent is gone and the workspace removed.
    #[must_use]
    pub fn is_clean(&self) -> bool {
        self.agent_exit.is_some() && matches!(self.workspace, WorkspaceRemoval::Removed { .. })
    }
}

/// How the agent's process group was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopEscalation {
    /// It exited by itself once its input closed (or had already exited).
    Exited,
    /// It needed `SIGTERM`.
    Terminated,
    /// It needed `SIGKILL`.
    Killed,
}

/// Whether the private workspace was removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum WorkspaceRemoval {
    /// Removed, with everything in it.
    Removed {
        /// Where it was.
        path: PathBuf,
    },
    /// Removal failed; the directory may remain.
    Failed {
        /// Where it is.
        path: PathBuf,
        /// Why removal failed.
        error: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_ids_round_trip_through_text() {
        let id = PermissionId {
            generation: Generation(3),
            sequence: 14,
        };
        assert_eq!(id.to_string(), "g3-p14");
        assert_eq!("g3-p14".parse(), Ok(id));
        for bad in ["", "g3", "g-p1", "g3-p", "x3-p1", "g3-p1x", "g+3-p1"] {
            assert!(bad.parse::<PermissionId>().is_err(), "{bad}");
        }
        assert_eq!(
            serde_json::to_value(id).expect("serialise"),
            serde_json::json!("g3-p14")
        );
    }

    #[test]
    fn config_values_are_plain_json() {
        assert_eq!(
            serde_json::from_str::<ConfigValue>("true").expect("bool"),
            ConfigValue::Boolean(true)
        );
        assert_eq!(
            serde_json::from_str::<ConfigValue>("\"gpt\"").expect("string"),
            ConfigValue::Select("gpt".into())
        );
    }
}
