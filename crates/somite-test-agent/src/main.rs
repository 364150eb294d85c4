//! `somite-test-agent`: a scripted ACP v1 agent for Somite's tests.
//!
//! It is a real protocol peer built on the agent side of the official ACP
//! SDK: it answers `initialize`, connects in `session/new` to the stdio MCP
//! servers it is given (with the official `rmcp` client), advertises two
//! configuration options (a `model` select and a `verbose` boolean) and
//! applies `session/set_config_option`, and honours `session/cancel`.
//!
//! Each prompt's last text block may carry a plan after the marker `PLAN:` —
//! a JSON array of steps, run in order (see [`Step`]). Without one, the plan
//! file given by `--plan` is run (so an evaluation can send its real blind
//! task and still script the agent); without either it replies `ok` and
//! ends the turn. It reports MCP calls the way real agents
//! do ([`Shape`]), so Somite's permission policy sees realistic identities.
//!
//! Command-line flags (the agent's environment is Somite's allowlist, so
//! tests configure it through argv):
//! - `--protocol-version N` answers `initialize` with version `N` and
//!   nothing else — written raw, since the SDK's v1 agent always answers 1 —
//!   to stand in for an agent that speaks another ACP version;
//! - `--require-login` answers `session/new` with "authentication required"
//!   until the client authenticates with the `agent` method `test-login`;
//! - `--plan FILE` runs the plan in `FILE` for prompts that carry none;
//! - `--effort-option` also advertises an `effort` option (category
//!   `thought_level`: `low`, `medium`, `high`), as reasoning agents do.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthMethod, AuthMethodAgent, AuthenticateRequest, AuthenticateResponse,
    CancelNotification, ContentBlock, ContentChunk, Implementation, InitializeRequest,
    InitializeResponse, McpServer, NewSessionRequest, NewSessionResponse, PermissionOption,
    PermissionOptionKind, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, PromptRequest,
    PromptResponse, RequestPermissionOutcome, RequestPermissionRequest, SessionConfigOption,
    SessionConfigOptionCategory, SessionConfigSelectOption, SessionId, SessionNotification,
    SessionUpdate, SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, StopReason,
    TextContent, ToolCall, ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Lines};
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

/// Where a plan starts in the prompt text.
const PLAN_MARKER: &str = "PLAN:";

/// One step of a plan.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Step {
    /// Stream a message chunk.
    Say(String),
    /// Stream a thought chunk.
    Think(String),
    /// Call an MCP tool, reporting it as a tool call.
    Call(CallStep),
    /// Replace the plan.
    Plan(Vec<String>),
    /// Sleep; a cancel ends the turn unless `ignore_cancel` is set, in which
    /// case the turn goes on and ends with `end_turn` (a late answer).
    Sleep {
        ms: u64,
        #[serde(default)]
        ignore_cancel: bool,
    },
    /// Exit abruptly with this code, mid-turn (after 100 ms, so what was
    /// said so far is written).
    Crash(i32),
    /// Write one line of this many bytes (no JSON), then hang until signalled.
    Oversized(usize),
    /// Say which of these variables are set (never their values).
    ReportEnv(Vec<String>),
    /// Say the working directory and whether it is empty.
    ReportCwd,
    /// Say how many content blocks the prompt had and how the first begins.
    ReportPrompt,
    /// Say the current configuration values.
    ReportConfig,
}

/// An MCP call.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CallStep {
    server: String,
    tool: String,
    #[serde(default = "empty_object")]
    arguments: Value,
    #[serde(default)]
    shape: Shape,
    /// Ask for permission before calling.
    #[serde(default)]
    permission: bool,
    /// Ask for permission before announcing the tool call.
    #[serde(default)]
    permission_first: bool,
    /// The tool-call id (default `call-<n>`). Later arguments may refer to
    /// this call's structured output by it: an argument value
    /// `{"$from": ID, "pointer": "/json/pointer", "default": V}` is replaced
    /// by the value at that pointer of the latest output of call `ID`
    /// (`default`, else null, when there is none yet).
    #[serde(default)]
    id: Option<String>,
    /// Repeat the call (as `<id>-2`, `<id>-3`, ...) until its output matches.
    #[serde(default)]
    until: Option<Until>,
}

