//! `somite data search QUERY`: public reads, reference assemblies,
//! organisms and genes at NCBI and Ensembl, from the command line.
//!
//! It runs the same search as the runtime's `/api/data/search` and the MCP
//! tool `somite.source.search` (same request, same answer, same cache),
//! without needing a running runtime. `--json` prints the answer, or the
//! failure envelope.

use crate::failure::Failure;
use clap::{Args, Subcommand};
use serde::de::DeserializeOwned;
use somite_data::model::{ProviderChoice, SearchKind, SearchResult};
use somite_data::{DataConfig, DataSearch, SearchRequest, SearchResponse};
use std::process::ExitCode;

#[derive(Args)]
pub struct DataArgs {
    #[command(subcommand)]
    command: DataCommand,
}

#[derive(Subcommand)]
enum DataCommand {
    /// Search NCBI and Ensembl; an exact accession (SRR…, PRJNA…, SAMN…,
    /// GCF_…, ENSG…, GeneID:672, txid9606) resolves exactly.
    Search(SearchArgs),
}

#[derive(Args)]
struct SearchArgs {
    /// An accession or free text.
    query: String,
    /// reads | assembly | organism | gene | accession.
    #[arg(long, value_parser = wire::<SearchKind>)]
    kind: Option<SearchKind>,
    /// An organism name or taxid that narrows free text.
    #[arg(long)]
    organism: Option<String>,
    /// ncbi | ensembl.
    #[arg(long, value_parser = wire::<ProviderChoice>)]
    provider: Option<ProviderChoice>,
    /// Results per page (1–50).
    #[arg(long)]
    limit: Option<u32>,
    /// The previous page's `next_cursor`.
    #[arg(long)]
    cursor: Option<String>,
    /// Print the JSON answer (or failure envelope).
    #[arg(long)]
    json: bool,
}

/// A snake_case wire name read as the type's serde form.
fn wire<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(text.to_owned())).map_err(|e| e.to_string())
}

pub fn run(args: DataArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        DataCommand::Search(args) => search(args),
    }
}

fn search(args: SearchArgs) -> anyhow::Result<ExitCode> {
    let request = SearchRequest {
        query: args.query,
        kind: args.kind,
        organism: args.organism,
        provider: args.provider,
        limit: args.limit,
        cursor: args.cursor,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let answer = runtime.block_on(async {
        let search = DataSearch::new(DataConfig::from_env()?)?;
        search.search(&request).await
    });
    match answer {
        Ok(answer) => {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&answer)?);
            } else {
                print!("{}", render(&answer));
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => Err(Failure::envelope(&error.to_envelope())
            .json(args.json)
            .into()),
    }
}

fn render(answer: &SearchResponse) -> String {
    let mut text = String::new();
    if answer.results.is_empty() {
        text.push_str("no results\n");
    }
    for result in &answer.results {
        text.push_str(&render_result(result));
    }
    for warning in &answer.warnings {
        text.push_str(&format!("warning: {warning}\n"));
    }
    if let Some(cursor) = &answer.next_cursor {
        text.push_str(&format!("more: --cursor {cursor}\n"));
    }
    text
}

fn render_result(result: &SearchResult) -> String {
    let p = &result.provenance;
    let mut text = format!(
        "{} {}  {}\n  from {} at {}{}{}\n",
        format!("{:?}", result.kind).to_lowercase(),
        result.id,
        result.title,
        p.provider.as_str(),
        p.retrieved_at,
        if p.from_cache {
            format!(" (cached, {} s old)", p.age_seconds)
        } else {
            String::new()
        },
        p.release
            .as_deref()
            .map(|r| format!(", {r}"))
            .unwrap_or_default(),
    );
    match (&result.recipe, &result.recipe_unavailable) {
        (Some(recipe), _) => text.push_str(&format!(
            "  recipe: {} ({} operations)\n",
            recipe.summary,
            recipe.operations.len()
        )),
        (None, Some(why)) => text.push_str(&format!("  no recipe: {why}\n")),
        (None, None) => {}
    }
    text
}
