//! The task script of one process: the bash a Nextflow task runs for a node.
//!
//! It is written here once, as bash, and used twice: `main.nf` embeds each
//! line as GString text in the process's `script:` block
//! ([`super::nextflow`]), and [`task_script`] hands the same lines to a
//! caller that runs one task without Nextflow (the operator proofs in
//! `somite-runner`). Only one line differs between the two readers: the
//! thread count a user left unset is `${task.cpus}` in `main.nf` and the
//! caller's cpus here, which is exactly what Groovy substitutes. A test
//! evaluates main.nf's GString and compares it with [`TaskScript::bash`], so
//! the two cannot drift.

use super::nextflow::ENCODE_FUNCTION;
use super::plan::{CommandToken, Process, ProcessInput, StagedInput, WordPart};
use super::quote::bash_literal;
use super::{PIXI_MANIFEST, PIXI_MANIFEST_ENCODED};
use crate::catalog::Catalog;
use crate::error::{ErrorCode, Result, SomiteError};
use crate::graph::WorkflowDocument;
use crate::operator::ChecksumAlgorithm;
use base64::Engine as _;
use serde_json::Value;
use std::fmt::Write as _;

/// One line of a task script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScriptLine {
    /// Bash, as the task runs it.
    Bash(String),
    /// `export VARIABLE=<the task's cpus>`: the thread count a user left unset.
    ThreadsFromCpus(String),
}

/// What it takes to run one node's task outside Nextflow: the script and
/// the inputs, environment and outputs its process declares.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskScript {
    pub node_id: String,
    /// The Nextflow process name.
    pub process: String,
    /// The cpus directive, if the process has one.
    pub cpus: Option<u32>,
    /// Every bound input, in declaration order (mates of a pair in order).
    pub inputs: Vec<TaskInput>,
    /// Every `env` input, in declaration order.
    pub env: Vec<TaskEnv>,
    /// Every declared output.
    pub outputs: Vec<TaskOutput>,
    lines: Vec<ScriptLine>,
}

/// An input port and the name pattern the process stages it under: a
/// `stage_as` name, or `in/<port>/*` (the file keeps its own name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskInput {
    pub port: String,
    pub pattern: String,
}

/// A parameter the process receives as an `env` input.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskEnv {
    pub param: String,
    /// The environment variable, which holds the value base64-encoded.
    pub variable: String,
    pub value: Value,
}

/// A declared output: its file pattern and whether it may be absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskOutput {
    pub port: String,
    pub glob: String,
    pub optional: bool,
}

impl TaskEnv {
    /// The variable's value as the task receives it: base64 of the UTF-8
    /// text Groovy's `toString()` gives the value (main.nf's encoder).
    pub fn encoded(&self) -> String {
        let text = match &self.value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
    }
}

impl TaskScript {
    /// The script as the task runs it with `cpus` cpus (the process's own
    /// directive when it has one; Nextflow's default is 1).
    pub fn bash(&self, cpus: u32) -> String {
        let mut out = String::new();
        for line in &self.lines {
            match line {
                ScriptLine::Bash(bash) => out.push_str(bash),
                ScriptLine::ThreadsFromCpus(variable) => {
                    let _ = write!(out, "export {variable}={cpus}");
                }
            }
            out.push('\n');
        }
        out
    }
}

/// The task script of node `node_id` of `doc`, planned exactly as
/// [`compile`](super::compile) plans it. No readiness gate applies: nothing
/// is packaged, and a caller running one task checks its own inputs.
pub fn task_script(doc: &WorkflowDocument, catalog: &Catalog, node_id: &str) -> Result<TaskScript> {
    let plan = super::plan::plan(
        doc,
        catalog,
        doc.graph_revision(),
        &crate::resource::BoundResources::new(),
        &std::collections::BTreeSet::new(),
    )?;
    let p = plan
        .processes
        .iter()
        .find(|p| p.node_id == node_id)
        .ok_or_else(|| {
            SomiteError::new(
                ErrorCode::InvalidDocument,
                format!("{node_id} is not a tool node of this workflow"),
                "name a node that runs an external tool",
            )
            .with_detail("node_id", node_id)
        })?;
    let mut inputs = Vec::new();
    for input in &p.inputs {
        match input {
            ProcessInput::Single(s) => inputs.push(s),
            ProcessInput::Pair(r1, r2) => inputs.extend([r1, r2]),
        }
    }
    Ok(TaskScript {
        node_id: p.node_id.to_owned(),
        process: p.name.clone(),
        cpus: p.cpus,
        inputs: inputs
            .into_iter()
            .map(|s| TaskInput {
                port: s.port.clone(),
                pattern: s.pattern.clone(),
            })
            .collect(),
        env: p
            .params
            .iter()
            .map(|e| TaskEnv {
                param: e.param.clone(),
                variable: e.encoded_variable.clone(),
                value: e.value.clone(),
            })
            .collect(),
        outputs: p
            .outputs
            .iter()
            .map(|o| TaskOutput {
                port: o.port.clone(),
                glob: o.glob.clone(),
                optional: o.optional,
            })
            .collect(),
        lines: script_lines(p),
    })
}