/// When a repeated call stops: the value at `pointer` of its output is one
/// of `any_of` or missing (the call failed), or `max_attempts` calls were made.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Until {
    pointer: String,
    any_of: Vec<Value>,
    max_attempts: u32,
}

fn empty_object() -> Value {
    json!({})
}

/// How the tool call presents its identity.
#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Shape {
    /// Codex ACP: title `Tool: server/tool`, rawInput `{server, tool, arguments}`.
    #[default]
    Codex,
    /// Claude ACP: `mcp__server__tool` (normalised) in title, name and
    /// `_meta.claudeCode`; rawInput is the arguments.
    Claude,
    /// The title claims `somite.workflow.get`; rawInput says the real tool.
    Conflicting,
    /// Display text only.
    Bare,
}

/// The configuration this agent advertises.
#[derive(Debug, Clone)]
struct Config {
    model: String,
    verbose: bool,
    /// The reasoning level, when `--effort-option` advertises one.
    effort: Option<String>,
}

/// The values of the `effort` option.
const EFFORT_LEVELS: [&str; 3] = ["low", "medium", "high"];

impl Config {
    fn options(&self) -> Vec<SessionConfigOption> {
        let mut options = vec![
            SessionConfigOption::select(
                "model",
                "Model",
                self.model.clone(),
                vec![
                    SessionConfigSelectOption::new("fast", "Fast"),
                    SessionConfigSelectOption::new("deep", "Deep"),
                ],
            )
            .category(SessionConfigOptionCategory::Model),
            SessionConfigOption::boolean("verbose", "Verbose", self.verbose),
        ];
        if let Some(effort) = &self.effort {
            options.push(
                SessionConfigOption::select(
                    "effort",
                    "Reasoning effort",
                    effort.clone(),
                    EFFORT_LEVELS
                        .iter()
                        .map(|level| SessionConfigSelectOption::new(*level, *level))
                        .collect::<Vec<_>>(),
                )
                .category(SessionConfigOptionCategory::ThoughtLevel),
            );
        }
        options
    }
}

type McpClient = RunningService<RoleClient, ()>;

/// What the agent remembers.
struct State {
    require_login: bool,
    logged_in: AtomicBool,
    config: Mutex<Config>,
    mcp: Mutex<HashMap<String, Arc<McpClient>>>,
    cancelled: AtomicBool,
    cancel: Notify,
    calls: AtomicU64,
    stdout: Arc<tokio::sync::Mutex<tokio::io::Stdout>>,
    /// The plan for prompts that carry none (`--plan`).
    plan_file: Option<std::path::PathBuf>,
    /// The latest structured output of each plan call, by its id.
    outputs: Mutex<HashMap<String, Value>>,
}

/// The command-line flags.
struct Flags {
    protocol_version: ProtocolVersion,
    require_login: bool,
    plan_file: Option<std::path::PathBuf>,
    effort_option: bool,
}

