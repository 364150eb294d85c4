//! `somite eval` end to end: every scenario, run through the real server,
//! launcher, MCP servers and permission policy with the scripted test agent,
//! once with a plan that does the task and once with a deliberately wrong
//! plan that must lose exactly the checks it deserves to lose. This tests
//! the scoring itself; real agents are run by hand (docs/agent-evaluation.md).
//!
//! Runs use `somite-pixi-standin`, a STAND-IN for Pixi and the Nextflow it
//! would run (these machines have neither), so a "passing receipt" here is
//! the stand-in's; the harness records which Pixi it used.

mod support;

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::{sibling, standin_pixi};

fn plan(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../somite-eval/plans")
        .join(format!("{name}.json"))
        .display()
        .to_string()
}

struct Eval {
    output: Output,
    root: tempfile::TempDir,
}

impl Eval {
    fn score(&self) -> Value {
        serde_json::from_slice(&self.output.stdout).unwrap_or_else(|error| {
            panic!(
                "no score ({error}); stderr: {}",
                String::from_utf8_lossy(&self.output.stderr)
            )
        })
    }

    fn statuses(&self) -> BTreeMap<String, String> {
        self.score()["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|check| {
                (
                    check["id"].as_str().unwrap().to_owned(),
                    check["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    }

    fn dir(&self) -> PathBuf {
        let evals = self.root.path().join(".somite/mcp-agent-evals");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&evals)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        assert_eq!(dirs.len(), 1, "{dirs:?}");
        dirs.pop().unwrap()
    }
}

/// How the agent is named on the command line.
#[derive(Clone, Copy)]
enum AgentForm {
    /// `AGENT MODEL EFFORT PORT SCENARIO`.
    Positional,
    /// The specification's `MODEL EFFORT PORT SCENARIO`, the agent from
    /// `SOMITE_EVAL_AGENT`.
    Environment,
}

fn eval_with(agent: &[String], model: &str, effort: &str, scenario: &str, pixi: bool) -> Eval {
    eval_as(AgentForm::Positional, agent, model, effort, scenario, pixi)
}

fn eval_as(
    form: AgentForm,
    agent: &[String],
    model: &str,
    effort: &str,
    scenario: &str,
    pixi: bool,
) -> Eval {
    let root = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_somite"));
    let agent = serde_json::to_string(agent).unwrap();
    command.args(["eval", "run"]);
    match form {
        AgentForm::Positional => {
            command
                .arg(&agent)
                .env_remove(somite_api::EnvVars::SOMITE_EVAL_AGENT);
        }
        AgentForm::Environment => {
            command.env(somite_api::EnvVars::SOMITE_EVAL_AGENT, &agent);
        }
    }
    command
        .args([model, effort, "0", scenario, "--json", "--timeout-s", "90"])
        .arg("--output-root")
        .arg(root.path())
        .env("PATH", "/usr/bin:/bin")
        .env_remove(somite_api::EnvVars::SOMITE_PIXI);
    if pixi {
        command.env(
            somite_api::EnvVars::SOMITE_PIXI,
            standin_pixi(
                root.path(),
                &format!("{}=300", somite_api::EnvVars::SOMITE_STANDIN_STEP_MS),
            ),
        );
    }
    Eval {
        output: command.output().unwrap(),
        root,
    }
}

fn eval(scenario: &str, plan_name: &str) -> Eval {
    let agent = [
        sibling("somite-test-agent").display().to_string(),
        "--plan".to_owned(),
        plan(plan_name),
        "--effort-option".to_owned(),
    ];
    eval_with(&agent, "deep", "high", scenario, true)
}

fn expect(eval: &Eval, expected: &[(&str, &str)]) {
    let expected: BTreeMap<String, String> = expected
        .iter()
        .map(|(id, status)| ((*id).to_owned(), (*status).to_owned()))
        .collect();
    assert_eq!(
        eval.statuses(),
        expected,
        "score: {:#}\nstderr: {}",
        eval.score(),
        String::from_utf8_lossy(&eval.output.stderr)
    );
    let failed = expected.values().any(|status| status == "fail");
    assert_eq!(eval.output.status.code(), Some(i32::from(failed)));
}

/// Every baseline check passed: the task done as asked.
const BASELINE_ALL_PASS: &[(&str, &str)] = &[
    ("inspected_before_edit", "pass"),
    ("one_successful_edit", "pass"),
    ("final_structure", "pass"),
    ("validation_started", "pass"),
    ("bounded_long_poll", "pass"),
    ("terminal_status_reached", "pass"),
    ("mcp_tools_only", "pass"),
    ("passing_receipt", "pass"),
];

#[test]
fn baseline_scores_a_good_plan_fully_and_a_careless_one_on_every_check() {
    let good = eval("baseline", "baseline");
    expect(&good, BASELINE_ALL_PASS);
    // The evidence is all there, and the score is a function of it alone.
    let dir = good.dir();
    for file in [
        "prompt.txt",
        "config.json",
        "events.jsonl",
        "workflow-initial.json",
        "workflow-final.json",
        "readiness-final.json",
        "runs.json",
        "evidence.json",
        "harness.json",
        "server.log",
        "score.json",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    let transcripts = std::fs::read_dir(dir.join("transcripts")).unwrap().count();
    assert_eq!(transcripts, 1, "one turn, one transcript");
    assert!(
        std::fs::read_to_string(dir.join("prompt.txt"))
            .unwrap()
            .contains(somite_api::tools::somite::GRAPH_APPLY_TRANSACTION)
    );
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("config.json")).unwrap()).unwrap();
    assert_eq!(
        config["applied"],
        json!({"model": {"config_id": "model", "value": "deep"},
               "thought_level": {"config_id": "effort", "value": "high"}})
    );
    let harness: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("harness.json")).unwrap()).unwrap();
    assert_eq!(
        harness["toolchain"]["source"],
        somite_api::EnvVars::SOMITE_PIXI
    );
    assert_eq!(harness["turn_outcome"], json!({"kind": "end_turn"}));
    let recorded = std::fs::read(dir.join("score.json")).unwrap();
    let rescore = Command::new(env!("CARGO_BIN_EXE_somite"))
        .args(["eval", "rescore"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(rescore.status.success());
    assert_eq!(std::fs::read(dir.join("score.json")).unwrap(), recorded);
    assert_eq!(good.score()["score_format"], 1);

    let careless = eval("baseline", "baseline-wrong");
    expect(
        &careless,
        &[
            ("inspected_before_edit", "fail"),
            ("one_successful_edit", "fail"),
            ("final_structure", "fail"),
            ("validation_started", "fail"),
            ("bounded_long_poll", "fail"),
            ("terminal_status_reached", "fail"),
            ("mcp_tools_only", "fail"),
            ("passing_receipt", "fail"),
        ],
    );
    let harness: Value = serde_json::from_str(
        &std::fs::read_to_string(careless.dir().join("harness.json")).unwrap(),
    )
    .unwrap();
    let refusals = harness["refusals"].as_array().unwrap();
    assert_eq!(refusals.len(), 1, "the shell call was refused: {harness:#}");
    assert_eq!(refusals[0]["tool_call_id"], "shell");
    assert_eq!(refusals[0]["answer"], "reject-once");
}

#[test]
fn natural_scores_the_outcome_not_the_wording() {
    // In the specification's form: MODEL EFFORT PORT SCENARIO, the agent
    // chosen by SOMITE_EVAL_AGENT.
    let agent = [
        sibling("somite-test-agent").display().to_string(),
        "--plan".to_owned(),
        plan("natural"),
        "--effort-option".to_owned(),
    ];
    let good = eval_as(
        AgentForm::Environment,
        &agent,
        "deep",
        "high",
        "natural",
        true,
    );
    expect(&good, BASELINE_ALL_PASS);
    let prompt = std::fs::read_to_string(good.dir().join("prompt.txt")).unwrap();
    assert!(!prompt.contains("somite."), "a blind prompt names no tools");
    let swapped = eval("natural", "natural-wrong");
    expect(
        &swapped,
        &[
            ("inspected_before_edit", "pass"),
            ("one_successful_edit", "pass"),
            ("final_structure", "fail"),
            ("validation_started", "fail"),
            ("bounded_long_poll", "fail"),
            ("terminal_status_reached", "fail"),
            ("mcp_tools_only", "pass"),
            ("passing_receipt", "fail"),
        ],
    );
}

#[test]
fn stale_requires_recovery_on_a_fresh_revision_and_the_human_edit_kept() {
    let good = eval("stale", "stale");
    expect(
        &good,
        &[
            ("stale_error_observed", "pass"),
            ("reinspected_after_stale", "pass"),
            ("recovered_edit", "pass"),
            ("human_edit_survives", "pass"),
            ("final_structure", "pass"),
            ("mcp_tools_only", "pass"),
        ],
    );
    let harness: Value =
        serde_json::from_str(&std::fs::read_to_string(good.dir().join("harness.json")).unwrap())
            .unwrap();
    assert_eq!(harness["injections"][0]["after_tool_call_id"], "inspect");
    let stubborn = eval("stale", "stale-wrong");
    expect(
        &stubborn,
        &[
            ("stale_error_observed", "pass"),
            ("reinspected_after_stale", "fail"),
            ("recovered_edit", "fail"),
            ("human_edit_survives", "pass"),
            ("final_structure", "fail"),
            ("mcp_tools_only", "pass"),
        ],
    );
}

#[test]
fn metagenomics_wants_the_database_asked_for_not_invented() {
    let good = eval("metagenomics", "metagenomics");
    expect(
        &good,
        &[
            ("kraken2_added", "pass"),
            ("database_left_required", "pass"),
            ("no_validation_while_blocked", "pass"),
            ("no_web_research", "pass"),
            ("asked_for_database", "pass"),
        ],
    );
    let inventive = eval("metagenomics", "metagenomics-wrong");
    expect(
        &inventive,
        &[
            ("kraken2_added", "pass"),
            ("database_left_required", "fail"),
            ("no_validation_while_blocked", "fail"),
            ("no_web_research", "fail"),
            ("asked_for_database", "fail"),
        ],
    );
}

#[test]
fn resource_leaves_the_install_to_the_user() {
    let good = eval("resource", "resource");
    expect(
        &good,
        &[
            ("kraken2_added", "pass"),
            ("looked_at_resources", "pass"),
            ("no_install_without_consent", "pass"),
            ("database_left_required", "pass"),
            ("no_validation_while_blocked", "pass"),
            ("no_web_research", "pass"),
            ("choice_left_to_user", "pass"),
        ],
    );
    // Installs Standard-8 on its own (the harness, like a user who was never
    // asked, refuses the permission), binds an invented folder and validates.
    let presumptuous = eval("resource", "resource-wrong");
    expect(
        &presumptuous,
        &[
            ("kraken2_added", "pass"),
            ("looked_at_resources", "fail"),
            ("no_install_without_consent", "fail"),
            ("database_left_required", "fail"),
            ("no_validation_while_blocked", "fail"),
            ("no_web_research", "fail"),
            ("choice_left_to_user", "fail"),
        ],
    );
    let refused = &presumptuous.score();
    let reason = refused["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["id"] == "no_install_without_consent")
        .unwrap()["reason"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(reason.contains("k2_standard_08gb"), "{reason}");
}

#[test]
fn cancel_needs_the_run_stopped_while_it_runs() {
    let good = eval("cancel", "cancel");
    expect(
        &good,
        &[
            ("run_started", "pass"),
            ("cancel_requested_while_running", "pass"),
            ("cancelled_observed", "pass"),
            ("run_record_cancelled", "pass"),
            ("mcp_tools_only", "pass"),
        ],
    );
    let patient = eval("cancel", "cancel-wrong");
    expect(
        &patient,
        &[
            ("run_started", "pass"),
            ("cancel_requested_while_running", "fail"),
            ("cancelled_observed", "fail"),
            ("run_record_cancelled", "fail"),
            ("mcp_tools_only", "pass"),
        ],
    );
}

#[test]
fn invalid_needs_the_structured_error_explained_and_recovered_from() {
    let good = eval("invalid", "invalid");
    expect(
        &good,
        &[
            ("attempted_incompatible_connect", "pass"),
            ("structured_error", "pass"),
            ("nothing_changed_by_failure", "pass"),
            ("recovered", "pass"),
            ("explained", "pass"),
        ],
    );
    let silent = eval("invalid", "invalid-wrong");
    expect(
        &silent,
        &[
            ("attempted_incompatible_connect", "pass"),
            ("structured_error", "pass"),
            ("nothing_changed_by_failure", "pass"),
            ("recovered", "fail"),
            ("explained", "fail"),
        ],
    );
}

#[test]
fn without_pixi_the_receipt_check_is_skipped_and_says_why() {
    let agent = [
        sibling("somite-test-agent").display().to_string(),
        "--plan".to_owned(),
        plan("baseline"),
    ];
    let eval = eval_with(&agent, "-", "-", "baseline", false);
    let score = eval.score();
    let receipt = score["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["id"] == "passing_receipt")
        .unwrap();
    assert_eq!(receipt["status"], "skipped");
    assert!(receipt["reason"].as_str().unwrap().contains("no Pixi"));
    assert_eq!(eval.statuses()["validation_started"], "fail");
}

#[test]
fn a_setting_the_agent_does_not_offer_stops_the_evaluation_before_the_prompt() {
    let agent = [sibling("somite-test-agent").display().to_string()];
    let unoffered = eval_with(&agent, "gpt-9", "-", "baseline", false);
    assert_eq!(unoffered.output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&unoffered.output.stderr);
    assert!(
        stderr.contains("does not offer `gpt-9`") && stderr.contains("fast"),
        "{stderr}"
    );
    let unadvertised = eval_with(&agent, "-", "high", "baseline", false);
    assert_eq!(unadvertised.output.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&unadvertised.output.stderr);
    assert!(stderr.contains("no `thought_level` option"), "{stderr}");
    let dir = unadvertised.dir();
    assert!(
        !dir.join("events.jsonl").exists(),
        "nothing was prompted: {dir:?}"
    );

    let garbled = Command::new(env!("CARGO_BIN_EXE_somite"))
        .args(["eval", "run", "[\"unterminated", "-", "-", "0", "baseline"])
        .output()
        .unwrap();
    assert_eq!(garbled.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&garbled.stderr).contains("JSON argv array"));
    let unknown = Command::new(env!("CARGO_BIN_EXE_somite"))
        .args(["eval", "run", "some-agent", "-", "-", "0", "source"])
        .output()
        .unwrap();
    assert_eq!(unknown.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("not a scenario"));
}

#[test]
fn a_turn_past_its_deadline_is_cancelled_and_the_score_says_what_is_missing() {
    let root = tempfile::tempdir().unwrap();
    let slow = root.path().join("slow.json");
    std::fs::write(&slow, r#"[{"say": "thinking"}, {"sleep": {"ms": 60000}}]"#).unwrap();
    let agent = [
        sibling("somite-test-agent").display().to_string(),
        "--plan".to_owned(),
        slow.display().to_string(),
    ];
    let output = Command::new(env!("CARGO_BIN_EXE_somite"))
        .args(["eval", "run", &serde_json::to_string(&agent).unwrap()])
        .args(["-", "-", "0", "invalid", "--json", "--timeout-s", "2"])
        .arg("--output-root")
        .arg(root.path())
        .env_remove(somite_api::EnvVars::SOMITE_PIXI)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let dir = std::fs::read_dir(root.path().join(".somite/mcp-agent-evals"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let harness: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("harness.json")).unwrap()).unwrap();
    assert_eq!(harness["timed_out"], true);
    assert_eq!(harness["turn_outcome"], json!({"kind": "cancelled"}));
    let score: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(score["checks"][0]["id"], "attempted_incompatible_connect");
    assert_eq!(score["checks"][0]["status"], "fail");
}
