//! `nextflow.config`: where the pipeline runs, never what it computes.
//!
//! The science is fixed by `main.nf`, the params and the Pixi lock; this file
//! only chooses an executor. Every profile runs the same packages: local and
//! Slurm tasks activate the package's own locked Pixi environment, and the
//! cloud profiles (AWS Batch, Google Batch, Kubernetes) hand each process a
//! conda explicit lock exported from that same environment, which Wave turns
//! into a container. Written in the strict config syntax: assignments, blocks
//! and nothing else.

use super::plan::Plan;
use super::quote::{groovy_string, groovy_value};
use super::{
    COMPILER_VERSION, DEFAULT_OUTDIR, PIXI_MANIFEST_ENCODED, TARGET_NEXTFLOW, TRACE_FIELDS,
    TRACE_FILE, conda_spec_path, short_revision,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The executor profiles, in the order they are written.
pub const PROFILES: [&str; 5] = ["local", "slurm", "awsbatch", "google-batch", "k8s"];

/// Renders `nextflow.config`.
pub(crate) fn nextflow_config(plan: &Plan<'_>) -> String {
    let mut out = String::new();
    let short = short_revision(&plan.graph_revision);
    let _ = write!(
        out,
        "/*\n \
         * Compiled by Somite {COMPILER_VERSION} from graph revision\n \
         * {}.\n \
         * Do not edit: change the workflow in Somite and compile again.\n \
         */\n\n\
         manifest {{\n    \
         name = 'somite-{short}'\n    \
         description = {}\n    \
         mainScript = 'main.nf'\n    \
         nextflowVersion = '!>={TARGET_NEXTFLOW}'\n\
         }}\n\n",
        plan.graph_revision,
        groovy_string(&format!(
            "Compiled by Somite from graph revision {}",
            plan.graph_revision
        )),
    );

    out.push_str(
        "// Defaults for main.nf's params; params.json holds the same values for\n\
         // `-params-file`. Relative input paths resolve against the launch directory.\n\
         params {\n",
    );
    let _ = writeln!(out, "    outdir = {}", groovy_string(DEFAULT_OUTDIR));
    let inputs: BTreeMap<&str, Vec<(&str, String)>> = plan
        .input_paths()
        .into_iter()
        .map(|(node, paths)| {
            let entries = paths
                .iter()
                .map(|(param, path)| (param.as_str(), groovy_string(path)))
                .collect();
            (node, entries)
        })
        .collect();
    write_nested_map(&mut out, "inputs", &inputs);
    let values: BTreeMap<&str, Vec<(&str, String)>> = plan
        .parameter_values()
        .into_iter()
        .map(|(node, values)| {
            let entries = values
                .into_iter()
                .map(|(param, value)| (param, groovy_value(value)))
                .collect();
            (node, entries)
        })
        .collect();
    write_nested_map(&mut out, "values", &values);
    out.push_str("}\n\n");

    let _ = write!(
        out,
        "process {{\n    \
         // A failed task stops the run: nothing downstream starts from partial results.\n    \
         errorStrategy = 'terminate'\n\
         }}\n\n\
         // Somite follows progress from the trace: one row per finished or cached task.\n\
         trace {{\n    \
         enabled = true\n    \
         file = {}\n    \
         overwrite = true\n    \
         fields = {}\n\
         }}\n\n",
        groovy_string(TRACE_FILE),
        groovy_string(&TRACE_FIELDS.join(",")),
    );

    out.push_str("profiles {\n");
    out.push_str(
        "    // Local and Slurm tasks run inside this package's frozen Pixi environment:\n    \
         // each task script runs `pixi shell-hook --frozen --manifest-path` on this\n    \
         // pixi.toml with its own environment and evaluates the activation before the\n    \
         // tool starts, so the binary that runs is exactly the one pixi.lock pins.\n    \
         // (Nextflow has no Pixi provider, and `beforeScript` runs before the task\n    \
         // environment is exported, hence the activation in the task script.) The\n    \
         // manifest path travels base64-encoded: Nextflow exports `env` values into\n    \
         // .command.run unescaped, and this folder may be named anything.\n",
    );
    let manifest = format!(
        "env.{PIXI_MANIFEST_ENCODED} = java.util.Base64.getEncoder().encodeToString(\
         projectDir.resolve('pixi.toml').toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))"
    );
    let _ = write!(
        out,
        "    local {{\n        \
         process.executor = 'local'\n        \
         {manifest}\n    \
         }}\n\n"
    );
    let _ = write!(
        out,
        "    slurm {{\n        \
         // Choose the partition with `process.queue`; this folder and `pixi` must be\n        \
         // reachable from every compute node.\n        \
         process.executor = 'slurm'\n        \
         {manifest}\n    \
         }}\n\n"
    );
    out.push_str(
        "    // Cloud tasks run in containers that Wave builds from a conda explicit lock\n    \
         // of each process's Pixi environment (`pixi run export-conda-specs` writes\n    \
         // them to conda/), so they get the same packages as a local run.\n",
    );
    let cloud = [
        (
            "awsbatch",
            "awsbatch",
            "Set `process.queue`, `aws.region` and an S3 work directory (-work-dir s3://...).",
            "fusion.enabled = true\n",
        ),
        (
            "'google-batch'",
            "google-batch",
            "Set `google.project`, `google.location` and a gs:// work directory.",
            "",
        ),
        (
            "k8s",
            "k8s",
            "Set `k8s.namespace` and a shared volume claim (`k8s.storageClaimName`).",
            "",
        ),
    ];
    for (i, (block, executor, needs, extra)) in cloud.iter().enumerate() {
        let _ = writeln!(out, "    {block} {{");
        let _ = writeln!(out, "        // {needs}");
        let _ = writeln!(out, "        process.executor = '{executor}'");
        if !extra.is_empty() {
            let _ = write!(out, "        {extra}");
        }
        out.push_str(
            "        wave.enabled = true\n        \
             wave.strategy = ['conda']\n        \
             wave.build.template = 'conda/pixi:v1'\n        \
             process {\n",
        );
        for p in &plan.processes {
            let _ = writeln!(
                out,
                "            withName: '{}' {{\n                \
                 conda = \"${{projectDir}}/{}\"\n            \
                 }}",
                p.name,
                conda_spec_path(&p.environment)
            );
        }
        out.push_str("        }\n    }\n");
        if i + 1 < cloud.len() {
            out.push('\n');
        }
    }
    out.push_str("}\n");
    out
}

/// `name = [ 'node': [ 'param': value, ... ], ... ]`, one entry per line.
fn write_nested_map(out: &mut String, name: &str, map: &BTreeMap<&str, Vec<(&str, String)>>) {
    if map.is_empty() {
        let _ = writeln!(out, "    {name} = [:]");
        return;
    }
    let _ = writeln!(out, "    {name} = [");
    let last_node = map.len() - 1;
    for (i, (node, entries)) in map.iter().enumerate() {
        let comma = if i == last_node { "" } else { "," };
        if entries.is_empty() {
            let _ = writeln!(out, "        {}: [:]{comma}", groovy_string(node));
            continue;
        }
        let _ = writeln!(out, "        {}: [", groovy_string(node));
        let last = entries.len() - 1;
        for (j, (key, value)) in entries.iter().enumerate() {
            let comma = if j == last { "" } else { "," };
            let _ = writeln!(out, "            {}: {value}{comma}", groovy_string(key));
        }
        let _ = writeln!(out, "        ]{comma}");
    }
    out.push_str("    ]\n");
}