fn parse_flags() -> Flags {
    let mut flags = Flags {
        protocol_version: ProtocolVersion::V1,
        require_login: false,
        plan_file: None,
        effort_option: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--protocol-version" => {
                let number: u16 = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("--protocol-version takes a number");
                flags.protocol_version =
                    serde_json::from_value(json!(number)).expect("a protocol version");
            }
            "--require-login" => flags.require_login = true,
            "--plan" => flags.plan_file = Some(args.next().expect("--plan takes a file").into()),
            "--effort-option" => flags.effort_option = true,
            other => panic!("unknown flag {other}"),
        }
    }
    flags
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), agent_client_protocol::Error> {
    let flags = parse_flags();
    if flags.protocol_version != ProtocolVersion::V1 {
        answer_initialize_raw(flags.protocol_version).await;
        return Ok(());
    }
    let stdout = Arc::new(tokio::sync::Mutex::new(tokio::io::stdout()));
    let state = Arc::new(State {
        require_login: flags.require_login,
        logged_in: AtomicBool::new(false),
        config: Mutex::new(Config {
            model: "fast".into(),
            verbose: false,
            effort: flags.effort_option.then(|| "medium".to_owned()),
        }),
        mcp: Mutex::new(HashMap::new()),
        cancelled: AtomicBool::new(false),
        cancel: Notify::new(),
        calls: AtomicU64::new(0),
        stdout: stdout.clone(),
        plan_file: flags.plan_file,
        outputs: Mutex::new(HashMap::new()),
    });

    let incoming = futures::stream::unfold(
        BufReader::new(tokio::io::stdin()).lines(),
        |mut lines| async move {
            match lines.next_line().await {
                Ok(Some(line)) => Some((Ok(line), lines)),
                Ok(None) => None,
                Err(error) => Some((Err(error), lines)),
            }
        },
    );
    let outgoing = futures::sink::unfold(stdout, |stdout, line: String| async move {
        let mut writer = stdout.lock().await;
        writer.write_all(line.as_bytes()).await?;
        writer.write_all(b"\n").await?;
        writer.flush().await?;
        drop(writer);
        Ok::<_, std::io::Error>(stdout)
    });

    let on_authenticate = state.clone();
    let on_new_session = state.clone();
    let on_prompt = state.clone();
    let on_config = state.clone();
    let on_cancel = state.clone();
    Agent
        .v1()
        .name("somite-test-agent")
        .on_receive_request(
            async move |_request: InitializeRequest, responder: Responder<InitializeResponse>, _cx| {
                responder.respond(
                    InitializeResponse::new(ProtocolVersion::V1)
                        .agent_capabilities(AgentCapabilities::new())
                        .agent_info(Implementation::new(
                            "somite-test-agent",
                            env!("CARGO_PKG_VERSION"),
                        ))
                        .auth_methods(vec![AuthMethod::Agent(AuthMethodAgent::new(
                            "test-login",
                            "Test login",
                        ))]),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: AuthenticateRequest, responder: Responder<AuthenticateResponse>, _cx| {
                if request.method_id.to_string() != "test-login" {
                    return responder.respond_with_error(agent_client_protocol::Error::invalid_params());
                }
                on_authenticate.logged_in.store(true, Ordering::SeqCst);
                responder.respond(AuthenticateResponse::new())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder: Responder<NewSessionResponse>, _cx| {
                if on_new_session.require_login && !on_new_session.logged_in.load(Ordering::SeqCst) {
                    return responder.respond_with_error(agent_client_protocol::Error::auth_required());
                }
                for server in request.mcp_servers {
                    let McpServer::Stdio(server) = server else { continue };
                    let command = tokio::process::Command::new(&server.command).configure(|command| {
                        command.args(&server.args);
                        for variable in &server.env {
                            command.env(&variable.name, &variable.value);
                        }
                    });
                    let transport = TokioChildProcess::new(command)
                        .map_err(agent_client_protocol::Error::into_internal_error)?;
                    let client = ()
                        .serve(transport)
                        .await
                        .map_err(agent_client_protocol::Error::into_internal_error)?;
                    on_new_session
                        .mcp
                        .lock()
                        .expect("mcp lock")
                        .insert(server.name.clone(), Arc::new(client));
                }
                let options = on_new_session.config.lock().expect("config lock").options();
                responder.respond(NewSessionResponse::new("test-session").config_options(options))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder: Responder<PromptResponse>, cx: ConnectionTo<Client>| {
                let state = on_prompt.clone();
                state.cancelled.store(false, Ordering::SeqCst);
                cx.spawn({
                    let cx = cx.clone();
                    async move {
                        let stop_reason = run_prompt(&state, &cx, &request).await?;
                        responder.respond(PromptResponse::new(stop_reason))
                    }
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest,
                        responder: Responder<SetSessionConfigOptionResponse>,
                        _cx| {
                let mut config = on_config.config.lock().expect("config lock");
                match (request.config_id.to_string().as_str(), &request.value) {
                    ("model", value) if value.as_value_id().is_some() => {
                        let model = value.as_value_id().map(ToString::to_string).unwrap_or_default();
                        if model != "fast" && model != "deep" {
                            return responder.respond_with_error(agent_client_protocol::Error::invalid_params());
                        }
                        config.model = model;
                    }
                    ("verbose", value) if value.as_bool().is_some() => {
                        config.verbose = value.as_bool().unwrap_or_default();
                    }
                    ("effort", value) if config.effort.is_some() && value.as_value_id().is_some() => {
                        let effort = value.as_value_id().map(ToString::to_string).unwrap_or_default();
                        if !EFFORT_LEVELS.contains(&effort.as_str()) {
                            return responder.respond_with_error(agent_client_protocol::Error::invalid_params());
                        }
                        config.effort = Some(effort);
                    }
                    _ => return responder.respond_with_error(agent_client_protocol::Error::invalid_params()),
                }
                responder.respond(SetSessionConfigOptionResponse::new(config.options()))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |_notification: CancelNotification, _cx| {
                on_cancel.cancelled.store(true, Ordering::SeqCst);
                on_cancel.cancel.notify_waiters();
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Lines::new(outgoing, incoming))
        .await
}

/// Answers the first request (`initialize`) with `version`, then waits for
/// the client to hang up.
async fn answer_initialize_raw(version: ProtocolVersion) {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let Ok(Some(line)) = lines.next_line().await else {
        return;
    };
    let request: Value = serde_json::from_str(&line).unwrap_or_default();
    let response = json!({
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": {"protocolVersion": version, "agentCapabilities": {}},
    });
    let mut stdout = tokio::io::stdout();
    let _ = stdout.write_all(format!("{response}\n").as_bytes()).await;
    let _ = stdout.flush().await;
    while let Ok(Some(_)) = lines.next_line().await {}
}

fn text_chunk(text: impl Into<String>) -> ContentChunk {
    ContentChunk::new(ContentBlock::Text(TextContent::new(text.into())))
}

fn say(
    cx: &ConnectionTo<Client>,
    session: &SessionId,
    text: impl Into<String>,
) -> Result<(), agent_client_protocol::Error> {
    cx.send_notification(SessionNotification::new(
        session.clone(),
        SessionUpdate::AgentMessageChunk(text_chunk(text)),
    ))
}

/// Runs the prompt's plan; returns how the turn ends.
async fn run_prompt(
    state: &State,
    cx: &ConnectionTo<Client>,
    request: &PromptRequest,
) -> Result<StopReason, agent_client_protocol::Error> {
    let session = &request.session_id;
    let texts: Vec<&str> = request
        .prompt
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect();
    let message = texts.last().copied().unwrap_or_default();
    let plan = match (message.split_once(PLAN_MARKER), &state.plan_file) {
        (Some((_, plan)), _) => plan.trim().to_owned(),
        (None, Some(file)) => std::fs::read_to_string(file).map_err(|error| {
            agent_client_protocol::Error::internal_error()
                .data(json!(format!("cannot read {}: {error}", file.display())))
        })?,
        (None, None) => {
            say(cx, session, "ok")?;
            return Ok(StopReason::EndTurn);
        }
    };
    let steps: Vec<Step> = serde_json::from_str(&plan).map_err(|error| {
        agent_client_protocol::Error::invalid_params().data(json!(format!("bad plan: {error}")))
    })?;
    for step in steps {
        if state.cancelled.load(Ordering::SeqCst) {
            return Ok(StopReason::Cancelled);
        }
        match step {
            Step::Say(text) => say(cx, session, text)?,
            Step::Think(text) => cx.send_notification(SessionNotification::new(
                session.clone(),
                SessionUpdate::AgentThoughtChunk(text_chunk(text)),
            ))?,
            Step::Plan(entries) => cx.send_notification(SessionNotification::new(
                session.clone(),
                SessionUpdate::Plan(Plan::new(
                    entries
                        .into_iter()
                        .map(|content| {
                            PlanEntry::new(
                                content,
                                PlanEntryPriority::Medium,
                                PlanEntryStatus::Pending,
                            )
                        })
                        .collect(),
                )),
            ))?,
            Step::Call(call) => {
                if let Some(stop) = call_until(state, cx, session, call).await? {
                    return Ok(stop);
                }
            }
            Step::Sleep { ms, ignore_cancel } => {
                let sleep = tokio::time::sleep(Duration::from_millis(ms));
                if ignore_cancel {
                    sleep.await;
                    say(cx, session, "finished anyway")?;
                    return Ok(StopReason::EndTurn);
                }
                let cancelled = state.cancel.notified();
                if state.cancelled.load(Ordering::SeqCst) {
                    return Ok(StopReason::Cancelled);
                }
                tokio::select! {
                    () = sleep => {}
                    () = cancelled => return Ok(StopReason::Cancelled),
                }
            }
            Step::Crash(code) => {
                // Let what was said so far reach the client, then fall over.
                tokio::time::sleep(Duration::from_millis(100)).await;
                std::process::exit(code)
            }
            Step::Oversized(bytes) => {
                let mut line = vec![b'x'; bytes];
                line.push(b'\n');
                let mut stdout = state.stdout.lock().await;
                // The reader may stop reading (and the agent be killed) at
                // any point; a failed write is the expected end.
                let _ = stdout.write_all(&line).await;
                let _ = stdout.flush().await;
                drop(stdout);
                // Hung for real: a blocking sleep keeps the process alive
                // even after its standard input closes (the runtime waits for
                // blocking tasks when `main` returns), so only a signal ends it.
                let _ = tokio::task::spawn_blocking(|| std::thread::sleep(Duration::from_secs(30)))
                    .await;
            }
            Step::ReportEnv(names) => {
                let report: Vec<String> = names
                    .iter()
                    .map(|name| {
                        let set = std::env::var_os(name).is_some();
                        format!("{name}={}", if set { "set" } else { "unset" })
                    })
                    .collect();
                say(cx, session, format!("env: {}", report.join(" ")))?;
            }
            Step::ReportCwd => {
                let cwd = std::env::current_dir()
                    .map_err(agent_client_protocol::Error::into_internal_error)?;
                let entries = std::fs::read_dir(&cwd)
                    .map_err(agent_client_protocol::Error::into_internal_error)?
                    .count();
                say(
                    cx,
                    session,
                    format!("cwd: {} entries: {entries}", cwd.display()),
                )?;
            }
            Step::ReportPrompt => {
                let first_line = texts
                    .first()
                    .and_then(|text| text.lines().next())
                    .unwrap_or_default();
                say(
                    cx,
                    session,
                    format!("blocks: {}; first: {first_line}", request.prompt.len()),
                )?;
            }
            Step::ReportConfig => {
                let config = state.config.lock().expect("config lock").clone();
                let effort = config
                    .effort
                    .map(|effort| format!(" effort={effort}"))
                    .unwrap_or_default();
                say(
                    cx,
                    session,
                    format!("model={} verbose={}{effort}", config.model, config.verbose),
                )?;
            }
        }
    }
    Ok(if state.cancelled.load(Ordering::SeqCst) {
        StopReason::Cancelled
    } else {
        StopReason::EndTurn
    })
}

/// Claude Code's tool-name normalisation.
fn claude_name(server: &str, tool: &str) -> String {
    let normalise = |name: &str| -> String {
        name.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    format!("mcp__{}__{}", normalise(server), normalise(tool))
}

/// The identity fields of a call in its shape: (title, name, rawInput, _meta).
fn presentation(
    call: &CallStep,
    for_permission: bool,
) -> (
    String,
    Option<String>,
    Value,
    Option<serde_json::Map<String, Value>>,
) {
    let invocation = json!({"server": call.server, "tool": call.tool, "arguments": call.arguments});
    match call.shape {
        Shape::Codex => (
            format!("Tool: {}/{}", call.server, call.tool),
            None,
            invocation,
            None,
        ),
        Shape::Claude => {
            let name = claude_name(&call.server, &call.tool);
            let meta = if for_permission {
                json!({"claudeCode": {"mcpServer": {"name": call.server, "source": "project"}}})
            } else {
                json!({"claudeCode": {"toolName": name}, "is_mcp_tool_call": true})
            };
            (
                name.clone(),
                Some(name),
                call.arguments.clone(),
                meta.as_object().cloned(),
            )
        }
        Shape::Conflicting => (
            "Tool: somite/somite.workflow.get".to_owned(),
            None,
            invocation,
            None,
        ),
        Shape::Bare => (
            "Working on it".to_owned(),
            None,
            call.arguments.clone(),
            None,
        ),
    }
}

/// Runs one plan call, repeated while its [`Until`] is not met; `Some`
/// ends the turn with that stop reason.
async fn call_until(
    state: &State,
    cx: &ConnectionTo<Client>,
    session: &SessionId,
    mut call: CallStep,
) -> Result<Option<StopReason>, agent_client_protocol::Error> {
    let template = std::mem::take(&mut call.arguments);
    let Some(until) = call.until.take() else {
        call.arguments = resolve_references(&template, &state.outputs.lock().expect("outputs"));
        let id = call.id.clone();
        return call_tool(state, cx, session, &call, id.as_deref()).await;
    };
    let base = call
        .id
        .clone()
        .unwrap_or_else(|| format!("poll-{}", state.calls.load(Ordering::SeqCst) + 1));
    for attempt in 1..=until.max_attempts {
        if state.cancelled.load(Ordering::SeqCst) {
            return Ok(Some(StopReason::Cancelled));
        }
        call.arguments = resolve_references(&template, &state.outputs.lock().expect("outputs"));
        call.id = Some(match attempt {
            1 => base.clone(),
            n => format!("{base}-{n}"),
        });
        if let Some(stop) = call_tool(state, cx, session, &call, Some(&base)).await? {
            return Ok(Some(stop));
        }
        let outputs = state.outputs.lock().expect("outputs");
        let value = outputs
            .get(&base)
            .and_then(|output| output.pointer(&until.pointer));
        // No value there: the call failed, and polling again would too.
        if value.is_none_or(|value| until.any_of.contains(value)) {
            break;
        }
    }
    Ok(None)
}

/// Replaces every `{"$from": ID, "pointer": P, "default"?: V}` in `value`
/// by what call `ID`'s latest output holds at `P`.
fn resolve_references(value: &Value, outputs: &HashMap<String, Value>) -> Value {
    match value {
        Value::Object(object) => {
            if let (Some(Value::String(from)), Some(Value::String(pointer))) =
                (object.get("$from"), object.get("pointer"))
            {
                return outputs
                    .get(from)
                    .and_then(|output| output.pointer(pointer))
                    .or_else(|| object.get("default"))
                    .cloned()
                    .unwrap_or(Value::Null);
            }
            Value::Object(
                object
                    .iter()
                    .map(|(key, item)| (key.clone(), resolve_references(item, outputs)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| resolve_references(item, outputs))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Runs one MCP call and remembers its output under `record_as` (default:
/// its id); `Some` ends the turn with that stop reason.
async fn call_tool(
    state: &State,
    cx: &ConnectionTo<Client>,
    session: &SessionId,
    call: &CallStep,
    record_as: Option<&str>,
) -> Result<Option<StopReason>, agent_client_protocol::Error> {
    let number = state.calls.fetch_add(1, Ordering::SeqCst) + 1;
    let id = call.id.clone().unwrap_or_else(|| format!("call-{number}"));
    let announce = || {
        let (title, name, raw_input, meta) = presentation(call, false);
        cx.send_notification(SessionNotification::new(
            session.clone(),
            SessionUpdate::ToolCall(
                ToolCall::new(id.clone(), title)
                    .name(name)
                    .status(ToolCallStatus::Pending)
                    .raw_input(raw_input)
                    .meta(meta),
            ),
        ))
    };
    if !call.permission_first {
        announce()?;
    }
    if call.permission || call.permission_first {
        let (title, name, raw_input, meta) = presentation(call, true);
        let tool_call = ToolCallUpdate::new(
            id.clone(),
            ToolCallUpdateFields::new()
                .title(title)
                .name(name)
                .raw_input(raw_input),
        )
        .meta(meta);
        let options = vec![
            PermissionOption::new("allow-once", "Allow", PermissionOptionKind::AllowOnce),
            PermissionOption::new(
                "allow-always",
                "Always allow",
                PermissionOptionKind::AllowAlways,
            ),
            PermissionOption::new("reject-once", "Reject", PermissionOptionKind::RejectOnce),
        ];
        let response = cx
            .send_request(RequestPermissionRequest::new(
                session.clone(),
                tool_call,
                options,
            ))
            .block_task()
            .await?;
        match response.outcome {
            RequestPermissionOutcome::Selected(selected)
                if selected.option_id.to_string().starts_with("allow") => {}
            RequestPermissionOutcome::Selected(selected) => {
                update_tool_call(
                    cx,
                    session,
                    &id,
                    ToolCallStatus::Failed,
                    format!("rejected by {}", selected.option_id),
                    None,
                )?;
                say(
                    cx,
                    session,
                    format!("permission for {id}: {}", selected.option_id),
                )?;
                return Ok(None);
            }
            _ => {
                say(cx, session, format!("permission for {id}: cancelled"))?;
                return Ok(Some(StopReason::Cancelled));
            }
        }
        if call.permission_first {
            announce()?;
        }
    }
    let client = state
        .mcp
        .lock()
        .expect("mcp lock")
        .get(&call.server)
        .cloned();
    let Some(client) = client else {
        update_tool_call(
            cx,
            session,
            &id,
            ToolCallStatus::Failed,
            format!("no MCP server {}", call.server),
            None,
        )?;
        return Ok(None);
    };
    let arguments = call.arguments.as_object().cloned().unwrap_or_default();
    let result = client
        .call_tool(CallToolRequestParams::new(call.tool.clone()).with_arguments(arguments))
        .await;
    match result {
        Ok(result) => {
            let output = result
                .structured_content
                .clone()
                .unwrap_or_else(|| json!(result.content));
            let status = if result.is_error == Some(true) {
                ToolCallStatus::Failed
            } else {
                ToolCallStatus::Completed
            };
            state
                .outputs
                .lock()
                .expect("outputs")
                .insert(record_as.unwrap_or(&id).to_owned(), output.clone());
            update_tool_call(cx, session, &id, status, output.to_string(), Some(output))?;
        }
        Err(error) => {
            update_tool_call(
                cx,
                session,
                &id,
                ToolCallStatus::Failed,
                error.to_string(),
                None,
            )?;
        }
    }
    Ok(None)
}

fn update_tool_call(
    cx: &ConnectionTo<Client>,
    session: &SessionId,
    id: &str,
    status: ToolCallStatus,
    text: String,
    raw_output: Option<Value>,
) -> Result<(), agent_client_protocol::Error> {
    cx.send_notification(SessionNotification::new(
        session.clone(),
        SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
            id.to_owned(),
            ToolCallUpdateFields::new()
                .status(status)
                .content(vec![ToolCallContent::from(ContentBlock::Text(
                    TextContent::new(text),
                ))])
                .raw_output(raw_output),
        )),
    ))
}
