//! The by-hand verbs: catalog search, graph show/apply, assess, rebind.
//!
//! Each opens the project, calls the same library function the runtime's
//! routes call, and renders the result for a person or, with `--json`, as the
//! exact wire shape. A rejected input is a [`Failure`] (code, message,
//! recovery; the envelope itself with `--json`) and exits 1; clap's usage
//! errors exit 2.
//!
//! Verbs that only look open a read-only view, which takes no lock and
//! writes nothing, so they are safe beside a running `somite serve`. Verbs
//! that write need the project's lock; while a server holds it, `graph apply`
//! and `project rebind` go through that server (so its canvas and activity
//! feed see them) and `graph import` is refused with `project_in_use`,
//! naming the server.

use crate::failure::Failure;
use clap::{Args, Subcommand};
use serde::Serialize;
use somite_project::lock::{self, Claim, LOCK_WAIT, ServerAnnouncement};
use somite_project::views::GraphView;
use somite_project::{Layout, Project, Seed, TransactionOutcome, compiled};
use somite_workflow::assessment::Assessment;
use somite_workflow::limits::MAX_DOCUMENT_BYTES;
use somite_workflow::search::SearchRequest;
use somite_workflow::transaction::GraphTransaction;
use somite_workflow::{ErrorCode, SomiteError};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct ProjectDir {
    /// The project folder (default: the current folder).
    #[arg(long, default_value = ".")]
    project: PathBuf,
}

#[derive(Args)]
pub struct Output {
    /// Print the machine-readable JSON result.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct CatalogArgs {
    #[command(subcommand)]
    action: CatalogAction,
}

#[derive(Subcommand)]
enum CatalogAction {
    /// Rank operators for a query (1–120 characters).
    Search {
        query: String,
        #[arg(long)]
        limit: Option<usize>,
        #[arg(long)]
        cursor: Option<String>,
        #[command(flatten)]
        dir: ProjectDir,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Args)]
pub struct GraphArgs {
    #[command(subcommand)]
    action: GraphAction,
}

#[derive(Subcommand)]
enum GraphAction {
    /// Print the current graph with its state and graph revisions.
    Show {
        #[command(flatten)]
        dir: ProjectDir,
        #[command(flatten)]
        output: Output,
    },
    /// Replace the graph with a portable `.somite.json` document.
    Import {
        document: PathBuf,
        #[command(flatten)]
        dir: ProjectDir,
        #[command(flatten)]
        output: Output,
    },
    /// Save the graph as a portable `.somite.json` document.
    Save {
        document: PathBuf,
        #[command(flatten)]
        dir: ProjectDir,
        #[command(flatten)]
        output: Output,
    },
    /// Apply a GraphTransaction JSON file (`-` reads standard input).
    Apply {
        transaction: PathBuf,
        #[command(flatten)]
        dir: ProjectDir,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Args)]
pub struct AssessArgs {
    #[command(flatten)]
    dir: ProjectDir,
    #[command(flatten)]
    output: Output,
}

#[derive(Args)]
pub struct ProjectArgs {
    #[command(subcommand)]
    action: ProjectAction,
}

#[derive(Subcommand)]
enum ProjectAction {
    /// Bind the recovered graph to its location again after an interrupted
    /// save, so edits, compile, run, validate and export work again.
    Rebind {
        #[command(flatten)]
        dir: ProjectDir,
        #[command(flatten)]
        output: Output,
    },
}

/// The project for a verb that changes it.
fn open(dir: &ProjectDir) -> Result<Project, SomiteError> {
    Project::open(&dir.project, Seed::Empty).map(with_resources)
}

/// The project for a verb that only looks.
fn read(dir: &ProjectDir) -> Result<Project, SomiteError> {
    Project::read(&dir.project, Seed::Empty).map(with_resources)
}

/// `project`, resolving `somite-resource:` references in the user's
/// resource store (as `somite serve` does).
pub(crate) fn with_resources(mut project: Project) -> Project {
    if let Some(store) = somite_resource::store::Store::from_env(|name| std::env::var(name).ok()) {
        project.set_resources(std::sync::Arc::new(store));
    }
    project
}

/// Applies `txn` through the project's one writer: this process when it can
/// take the project, else the server that holds it.
fn apply(dir: &ProjectDir, txn: &GraphTransaction) -> Result<TransactionOutcome, SomiteError> {
    match writer(dir)? {
        Writer::Here(lock) => Project::open_locked(lock, Seed::Empty)?.apply_transaction(txn),
        Writer::Server(server) => {
            let outcome = through_server(&server, "/api/transactions", txn)?;
            eprintln!("(applied through the Somite server at {})", server.url);
            Ok(outcome)
        }
    }
}

/// Who writes the project: this process, or the server that holds it.
enum Writer {
    Here(lock::ProjectLock),
    Server(ServerAnnouncement),
}

