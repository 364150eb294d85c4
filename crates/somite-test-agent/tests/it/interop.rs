//! Interoperability with an ACP peer nobody on Somite's team wrote: a small
//! agent on the official TypeScript SDK (`@agentclientprotocol/sdk`), run with
//! Node. The SDK is installed with npm into Cargo's per-target temporary
//! directory (inside the git-ignored `target/`) on first use; without `node`
//! and `npm`, or without the npm registry, the test says so and skips.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common::{Harness, config, runner_env};
use somite_acp::events::PermissionResolution;
use somite_acp::permission::{AskReason, PermissionAnswer};
use somite_acp::{
    AgentEnvironment, ConfigValue, EventKind, LaunchCommand, PathSearch, TurnOutcome,
};

const SDK: &str = "@agentclientprotocol/sdk@2.4.0";
const AGENT_SCRIPT: &str = include_str!("interop/ts-sdk-agent.mjs");

/// Installs the SDK (once) and writes the agent beside it; `None` to skip.
fn install_ts_agent() -> Option<PathBuf> {
    let path = PathSearch::new(std::env::var_os("PATH").unwrap_or_default());
    let (Some(_), Some(npm)) = (path.find("node"), path.find("npm")) else {
        somite_test_support::skipped(
            "interop: the TypeScript SDK agent",
            "`node` and `npm` are needed to run it",
        );
        return None;
    };
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("acp-typescript-sdk-2.4.0");
    let installed = directory.join("node_modules/@agentclientprotocol/sdk/package.json");
    if !installed.exists() {
        std::fs::create_dir_all(&directory).expect("install directory");
        let status = Command::new(npm)
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--no-save",
                "--silent",
                "--prefix",
            ])
            .arg(&directory)
            .arg(SDK)
            .stdin(Stdio::null())
            .status();
        if !matches!(status, Ok(status) if status.success()) || !installed.exists() {
            eprintln!(
                "skipping: `npm install {SDK}` failed ({status:?}); is the npm registry reachable?"
            );
            return None;
        }
    }
    let script = directory.join("ts-sdk-agent.mjs");
    std::fs::write(&script, AGENT_SCRIPT).expect("agent script");
    Some(script)
}

#[tokio::test]
async fn a_turn_with_the_typescript_sdk_agent() {
    let Some(script) = install_ts_agent() else {
        return;
    };
    let runner = runner_env(&[]);
    let path = PathSearch::new(&runner["PATH"]);
    let command = LaunchCommand::custom(&["node".to_owned(), script.display().to_string()], &path)
        .expect("node is on PATH");
    let environment = AgentEnvironment::from_runner_env(runner).expect("environment");
    // The TypeScript agent ignores its MCP servers; Somite's policy still
    // knows the Somite server's exact tools.
    let mut harness = Harness::start(config(command, environment));

    let info = harness.ready().await;
    assert_eq!(info.session_id, "ts-session-1");
    assert_eq!(info.agent.name.as_deref(), Some("ts-sdk-agent"));
    harness
        .session()
        .set_config_option("verbose", ConfigValue::Boolean(true))
        .await
        .expect("boolean option set");

    harness.prompt("Inspect the workflow").await;
    let events = harness
        .until(|event| matches!(event, EventKind::PermissionRequested { .. }))
        .await;
    assert!(Harness::said(&events).starts_with("blocks=2;"));
    assert!(events.iter().any(|event| matches!(event,
        EventKind::PermissionResolved { tool_call_id, resolution: PermissionResolution::Policy { .. }, .. }
            if tool_call_id == "ts-1")));
    let Some(EventKind::PermissionRequested { permission }) = events.last() else {
        unreachable!()
    };
    assert_eq!(permission.tool_call.tool_call_id, "ts-2");
    assert!(matches!(
        permission.reason,
        AskReason::NotAllowlisted { .. }
    ));
    harness
        .session()
        .answer_permission(
            permission.id,
            PermissionAnswer::Selected {
                option_id: "no".into(),
            },
        )
        .await
        .expect("answered");

    let (events, outcome, transcript) = harness.turn_end().await;
    assert_eq!(outcome, TurnOutcome::EndTurn);
    assert_eq!(Harness::said(&events), " ts-1:yes ts-2:no verbose=true");
    assert_eq!(transcript.user_message, "Inspect the workflow");
    assert_eq!(transcript.tool_calls.len(), 2);
    assert!(matches!(
        transcript.tool_calls[1].permissions[0].resolution,
        PermissionResolution::User { .. }
    ));
    let report = harness.disconnect().await;
    assert!(report.is_clean(), "{report:?}");
}
