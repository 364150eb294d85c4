//! `somite source`: start from a real pipeline by hand.
//!
//! `search nf-core QUERY` ranks the nf-core catalog (cached an hour; the
//! last good copy serves offline, and the output says how old it is).
//! `resolve nf-core/NAME@RELEASE` and `resolve github OWNER/REPO@REF` pin the
//! pipeline to a commit, verify and outline its tree, and place it on the
//! project's empty canvas through the same transaction the web workspace and
//! the agent use (so a non-empty canvas is `canvas_not_empty`, and a running
//! server holding the project is `project_in_use`). `edit --node ID FILE`
//! applies typed edits of the source node (parameters, replacing one
//! invocation with a catalog operator) and `promote --node ID --invocation
//! NAME…` turns replacements into a native variant, both as one transaction.

use crate::failure::Failure;
use clap::{Args, Subcommand};
use somite_project::source::{
    DEFAULT_POSITION, PINNED_INPUTS_DIR, SourceEditRequest, SourcePinRequest, SourcePromoteRequest,
    outline_pinned, pinnable_url, place_transaction,
};
use somite_project::{Project, Seed};
use somite_source::SourceStore;
use somite_workflow::source::DEFAULT_SOURCE_NODE_ID;
use somite_workflow::transaction::GraphTransaction;
use somite_workflow::{ErrorCode, SomiteError};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct SourceArgs {
    #[command(subcommand)]
    command: SourceCommand,
}

