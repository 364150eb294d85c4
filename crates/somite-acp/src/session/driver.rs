//! The session driver: one task that owns the connection, the agent process
//! and all session state, so every message is handled in order and nothing
//! waits inside the SDK's dispatch loop.
//!
//! SDK handlers only forward what arrives ([`Inbound`]); requests Somite
//! sends register an ordered result callback that forwards the answer the
//! same way, so a response and the notifications around it reach the driver
//! in the order the agent sent them. The driver loop selects over the
//! handle's commands, these forwarded messages, the agent's exit and the
//! earliest permission deadline.

use std::collections::{BTreeMap, HashMap};
use std::io;
use std::sync::{Arc, Mutex, MutexGuard};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AuthenticateRequest, AuthenticateResponse, BooleanConfigOptionCapabilities, CancelNotification,
    ClientCapabilities, ClientSessionCapabilities, ContentBlock, EnvVariable, Implementation,
    InitializeRequest, InitializeResponse, McpServer, McpServerStdio, NewSessionRequest,
    NewSessionResponse, PromptRequest, PromptResponse, RequestPermissionOutcome,
    RequestPermissionRequest, RequestPermissionResponse, SelectedPermissionOutcome,
    SessionConfigOptionValue, SessionConfigOptionsCapabilities, SessionId, SessionNotification,
    SessionUpdate, SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, TextContent,
    ToolCall, ToolCallUpdate,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, ErrorCode, JsonRpcRequest, Lines};
use futures::{Sink, StreamExt};
use tokio::io::AsyncWriteExt;
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::convert;
use super::process::AgentProcess;
use super::{
    CLIENT_NAME, Command, McpServerSpec, SessionConfig, SessionError, SessionLimits, SpawnError,
};
use crate::clock::Clock;
use crate::contract::WORKFLOW_CONTRACT;
use crate::events::{
    AgentInfo, CleanupReport, ConfigControl, ConfigOption, ConfigValue, EndReason, EventKind,
    Generation, LoginKind, LoginMethod, ModeState, PendingPermission, PermissionId,
    PermissionResolution, SessionEvent, SessionInfo, ToolCallView, ToolKind, ToolStatus, TurnId,
    TurnOutcome,
};
use crate::framing::{FrameError, bounded_lines};
use crate::permission::{
    IdentityVerdict, PermissionAnswer, PermissionChoice, PermissionDecision, ToolBoundary,
    ToolCallFacts, timeout_answer,
};
use crate::secrets::{Redactor, StreamRedactor};
use crate::transcript::TranscriptRecorder;
use crate::workspace::AgentWorkspace;

/// What the SDK side forwards to the driver.
enum Inbound {
    Connected(ConnectionTo<Agent>),
    Initialized(Result<Box<InitializeResponse>, agent_client_protocol::Error>),
    SessionCreated(Result<NewSessionResponse, agent_client_protocol::Error>),
    LoggedIn {
        result: Result<AuthenticateResponse, agent_client_protocol::Error>,
        reply: oneshot::Sender<Result<(), SessionError>>,
    },
    Update(SessionNotification),
    Permission {
        request: RequestPermissionRequest,
        responder: Responder<RequestPermissionResponse>,
    },
    PromptFinished {
        turn: TurnId,
        result: Result<PromptResponse, agent_client_protocol::Error>,
    },
    ConfigOptionSet {
        result: Result<SetSessionConfigOptionResponse, agent_client_protocol::Error>,
        reply: oneshot::Sender<Result<Vec<ConfigOption>, SessionError>>,
    },
    FrameRefused(FrameError),
    ConnectionClosed(Result<(), agent_client_protocol::Error>),
}

/// Where the session is in its life.
enum Phase {
    Starting,
    AwaitingLogin,
    Ready(SessionId),
}

/// The turn in progress.
struct ActiveTurn {
    id: TurnId,
    recorder: TranscriptRecorder,
    cancel_requested: bool,
}

/// A permission request waiting for the user.
struct Pending {
    tool_call_id: String,
    options: Vec<PermissionChoice>,
    responder: Responder<RequestPermissionResponse>,
    deadline: Instant,
}

/// Everything known about one tool call, merged across updates.
#[derive(Default)]
struct TrackedToolCall {
    facts: ToolCallFacts,
    view: Option<ToolCallView>,
}

/// The agent's message or thought being streamed, and its redaction.
struct Streamed {
    thought: bool,
    turn: Option<TurnId>,
    redactor: StreamRedactor,
}

impl Streamed {
    fn event(&self, text: String) -> EventKind {
        Self::event_of(self.thought, self.turn, text)
    }

