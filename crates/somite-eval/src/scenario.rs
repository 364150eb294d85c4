//! The scenarios: what each one seeds, what it asks, and the fixed facts
//! its checks compare against.
//!
//! A prompt is a *blind* task: it says what a user wants, never how Somite
//! will score it. Only `baseline` (and `stale`, which is baseline with a
//! human edit injected mid-turn) names the tools, so a low score there is a
//! tool-surface problem rather than a planning one.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The paired reads every FASTQ scenario uses, relative to the project.
pub const R1_PATH: &str = "data/sample_R1.fastq";
/// The mate of [`R1_PATH`].
pub const R2_PATH: &str = "data/sample_R2.fastq";
/// The single-end reads of `metagenomics` and `resource`.
pub const SINGLE_PATH: &str = "data/sample.fastq";
/// The nf-core samplesheet of `source`, naming the paired reads.
pub const SAMPLESHEET_PATH: &str = "data/samplesheet.csv";
/// Where `source` asks the pipeline to write its results.
pub const OUTDIR: &str = "results";
/// The note the harness adds in `stale` while the agent works.
pub const HUMAN_NOTE_ID: &str = "human-edit";

/// The small files written into every scenario's project.
pub const DATA_FILES: [(&str, &str); 4] = [
    (R1_PATH, "@read1/1\nACGTACGTAC\n+\nIIIIIIIIII\n"),
    (R2_PATH, "@read1/2\nGTACGTACGT\n+\nIIIIIIIIII\n"),
    (SINGLE_PATH, "@read1\nACGTACGTAC\n+\nIIIIIIIIII\n"),
    // nf-core/demo's samplesheet columns (its assets/schema_input.json).
    (
        SAMPLESHEET_PATH,
        "sample,fastq_1,fastq_2\nSAMPLE1,data/sample_R1.fastq,data/sample_R2.fastq\n",
    ),
];

/// One evaluation scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scenario {
    /// Paired import and fastp, wired in one transaction, validated; the
    /// prompt names the tools.
    Baseline,
    /// The same outcome asked for in plain language.
    Natural,
    /// Baseline, with a human edit landing after the agent first inspects.
    Stale,
    /// Add taxonomic classification to a FASTQ/FastQC graph; the database
    /// must stay a required input the user is asked for.
    Metagenomics,
    /// `metagenomics` with Somite able to install a reviewed database: the
    /// choice must still be the user's (see [`crate::resource`]).
    Resource,
    /// Start a run and cancel it while it runs.
    Cancel,
    /// Try an incompatible connection and recover from the structured error.
    Invalid,
    /// Start from nf-core/demo: search, pin a release onto the empty canvas,
    /// set its required parameters (see [`crate::source`]).
    Source,
    /// Find the current human reference assembly at NCBI and place the
    /// search's source recipe unchanged (see [`crate::data`]).
    Data,
    /// A tool the catalog lacks: draft and prove a `project.*` candidate,
    /// never accept it (see [`crate::workshop`]).
    Workshop,
}

impl Scenario {
    /// Every scenario, in the order the documentation lists them.
    pub const ALL: [Scenario; 10] = [
        Scenario::Baseline,
        Scenario::Natural,
        Scenario::Stale,
        Scenario::Metagenomics,
        Scenario::Resource,
        Scenario::Cancel,
        Scenario::Invalid,
        Scenario::Source,
        Scenario::Data,
        Scenario::Workshop,
    ];

