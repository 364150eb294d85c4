//! `pixi.toml`: the package's software, frozen by Pixi.
//!
//! The default environment holds exactly Nextflow and the Java it runs on,
//! pinned to the versions Somite targets, and the `run` task. Each distinct
//! set of tool packages gets a feature and an environment of its own that
//! leaves the default feature out: tools are solved separately, so two
//! contracts can never make each other unsolvable, and a task activates only
//! the packages its own contract pins.

use super::config::PROFILES;
use super::plan::Plan;
use super::quote::toml_string;
use super::{
    CLOUD_PLATFORM, COMPILER_VERSION, CONDA_SPEC_DIR, PIXI_REQUIREMENT, PLATFORMS, TARGET_NEXTFLOW,
    TARGET_OPENJDK, short_revision,
};
use std::fmt::Write as _;

/// The conda channels every package resolves from, in priority order.
pub const CHANNELS: [&str; 2] = ["conda-forge", "bioconda"];

/// Renders `pixi.toml`.
pub(crate) fn pixi_toml(plan: &Plan<'_>) -> String {
    let list = |items: &[&str]| {
        let quoted: Vec<String> = items.iter().map(|s| toml_string(s)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let environments: Vec<&str> = plan.environments.iter().map(|e| e.name.as_str()).collect();
    let environment_flags = |flag: &str| -> String {
        environments
            .iter()
            .map(|e| format!(" {flag} {e}"))
            .collect::<String>()
    };

    let mut out = String::new();
    let _ = write!(
        out,
        "# Compiled by Somite {COMPILER_VERSION} from graph revision\n\
         # {}.\n\
         # `pixi run --frozen run` runs the pipeline; see README.md.\n\n\
         [workspace]\n\
         name = \"somite-{}\"\n\
         channels = {}\n\
         platforms = {}\n\
         requires-pixi = {}\n\n\
         # The default environment runs Nextflow itself.\n\
         [dependencies]\n\
         nextflow = \"=={TARGET_NEXTFLOW}\"\n\
         openjdk = \"=={TARGET_OPENJDK}\"\n\n",
        plan.graph_revision,
        short_revision(&plan.graph_revision),
        list(&CHANNELS),
        list(&PLATFORMS),
        toml_string(PIXI_REQUIREMENT),
    );

    let _ = write!(
        out,
        "[tasks.install-tools]\n\
         cmd = {}\n\
         description = \"Install every tool environment before the tasks start\"\n\n\
         [tasks.run]\n\
         cmd = \"nextflow run main.nf -params-file params.json -profile {{{{ profile }}}}\"\n\
         args = [{{ arg = \"profile\", default = \"local\", choices = {} }}]\n\
         depends-on = [\"install-tools\"]\n\
         description = \"Run the pipeline (profile: local by default)\"\n\n\
         [tasks.export-conda-specs]\n\
         cmd = {}\n\
         description = \"Write the conda explicit locks the cloud profiles build containers from\"\n",
        toml_string(&format!(
            "pixi install --frozen{}",
            environment_flags("--environment")
        )),
        list(&PROFILES),
        toml_string(&format!(
            "pixi workspace export conda-explicit-spec {CONDA_SPEC_DIR} --frozen{} --platform {CLOUD_PLATFORM}",
            environment_flags("--environment")
        )),
    );

    out.push_str("\n# One feature and environment per distinct set of tool packages.\n");
    for environment in &plan.environments {
        let _ = writeln!(out, "[feature.{}.dependencies]", environment.name);
        for (package, version) in &environment.packages {
            let _ = writeln!(
                out,
                "{} = {}",
                toml_key(package),
                toml_string(&format!("=={version}"))
            );
        }
        out.push('\n');
    }
    out.push_str("[environments]\n");
    for environment in &plan.environments {
        let _ = writeln!(
            out,
            "{} = {{ features = [{}], no-default-feature = true }}",
            environment.name,
            toml_string(&environment.name)
        );
    }
    out
}

/// A bare key when TOML allows one, else a quoted key.
fn toml_key(key: &str) -> String {
    if !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        key.to_owned()
    } else {
        toml_string(key)
    }
}
