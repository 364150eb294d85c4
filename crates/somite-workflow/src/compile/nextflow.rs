//! `main.nf`: the plan as a Nextflow DSL2 pipeline in the strict syntax that
//! Nextflow 26.04 parses by default.
//!
//! The shape is deliberately plain: a typed `params` block, one helper
//! function, one process per external node, and one entry workflow whose
//! statements follow the graph's topological order. The task script never
//! splices a value into bash: parameters arrive as `env` inputs, inputs are
//! staged under fixed names, contract literals are single-quoted, and the
//! command runs from a bash array, so whatever a user types stays one
//! argument.
//!
//! Each parameter travels base64-encoded. Nextflow writes `env` inputs (and
//! the config's `env` scope) into `.command.run` as `export NAME="value"`
//! without escaping when a task runs outside a container
//! (`TaskProcessor.bashEnvironmentScript`), so a raw value holding `$(...)`,
//! a backtick or a `"` would run as shell code before the script starts. The
//! entry workflow encodes each value with [`ENCODE_FUNCTION`], only
//! `[A-Za-z0-9+/=]` reaches that `export` line, and the task script decodes
//! it into the variable the command reads. `params.json` and the config keep
//! the plain values a person reviews.

use super::plan::{ChannelRef, Plan, Process, ProcessInput};
use super::quote::{groovy_string, gstring_text, push_gstring_text};
use super::task::{ScriptLine, script_lines};
use super::{COMPILER_VERSION, TARGET_NEXTFLOW};
use std::fmt::Write as _;

/// The main.nf function that encodes a value for the trip through the task
/// environment: the UTF-8 bytes of its text, as standard base64.
pub(crate) const ENCODE_FUNCTION: &str = "somiteBase64";

/// Renders `main.nf`.
pub(crate) fn main_nf(plan: &Plan<'_>) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "#!/usr/bin/env nextflow\n\
         /*\n \
         * Compiled by Somite {COMPILER_VERSION} for Nextflow {TARGET_NEXTFLOW} from graph revision\n \
         * {}.\n \
         * Do not edit: change the workflow in Somite and compile again.\n \
         *\n \
         * One process per tool node. Parameters reach each task as base64-encoded\n \
         * environment variables, inputs are staged under fixed names and every\n \
         * argument is single-quoted for bash, so no value can change the shape of\n \
         * a command.\n \
         */\n\n",
        plan.graph_revision
    );
    out.push_str(
        "params {\n    \
         // Local paths of the graph's inputs: node id -> parameter -> path.\n    \
         inputs: Map\n    \
         // Where each node publishes its outputs, in a folder named after the node.\n    \
         outdir: String\n    \
         // Tool parameters: node id -> parameter -> value.\n    \
         values: Map\n\
         }\n",
    );
    let _ = write!(
        out,
        "\n\
         // Nextflow exports `env` inputs into .command.run unescaped, so a value travels\n\
         // as base64 of its UTF-8 bytes and the task script decodes it.\n\
         def {ENCODE_FUNCTION}(value) {{\n    \
         java.util.Base64.getEncoder().encodeToString(value.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))\n\
         }}\n"
    );
    for process in &plan.processes {
        out.push('\n');
        render_process(&mut out, process);
    }
    out.push('\n');
    render_workflow(&mut out, plan);
    out
}