/// The project's one writer, the announced server only once it proved to be
/// the one that announced itself (its `/api/health` names the announced
/// instance): after a `kill -9` the announcement stays, and the next server
/// on the same port — another project's — must never receive our edits.
fn writer(dir: &ProjectDir) -> Result<Writer, SomiteError> {
    let layout = Layout::new(&dir.project);
    match lock::claim(&layout, LOCK_WAIT)? {
        Claim::Acquired(lock) => Ok(Writer::Here(lock)),
        Claim::HeldByServer(server) if serves_this_project(&server) => Ok(Writer::Server(server)),
        Claim::HeldByServer(_) => lock::claim_past_stale(&layout, LOCK_WAIT).map(Writer::Here),
    }
}

/// How long the announced server may take to say who it is.
const CONFIRM_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

fn serves_this_project(server: &ServerAnnouncement) -> bool {
    let confirm = async {
        let client = reqwest::Client::builder()
            .timeout(CONFIRM_TIMEOUT)
            .build()
            .ok()?;
        let health: serde_json::Value = client
            .get(format!("{}/api/health", server.url))
            .send()
            .await
            .ok()?
            .json()
            .await
            .ok()?;
        Some(health["instance"].as_str() == Some(server.instance.as_str()))
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .ok()
        .and_then(|runtime| runtime.block_on(confirm))
        .unwrap_or(false)
}

/// What `somite project rebind` reports.
#[derive(Serialize, serde::Deserialize)]
struct Rebound {
    state_revision: String,
}

/// Rebinds through the project's one writer, like [`apply`].
fn rebind(dir: &ProjectDir) -> Result<Rebound, SomiteError> {
    match writer(dir)? {
        Writer::Here(lock) => {
            let state_revision = Project::open_locked(lock, Seed::Empty)?.rebind()?;
            Ok(Rebound { state_revision })
        }
        Writer::Server(server) => {
            let rebound = through_server(&server, "/api/project/rebind", &serde_json::json!({}))?;
            eprintln!("(rebound through the Somite server at {})", server.url);
            Ok(rebound)
        }
    }
}

/// How long a forwarded write may take: the server publishes it durably,
/// which is milliseconds unless the disk is in trouble.
const SERVER_WRITE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);

/// Posts `body` to a human route of the server holding the project; its
/// answer (the result, or the structured error) is ours.
fn through_server<T: serde::de::DeserializeOwned>(
    server: &ServerAnnouncement,
    route: &str,
    body: &impl Serialize,
) -> Result<T, SomiteError> {
    let unreachable = |e: &dyn std::fmt::Display| {
        lock::in_use_by_server(
            server,
            "the server holding the project did not answer; check that it is running (or stop it), then retry",
        )
        .with_detail("reason", e.to_string())
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| unreachable(&e))?;
    let (status, body) = runtime
        .block_on(async {
            let client = reqwest::Client::builder()
                .timeout(SERVER_WRITE_TIMEOUT)
                .build()?;
            let response = client
                .post(format!("{}{route}", server.url))
                .json(body)
                .send()
                .await?;
            let status = response.status();
            Ok::<_, reqwest::Error>((status, response.bytes().await?))
        })
        .map_err(|e| unreachable(&e))?;
    if status.is_success() {
        serde_json::from_slice(&body).map_err(|e| unreachable(&e))
    } else {
        Err(serde_json::from_slice(&body).unwrap_or_else(|_| {
            SomiteError::new(
                ErrorCode::Io,
                format!("the server answered {status} without an error envelope"),
                "retry; if it persists, check the server's log",
            )
        }))
    }
}

