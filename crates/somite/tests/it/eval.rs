//! `somite eval` end to end: every scenario, run through the real server,
//! launcher, MCP servers and permission policy with the scripted test agent,
//! once with a plan that does the task and once with a deliberately wrong
//! plan that must lose exactly the checks it deserves to lose. This tests
//! the scoring itself; real agents are run by hand (docs/agent-evaluation.md).
//!
//! Runs use `somite-pixi-standin`, a STAND-IN for Pixi and the Nextflow it
//! would run (these machines have neither), so a "passing receipt" here is
//! the stand-in's; the harness records which Pixi it used.

use crate::support::{sibling, standin_pixi};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

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
    eval_in_env(form, agent, model, effort, scenario, pixi, &[])
}

/// An evaluation whose runtime sees `env` besides the usual (provider
/// base URLs of loopback stand-ins, a private user cache).
fn eval_in_env(
    form: AgentForm,
    agent: &[String],
    model: &str,
    effort: &str,
    scenario: &str,
    pixi: bool,
    env: &[(String, String)],
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
        .env_remove(somite_api::EnvVars::SOMITE_PIXI)
        .envs(env.iter().map(|(name, value)| (name, value)));
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

/// [`eval`] with the runtime pointed at providers through `env`, run off
/// the async test's runtime (which serves the stand-ins).
async fn eval_with_providers(scenario: &str, plan_name: &str, env: Vec<(String, String)>) -> Eval {
    let agent = [
        sibling("somite-test-agent").display().to_string(),
        "--plan".to_owned(),
        plan(plan_name),
        "--effort-option".to_owned(),
    ];
    let scenario = scenario.to_owned();
    tokio::task::spawn_blocking(move || {
        eval_in_env(
            AgentForm::Positional,
            &agent,
            "deep",
            "high",
            &scenario,
            true,
            &env,
        )
    })
    .await
    .unwrap()
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
        .args(["eval", "run", "some-agent", "-", "-", "0", "sources"])
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn source_wants_the_latest_release_pinned_on_the_empty_canvas_and_its_params_valid() {
    let standin = crate::standin::StandIn::start().await;
    let cache = tempfile::tempdir().unwrap();
    let env = vec![
        (
            somite_api::EnvVars::SOMITE_NFCORE_PIPELINES_URL.to_owned(),
            format!("{}/pipelines.json", standin.base),
        ),
        (
            somite_api::EnvVars::SOMITE_GITHUB_API_URL.to_owned(),
            standin.base.clone(),
        ),
        (
            "XDG_CACHE_HOME".to_owned(),
            cache.path().display().to_string(),
        ),
    ];
    let good = eval_with_providers("source", "source", env.clone()).await;
    expect(
        &good,
        &[
            ("searched_nfcore", "pass"),
            ("resolved_on_empty_canvas", "pass"),
            ("pinned_latest_release", "pass"),
            ("required_params_set", "pass"),
            ("params_within_schema", "pass"),
            ("ready_to_run", "pass"),
            ("mcp_tools_only", "pass"),
        ],
    );
    // Fills the canvas first (refused), then pins the moving `master`
    // branch and sends a samplesheet the schema's pattern forbids.
    let careless = eval_with_providers("source", "source-wrong", env).await;
    expect(
        &careless,
        &[
            ("searched_nfcore", "fail"),
            ("resolved_on_empty_canvas", "fail"),
            ("pinned_latest_release", "fail"),
            ("required_params_set", "fail"),
            ("params_within_schema", "fail"),
            ("ready_to_run", "fail"),
            ("mcp_tools_only", "pass"),
        ],
    );
}

/// A loopback stand-in of NCBI Datasets and Ensembl serving `somite-data`'s
/// committed fixtures for a free-text search of human assemblies (the
/// paths their real bases have: `/datasets/v2`, `/rest`, `/pub`).
async fn data_standin() -> String {
    use axum::http::{StatusCode, Uri};
    use axum::response::IntoResponse;
    async fn answer(uri: Uri) -> axum::response::Response {
        let name = match uri.path() {
            "/datasets/v2/genome/taxon/human/dataset_report" => "datasets_genome_taxon_1.json",
            "/datasets/v2/taxonomy/taxon/9606/dataset_report" => "datasets_taxonomy.json",
            "/rest/info/data" => "ensembl_info_data.json",
            "/rest/info/species" => "ensembl_info_species.json",
            "/rest/info/assembly/homo_sapiens" => "ensembl_info_assembly.json",
            "/pub/release-115/fasta/homo_sapiens/dna/CHECKSUMS" => "ftp_fasta_CHECKSUMS",
            "/pub/release-115/gtf/homo_sapiens/CHECKSUMS" => "ftp_gtf_CHECKSUMS",
            _ => return StatusCode::NOT_FOUND.into_response(),
        };
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../somite-data/tests/it/fixtures"
        );
        std::fs::read(format!("{path}/{name}"))
            .unwrap()
            .into_response()
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let app = axum::Router::new().fallback(answer);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn data_wants_the_reference_recipe_applied_unchanged_with_its_provenance() {
    let base = data_standin().await;
    let cache = tempfile::tempdir().unwrap();
    let env: Vec<(String, String)> = [
        (
            somite_api::EnvVars::SOMITE_NCBI_DATASETS_URL,
            format!("{base}/datasets/v2"),
        ),
        (
            somite_api::EnvVars::SOMITE_NCBI_EUTILS_URL,
            format!("{base}/entrez/eutils"),
        ),
        (
            somite_api::EnvVars::SOMITE_ENSEMBL_REST_URL,
            format!("{base}/rest"),
        ),
        (
            somite_api::EnvVars::SOMITE_ENSEMBL_FTP_URL,
            format!("{base}/pub"),
        ),
        ("XDG_CACHE_HOME", cache.path().display().to_string()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_owned(), value))
    .collect();
    let good = eval_with_providers("data", "data", env.clone()).await;
    expect(
        &good,
        &[
            ("searched_public_data", "pass"),
            ("recipe_applied_unchanged", "pass"),
            ("current_reference_chosen", "pass"),
            ("placed_in_one_edit", "pass"),
            ("provenance_reported", "pass"),
            ("no_web_research", "pass"),
        ],
    );
    // Asks the web, then places an older accession by hand in two edits.
    let inventive = eval_with_providers("data", "data-wrong", env).await;
    expect(
        &inventive,
        &[
            ("searched_public_data", "pass"),
            ("recipe_applied_unchanged", "fail"),
            ("current_reference_chosen", "fail"),
            ("placed_in_one_edit", "fail"),
            ("provenance_reported", "fail"),
            ("no_web_research", "fail"),
        ],
    );
}

#[test]
fn workshop_wants_a_proven_candidate_and_acceptance_left_to_the_user() {
    let good = eval("workshop", "workshop");
    expect(
        &good,
        &[
            ("looked_in_catalog", "pass"),
            ("drafted_project_candidate", "pass"),
            ("proof_bound_to_candidate", "pass"),
            ("proof_passed", "pass"),
            ("never_accepted", "pass"),
            ("no_invented_operator", "pass"),
            ("acceptance_left_to_user", "pass"),
        ],
    );
    // Invents a catalog id, drafts, then tries to accept its own candidate.
    let presumptuous = eval("workshop", "workshop-wrong");
    expect(
        &presumptuous,
        &[
            ("looked_in_catalog", "fail"),
            ("drafted_project_candidate", "pass"),
            ("proof_bound_to_candidate", "fail"),
            ("proof_passed", "fail"),
            ("never_accepted", "fail"),
            ("no_invented_operator", "fail"),
            ("acceptance_left_to_user", "fail"),
        ],
    );
}
