//! One ACP v1 session with the user's agent.
//!
//! [`AgentSession::spawn`] starts the chosen command — never through a shell
//! — in its own process group, in a fresh [`AgentWorkspace`], with the
//! allowlisted [`AgentEnvironment`]. A driver task then owns everything
//! about the session: it negotiates ACP v1 (`initialize` advertising neither
//! file-system nor terminal access, then `session/new` with the Somite, Pixi
//! and Nextflow stdio MCP servers), turns every `session/update` into a
//! [`SessionEvent`], answers or parks permission requests, and on any end —
//! disconnect, agent exit, an oversized frame, a protocol failure — stops
//! the process group and removes the workspace, reporting both.
//!
//! The handle's methods send commands to the driver; nothing waits inside
//! the SDK's dispatch loop, so a pending permission never stalls the
//! connection. The event receiver must be drained (the server moves events
//! into its activity feed).

mod convert;
mod driver;
mod process;

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use thiserror::Error;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::clock::{Clock, SystemClock};
use crate::env::{AgentEnvironment, MCP_CAPABILITY_VARIABLE};
use crate::events::{
    CleanupReport, ConfigOption, ConfigValue, Generation, PermissionId, SessionEvent, TurnId,
};
use crate::launcher::LaunchCommand;
use crate::limits::{EXIT_GRACE, MAX_FRAME_BYTES, PERMISSION_TIMEOUT, TERMINATE_GRACE};
use crate::permission::{BoundaryError, PermissionAnswer, ToolBoundary};
use crate::secrets::{Redactor, is_secret_name};
use crate::workspace::AgentWorkspace;

/// How Somite introduces itself in `initialize`.
pub const CLIENT_NAME: &str = "somite";

/// Which MCP server of the session a spec is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum McpServerRole {
    /// The Somite workflow server; the only one that may carry the capability.
    Somite,
    /// The Pixi server.
    Pixi,
    /// The Nextflow server.
    Nextflow,
}

/// One stdio MCP server handed to the agent in `session/new`.
#[derive(Clone, PartialEq, Eq)]
pub struct McpServerSpec {
    /// Which server it is.
    pub role: McpServerRole,
    /// Its name, as the agent will know it (`[A-Za-z0-9_-]+`, unique).
    pub name: String,
    /// Its program, by absolute path.
    pub command: PathBuf,
    /// Its arguments (never a secret).
    pub args: Vec<String>,
    /// Its environment; [`MCP_CAPABILITY_VARIABLE`] only for the Somite server.
    pub env: Vec<(String, String)>,
}

impl fmt::Debug for McpServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServerSpec")
            .field("role", &self.role)
            .field("name", &self.name)
            .field("command", &self.command)
            .field("args", &self.args)
            .field(
                "env",
                &self.env.iter().map(|(name, _)| name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// The bounds of one session; the defaults are the specification's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// The largest frame of agent output ([`MAX_FRAME_BYTES`]).
    pub max_frame_bytes: usize,
    /// How long a permission waits for the user ([`PERMISSION_TIMEOUT`]).
    pub permission_timeout: Duration,
    /// How long the agent may take to exit once its input closes ([`EXIT_GRACE`]).
    pub exit_grace: Duration,
    /// How long its group may take to exit after `SIGTERM` ([`TERMINATE_GRACE`]).
    pub terminate_grace: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            max_frame_bytes: MAX_FRAME_BYTES,
            permission_timeout: PERMISSION_TIMEOUT,
            exit_grace: EXIT_GRACE,
            terminate_grace: TERMINATE_GRACE,
        }
    }
}

/// Everything a session needs.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Which session of the server's life this is.
    pub generation: Generation,
    /// What to run.
    pub command: LaunchCommand,
    /// The agent's environment.
    pub environment: AgentEnvironment,
    /// The MCP servers for `session/new`.
    pub mcp_servers: Vec<McpServerSpec>,
    /// The exact tools the Somite MCP server advertises.
    pub somite_tools: Vec<String>,
    /// The session's bounds.
    pub limits: SessionLimits,
    /// The clock for permission timeouts.
    pub clock: Arc<dyn Clock>,
}

impl SessionConfig {
    /// A session with no MCP servers, the specification's limits and real time.
    #[must_use]
    pub fn new(
        generation: Generation,
        command: LaunchCommand,
        environment: AgentEnvironment,
    ) -> Self {
        Self {
            generation,
            command,
            environment,
            mcp_servers: Vec::new(),
            somite_tools: Vec::new(),
            limits: SessionLimits::default(),
            clock: Arc::new(SystemClock),
        }
    }
}

