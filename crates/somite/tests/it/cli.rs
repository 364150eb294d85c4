//! The by-hand verbs: human output, `--json`, exit codes that tell a
//! usage error (2) from rejected input (1), and how a refusal reads
//! (snapshots of the rendered text).

use crate::support;
use serde_json::{Value, json};
use std::path::Path;
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
    // The requirement says what it was derived from, in JSON and in text.
    let evidence = &assessed["items"][0]["evidence"];
    assert_eq!(
        evidence["contract"]["field"], "ports.out[0].import_param",
        "{evidence}"
    );
    assert_eq!(
        evidence["contract"]["source"]["file"],
        "operators/files.import.toml"
    );
    assert_eq!(
        evidence["file"],
        json!({"path": "reads.fastq", "found": false})
    );
    let text = somite(&["assess", "--project", project]);
    let text = String::from_utf8_lossy(&text.stdout);
    let line = evidence["contract"]["source"]["line"].as_u64().unwrap();
    assert!(
        text.contains(&format!(
            "why: contract files.import {} field `ports.out[0].import_param` (operators/files.import.toml:{line})",
            evidence["contract"]["operator_revision"].as_str().unwrap()
        )) && text.contains("why: file reads.fastq not found"),
        "{text}"
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

/// The text a person sees for a refused command: stderr, with nothing on
/// stdout, exit 1, no colour (stderr is not a terminal), and each of
/// `places` (temporary folders, a server's URL) replaced by its name.
fn refusal(output: &Output, places: &[(&str, &str)]) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        output.stdout.is_empty(),
        "a refusal prints nothing on stdout"
    );
    assert!(
        !stderr.contains('\u{1b}'),
        "no colour off a terminal: {stderr:?}"
    );
    let mut text: String = stderr
        .lines()
        .map(|line| format!("{}\n", line.trim_end()))
        .collect();
    for (place, name) in places {
        text = text.replace(place, name);
    }
    text
}

fn path(dir: &Path) -> &str {
    dir.to_str().unwrap()
}

#[test]
fn a_stale_edit_reads_as_code_message_details_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let edit = dir.path().join("edit.json");
    let txn = json!({
        "base_state_revision": format!("blake3:{}", "0".repeat(64)),
        "idempotency_key": "cli-stale-0001", "summary": "s",
        "operations": [{"op": "add_operator", "node_id": "reads", "operator_id": "files.import", "x": 0, "y": 0}]
    });
    std::fs::write(&edit, txn.to_string()).unwrap();
    let out = somite(&["graph", "apply", path(&edit), "--project", path(dir.path())]);
    insta::assert_snapshot!("stale_revision", refusal(&out, &[]));
}

#[test]
fn an_unknown_operator_reads_as_code_message_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = somite(&[
        "operator",
        "prove",
        "nope.nothing",
        "--work",
        path(dir.path()),
    ]);
    insta::assert_snapshot!("unknown_operator", refusal(&out, &[]));
}

#[test]
fn an_invalid_document_reads_as_code_message_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let document = dir.path().join("broken.somite.json");
    std::fs::write(&document, "{\"format\": ").unwrap();
    let out = somite(&[
        "graph",
        "import",
        path(&document),
        "--project",
        path(dir.path()),
    ]);
    insta::assert_snapshot!("invalid_document", refusal(&out, &[]));
}

#[test]
fn an_io_failure_reads_as_code_message_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let not_a_folder = dir.path().join("a-file");
    std::fs::write(&not_a_folder, "").unwrap();
    let out = somite(&["graph", "show", "--project", path(&not_a_folder)]);
    insta::assert_snapshot!("io_error", refusal(&out, &[(path(dir.path()), "[TMP]")]));
}

#[test]
fn a_project_in_use_names_the_server_holding_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = support::ServeChild::start(dir.path(), |_| {});
    let document = dir.path().join("flow.somite.json");
    let saved = somite(&[
        "graph",
        "save",
        path(&document),
        "--project",
        path(dir.path()),
    ]);
    assert!(saved.status.success());
    let out = somite(&[
        "graph",
        "import",
        path(&document),
        "--project",
        path(dir.path()),
    ]);
    let announced: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(".somite/server.json")).unwrap())
            .unwrap();
    let pid = format!("process {}", announced["pid"]);
    insta::assert_snapshot!(
        "project_in_use",
        refusal(&out, &[(&server.url, "[SERVER]"), (&pid, "process [PID]")])
    );
    let json = somite(&[
        "graph",
        "import",
        path(&document),
        "--json",
        "--project",
        path(dir.path()),
    ]);
    assert_eq!(json.status.code(), Some(1));
    assert!(json.stderr.is_empty(), "--json puts the envelope on stdout");
    assert_eq!(json_of(&json)["code"], "project_in_use");
}

/// `somite data search` without a runtime: refusals as envelopes, the
/// provider named, nothing fetched from the real hosts (the bases point at
/// a closed loopback port).
#[test]
fn data_search_refuses_with_envelopes() {
    let cache = tempfile::tempdir().unwrap();
    let data = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_somite"))
            .args(args)
            .env("XDG_CACHE_HOME", cache.path())
            .env("SOMITE_NCBI_DATASETS_URL", "http://127.0.0.1:9/datasets/v2")
            .env("SOMITE_NCBI_EUTILS_URL", "http://127.0.0.1:9/eutils")
            .env("SOMITE_ENSEMBL_REST_URL", "http://127.0.0.1:9/rest")
            .env("SOMITE_ENSEMBL_FTP_URL", "http://127.0.0.1:9/pub")
            .env("NCBI_API_KEY", "cli-secret-key")
            .output()
            .unwrap()
    };
    let ambiguous = data(&["data", "search", "9606", "--json"]);
    assert_eq!(ambiguous.status.code(), Some(1));
    assert_eq!(json_of(&ambiguous)["code"], "invalid_query");

    let down = data(&["data", "search", "GCF_000001405.40", "--json"]);
    assert_eq!(down.status.code(), Some(1));
    let envelope = json_of(&down);
    assert_eq!(envelope["code"], "source_unavailable");
    assert_eq!(envelope["details"]["provider"], "ncbi_datasets");
    let everything = format!(
        "{}{}",
        String::from_utf8_lossy(&down.stdout),
        String::from_utf8_lossy(&down.stderr)
    );
    assert!(!everything.contains("cli-secret-key"), "{everything}");

    let bad_kind = data(&["data", "search", "x", "--kind", "genome"]);
    assert_eq!(bad_kind.status.code(), Some(2), "a usage error");
}
