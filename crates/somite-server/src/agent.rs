//! The Agent panel's backend: at most one ACP session, driven through
//! `somite-acp`, with its events in the activity feed.
//!
//! `somite-acp` owns the protocol, the agent's process and its private
//! workspace; this module owns what only the runtime can: the Somite MCP
//! capability (issued per session, handed to the Somite MCP child through its
//! environment only, revoked when the session ends), the feed (every session
//! event, plus the user's own words — never the Somite contract that
//! `somite-acp` prepends), the session's package attachment root, and the
//! durable transcript of every finished turn under `.somite/agent-transcripts/`.
//!
//! Disconnecting closes the attachment root first — under its lock, so a
//! compile's attachment in flight finishes before anything is removed and a
//! later one is refused, never written into a removed folder — then lets
//! `somite-acp` stop the agent and remove its workspace. The answer
//! ([`DisconnectReport`]) says whether each removal happened.
//!
//! A managed-resource install (or a cancel that deletes its partial
//! download) is never answered by Somite's permission policy; when the user
//! allows such a prompt, the host records a one-use [`ResourceGrant`] for
//! the session's capability, and the MCP install and cancel routes act only
//! on a grant the user gave for that very provider (and consent). An agent
//! that skips the prompt — one that remembered an `allow_always` — is
//! refused by the runtime, not trusted.
//!
//! Nothing here is persisted about the agent command: it lives in memory for
//! the session and is shown in the session view, never saved in the project.

use crate::capability::{Capabilities, CapabilityId};
use crate::feed::Feed;
use crate::registry_fetch::LiveRegistry;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use somite_acp::events::{
    ConfigOption, LoginMethod, PendingPermission, SessionInfo, WorkspaceRemoval,
};
use somite_acp::launcher::{LauncherStatus, current_platform};
use somite_acp::permission::PermissionChoiceKind;
use somite_acp::registry::{LIVE_REGISTRY_URL, RegistryOrigin};
use somite_acp::transcript::Redactor;
use somite_acp::{
    AgentEnvironment, AgentSession, CleanupReport, ConfigValue, EndReason, EventKind, Generation,
    LaunchCommand, Launcher, McpServerRole, McpServerSpec, PathSearch, PermissionAnswer,
    PermissionId, SessionConfig, SessionError, SessionEvent, SpawnError, TurnId,
    discover_launchers,
};
use somite_api::EnvVars;
use somite_api::FeedKind;
use somite_api::{AgentCode, DomainCode, Error, ErrorCode};
use somite_project::Layout;
use somite_project::attach::{AttachmentRoot, PACKAGES_DIR, SessionLimits};
use somite_project::durable;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Variables the Pixi and Nextflow MCP children need to find their manuals
/// and cache; the agent's allowlisted environment does not carry `SOMITE_*`
/// names, so they travel in the server entries themselves.
const TOOL_SERVER_VARIABLES: &[&str] = &[
    somite_api::EnvVars::SOMITE_MCP_DOCS_CACHE_DIR,
    somite_api::EnvVars::SOMITE_MCP_DOCS_SOURCE_PIXI,
    somite_api::EnvVars::SOMITE_MCP_DOCS_SOURCE_NEXTFLOW,
];

/// What agents and their MCP servers start with; fixed at start-up.
#[derive(Debug, Clone)]
pub struct AgentSetup {
    /// The agent's allowlisted environment (credential opt-in applied).
    pub environment: AgentEnvironment,
    /// Where launchers and custom programs are looked up (the runner's `PATH`).
    pub search_path: String,
    /// The `somite` executable the MCP servers run as.
    pub somite_binary: PathBuf,
    /// `SOMITE_MCP_DOCS_*` variables passed to the Pixi and Nextflow servers.
    pub tool_server_env: Vec<(String, String)>,
    /// Where the live ACP Registry is fetched from (`None`: the bundled
    /// snapshot only). `SOMITE_ACP_REGISTRY_URL`, default the public one.
    pub registry_url: Option<String>,
}

