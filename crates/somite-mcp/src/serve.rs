//! Serving an MCP server over stdio.
//!
//! stdout carries only newline-delimited JSON-RPC; logs go to stderr. The
//! servers speak MCP 2025-11-25 (with `initialize`) and 2026-07-28
//! (stateless, `server/discover`), which rmcp 3.11 negotiates per request.
//! [`serve_stdio`] is the async entry point; [`block_on_stdio`] builds a
//! Tokio runtime for a command-line caller.

use rmcp::model::ProtocolVersion;
use rmcp::{ServerHandler, ServiceExt};

/// The protocol versions the servers implement.
pub const SUPPORTED_PROTOCOL_VERSIONS: &[ProtocolVersion] =
    &[ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28];

/// The server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("MCP session could not start: {0}")]
    Start(Box<rmcp::service::ServerInitializeError>),
    #[error("MCP session ended abnormally: {0}")]
    Session(#[from] tokio::task::JoinError),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

impl From<rmcp::service::ServerInitializeError> for ServeError {
    fn from(error: rmcp::service::ServerInitializeError) -> Self {
        Self::Start(Box::new(error))
    }
}

/// Serves `server` on this process's stdin/stdout until the client leaves.
pub async fn serve_stdio<S: ServerHandler>(server: S) -> Result<(), ServeError> {
    let running = server.serve(rmcp::transport::stdio()).await?;
    let reason = running.waiting().await?;
    tracing::info!(?reason, "MCP session ended");
    Ok(())
}

/// [`serve_stdio`] on a new multi-threaded runtime, for a blocking caller.
pub fn block_on_stdio<S: ServerHandler>(server: S) -> Result<(), ServeError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(serve_stdio(server))
}

/// Sends `tracing` output to stderr (level from `SOMITE_LOG`, default
/// `info`), keeping stdout for the protocol. Safe to call more than once.
pub fn init_stderr_logging() {
    let level = std::env::var(somite_api::EnvVars::SOMITE_LOG)
        .ok()
        .and_then(|level| level.parse::<tracing::level_filters::LevelFilter>().ok())
        .unwrap_or(tracing::level_filters::LevelFilter::INFO);
    // Err means a subscriber is already installed, which is what we want.
    let _already_installed = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(level)
        .try_init();
}
