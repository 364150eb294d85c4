//! `somite.workflow.get` through the official Python MCP client, beside the
//! official TypeScript reference server's `echo` tool, for issue 23's
//! ratios (`scripts/bench` runs it and prints the table).
//!
//! The loopback runtimes run in this process, as in the interop test,
//! because only the runtime issues the capability `somite mcp somite`
//! presents; the timing itself is done by `tests/interop/bench_client.py`
//! (the SDK nobody on the team wrote), which calls `echo`, the 10-node and
//! the 500-node read in turn, call by call. Without `--python` (a plain
//! `cargo bench --workspace`) it says what it needs and does nothing.
//!
//! Arguments after `--`: `--python PATH` (the interop venv's python),
//! `--everything JSON` (the command that starts
//! `@modelcontextprotocol/server-everything`, as a JSON array), `--calls N`,
//! and `--raw` to time bare JSON-RPC calls without the SDK (the servers'
//! own share).

use serde_json::json;
use somite_server::config::ServerConfig;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The value after `flag` among the bench's arguments.
fn argument(arguments: &[String], flag: &str) -> Option<String> {
    arguments
        .iter()
        .position(|a| a == flag)
        .and_then(|i| arguments.get(i + 1).cloned())
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    let (Some(python), Some(everything)) = (
        argument(&arguments, "--python"),
        argument(&arguments, "--everything"),
    ) else {
        println!(
            "mcp_python: skipped (needs --python and --everything; scripts/bench passes them)"
        );
        return;
    };
    let calls = argument(&arguments, "--calls").unwrap_or_else(|| "200".into());
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_somite"));
    let client = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/interop/bench_client.py");

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let mut servers = Vec::new();
    let mut dirs = Vec::new();
    for pairs in [5, 250] {
        let dir = tempfile::tempdir().expect("tempdir");
        let project = somite_test_support::project_with_pairs(dir.path(), pairs);
        let config = ServerConfig::loopback(dir.path(), binary.clone()).expect("config");
        let server = runtime
            .block_on(somite_server::start(&config, project))
            .expect("runtime");
        servers.push(server);
        dirs.push(dir);
    }

    let raw = arguments.iter().any(|a| a == "--raw");
    let mut child = Command::new(python)
        .arg(&client)
        .args(raw.then_some("--raw"))
        .arg(&binary)
        .arg(&everything)
        .arg(&calls)
        .args(servers.iter().map(|s| s.url()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the Python MCP client");
    {
        // The capabilities travel on stdin, never argv.
        let mut stdin = child.stdin.take().expect("stdin");
        for server in &servers {
            let (_, capability) = server.state.capabilities.issue();
            writeln!(stdin, "{}", capability.expose()).expect("hand over a capability");
        }
    }
    let output = child.wait_with_output().expect("the Python MCP client");
    assert!(output.status.success(), "the Python MCP client failed");
    let result: serde_json::Value =
        serde_json::from_slice(&output.stdout).expect("the client's JSON line");
    let urls: Vec<String> = servers.iter().map(|s| s.url()).collect();
    println!(
        "mcp_python: {}",
        json!({
            "client": result["client"],
            "echo": result["echo"],
            "workflow_get_10": result[&urls[0]],
            "workflow_get_500": result[&urls[1]],
        })
    );

    runtime.block_on(async {
        for server in servers {
            server.shutdown().await.expect("stop the runtime");
        }
    });
    drop(dirs);
}
