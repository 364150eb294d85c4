//! The by-hand verbs: human output, `--json`, and exit codes that tell a
//! usage error (2) from rejected input (1).

use serde_json::{Value, json};
use std::process::{Command, Output};

fn somite(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_somite"))
        .args(args)
        .output()
        .unwrap()
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}

#[test]
fn catalog_search_ranks_and_pages() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().to_str().unwrap();
    let out = somite(&[
        "catalog",
        "search",
        "kraken2",
        "--json",
        "--project",
        project,
    ]);
    assert!(out.status.success());
    let page = json_of(&out);
    assert_eq!(page["matches"][0]["id"], "class.kraken2");
    let human = somite(&[
        "catalog",
        "search",
        "align reads",
        "--limit",
        "2",
        "--project",
        project,
    ]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains("match(es)") && text.contains("more: --cursor"),
        "{text}"
    );
    let bad = somite(&["catalog", "search", "", "--project", project]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("invalid_query"));
}

#[test]
fn graph_apply_show_and_assess_work_together() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().to_str().unwrap();
    let shown = json_of(&somite(&["graph", "show", "--json", "--project", project]));
    let base = shown["state_revision"].as_str().unwrap();
    let txn = json!({
        "base_state_revision": base, "idempotency_key": "cli-edit-0001", "summary": "Add reads and QC",
        "operations": [
            {"op": "add_operator", "node_id": "reads", "operator_id": "files.import", "params": {"path": "reads.fastq"}, "x": 80, "y": 120},
            {"op": "add_operator", "node_id": "qc", "operator_id": "qc.fastqc", "x": 380, "y": 120},
            {"op": "connect", "edge_id": "reads-to-qc", "from_node": "reads", "from_port": "file", "to_node": "qc", "to_port": "reads"}
        ]
    });
    let file = dir.path().join("edit.json");
    std::fs::write(&file, txn.to_string()).unwrap();
    let applied = somite(&[
        "graph",
        "apply",
        file.to_str().unwrap(),
        "--json",
        "--project",
        project,
    ]);
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stdout)
    );
    let outcome = json_of(&applied);
    assert_eq!(outcome["previous_state_revision"], base);

    let again = json_of(&somite(&[
        "graph",
        "apply",
        file.to_str().unwrap(),
        "--json",
        "--project",
        project,
    ]));
    assert_eq!(again["replayed"], true);

    let shown = somite(&["graph", "show", "--project", project]);
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        text.contains("reads-to-qc") && text.contains(outcome["state_revision"].as_str().unwrap()),
        "{text}"
    );

    let assessed = json_of(&somite(&["assess", "--json", "--project", project]));
    assert_eq!(
        assessed["state"], "needs_action",
        "reads.fastq does not exist"
    );
    std::fs::write(dir.path().join("reads.fastq"), "@r\nACGT\n+\nIIII\n").unwrap();
    let assessed = json_of(&somite(&["assess", "--json", "--project", project]));
    assert_eq!(assessed["state"], "ready", "{assessed}");

    let stale = somite(&["graph", "apply", "-", "--json", "--project", project]);
    assert_eq!(
        stale.status.code(),
        Some(1),
        "an empty stdin is rejected input"
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(somite(&["graph", "frobnicate"]).status.code(), Some(2));
    assert_eq!(somite(&["catalog"]).status.code(), Some(2));
}

#[test]
fn graph_save_and_import_move_a_workflow_between_projects() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let file = a.path().join("flow.somite.json");
    let txn = json!({"base_state_revision": json_of(&somite(&["graph", "show", "--json", "--project", a.path().to_str().unwrap()]))["state_revision"],
        "idempotency_key": "cli-edit-0002", "summary": "s",
        "operations": [{"op": "add_operator", "node_id": "reads", "operator_id": "files.import", "x": 0, "y": 0}]});
    let edit = a.path().join("edit.json");
    std::fs::write(&edit, txn.to_string()).unwrap();
    assert!(
        somite(&[
            "graph",
            "apply",
            edit.to_str().unwrap(),
            "--project",
            a.path().to_str().unwrap()
        ])
        .status
        .success()
    );
    let saved = json_of(&somite(&[
        "graph",
        "save",
        file.to_str().unwrap(),
        "--json",
        "--project",
        a.path().to_str().unwrap(),
    ]));
    let imported = json_of(&somite(&[
        "graph",
        "import",
        file.to_str().unwrap(),
        "--json",
        "--project",
        b.path().to_str().unwrap(),
    ]));
    assert_eq!(imported["graph_revision"], saved["graph_revision"]);
    let missing = somite(&[
        "graph",
        "import",
        "/nonexistent.somite.json",
        "--project",
        b.path().to_str().unwrap(),
    ]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not_found"));
}

#[test]
fn readiness_notes_a_missing_pixi_only_and_honours_somite_pixi() {
    let dir = tempfile::tempdir().unwrap();
    let assess = |pixi: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_somite"));
        command
            .args(["assess", "--json", "--project"])
            .arg(dir.path())
            .env("PATH", "/nonexistent")
            .env_remove(somite_api::EnvVars::SOMITE_PIXI);
        if let Some(pixi) = pixi {
            command.env(somite_api::EnvVars::SOMITE_PIXI, pixi);
        }
        command.output().unwrap()
    };
    let toolchain_items = |output: &Output| -> Vec<Value> {
        json_of(output)["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|item| item["kind"] == "toolchain")
            .map(|item| item["id"].clone())
            .collect()
    };
    // Nextflow comes from each package's frozen Pixi environment, so only
    // a missing Pixi is worth a note.
    let without = assess(None);
    assert!(without.status.success());
    assert_eq!(toolchain_items(&without), vec![json!("toolchain:pixi")]);
    let with = assess(Some("/bin/true"));
    assert!(with.status.success());
    assert!(toolchain_items(&with).is_empty());
    let invalid = assess(Some("pixi"));
    assert_eq!(invalid.status.code(), Some(1));
    let error = json_of(&invalid);
    assert_eq!(error["code"], "invalid_request");
    assert!(error["message"].as_str().unwrap().contains(&format!(
        "{}=\"pixi\" is invalid",
        somite_api::EnvVars::SOMITE_PIXI
    )));
}

#[test]
fn operator_prove_runs_one_task_with_the_real_tool_and_says_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().to_str().unwrap();
    let kind = somite_runner::proof::PROOF_KIND;
    let out = somite(&[
        "operator",
        "prove",
        "ref.samtools_faidx",
        "--json",
        "--work",
        work,
    ]);
    let proof = json_of(&out);
    assert!(out.status.success(), "{proof}");
    assert_eq!(proof["kind"], kind);
    assert_eq!(proof["passed"], true);
    assert_eq!(proof["tool"], "samtools");
    assert_eq!(proof["outputs"][0]["port"], "fai");
    assert_eq!(proof["outputs"][0]["appeared"], true);
    assert!(
        proof["script_digest"]
            .as_str()
            .unwrap()
            .starts_with("blake3:")
    );

    let human = somite(&["operator", "prove", "ref.samtools_faidx", "--work", work]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains(&format!("proven ({kind})")), "{text}");

    let declared = somite(&["operator", "prove", "qc.busco", "--json", "--work", work]);
    assert_eq!(declared.status.code(), Some(1));
    let error = json_of(&declared);
    assert_eq!(error["code"], "toolchain_missing");
    assert!(
        error["details"]["reason"]
            .as_str()
            .unwrap()
            .contains("lineage")
    );

    let unknown = somite(&["operator", "prove", "files.import", "--work", work]);
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown_operator"));
}