#[derive(Subcommand)]
enum SourceCommand {
    /// Search a provider's catalog: `somite source search nf-core rna seq`.
    Search {
        /// The catalog: `nf-core`.
        provider: String,
        /// Words to rank pipelines by (name, description, topics).
        query: Vec<String>,
        #[arg(long)]
        limit: Option<usize>,
        /// The `next_cursor` of a previous page.
        #[arg(long)]
        cursor: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Place a pinned pipeline on the empty canvas:
    /// `nf-core/NAME@RELEASE` or `github OWNER/REPO@REF`.
    Resolve {
        /// `nf-core/NAME@RELEASE`, or `github`.
        target: String,
        /// `OWNER/REPO@REF` after `github`.
        spec: Option<String>,
        /// The project folder (default: the current folder).
        #[arg(long, default_value = ".")]
        project: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Edit a source node in one transaction: FILE (or `-` for stdin) holds
    /// `{base_state_revision, idempotency_key, summary?, edits: [...]}` with
    /// set_param, unset_param, replace_invocation and restore_invocation.
    Edit {
        /// The source node's id.
        #[arg(long)]
        node: String,
        /// The edit body, or `-` for standard input.
        file: PathBuf,
        #[arg(long, default_value = ".")]
        project: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Promote replaced invocations of a source node into a native variant.
    Promote {
        /// The source node's id.
        #[arg(long)]
        node: String,
        /// A fully-qualified invocation with a replacement; repeat for more.
        #[arg(long = "invocation", required = true)]
        invocations: Vec<String>,
        /// Compare-and-swap against this state revision (default: the
        /// project's current one).
        #[arg(long)]
        base_state_revision: Option<String>,
        #[arg(long, default_value = ".")]
        project: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Pin a remote input: download the http(s) file a parameter names once,
    /// record its size and BLAKE3, and stage the copy instead of the URL.
    Pin {
        /// The source node's id.
        #[arg(long)]
        node: String,
        /// The path parameter whose value is an http(s) URL.
        #[arg(long)]
        param: String,
        #[arg(long, default_value = ".")]
        project: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

/// A fresh idempotency key for one CLI edit.
fn cli_key(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("cli-{what}-{nanos:x}-{}", std::process::id())
}

/// Applies `txn` to the project at `project` and prints its outcome.
fn apply(project: &Path, txn: &GraphTransaction, json: bool) -> anyhow::Result<ExitCode> {
    let mut project = Project::open(project, Seed::Empty).map_err(|e| fail(e.into(), json))?;
    let outcome = project
        .apply_transaction(txn)
        .map_err(|e| fail(e.into(), json))?;
    if json {
        println!("{}", serde_json::to_string_pretty(&outcome)?);
    } else {
        println!(
            "{}{}\n  state revision {}",
            outcome.summary,
            if outcome.replayed { " (replayed)" } else { "" },
            outcome.state_revision
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn split_at_ref(text: &str) -> anyhow::Result<(&str, &str)> {
    text.rsplit_once('@')
        .filter(|(name, r)| !name.is_empty() && !r.is_empty())
        .ok_or_else(|| Failure::usage(format!("`{text}` is not NAME@REF")).into())
}

pub fn run(args: SourceArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Runtime::new()?;
    match args.command {
        SourceCommand::Search {
            provider,
            query,
            limit,
            cursor,
            json,
        } => {
            if provider != "nf-core" {
                return Err(
                    Failure::usage(format!("`{provider}` is not a catalog; use nf-core")).into(),
                );
            }
            let store = SourceStore::from_env().map_err(|e| fail(e.into(), json))?;
            let query = query.join(" ");
            let page = runtime
                .block_on(store.search_nfcore(&query, cursor.as_deref(), limit))
                .map_err(|e| fail(e.into(), json))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&page)?);
                return Ok(ExitCode::SUCCESS);
            }
            println!(
                "{} match(es) in the nf-core catalog ({:?}, {} s old)",
                page.total_matches, page.catalog.origin, page.catalog.age_seconds
            );
            for m in &page.matches {
                let latest = m
                    .latest_release
                    .as_ref()
                    .map_or("no release".to_owned(), |r| {
                        format!(
                            "{}@{} ({})",
                            m.repository.as_str(),
                            r.tag,
                            r.commit.as_str()
                        )
                    });
                println!("  {}  {}\n    {}", m.name, latest, m.description);
            }
            if let Some(cursor) = &page.next_cursor {
                println!("more: --cursor {cursor}");
            }
            Ok(ExitCode::SUCCESS)
        }
        SourceCommand::Resolve {
            target,
            spec,
            project,
            json,
        } => {
            let store = SourceStore::from_env().map_err(|e| fail(e.into(), json))?;
            let pinned = match (target.as_str(), spec.as_deref()) {
                ("github", Some(spec)) => {
                    let (repository, git_ref) = split_at_ref(spec)?;
                    runtime.block_on(store.resolve_github(repository, git_ref))
                }
                (nfcore, None) if nfcore.starts_with("nf-core/") => {
                    let (pipeline, release) = split_at_ref(nfcore)?;
                    runtime.block_on(store.resolve_nfcore(pipeline, release))
                }
                _ => {
                    return Err(Failure::usage(
                        "resolve nf-core/NAME@RELEASE, or resolve github OWNER/REPO@REF",
                    )
                    .into());
                }
            }
            .map_err(|e| fail(e.into(), json))?;
            let binding = outline_pinned(&pinned).map_err(|e| fail(e, json))?;
            let mut project =
                Project::open(&project, Seed::Empty).map_err(|e| fail(e.into(), json))?;
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let txn = place_transaction(
                binding,
                project.state_revision().clone(),
                format!("cli-resolve-{nanos:x}-{}", std::process::id()),
                DEFAULT_SOURCE_NODE_ID.to_owned(),
                DEFAULT_POSITION,
            );
            let outcome = project
                .apply_transaction(&txn)
                .map_err(|e| fail(e.into(), json))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&outcome)?);
            } else {
                println!(
                    "{}\n  state revision {}",
                    outcome.summary, outcome.state_revision
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        SourceCommand::Edit {
            node,
            file,
            project,
            json,
        } => {
            let bytes = if file.as_os_str() == "-" {
                let mut bytes = Vec::new();
                std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes)?;
                bytes
            } else {
                std::fs::read(&file)
                    .map_err(|e| Failure::usage(format!("cannot read {}: {e}", file.display())))?
            };
            let body: SourceEditRequest = serde_json::from_slice(&bytes).map_err(|e| {
                fail(
                    SomiteError::new(
                        ErrorCode::InvalidTransaction,
                        format!("the edit body does not parse: {e}"),
                        "send {base_state_revision, idempotency_key, summary?, edits: [{op: set_param|unset_param|replace_invocation|restore_invocation, ...}]}",
                    )
                    .into(),
                    json,
                )
            })?;
            apply(&project, &body.transaction(&node), json)
        }
        SourceCommand::Promote {
            node,
            invocations,
            base_state_revision,
            project,
            json,
        } => {
            let base = match base_state_revision {
                Some(base) => base,
                None => Project::open(&project, Seed::Empty)
                    .map_err(|e| fail(e.into(), json))?
                    .state_revision()
                    .clone(),
            };
            let body = SourcePromoteRequest {
                base_state_revision: base,
                idempotency_key: cli_key("promote"),
                invocations,
            };
            apply(&project, &body.transaction(&node), json)
        }
        SourceCommand::Pin {
            node,
            param,
            project,
            json,
        } => {
            let (base, url) = {
                let opened =
                    Project::open(&project, Seed::Empty).map_err(|e| fail(e.into(), json))?;
                let url = pinnable_url(opened.document(), &node, &param)
                    .map_err(|e| fail(e.into(), json))?;
                (opened.state_revision().clone(), url)
            };
            let store = SourceStore::from_env().map_err(|e| fail(e.into(), json))?;
            if !json {
                eprintln!("downloading {url} …");
            }
            let download = runtime
                .block_on(somite_source::remote::download_pinned(
                    store.config(),
                    &url,
                    &project.join(PINNED_INPUTS_DIR),
                    somite_api::limits::MAX_PINNED_INPUT_BYTES,
                ))
                .map_err(|e| fail(e.into(), json))?;
            let relative = download
                .path
                .strip_prefix(&project)
                .unwrap_or(&download.path)
                .to_string_lossy()
                .into_owned();
            let body = SourcePinRequest {
                base_state_revision: base,
                idempotency_key: cli_key("pin"),
                param,
            };
            let txn = body.transaction(&node, url, relative, download.bytes, download.digest);
            apply(&project, &txn, json)
        }
    }
}

fn fail(error: somite_api::Error, json: bool) -> anyhow::Error {
    Failure::envelope(&error).json(json).into()
}
