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
//! `@modelcontextprotocol/server-everything`, as a JSON array), `--calls N`.

use serde_json::json;
use somite_project::{Project, Seed};
use somite_server::config::ServerConfig;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const PAIRS_PER_TRANSACTION: usize = 16; // 4 operations each, 64 per transaction

/// A project whose graph has `2 * pairs` nodes (paired-read imports, each
/// feeding a fastp node over two edges), built through the project's own
/// transactions — the graph `benches/mcp_round_trip.rs` reads.
fn project_with_pairs(root: &Path, pairs: usize) -> Project {
    let mut project = Project::open(root, Seed::Empty).expect("project");
    for (batch, chunk) in (0..pairs)
        .collect::<Vec<_>>()
        .chunks(PAIRS_PER_TRANSACTION)
        .enumerate()
    {
        let mut operations = Vec::new();
        for &i in chunk {
            let (x, y) = ((i % 25) as f64 * 400.0, (i / 25) as f64 * 150.0);
            operations.extend([
                json!({"op": "add_operator", "node_id": format!("reads_{i}"),
                       "operator_id": "files.import_paired",
                       "params": {"r1": format!("data/s{i}_R1.fastq"), "r2": format!("data/s{i}_R2.fastq")},
                       "x": x, "y": y}),
                json!({"op": "add_operator", "node_id": format!("trim_{i}"),
                       "operator_id": "qc.fastp", "params": {}, "x": x + 200.0, "y": y}),
                json!({"op": "connect", "edge_id": format!("r1_{i}"), "from_node": format!("reads_{i}"),
                       "from_port": "r1", "to_node": format!("trim_{i}"), "to_port": "r1"}),
                json!({"op": "connect", "edge_id": format!("r2_{i}"), "from_node": format!("reads_{i}"),
                       "from_port": "r2", "to_node": format!("trim_{i}"), "to_port": "r2"}),
            ]);
        }
        let transaction = serde_json::from_value(json!({
            "base_state_revision": project.state_revision(),
            "idempotency_key": format!("bench-graph-{batch:04}"),
            "summary": format!("bench batch {batch}"),
            "operations": operations,
        }))
        .expect("transaction");
        project.apply_transaction(&transaction).expect("apply");
    }
    project
}

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
        let project = project_with_pairs(dir.path(), pairs);
        let config = ServerConfig::loopback(dir.path(), binary.clone()).expect("config");
        let server = runtime
            .block_on(somite_server::start(&config, project))
            .expect("runtime");
        servers.push(server);
        dirs.push(dir);
    }

    let mut child = Command::new(python)
        .arg(&client)
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