    fn event_of(thought: bool, turn: Option<TurnId>, text: String) -> EventKind {
        if thought {
            EventKind::AgentThought { turn, text }
        } else {
            EventKind::AgentMessage { turn, text }
        }
    }
}

struct Driver {
    generation: Generation,
    events: mpsc::UnboundedSender<SessionEvent>,
    inbound: mpsc::UnboundedSender<Inbound>,
    connection: Option<ConnectionTo<Agent>>,
    stop_connection: Option<oneshot::Sender<()>>,
    phase: Phase,
    agent: AgentInfo,
    login_methods: Vec<LoginMethod>,
    mcp_servers: Vec<McpServer>,
    workspace: AgentWorkspace,
    boundary: ToolBoundary,
    redactor: Redactor,
    /// Behind a lock only so that `emit`, which every path calls through a
    /// shared borrow, can send held-back text first.
    streamed: Mutex<Option<Streamed>>,
    clock: Arc<dyn Clock>,
    limits: SessionLimits,
    tool_calls: HashMap<String, TrackedToolCall>,
    pending: BTreeMap<u64, Pending>,
    permissions_issued: u64,
    turns_started: u64,
    turn: Option<ActiveTurn>,
    config_options: Vec<ConfigOption>,
    modes: Option<ModeState>,
}

/// Spawns the agent and the driver task.
pub(super) fn start(
    config: SessionConfig,
    workspace: AgentWorkspace,
    boundary: ToolBoundary,
    redactor: Redactor,
    commands: mpsc::UnboundedReceiver<Command>,
    events: mpsc::UnboundedSender<SessionEvent>,
) -> Result<JoinHandle<CleanupReport>, SpawnError> {
    let (process, stdin, stdout) =
        AgentProcess::spawn(&config.command, &config.environment, &workspace.cwd()).map_err(
            |error| SpawnError::Spawn {
                program: config.command.program().to_path_buf(),
                error,
            },
        )?;
    let (inbound, inbound_receiver) = mpsc::unbounded_channel();
    let stop_connection = connect(
        stdin,
        stdout,
        config.limits.max_frame_bytes,
        inbound.clone(),
    );
    let driver = Driver {
        generation: config.generation,
        events,
        inbound,
        connection: None,
        stop_connection: Some(stop_connection),
        phase: Phase::Starting,
        agent: AgentInfo::default(),
        login_methods: Vec::new(),
        mcp_servers: config.mcp_servers.iter().map(acp_mcp_server).collect(),
        workspace,
        boundary,
        redactor,
        streamed: Mutex::new(None),
        clock: config.clock,
        limits: config.limits,
        tool_calls: HashMap::new(),
        pending: BTreeMap::new(),
        permissions_issued: 0,
        turns_started: 0,
        turn: None,
        config_options: Vec::new(),
        modes: None,
    };
    Ok(tokio::spawn(driver.run(
        commands,
        inbound_receiver,
        process,
    )))
}

/// A stdio MCP server entry; `args` and `env` are always sent, even empty.
fn acp_mcp_server(spec: &McpServerSpec) -> McpServer {
    McpServer::Stdio(
        McpServerStdio::new(spec.name.clone(), spec.command.clone())
            .args(spec.args.clone())
            .env(
                spec.env
                    .iter()
                    .map(|(name, value)| EnvVariable::new(name.clone(), value.clone()))
                    .collect(),
            ),
    )
}

/// Writes each outgoing message as one line on the agent's standard input.
fn line_sink(stdin: ChildStdin) -> impl Sink<String, Error = io::Error> + Send + 'static {
    futures::sink::unfold(stdin, |mut stdin: ChildStdin, line: String| async move {
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        stdin.write_all(&bytes).await?;
        stdin.flush().await?;
        Ok(stdin)
    })
}

