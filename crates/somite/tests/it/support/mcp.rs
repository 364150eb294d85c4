//! Starting `somite mcp somite` as a client of a runtime the tests started,
//! and calling its tools with the failure naming the tool.

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::Value;
use std::process::Stdio;
use tokio::process::Command;

/// An rmcp client of `somite mcp somite` onto the runtime at `url`, started
/// as an agent starts it: a cleared environment holding the capability (if
/// any), never an argument.
pub async fn connect(
    url: &str,
    capability: Option<&str>,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, ()> {
    connect_with((), url, capability, lifecycle).await
}

/// [`connect`] with `handler` hearing the server's notifications.
pub async fn connect_with<H: ClientHandler>(
    handler: H,
    url: &str,
    capability: Option<&str>,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, H> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_somite"));
    command
        .args(["mcp", "somite", "--server-url", url])
        .env_clear()
        .env("PATH", "/usr/bin:/bin");
    if let Some(capability) = capability {
        command.env(somite_api::EnvVars::SOMITE_MCP_CAPABILITY, capability);
    }
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    handler
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("MCP session")
}

/// The result of calling `tool` with `arguments` (a JSON object).
pub async fn call<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    tool: &str,
    arguments: Value,
) -> CallToolResult {
    let Value::Object(arguments) = arguments else {
        panic!("object arguments")
    };
    client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"))
}

/// The structured content of a call that must succeed.
pub async fn ok<H: ClientHandler>(
    client: &RunningService<RoleClient, H>,
    tool: &str,
    arguments: Value,
) -> Value {
    let result = call(client, tool, arguments).await;
    assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
    result.structured_content.expect("structured content")
}

/// The error envelope of a call that must fail: a code, a message and a
/// recovery, as every tool's isError result carries.
pub async fn failure(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    arguments: Value,
) -> Value {
    let result = call(client, tool, arguments).await;
    assert_eq!(result.is_error, Some(true), "{tool}: {result:?}");
    let envelope = result.structured_content.expect("structured error");
    for field in ["code", "message", "recovery"] {
        assert!(envelope[field].is_string(), "{envelope}");
    }
    envelope
}