/// Why a session could not start.
#[derive(Debug, Error)]
pub enum SpawnError {
    /// An MCP server spec is malformed.
    #[error("MCP server `{name}`: {problem}")]
    InvalidMcpServer {
        /// The server's name.
        name: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// The capability would reach a server other than Somite's.
    #[error(
        "MCP server `{server}` is given {MCP_CAPABILITY_VARIABLE}; only the Somite server may receive the capability"
    )]
    CapabilityOutsideSomiteServer {
        /// The server.
        server: String,
    },
    /// The capability appears in a command line.
    #[error(
        "the MCP capability appears in the arguments of `{command}`; it may travel only in the Somite server's environment"
    )]
    CapabilityInArguments {
        /// The server, or the agent command.
        command: String,
    },
    /// The Somite tool list is invalid.
    #[error(transparent)]
    SomiteTools(#[from] BoundaryError),
    /// The agent could not be started.
    #[error("could not start the agent `{}`: {error}", program.display())]
    Spawn {
        /// The program.
        program: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// Why a session command failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SessionError {
    /// The session has ended.
    #[error("the agent session has ended; connect again")]
    Ended,
    /// The agent is still starting, or waits for a login.
    #[error("the agent session is not ready yet")]
    NotReady,
    /// A turn is already running.
    #[error("the agent is still working on the previous message; wait or cancel it")]
    TurnInProgress,
    /// The permission belongs to an earlier session.
    #[error("permission {id} belongs to an earlier agent session")]
    StaleGeneration {
        /// The permission.
        id: PermissionId,
    },
    /// No such pending permission.
    #[error("permission {id} is not pending")]
    UnknownPermission {
        /// The permission.
        id: PermissionId,
    },
    /// The option is not one the agent offered.
    #[error("`{option_id}` is not one of the options the agent offered")]
    UnadvertisedOption {
        /// The option.
        option_id: String,
    },
    /// No such configuration option.
    #[error("the agent has no configuration option `{id}`")]
    UnknownConfigOption {
        /// The option.
        id: String,
    },
    /// The value does not fit the option.
    #[error("`{id}` does not accept that value")]
    InvalidConfigValue {
        /// The option.
        id: String,
    },
    /// No login is waiting, or the method is not one the agent carries out.
    #[error("`{method_id}` is not a login method the agent can carry out now")]
    NotAnAgentLogin {
        /// The method.
        method_id: String,
    },
    /// The agent answered with an error.
    #[error("the agent answered: {message}")]
    Agent {
        /// The agent's message.
        message: String,
    },
}

/// A command for the driver.
#[derive(Debug)]
enum Command {
    Prompt {
        text: String,
        reply: oneshot::Sender<Result<TurnId, SessionError>>,
    },
    Cancel {
        reply: oneshot::Sender<Result<(), SessionError>>,
    },
    AnswerPermission {
        id: PermissionId,
        answer: PermissionAnswer,
        reply: oneshot::Sender<Result<(), SessionError>>,
    },
    SetConfigOption {
        id: String,
        value: ConfigValue,
        reply: oneshot::Sender<Result<Vec<ConfigOption>, SessionError>>,
    },
    LogIn {
        method_id: String,
        reply: oneshot::Sender<Result<(), SessionError>>,
    },
    Disconnect,
}

/// The handle of a running session. Dropping it disconnects.
#[derive(Debug)]
pub struct AgentSession {
    generation: Generation,
    commands: mpsc::UnboundedSender<Command>,
    driver: JoinHandle<CleanupReport>,
    redactor: Redactor,
}

/// The events of one session, in order; [`EventKind::Ended`](crate::EventKind::Ended) is last.
pub type SessionEvents = mpsc::UnboundedReceiver<SessionEvent>;

impl AgentSession {
    /// Starts the agent and its driver. Returns as soon as the process runs;
    /// [`EventKind::Ready`](crate::EventKind::Ready) follows once the
    /// agent's session exists (a cold `npx` start can take a minute, so there
    /// is no timeout). Must be called inside a tokio runtime.
    ///
    /// # Errors
    /// A [`SpawnError`] when the MCP specs break a rule or the program cannot start.
    pub fn spawn(
        config: SessionConfig,
        workspace: AgentWorkspace,
    ) -> Result<(Self, SessionEvents), SpawnError> {
        let boundary = tool_boundary(&config)?;
        check_capability(&config)?;
        let redactor = session_redactor(&config);
        let generation = config.generation;
        let (commands, command_receiver) = mpsc::unbounded_channel();
        let (event_sender, events) = mpsc::unbounded_channel();
        let driver = driver::start(
            config,
            workspace,
            boundary,
            redactor.clone(),
            command_receiver,
            event_sender,
        )?;
        Ok((
            Self {
                generation,
                commands,
                driver,
                redactor,
            },
            events,
        ))
    }

    /// The redactor the session masks its events and transcripts with, for
    /// anything else that shows what the session carries (the runtime's feed
    /// and session view), so every surface masks the same known secrets.
    #[must_use]
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The session's generation.
    #[must_use]
    pub fn generation(&self) -> Generation {
        self.generation
    }

    async fn ask<T>(
        &self,
        command: impl FnOnce(oneshot::Sender<Result<T, SessionError>>) -> Command,
    ) -> Result<T, SessionError> {
        let (reply, answer) = oneshot::channel();
        self.commands
            .send(command(reply))
            .map_err(|_| SessionError::Ended)?;
        answer.await.map_err(|_| SessionError::Ended)?
    }

    /// Sends the user's message, preceded by the workflow contract. Returns
    /// once the prompt is sent; the turn's events follow, ending with
    /// [`EventKind::TurnEnded`](crate::EventKind::TurnEnded).
    ///
    /// # Errors
    /// [`SessionError::NotReady`], [`SessionError::TurnInProgress`] or [`SessionError::Ended`].
    pub async fn prompt(&self, text: impl Into<String>) -> Result<TurnId, SessionError> {
        let text = text.into();
        self.ask(|reply| Command::Prompt { text, reply }).await
    }

    /// Cancels the running turn, if any: the agent is told, and pending
    /// permissions are answered `cancelled`. The turn ends as cancelled
    /// whatever the agent answers afterwards.
    ///
    /// # Errors
    /// [`SessionError::Ended`].
    pub async fn cancel(&self) -> Result<(), SessionError> {
        self.ask(|reply| Command::Cancel { reply }).await
    }

    /// Answers a pending permission with one of its advertised options, or cancels it.
    ///
    /// # Errors
    /// [`SessionError::StaleGeneration`], [`SessionError::UnknownPermission`],
    /// [`SessionError::UnadvertisedOption`] or [`SessionError::Ended`].
    pub async fn answer_permission(
        &self,
        id: PermissionId,
        answer: PermissionAnswer,
    ) -> Result<(), SessionError> {
        self.ask(|reply| Command::AnswerPermission { id, answer, reply })
            .await
    }

    /// Changes one of the agent's configuration options; returns the whole new list.
    ///
    /// # Errors
    /// [`SessionError::UnknownConfigOption`], [`SessionError::InvalidConfigValue`],
    /// [`SessionError::Agent`], [`SessionError::NotReady`] or [`SessionError::Ended`].
    pub async fn set_config_option(
        &self,
        id: impl Into<String>,
        value: ConfigValue,
    ) -> Result<Vec<ConfigOption>, SessionError> {
        let id = id.into();
        self.ask(|reply| Command::SetConfigOption { id, value, reply })
            .await
    }

    /// Asks the agent to carry out one of its own (`agent`-type) login
    /// methods after [`EventKind::LoginRequired`](crate::EventKind::LoginRequired),
    /// then creates the session.
    ///
    /// # Errors
    /// [`SessionError::NotAnAgentLogin`], [`SessionError::Agent`] or [`SessionError::Ended`].
    pub async fn log_in(&self, method_id: impl Into<String>) -> Result<(), SessionError> {
        let method_id = method_id.into();
        self.ask(|reply| Command::LogIn { method_id, reply }).await
    }

    /// Ends the session: closes the connection, stops the agent's process
    /// group and removes the workspace. Also returns the report when the
    /// session had already ended by itself.
    pub async fn disconnect(self) -> CleanupReport {
        let _ = self.commands.send(Command::Disconnect);
        self.driver
            .await
            .expect("the session driver does not panic")
    }
}

/// The permission boundary of the configured servers.
fn tool_boundary(config: &SessionConfig) -> Result<ToolBoundary, SpawnError> {
    let mut boundary = ToolBoundary::default();
    let mut names: Vec<&str> = Vec::new();
    let mut somite_seen = false;
    for spec in &config.mcp_servers {
        let invalid = |problem| SpawnError::InvalidMcpServer {
            name: spec.name.clone(),
            problem,
        };
        let plain = !spec.name.is_empty()
            && spec
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'));
        if !plain {
            return Err(invalid("a name is 1 or more of [A-Za-z0-9_-]"));
        }
        if names.contains(&spec.name.as_str()) {
            return Err(invalid("two MCP servers have this name"));
        }
        names.push(&spec.name);
        if !spec.command.is_absolute() {
            return Err(invalid("the command must be an absolute path"));
        }
        boundary = match spec.role {
            McpServerRole::Somite if somite_seen => {
                return Err(invalid("only one MCP server may be the Somite server"));
            }
            McpServerRole::Somite => {
                somite_seen = true;
                boundary.with_somite(spec.name.clone(), config.somite_tools.iter().cloned())?
            }
            McpServerRole::Pixi => boundary.with_pixi(spec.name.clone()),
            McpServerRole::Nextflow => boundary.with_nextflow(spec.name.clone()),
        };
    }
    Ok(boundary)
}

/// Checks that the capability travels only in the Somite server's
/// environment.
fn check_capability(config: &SessionConfig) -> Result<(), SpawnError> {
    let mut capabilities = Vec::new();
    for spec in &config.mcp_servers {
        for (name, value) in &spec.env {
            if name == MCP_CAPABILITY_VARIABLE {
                if spec.role != McpServerRole::Somite {
                    return Err(SpawnError::CapabilityOutsideSomiteServer {
                        server: spec.name.clone(),
                    });
                }
                capabilities.push(value.clone());
            }
        }
    }
    for capability in capabilities.iter().filter(|value| !value.is_empty()) {
        for spec in &config.mcp_servers {
            if spec
                .args
                .iter()
                .any(|arg| arg.contains(capability.as_str()))
            {
                return Err(SpawnError::CapabilityInArguments {
                    command: spec.name.clone(),
                });
            }
        }
        if config
            .command
            .args()
            .iter()
            .any(|arg| arg.contains(capability.as_str()))
        {
            return Err(SpawnError::CapabilityInArguments {
                command: config.command.program().display().to_string(),
            });
        }
    }
    Ok(())
}

/// The session's one redactor: it knows every value the session hands out
/// under a secret-shaped name — the MCP capability and other secrets in the
/// MCP servers' environments, and the credentials opted into the agent's.
fn session_redactor(config: &SessionConfig) -> Redactor {
    let mcp = config.mcp_servers.iter().flat_map(|spec| {
        spec.env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    });
    Redactor::with_known_secrets(
        mcp.chain(config.environment.iter())
            .filter(|(name, _)| is_secret_name(name))
            .map(|(_, value)| value.to_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::CREDENTIAL_NAMES_VARIABLE;
    use crate::launcher::PathSearch;
    use crate::secrets::{MIN_SECRET_FRAGMENT, REDACTED};

    #[test]
    fn the_session_redactor_knows_the_capability_and_the_opted_in_credentials() {
        let capability = "0f1e2d3c4b5a69788796a5b4c3d2e1f00123456789abcdeffedcba9876543210";
        let credential = "ExampleHubCredential0123456789";
        let environment = AgentEnvironment::from_runner_env([
            (CREDENTIAL_NAMES_VARIABLE, "HUB_TOKEN"),
            ("HUB_TOKEN", credential),
        ])
        .unwrap();
        let program = std::env::current_exe().unwrap();
        let command =
            LaunchCommand::custom(&[program.display().to_string()], &PathSearch::new("")).unwrap();
        let mut config = SessionConfig::new(Generation(1), command, environment);
        config.mcp_servers.push(McpServerSpec {
            role: McpServerRole::Somite,
            name: "somite".into(),
            command: program,
            args: Vec::new(),
            env: vec![(MCP_CAPABILITY_VARIABLE.to_owned(), capability.to_owned())],
        });
        let redactor = session_redactor(&config);
        let (head, tail) = capability.split_at(30);
        let middle = &capability[20..20 + MIN_SECRET_FRAGMENT];
        let shown = redactor.redact_text(&format!(
            "{} | {head} | {tail} | {middle} | {}",
            capability.to_uppercase(),
            credential.to_lowercase(),
        ));
        assert_eq!(shown, [REDACTED; 5].join(" | "));
    }
}
