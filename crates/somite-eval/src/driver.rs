//! Runs one evaluation through the real boundary and records its evidence.
//!
//! The harness is a client of `somite serve` like the web workspace is: it
//! starts the real server on a fresh seeded project, connects the agent
//! through the same `/api/agent/*` routes (so launcher checks, the
//! environment allowlist, the MCP attachment and the permission policy are
//! exactly the production ones), and watches the activity feed. It answers
//! only the permission requests Somite's own policy did not allow — the
//! policy already allows exactly the tools Somite's MCP servers advertise,
//! with consistent identity — and refuses every one of those, recording it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};
use somite_acp::transcript::Redactor;
use somite_api::EnvVars;
use somite_api::tools::somite as tools;
use somite_project::toolchain::resolve_pixi;
use somite_project::{Layout, Project, Seed};
use tokio::process::{Child, Command};

use crate::evidence::{Evidence, FeedEvent, HarnessRecord, Injection, Refusal, Toolchain, files};
use crate::scenario::{DATA_FILES, HUMAN_NOTE_ID, Scenario};
use crate::score::{Score, TERMINAL_PHASES, score};

/// How long the server may take to print its URL.
const SERVE_READY_TIMEOUT: Duration = Duration::from_secs(30);
/// How often the feed is read.
const FEED_POLL: Duration = Duration::from_millis(100);
/// How long a cancelled turn (or run) may take to end.
const WIND_DOWN: Duration = Duration::from_secs(30);
/// How long `somite serve` may take to stop after Ctrl-C.
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(15);

/// Which agent to launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentChoice {
    /// A launcher id of the ACP registry (or an installed agent).
    Launcher(String),
    /// A custom command, as an argv array.
    Command(Vec<String>),
}

impl AgentChoice {
    /// `[...]` is a JSON argv array; anything else a launcher id.
    pub fn parse(text: &str) -> Result<Self, EvalError> {
        if text.trim_start().starts_with('[') {
            let argv: Vec<String> = serde_json::from_str(text).map_err(|error| {
                EvalError::Usage(format!(
                    "AGENT looks like a JSON argv array but is not one: {error}"
                ))
            })?;
            if argv.is_empty() {
                return Err(EvalError::Usage("the AGENT argv array is empty".into()));
            }
            Ok(Self::Command(argv))
        } else if text.is_empty() {
            Err(EvalError::Usage(
                "AGENT is empty: give a launcher id or a JSON argv array".into(),
            ))
        } else {
            Ok(Self::Launcher(text.to_owned()))
        }
    }

    fn connect_body(&self) -> Value {
        match self {
            Self::Launcher(id) => json!({"launcher": id}),
            Self::Command(argv) => json!({"command": argv}),
        }
    }
}

/// One evaluation to run.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    /// The agent.
    pub agent: AgentChoice,
    /// The model to select, through the option of category `model`.
    pub model: Option<String>,
    /// The reasoning effort, through the option of category `thought_level`.
    pub effort: Option<String>,
    /// The port `somite serve` binds (0: any free port).
    pub port: u16,
    /// The scenario.
    pub scenario: Scenario,
    /// The `somite` binary to serve with.
    pub somite: PathBuf,
    /// Under which folder `.somite/mcp-agent-evals/` is written.
    pub output_root: PathBuf,
    /// How long the agent's turn may take before the harness cancels it.
    pub turn_timeout: Duration,
}

/// A finished evaluation.
#[derive(Debug)]
pub struct EvalOutcome {
    /// Where its evidence is.
    pub dir: PathBuf,
    /// Its score.
    pub score: Score,
    /// The agent's message when its turn failed (say, "Authentication
    /// required"), which explains a low score that is no judgement of it.
    pub turn_failure: Option<String>,
}

/// Why an evaluation could not be carried out (as opposed to scoring low).
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The command line is wrong.
    #[error("{0}")]
    Usage(String),
    /// Preparing or recording on disk failed.
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    /// The server did not come up or answered unexpectedly.
    #[error("somite serve: {0}")]
    Server(String),
    /// The agent could not be set up as asked.
    #[error("agent: {0}")]
    Agent(String),
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> EvalError {
    let context = context.into();
    move |error| EvalError::Io(context, error)
}

