//! Somite's loopback HTTP runtime.
//!
//! `somite serve` runs this: the JSON routes the web workspace and the MCP
//! adapter call, the activity feed, and the built web bundle. It binds
//! loopback only, bounds its connections and every request head ([`serve`]),
//! checks Host and Origin on every request, bounds every body, and guards the
//! MCP-only routes with per-child capabilities.

pub mod agent;
pub mod agent_routes;
pub mod api_error;
pub mod body;
pub mod capability;
pub mod config;
pub mod data_routes;
pub mod feed;
pub mod guard;
pub mod package_routes;
pub mod registry_fetch;
pub mod resource_routes;
pub mod revisions;
pub mod routes;
pub mod run_routes;
pub mod serve;
pub mod source_routes;
pub mod sse;
pub mod state;
pub mod web;
#[cfg(test)]
mod wire_schemas;
pub mod workshop_routes;

use axum::Router;
use axum::middleware;
use axum::routing::{get, post};
use config::ServerConfig;
use somite_api::FeedKind;
use somite_project::Project;
use state::AppState;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// The full router: human routes, MCP routes behind the capability, and the
/// web workspace (from `web_bundle` when given, else the embedded one).
pub fn router(state: Arc<AppState>, web_bundle: Option<&std::path::Path>) -> Router {
    let shared = Router::new()
        .route("/runs/{id}", get(run_routes::status))
        .route("/runs/{id}/cancel", post(run_routes::cancel))
        .route("/evidence", get(run_routes::evidence))
        .route("/workflow", get(routes::workflow))
        .route("/workflow/read", get(routes::workflow_read))
        .route("/readiness", get(routes::readiness))
        .route("/readiness/read", get(routes::readiness_read))
        .route("/catalog/search", get(routes::catalog_search))
        .route("/catalog/operators/{id}", get(routes::catalog_operator))
        .route("/operator-candidates", post(workshop_routes::draft))
        .route(
            "/operator-candidates/{digest}/proofs",
            post(workshop_routes::prove),
        )
        .route("/operator-proofs/{id}", get(workshop_routes::proof_status))
        .route("/data/search", get(data_routes::search))
        .route("/resources", get(resource_routes::overview))
        .route("/resources/resolutions", get(resource_routes::resolutions))
        .route(
            "/resources/check-directory",
            post(resource_routes::check_directory),
        )
        .route("/resources/{id}", get(resource_routes::inspect))
        .route("/source/nfcore/search", get(source_routes::search))
        .route(
            "/source/nfcore/resolve",
            post(source_routes::resolve_nfcore),
        )
        .route(
            "/source/github/resolve",
            post(source_routes::resolve_github),
        )
        .route("/source/nodes/{id}/outline", get(source_routes::outline))
        .route("/source/nodes/{id}/edit", post(source_routes::edit))
        .route("/source/nodes/{id}/promote", post(source_routes::promote));
    let human = shared
        .clone()
        .route("/health", get(routes::health))
        .route("/transactions", post(routes::human_transaction))
        .route("/project/rebind", post(routes::rebind))
        .route("/activity", get(routes::activity))
        .route("/activity/stream", get(sse::stream))
        .route("/compile", post(package_routes::compile))
        // Downloads what a pipeline names: a person's act, not the agent's.
        .route("/source/nodes/{id}/pin", post(source_routes::pin))
        .route("/export", post(package_routes::export))
        .route("/runs", post(run_routes::start_run))
        .route("/validations", post(run_routes::start_validation))
        .route("/resources/{id}/install", post(resource_routes::install))
        .route("/resources/{id}/cancel", post(resource_routes::cancel))
        .route("/agent/launchers", get(agent_routes::launchers))
        .route("/agent/session", get(agent_routes::session))
        .route("/agent/connect", post(agent_routes::connect))
        .route("/agent/prompt", post(agent_routes::prompt))
        .route("/agent/cancel", post(agent_routes::cancel))
        .route(
            "/agent/permissions/{id}",
            post(agent_routes::answer_permission),
        )
        .route("/agent/config", post(agent_routes::set_config))
        .route("/agent/disconnect", post(agent_routes::disconnect))
        // The Project tools panel: listing, and the decisions only a
        // person makes (never mounted under /mcp).
        .route("/operator-candidates", get(workshop_routes::list))
        .route(
            "/operator-candidates/{digest}/accept",
            post(workshop_routes::accept),
        )
        .route(
            "/operator-candidates/{digest}/reject",
            post(workshop_routes::reject),
        );
    let mcp = shared
        .route("/transactions", post(routes::agent_transaction))
        .route("/compile", post(package_routes::agent_compile))
        .route("/runs", post(run_routes::start_run))
        .route("/validations", post(run_routes::start_validation))
        .route(
            "/resources/{id}/install",
            post(resource_routes::agent_install),
        )
        .route(
            "/resources/{id}/cancel",
            post(resource_routes::agent_cancel),
        )
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            guard::capability_required,
        ));
    let api = human
        .nest("/mcp", mcp)
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed);
    Router::new()
        .nest("/api", api)
        .merge(web::routes(web_bundle))
        .layer(middleware::from_fn(guard::loopback_only))
        .layer(middleware::from_fn(guard::log_request))
        .with_state(state)
}

