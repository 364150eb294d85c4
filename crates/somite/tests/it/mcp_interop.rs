//! Interoperability of `somite mcp somite` with a client nobody on the team
//! wrote: the official Python MCP SDK (`mcp` from PyPI, pinned in
//! `tests/interop/requirements.txt`). The other MCP tests use rmcp, the SDK
//! the server itself is built on, so they cannot catch a misreading both
//! ends share. `tests/interop/somite_mcp_client.py` initializes, lists the
//! tools, checks every input and output schema as JSON Schema 2020-12 with
//! no format its validator does not know (Ajv warns about schemars' `uint64`),
//! reads the workflow, searches, applies a transaction and provokes a
//! stale-revision failure, validating each result against its declared
//! outputSchema; this test runs it against a real runtime and checks its
//! summary. `scripts/setup` creates the venv it runs in.

use serde_json::Value;
use somite_project::{Project, Seed};
use somite_server::config::ServerConfig;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::process::Command;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_python_sdk_lists_calls_and_validates_every_tool() {
    let root = repo_root();
    let python = root.join("target/interop-venv/bin/python");
    assert!(
        python.is_file(),
        "{} is missing: run scripts/setup to create the interop venv \
         (it pip-installs tests/interop/requirements.txt)",
        python.display()
    );

    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    let config = ServerConfig {
        sse_keepalive: Duration::from_secs(5),
        ..ServerConfig::loopback(dir.path(), env!("CARGO_BIN_EXE_somite")).unwrap()
    };
    let server = somite_server::start(&config, project).await.unwrap();
    let (_, capability) = server.state.capabilities.issue();

    // The capability travels by environment only: the script hands it on
    // to the MCP server's environment, never to any argv.
    let run = Command::new(&python)
        .arg(root.join("tests/interop/somite_mcp_client.py"))
        .arg(env!("CARGO_BIN_EXE_somite"))
        .arg(server.url())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env(
            somite_api::EnvVars::SOMITE_MCP_CAPABILITY,
            capability.expose(),
        )
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the Python client finished within 2 minutes")
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python MCP client failed ({}):\n{stderr}\n{stdout}",
        output.status
    );
    let summary: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("no JSON summary ({e}): {stdout}\n{stderr}"));

    assert_eq!(summary["ok"], true, "{summary}");
    assert_eq!(summary["protocol_version"], "2025-11-25", "{summary}");
    assert!(
        summary["sdk"]
            .as_str()
            .is_some_and(|s| s.starts_with("mcp 1.")),
        "{summary}"
    );
    let tools: BTreeSet<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        tools,
        somite_api::tools::somite::ALL.iter().copied().collect(),
        "{summary}"
    );
    assert_eq!(summary["schemas_checked"], 2 * tools.len(), "{summary}");
    assert!(
        !summary["search_matches"].as_array().unwrap().is_empty(),
        "{summary}"
    );
    assert_eq!(summary["failure_code"], "stale_revision", "{summary}");
    for tool in [
        somite_api::tools::somite::SOURCE_WORKFLOW_EDIT,
        somite_api::tools::somite::SOURCE_WORKFLOW_PROMOTE,
    ] {
        let code = summary["source_failure_codes"][tool].as_str();
        assert!(
            code.is_some_and(|code| !code.is_empty()),
            "{tool} answered its refusal in its outputSchema's shape: {summary}"
        );
    }

    // The edit the Python client made went through the runtime's one path.
    let state = server.state.clone();
    let feed = state.feed.since(0);
    assert_eq!(feed.events.len(), 1, "{:?}", feed.events);
    assert_eq!(feed.events[0].data["source"]["kind"], "agent");
    assert_eq!(
        feed.events[0].data["outcome"]["state_revision"], summary["applied_state_revision"],
        "{:?}",
        feed.events[0]
    );
    let everything = format!("{summary}{stderr}{:?}", feed.events);
    assert!(!everything.contains(capability.expose()));
    server.shutdown().await.unwrap();
}
