//! The whole loop, for real: Somite's ACP client spawns the scripted test
//! agent, which connects to the Somite MCP test double and follows the plan
//! in each prompt.

use std::time::Duration;

use crate::common::{CAPABILITY, Harness, config, runner_env, somite_mcp, test_agent};
use serde_json::json;
use somite_acp::contract::WORKFLOW_CONTRACT;
use somite_acp::events::{
    ConfigControl, EndReason, LoginKind, PermissionResolution, StopEscalation, ToolStatus,
    WorkspaceRemoval,
};
use somite_acp::permission::{AskReason, PermissionAnswer, ToolIdentity};
use somite_acp::transcript::TimelineEntry;
use somite_acp::{
    AgentEnvironment, AgentSession, AgentWorkspace, ConfigValue, EventKind, Generation,
    McpServerRole, PermissionId, SessionError, SpawnError, TurnOutcome,
};

fn environment() -> AgentEnvironment {
    AgentEnvironment::from_runner_env(runner_env(&[])).expect("plain environment")
}

fn harness() -> Harness {
    Harness::start(config(test_agent(&[]), environment()))
}

fn somite(tool: &str) -> ToolIdentity {
    ToolIdentity {
        server: "somite".into(),
        tool: tool.into(),
    }
}

#[tokio::test]
async fn a_full_turn_streams_calls_mcp_and_answers_a_permission() {
    let mut harness = harness();
    let info = harness.ready().await;
    assert_eq!(info.agent.name.as_deref(), Some("somite-test-agent"));
    assert_eq!(info.workspace, harness.workspace_cwd);

    let steps = json!([
        {"report_prompt": null},
        {"think": "Reading the graph first."},
        {"plan": ["read the workflow", "add QC"]},
        {"say": "Reading "},
        {"say": "the workflow."},
        {"call": {"server": "somite", "tool": somite_api::tools::somite::WORKFLOW_GET, "permission": true}},
        {"call": {"server": "somite", "tool": "somite.workflow.get_evil", "permission": true, "id": "evil-1"}},
        {"call": {"server": "somite", "tool": somite_api::tools::somite::GRAPH_APPLY_TRANSACTION, "permission": true,
                  "arguments": {"base_state_revision": "blake3:00", "summary": "Add QC"}}},
        {"say": "Done."},
    ]);
    harness.plan(steps.clone()).await;

    let before_prompt = harness
        .until(|event| matches!(event, EventKind::PermissionRequested { .. }))
        .await;
    let Some(EventKind::PermissionRequested { permission }) = before_prompt.last() else {
        unreachable!()
    };
    assert_eq!(permission.tool_call.tool_call_id, "evil-1");
    assert_eq!(
        permission.tool_call.identity,
        Some(somite("somite.workflow.get_evil"))
    );
    assert_eq!(
        permission.reason,
        AskReason::NotAllowlisted {
            identity: somite("somite.workflow.get_evil")
        }
    );
    let option_ids: Vec<&str> = permission
        .options
        .iter()
        .map(|option| option.option_id.as_str())
        .collect();
    assert_eq!(option_ids, ["allow-once", "allow-always", "reject-once"]);
    assert_eq!(permission.timeout_ms, 300_000);
    harness
        .session()
        .answer_permission(
            permission.id,
            PermissionAnswer::Selected {
                option_id: "allow-once".into(),
            },
        )
        .await
        .expect("answered");

    let (after_prompt, outcome, transcript) = harness.turn_end().await;
    assert_eq!(outcome, TurnOutcome::EndTurn);
    let events: Vec<_> = before_prompt.into_iter().chain(after_prompt).collect();

    let said = Harness::said(&events);
    assert!(
        said.starts_with(&format!(
            "blocks: 2; first: {}",
            WORKFLOW_CONTRACT.lines().next().expect("a first line")
        )),
        "{said}"
    );
    assert!(said.ends_with("Reading the workflow.Done."), "{said}");
    assert!(events.iter().any(|event| matches!(event,
        EventKind::AgentThought { text, .. } if text == "Reading the graph first.")));
    assert!(events.iter().any(|event| matches!(event,
        EventKind::Plan { entries, .. } if entries.len() == 2)));

    let policy_answers: Vec<&ToolIdentity> = events
        .iter()
        .filter_map(|event| match event {
            EventKind::PermissionResolved {
                resolution:
                    PermissionResolution::Policy {
                        identity,
                        option_id,
                    },
                ..
            } => {
                assert_eq!(option_id, "allow-once");
                Some(identity)
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        policy_answers,
        [
            &somite(somite_api::tools::somite::WORKFLOW_GET),
            &somite(somite_api::tools::somite::GRAPH_APPLY_TRANSACTION)
        ]
    );
    let completed: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            EventKind::ToolCall { tool_call, .. } if tool_call.status == ToolStatus::Completed => {
                Some(tool_call.tool_call_id.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(completed, ["call-1", "evil-1", "call-3"]);
    let workflow_output = events
        .iter()
        .find_map(|event| match event {
            EventKind::ToolCall { tool_call, .. }
                if tool_call.tool_call_id == "call-1" && tool_call.raw_output.is_some() =>
            {
                tool_call.raw_output.clone()
            }
            _ => None,
        })
        .expect("the workflow read's output");
    assert_eq!(workflow_output["runtime_access_granted"], json!(true));
    assert_eq!(workflow_output["runtime_access_in_argv"], json!(false));

    // The transcript keeps the user's words, not the contract, and
    // correlates everything by tool-call id.
    assert_eq!(transcript.user_message, format!("PLAN: {steps}"));
    assert_eq!(transcript.outcome, TurnOutcome::EndTurn);
    let evil = transcript
        .tool_calls
        .iter()
        .find(|record| record.tool_call_id == "evil-1")
        .expect("the prompted call");
    assert_eq!(evil.status, ToolStatus::Completed);
    assert_eq!(
        evil.permissions[0].resolution,
        PermissionResolution::User {
            answer: PermissionAnswer::Selected {
                option_id: "allow-once".into()
            }
        }
    );
    let transaction = transcript
        .tool_calls
        .iter()
        .find_map(|record| record.transaction.clone())
        .expect("the transaction is correlated");
    assert_eq!(transaction["summary"], json!("Add QC"));
    assert!(transcript.timeline.iter().any(|entry| matches!(entry,
        TimelineEntry::Permission { tool_call_id, .. } if tool_call_id == "evil-1")));
    assert!(transcript.file_name().ends_with("-g7-t1.json"));

    let report = harness.disconnect().await;
    assert!(report.is_clean(), "{report:?}");
    let everything = serde_json::to_string(&harness.seen).expect("json");
    assert!(!everything.contains(CAPABILITY), "the capability leaked");
}

#[tokio::test]
async fn claude_shaped_calls_are_allowed_and_conflicting_or_bare_ones_prompt() {
    let mut harness = harness();
    harness.ready().await;
    harness
        .plan(json!([
            {"call": {"server": "somite", "tool": somite_api::tools::somite::CATALOG_SEARCH, "shape": "claude",
                      "permission": true, "arguments": {"query": "fastqc"}}},
            {"call": {"server": "somite", "tool": somite_api::tools::somite::CATALOG_SEARCH, "shape": "conflicting",
                      "permission": true, "arguments": {"query": "x"}, "id": "conflict"}},
        ]))
        .await;
    let events = harness
        .until(|event| matches!(event, EventKind::PermissionRequested { .. }))
        .await;
    assert!(events.iter().any(|event| matches!(event,
        EventKind::PermissionResolved { resolution: PermissionResolution::Policy { identity, .. }, .. }
            if *identity == somite(somite_api::tools::somite::CATALOG_SEARCH))));
    let Some(EventKind::PermissionRequested { permission }) = events.last() else {
        unreachable!()
    };
    assert_eq!(permission.tool_call.tool_call_id, "conflict");
    assert!(matches!(
        permission.reason,
        AskReason::ConflictingIdentity { .. }
    ));
    assert_eq!(permission.tool_call.identity, None);
    harness
        .session()
        .answer_permission(
            permission.id,
            PermissionAnswer::Selected {
                option_id: "reject-once".into(),
            },
        )
        .await
        .expect("answered");
    let (events, outcome, _) = harness.turn_end().await;
    assert_eq!(outcome, TurnOutcome::EndTurn);
    assert!(Harness::said(&events).contains("permission for conflict: reject-once"));
    harness.disconnect().await;
}

#[tokio::test]
async fn an_unanswered_permission_is_rejected_after_five_minutes_of_clock_time() {
    let mut harness = harness();
    harness.ready().await;
    harness
        .plan(json!([
            {"call": {"server": "somite", "tool": "somite.workflow.get_evil", "permission": true}},
            {"say": "carried on"},
        ]))
        .await;
    let events = harness
        .until(|event| matches!(event, EventKind::PermissionRequested { .. }))
        .await;
    let Some(EventKind::PermissionRequested { permission }) = events.last() else {
        unreachable!()
    };
    let id = permission.id;

    harness.clock.advance(Duration::from_secs(299));
    let early = tokio::time::timeout(Duration::from_millis(200), harness.events.recv()).await;
    assert!(
        early.is_err(),
        "nothing happens before five minutes: {early:?}"
    );

    harness.clock.advance(Duration::from_secs(1));
    let resolved = harness
        .until(|event| matches!(event, EventKind::PermissionResolved { .. }))
        .await;
    assert_eq!(
        resolved.last(),
        Some(&EventKind::PermissionResolved {
            permission_id: id,
            tool_call_id: "call-1".into(),
            resolution: PermissionResolution::Timeout {
                answer: PermissionAnswer::Selected {
                    option_id: "reject-once".into()
                }
            },
        })
    );
    let (events, outcome, _) = harness.turn_end().await;
    assert_eq!(outcome, TurnOutcome::EndTurn);
    let said = Harness::said(&events);
    assert!(
        said.contains("permission for call-1: reject-once"),
        "{said}"
    );
    assert!(said.contains("carried on"), "{said}");

    let answer = harness
        .session()
        .answer_permission(id, PermissionAnswer::Cancelled)
        .await;
    assert_eq!(answer, Err(SessionError::UnknownPermission { id }));
    harness.disconnect().await;
}

#[tokio::test]
async fn a_permission_before_its_tool_call_creates_the_tool_call() {
    let mut harness = harness();
    harness.ready().await;
    harness
        .plan(json!([
            {"call": {"server": "somite", "tool": "somite.workflow.get_evil", "permission_first": true, "id": "early"}},
        ]))
        .await;
    let events = harness
        .until(|event| matches!(event, EventKind::PermissionRequested { .. }))
        .await;
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, EventKind::ToolCall { tool_call, .. } if tool_call.title.is_empty())),
        "the permission's own fields describe the call"
    );
    let Some(EventKind::PermissionRequested { permission }) = events.last() else {
        unreachable!()
    };
    assert_eq!(permission.tool_call.tool_call_id, "early");
    assert_eq!(
        permission.tool_call.title,
        "Tool: somite/somite.workflow.get_evil"
    );

    let stale = PermissionId {
        generation: Generation(6),
        sequence: permission.id.sequence,
    };
    assert_eq!(
        harness
            .session()
            .answer_permission(stale, PermissionAnswer::Cancelled)
            .await,
        Err(SessionError::StaleGeneration { id: stale })
    );
    assert_eq!(
        harness
            .session()
            .answer_permission(
                permission.id,
                PermissionAnswer::Selected {
                    option_id: "yes".into()
                }
            )
            .await,
        Err(SessionError::UnadvertisedOption {
            option_id: "yes".into()
        })
    );
    harness
        .session()
        .answer_permission(
            permission.id,
            PermissionAnswer::Selected {
                option_id: "allow-once".into(),
            },
        )
        .await
        .expect("answered");
    let (_, outcome, transcript) = harness.turn_end().await;
    assert_eq!(outcome, TurnOutcome::EndTurn);
    assert_eq!(transcript.tool_calls[0].status, ToolStatus::Completed);
    harness.disconnect().await;
}

#[tokio::test]
async fn cancel_ends_the_turn_and_answers_pending_permissions() {
    let mut harness = harness();
    harness.ready().await;
    harness
        .plan(json!([
            {"call": {"server": "somite", "tool": "somite.workflow.get_evil", "permission": true}},
            {"say": "never said"},
        ]))
        .await;
    harness
        .until(|event| matches!(event, EventKind::PermissionRequested { .. }))
        .await;
    harness.session().cancel().await.expect("cancelled");
    let (events, outcome, transcript) = harness.turn_end().await;
    assert!(events.iter().any(|event| matches!(
        event,
        EventKind::PermissionResolved {
            resolution: PermissionResolution::TurnCancelled,
            ..
        }
    )));
    assert_eq!(outcome, TurnOutcome::Cancelled);
    assert_eq!(transcript.outcome, TurnOutcome::Cancelled);
    assert!(!Harness::said(&events).contains("never said"));

    // The session goes on.
    harness.prompt("hello").await;
    let (events, outcome, _) = harness.turn_end().await;
    assert_eq!(
        (Harness::said(&events).as_str(), outcome),
        ("ok", TurnOutcome::EndTurn)
    );
    harness.disconnect().await;
}

#[tokio::test]
async fn cancel_during_work_and_a_late_end_turn_is_still_cancelled() {
    let mut harness = harness();
    harness.ready().await;
    harness
        .plan(json!([{"say": "working"}, {"sleep": {"ms": 10000}}]))
        .await;
    harness
        .until(|event| matches!(event, EventKind::AgentMessage { .. }))
        .await;
    harness.session().cancel().await.expect("cancelled");
    let (_, outcome, _) = harness.turn_end().await;
    assert_eq!(outcome, TurnOutcome::Cancelled);

    harness
        .plan(json!([{"say": "stubborn"}, {"sleep": {"ms": 300, "ignore_cancel": true}}]))
        .await;
    harness
        .until(|event| matches!(event, EventKind::AgentMessage { .. }))
        .await;
    harness.session().cancel().await.expect("cancelled");
    let (events, outcome, _) = harness.turn_end().await;
    assert!(
        Harness::said(&events).contains("finished anyway"),
        "the agent answered end_turn after the cancel"
    );
    assert_eq!(outcome, TurnOutcome::Cancelled);
    harness.disconnect().await;
}

#[tokio::test]
async fn an_agent_crash_mid_turn_ends_the_session_cleanly() {
    let mut harness = harness();
    harness.ready().await;
    harness
        .plan(json!([{"say": "about to fall over"}, {"crash": 3}]))
        .await;
    let (_, outcome, transcript) = harness.turn_end().await;
    assert_eq!(outcome, TurnOutcome::Interrupted);
    assert!(matches!(&transcript.timeline[0],
        TimelineEntry::AgentMessage { text } if text == "about to fall over"));
    let ended = harness.next().await;
    let EventKind::Ended { reason, cleanup } = ended else {
        panic!("expected Ended, got {ended:?}");
    };
    let EndReason::AgentExited { exit, .. } = reason else {
        panic!("expected AgentExited, got {reason:?}");
    };
    assert_eq!(exit.and_then(|exit| exit.code), Some(3));
    assert!(cleanup.is_clean(), "{cleanup:?}");
    assert_eq!(
        harness.session().prompt("anyone?").await,
        Err(SessionError::Ended)
    );
    let report = harness.disconnect().await;
    assert_eq!(report, cleanup);
}

#[tokio::test]
async fn an_oversized_frame_ends_the_session() {
    let mut config = config(test_agent(&[]), environment());
    config.limits.max_frame_bytes = 64 * 1024;
    let mut harness = Harness::start(config);
    harness.ready().await;
    harness
        .plan(json!([{"say": "here it comes"}, {"oversized": 1_048_576}]))
        .await;
    let (_, outcome, _) = harness.turn_end().await;
    assert_eq!(outcome, TurnOutcome::Interrupted);
    let EventKind::Ended { reason, cleanup } = harness.next().await else {
        panic!("expected Ended");
    };
    assert_eq!(reason, EndReason::FrameTooLarge { limit: 64 * 1024 });
    assert_ne!(
        cleanup.stop,
        StopEscalation::Exited,
        "the sleeping agent had to be signalled"
    );
    assert!(matches!(
        cleanup.workspace,
        WorkspaceRemoval::Removed { .. }
    ));
    harness.disconnect().await;
}

#[tokio::test]
async fn config_options_are_rendered_and_set() {
    let mut harness = harness();
    let info = harness.ready().await;
    let ids: Vec<(&str, Option<&str>)> = info
        .config_options
        .iter()
        .map(|option| (option.id.as_str(), option.category.as_deref()))
        .collect();
    assert_eq!(ids, [("model", Some("model")), ("verbose", None)]);
    assert!(matches!(&info.config_options[0].control,
        ConfigControl::Select { current_value, choices } if current_value == "fast" && choices.len() == 2));

    let session = harness.session();
    let options = session
        .set_config_option("model", ConfigValue::Select("deep".into()))
        .await
        .expect("model set");
    assert!(matches!(&options[0].control,
        ConfigControl::Select { current_value, .. } if current_value == "deep"));
    session
        .set_config_option("verbose", ConfigValue::Boolean(true))
        .await
        .expect("verbose set");
    assert_eq!(
        session
            .set_config_option("verbose", ConfigValue::Select("yes".into()))
            .await,
        Err(SessionError::InvalidConfigValue {
            id: "verbose".into()
        })
    );
    assert_eq!(
        session
            .set_config_option("model", ConfigValue::Select("huge".into()))
            .await,
        Err(SessionError::InvalidConfigValue { id: "model".into() })
    );
    assert_eq!(
        session
            .set_config_option("temperature", ConfigValue::Boolean(true))
            .await,
        Err(SessionError::UnknownConfigOption {
            id: "temperature".into()
        })
    );
    harness.plan(json!([{"report_config": null}])).await;
    let (events, _, _) = harness.turn_end().await;
    assert_eq!(Harness::said(&events), "model=deep verbose=true");
    harness.disconnect().await;
}

#[tokio::test]
async fn the_agent_sees_only_the_allowlist_and_an_empty_private_cwd() {
    let runner = runner_env(&[
        ("HTTPS_PROXY", "http://proxy.invalid:3128"),
        ("NODE_OPTIONS", "--require /tmp/hook.js"),
        ("TEST_AGENT_API_KEY", "sk-test-0123456789abcdef0123"),
        ("OTHER_SERVICE_TOKEN", "ghp_0123456789abcdefghij0123"),
        (somite_api::EnvVars::SOMITE_MCP_CAPABILITY, CAPABILITY),
        (
            somite_api::EnvVars::SOMITE_AGENT_CREDENTIAL_ENV_NAMES,
            "TEST_AGENT_API_KEY",
        ),
    ]);
    let environment = AgentEnvironment::from_runner_env(runner).expect("valid opt-in");
    let mut harness = Harness::start(config(test_agent(&[]), environment));
    harness.ready().await;
    harness
        .plan(json!([
            {"report_env": ["PATH", "HOME", "TEST_AGENT_API_KEY", "HTTPS_PROXY", "NODE_OPTIONS",
                            "OTHER_SERVICE_TOKEN", somite_api::EnvVars::SOMITE_MCP_CAPABILITY,
                            somite_api::EnvVars::SOMITE_AGENT_CREDENTIAL_ENV_NAMES]},
            {"report_cwd": null},
        ]))
        .await;
    let (events, _, _) = harness.turn_end().await;
    let said = Harness::said(&events);
    assert!(
        said.starts_with(
            "env: PATH=set HOME=set TEST_AGENT_API_KEY=set HTTPS_PROXY=unset NODE_OPTIONS=unset \
             OTHER_SERVICE_TOKEN=unset SOMITE_MCP_CAPABILITY=unset SOMITE_AGENT_CREDENTIAL_ENV_NAMES=unset"
        ),
        "{said}"
    );
    assert!(
        said.ends_with(&format!(
            "cwd: {} entries: 0",
            harness.workspace_cwd.display()
        )),
        "{said}"
    );
    harness.disconnect().await;
}

#[tokio::test]
async fn an_agent_that_does_not_speak_v1_is_disconnected() {
    let mut harness = Harness::start(config(
        test_agent(&["--protocol-version", "2"]),
        environment(),
    ));
    let ended = harness.next().await;
    let EventKind::Ended { reason, cleanup } = ended else {
        panic!("expected Ended, got {ended:?}");
    };
    let EndReason::UnsupportedProtocolVersion { message } = reason else {
        panic!("expected UnsupportedProtocolVersion, got {reason:?}");
    };
    assert!(
        message.contains("protocol version") && message.contains("negotiated 2"),
        "{message}"
    );
    assert!(cleanup.is_clean(), "{cleanup:?}");
}

#[tokio::test]
async fn a_login_is_carried_out_only_when_the_agent_asks_and_the_user_chooses_it() {
    let mut harness = Harness::start(config(test_agent(&["--require-login"]), environment()));
    let EventKind::LoginRequired { methods } = harness.next().await else {
        panic!("expected LoginRequired");
    };
    assert_eq!(methods.len(), 1);
    assert_eq!(
        (methods[0].id.as_str(), methods[0].kind),
        ("test-login", LoginKind::Agent)
    );
    assert_eq!(
        harness.session().prompt("too early").await,
        Err(SessionError::NotReady)
    );
    assert_eq!(
        harness.session().log_in("unknown").await,
        Err(SessionError::NotAnAgentLogin {
            method_id: "unknown".into()
        })
    );
    harness
        .session()
        .log_in("test-login")
        .await
        .expect("logged in");
    harness.ready().await;
    harness.prompt("hi").await;
    let (_, outcome, _) = harness.turn_end().await;
    assert_eq!(outcome, TurnOutcome::EndTurn);
    harness.disconnect().await;
}

#[tokio::test]
async fn the_capability_never_travels_outside_the_somite_servers_environment() {
    let spawn = |configure: &dyn Fn(&mut somite_acp::SessionConfig)| {
        let mut config = config(test_agent(&[]), environment());
        configure(&mut config);
        let workspace = AgentWorkspace::create().expect("workspace");
        let root = workspace.root().to_path_buf();
        let result = AgentSession::spawn(config, workspace).map(|_| ());
        assert!(!root.exists(), "a refused session leaves no workspace");
        result
    };
    let in_args = spawn(&|config| {
        config.mcp_servers[0].args = vec![format!("--capability={CAPABILITY}")];
    });
    assert!(
        matches!(in_args, Err(SpawnError::CapabilityInArguments { .. })),
        "{in_args:?}"
    );

    let in_agent_args = spawn(&|config| {
        config.command = test_agent(&[CAPABILITY]);
    });
    assert!(matches!(
        in_agent_args,
        Err(SpawnError::CapabilityInArguments { .. })
    ));

    let other_server = spawn(&|config| {
        let mut pixi = somite_mcp();
        pixi.role = McpServerRole::Pixi;
        pixi.name = "pixi".into();
        config.mcp_servers.push(pixi);
    });
    assert!(matches!(
        other_server,
        Err(SpawnError::CapabilityOutsideSomiteServer { ref server }) if server == "pixi"
    ));

    let relative = spawn(&|config| {
        config.mcp_servers[0].command = "somite-test-mcp".into();
    });
    assert!(matches!(relative, Err(SpawnError::InvalidMcpServer { .. })));
}

/// The processes whose command line contains `marker`.
#[cfg(target_os = "linux")]
fn processes_with(marker: &str) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            String::from_utf8_lossy(&cmdline)
                .contains(marker)
                .then_some(pid)
        })
        .collect()
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn disconnect_stops_the_whole_process_group_including_mcp_servers() {
    let marker = format!("marker-{}-{}", std::process::id(), line!());
    let mut config = config(test_agent(&[]), environment());
    config.mcp_servers[0].args = vec![marker.clone()];
    let mut harness = Harness::start(config);
    harness.ready().await;
    assert_eq!(processes_with(&marker).len(), 1, "the MCP server runs");
    let report = harness.disconnect().await;
    assert!(report.is_clean(), "{report:?}");
    assert_eq!(
        processes_with(&marker),
        Vec::<u32>::new(),
        "nothing outlives the session"
    );
}