/// Renders a result: JSON when asked, else the human text.
fn finish<T: Serialize>(
    output: &Output,
    result: Result<T, SomiteError>,
    human: impl FnOnce(&T) -> String,
) -> anyhow::Result<ExitCode> {
    let value = result.map_err(|error| Failure::envelope(&error).json(output.json))?;
    if output.json {
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print!("{}", human(&value));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn catalog(args: CatalogArgs) -> anyhow::Result<ExitCode> {
    let CatalogAction::Search {
        query,
        limit,
        cursor,
        dir,
        output,
    } = args.action;
    let result = read(&dir).and_then(|project| {
        project.catalog().search(&SearchRequest {
            query,
            limit,
            cursor,
        })
    });
    finish(&output, result, |page| {
        let mut text = format!(
            "{} match(es) in catalog {}\n",
            page.total_matches, page.catalog_revision
        );
        for m in &page.matches {
            text += &format!(
                "{:>4}  {:<32} {}  [{}]\n",
                m.score,
                m.id,
                m.title,
                m.matched_terms.join(", ")
            );
        }
        if let Some(cursor) = &page.next_cursor {
            text += &format!("more: --cursor {cursor}\n");
        }
        text
    })
}

pub fn graph(args: GraphArgs) -> anyhow::Result<ExitCode> {
    match args.action {
        GraphAction::Show { dir, output } => {
            let project = read(&dir);
            let result = project.as_ref().map_err(Clone::clone).map(GraphView::of);
            finish(&output, result, |view| {
                let doc = &view.document;
                let mut text = format!(
                    "{}\nstate revision: {}\ngraph revision: {}\n",
                    doc.title, view.head.state_revision, view.head.graph_revision
                );
                for n in &doc.nodes {
                    text += &format!("  node {:<20} {}\n", n.id, n.operator_id);
                }
                for e in &doc.edges {
                    text += &format!(
                        "  edge {:<20} {}.{} -> {}.{}\n",
                        e.id, e.from_node, e.from_port, e.to_node, e.to_port
                    );
                }
                text
            })
        }
        GraphAction::Import {
            document,
            dir,
            output,
        } => {
            let result = somite_project::durable::read_capped(&document, MAX_DOCUMENT_BYTES)
                .map_err(|e| SomiteError {
                    // The code is the library's; the recovery is this command's.
                    recovery: "pass a readable .somite.json file of at most 64 MiB".into(),
                    ..SomiteError::from(e)
                })
                .and_then(|bytes| {
                    let mut project = open(&dir)?;
                    let base = project.state_revision().clone();
                    project.import_document(&bytes, &base)
                });
            finish(&output, result, |outcome| {
                format!("imported; state revision {}\n", outcome.state_revision)
            })
        }
        GraphAction::Save {
            document,
            dir,
            output,
        } => {
            #[derive(Serialize)]
            struct Saved {
                path: PathBuf,
                graph_revision: String,
            }
            let result = read(&dir).and_then(|project| {
                project.save_document(&document)?;
                Ok(Saved {
                    path: document.clone(),
                    graph_revision: project.graph_revision(),
                })
            });
            finish(&output, result, |saved| {
                format!(
                    "saved {} (graph {})\n",
                    saved.path.display(),
                    saved.graph_revision
                )
            })
        }
        GraphAction::Apply {
            transaction,
            dir,
            output,
        } => {
            let result = read_transaction(&transaction).and_then(|txn| apply(&dir, &txn));
            finish(&output, result, |outcome| {
                format!(
                    "{} ({} operation(s)){}\nstate revision: {}\ngraph revision: {}\n",
                    outcome.summary,
                    outcome.operations,
                    if outcome.replayed { ", replayed" } else { "" },
                    outcome.state_revision,
                    outcome.graph_revision
                )
            })
        }
    }
}

fn read_transaction(path: &std::path::Path) -> Result<GraphTransaction, SomiteError> {
    use somite_workflow::ErrorCode;
    let bytes = if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::io::stdin(), MAX_DOCUMENT_BYTES + 1),
            &mut buf,
        )
        .map(|_| buf)
        .map_err(|e| {
            SomiteError::new(
                ErrorCode::Io,
                format!("cannot read standard input: {e}"),
                "pipe a transaction JSON document",
            )
        })?
    } else {
        somite_project::durable::read_capped(path, MAX_DOCUMENT_BYTES).map_err(|e| {
            SomiteError::new(
                ErrorCode::InvalidTransaction,
                e.to_string(),
                "pass a readable transaction JSON file",
            )
        })?
    };
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        return Err(SomiteError::new(
            ErrorCode::PayloadTooLarge,
            format!("the transaction exceeds {MAX_DOCUMENT_BYTES} bytes"),
            "split the edit into several transactions",
        ));
    }
    GraphTransaction::from_json(&bytes)
}

pub fn assess(args: AssessArgs) -> anyhow::Result<ExitCode> {
    let result =
        read(&args.dir).and_then(|project| Ok(project.assess(&compiled::Toolchain::from_env()?)));
    finish(&args.output, result, render_assessment)
}

fn render_assessment(a: &Assessment) -> String {
    let mut text = format!(
        "{:?}: {} required item(s) for graph {}\n",
        a.state, a.required_count, a.graph_revision
    );
    for item in &a.items {
        text += &format!(
            "  {} [{:?}] {}\n      {}\n",
            if item.required { "✗" } else { "·" },
            item.kind,
            item.title,
            item.detail
        );
        for r in &item.resolutions {
            text += &format!(
                "      {} {:?}: {}\n",
                if r.recommended { "→" } else { " " },
                r.kind,
                r.label
            );
        }
        for line in item.evidence.lines() {
            text += &format!("      why: {line}\n");
        }
    }
    text
}

pub fn project(args: ProjectArgs) -> anyhow::Result<ExitCode> {
    let ProjectAction::Rebind { dir, output } = args.action;
    let result = rebind(&dir);
    finish(&output, result, |r| {
        format!("rebound; state revision {}\n", r.state_revision)
    })
}