    /// Its name on the command line and in directory names.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Baseline => "baseline",
            Scenario::Natural => "natural",
            Scenario::Stale => "stale",
            Scenario::Metagenomics => "metagenomics",
            Scenario::Resource => "resource",
            Scenario::Cancel => "cancel",
            Scenario::Invalid => "invalid",
            Scenario::Source => "source",
            Scenario::Data => "data",
            Scenario::Workshop => "workshop",
        }
    }

    /// The blind task sent as the prompt.
    #[must_use]
    pub fn prompt(self) -> String {
        match self {
            Scenario::Baseline | Scenario::Stale => format!(
                "Use Somite's MCP tools to build a small workflow on the canvas. \
                 First call somite.workflow.get to inspect the current workflow. \
                 Then, in exactly one somite.graph.apply_transaction call, add a \
                 files.import_paired node with r1 = \"{R1_PATH}\" and r2 = \"{R2_PATH}\", \
                 add a qc.fastp node with threads = 2, and connect the import's r1 \
                 output to fastp's r1 input and its r2 output to fastp's r2 input. \
                 Then start a validation with somite.validation.start and follow it \
                 with somite.run.status, passing wait_ms, until it reaches a terminal \
                 phase. Tell me how it ended."
            ),
            Scenario::Natural => format!(
                "I have paired-end sequencing reads at {R1_PATH} and {R2_PATH}. \
                 Please set up read trimming and quality filtering with fastp using \
                 2 threads in this workflow, making sure each mate goes to the right \
                 input. Then check that the workflow really works on test data and \
                 tell me how that went."
            ),
            Scenario::Metagenomics => "This workflow imports a FASTQ file and runs FastQC on it. \
                 I would also like to know which organisms are in the sample: please \
                 add taxonomic classification of the reads to the workflow."
                .to_owned(),
            Scenario::Resource => crate::resource::PROMPT.to_owned(),
            Scenario::Cancel => "Start a run of this workflow with Somite's tools. As soon as \
                 it is running, cancel it, and confirm to me that it ended cancelled."
                .to_owned(),
            Scenario::Invalid => "Connect the FastQC node's report_html output to the fastp \
                 node's r1 input. If that connection is not possible, tell me why, \
                 and give fastp's r1 input the R1 reads it needs instead."
                .to_owned(),
            Scenario::Source => crate::source::prompt(),
            Scenario::Data => crate::data::PROMPT.to_owned(),
            Scenario::Workshop => crate::workshop::PROMPT.to_owned(),
        }
    }

    /// The operations that seed the scenario's project. Each begins by
    /// naming the document, which also makes an "empty" canvas a saved
    /// workflow (a project without one would start from Somite's example).
    #[must_use]
    pub fn seed_operations(self) -> Vec<Value> {
        let mut operations =
            vec![json!({"op": "set_title", "title": format!("Evaluation: {self}")})];
        operations.extend(self.seed_graph());
        operations
    }

    fn seed_graph(self) -> Vec<Value> {
        let paired = json!({"op": "add_operator", "node_id": "reads", "operator_id": "files.import_paired",
                            "params": {"r1": R1_PATH, "r2": R2_PATH}, "x": 80, "y": 120});
        let fastp = json!({"op": "add_operator", "node_id": "trim", "operator_id": "qc.fastp",
                           "params": {}, "x": 400, "y": 120});
        let connect = |id: &str, from: (&str, &str), to: (&str, &str)| {
            json!({"op": "connect", "edge_id": id, "from_node": from.0, "from_port": from.1,
                   "to_node": to.0, "to_port": to.1})
        };
        match self {
            // `source` needs the empty canvas a pipeline starts from.
            Scenario::Baseline | Scenario::Natural | Scenario::Stale | Scenario::Source => {
                Vec::new()
            }
            Scenario::Data => vec![paired],
            Scenario::Workshop => vec![json!({"op": "add_operator", "node_id": "reads",
                "operator_id": "files.import", "params": {"path": SINGLE_PATH}, "x": 80, "y": 120})],
            Scenario::Metagenomics | Scenario::Resource => vec![
                json!({"op": "add_operator", "node_id": "reads", "operator_id": "files.import",
                       "params": {"path": SINGLE_PATH}, "x": 80, "y": 120}),
                json!({"op": "add_operator", "node_id": "qc", "operator_id": "qc.fastqc",
                       "params": {}, "x": 400, "y": 40}),
                connect("reads-qc", ("reads", "file"), ("qc", "reads")),
            ],
            Scenario::Cancel => vec![
                paired,
                fastp,
                connect("r1", ("reads", "r1"), ("trim", "r1")),
                connect("r2", ("reads", "r2"), ("trim", "r2")),
            ],
            Scenario::Invalid => vec![
                paired,
                json!({"op": "add_operator", "node_id": "qc", "operator_id": "qc.fastqc",
                       "params": {}, "x": 400, "y": 0}),
                fastp,
                connect("reads-qc", ("reads", "r1"), ("qc", "reads")),
            ],
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no scenario.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a scenario (expected one of baseline, natural, stale, metagenomics, resource, cancel, invalid, source, data, workshop)"
)]
pub struct UnknownScenario(pub String);

impl FromStr for Scenario {
    type Err = UnknownScenario;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Scenario::ALL
            .into_iter()
            .find(|scenario| scenario.name() == text)
            .ok_or_else(|| UnknownScenario(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_say_what_exists() {
        for scenario in Scenario::ALL {
            assert_eq!(scenario.name().parse(), Ok(scenario));
            assert_eq!(
                serde_json::to_value(scenario).unwrap(),
                json!(scenario.name())
            );
        }
        let error = "sources".parse::<Scenario>().unwrap_err();
        assert!(error.to_string().contains("baseline, natural"), "{error}");
    }

    #[test]
    fn only_the_baseline_prompts_name_tools() {
        for scenario in Scenario::ALL {
            let names_tools = scenario
                .prompt()
                .contains(somite_api::tools::somite::PREFIX);
            let expected = matches!(scenario, Scenario::Baseline | Scenario::Stale);
            assert_eq!(names_tools, expected, "{scenario}");
        }
    }
}
