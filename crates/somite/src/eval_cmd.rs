//! `somite eval`: score an ACP agent on a scenario through the real boundary
//! (`scripts/mcp-agent-eval` is this command; see docs/agent-evaluation.md).

use clap::{Args, Subcommand};
use somite_eval::{AgentChoice, EvalConfig, EvalError, Scenario, Score, Status};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args)]
pub struct EvalArgs {
    #[command(subcommand)]
    command: EvalCommand,
}

#[derive(Subcommand)]
enum EvalCommand {
    /// Run one scenario against an agent and score it.
    Run(RunArgs),
    /// Recompute the score of a recorded evaluation from its evidence.
    Rescore {
        /// The evaluation's folder (`.somite/mcp-agent-evals/<timestamp>-<scenario>`).
        dir: PathBuf,
    },
}

#[derive(Args)]
struct RunArgs {
    /// A launcher id (`somite` lists them in the Agent panel) or a custom
    /// command as a JSON argv array, e.g. '["opencode","acp"]'.
    agent: String,
    /// The model to select through the agent's `model` option; `-` keeps its default.
    model: String,
    /// The reasoning effort through the agent's `thought_level` option; `-` keeps its default.
    effort: String,
    /// The port `somite serve` binds; 0 picks a free one.
    port: u16,
    /// baseline, natural, stale, metagenomics, cancel or invalid.
    scenario: Scenario,
    /// Where `.somite/mcp-agent-evals/` is written (default: the current folder).
    #[arg(long, default_value = ".")]
    output_root: PathBuf,
    /// How long the agent's turn may take before it is cancelled, in seconds.
    #[arg(long, default_value_t = 900)]
    timeout_s: u64,
    /// Print the score as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: EvalArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        EvalCommand::Run(args) => run_scenario(args),
        EvalCommand::Rescore { dir } => match somite_eval::rescore(&dir) {
            Ok(score) => Ok(report(&score, &dir, false)),
            Err(error) => fail(&error),
        },
    }
}

fn run_scenario(args: RunArgs) -> anyhow::Result<ExitCode> {
    let optional = |value: String| (value != "-").then_some(value);
    let agent = match AgentChoice::parse(&args.agent) {
        Ok(agent) => agent,
        Err(error) => return fail(&error),
    };
    let config = EvalConfig {
        agent,
        model: optional(args.model),
        effort: optional(args.effort),
        port: args.port,
        scenario: args.scenario,
        somite: std::env::current_exe()?,
        output_root: args.output_root,
        turn_timeout: Duration::from_secs(args.timeout_s),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    match runtime.block_on(somite_eval::run(&config)) {
        Ok(outcome) => {
            if let Some(message) = &outcome.turn_failure {
                eprintln!("note: the agent's turn failed ({message}); the score reflects that");
            }
            Ok(report(&outcome.score, &outcome.dir, args.json))
        }
        Err(error) => fail(&error),
    }
}

/// Prints the score; exit 0 when no check failed, 1 otherwise.
fn report(score: &Score, dir: &std::path::Path, json: bool) -> ExitCode {
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(score).unwrap_or_default()
        );
    } else {
        println!(
            "{}: {} passed, {} failed, {} skipped",
            score.scenario, score.passed, score.failed, score.skipped
        );
        for check in &score.checks {
            let mark = match check.status {
                Status::Pass => "pass",
                Status::Fail => "FAIL",
                Status::Skipped => "skip",
            };
            println!("  {mark}  {:<32} {}", check.id, check.reason);
        }
        println!("evidence: {}", dir.display());
    }
    if score.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn fail(error: &EvalError) -> anyhow::Result<ExitCode> {
    eprintln!("error: {error}");
    Ok(ExitCode::from(match error {
        EvalError::Usage(_) => 2,
        _ => 3,
    }))
}