fn render_process(out: &mut String, p: &Process<'_>) {
    let _ = writeln!(
        out,
        "// {} ({}, revision {})",
        p.node_id, p.operator.id, p.operator_revision
    );
    let _ = writeln!(out, "process {} {{", p.name);
    let _ = writeln!(out, "    tag {}", groovy_string(p.node_id));
    if let Some(cpus) = p.cpus {
        let _ = writeln!(out, "    cpus {cpus}");
    }
    if let Some(memory) = p.memory_gb {
        let _ = writeln!(out, "    memory {memory}.GB");
    }
    out.push_str("    cache 'deep'\n");
    let _ = writeln!(
        out,
        "    publishDir \"${{params.outdir}}/{}\", mode: 'copy'",
        gstring_text(p.node_id)
    );

    if !p.inputs.is_empty() || !p.params.is_empty() {
        out.push_str("\n    input:\n");
        for input in &p.inputs {
            match input {
                ProcessInput::Single(staged) => {
                    let _ = writeln!(out, "    path {}", groovy_string(&staged.pattern));
                }
                ProcessInput::Pair(r1, r2) => {
                    let _ = writeln!(
                        out,
                        "    tuple path({}), path({})",
                        groovy_string(&r1.pattern),
                        groovy_string(&r2.pattern)
                    );
                }
            }
        }
        for param in &p.params {
            let _ = writeln!(out, "    env {}", groovy_string(&param.encoded_variable));
        }
    }

    out.push_str("\n    output:\n");
    for output in &p.outputs {
        let optional = if output.optional {
            ", optional: true"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "    path {}{optional}, emit: {}",
            groovy_string(&output.glob),
            output.emit
        );
    }

    out.push_str("\n    script:\n    \"\"\"\n");
    for line in script_lines(p) {
        match line {
            ScriptLine::Bash(bash) if bash.is_empty() => out.push('\n'),
            ScriptLine::Bash(bash) => {
                out.push_str("    ");
                push_gstring_text(out, &bash);
                out.push('\n');
            }
            ScriptLine::ThreadsFromCpus(variable) => {
                let _ = writeln!(out, "    export {variable}=${{task.cpus}}");
            }
        }
    }
    out.push_str("    \"\"\"\n}\n");
}

fn render_workflow(out: &mut String, plan: &Plan<'_>) {
    out.push_str("workflow {\n    main:\n");
    let mut first = true;
    let mut separate = |out: &mut String| {
        if !std::mem::take(&mut first) {
            out.push('\n');
        }
    };
    for source in &plan.sources {
        separate(out);
        let _ = writeln!(out, "    // {}: a graph input", source.node_id);
        for channel in &source.channels {
            let _ = writeln!(
                out,
                "    {} = channel.value(file(params.inputs[{}][{}], checkIfExists: true))",
                channel.variable,
                groovy_string(source.node_id),
                groovy_string(&channel.param)
            );
        }
    }
    for p in &plan.processes {
        let mut arguments: Vec<String> = p
            .inputs
            .iter()
            .map(|input| match input {
                ProcessInput::Single(s) => channel_expression(&s.channel),
                ProcessInput::Pair(r1, r2) => format!(
                    "{}.combine({})",
                    channel_expression(&r1.channel),
                    channel_expression(&r2.channel)
                ),
            })
            .collect();
        arguments.extend(p.params.iter().map(|param| {
            format!(
                "{ENCODE_FUNCTION}(params.values[{}][{}])",
                groovy_string(p.node_id),
                groovy_string(&param.param)
            )
        }));
        separate(out);
        let _ = writeln!(out, "    // {} ({})", p.node_id, p.operator.id);
        match arguments.len() {
            0 => {
                let _ = writeln!(out, "    {}()", p.name);
            }
            1 => {
                let _ = writeln!(out, "    {}({})", p.name, arguments[0]);
            }
            _ => {
                let _ = writeln!(out, "    {}(", p.name);
                let last = arguments.len() - 1;
                for (i, argument) in arguments.iter().enumerate() {
                    let comma = if i == last { "" } else { "," };
                    let _ = writeln!(out, "        {argument}{comma}");
                }
                out.push_str("    )\n");
            }
        }
    }
    out.push_str("}\n");
}

fn channel_expression(channel: &ChannelRef) -> String {
    match channel {
        ChannelRef::Source(variable) => variable.clone(),
        ChannelRef::Output { process, emit } => format!("{process}.out.{emit}"),
    }
}
