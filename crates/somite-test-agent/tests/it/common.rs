//! Runs Somite's ACP client against the scripted test agent and the test
//! double of the Somite MCP server, both built from this package.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use somite_acp::events::SessionInfo;
use somite_acp::{
    AgentEnvironment, AgentSession, AgentWorkspace, EventKind, Generation, LaunchCommand,
    ManualClock, McpServerRole, McpServerSpec, PathSearch, SessionConfig, SessionEvent,
    SessionEvents, SessionLimits, Transcript, TurnOutcome,
};

/// The capability the tests hand the Somite MCP test double.
pub const CAPABILITY: &str = "cap-7f3a9c0e41b24d5f8e6a1b2c3d4e5f60";

/// The tools the Somite test double advertises to Somite's policy.
pub const SOMITE_TOOLS: &[&str] = &[
    somite_api::tools::somite::WORKFLOW_GET,
    somite_api::tools::somite::CATALOG_SEARCH,
    somite_api::tools::somite::GRAPH_APPLY_TRANSACTION,
];

/// How long any one event may take.
const EVENT_TIMEOUT: Duration = Duration::from_secs(10);

pub fn test_agent(args: &[&str]) -> LaunchCommand {
    let argv: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_somite-test-agent").to_owned())
        .chain(args.iter().map(|arg| (*arg).to_owned()))
        .collect();
    LaunchCommand::custom(&argv, &PathSearch::new("")).expect("the test agent is executable")
}

pub fn somite_mcp() -> McpServerSpec {
    McpServerSpec {
        role: McpServerRole::Somite,
        name: "somite".into(),
        command: PathBuf::from(env!("CARGO_BIN_EXE_somite-test-mcp")),
        args: Vec::new(),
        env: vec![(
            somite_api::EnvVars::SOMITE_MCP_CAPABILITY.into(),
            CAPABILITY.into(),
        )],
    }
}

/// The runner environment a test starts from.
pub fn runner_env(extra: &[(&str, &str)]) -> BTreeMap<String, String> {
    let mut env: BTreeMap<String, String> = [
        ("PATH", std::env::var("PATH").unwrap_or_default()),
        (
            "HOME",
            std::env::var("HOME").unwrap_or_else(|_| "/tmp".into()),
        ),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    for (name, value) in extra {
        env.insert((*name).to_owned(), (*value).to_owned());
    }
    env
}

pub fn fast_limits() -> SessionLimits {
    SessionLimits {
        exit_grace: Duration::from_millis(300),
        terminate_grace: Duration::from_millis(700),
        ..SessionLimits::default()
    }
}

pub fn config(command: LaunchCommand, environment: AgentEnvironment) -> SessionConfig {
    let mut config = SessionConfig::new(Generation(7), command, environment);
    config.mcp_servers = vec![somite_mcp()];
    config.somite_tools = SOMITE_TOOLS.iter().map(|tool| (*tool).to_owned()).collect();
    config.limits = fast_limits();
    config
}

pub struct Harness {
    pub session: Option<AgentSession>,
    pub events: SessionEvents,
    pub clock: ManualClock,
    pub workspace_root: PathBuf,
    pub workspace_cwd: PathBuf,
    /// Every event seen so far, for assertions over the whole session.
    pub seen: Vec<SessionEvent>,
}

impl Harness {
    pub fn start(mut config: SessionConfig) -> Self {
        let clock = ManualClock::new();
        config.clock = Arc::new(clock.clone());
        let workspace = AgentWorkspace::create().expect("workspace");
        let workspace_root = workspace.root().to_path_buf();
        let workspace_cwd = workspace.cwd();
        let (session, events) = AgentSession::spawn(config, workspace).expect("spawn");
        Self {
            session: Some(session),
            events,
            clock,
            workspace_root,
            workspace_cwd,
            seen: Vec::new(),
        }
    }

    pub fn session(&self) -> &AgentSession {
        self.session.as_ref().expect("not disconnected")
    }

    pub async fn next(&mut self) -> EventKind {
        let event = tokio::time::timeout(EVENT_TIMEOUT, self.events.recv())
            .await
            .expect("an event in time")
            .expect("the session reports until Ended");
        assert_eq!(event.generation, Generation(7));
        self.seen.push(event.clone());
        event.kind
    }

    /// Events up to and including the first that `done` accepts.
    pub async fn until(&mut self, done: impl Fn(&EventKind) -> bool) -> Vec<EventKind> {
        let mut events = Vec::new();
        loop {
            let event = self.next().await;
            let finished = done(&event);
            events.push(event);
            if finished {
                return events;
            }
        }
    }

    pub async fn ready(&mut self) -> SessionInfo {
        match self
            .until(|event| matches!(event, EventKind::Ready { .. }))
            .await
            .pop()
        {
            Some(EventKind::Ready { session }) => session,
            other => panic!("expected Ready, got {other:?}"),
        }
    }

    pub async fn prompt(&self, text: &str) {
        self.session().prompt(text).await.expect("prompt sent");
    }

    pub async fn plan(&self, steps: Value) {
        self.prompt(&format!("PLAN: {steps}")).await;
    }

    /// Waits for the turn to end; returns its events, outcome and transcript.
    pub async fn turn_end(&mut self) -> (Vec<EventKind>, TurnOutcome, Transcript) {
        let mut events = self
            .until(|event| matches!(event, EventKind::TurnEnded { .. }))
            .await;
        match events.pop() {
            Some(EventKind::TurnEnded {
                outcome,
                transcript,
                ..
            }) => (events, outcome, transcript),
            _ => unreachable!(),
        }
    }

    /// Every agent message chunk among `events`, joined.
    pub fn said(events: &[EventKind]) -> String {
        events
            .iter()
            .filter_map(|event| match event {
                EventKind::AgentMessage { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    pub async fn disconnect(&mut self) -> somite_acp::CleanupReport {
        let session = self.session.take().expect("connected");
        let report = tokio::time::timeout(EVENT_TIMEOUT, session.disconnect())
            .await
            .expect("disconnect in time");
        assert!(
            !self.workspace_root.exists(),
            "the private workspace is removed"
        );
        report
    }
}
