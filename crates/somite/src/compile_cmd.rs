//! `somite compile` and `somite export`: freeze the project's workflow into
//! a content-addressed package, or write that package as a deterministic ZIP.
//!
//! Both read the project without taking it (packages are content-addressed
//! and published under private names, so they are safe beside a running
//! server) and go through the project store's one compile path, so the input-origin
//! recovery gate and the readiness gate apply exactly as they do for the web
//! workspace and the agent. Pixi is used when it is on `PATH`; without it the
//! package has no lock and the output says so.

use crate::failure::Failure;
use clap::Args;
use serde::Serialize;
use somite_project::compiled::{self, CompileOutcome, CompileSummary, Toolchain};
use somite_project::source::ensure_pinned;
use somite_project::{Project, Seed, export};
use somite_source::SourceStore;
use somite_workflow::SomiteError;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct CompileArgs {
    /// The project folder (default: the current folder).
    #[arg(long, default_value = ".")]
    project: PathBuf,
    /// Print the machine-readable JSON result.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct ExportArgs {
    /// Where to write the ZIP archive.
    out: PathBuf,
    /// The project folder (default: the current folder).
    #[arg(long, default_value = ".")]
    project: PathBuf,
    /// Print the machine-readable JSON result.
    #[arg(long)]
    json: bool,
}

/// What `somite export --json` prints.
#[derive(Serialize)]
struct ExportReport<'a> {
    path: String,
    archive_digest: &'a str,
    bytes: u64,
    entries: usize,
    receipts: usize,
    package: CompileSummary,
}

fn report(outcome: &CompileOutcome) -> CompileSummary {
    outcome.summary(outcome.path.display().to_string())
}

fn human_compile(report: &CompileSummary) -> String {
    let mut text = format!(
        "compiled {}{}\n  at {}\n  {} files, {} bytes\n",
        report.digest,
        if report.reused {
            " (already on disk)"
        } else {
            ""
        },
        report.path,
        report.files,
        report.bytes
    );
    for item in &report.toolchain {
        text += &format!("  note: {}\n    {}\n", item.title, item.detail);
    }
    text
}

/// Fetches the project's pinned pipeline source again when this machine's
/// store lacks it, as `somite serve` does before it compiles: only a ready
/// source workflow is worth the fetch. Offline, the refusal is
/// `source_unavailable` with the commit.
fn ensure_source(project: &Project, json: bool) -> anyhow::Result<()> {
    let document = project.document();
    let Some(binding) = document.source_node().and_then(|n| n.source()) else {
        return Ok(());
    };
    if !project.assess_graph().is_ready() {
        return Ok(());
    }
    let store = SourceStore::from_env()
        .map_err(|e| Failure::envelope(&somite_api::Error::from(e)).json(json))?;
    if binding
        .commit
        .parse()
        .is_ok_and(|commit| store.holds(&commit))
    {
        return Ok(());
    }
    if !json {
        eprintln!(
            "fetching {} at commit {} (not on this machine yet)…",
            binding.repository,
            &binding.commit[..7]
        );
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime
        .block_on(ensure_pinned(&store, binding))
        .map_err(|e| Failure::envelope(&e).json(json))?;
    Ok(())
}

pub fn compile(args: CompileArgs) -> anyhow::Result<ExitCode> {
    let project = Project::read(&args.project, Seed::Empty).map(crate::commands::with_resources);
    if let Ok(project) = &project {
        ensure_source(project, args.json)?;
    }
    let result = project.and_then(|project| compiled::compile(&project, &Toolchain::from_env()?));
    finish(args.json, result, |outcome| {
        let report = report(outcome);
        Ok((
            serde_json::to_string_pretty(&report)?,
            human_compile(&report),
        ))
    })
}

pub fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let project = Project::read(&args.project, Seed::Empty).map(crate::commands::with_resources);
    if let Ok(project) = &project {
        ensure_source(project, args.json)?;
    }
    let result =
        project.and_then(|project| export::export(&project, &Toolchain::from_env()?, &args.out));
    finish(args.json, result, |outcome| {
        let report = ExportReport {
            path: outcome.path.display().to_string(),
            archive_digest: &outcome.archive_digest,
            bytes: outcome.bytes,
            entries: outcome.entries,
            receipts: outcome.receipts,
            package: report(&outcome.compile),
        };
        let human = format!(
            "exported {} ({} entries, {} bytes, {} receipt(s))\n  archive {}\n{}",
            report.path,
            report.entries,
            report.bytes,
            report.receipts,
            report.archive_digest,
            human_compile(&report.package)
        );
        Ok((serde_json::to_string_pretty(&report)?, human))
    })
}

/// Prints a result as JSON or text; a refusal is a [`Failure`] (exit 1).
fn finish<T>(
    json: bool,
    result: Result<T, SomiteError>,
    render: impl FnOnce(&T) -> anyhow::Result<(String, String)>,
) -> anyhow::Result<ExitCode> {
    let value = result.map_err(|error| Failure::envelope(&error).json(json))?;
    let (machine, human) = render(&value)?;
    if json {
        println!("{machine}");
    } else {
        print!("{human}");
    }
    Ok(ExitCode::SUCCESS)
}
