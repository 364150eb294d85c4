//! Somite's ACP v1 client: the boundary between the web workspace and the
//! user's own agent.
//!
//! Somite bundles no model. The user picks one ACP agent — discovered on
//! `PATH` and in the ACP Registry ([`launcher`], [`registry`]), or given as a
//! custom argv — and Somite runs it in a disposable empty workspace
//! ([`workspace`]) with an allowlisted environment ([`env`](mod@env)), reads its
//! output through a bounded framer ([`framing`]), and drives one ACP session
//! ([`session`]): prompts carry the Somite workflow contract ([`contract`]),
//! updates become Somite's own [`events`], permission requests follow a pure
//! policy ([`permission`]) with an injectable [`clock`], and every finished
//! turn yields a redacted [`transcript`].
//!
//! The server's calls, in order:
//! 1. at start-up, [`AgentEnvironment::from_current_process`] (a credential
//!    opt-in error stops start-up);
//! 2. for the Agent panel, [`load_registry`] and [`discover_launchers`], or
//!    [`LaunchCommand::custom`];
//! 3. to connect, [`AgentWorkspace::create`], then [`AgentSession::spawn`]
//!    with the MCP server specs (their `--workspace-root` is
//!    [`AgentWorkspace::tools_root`]);
//! 4. [`AgentSession::prompt`], [`cancel`](AgentSession::cancel),
//!    [`answer_permission`](AgentSession::answer_permission),
//!    [`set_config_option`](AgentSession::set_config_option),
//!    [`log_in`](AgentSession::log_in), [`disconnect`](AgentSession::disconnect),
//!    while draining the [`SessionEvents`] into the activity feed and writing
//!    each [`EventKind::TurnEnded`] transcript as [`Transcript::file_name`].

pub mod clock;
pub mod contract;
pub mod env;
pub mod events;
pub mod framing;
pub mod launcher;
pub mod limits;
pub mod permission;
pub mod registry;
pub mod secrets;
pub mod session;
pub mod transcript;
pub mod workspace;

pub use clock::{Clock, ManualClock, SystemClock};
pub use env::{AgentEnvironment, CredentialOptInError};
pub use events::{
    CleanupReport, ConfigValue, EndReason, EventKind, Generation, PermissionId, SessionEvent,
    TurnId, TurnOutcome,
};
pub use launcher::{LaunchCommand, Launcher, PathSearch, discover_launchers};
pub use permission::{PermissionAnswer, ToolBoundary};
pub use registry::{LoadedRegistry, Registry, RegistrySource, load_registry};
pub use session::{
    AgentSession, McpServerRole, McpServerSpec, SessionConfig, SessionError, SessionEvents,
    SessionLimits, SpawnError,
};
pub use transcript::{Transcript, redact};
pub use workspace::AgentWorkspace;