impl AgentSetup {
    /// Reads the setup from the runner's environment.
    ///
    /// # Errors
    /// A credential opt-in that breaks a rule stops start-up.
    pub fn from_env(
        env: &std::collections::BTreeMap<String, String>,
        somite_binary: PathBuf,
    ) -> Result<AgentSetup, somite_acp::CredentialOptInError> {
        Ok(AgentSetup {
            environment: AgentEnvironment::from_runner_env(env.clone())?,
            search_path: env.get("PATH").cloned().unwrap_or_default(),
            somite_binary,
            tool_server_env: TOOL_SERVER_VARIABLES
                .iter()
                .filter_map(|name| Some((name.to_string(), env.get(*name)?.clone())))
                .collect(),
            registry_url: match env
                .get(EnvVars::SOMITE_ACP_REGISTRY_URL)
                .map(String::as_str)
            {
                None => Some(LIVE_REGISTRY_URL.to_owned()),
                Some("off") => None,
                Some(url) => Some(url.to_owned()),
            },
        })
    }
}

/// How the panel asks to start an agent.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum ConnectRequest {
    /// A registry launcher, by id.
    Launcher { launcher: String },
    /// The user's own argv (never a shell string).
    Command { command: Vec<String> },
}

/// Where a session is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    Disconnected,
    Connecting,
    LoginRequired,
    Ready,
    Prompting,
    Ended,
}

/// What the panel shows: `GET /api/agent/session`.
#[derive(Debug, Clone, Serialize)]
pub struct SessionView {
    pub state: SessionState,
    pub generation: Option<u64>,
    /// The argv being run; shown before and while it runs.
    pub command: Option<Vec<String>>,
    pub session: Option<SessionInfo>,
    pub config_options: Vec<ConfigOption>,
    pub login_methods: Vec<LoginMethod>,
    pub pending_permissions: Vec<PendingPermission>,
    pub turn: Option<TurnId>,
    pub ended: Option<EndReason>,
}

impl SessionView {
    fn disconnected() -> SessionView {
        SessionView {
            state: SessionState::Disconnected,
            generation: None,
            command: None,
            session: None,
            config_options: Vec::new(),
            login_methods: Vec::new(),
            pending_permissions: Vec::new(),
            turn: None,
            ended: None,
        }
    }

    /// Follows one session event.
    fn observe(&mut self, event: &SessionEvent) {
        match &event.kind {
            EventKind::Ready { session } => {
                self.state = SessionState::Ready;
                self.config_options = session.config_options.clone();
                self.login_methods.clear();
                self.session = Some(session.clone());
            }
            EventKind::LoginRequired { methods } => {
                self.state = SessionState::LoginRequired;
                self.login_methods = methods.clone();
            }
            EventKind::ConfigOptions { options } => self.config_options = options.clone(),
            EventKind::PermissionRequested { permission } => {
                self.pending_permissions.push(permission.clone());
            }
            EventKind::PermissionResolved { permission_id, .. } => {
                self.pending_permissions.retain(|p| p.id != *permission_id);
            }
            EventKind::TurnEnded { .. } => {
                self.turn = None;
                if self.state == SessionState::Prompting {
                    self.state = SessionState::Ready;
                }
            }
            EventKind::Ended { reason, .. } => {
                self.state = SessionState::Ended;
                self.turn = None;
                self.pending_permissions.clear();
                self.ended = Some(reason.clone());
            }
            EventKind::AgentMessage { .. }
            | EventKind::AgentThought { .. }
            | EventKind::ToolCall { .. }
            | EventKind::Plan { .. }
            | EventKind::ModeChanged { .. } => {}
        }
    }
}

/// The launcher list: `GET /api/agent/launchers`.
#[derive(Debug, Clone, Serialize)]
pub struct LauncherList {
    pub registry: RegistryOrigin,
    pub launchers: Vec<Launcher>,
}

/// The attachment root of the connected session, shared with the compile
/// route so `somite.workflow.compile` can attach the package it froze.
#[derive(Debug, Clone)]
pub struct SessionAttachments {
    pub capability: CapabilityId,
    pub generation: u64,
    pub root: Arc<Mutex<AttachmentRoot>>,
    /// `<root>/packages`, named in the disconnect report.
    packages: PathBuf,
}

/// What disconnecting did: the session's own cleanup (agent, workspace) and
/// the removal of the packages attached for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DisconnectReport {
    #[serde(flatten)]
    pub session: CleanupReport,
    /// Whether `<tools root>/packages` is gone.
    pub attachments: WorkspaceRemoval,
}

struct Connection {
    session: AgentSession,
    attachments: SessionAttachments,
    pump: tokio::task::JoinHandle<()>,
}