/// Runs the evaluation and writes its evidence and score.
pub async fn run(config: &EvalConfig) -> Result<EvalOutcome, EvalError> {
    let project = tempfile::Builder::new()
        .prefix("somite-eval-")
        .tempdir()
        .map_err(io("cannot create the scenario's project folder"))?;
    seed_project(project.path(), config.scenario)?;
    let dir = evaluation_dir(&config.output_root, config.scenario)?;
    write_text(&dir, "prompt.txt", &config.scenario.prompt())?;

    let mut server = Server::start(&config.somite, project.path(), config.port, &dir).await?;
    let result = drive(config, &server, project.path(), &dir).await;
    server.stop().await;
    let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
    write_text(&dir, "server.log", &Redactor::default().redact_text(&log))?;
    result?;

    let evidence = Evidence::load(&dir).map_err(|error| EvalError::Server(error.to_string()))?;
    let score = score(&evidence);
    write_json(&dir, files::SCORE, &score)?;
    let turn_failure = evidence
        .harness
        .turn_outcome
        .as_ref()
        .filter(|outcome| outcome.get("kind").and_then(Value::as_str) == Some("failed"))
        .map(|outcome| {
            outcome
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        });
    Ok(EvalOutcome {
        dir,
        score,
        turn_failure,
    })
}

/// Re-scores a recorded evaluation and rewrites its score file.
pub fn rescore(dir: &Path) -> Result<Score, EvalError> {
    let evidence = Evidence::load(dir).map_err(|error| EvalError::Usage(error.to_string()))?;
    let score = score(&evidence);
    write_json(dir, files::SCORE, &score)?;
    Ok(score)
}

fn seed_project(root: &Path, scenario: Scenario) -> Result<(), EvalError> {
    for (path, content) in DATA_FILES {
        let file = root.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)
                .map_err(io(format!("cannot create {}", parent.display())))?;
        }
        std::fs::write(&file, content).map_err(io(format!("cannot write {}", file.display())))?;
    }
    let mut project = Project::open(root, Seed::Empty)
        .map_err(|error| EvalError::Server(format!("cannot create the project: {error}")))?;
    let transaction = serde_json::from_value(json!({
        "base_state_revision": project.state_revision(),
        "idempotency_key": "eval-seed-0001",
        "summary": format!("Seed the {scenario} scenario"),
        "operations": scenario.seed_operations(),
    }))
    .map_err(|error| {
        EvalError::Server(format!("the {scenario} seed is not a transaction: {error}"))
    })?;
    project
        .apply_transaction(&transaction)
        .map_err(|error| EvalError::Server(format!("the {scenario} seed was refused: {error}")))?;
    Ok(())
}

fn evaluation_dir(root: &Path, scenario: Scenario) -> Result<PathBuf, EvalError> {
    // `2026-12-03T10:15:30.123Z` → `20261203T101530123Z`: sortable and
    // free of characters other file systems refuse.
    let stamp: String = somite_runner::timestamp::now()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let base = root.join(".somite").join("mcp-agent-evals");
    let mut dir = base.join(format!("{stamp}-{scenario}"));
    let mut attempt = 1;
    while dir.exists() {
        attempt += 1;
        dir = base.join(format!("{stamp}-{scenario}-{attempt}"));
    }
    std::fs::create_dir_all(&dir).map_err(io(format!("cannot create {}", dir.display())))?;
    Ok(dir)
}

fn write_text(dir: &Path, name: &str, text: &str) -> Result<(), EvalError> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(io(format!("cannot write {}", path.display())))
}

fn write_json(dir: &Path, name: &str, value: &impl Serialize) -> Result<(), EvalError> {
    let value = serde_json::to_value(value).unwrap_or(Value::Null);
    let text = serde_json::to_string_pretty(&somite_acp::redact(value)).unwrap_or_default();
    write_text(dir, name, &format!("{text}\n"))
}

/// `somite serve` on the scenario's project.
struct Server {
    child: Child,
    url: String,
    http: reqwest::Client,
}

