//! `somite resource list|inspect|install|cancel`: managed resources from
//! the command line, through the same [`ResourceManager`] the runtime uses
//! (store from `SOMITE_RESOURCE_DIR` or the platform data folder).
//!
//! `install` needs the consent on the command line — the exact download and
//! stored bytes and the effect digest `inspect` prints — and follows the job
//! to its end. `cancel` discards an install a stopped runtime left to resume
//! (a running runtime's job is cancelled in the workspace or over HTTP).

use crate::failure::Failure;
use clap::{Args, Subcommand};
use somite_resource::model::{Consent, JobState};
use somite_resource::{ResourceConfig, ResourceError, ResourceManager};
use std::process::ExitCode;

#[derive(Args)]
pub struct ResourceArgs {
    #[command(subcommand)]
    command: ResourceCommand,
}

#[derive(Subcommand)]
enum ResourceCommand {
    /// List the reviewed providers and the installed resources.
    List(JsonFlag),
    /// Show one provider: sizes, effect digest, install, partial download.
    Inspect(IdArgs),
    /// Install a provider after consenting to its exact sizes and effect.
    Install(InstallArgs),
    /// Discard an interrupted install (and its partial download unless kept).
    Cancel(CancelArgs),
}

#[derive(Args)]
struct JsonFlag {
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct IdArgs {
    provider_id: String,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct InstallArgs {
    provider_id: String,
    /// The exact download size `inspect` shows.
    #[arg(long)]
    download_bytes: u64,
    /// The exact stored size `inspect` shows.
    #[arg(long)]
    stored_bytes: u64,
    /// The scientific effect's digest `inspect` shows.
    #[arg(long)]
    effect_digest: String,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct CancelArgs {
    provider_id: String,
    /// Keep the partial download for a later install to resume.
    #[arg(long)]
    keep_partial: bool,
}

fn failure(error: ResourceError) -> anyhow::Error {
    let envelope = serde_json::to_value(somite_api::Error::from(error)).unwrap_or_default();
    Failure::envelope(&envelope).into()
}

fn manager() -> anyhow::Result<ResourceManager> {
    ResourceConfig::from_env(|name| std::env::var(name).ok())
        .and_then(ResourceManager::open)
        .map_err(failure)
}

pub fn run(args: ResourceArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let manager = manager()?;
        match args.command {
            ResourceCommand::List(flag) => {
                let overview = manager.overview();
                if flag.json {
                    println!("{}", serde_json::to_string_pretty(&overview)?);
                } else {
                    println!("store {}", overview.store_dir);
                    for p in &overview.providers {
                        let state = if p.installable {
                            "installable"
                        } else {
                            "unverified"
                        };
                        println!("{:<20} {:<12} {state:<11} {}", p.id, p.release, p.title);
                    }
                    for i in &overview.installed {
                        println!(
                            "installed {} at {} (verified: {})",
                            i.reference, i.path, i.verified
                        );
                    }
                }
                Ok(ExitCode::SUCCESS)
            }
            ResourceCommand::Inspect(args) => {
                let inspect = manager.inspect(&args.provider_id).map_err(failure)?;
                if args.json {
                    println!("{}", serde_json::to_string_pretty(&inspect)?);
                } else {
                    let p = &inspect.provider;
                    println!("{} ({}) release {}", p.title, p.id, p.release);
                    println!("url            {}", p.url);
                    println!(
                        "download bytes {}",
                        p.download_bytes.map_or("unknown".into(), |b| b.to_string())
                    );
                    println!(
                        "stored bytes   {}",
                        p.stored_bytes.map_or("unknown".into(), |b| b.to_string())
                    );
                    println!("effect         {}", p.scientific_effect);
                    println!("effect digest  {}", p.effect_digest);
                    if let Some(reason) = &p.unverified_reason {
                        println!("refuses install: {reason}");
                    }
                    if let Some(i) = &inspect.installed {
                        println!("installed      {} (verified: {})", i.path, i.verified);
                    }
                    if inspect.partial_bytes > 0 {
                        println!("partial bytes  {}", inspect.partial_bytes);
                    }
                }
                Ok(ExitCode::SUCCESS)
            }
            ResourceCommand::Install(args) => {
                let consent = Consent {
                    download_bytes: args.download_bytes,
                    stored_bytes: args.stored_bytes,
                    effect_digest: args.effect_digest,
                };
                let started = manager
                    .install(&args.provider_id, &consent)
                    .map_err(failure)?;
                let status = if started.state.is_finished() {
                    started
                } else {
                    manager.wait(&args.provider_id).await.map_err(failure)?
                };
                if args.json {
                    println!("{}", serde_json::to_string_pretty(&status)?);
                }
                match (status.state, status.error) {
                    (JobState::Installed, _) => {
                        if !args.json {
                            let inspect = manager.inspect(&args.provider_id).map_err(failure)?;
                            if let Some(i) = inspect.installed {
                                println!("installed {} at {}", i.reference, i.path);
                            }
                        }
                        Ok(ExitCode::SUCCESS)
                    }
                    (_, Some(error)) => {
                        Err(Failure::envelope(&serde_json::to_value(error)?).into())
                    }
                    (state, None) => Err(anyhow::anyhow!("the install stopped: {state:?}")),
                }
            }
            ResourceCommand::Cancel(args) => {
                let kept = manager
                    .discard_interrupted(&args.provider_id, args.keep_partial)
                    .map_err(failure)?;
                println!("discarded the interrupted install; {kept} partial bytes kept");
                Ok(ExitCode::SUCCESS)
            }
        }
    })
}