/// The one agent session of this runtime.
pub struct AgentHost {
    setup: AgentSetup,
    base_url: String,
    layout: Layout,
    feed: Feed,
    capabilities: Arc<Capabilities>,
    generations: AtomicU64,
    /// Serialises connect, calls and disconnect.
    connection: tokio::sync::Mutex<Option<Connection>>,
    view: Arc<Mutex<SessionView>>,
    /// Held while a prompt is sent and its user message announced, so no
    /// event of the turn enters the feed before the user's words.
    feed_order: Arc<tokio::sync::Mutex<()>>,
    attachments: Arc<Mutex<Option<SessionAttachments>>>,
    /// Masks secret-shaped values, and the session's capability, in
    /// everything shown: the feed, the session view, the user's words.
    redactor: Arc<Mutex<Redactor>>,
    /// The ACP Registry, fetched and cached.
    registry: Arc<LiveRegistry>,
    /// Resource installs and destructive cancels the user allowed, unused.
    resource_grants: Mutex<Vec<ResourceGrant>>,
}

/// What the user allowed an agent to do with one managed resource, once.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceGrant {
    pub capability: CapabilityId,
    pub provider_id: String,
    /// `install` or `cancel` (`somite_api::tools::resource`).
    pub action: String,
    /// For an install: the consent the prompt showed the user.
    pub consent: Option<Value>,
    granted_at: std::time::Instant,
}

/// The MCP arguments of a permission's tool call, when it is a Somite
/// `somite.resource` call that needs the user (see `somite_acp::permission`).
fn resource_call(permission: &PendingPermission) -> Option<serde_json::Map<String, Value>> {
    let identity = permission.tool_call.identity.as_ref()?;
    if identity.server != SOMITE_SERVER || identity.tool != somite_api::tools::somite::RESOURCE {
        return None;
    }
    let input = permission.tool_call.raw_input.as_ref()?.as_object()?;
    let arguments = if input.contains_key("server") || input.contains_key("tool") {
        input.get("arguments")?.as_object()?
    } else {
        input
    };
    somite_api::tools::resource::needs_user(Some(arguments)).then(|| arguments.clone())
}

/// The Somite MCP server's name in every session.
const SOMITE_SERVER: &str = "somite";

impl std::fmt::Debug for AgentHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentHost")
            .field("base_url", &self.base_url)
            .finish_non_exhaustive()
    }
}

impl AgentHost {
    pub fn new(
        setup: AgentSetup,
        base_url: String,
        layout: Layout,
        feed: Feed,
        capabilities: Arc<Capabilities>,
    ) -> AgentHost {
        let setup_registry_url = setup.registry_url.clone();
        AgentHost {
            setup,
            base_url,
            layout,
            feed,
            capabilities,
            generations: AtomicU64::new(0),
            connection: tokio::sync::Mutex::new(None),
            view: Arc::new(Mutex::new(SessionView::disconnected())),
            feed_order: Arc::new(tokio::sync::Mutex::new(())),
            attachments: Arc::new(Mutex::new(None)),
            redactor: Arc::new(Mutex::new(Redactor::default())),
            registry: Arc::new(LiveRegistry::new(setup_registry_url)),
            resource_grants: Mutex::new(Vec::new()),
        }
    }

    fn path_search(&self) -> PathSearch {
        PathSearch::new(&self.setup.search_path)
    }

    /// Every registry agent, installed first, from the live registry or,
    /// when it cannot be fetched, the bundled snapshot.
    pub async fn launchers(&self) -> LauncherList {
        let loaded = self.registry.current().await;
        LauncherList {
            launchers: discover_launchers(
                &loaded.registry,
                &self.path_search(),
                current_platform(),
            ),
            registry: loaded.origin,
        }
    }

    /// The session view, redacted.
    pub fn view(&self) -> Value {
        let view = serde_json::to_value(&*lock(&self.view)).unwrap_or_default();
        lock(&self.redactor).redact_value(view)
    }

    /// The connected session's attachments, if the capability is its own.
    pub fn attachments_for(&self, capability: CapabilityId) -> Option<SessionAttachments> {
        lock(&self.attachments)
            .as_ref()
            .filter(|a| a.capability == capability)
            .cloned()
    }