/// A running server.
pub struct RunningServer {
    pub address: SocketAddr,
    pub state: Arc<AppState>,
    shutdown: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl RunningServer {
    /// The base URL, e.g. `http://127.0.0.1:7310`.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// Stops accepting connections and waits for in-flight requests.
    /// Disconnects the agent (stopping its process group and removing its
    /// workspace), then stops accepting connections and waits for in-flight
    /// requests.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        self.state.agents.shut_down().await;
        // Installs stop with their partial downloads and consents kept: the
        // next runtime resumes them.
        if let Ok(resources) = &self.state.resources {
            resources.shutdown().await;
        }
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.task.await.unwrap_or(Ok(()))
    }

    /// Waits until the server stops by itself (it does not, unless it fails).
    pub async fn wait(self) -> std::io::Result<()> {
        self.task.await.unwrap_or(Ok(()))
    }

    /// A future resolving when shutdown is requested through `signal`.
    pub async fn run_until(self, signal: impl Future<Output = ()>) -> std::io::Result<()> {
        signal.await;
        self.shutdown().await
    }
}

/// Binds the configured loopback address and starts serving `project`.
pub async fn start(config: &ServerConfig, project: Project) -> std::io::Result<RunningServer> {
    if !config.address.ip().is_loopback() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            config::ConfigError::NotLoopback(config.address.ip()).to_string(),
        ));
    }
    let listener = TcpListener::bind(config.address).await?;
    let address = listener.local_addr()?;
    let mut runner_toolchain = match &config.pixi {
        Some(pixi) => somite_runner::RunnerToolchain::with_pixi(pixi),
        None => somite_runner::RunnerToolchain::without_pixi(),
    };
    let mut compile_toolchain = match &config.pixi {
        Some(pixi) => somite_project::compiled::Toolchain::with_pixi(pixi),
        None => somite_project::compiled::Toolchain::without_pixi(),
    };
    // Compile, Run and Validate read pinned trees from the store the source
    // routes resolve into (the environment's user cache unless configured).
    if let Some(sources) = &config.sources {
        runner_toolchain = runner_toolchain.with_source_cache(&sources.cache_dir);
        compile_toolchain = compile_toolchain.with_source_cache(&sources.cache_dir);
    }
    let runner = somite_runner::Supervisor::open(project.layout().root(), runner_toolchain)
        .map_err(|e| std::io::Error::other(somite_workflow::SomiteError::from(e).to_string()))?;
    // The resource store comes from the environment (SOMITE_RESOURCE_DIR,
    // the platform data folder); without one, the resource routes say why.
    let resources = somite_resource::ResourceConfig::from_env(|name| std::env::var(name).ok())
        .and_then(somite_resource::ResourceManager::open)
        .map_err(somite_api::Error::from);
    // References to installed resources resolve in the same store.
    let mut project = project;
    if let Ok(manager) = &resources {
        project.set_resources(Arc::new(manager.store().clone()));
    }
    let mut state = AppState::new(
        project,
        config.sse_keepalive,
        config.agents.clone(),
        runner,
        compile_toolchain,
        format!("http://{address}"),
        resources,
    );
    if let Some(sources) = &config.sources {
        let store = somite_source::SourceStore::new(sources.clone())
            .map_err(|e| std::io::Error::other(somite_api::Error::from(e).message))?;
        state = state.with_sources(store);
    }
    let state = Arc::new(state);
    // Runs a previous runtime left unfinished are announced as what they
    // are now: failed, lost with the restart.
    for status in state.runner.recovered_runs() {
        state.feed.publish(
            FeedKind::Run,
            serde_json::to_value(status).unwrap_or_default(),
        );
    }
    run_routes::announce_runs(&state);
    resource_routes::announce_resources(&state);
    let app = router(state.clone(), config.web_bundle.as_deref()).layer(axum::Extension(
        body::BodyReadTimeout(config.connections.body_read_timeout),
    ));
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(serve::serve(listener, app, config.connections, rx));
    Ok(RunningServer {
        address,
        state,
        shutdown: Some(tx),
        task,
    })
}