/// The task script of process `p`.
pub(crate) fn script_lines(p: &Process<'_>) -> Vec<ScriptLine> {
    let text = |bash: &str| ScriptLine::Bash(bash.to_owned());
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
        text(""),
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
        text(""),
    ];
    for param in &p.params {
        lines.push(text(&format!(
            "somite_decode {} {}",
            param.encoded_variable, param.variable
        )));
    }
    if let Some(variable) = &p.threads_from_cpus {
        lines.push(ScriptLine::ThreadsFromCpus(variable.clone()));
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
    lines.push(text(""));

    let mut pending: Vec<String> = Vec::new();
    let mut started = false;
    let flush = |lines: &mut Vec<ScriptLine>, pending: &mut Vec<String>, started: &mut bool| {
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

    let compressed: Vec<_> = p.outputs.iter().filter(|o| o.gzip).collect();
    if !compressed.is_empty() {
        lines.push(text(""));
        lines.push(text(
            "# The tool writes these outputs uncompressed; they are declared gzipped.",
        ));
        for output in compressed {
            let plain = output
                .glob
                .strip_suffix(".gz")
                .expect("a validated contract's gzip glob ends in .gz");
            lines.push(text(&format!("gzip -n -- {}", bash_literal(plain))));
        }
    }

    let required: Vec<_> = p.outputs.iter().filter(|o| !o.optional).collect();
    if !required.is_empty() {
        lines.push(text(""));
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

    let verified: Vec<_> = p
        .outputs
        .iter()
        .filter_map(|o| o.checksum.as_ref().map(|c| (o, c)))
        .collect();
    if !verified.is_empty() {
        lines.push(text(""));
        lines.push(text(
            "# A download counts only when it matches the checksum its provider published:",
        ));
        lines.push(text(
            "# the listing's `SUM BLOCKS NAME` line for the file (BSD `sum`, 1 KiB blocks).",
        ));
        lines.push(text("somite_verify_bsd_sum() {"));
        lines.push(text("    local files=($2)"));
        lines.push(text(r#"    local name="${files[0]##*/}" listed='' line_sum line_blocks line_name found_sum found_blocks"#));
        lines.push(text(
            r#"    while read -r line_sum line_blocks line_name; do"#,
        ));
        lines.push(text(r#"        if [ "${line_name}" = "${name}" ] && [[ "${line_sum}" =~ ^[0-9]+$ ]] && [[ "${line_blocks}" =~ ^[0-9]+$ ]]; then"#));
        lines.push(text(
            r#"            listed="$((10#${line_sum})) $((10#${line_blocks}))""#,
        ));
        lines.push(text("        fi"));
        lines.push(text(r#"    done < "$3""#));
        lines.push(text(r#"    if [ -z "${listed}" ]; then"#));
        lines.push(text(&format!(
            r#"        echo "somite: {}: '${{name}}' (output '$1') has no checksum line in $3" >&2"#,
            p.node_id
        )));
        lines.push(text("        exit 1"));
        lines.push(text("    fi"));
        lines.push(text(
            r#"    read -r found_sum found_blocks < <(sum -r < "${files[0]}")"#,
        ));
        lines.push(text(
            r#"    if [ "${listed}" != "$((10#${found_sum})) $((10#${found_blocks}))" ]; then"#,
        ));
        lines.push(text(&format!(
            r#"        echo "somite: {}: '${{name}}' (output '$1') does not match its published checksum (listed ${{listed}}, found ${{found_sum}} ${{found_blocks}})" >&2"#,
            p.node_id
        )));
        lines.push(text("        exit 1"));
        lines.push(text("    fi"));
        lines.push(text("}"));
        for (output, checksum) in verified {
            let ChecksumAlgorithm::BsdSum = checksum.algorithm;
            lines.push(text(&format!(
                "somite_verify_bsd_sum {} {} {}",
                bash_literal(&output.port),
                bash_literal(&output.glob),
                bash_literal(&checksum.listing)
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