    async fn resolve(&self, request: &ConnectRequest) -> Result<LaunchCommand, Error> {
        let rejected = |message: String, recovery: &str| {
            Error::new(AgentCode::AgentCommandRejected, message, recovery)
        };
        match request {
            ConnectRequest::Command { command } => {
                LaunchCommand::custom(command, &self.path_search()).map_err(|e| {
                    rejected(
                        e.to_string(),
                        "give the agent's own executable and its arguments as an array",
                    )
                })
            }
            ConnectRequest::Launcher { launcher } => {
                let list = self.launchers().await;
                let found = list
                    .launchers
                    .iter()
                    .find(|l| l.id == *launcher)
                    .ok_or_else(|| {
                        Error::new(
                            DomainCode::NotFound,
                            format!("no launcher `{launcher}` in the ACP registry"),
                            "pick one of GET /api/agent/launchers, or give a custom command",
                        )
                    })?;
                found.command().cloned().ok_or_else(|| {
                    let why = match &found.status {
                        LauncherStatus::NotInstalled { missing, .. } => {
                            format!("`{missing}` is not on PATH")
                        }
                        LauncherStatus::Rejected { reason } => reason.clone(),
                        LauncherStatus::Installed { .. } | LauncherStatus::Package { .. } => {
                            "it has no command".to_owned()
                        }
                    };
                    rejected(
                        format!("`{}` cannot start here: {why}", found.name),
                        "install the agent (see the launcher's status), or give a custom command",
                    )
                })
            }
        }
    }

    /// Starts an agent and its session; returns once the process runs.
    pub async fn connect(&self, request: ConnectRequest) -> Result<Value, Error> {
        let mut slot = self.connection.lock().await;
        if slot.is_some() && lock(&self.view).state != SessionState::Ended {
            return Err(Error::new(
                AgentCode::AgentAlreadyConnected,
                "an agent is already connected",
                "disconnect it first (POST /api/agent/disconnect)",
            ));
        }
        if let Some(finished) = slot.take() {
            self.finish(finished).await;
        }
        let command = self.resolve(&request).await?;
        let generation = self.generations.fetch_add(1, Ordering::SeqCst) + 1;
        let workspace = somite_acp::AgentWorkspace::create().map_err(|e| {
            Error::new(
                DomainCode::Io,
                format!("could not create the agent's private workspace: {e}"),
                "check that the temporary directory is writable",
            )
        })?;
        let root = AttachmentRoot::new(
            &workspace.tools_root(),
            &self.layout,
            generation,
            SessionLimits::default(),
        )
        .map_err(somite_workflow::SomiteError::from)?;
        let (capability_id, capability) = self.capabilities.issue();
        let config = SessionConfig {
            mcp_servers: self.mcp_servers(&workspace.tools_root(), capability.expose()),
            // The permission policy allows exactly the tools `somite mcp somite`
            // advertises automatically.
            somite_tools: somite_api::tools::somite::ALL
                .iter()
                .map(|t| t.to_string())
                .collect(),
            ..SessionConfig::new(
                Generation(generation),
                command.clone(),
                self.setup.environment.clone(),
            )
        };
        drop(capability);
        let (session, events) = match AgentSession::spawn(config, workspace) {
            Ok(spawned) => spawned,
            Err(error) => {
                self.capabilities.revoke(capability_id);
                return Err(spawn_error(error));
            }
        };
        // The session's own redactor knows the capability and every other
        // secret it was handed; the feed and the view mask with the same one.
        let redactor = session.redactor().clone();
        *lock(&self.redactor) = redactor.clone();
        let attachments = SessionAttachments {
            capability: capability_id,
            generation,
            packages: root.root().join(PACKAGES_DIR),
            root: Arc::new(Mutex::new(root)),
        };
        *lock(&self.attachments) = Some(attachments.clone());
        *lock(&self.view) = SessionView {
            state: SessionState::Connecting,
            generation: Some(generation),
            command: Some(command.argv()),
            ..SessionView::disconnected()
        };
        let pump = tokio::spawn(pump_events(
            events,
            Pump {
                feed: self.feed.clone(),
                view: self.view.clone(),
                feed_order: self.feed_order.clone(),
                transcripts: self.layout.transcripts(),
                capabilities: self.capabilities.clone(),
                attachments: attachments.clone(),
                current: self.attachments.clone(),
                redactor,
            },
        ));
        *slot = Some(Connection {
            session,
            attachments,
            pump,
        });
        Ok(self.view())
    }

