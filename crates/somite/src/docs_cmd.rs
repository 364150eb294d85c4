//! `somite docs ...`: the versioned Pixi and Nextflow manuals.
//!
//! The same catalog, reads and search the MCP servers' `*_docs_*` tools
//! use, for a person at a terminal (`--json` prints the tools' structured
//! results). `fetch` stores a manual's upstream tag (online), `import` a
//! local checkout of it, in the documentation cache once, for every later
//! session and server.

use crate::failure::Failure;
use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use somite_api::EnvVars;
use somite_mcp::docs::fetch::{Upstream, fetch_manual};
use somite_mcp::docs::tools::{self, DocsReadArgs, DocsSearchArgs};
use somite_mcp::docs::{
    DocsCache, ImportReport, Manual, ManualSpec, NEXTFLOW_MANUAL, PIXI_MANUAL, configured_source,
};
use somite_mcp::envelope::ToolError;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct DocsArgs {
    #[command(subcommand)]
    action: DocsAction,
}

#[derive(Subcommand)]
enum DocsAction {
    /// List every page of a manual.
    List {
        manual: ManualName,
        #[command(flatten)]
        source: SourceArgs,
        /// Print the structured result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print one page as Markdown (a bounded slice of it).
    Read {
        manual: ManualName,
        /// The page's path, as listed (e.g. `workspace/lock_file.md`).
        path: String,
        /// Byte offset to start from (a previous read's next offset).
        #[arg(long, default_value_t = 0)]
        offset: u64,
        /// Bytes to print at most.
        #[arg(long)]
        max_bytes: Option<u32>,
        #[command(flatten)]
        source: SourceArgs,
        #[arg(long)]
        json: bool,
    },
    /// Full-text search of a manual.
    Search {
        manual: ManualName,
        /// Words to search for.
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        /// Pages to show at most.
        #[arg(long)]
        limit: Option<u32>,
        #[command(flatten)]
        source: SourceArgs,
        #[arg(long)]
        json: bool,
    },
    /// Fetch a manual from its upstream tag into the documentation cache
    /// (online; `SOMITE_MCP_DOCS_UPSTREAM_API` / `_RAW` name other hosts).
    Fetch { manual: ManualName },
    /// Import a local checkout of a manual's tag into the documentation cache.
    Import {
        manual: ManualName,
        /// The checkout, or its documentation folder.
        dir: PathBuf,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ManualName {
    Pixi,
    Nextflow,
}

impl ManualName {
    fn spec(self) -> &'static ManualSpec {
        match self {
            Self::Pixi => &PIXI_MANUAL,
            Self::Nextflow => &NEXTFLOW_MANUAL,
        }
    }
}

#[derive(Args)]
struct SourceArgs {
    /// A local checkout to import from when the cache does not hold the
    /// manual yet (default: `SOMITE_MCP_DOCS_SOURCE_PIXI` / `_NEXTFLOW`).
    #[arg(long, value_name = "DIR")]
    docs_source: Option<PathBuf>,
}

fn load(manual: ManualName, source: &SourceArgs) -> anyhow::Result<Manual> {
    let spec = manual.spec();
    let cache = DocsCache::from_env()?;
    let source = configured_source(spec, source.docs_source.as_deref());
    Manual::load(spec, &cache, source.as_deref()).map_err(|error| failed(ToolError::from(&error)))
}

fn print_report(verb: &str, spec: &ManualSpec, report: &ImportReport) {
    println!(
        "{verb} {} pages ({} bytes) of {} {} into {}",
        report.pages,
        report.bytes,
        spec.repository,
        spec.tag,
        report.directory.display()
    );
    for skipped in &report.skipped {
        eprintln!("skipped {}: {}", skipped.path, skipped.reason);
    }
}

/// A tool's refusal, shown as the envelope the MCP tool would return.
fn failed(error: ToolError) -> anyhow::Error {
    Failure::envelope(&error).into()
}

fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

pub fn run(args: DocsArgs) -> anyhow::Result<ExitCode> {
    match args.action {
        DocsAction::List {
            manual,
            source,
            json,
        } => {
            let list = tools::list(&load(manual, &source)?);
            if json {
                print_json(&list)?;
            } else {
                for page in &list.pages {
                    println!("{}\t{}", page.path, page.title);
                }
                eprintln!(
                    "{} pages of {} {}",
                    list.manual.page_count, list.manual.repository, list.manual.tag
                );
            }
        }
        DocsAction::Read {
            manual,
            path,
            offset,
            max_bytes,
            source,
            json,
        } => {
            let args = DocsReadArgs {
                path,
                offset: Some(offset),
                max_bytes,
            };
            let page = tools::read(&load(manual, &source)?, &args).map_err(failed)?;
            if json {
                print_json(&page)?;
            } else {
                print!("{}", page.content);
                if let Some(next) = page.next_offset {
                    eprintln!("(continues: --offset {next} of {} bytes)", page.total_bytes);
                }
            }
        }
        DocsAction::Search {
            manual,
            query,
            limit,
            source,
            json,
        } => {
            let args = DocsSearchArgs {
                query: query.join(" "),
                limit,
            };
            let result = tools::search(&load(manual, &source)?, &args).map_err(failed)?;
            if json {
                print_json(&result)?;
            } else {
                for hit in &result.hits {
                    println!(
                        "{}. {} — {} ({:.2})\n   {}",
                        hit.rank, hit.path, hit.title, hit.score, hit.snippet
                    );
                }
                if result.hits.is_empty() {
                    eprintln!("no page matches {:?}", result.query);
                }
            }
        }
        DocsAction::Import { manual, dir } => {
            let spec = manual.spec();
            let report = DocsCache::from_env()?.import(spec, &dir).with_context(|| {
                format!(
                    "cannot import the {} manual from {}",
                    spec.display_name,
                    dir.display()
                )
            })?;
            print_report("imported", spec, &report);
        }
        DocsAction::Fetch { manual } => {
            let spec = manual.spec();
            let upstream = Upstream::from_env().with_context(|| {
                format!(
                    "fetching is off ({}=off): import a local checkout instead",
                    EnvVars::SOMITE_MCP_DOCS_FETCH
                )
            })?;
            let cache = DocsCache::from_env()?;
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let report = runtime
                .block_on(fetch_manual(spec, &upstream, &cache))
                .with_context(|| format!("cannot fetch the {} manual", spec.display_name))?;
            print_report("fetched", spec, &report);
        }
    }
    Ok(ExitCode::SUCCESS)
}
