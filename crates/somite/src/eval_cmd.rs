//! `somite eval`: score an ACP agent on a scenario through the real boundary
//! (`scripts/mcp-agent-eval` is this command; see docs/agent-evaluation.md).

use crate::failure::Failure;
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

/// The agent the specification's form (`MODEL EFFORT PORT SCENARIO`) scores
/// when neither `--agent` nor `SOMITE_EVAL_AGENT` names another.
const DEFAULT_AGENT: &str = "codex-acp";

#[derive(Args)]
struct RunArgs {
    /// `[AGENT] MODEL EFFORT PORT SCENARIO`. AGENT, when given first, is a
    /// launcher id (`somite` lists them in the Agent panel) or a custom command
    /// as a JSON argv array, e.g. '["opencode","acp"]'. MODEL and EFFORT are
    /// set through the agent's `model` and `thought_level` options (`-` keeps
    /// its default); PORT is where `somite serve` binds (0 picks a free one);
    /// SCENARIO is baseline, natural, stale, metagenomics, resource, cancel, invalid, source, data or workshop.
    #[arg(
        num_args = 4..=5,
        required = true,
        value_names = ["AGENT", "MODEL", "EFFORT", "PORT", "SCENARIO"]
    )]
    words: Vec<String>,
    /// The agent when the positional form leaves it out (default: Codex ACP).
    #[arg(long, env = somite_api::EnvVars::SOMITE_EVAL_AGENT)]
    agent: Option<String>,
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

/// What the positional words say, in either form.
struct Positional {
    agent: String,
    model: String,
    effort: String,
    port: u16,
    scenario: Scenario,
}

impl RunArgs {
    fn positional(&self) -> Result<Positional, EvalError> {
        let (agent, rest) = match self.words.as_slice() {
            [agent, rest @ ..] if rest.len() == 4 => {
                if self.agent.is_some() {
                    return Err(EvalError::Usage(format!(
                        "the agent is named twice: `{agent}` and --agent/SOMITE_EVAL_AGENT; name it once"
                    )));
                }
                (agent.clone(), rest)
            }
            rest => (
                self.agent
                    .clone()
                    .unwrap_or_else(|| DEFAULT_AGENT.to_owned()),
                rest,
            ),
        };
        let [model, effort, port, scenario] = rest else {
            unreachable!("clap takes four or five words")
        };
        Ok(Positional {
            agent,
            model: model.clone(),
            effort: effort.clone(),
            port: port
                .parse()
                .map_err(|_| EvalError::Usage(format!("`{port}` is not a port (0..=65535)")))?,
            scenario: scenario
                .parse()
                .map_err(|e: somite_eval::UnknownScenario| EvalError::Usage(e.to_string()))?,
        })
    }
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
    let words = match args.positional() {
        Ok(words) => words,
        Err(error) => return fail(&error),
    };
    let agent = match AgentChoice::parse(&words.agent) {
        Ok(agent) => agent,
        Err(error) => return fail(&error),
    };
    let config = EvalConfig {
        agent,
        model: optional(words.model),
        effort: optional(words.effort),
        port: words.port,
        scenario: words.scenario,
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
    let failure = match error {
        EvalError::Usage(_) => Failure::usage(error.to_string()),
        _ => Failure::message(error.to_string()).exit_code(3),
    };
    Err(failure.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Harness {
        #[command(flatten)]
        run: RunArgs,
    }

    fn positional(words: &[&str]) -> Result<Positional, EvalError> {
        let harness = Harness::try_parse_from(std::iter::once("eval").chain(words.iter().copied()))
            .expect("clap accepts four or five words");
        harness.run.positional()
    }

    #[test]
    fn the_specifications_form_scores_codex_acp_unless_told_otherwise() {
        let words = positional(&["gpt-5.6-luna", "low", "7391", "baseline"]).unwrap();
        assert_eq!(words.agent, DEFAULT_AGENT);
        assert_eq!(
            (words.model.as_str(), words.effort.as_str()),
            ("gpt-5.6-luna", "low")
        );
        assert_eq!((words.port, words.scenario), (7391, Scenario::Baseline));

        let words = positional(&["--agent", "opencode", "m", "-", "0", "stale"]).unwrap();
        assert_eq!(words.agent, "opencode");

        let words = positional(&["claude-code-acp", "m", "-", "0", "natural"]).unwrap();
        assert_eq!(words.agent, "claude-code-acp", "today's form still works");
    }

    #[test]
    fn ambiguous_or_malformed_words_are_usage_errors() {
        for words in [
            &["--agent", "opencode", "codex-acp", "m", "-", "0", "stale"][..],
            &["m", "-", "99999", "stale"],
            &["m", "-", "0", "sources"],
        ] {
            assert!(
                matches!(positional(words), Err(EvalError::Usage(_))),
                "{words:?}"
            );
        }
        assert!(Harness::try_parse_from(["eval", "m", "-", "0"]).is_err());
    }
}