    fn mcp_servers(&self, tools_root: &std::path::Path, capability: &str) -> Vec<McpServerSpec> {
        let binary = self.setup.somite_binary.clone();
        let tool_server = |role, name: &str| McpServerSpec {
            role,
            name: name.to_owned(),
            command: binary.clone(),
            args: vec![
                "mcp".into(),
                name.to_owned(),
                "--workspace-root".into(),
                tools_root.display().to_string(),
            ],
            env: self.setup.tool_server_env.clone(),
        };
        vec![
            McpServerSpec {
                role: McpServerRole::Somite,
                name: SOMITE_SERVER.into(),
                command: binary.clone(),
                args: vec![
                    "mcp".into(),
                    "somite".into(),
                    "--server-url".into(),
                    self.base_url.clone(),
                ],
                env: vec![(
                    EnvVars::SOMITE_MCP_CAPABILITY.to_owned(),
                    capability.to_owned(),
                )],
            },
            tool_server(McpServerRole::Pixi, "pixi"),
            tool_server(McpServerRole::Nextflow, "nextflow"),
        ]
    }

    /// Sends the user's message; the feed gets their words first.
    pub async fn prompt(&self, text: String) -> Result<TurnId, Error> {
        let slot = self.connection.lock().await;
        let connection = connected(&slot)?;
        let order = self.feed_order.lock().await;
        let turn = connection
            .session
            .prompt(text.clone())
            .await
            .map_err(session_error)?;
        {
            let mut view = lock(&self.view);
            view.state = SessionState::Prompting;
            view.turn = Some(turn);
        }
        self.feed.publish(
            FeedKind::Agent,
            json!({
                "generation": connection.attachments.generation,
                "type": "user_message",
                "turn": turn,
                "text": lock(&self.redactor).redact_text(&text),
            }),
        );
        drop(order);
        Ok(turn)
    }

    pub async fn cancel(&self) -> Result<(), Error> {
        let slot = self.connection.lock().await;
        connected(&slot)?
            .session
            .cancel()
            .await
            .map_err(session_error)
    }

    pub async fn answer_permission(&self, id: &str, answer: PermissionAnswer) -> Result<(), Error> {
        let id: PermissionId = id.parse().map_err(|_| {
            Error::new(
                DomainCode::NotFound,
                format!("`{id}` is not a permission id"),
                "answer a permission listed in the session's pending_permissions",
            )
        })?;
        let slot = self.connection.lock().await;
        let connection = connected(&slot)?;
        // The user's answer to a resource prompt is what lets the runtime
        // act on the agent's call: read the prompt before it is answered.
        let grant = lock(&self.view)
            .pending_permissions
            .iter()
            .find(|p| p.id == id)
            .and_then(|permission| {
                let arguments = resource_call(permission)?;
                let PermissionAnswer::Selected { option_id } = &answer else {
                    return None;
                };
                let allows = permission.options.iter().any(|o| {
                    o.option_id == *option_id
                        && matches!(
                            o.kind,
                            PermissionChoiceKind::AllowOnce | PermissionChoiceKind::AllowAlways
                        )
                });
                allows.then(|| ResourceGrant {
                    capability: connection.attachments.capability,
                    provider_id: arguments
                        .get("provider_id")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    action: arguments
                        .get(somite_api::tools::resource::ACTION)
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    consent: arguments.get("consent").cloned(),
                    granted_at: std::time::Instant::now(),
                })
            });
        // The grant is in place before the answer reaches the agent, which
        // may call the tool at once; it is taken back if the answer fails.
        if let Some(grant) = &grant {
            lock(&self.resource_grants).push(grant.clone());
        }
        let answered = connection
            .session
            .answer_permission(id, answer)
            .await
            .map_err(session_error);
        if let (Err(_), Some(grant)) = (&answered, &grant) {
            lock(&self.resource_grants).retain(|g| g != grant);
        }
        answered
    }

    /// Uses up the user's grant for `capability`'s agent to `action` the
    /// resource `provider_id` (with exactly `consent`, for an install).
    /// A grant lives as long as a permission prompt may wait.
    pub fn take_resource_grant(
        &self,
        capability: CapabilityId,
        provider_id: &str,
        action: &str,
        consent: Option<&Value>,
    ) -> bool {
        let mut grants = lock(&self.resource_grants);
        grants.retain(|g| g.granted_at.elapsed() < somite_acp::limits::PERMISSION_TIMEOUT);
        let found = grants.iter().position(|g| {
            g.capability == capability
                && g.provider_id == provider_id
                && g.action == action
                && (consent.is_none() || g.consent.as_ref() == consent)
        });
        found.map(|index| grants.remove(index)).is_some()
    }

