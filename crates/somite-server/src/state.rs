//! Shared runtime state: the open project, the feed, the capabilities.
//!
//! The project sits behind one mutex: a transaction's compare-and-swap,
//! durable publication and feed announcement happen under it, so the feed's
//! order is the order in which edits were committed and concurrent writers
//! on one base revision produce exactly one winner. The result graph of each
//! transaction goes into [`RecentDocuments`] under the same lock, before the
//! feed announces it, so a reader that fetches it on the announcement finds it.

use crate::agent::{AgentHost, AgentSetup};
use crate::api_error::ApiError;
use crate::capability::Capabilities;
use crate::feed::Feed;
use crate::revisions::{PublishedDocument, RecentDocuments};
use serde::Serialize;
use serde_json::json;
use somite_api::FeedKind;
use somite_project::Project;
use somite_project::compiled::Toolchain;
use somite_project::views::{AppliedTransaction, TransactionReply};
use somite_runner::Supervisor;
use somite_runner::workshop::Workshop;
use somite_workflow::transaction::GraphTransaction;
use somite_workflow::{ErrorCode, SomiteError};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

pub struct AppState {
    project: Mutex<Project>,
    pub feed: Feed,
    /// The result graphs of recent transactions, by state revision.
    pub documents: RecentDocuments,
    /// Slots for pipeline resolves running at once (see
    /// [`crate::source_routes::MAX_RESOLVES`]).
    pub resolves: Arc<tokio::sync::Semaphore>,
    pub capabilities: Arc<Capabilities>,
    pub agents: AgentHost,
    pub runner: Supervisor,
    /// Operator candidates' proofs, with the runner's toolchain.
    pub workshop: Workshop,
    /// The Pixi compiles lock packages with (none: packages have no lock).
    pub compile_toolchain: Toolchain,
    pub sse_keepalive: Duration,
    /// The public-data search, built on first use (tests set their own).
    pub data: std::sync::OnceLock<Arc<somite_data::DataSearch>>,
    /// Managed resources, or why the store is unavailable.
    pub resources: Result<somite_resource::ResourceManager, somite_api::Error>,
    /// The pinned-source store and its providers (none when no user cache
    /// folder can be named).
    pub sources: Option<somite_source::SourceStore>,
}

/// Who made an edit, for the feed.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EditSource {
    Human,
    /// Through the MCP adapter; `activity` correlates it with the agent's
    /// tool call when the adapter sent one.
    Agent {
        activity: Option<String>,
    },
}

impl AppState {
    /// The state of a runtime serving `project` at `base_url`.
    pub fn new(
        project: Project,
        sse_keepalive: Duration,
        agents: AgentSetup,
        runner: Supervisor,
        compile_toolchain: Toolchain,
        base_url: String,
        resources: Result<somite_resource::ResourceManager, somite_api::Error>,
    ) -> AppState {
        let feed = Feed::default();
        let capabilities = Arc::new(Capabilities::default());
        let agents = AgentHost::new(
            agents,
            base_url,
            project.layout().clone(),
            feed.clone(),
            capabilities.clone(),
        );
        let workshop = Workshop::new(project.layout().clone(), runner.toolchain().clone());
        // The state the runtime opens on is one a reader may have seen (and
        // ask what changed since).
        let documents = RecentDocuments::default();
        documents.insert(PublishedDocument {
            state_revision: project.state_revision().to_string(),
            graph_revision: project.graph_revision().to_string(),
            json: project.snapshot().json().clone(),
        });
        AppState {
            workshop,
            project: Mutex::new(project),
            feed,
            documents,
            resolves: Arc::new(tokio::sync::Semaphore::new(
                crate::source_routes::MAX_RESOLVES,
            )),
            capabilities,
            agents,
            runner,
            compile_toolchain,
            sse_keepalive,
            data: std::sync::OnceLock::new(),
            resources,
            sources: somite_source::SourceStore::from_env().ok(),
        }
    }

    /// Serves pinned sources from `store` (tests point it at a stand-in).
    #[must_use]
    pub fn with_sources(mut self, store: somite_source::SourceStore) -> AppState {
        self.sources = Some(store);
        self
    }

    pub fn project(&self) -> MutexGuard<'_, Project> {
        self.project.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Applies a transaction and announces it; blocking (durable I/O).
    ///
    /// The feed event carries the source, the outcome and the operations;
    /// the result graph is kept once in [`AppState::documents`]. The reply
    /// carries the result graph and the feed's epoch only to the browser
    /// that made the edit; an agent gets what changed (see
    /// [`TransactionReply`]).
    pub fn apply(
        &self,
        txn: &GraphTransaction,
        source: EditSource,
    ) -> Result<TransactionReply, SomiteError> {
        let mut project = self.project();
        let outcome = project.apply_transaction(txn)?;
        if outcome.replayed {
            return Ok(TransactionReply {
                applied: AppliedTransaction {
                    outcome,
                    cursor: None,
                },
                document: None,
                epoch: None,
            });
        }
        let snapshot = project.snapshot();
        let browser = matches!(source, EditSource::Human);
        self.documents.insert(PublishedDocument {
            state_revision: outcome.state_revision.clone(),
            graph_revision: outcome.graph_revision.clone(),
            json: snapshot.json().clone(),
        });
        let cursor = self.feed.publish(
            FeedKind::Transaction,
            json!({"source": source, "outcome": outcome, "operations": txn.operations}),
        );
        Ok(TransactionReply {
            applied: AppliedTransaction {
                outcome,
                cursor: Some(cursor),
            },
            document: browser.then(|| snapshot.document().clone()),
            epoch: browser.then(|| self.feed.epoch().clone()),
        })
    }
}

/// Runs blocking project work off the async executor.
pub async fn blocking<T: Send + 'static>(
    state: &Arc<AppState>,
    work: impl FnOnce(&AppState) -> Result<T, SomiteError> + Send + 'static,
) -> Result<T, ApiError> {
    let state = state.clone();
    tokio::task::spawn_blocking(move || work(&state))
        .await
        .map_err(|e| {
            ApiError::new(
                ErrorCode::Io,
                format!("the request's worker failed: {e}"),
                "retry; if it persists, restart Somite and report the log",
            )
        })?
        .map_err(ApiError::from)
}
