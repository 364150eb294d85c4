//! `somite operator prove ID`: a task-level proof with the real binary, not
//! a Nextflow run.
//!
//! It runs the one task script the compiler writes into `main.nf` for a
//! node of operator ID, with the tool found on `PATH` and generated
//! fixtures staged under the declared names (see `somite_runner::proof`),
//! and prints what it proved: tool and reported version, Debian package,
//! script, fixture and output digests, and each declared output's check.
//! An operator that cannot run here says why. Exit 0 only for a passing
//! proof.

use crate::failure::Failure;
use clap::{Args, Subcommand};
use somite_runner::proof::Prover;
use somite_workflow::{Catalog, SomiteError};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct OperatorArgs {
    #[command(subcommand)]
    command: OperatorCommand,
}

#[derive(Subcommand)]
enum OperatorCommand {
    /// Prove an operator's contract: run its compiled task script with the
    /// real tool on generated fixtures (a task-level proof, not a Nextflow run).
    Prove(ProveArgs),
}

#[derive(Args)]
struct ProveArgs {
    /// The operator id, e.g. `align.bwa`.
    id: String,
    /// Where fixtures and task folders go; kept for inspection.
    #[arg(long, default_value_os_t = std::env::temp_dir().join("somite-proofs"))]
    work: PathBuf,
    /// Print the machine-readable JSON proof.
    #[arg(long)]
    json: bool,
}

pub fn run(args: OperatorArgs) -> anyhow::Result<ExitCode> {
    match args.command {
        OperatorCommand::Prove(args) => prove(args),
    }
}

fn prove(args: ProveArgs) -> anyhow::Result<ExitCode> {
    let catalog = Catalog::builtin()?;
    let mut prover = Prover::new(&catalog, &args.work);
    match prover.prove(&args.id) {
        Ok(proof) => {
            if args.json {
                println!("{}", serde_json::to_string_pretty(&proof)?);
            } else {
                print!("{}", proof.render());
                println!(
                    "task folder {}",
                    args.work.join("tasks").join(&args.id).display()
                );
            }
            Ok(if proof.passed {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Err(error) => Err(Failure::envelope(&SomiteError::from(error))
            .json(args.json)
            .into()),
    }
}