    pub async fn set_config_option(
        &self,
        id: String,
        value: ConfigValue,
    ) -> Result<Vec<ConfigOption>, Error> {
        let slot = self.connection.lock().await;
        let options = connected(&slot)?
            .session
            .set_config_option(id, value)
            .await
            .map_err(session_error)?;
        lock(&self.view).config_options = options.clone();
        Ok(options)
    }

    /// Ends the session: waits for attachment work, stops the agent, removes
    /// its workspace and reports what cleaning up did.
    pub async fn disconnect(&self) -> Result<DisconnectReport, Error> {
        let mut slot = self.connection.lock().await;
        let connection = slot.take().ok_or_else(not_connected)?;
        Ok(self.finish(connection).await)
    }

    /// Disconnects whatever is connected; for shutdown.
    pub async fn shut_down(&self) {
        if let Some(connection) = self.connection.lock().await.take() {
            self.finish(connection).await;
        }
    }

    async fn finish(&self, connection: Connection) -> DisconnectReport {
        let Connection {
            session,
            attachments,
            pump,
        } = connection;
        // Before the workspace goes: the attachment root lives inside it.
        let packages = close_attachments(&attachments).await;
        let report = session.disconnect().await;
        // The pump ends with the session's last event.
        let _ = pump.await;
        self.capabilities.revoke(attachments.capability);
        lock(&self.resource_grants).retain(|g| g.capability != attachments.capability);
        *lock(&self.view) = SessionView::disconnected();
        DisconnectReport {
            session: report,
            attachments: packages,
        }
    }
}

fn connected(slot: &Option<Connection>) -> Result<&Connection, Error> {
    slot.as_ref().ok_or_else(not_connected)
}

fn not_connected() -> Error {
    Error::new(
        AgentCode::AgentNotConnected,
        "no agent is connected",
        "connect one first (POST /api/agent/connect)",
    )
}

