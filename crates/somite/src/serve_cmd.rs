//! `somite serve`: the web workspace and its loopback runtime. Its logs go
//! to stderr through [`crate::logging`].

use crate::failure::Failure;
use clap::Args;
use somite_project::lock::{self, Claim, LOCK_WAIT};
use somite_project::{Layout, Project, Seed};
use somite_server::config::{CliOverrides, ServerConfig};
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(Args)]
pub struct ServeArgs {
    /// The project folder (default: the current folder). A folder without a
    /// workflow starts from a small example.
    #[arg(long)]
    project: Option<PathBuf>,
    /// The TCP port (default 7310, or SOMITE_PORT).
    #[arg(long)]
    port: Option<u16>,
    /// The loopback address to bind (127.0.0.1 or ::1).
    #[arg(long)]
    host: Option<IpAddr>,
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    crate::logging::init();
    let started = Instant::now();
    let env = std::env::vars().collect();
    let config = match ServerConfig::from_sources(
        CliOverrides {
            project: args.project,
            port: args.port,
            host: args.host,
        },
        &env,
    ) {
        Ok(config) => config,
        Err(e) => return Err(Failure::usage(e.to_string()).into()),
    };
    let claimed =
        lock::claim(&Layout::new(&config.project), LOCK_WAIT).and_then(|claim| match claim {
            Claim::Acquired(lock) => Project::open_locked(lock, Seed::Example),
            Claim::HeldByServer(server) => Err(lock::in_use_by_server(
                &server,
                &format!(
                    "open {}/ (that server already serves this project), or stop it first",
                    server.url
                ),
            )),
        });
    let project = match claimed.and_then(|mut project| {
        project.persist_seed()?;
        Ok(project)
    }) {
        Ok(project) => project,
        Err(e) => return Err(Failure::envelope(&e).into()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let shutdown = shutdown_signal()?;
        let server = somite_server::start(&config, project).await?;
        // Other Somite processes find this server through the project.
        let instance = server.state.feed.epoch().to_string();
        server
            .state
            .project()
            .announce_server(&server.url(), &instance)?;
        let project = std::fs::canonicalize(&config.project).unwrap_or(config.project.clone());
        println!(
            "Somite is serving {}/ (project {}, ready in {} ms)",
            server.url(),
            project.display(),
            started.elapsed().as_millis()
        );
        tokio::spawn(fetch_missing_manuals());
        server.run_until(shutdown).await?;
        eprintln!("Somite stopped.");
        anyhow::Ok(ExitCode::SUCCESS)
    })
}

/// Fills the documentation cache from the manuals' upstream tags, once: a
/// cached manual is never fetched again, and offline this only logs why.
async fn fetch_missing_manuals() {
    let (Some(upstream), Ok(cache)) = (
        somite_mcp::docs::fetch::Upstream::from_env(),
        somite_mcp::docs::DocsCache::from_env(),
    ) else {
        return;
    };
    for (tool, outcome) in somite_mcp::docs::fetch::fetch_missing(&cache, &upstream).await {
        match outcome {
            Ok(pages) => {
                tracing::info!(
                    "fetched the {tool} manual ({pages} pages) into the documentation cache"
                )
            }
            Err(reason) => tracing::warn!(%reason, "the {tool} manual was not fetched"),
        }
    }
}

/// Installs the Ctrl-C and SIGTERM handlers and resolves when either
/// arrives. Installing happens here, before the caller announces readiness,
/// so a signal sent the moment the URL is printed stops the server cleanly
/// instead of killing it with the default disposition.
fn shutdown_signal() -> std::io::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    })
}
