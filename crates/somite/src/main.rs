//! `somite`: the command line.
//!
//! Every verb is a thin shell over the same library calls the HTTP runtime
//! and the MCP servers use, so what a person does by hand and what an agent
//! does through tools cannot drift apart. Human output by default, `--json`
//! for machines; exit code 2 is a usage error, 1 is rejected input or a
//! failed operation (for `somite eval`: a failed check; 3: the evaluation
//! itself could not be carried out). A failure is shown once, here, through
//! [`failure::Failure`]; `somite serve` and `somite mcp` log through
//! [`logging`].

mod commands;
mod compile_cmd;
mod data_cmd;
mod docs_cmd;
mod eval_cmd;
mod failure;
mod logging;
mod mcp_cmd;
mod operator_cmd;
mod resource_cmd;
mod serve_cmd;
mod source_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "somite",
    version,
    about = "Typed, reproducible bioinformatics workflows"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the web workspace and its runtime on 127.0.0.1.
    Serve(serve_cmd::ServeArgs),
    /// Search the operator catalog.
    Catalog(commands::CatalogArgs),
    /// Prove an operator's contract with its real tool (a task-level proof, not a Nextflow run).
    Operator(operator_cmd::OperatorArgs),
    /// Show the workflow graph or apply a transaction to it.
    Graph(commands::GraphArgs),
    /// Assess the workflow's readiness.
    Assess(commands::AssessArgs),
    /// Freeze the workflow into a content-addressed package under .somite/compiled/.
    Compile(compile_cmd::CompileArgs),
    /// Write the compiled package and its evidence as a deterministic ZIP.
    Export(compile_cmd::ExportArgs),
    /// Project maintenance.
    Project(commands::ProjectArgs),
    /// Run one of Somite's stdio MCP servers.
    Mcp(mcp_cmd::McpArgs),
    /// Read and search the versioned Pixi and Nextflow manuals.
    Docs(docs_cmd::DocsArgs),
    /// Score an ACP agent on a scenario through the real boundary.
    Eval(eval_cmd::EvalArgs),
    /// Find public reads, assemblies, organisms and genes at NCBI and Ensembl.
    Data(data_cmd::DataArgs),
    /// Install, inspect or cancel managed reference databases.
    Resource(resource_cmd::ResourceArgs),
    /// Start from a real nf-core or GitHub pipeline, pinned to a commit.
    Source(source_cmd::SourceArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Serve(args) => serve_cmd::run(args),
        Command::Catalog(args) => commands::catalog(args),
        Command::Operator(args) => operator_cmd::run(args),
        Command::Graph(args) => commands::graph(args),
        Command::Assess(args) => commands::assess(args),
        Command::Compile(args) => compile_cmd::compile(args),
        Command::Export(args) => compile_cmd::export(args),
        Command::Project(args) => commands::project(args),
        Command::Mcp(args) => mcp_cmd::run(args),
        Command::Docs(args) => docs_cmd::run(args),
        Command::Eval(args) => eval_cmd::run(args),
        Command::Data(args) => data_cmd::run(args),
        Command::Resource(args) => resource_cmd::run(args),
        Command::Source(args) => source_cmd::run(args),
    };
    match outcome {
        Ok(code) => code,
        Err(error) => failure::Failure::from(error).report(),
    }
}