impl Server {
    async fn start(
        somite: &Path,
        project: &Path,
        port: u16,
        dir: &Path,
    ) -> Result<Self, EvalError> {
        let log_path = dir.join("server.log");
        let log = std::fs::File::create(&log_path).map_err(io("cannot create server.log"))?;
        let log_err = log.try_clone().map_err(io("cannot share server.log"))?;
        let mut child = Command::new(somite)
            .arg("serve")
            .arg("--project")
            .arg(project)
            .args(["--port", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(log_err)
            .kill_on_drop(true)
            .spawn()
            .map_err(io(format!("cannot start {}", somite.display())))?;
        let deadline = Instant::now() + SERVE_READY_TIMEOUT;
        let url = loop {
            let log = std::fs::read_to_string(&log_path).unwrap_or_default();
            if let Some(url) = log
                .split_whitespace()
                .find(|word| word.starts_with("http://127.0.0.1:"))
            {
                break url.trim_end_matches('/').to_owned();
            }
            if let Ok(Some(status)) = child.try_wait() {
                return Err(EvalError::Server(format!(
                    "exited ({status}) before serving; its log: {}",
                    log.trim()
                )));
            }
            if Instant::now() > deadline {
                return Err(EvalError::Server("printed no URL within 30 s".into()));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        // The runtime closes an idle connection after its keep-alive; a
        // pooled one is dropped before that, never reused as it closes.
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .pool_idle_timeout(somite_api::limits::RUNTIME_POOL_IDLE)
            .build()
            .map_err(|error| EvalError::Server(error.to_string()))?;
        Ok(Self { child, url, http })
    }

    async fn request(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, EvalError> {
        let mut request = self.http.request(method, format!("{}{path}", self.url));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request
            .send()
            .await
            .map_err(|error| EvalError::Server(format!("{path}: {error}")))?;
        let status = response.status();
        let body: Value = response
            .json()
            .await
            .map_err(|error| EvalError::Server(format!("{path}: unreadable answer: {error}")))?;
        if status.is_success() {
            Ok(body)
        } else {
            Err(EvalError::Server(format!(
                "{path} answered {status}: {body}"
            )))
        }
    }

    async fn get(&self, path: &str) -> Result<Value, EvalError> {
        self.request(reqwest::Method::GET, path, None).await
    }

    async fn post(&self, path: &str, body: Value) -> Result<Value, EvalError> {
        self.request(reqwest::Method::POST, path, Some(body)).await
    }

    /// Ctrl-C, as a person would stop it; killed if it does not stop.
    async fn stop(&mut self) {
        if let Some(pid) = self.child.id().and_then(|pid| i32::try_from(pid).ok()) {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGINT,
            );
        }
        if tokio::time::timeout(SHUTDOWN_TIMEOUT, self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

/// The feed as the harness has read it so far.
struct Feed {
    /// The runtime's feed epoch: positions sent back are `<epoch>:<cursor>`.
    epoch: String,
    cursor: u64,
    events: Vec<FeedEvent>,
    gaps: u32,
}

impl Feed {
    /// Reads what is new; returns the new events. A transaction event names
    /// its result graph by state revision only; the harness fetches that
    /// document at once and records it in the event as `document`, so the
    /// recorded evidence holds every state the graph went through. A state
    /// the runtime no longer held counts as a gap, as evicted events do.
    async fn read(&mut self, server: &Server) -> Result<Vec<FeedEvent>, EvalError> {
        let page = server
            .get(&format!(
                "/api/activity?after={}:{}",
                self.epoch, self.cursor
            ))
            .await?;
        if !page.get("gap_until").is_none_or(Value::is_null) {
            self.gaps += 1;
        }
        if page.get("reset").and_then(Value::as_bool) == Some(true) {
            // The runtime restarted under the harness: what happened in
            // between is unknown.
            self.gaps += 1;
            self.epoch = page
                .get("epoch")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            self.cursor = page.get("last_cursor").and_then(Value::as_u64).unwrap_or(0);
        }
        let mut fresh: Vec<FeedEvent> =
            serde_json::from_value(page.get("events").cloned().unwrap_or_default())
                .map_err(|error| EvalError::Server(format!("unreadable feed page: {error}")))?;
        for event in fresh
            .iter_mut()
            .filter(|event| event.kind == somite_api::FeedKind::Transaction.as_str())
        {
            let Some(revision) = event
                .data
                .pointer("/outcome/state_revision")
                .and_then(Value::as_str)
            else {
                continue;
            };
            match server
                .get(&format!("/api/workflow?state_revision={revision}"))
                .await
            {
                Ok(view) => {
                    if let (Some(data), Some(document)) =
                        (event.data.as_object_mut(), view.get("document"))
                    {
                        data.insert("document".to_owned(), document.clone());
                    }
                }
                Err(_) => self.gaps += 1,
            }
        }
        if let Some(last) = fresh.last() {
            self.cursor = last.cursor;
        }
        self.events.extend(fresh.iter().cloned());
        Ok(fresh)
    }
}

fn agent_event<'a>(event: &'a FeedEvent, kind: &str) -> Option<&'a Value> {
    (event.kind == somite_api::FeedKind::Agent.as_str()
        && event.data.get("type").and_then(Value::as_str) == Some(kind))
    .then_some(&event.data)
}

async fn drive(
    config: &EvalConfig,
    server: &Server,
    project: &Path,
    dir: &Path,
) -> Result<(), EvalError> {
    let initial = server.get("/api/workflow").await?;
    write_json(dir, files::WORKFLOW_INITIAL, &initial)?;
    let mut feed = Feed {
        epoch: initial
            .get("feed_epoch")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        cursor: initial
            .get("feed_cursor")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        events: Vec::new(),
        gaps: 0,
    };
    let mut harness = HarnessRecord {
        scenario: config.scenario,
        turn: None,
        turn_outcome: None,
        timed_out: false,
        feed_gaps: 0,
        injections: Vec::new(),
        refusals: Vec::new(),
        toolchain: find_pixi(),
        cleanup_cancelled_runs: Vec::new(),
        problems: Vec::new(),
    };

    let launchers = server.get("/api/agent/launchers").await?;
    let session = connect(config, server).await?;
    let configured = configure(config, server, &session).await;
    write_json(
        dir,
        "config.json",
        &json!({
            "agent": config.agent,
            "agent_info": session.pointer("/session/agent"),
            "command": session.get("command"),
            "requested": {"model": config.model, "effort": config.effort},
            "applied": configured.as_ref().map(|(applied, _)| applied.clone()).ok(),
            "config_options": configured.as_ref().map(|(_, options)| options.clone()).ok(),
            "registry": launchers.get("registry"),
            "scenario": config.scenario,
        }),
    )?;
    if let Err(error) = configured {
        let _ = server.post("/api/agent/disconnect", json!({})).await;
        return Err(error);
    }

    let prompt = server
        .post(
            "/api/agent/prompt",
            json!({"text": config.scenario.prompt()}),
        )
        .await?;
    let turn = prompt.get("turn").and_then(Value::as_u64);
    harness.turn = turn;
    let deadline = Instant::now() + config.turn_timeout;
    let mut cancelled_at: Option<Instant> = None;
    let mut run_ids: Vec<String> = Vec::new();
    'turn: loop {
        tokio::time::sleep(FEED_POLL).await;
        for event in feed.read(server).await? {
            if event.kind == somite_api::FeedKind::Run.as_str()
                && let Some(run_id) = event.data.get("run_id").and_then(Value::as_str)
                && !run_ids.iter().any(|known| known == run_id)
            {
                run_ids.push(run_id.to_owned());
            }
            if let Some(data) = agent_event(&event, "permission_requested") {
                harness.refusals.push(refuse(server, data).await);
            }
            if config.scenario == Scenario::Stale
                && harness.injections.is_empty()
                && let Some(call_id) = completed_inspection(&event)
            {
                match inject_human_edit(server, &call_id).await {
                    Ok(injection) => harness.injections.push(injection),
                    Err(error) => harness
                        .problems
                        .push(format!("injecting the human edit failed: {error}")),
                }
            }
            if let Some(data) = agent_event(&event, "turn_ended")
                && data.get("turn").and_then(Value::as_u64) == turn
            {
                harness.turn_outcome = data.get("outcome").cloned();
                break 'turn;
            }
            if agent_event(&event, "ended").is_some() {
                harness
                    .problems
                    .push("the agent session ended during the turn".into());
                break 'turn;
            }
        }
        match cancelled_at {
            None if Instant::now() > deadline => {
                harness.timed_out = true;
                let _ = server.post("/api/agent/cancel", json!({})).await;
                cancelled_at = Some(Instant::now());
            }
            Some(at) if at.elapsed() > WIND_DOWN => {
                harness
                    .problems
                    .push("the turn did not end within 30 s of its cancellation".into());
                break;
            }
            _ => {}
        }
    }
    harness.feed_gaps = feed.gaps;

    let final_workflow = server.get("/api/workflow").await?;
    let readiness = server.get("/api/readiness").await?;
    let mut runs = Vec::new();
    for run_id in &run_ids {
        runs.push(server.get(&format!("/api/runs/{run_id}")).await?);
    }
    let graph_revision = final_workflow
        .get("graph_revision")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let evidence = server
        .get(&format!("/api/evidence?graph_revision={graph_revision}"))
        .await?;
    for run in &runs {
        let phase = run.get("phase").and_then(Value::as_str).unwrap_or_default();
        if !TERMINAL_PHASES.contains(&phase)
            && let Some(run_id) = run.get("run_id").and_then(Value::as_str)
        {
            wind_down_run(server, run_id).await;
            harness.cleanup_cancelled_runs.push(run_id.to_owned());
        }
    }
    match server.post("/api/agent/disconnect", json!({})).await {
        Ok(answer)
            if answer
                .pointer("/cleanup/workspace/kind")
                .and_then(Value::as_str)
                != Some("removed") =>
        {
            harness
                .problems
                .push(format!("disconnecting left something behind: {answer}"));
        }
        Ok(_) => {}
        Err(error) => harness
            .problems
            .push(format!("disconnecting failed: {error}")),
    }
    feed.read(server).await?;

    let events: String = feed
        .events
        .iter()
        .map(|event| {
            let value = somite_acp::redact(serde_json::to_value(event).unwrap_or_default());
            format!("{value}\n")
        })
        .collect();
    write_text(dir, files::EVENTS, &events)?;
    write_json(dir, files::WORKFLOW_FINAL, &final_workflow)?;
    write_json(dir, files::READINESS_FINAL, &readiness)?;
    write_json(dir, files::RUNS, &runs)?;
    write_json(dir, files::EVIDENCE, &evidence)?;
    write_json(dir, files::HARNESS, &harness)?;
    copy_transcripts(project, dir)
}

/// Connects the agent and waits until its session is ready.
async fn connect(config: &EvalConfig, server: &Server) -> Result<Value, EvalError> {
    server
        .post("/api/agent/connect", config.agent.connect_body())
        .await?;
    let deadline = Instant::now() + config.turn_timeout;
    loop {
        let session = server.get("/api/agent/session").await?;
        match session
            .get("state")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "ready" => return Ok(session),
            "login_required" => {
                let _ = server.post("/api/agent/disconnect", json!({})).await;
                return Err(EvalError::Agent(format!(
                    "the agent needs a login first ({}); log in by running it once in a terminal",
                    session.get("login_methods").unwrap_or(&Value::Null)
                )));
            }
            "ended" | "disconnected" => {
                return Err(EvalError::Agent(format!(
                    "the session ended before it was ready: {}",
                    session.get("ended").unwrap_or(&Value::Null)
                )));
            }
            _ if Instant::now() > deadline => {
                let _ = server.post("/api/agent/disconnect", json!({})).await;
                return Err(EvalError::Agent("the session was not ready in time".into()));
            }
            _ => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// Applies MODEL and EFFORT through the options the agent advertises;
/// returns what was applied and the options afterwards.
async fn configure(
    config: &EvalConfig,
    server: &Server,
    session: &Value,
) -> Result<(Value, Value), EvalError> {
    let mut options = session
        .get("config_options")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    let mut applied = serde_json::Map::new();
    for (category, wanted) in [("model", &config.model), ("thought_level", &config.effort)] {
        let Some(wanted) = wanted else { continue };
        let option = options
            .as_array()
            .into_iter()
            .flatten()
            .find(|option| option.get("category").and_then(Value::as_str) == Some(category))
            .cloned();
        let Some(option) = option else {
            return Err(EvalError::Agent(format!(
                "`{wanted}` was asked for, but the agent advertises no `{category}` option; pass - to keep its default"
            )));
        };
        let choices: Vec<&str> = option
            .pointer("/control/choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|choice| choice.get("value").and_then(Value::as_str))
            .collect();
        if !choices.contains(&wanted.as_str()) {
            return Err(EvalError::Agent(format!(
                "the agent's `{category}` option does not offer `{wanted}` (it offers {choices:?})"
            )));
        }
        let config_id = option.get("id").cloned().unwrap_or_default();
        let answer = server
            .post(
                "/api/agent/config",
                json!({"config_id": config_id, "value": wanted}),
            )
            .await?;
        options = answer.get("config_options").cloned().unwrap_or_default();
        applied.insert(
            category.to_owned(),
            json!({"config_id": config_id, "value": wanted}),
        );
    }
    Ok((Value::Object(applied), options))
}

/// The id of a completed `somite.workflow.get`, if this event is one.
fn completed_inspection(event: &FeedEvent) -> Option<String> {
    let call = agent_event(event, "tool_call")?.get("tool_call")?;
    let is_get = call.pointer("/identity/server").and_then(Value::as_str) == Some("somite")
        && call.pointer("/identity/tool").and_then(Value::as_str) == Some(tools::WORKFLOW_GET);
    let completed = call.get("status").and_then(Value::as_str) == Some("completed");
    (is_get && completed)
        .then(|| call.get("tool_call_id")?.as_str().map(str::to_owned))
        .flatten()
}

/// Adds the human note of `stale`, as the web workspace would.
async fn inject_human_edit(server: &Server, after: &str) -> Result<Injection, EvalError> {
    let workflow = server.get("/api/workflow").await?;
    let outcome = server
        .post(
            "/api/transactions",
            json!({
                "base_state_revision": workflow.get("state_revision"),
                "idempotency_key": "eval-human-edit-0001",
                "summary": "A person adds a note while the agent works",
                "operations": [{"op": "add_note", "note_id": HUMAN_NOTE_ID,
                                "text": "Added by a person while the agent worked: keep this note.",
                                "x": 80, "y": 400}],
            }),
        )
        .await?;
    Ok(Injection {
        after_tool_call_id: after.to_owned(),
        note_id: HUMAN_NOTE_ID.to_owned(),
        state_revision: outcome
            .get("state_revision")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    })
}

/// Refuses a permission request Somite's policy left to the user.
async fn refuse(server: &Server, data: &Value) -> Refusal {
    let permission = data.get("permission").cloned().unwrap_or_default();
    let id = permission
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let reject = permission
        .get("options")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|option| option.get("kind").and_then(Value::as_str) == Some("reject_once"))
        .and_then(|option| option.get("option_id").and_then(Value::as_str))
        .map(str::to_owned);
    let body = match &reject {
        Some(option_id) => json!({"option_id": option_id}),
        None => json!({"cancel": true}),
    };
    let answered = server
        .post(&format!("/api/agent/permissions/{id}"), body)
        .await;
    Refusal {
        permission_id: id,
        tool_call_id: permission
            .pointer("/tool_call/tool_call_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        title: permission
            .pointer("/tool_call/title")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        reason: permission.get("reason").cloned().unwrap_or_default(),
        answer: match answered {
            Ok(_) => reject.unwrap_or_else(|| "cancelled".to_owned()),
            Err(error) => format!("not delivered: {error}"),
        },
    }
}

/// Cancels a run the agent left going and waits for it to stop.
async fn wind_down_run(server: &Server, run_id: &str) {
    let _ = server
        .post(&format!("/api/runs/{run_id}/cancel"), json!({}))
        .await;
    let deadline = Instant::now() + WIND_DOWN;
    while Instant::now() < deadline {
        let status = server
            .get(&format!("/api/runs/{run_id}?wait_ms=2000"))
            .await;
        let phase = status
            .as_ref()
            .ok()
            .and_then(|status| status.get("phase"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if status.is_err() || TERMINAL_PHASES.contains(&phase.as_str()) {
            return;
        }
    }
}

/// The Pixi the server will use: `SOMITE_PIXI`, else `pixi` on `PATH`.
/// An invalid `SOMITE_PIXI` stops the server itself, so it counts as none.
fn find_pixi() -> Toolchain {
    let setting = std::env::var(EnvVars::SOMITE_PIXI).ok();
    let pixi = resolve_pixi(setting.as_deref()).ok().flatten();
    Toolchain {
        source: pixi.as_ref().map(|_| {
            if setting.is_some() {
                EnvVars::SOMITE_PIXI
            } else {
                "PATH"
            }
            .to_owned()
        }),
        pixi: pixi.map(|path| path.display().to_string()),
    }
}

/// Copies the session's persisted transcripts, redacted once more.
fn copy_transcripts(project: &Path, dir: &Path) -> Result<(), EvalError> {
    let target = dir.join("transcripts");
    std::fs::create_dir_all(&target).map_err(io("cannot create transcripts/"))?;
    let source = Layout::new(project).transcripts();
    let Ok(entries) = std::fs::read_dir(&source) else {
        return Ok(());
    };
    let redactor = Redactor::default();
    for entry in entries.flatten() {
        let path = entry.path();
        if !path.is_file() {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .map_err(io(format!("cannot read {}", path.display())))?;
        write_text(
            &target,
            &entry.file_name().to_string_lossy(),
            &redactor.redact_text(&text),
        )?;
    }
    Ok(())
}