/// Removes the session's attached packages and refuses further attachments.
///
/// Closing waits for an attachment in progress (it holds the root's lock),
/// on a blocking thread: a large copy must not stall the runtime.
async fn close_attachments(attachments: &SessionAttachments) -> WorkspaceRemoval {
    let root = attachments.root.clone();
    let generation = attachments.generation;
    let path = attachments.packages.clone();
    let closed = tokio::task::spawn_blocking(move || {
        lock(&root).close(generation).map_err(|e| e.to_string())
    })
    .await
    .unwrap_or_else(|e| Err(e.to_string()));
    match closed {
        Ok(()) => WorkspaceRemoval::Removed { path },
        Err(error) => {
            tracing::warn!(%error, "the agent session's attached packages could not be removed");
            WorkspaceRemoval::Failed { path, error }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

fn spawn_error(error: SpawnError) -> Error {
    Error::new(
        AgentCode::AgentCommandRejected,
        error.to_string(),
        "check the agent command; it must be an ACP agent executable",
    )
}

fn session_error(error: SessionError) -> Error {
    let message = error.to_string();
    let (code, recovery): (ErrorCode, _) = match error {
        SessionError::Ended => (
            AgentCode::AgentNotConnected.into(),
            "connect the agent again",
        ),
        SessionError::NotReady => (
            AgentCode::AgentNotReady.into(),
            "wait for the agent's session to be ready",
        ),
        SessionError::TurnInProgress => (
            AgentCode::AgentBusy.into(),
            "wait for the turn to end, or cancel it",
        ),
        SessionError::StaleGeneration { .. } | SessionError::UnknownPermission { .. } => (
            DomainCode::NotFound.into(),
            "answer a permission listed in the session's pending_permissions",
        ),
        SessionError::UnadvertisedOption { .. }
        | SessionError::UnknownConfigOption { .. }
        | SessionError::InvalidConfigValue { .. }
        | SessionError::NotAnAgentLogin { .. } => (
            DomainCode::InvalidRequest.into(),
            "use one of the ids and values the agent advertised",
        ),
        SessionError::Agent { .. } => (AgentCode::AgentError.into(), "see the agent's message"),
    };
    Error::new(code, message, recovery)
}

struct Pump {
    feed: Feed,
    view: Arc<Mutex<SessionView>>,
    feed_order: Arc<tokio::sync::Mutex<()>>,
    transcripts: PathBuf,
    capabilities: Arc<Capabilities>,
    attachments: SessionAttachments,
    current: Arc<Mutex<Option<SessionAttachments>>>,
    redactor: Redactor,
}

/// Moves one session's events into the view, the transcripts and the feed.
async fn pump_events(mut events: somite_acp::SessionEvents, pump: Pump) {
    while let Some(event) = events.recv().await {
        let _order = pump.feed_order.lock().await;
        lock(&pump.view).observe(&event);
        if let EventKind::TurnEnded { transcript, .. } = &event.kind {
            let path = pump.transcripts.join(transcript.file_name());
            let bytes = serde_json::to_vec_pretty(transcript).unwrap_or_default();
            let written = tokio::task::spawn_blocking(move || {
                std::fs::create_dir_all(path.parent().unwrap_or(&path))
                    .map_err(|e| e.to_string())?;
                durable::publish(&path, &bytes).map_err(|e| e.to_string())
            })
            .await;
            if let Ok(Err(error)) | Err(error) = written.map_err(|e| e.to_string()) {
                tracing::warn!(%error, "an agent transcript could not be written");
                pump.feed.publish(
                    FeedKind::Agent,
                    json!({
                        "generation": event.generation,
                        "type": "transcript_failed",
                        "message": error,
                    }),
                );
            }
        }
        if let EventKind::Ended { .. } = &event.kind {
            pump.capabilities.revoke(pump.attachments.capability);
            // A failure here is reported again, and retried, by disconnect.
            close_attachments(&pump.attachments).await;
            let mut current = lock(&pump.current);
            if current
                .as_ref()
                .is_some_and(|a| a.generation == pump.attachments.generation)
            {
                *current = None;
            }
        }
        let data = serde_json::to_value(&event).unwrap_or_default();
        pump.feed
            .publish(FeedKind::Agent, pump.redactor.redact_value(data));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session_root(tools: &std::path::Path, project: &std::path::Path) -> SessionAttachments {
        let root =
            AttachmentRoot::new(tools, &Layout::new(project), 1, SessionLimits::default()).unwrap();
        SessionAttachments {
            capability: Capabilities::default().issue().0,
            generation: 1,
            packages: root.root().join(PACKAGES_DIR),
            root: Arc::new(Mutex::new(root)),
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn closing_removes_what_an_attachment_in_flight_wrote() {
        let (project, tools) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let attachments = session_root(tools.path(), project.path());
        let package = attachments.packages.join("0123-1");
        // An attachment holds the root's lock from its first write to its
        // publication; the close asked for meanwhile must come after it.
        let in_flight = lock(&attachments.root);
        let closing = tokio::spawn({
            let attachments = attachments.clone();
            async move { close_attachments(&attachments).await }
        });
        std::fs::create_dir_all(&package).unwrap();
        std::fs::write(package.join("main.nf"), "workflow {}\n").unwrap();
        drop(in_flight);
        assert_eq!(
            closing.await.unwrap(),
            WorkspaceRemoval::Removed {
                path: attachments.packages.clone()
            }
        );
        assert!(!attachments.packages.exists(), "nothing is left behind");
    }

    #[tokio::test]
    async fn a_removal_that_failed_is_reported_and_retried_by_the_next_close() {
        let (project, tools) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let attachments = session_root(tools.path(), project.path());
        // A file where the packages folder belongs: removing it as a folder
        // fails for every user, root included, with no special attribute.
        std::fs::create_dir_all(attachments.packages.parent().unwrap()).unwrap();
        std::fs::write(&attachments.packages, "not a folder\n").unwrap();
        let first = close_attachments(&attachments).await;
        std::fs::remove_file(&attachments.packages).unwrap();
        let package = attachments.packages.join("0123-1");
        std::fs::create_dir_all(&package).unwrap();
        std::fs::write(package.join("main.nf"), "workflow {}\n").unwrap();
        let WorkspaceRemoval::Failed { path, error } = first else {
            panic!("the removal cannot succeed: {first:?}");
        };
        assert_eq!(path, attachments.packages);
        assert!(!error.is_empty());
        // As when the session ended by itself and the user disconnects later.
        assert_eq!(
            close_attachments(&attachments).await,
            WorkspaceRemoval::Removed {
                path: attachments.packages.clone()
            }
        );
        assert!(!attachments.packages.exists());
    }
}