/// Runs the ACP connection over the agent's framed standard output in its
/// own task; returns the switch that ends it.
fn connect(
    stdin: ChildStdin,
    stdout: ChildStdout,
    max_frame_bytes: usize,
    inbound: mpsc::UnboundedSender<Inbound>,
) -> oneshot::Sender<()> {
    let (stop, stopped) = oneshot::channel::<()>();
    let frames = {
        let inbound = inbound.clone();
        bounded_lines(stdout, max_frame_bytes).inspect(move |frame| {
            if let Err(error) = frame
                && let Some(refused) = FrameError::from_io(error)
            {
                let _ = inbound.send(Inbound::FrameRefused(refused.clone()));
            }
        })
    };
    let on_update = inbound.clone();
    let on_permission = inbound.clone();
    let on_connect = inbound.clone();
    let connection = Client
        .v1()
        .name(CLIENT_NAME)
        .on_receive_notification(
            async move |notification: SessionNotification, _connection| {
                let _ = on_update.send(Inbound::Update(notification));
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .on_receive_request(
            async move |request: RequestPermissionRequest,
                        responder: Responder<RequestPermissionResponse>,
                        _connection| {
                let _ = on_permission.send(Inbound::Permission { request, responder });
                Ok(())
            },
            agent_client_protocol::on_receive_request!(),
        )
        .connect_with(
            Lines::new(line_sink(stdin), frames),
            async move |connection: ConnectionTo<Agent>| {
                let _ = on_connect.send(Inbound::Connected(connection.clone()));
                tokio::select! {
                    _ = stopped => {}
                    () = connection.incoming_closed() => {}
                }
                Ok(())
            },
        );
    tokio::spawn(async move {
        let result = connection.await;
        let _ = inbound.send(Inbound::ConnectionClosed(result));
    });
    stop
}

/// Whether the SDK refused an `initialize` answer for its protocol version.
fn is_version_refusal(error: &agent_client_protocol::Error) -> bool {
    error.code == ErrorCode::INVALID_REQUEST
        && error
            .data
            .as_ref()
            .and_then(serde_json::Value::as_str)
            .is_some_and(|data| data.contains("protocol version"))
}

impl Driver {
    async fn run(
        mut self,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut inbound: mpsc::UnboundedReceiver<Inbound>,
        mut process: AgentProcess,
    ) -> CleanupReport {
        let mut drain_deadline: Option<Instant> = None;
        let reason = loop {
            let permission_expiry = match self.pending.values().map(|p| p.deadline).min() {
                Some(deadline) => self.clock.sleep_until(deadline),
                None => Box::pin(std::future::pending()),
            };
            let drain = async move {
                match drain_deadline {
                    Some(deadline) => tokio::time::sleep_until(deadline).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                command = commands.recv() => {
                    // A dropped handle disconnects, like an explicit request.
                    let command = command.unwrap_or(Command::Disconnect);
                    if let Some(reason) = self.handle_command(command) {
                        break reason;
                    }
                }
                Some(message) = inbound.recv() => {
                    if let Some(reason) = self.handle_inbound(message) {
                        break reason;
                    }
                }
                Some(_) = process.exited() => {
                    // Its last output may still be in the pipe: read it, but
                    // do not wait on descendants that hold the pipe open.
                    drain_deadline = Some(Instant::now() + self.limits.exit_grace);
                }
                () = drain => break EndReason::AgentExited { exit: None, stderr_tail: String::new() },
                () = permission_expiry => self.expire_permissions(),
            }
        };
        self.finish(reason, process).await
    }

    /// An agent error as the user sees it: message and data, redacted.
    fn describe(&self, error: &agent_client_protocol::Error) -> String {
        self.redactor.redact_text(&error.to_string())
    }

    fn agent_error(&self, error: &agent_client_protocol::Error) -> SessionError {
        SessionError::Agent {
            message: self.describe(error),
        }
    }

    /// Sends an event, after whatever streamed text was still held back.
    fn emit(&self, kind: EventKind) {
        self.flush_streamed();
        self.send(kind);
    }

    /// Ends the current stream, sending what it still held back.
    fn flush_streamed(&self) {
        if let Some(streamed) = lock(&self.streamed).take() {
            self.send_streamed(streamed);
        }
    }

    fn send(&self, kind: EventKind) {
        let _ = self.events.send(SessionEvent {
            generation: self.generation,
            kind,
        });
    }

    /// Sends a piece of the agent's streamed message or thought, redacted as
    /// part of the whole stream (see [`StreamRedactor`]).
    fn emit_streamed(&self, thought: bool, turn: Option<TurnId>, piece: &str) {
        let mut slot = lock(&self.streamed);
        if let Some(other) = slot.take_if(|s| s.thought != thought || s.turn != turn) {
            self.send_streamed(other);
        }
        let streamed = slot.get_or_insert_with(|| Streamed {
            thought,
            turn,
            redactor: self.redactor.stream(),
        });
        let text = streamed.redactor.push(piece);
        if !text.is_empty() {
            self.send(streamed.event(text));
        }
    }

    fn send_streamed(&self, streamed: Streamed) {
        let Streamed {
            thought,
            turn,
            redactor,
        } = streamed;
        let text = redactor.finish();
        if !text.is_empty() {
            self.send(Streamed::event_of(thought, turn, text));
        }
    }

    fn current_turn(&self) -> Option<TurnId> {
        self.turn.as_ref().map(|turn| turn.id)
    }

    /// Sends a request whose answer is forwarded, in order, as an [`Inbound`].
    fn request<Req>(
        &self,
        request: Req,
        forward: impl FnOnce(Result<Req::Response, agent_client_protocol::Error>) -> Inbound
        + Send
        + 'static,
    ) where
        Req: JsonRpcRequest,
        Req::Response: Send + 'static,
    {
        let Some(connection) = &self.connection else {
            return;
        };
        let inbound = self.inbound.clone();
        let registered = connection
            .prepare_request(request)
            .on_receiving_result(move |result| {
                let _ = inbound.send(forward(result));
                std::future::ready(Ok(()))
            });
        if let Err(error) = registered {
            // The connection is closing; its end arrives as ConnectionClosed.
            tracing::debug!(%error, "could not send a request to the agent");
        }
    }

    /// Handles one command from the handle; `Some` ends the session.
    fn handle_command(&mut self, command: Command) -> Option<EndReason> {
        match command {
            Command::Prompt { text, reply } => {
                let _ = reply.send(self.prompt(text));
            }
            Command::Cancel { reply } => {
                self.cancel_turn();
                let _ = reply.send(Ok(()));
            }
            Command::AnswerPermission { id, answer, reply } => {
                let _ = reply.send(self.answer_permission(id, answer));
            }
            Command::SetConfigOption { id, value, reply } => {
                match self.config_request(&id, value) {
                    Ok(request) => self.request(request, move |result| Inbound::ConfigOptionSet {
                        result,
                        reply,
                    }),
                    Err(error) => {
                        let _ = reply.send(Err(error));
                    }
                }
            }
            Command::LogIn { method_id, reply } => self.log_in(method_id, reply),
            Command::Disconnect => return Some(EndReason::Disconnected),
        }
        None
    }

    /// Handles one forwarded message; `Some` ends the session.
    fn handle_inbound(&mut self, message: Inbound) -> Option<EndReason> {
        match message {
            Inbound::Connected(connection) => {
                self.connection = Some(connection);
                self.initialize();
            }
            Inbound::Initialized(Ok(response)) => return self.initialized(response),
            Inbound::Initialized(Err(error)) => {
                let message = self.describe(&error);
                return Some(if is_version_refusal(&error) {
                    EndReason::UnsupportedProtocolVersion { message }
                } else {
                    EndReason::InitializationFailed { message }
                });
            }
            Inbound::SessionCreated(result) => return self.session_created(result),
            Inbound::LoggedIn { result, reply } => match result {
                Ok(_) => {
                    let _ = reply.send(Ok(()));
                    self.create_session();
                }
                Err(error) => {
                    let _ = reply.send(Err(self.agent_error(&error)));
                }
            },
            Inbound::Update(notification) => self.update(notification),
            Inbound::Permission { request, responder } => self.permission(request, responder),
            Inbound::PromptFinished { turn, result } => self.prompt_finished(turn, result),
            Inbound::ConfigOptionSet { result, reply } => match result {
                Ok(response) => {
                    self.config_options = convert::config_options(&response.config_options);
                    self.emit(EventKind::ConfigOptions {
                        options: self.config_options.clone(),
                    });
                    let _ = reply.send(Ok(self.config_options.clone()));
                }
                Err(error) => {
                    let _ = reply.send(Err(self.agent_error(&error)));
                }
            },
            Inbound::FrameRefused(error) => {
                return Some(match error {
                    FrameError::TooLarge { limit } => EndReason::FrameTooLarge { limit },
                    FrameError::NotUtf8 => EndReason::MalformedOutput {
                        message: error.to_string(),
                    },
                });
            }
            Inbound::ConnectionClosed(Ok(())) => {
                return Some(EndReason::AgentExited {
                    exit: None,
                    stderr_tail: String::new(),
                });
            }
            Inbound::ConnectionClosed(Err(error)) => {
                return Some(EndReason::ConnectionFailed {
                    message: self.describe(&error),
                });
            }
        }
        None
    }

    fn initialize(&mut self) {
        let capabilities = ClientCapabilities::new().session(
            ClientSessionCapabilities::new().config_options(
                SessionConfigOptionsCapabilities::new()
                    .boolean(BooleanConfigOptionCapabilities::new()),
            ),
        );
        let request = InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(capabilities)
            .client_info(
                Implementation::new(CLIENT_NAME, env!("CARGO_PKG_VERSION")).title("Somite"),
            );
        self.request(request, |result| Inbound::Initialized(result.map(Box::new)));
    }

    fn initialized(&mut self, response: Box<InitializeResponse>) -> Option<EndReason> {
        if response.protocol_version != ProtocolVersion::V1 {
            return Some(EndReason::UnsupportedProtocolVersion {
                message: format!(
                    "the agent answered with ACP protocol version {}; Somite speaks version 1",
                    response.protocol_version.as_u16()
                ),
            });
        }
        if let Some(info) = &response.agent_info {
            self.agent = AgentInfo {
                name: Some(info.name.clone()),
                title: info.title.clone(),
                version: Some(info.version.clone()),
            };
        }
        self.login_methods = response
            .auth_methods
            .iter()
            .map(convert::login_method)
            .collect();
        self.create_session();
        None
    }

    fn create_session(&mut self) {
        self.phase = Phase::Starting;
        let request =
            NewSessionRequest::new(self.workspace.cwd()).mcp_servers(self.mcp_servers.clone());
        self.request(request, Inbound::SessionCreated);
    }

    fn session_created(
        &mut self,
        result: Result<NewSessionResponse, agent_client_protocol::Error>,
    ) -> Option<EndReason> {
        let response = match result {
            Ok(response) => response,
            Err(error) if error.code == ErrorCode::AUTH_REQUIRED => {
                self.phase = Phase::AwaitingLogin;
                self.emit(EventKind::LoginRequired {
                    methods: self.login_methods.clone(),
                });
                return None;
            }
            Err(error) => {
                return Some(EndReason::InitializationFailed {
                    message: self.describe(&error),
                });
            }
        };
        self.config_options = response
            .config_options
            .as_deref()
            .map(convert::config_options)
            .unwrap_or_default();
        self.modes = response.modes.as_ref().map(convert::modes);
        self.emit(EventKind::Ready {
            session: SessionInfo {
                session_id: response.session_id.to_string(),
                agent: self.agent.clone(),
                config_options: self.config_options.clone(),
                modes: self.modes.clone(),
                workspace: self.workspace.cwd(),
            },
        });
        self.phase = Phase::Ready(response.session_id);
        None
    }

    fn log_in(&mut self, method_id: String, reply: oneshot::Sender<Result<(), SessionError>>) {
        let is_agent_method = self
            .login_methods
            .iter()
            .any(|method| method.id == method_id && method.kind == LoginKind::Agent);
        if !matches!(self.phase, Phase::AwaitingLogin) || !is_agent_method {
            let _ = reply.send(Err(SessionError::NotAnAgentLogin { method_id }));
            return;
        }
        self.request(AuthenticateRequest::new(method_id), move |result| {
            Inbound::LoggedIn { result, reply }
        });
    }

    fn session_id(&self) -> Result<SessionId, SessionError> {
        match &self.phase {
            Phase::Ready(session_id) => Ok(session_id.clone()),
            Phase::Starting | Phase::AwaitingLogin => Err(SessionError::NotReady),
        }
    }

    fn prompt(&mut self, text: String) -> Result<TurnId, SessionError> {
        let session_id = self.session_id()?;
        if self.turn.is_some() {
            return Err(SessionError::TurnInProgress);
        }
        self.turns_started += 1;
        let turn = TurnId(self.turns_started);
        self.turn = Some(ActiveTurn {
            id: turn,
            recorder: TranscriptRecorder::new(
                self.generation,
                turn,
                &self.agent,
                &text,
                self.redactor.clone(),
            ),
            cancel_requested: false,
        });
        let blocks = vec![
            ContentBlock::Text(TextContent::new(WORKFLOW_CONTRACT)),
            ContentBlock::Text(TextContent::new(text)),
        ];
        self.request(PromptRequest::new(session_id, blocks), move |result| {
            Inbound::PromptFinished { turn, result }
        });
        Ok(turn)
    }

    fn cancel_turn(&mut self) {
        let Ok(session_id) = self.session_id() else {
            return;
        };
        let Some(turn) = self.turn.as_mut().filter(|turn| !turn.cancel_requested) else {
            return;
        };
        turn.cancel_requested = true;
        if let Some(connection) = &self.connection
            && let Err(error) = connection.send_notification(CancelNotification::new(session_id))
        {
            tracing::debug!(%error, "could not send session/cancel");
        }
        let pending: Vec<u64> = self.pending.keys().copied().collect();
        for sequence in pending {
            self.resolve(
                sequence,
                PermissionAnswer::Cancelled,
                PermissionResolution::TurnCancelled,
            );
        }
    }

    fn prompt_finished(
        &mut self,
        turn: TurnId,
        result: Result<PromptResponse, agent_client_protocol::Error>,
    ) {
        if self.current_turn() != Some(turn) {
            return;
        }
        if let Err(error) = &result
            && (agent_client_protocol::is_incoming_transport_closed(error)
                || agent_client_protocol::is_connection_terminated(error))
        {
            // The session is ending; the turn ends as interrupted with it.
            return;
        }
        let Some(active) = self.turn.take() else {
            return;
        };
        let outcome = match result {
            // A late `end_turn` (or anything else) after a cancel is a cancel.
            _ if active.cancel_requested => TurnOutcome::Cancelled,
            Ok(response) => convert::turn_outcome(response.stop_reason),
            Err(error) => TurnOutcome::Failed {
                message: self.describe(&error),
            },
        };
        self.end_turn(active, outcome);
    }

    fn end_turn(&self, active: ActiveTurn, outcome: TurnOutcome) {
        let transcript = active.recorder.finish(outcome.clone());
        self.emit(EventKind::TurnEnded {
            turn: active.id,
            outcome,
            transcript,
        });
    }

    fn update(&mut self, notification: SessionNotification) {
        // Before `session/new` is answered the session id is unknown, so
        // nothing can be attributed to it; ordered result callbacks deliver
        // the answer before any update the agent sends after it.
        if !matches!(&self.phase, Phase::Ready(id) if *id == notification.session_id) {
            return;
        }
        let turn = self.current_turn();
        match notification.update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                let text = convert::content_text(&chunk.content);
                if let Some(active) = &mut self.turn {
                    active.recorder.agent_message(&text);
                }
                self.emit_streamed(false, turn, &text);
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                let text = convert::content_text(&chunk.content);
                if let Some(active) = &mut self.turn {
                    active.recorder.agent_thought(&text);
                }
                self.emit_streamed(true, turn, &text);
            }
            SessionUpdate::ToolCall(tool_call) => self.tool_call(tool_call),
            SessionUpdate::ToolCallUpdate(update) => {
                self.tool_call_update(update);
            }
            SessionUpdate::Plan(plan) => {
                let entries: Vec<_> = plan.entries.iter().map(convert::plan_entry).collect();
                if let Some(active) = &mut self.turn {
                    active.recorder.plan(&entries);
                }
                self.emit(EventKind::Plan { turn, entries });
            }
            SessionUpdate::CurrentModeUpdate(mode) => {
                let mode_id = mode.current_mode_id.to_string();
                if let Some(modes) = &mut self.modes {
                    modes.current_mode_id.clone_from(&mode_id);
                }
                self.emit(EventKind::ModeChanged { mode_id });
            }
            SessionUpdate::ConfigOptionUpdate(update) => {
                self.config_options = convert::config_options(&update.config_options);
                self.emit(EventKind::ConfigOptions {
                    options: self.config_options.clone(),
                });
            }
            // Replays of the user's words, command lists, titles, usage,
            // notices and compaction are not part of Somite's feed.
            _ => {}
        }
    }

    /// A full `tool_call`: replaces what was known, keeping earlier `_meta`.
    fn tool_call(&mut self, tool_call: ToolCall) {
        let id = tool_call.tool_call_id.to_string();
        let tracked = self.tool_calls.entry(id.clone()).or_default();
        tracked.facts.title = Some(tool_call.title.clone());
        tracked.facts.name.clone_from(&tool_call.name);
        tracked.facts.raw_input.clone_from(&tool_call.raw_input);
        if let Some(meta) = &tool_call.meta {
            tracked.facts.meta.extend(meta.clone());
        }
        let view = ToolCallView {
            tool_call_id: id.clone(),
            title: tool_call.title,
            kind: convert::tool_kind(tool_call.kind),
            status: convert::tool_status(tool_call.status),
            identity: None,
            raw_input: tool_call.raw_input,
            raw_output: tool_call.raw_output,
            content: tool_call
                .content
                .iter()
                .map(convert::tool_content)
                .collect(),
            locations: tool_call.locations.iter().map(convert::location).collect(),
        };
        self.publish_tool_call(&id, view);
    }

    /// A `tool_call_update` (or a permission's tool call): merges its fields,
    /// creating the tool call if it is the first word about it.
    fn tool_call_update(&mut self, update: ToolCallUpdate) -> ToolCallView {
        let id = update.tool_call_id.to_string();
        let tracked = self.tool_calls.entry(id.clone()).or_default();
        let fields = update.fields;
        if let Some(title) = &fields.title {
            tracked.facts.title = Some(title.clone());
        }
        if let Some(name) = &fields.name {
            tracked.facts.name = Some(name.clone());
        }
        if let Some(raw_input) = &fields.raw_input {
            tracked.facts.raw_input = Some(raw_input.clone());
        }
        if let Some(meta) = &update.meta {
            tracked.facts.meta.extend(meta.clone());
        }
        let mut view = tracked.view.clone().unwrap_or_else(|| ToolCallView {
            tool_call_id: id.clone(),
            title: String::new(),
            kind: ToolKind::Other,
            status: ToolStatus::Pending,
            identity: None,
            raw_input: None,
            raw_output: None,
            content: Vec::new(),
            locations: Vec::new(),
        });
        if let Some(title) = fields.title {
            view.title = title;
        }
        if let Some(kind) = fields.kind {
            view.kind = convert::tool_kind(kind);
        }
        if let Some(status) = fields.status {
            view.status = convert::tool_status(status);
        }
        if fields.raw_input.is_some() {
            view.raw_input = fields.raw_input;
        }
        if fields.raw_output.is_some() {
            view.raw_output = fields.raw_output;
        }
        if let Some(content) = fields.content {
            view.content = content.iter().map(convert::tool_content).collect();
        }
        if let Some(locations) = fields.locations {
            view.locations = locations.iter().map(convert::location).collect();
        }
        self.publish_tool_call(&id, view)
    }

    /// Identifies, redacts, stores, records and emits a tool call's state.
    fn publish_tool_call(&mut self, id: &str, mut view: ToolCallView) -> ToolCallView {
        let tracked = self.tool_calls.entry(id.to_owned()).or_default();
        view.identity = match self.boundary.identify(&tracked.facts) {
            IdentityVerdict::Identified(identity) => Some(identity),
            _ => None,
        };
        view.title = self.redactor.redact_text(&view.title);
        view.raw_input = view
            .raw_input
            .map(|input| self.redactor.redact_value(input));
        view.raw_output = view
            .raw_output
            .map(|output| self.redactor.redact_value(output));
        view.content = view
            .content
            .iter()
            .map(|text| self.redactor.redact_text(text))
            .collect();
        tracked.view = Some(view.clone());
        if let Some(active) = &mut self.turn {
            active.recorder.tool_call(&view);
        }
        self.emit(EventKind::ToolCall {
            turn: self.current_turn(),
            tool_call: view.clone(),
        });
        view
    }

    fn permission(
        &mut self,
        request: RequestPermissionRequest,
        responder: Responder<RequestPermissionResponse>,
    ) {
        if !matches!(&self.phase, Phase::Ready(id) if *id == request.session_id) {
            let _ = responder.respond(RequestPermissionResponse::new(
                RequestPermissionOutcome::Cancelled,
            ));
            return;
        }
        let options: Vec<PermissionChoice> = request
            .options
            .iter()
            .map(convert::permission_choice)
            .collect();
        let tool_call = self.tool_call_update(request.tool_call);
        self.permissions_issued += 1;
        let sequence = self.permissions_issued;
        let facts = &self.tool_calls[&tool_call.tool_call_id].facts;
        match self.boundary.decide(facts, &options) {
            PermissionDecision::AutoAllow {
                option_id,
                identity,
            } => {
                let pending = Pending {
                    tool_call_id: tool_call.tool_call_id,
                    options,
                    responder,
                    deadline: self.clock.now(),
                };
                self.settle(
                    sequence,
                    pending,
                    PermissionAnswer::Selected {
                        option_id: option_id.clone(),
                    },
                    PermissionResolution::Policy {
                        option_id,
                        identity,
                    },
                );
            }
            PermissionDecision::Ask(reason) => {
                let timeout = self.limits.permission_timeout;
                self.emit(EventKind::PermissionRequested {
                    permission: PendingPermission {
                        id: self.permission_id(sequence),
                        tool_call: tool_call.clone(),
                        options: options.clone(),
                        reason,
                        timeout_ms: u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
                    },
                });
                self.pending.insert(
                    sequence,
                    Pending {
                        tool_call_id: tool_call.tool_call_id,
                        options,
                        responder,
                        deadline: self.clock.now() + timeout,
                    },
                );
            }
        }
    }

    fn permission_id(&self, sequence: u64) -> PermissionId {
        PermissionId {
            generation: self.generation,
            sequence,
        }
    }

    fn answer_permission(
        &mut self,
        id: PermissionId,
        answer: PermissionAnswer,
    ) -> Result<(), SessionError> {
        if id.generation != self.generation {
            return Err(SessionError::StaleGeneration { id });
        }
        let pending = self
            .pending
            .get(&id.sequence)
            .ok_or(SessionError::UnknownPermission { id })?;
        if let PermissionAnswer::Selected { option_id } = &answer
            && !pending
                .options
                .iter()
                .any(|option| option.option_id == *option_id)
        {
            return Err(SessionError::UnadvertisedOption {
                option_id: option_id.clone(),
            });
        }
        self.resolve(
            id.sequence,
            answer.clone(),
            PermissionResolution::User { answer },
        );
        Ok(())
    }

    fn expire_permissions(&mut self) {
        let now = self.clock.now();
        let expired: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, pending)| pending.deadline <= now)
            .map(|(sequence, _)| *sequence)
            .collect();
        for sequence in expired {
            let answer = timeout_answer(&self.pending[&sequence].options);
            self.resolve(
                sequence,
                answer.clone(),
                PermissionResolution::Timeout { answer },
            );
        }
    }

    /// Answers a waiting permission (see [`Self::settle`]).
    fn resolve(
        &mut self,
        sequence: u64,
        answer: PermissionAnswer,
        resolution: PermissionResolution,
    ) {
        if let Some(pending) = self.pending.remove(&sequence) {
            self.settle(sequence, pending, answer, resolution);
        }
    }

    /// Answers a permission request, then reports and records the answer.
    fn settle(
        &mut self,
        sequence: u64,
        pending: Pending,
        answer: PermissionAnswer,
        resolution: PermissionResolution,
    ) {
        let outcome = match answer {
            PermissionAnswer::Selected { option_id } => {
                RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option_id))
            }
            PermissionAnswer::Cancelled => RequestPermissionOutcome::Cancelled,
        };
        if let Err(error) = pending
            .responder
            .respond(RequestPermissionResponse::new(outcome))
        {
            tracing::debug!(%error, "could not answer a permission request");
        }
        let permission_id = self.permission_id(sequence);
        if let Some(active) = &mut self.turn {
            active.recorder.permission(
                &pending.tool_call_id,
                permission_id,
                &pending.options,
                &resolution,
            );
        }
        self.emit(EventKind::PermissionResolved {
            permission_id,
            tool_call_id: pending.tool_call_id,
            resolution,
        });
    }

    /// The `session/set_config_option` request for a value the option accepts.
    fn config_request(
        &self,
        id: &str,
        value: ConfigValue,
    ) -> Result<SetSessionConfigOptionRequest, SessionError> {
        let session_id = self.session_id()?;
        let option = self
            .config_options
            .iter()
            .find(|option| option.id == id)
            .ok_or_else(|| SessionError::UnknownConfigOption { id: id.to_owned() })?;
        let value = match (&option.control, value) {
            (ConfigControl::Select { choices, .. }, ConfigValue::Select(value))
                if choices.iter().any(|choice| choice.value == value) =>
            {
                SessionConfigOptionValue::value_id(value)
            }
            (ConfigControl::Boolean { .. }, ConfigValue::Boolean(value)) => {
                SessionConfigOptionValue::boolean(value)
            }
            _ => return Err(SessionError::InvalidConfigValue { id: id.to_owned() }),
        };
        Ok(SetSessionConfigOptionRequest::new(
            session_id,
            id.to_owned(),
            value,
        ))
    }

    /// Ends the session: answers what is pending, closes the turn, stops the
    /// connection and the process group, removes the workspace, reports.
    async fn finish(mut self, mut reason: EndReason, process: AgentProcess) -> CleanupReport {
        let pending: Vec<u64> = self.pending.keys().copied().collect();
        for sequence in pending {
            self.resolve(
                sequence,
                PermissionAnswer::Cancelled,
                PermissionResolution::SessionEnded,
            );
        }
        if let Some(active) = self.turn.take() {
            let outcome = if active.cancel_requested {
                TurnOutcome::Cancelled
            } else {
                TurnOutcome::Interrupted
            };
            self.end_turn(active, outcome);
        }
        self.flush_streamed();
        if let Some(stop) = self.stop_connection.take() {
            let _ = stop.send(());
        }
        self.connection = None;
        let stopped = process
            .stop(self.limits.exit_grace, self.limits.terminate_grace)
            .await;
        if let EndReason::AgentExited { exit, stderr_tail } = &mut reason {
            *exit = stopped.exit;
            *stderr_tail = self.redactor.redact_text(&stopped.stderr_tail);
        }
        let cleanup = CleanupReport {
            agent_exit: stopped.exit,
            stop: stopped.escalation,
            workspace: self.workspace.remove(),
        };
        let _ = self.events.send(SessionEvent {
            generation: self.generation,
            kind: EventKind::Ended {
                reason,
                cleanup: cleanup.clone(),
            },
        });
        cleanup
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
