//! `somite mcp ...`: Somite's stdio MCP servers.
//!
//! Each subcommand builds one server from `somite-mcp` and serves it on
//! stdin/stdout until the client disconnects. stdout carries only MCP
//! JSON-RPC; everything else (logs, warnings) goes to stderr, through
//! [`crate::logging`].

use crate::failure::Failure;
use anyhow::Context;
use clap::{Args, Subcommand};
use somite_mcp::nextflow::NextflowServer;
use somite_mcp::pixi::PixiServer;
use somite_mcp::toolserver::ServerOptions;
use somite_mcp::{serve, somite_proxy};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct McpArgs {
    #[command(subcommand)]
    server: McpServer,
}

#[derive(Subcommand)]
enum McpServer {
    /// The canvas and its evidence as typed tools, proxied to a loopback
    /// Somite runtime. The capability comes only from SOMITE_MCP_CAPABILITY.
    Somite {
        /// The runtime, e.g. http://127.0.0.1:7310 (loopback only).
        #[arg(long, value_name = "URL")]
        server_url: String,
    },
    /// Pixi 0.77 tools and manual, confined to one workspace root.
    Pixi(ToolServerArgs),
    /// Nextflow 26.04 tools and manual, confined to one workspace root.
    Nextflow(ToolServerArgs),
}

/// Options shared by the toolchain servers.
#[derive(Args)]
struct ToolServerArgs {
    /// The directory every tool path is confined to.
    #[arg(long, value_name = "DIR")]
    workspace_root: PathBuf,
    /// A local checkout of the manual at its tag, imported into the
    /// documentation cache when the cache does not hold it yet (default:
    /// `SOMITE_MCP_DOCS_SOURCE_PIXI` / `SOMITE_MCP_DOCS_SOURCE_NEXTFLOW`).
    #[arg(long, value_name = "DIR")]
    docs_source: Option<PathBuf>,
}

impl ToolServerArgs {
    fn options(self) -> ServerOptions {
        ServerOptions {
            workspace_root: self.workspace_root,
            docs_source: self.docs_source,
        }
    }
}

pub fn run(args: McpArgs) -> anyhow::Result<ExitCode> {
    crate::logging::init();
    match args.server {
        McpServer::Somite { server_url } => {
            let capability = std::env::var(somite_api::EnvVars::SOMITE_MCP_CAPABILITY).ok();
            if capability.is_none() {
                tracing::warn!(
                    "{} is not set: the runtime will refuse every call",
                    somite_api::EnvVars::SOMITE_MCP_CAPABILITY
                );
            }
            let server = somite_proxy::SomiteServer::new(&server_url, capability)
                .map_err(|e| Failure::usage(e.to_string()))?;
            serve::block_on_stdio(server)?;
        }
        McpServer::Pixi(args) => {
            let server =
                PixiServer::start(&args.options()).context("cannot start the Pixi MCP server")?;
            serve::block_on_stdio(server)?;
        }
        McpServer::Nextflow(args) => {
            let server = NextflowServer::start(&args.options())
                .context("cannot start the Nextflow MCP server")?;
            serve::block_on_stdio(server)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
