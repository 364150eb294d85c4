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

use super::plan::{ChannelRef, CommandToken, Plan, Process, ProcessInput, StagedInput, WordPart};
use super::quote::{bash_literal, groovy_string, gstring_text};
use super::{COMPILER_VERSION, PIXI_MANIFEST, PIXI_MANIFEST_ENCODED, TARGET_NEXTFLOW};
use std::fmt::Write as _;

/// The main.nf function that encodes a value for the trip through the task
/// environment: the UTF-8 bytes of its text, as standard base64.
const ENCODE_FUNCTION: &str = "somiteBase64";

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
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "    {line}");
        }
    }
    out.push_str("    \"\"\"\n}\n");
}

/// The task script, as lines of Groovy GString text.
fn script_lines(p: &Process<'_>) -> Vec<String> {
    let text = |bash: &str| gstring_text(bash);
    let mut lines = vec![
        text(&format!(
            "# Values arrive base64-encoded (see {ENCODE_FUNCTION} in main.nf and"
        )),
        text("# nextflow.config): decode the variable named by $1 into the one named by $2."),
        text("# The trailing `x` keeps trailing newlines that $(...) would strip."),
        text("somite_decode() {"),
        text("    local decoded"),
        text(r#"    decoded="$(printf '%s' "${!1}" | base64 --decode && printf x)""#),
        text(r#"    printf -v "$2" '%s' "${decoded%x}""#),
        text("}"),
        String::new(),
        text(&format!(
            "# Local and Slurm runs set {PIXI_MANIFEST_ENCODED} (see nextflow.config): the"
        )),
        text("# tool then runs inside this package's locked Pixi environment. Cloud runs"),
        text("# leave it unset and get the same packages from the Wave container."),
        text("set +u"),
        text(&format!(
            r#"if [ -n "${{{PIXI_MANIFEST_ENCODED}:-}}" ]; then"#
        )),
        text(&format!(
            "    somite_decode {PIXI_MANIFEST_ENCODED} {PIXI_MANIFEST}"
        )),
        text(&format!(
            r#"    somite_activation="$(pixi shell-hook --frozen --shell bash --manifest-path "${{{PIXI_MANIFEST}}}" --environment {})""#,
            bash_literal(&p.environment)
        )),
        text(r#"    eval "${somite_activation}""#),
        text("fi"),
        text("set -euo pipefail"),
        String::new(),
    ];
    for param in &p.params {
        lines.push(text(&format!(
            "somite_decode {} {}",
            param.encoded_variable, param.variable
        )));
    }
    if let Some(variable) = &p.threads_from_cpus {
        lines.push(format!("export {variable}=${{task.cpus}}"));
    }
    for flag in &p.flags {
        lines.push(text(&format!("{}=''", flag.variable)));
        lines.push(text(&format!(
            r#"if [ "${{{}}}" = 'true' ]; then {}={}; fi"#,
            flag.param_variable,
            flag.variable,
            bash_literal(&flag.flag)
        )));
    }
    for input in &p.inputs {
        let staged: Vec<&StagedInput> = match input {
            ProcessInput::Single(s) => vec![s],
            ProcessInput::Pair(r1, r2) => vec![r1, r2],
        };
        for s in staged {
            if let Some(variable) = &s.variable {
                lines.push(text(&format!("{variable}=({})", s.pattern)));
            }
        }
    }
    lines.push(text("mkdir -p out tmp"));
    lines.push(String::new());

    let mut pending: Vec<String> = Vec::new();
    let mut started = false;
    let flush = |lines: &mut Vec<String>, pending: &mut Vec<String>, started: &mut bool| {
        if pending.is_empty() {
            return;
        }
        let operator = if *started { "+=" } else { "=" };
        lines.push(text(&format!("somite_command{operator}(")));
        for word in pending.drain(..) {
            lines.push(text(&format!("    {word}")));
        }
        lines.push(text(")"));
        *started = true;
    };
    for token in &p.command {
        match token {
            CommandToken::Always(parts) => pending.push(bash_word(parts)),
            CommandToken::UnlessEmpty(parts) => {
                flush(&mut lines, &mut pending, &mut started);
                if !started {
                    lines.push(text("somite_command=()"));
                    started = true;
                }
                let word = bash_word(parts);
                lines.push(text(&format!(
                    "if [ -n {word} ]; then somite_command+=({word}); fi"
                )));
            }
        }
    }
    flush(&mut lines, &mut pending, &mut started);
    match &p.stdout {
        Some(file) => lines.push(text(&format!(
            r#""${{somite_command[@]}}" > {}"#,
            bash_literal(file)
        ))),
        None => lines.push(text(r#""${somite_command[@]}""#)),
    }

    let required: Vec<_> = p.outputs.iter().filter(|o| !o.optional).collect();
    if !required.is_empty() {
        lines.push(String::new());
        lines.push(text(
            "# Every declared output must exist before the task counts as done.",
        ));
        lines.push(text("somite_require_output() {"));
        lines.push(text(r#"    if ! compgen -G "$2" > /dev/null; then"#));
        lines.push(text(&format!(
            r#"        echo "somite: {} did not produce its declared output '$1' ($2)" >&2"#,
            p.node_id
        )));
        lines.push(text("        exit 1"));
        lines.push(text("    fi"));
        lines.push(text("}"));
        for output in required {
            lines.push(text(&format!(
                "somite_require_output {} {}",
                bash_literal(&output.port),
                bash_literal(&output.glob)
            )));
        }
    }
    lines
}

/// One bash word: literals single-quoted, variables double-quoted.
fn bash_word(parts: &[WordPart]) -> String {
    let mut word = String::new();
    let mut expansions = String::new();
    let close = |word: &mut String, expansions: &mut String| {
        if !expansions.is_empty() {
            let _ = write!(word, "\"{expansions}\"");
            expansions.clear();
        }
    };
    for part in parts {
        match part {
            WordPart::Literal(text) => {
                close(&mut word, &mut expansions);
                word.push_str(&bash_literal(text));
            }
            WordPart::Variable(name) => {
                let _ = write!(expansions, "${{{name}}}");
            }
            WordPart::FirstPath(name) => {
                let _ = write!(expansions, "${{{name}[0]}}");
            }
        }
    }
    close(&mut word, &mut expansions);
    word
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
