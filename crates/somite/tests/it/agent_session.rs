//! The agent boundary end to end, as a user drives it from the Agent panel:
//! `somite serve` → connect the scripted ACP test agent → one prompt → the
//! agent calls the real Somite, Pixi and Nextflow MCP servers → its
//! transaction lands on the canvas and in the feed → readiness is read → a
//! permission for a mutating tool waits for the user → the transcript is
//! written and redacted → disconnect removes the private workspace.
//!
//! Also the capability rule: while the session runs, the Somite MCP child's
//! capability (read from its own environment, where it belongs) appears in
//! no process's command line, in neither of the runtime's output streams, in
//! the feed, the transcript or any tool result.
//!
//! The agent is `somite-test-agent`, a real ACP peer built on the official
//! SDK (see its crate); it is built next to `somite` by `cargo build
//! --workspace` / `cargo nextest run --workspace`.

use crate::support::sibling;
use serde_json::{Value, json};
use somite_test_support::ready_paired_reads;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The test agent binary, next to `somite` in the same target directory.
fn test_agent() -> PathBuf {
    sibling("somite-test-agent")
}

struct Serve {
    child: Child,
    url: String,
    stderr: std::thread::JoinHandle<String>,
    stdout_rest: std::thread::JoinHandle<String>,
    first_line: String,
}

impl Serve {
    fn start(project: &Path) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_somite"))
            .args(["serve", "--port", "0", "--project"])
            .arg(project)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first_line = String::new();
        stdout.read_line(&mut first_line).unwrap();
        let url = first_line
            .split_whitespace()
            .nth(3)
            .expect("serve prints its URL")
            .trim_end_matches('/')
            .to_owned();
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let stdout_rest = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stdout.read_to_string(&mut text);
            text
        });
        Serve {
            child,
            url,
            stderr,
            stdout_rest,
            first_line,
        }
    }

    /// Stops the runtime with SIGINT, as Ctrl-C does; returns its output.
    fn stop(mut self) -> String {
        Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "serve did not stop on SIGINT");
            std::thread::sleep(Duration::from_millis(20));
        }
        format!(
            "{}{}{}",
            self.first_line,
            self.stdout_rest.join().unwrap(),
            self.stderr.join().unwrap()
        )
    }
}

struct Api {
    client: reqwest::Client,
    url: String,
}

impl Api {
    /// A client of `serve`'s routes.
    fn of(serve: &Serve) -> Api {
        Api {
            client: reqwest::Client::new(),
            url: serve.url.clone(),
        }
    }

    async fn get(&self, path: &str) -> Value {
        let response = self
            .client
            .get(format!("{}{path}", self.url))
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "GET {path}: {response:?}");
        response.json().await.unwrap()
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}{path}", self.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    }

    async fn ok(&self, path: &str, body: Value) -> Value {
        let (status, value) = self.post(path, body).await;
        assert_eq!(status, 200, "POST {path}: {value}");
        value
    }

    async fn session_until(&self, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let view = self.get("/api/agent/session").await;
            if done(&view) {
                return view;
            }
            assert!(Instant::now() < deadline, "waiting for {what}: {view}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Connects the test agent with no plan file (each prompt carries its
    /// plan) and waits until the session is ready; returns that view.
    async fn connect_test_agent(&self) -> Value {
        self.ok(
            "/api/agent/connect",
            json!({"command": [test_agent().display().to_string()]}),
        )
        .await;
        self.session_until("the test agent to be ready", |v| v["state"] == "ready")
            .await
    }

    /// The pending permission prompt for the agent's tool call `call_id`,
    /// once the session shows it.
    async fn pending_permission(&self, call_id: &str) -> Value {
        let prompted = |p: &&Value| p["tool_call"]["tool_call_id"] == call_id;
        let waiting = self
            .session_until(&format!("the permission prompt for {call_id}"), |v| {
                v["pending_permissions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|p| prompted(&p))
            })
            .await;
        waiting["pending_permissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(prompted)
            .unwrap()
            .clone()
    }

    /// Answers `permission` with `option_id`, as the user's click does.
    async fn answer_permission(&self, permission: &Value, option_id: &Value) -> Value {
        let path = format!(
            "/api/agent/permissions/{}",
            permission["id"].as_str().unwrap()
        );
        self.ok(&path, json!({ "option_id": option_id })).await
    }

    async fn feed(&self) -> Vec<Value> {
        self.get("/api/activity?after=0").await["events"]
            .as_array()
            .unwrap()
            .clone()
    }

    async fn feed_until(&self, what: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let events = self.feed().await;
            if done(&events) {
                return events;
            }
            assert!(Instant::now() < deadline, "waiting for {what}: {events:#?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Every live process's command line, NUL-separated arguments joined by spaces.
fn all_command_lines() -> Vec<(u32, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| {
            let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let raw = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            Some((pid, String::from_utf8_lossy(&raw).replace('\0', " ")))
        })
        .collect()
}

/// The capability, read from the environment of the Somite MCP child that
/// serves `url` — the one place it may be.
fn capability_of_somite_mcp_child(url: &str) -> String {
    let (pid, _) = all_command_lines()
        .into_iter()
        .find(|(_, line)| line.contains("mcp somite --server-url") && line.contains(url))
        .expect("the agent started the Somite MCP server");
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    environ
        .split(|b| *b == 0)
        .find_map(|entry| {
            std::str::from_utf8(entry)
                .ok()?
                .strip_prefix(somite_api::EnvVars::SOMITE_MCP_CAPABILITY)?
                .strip_prefix('=')
                .map(str::to_owned)
        })
        .expect("the Somite MCP server has its capability in its environment")
}

fn events_of<'a>(
    events: &'a [Value],
    kind: somite_api::FeedKind,
    kind_type: &str,
) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e["kind"] == kind && (kind_type.is_empty() || e["data"]["type"] == kind_type))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_edits_the_canvas_through_mcp_and_leaves_a_redacted_transcript() {
    let project = tempfile::tempdir().unwrap();
    let serve = Serve::start(project.path());
    let api = Api::of(&serve);

    let launchers = api.get("/api/agent/launchers").await;
    assert!(
        !launchers["launchers"].as_array().unwrap().is_empty(),
        "the bundled registry lists agents: {launchers}"
    );
    let (status, unknown) = api
        .post("/api/agent/connect", json!({"launcher": "no-such-agent"}))
        .await;
    assert_eq!((status, unknown["code"].as_str()), (404, Some("not_found")));
    let (status, shell) = api
        .post(
            "/api/agent/connect",
            json!({"command": ["sh", "-c", "true"]}),
        )
        .await;
    assert_eq!(
        (status, shell["code"].as_str()),
        (422, Some("agent_command_rejected")),
        "{shell}"
    );
    let (status, idle) = api
        .post("/api/agent/prompt", json!({"text": "hello"}))
        .await;
    assert_eq!(
        (status, idle["code"].as_str()),
        (409, Some("agent_not_connected"))
    );

    let agent = test_agent();
    // A distinctive argument, to look for in the project afterwards: the
    // agent command lives in memory only. The plan file is never read (every
    // prompt here carries its plan) but must exist for the flag to be valid.
    let elsewhere = tempfile::tempdir().unwrap();
    let plan_file = elsewhere
        .path()
        .join("never-saved-agent-argument-7f3c.json");
    std::fs::write(&plan_file, r#"[{"say": "from the plan file"}]"#).unwrap();
    let command = [
        agent.display().to_string(),
        "--plan".to_owned(),
        plan_file.display().to_string(),
    ];
    let connected = api
        .ok("/api/agent/connect", json!({"command": command}))
        .await;
    assert_eq!(connected["command"], json!(command));
    let ready = api
        .session_until("the session to be ready", |v| v["state"] == "ready")
        .await;
    let workspace = PathBuf::from(ready["session"]["workspace"].as_str().unwrap());
    assert!(
        workspace.is_dir(),
        "the private workspace exists while connected"
    );
    assert_eq!(
        ready["config_options"][0]["id"], "model",
        "the agent's advertised options are shown: {ready}"
    );
    let (status, again) = api
        .post(
            "/api/agent/connect",
            json!({"command": [agent.display().to_string()]}),
        )
        .await;
    assert_eq!(
        (status, again["code"].as_str()),
        (409, Some("agent_already_connected"))
    );

    // Configuration changes go through ACP.
    let options = api
        .ok(
            "/api/agent/config",
            json!({"config_id": "model", "value": "deep"}),
        )
        .await;
    assert_eq!(
        options["config_options"][0]["control"]["current_value"], "deep",
        "{options}"
    );

    let before = api.get("/api/workflow").await;
    let base = before["state_revision"].as_str().unwrap().to_owned();
    let plan = json!([
        {"say": "Looking at the canvas."},
        {"call": {"server": "somite", "tool": somite_api::tools::somite::WORKFLOW_GET}},
        {"call": {"server": "pixi", "tool": somite_api::tools::pixi::RUNTIME_INFO}},
        {"call": {"server": "nextflow", "tool": somite_api::tools::nextflow::RUNTIME_INFO}},
        {"call": {"server": "somite", "tool": somite_api::tools::somite::GRAPH_APPLY_TRANSACTION, "arguments": {
            "base_state_revision": base, "idempotency_key": "agent-e2e-0001",
            "summary": "Add a second QC step",
            "operations": [{"op": "add_operator", "node_id": "agent_qc", "operator_id": "qc.fastp",
                            "params": {"threads": 2}, "x": 900, "y": 300}]}}},
        {"call": {"server": "somite", "tool": somite_api::tools::somite::READINESS_GET}},
        {"call": {"server": "nextflow", "tool": somite_api::tools::nextflow::RUN, "permission": true, "id": "run-1",
                  "arguments": {"mode": "full"}}},
        {"say": "Done. api_key=sk-live-1234567890abcdef"}
    ]);
    let message = format!("Add a QC step, then check readiness.\nPLAN: {plan}");
    let turn = api.ok("/api/agent/prompt", json!({"text": message})).await;
    assert!(turn["turn"].is_number(), "{turn}");

    // The mutating Nextflow call waits for the user with its exact id.
    let permission = api.pending_permission("run-1").await;
    assert_eq!(
        permission["tool_call"]["tool_call_id"], "run-1",
        "{permission}"
    );
    let capability = capability_of_somite_mcp_child(&serve.url);
    assert_eq!(capability.len(), 64, "a 256-bit capability");
    let reject = permission["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["kind"] == "reject_once")
        .expect("the agent offers a reject option")["option_id"]
        .clone();
    let permission_id = permission["id"].as_str().unwrap().to_owned();
    let (status, unadvertised) = api
        .post(
            &format!("/api/agent/permissions/{permission_id}"),
            json!({"option_id": "not-offered"}),
        )
        .await;
    assert_eq!(status, 400, "{unadvertised}");
    api.answer_permission(&permission, &reject).await;

    let events = api
        .feed_until("the end of the turn", |events| {
            !events_of(events, somite_api::FeedKind::Agent, "turn_ended").is_empty()
        })
        .await;

    // The user's words enter the feed first and unchanged; no contract.
    let user = events_of(&events, somite_api::FeedKind::Agent, "user_message");
    assert_eq!(user.len(), 1);
    let shown = message.replace("sk-live-1234567890abcdef", "[redacted]");
    assert_eq!(user[0]["data"]["text"], shown, "the user's words, redacted");
    let first_agent_event = events
        .iter()
        .position(|e| {
            e["kind"] == somite_api::FeedKind::Agent
                && e["data"]["type"] != "ready"
                && e["data"]["type"] != "config_options"
        })
        .unwrap();
    assert_eq!(events[first_agent_event]["data"]["type"], "user_message");

    // The tools were called in order, each through the real server.
    let mut called: Vec<String> = Vec::new();
    for event in events_of(&events, somite_api::FeedKind::Agent, "tool_call") {
        let title = event["data"]["tool_call"]["title"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        if !called.contains(&title) {
            called.push(title);
        }
    }
    let order = [
        somite_api::tools::somite::WORKFLOW_GET,
        somite_api::tools::pixi::RUNTIME_INFO,
        somite_api::tools::nextflow::RUNTIME_INFO,
        somite_api::tools::somite::GRAPH_APPLY_TRANSACTION,
        somite_api::tools::somite::READINESS_GET,
        somite_api::tools::nextflow::RUN,
    ];
    let positions: Vec<usize> = order
        .iter()
        .map(|tool| {
            called
                .iter()
                .position(|t| t.ends_with(&format!("/{tool}")))
                .unwrap_or_else(|| panic!("{tool} was not called: {called:?}"))
        })
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{called:?}");

    // The agent's edit is on the canvas and in the feed, attributed to it.
    let transactions = events_of(&events, somite_api::FeedKind::Transaction, "");
    assert_eq!(transactions.len(), 1, "{transactions:#?}");
    assert_eq!(transactions[0]["data"]["source"]["kind"], "agent");
    let after = api.get("/api/workflow").await;
    assert!(
        after["document"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n["id"] == "agent_qc"),
        "the agent's node is on the canvas"
    );
    assert!(after["feed_cursor"].as_u64().unwrap() >= transactions[0]["cursor"].as_u64().unwrap());

    // The permission was the user's, and the rejected tool did not run.
    let resolved = events_of(&events, somite_api::FeedKind::Agent, "permission_resolved");
    assert_eq!(resolved.len(), 1);
    assert_eq!(resolved[0]["data"]["tool_call_id"], "run-1");
    assert_eq!(resolved[0]["data"]["resolution"]["by"], "user");

    // The transcript is on disk, complete and redacted.
    let transcripts: Vec<PathBuf> =
        std::fs::read_dir(project.path().join(".somite/agent-transcripts"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
    assert_eq!(transcripts.len(), 1, "{transcripts:?}");
    let transcript_text = std::fs::read_to_string(&transcripts[0]).unwrap();
    let transcript: Value = serde_json::from_str(&transcript_text).unwrap();
    assert_eq!(transcript["user_message"], shown);
    assert!(
        !transcript_text.contains("sk-live-1234567890abcdef"),
        "secret-shaped values are redacted in the transcript"
    );
    let tool_calls = transcript["tool_calls"].as_array().unwrap();
    assert!(tool_calls.len() >= 6, "{tool_calls:#?}");
    // The permission decision is correlated with its tool call: exactly the
    // one request the user answered, on `run-1`, with the options the agent
    // offered and the user's rejection; no other call asked.
    let asked: Vec<&Value> = tool_calls
        .iter()
        .filter(|c| !c["permissions"].as_array().unwrap().is_empty())
        .collect();
    assert_eq!(asked.len(), 1, "{tool_calls:#?}");
    assert_eq!(asked[0]["tool_call_id"], "run-1", "{tool_calls:#?}");
    let records = asked[0]["permissions"].as_array().unwrap();
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0]["permission_id"], permission_id, "{records:#?}");
    let option_ids = |options: &Value| -> Vec<Value> {
        options
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["option_id"].clone())
            .collect()
    };
    assert_eq!(
        option_ids(&records[0]["options"]),
        option_ids(&permission["options"]),
        "{records:#?}"
    );
    assert_eq!(
        records[0]["resolution"],
        json!({"by": "user", "answer": {"outcome": "selected", "option_id": reject}}),
        "{records:#?}"
    );

    // The capability is nowhere but in the Somite MCP child's environment.
    for (pid, line) in all_command_lines() {
        assert!(
            !line.contains(&capability),
            "process {pid}'s argv holds the capability"
        );
    }
    let feed_text = serde_json::to_string(&api.feed().await).unwrap();
    assert!(
        !feed_text.contains(&capability),
        "the feed holds the capability"
    );
    assert!(!transcript_text.contains(&capability));
    let view_text = api.get("/api/agent/session").await.to_string();
    assert!(!view_text.contains(&capability));

    let disconnected = api.ok("/api/agent/disconnect", json!({})).await;
    assert_eq!(
        disconnected["cleanup"]["workspace"]["kind"], "removed",
        "{disconnected}"
    );
    assert!(
        !workspace.exists(),
        "disconnect removes the private workspace"
    );
    let ended = api.get("/api/agent/session").await;
    assert_eq!(ended["state"], "disconnected");
    let after_disconnect = all_command_lines();
    assert!(
        !after_disconnect
            .iter()
            .any(|(_, line)| line.contains("mcp somite --server-url") && line.contains(&serve.url)),
        "the agent's MCP children are gone"
    );

    let output = serve.stop();
    assert!(
        !output.contains(&capability),
        "the runtime's output holds the capability"
    );
    assert_command_saved_nowhere(&project.path().join(".somite"), &command);
}

/// No file under `dir` holds the agent's program path or its argument.
fn assert_command_saved_nowhere(dir: &Path, command: &[String]) {
    let mut pending = vec![dir.to_owned()];
    let mut files = Vec::new();
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if std::fs::symlink_metadata(&path).unwrap().is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    assert!(
        files
            .iter()
            .any(|f| f.starts_with(dir.join("agent-transcripts"))),
        "the session left its transcript in {}: {files:?}",
        dir.display()
    );
    let program = &command[0];
    let argument = &command[2];
    for file in files {
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
        for part in [program, argument] {
            assert!(
                !text.contains(part.as_str()),
                "{} holds the agent command's `{part}`",
                file.display()
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_crash_mid_turn_ends_the_session_cleanly_and_keeps_its_edit() {
    let project = tempfile::tempdir().unwrap();
    let serve = Serve::start(project.path());
    let api = Api::of(&serve);
    api.connect_test_agent().await;
    let base = api.get("/api/workflow").await["state_revision"].clone();
    let plan = json!([
        {"call": {"server": "somite", "tool": somite_api::tools::somite::GRAPH_APPLY_TRANSACTION, "arguments": {
            "base_state_revision": base, "idempotency_key": "agent-crash-0001", "summary": "Rename",
            "operations": [{"op": "set_title", "title": "Renamed by the agent"}]}}},
        {"crash": 3}
    ]);
    api.ok(
        "/api/agent/prompt",
        json!({"text": format!("Rename it.\nPLAN: {plan}")}),
    )
    .await;
    let ended = api
        .session_until("the session to end", |v| v["state"] == "ended")
        .await;
    assert_eq!(ended["ended"]["kind"], "agent_exited", "{ended}");
    let events = api.feed().await;
    let turn = events_of(&events, somite_api::FeedKind::Agent, "turn_ended");
    assert_eq!(turn.len(), 1);
    assert_eq!(turn[0]["data"]["outcome"]["kind"], "interrupted");
    let workflow = api.get("/api/workflow").await;
    assert_eq!(workflow["document"]["title"], "Renamed by the agent");
    // The runtime stays usable, and a new session can start.
    api.connect_test_agent().await;
    api.ok("/api/agent/disconnect", json!({})).await;
    serve.stop();
}

/// Connects the test agent and has it compile; returns the agent's private
/// folder and the package attached in its tools root.
async fn attach_through_a_compile(api: &Api) -> (PathBuf, PathBuf) {
    let ready = api.connect_test_agent().await;
    // The agent works in `<private>/workspace`; the tools share `<private>/tools`.
    let cwd = PathBuf::from(ready["session"]["workspace"].as_str().unwrap());
    let root = cwd.parent().unwrap().to_owned();
    let plan = json!([
        {"call": {"server": "somite", "tool": somite_api::tools::somite::WORKFLOW_COMPILE, "id": "compile-1"}},
        {"call": {"server": "pixi", "tool": somite_api::tools::pixi::INSPECT, "id": "inspect-1", "arguments": {"action": "manifest"}}}
    ]);
    api.ok(
        "/api/agent/prompt",
        json!({"text": format!("Compile it.\nPLAN: {plan}")}),
    )
    .await;
    let events = api
        .feed_until("the end of the turn", |events| {
            !events_of(events, somite_api::FeedKind::Agent, "turn_ended").is_empty()
        })
        .await;
    let compiled = events_of(&events, somite_api::FeedKind::Compile, "");
    assert_eq!(compiled.len(), 1, "{events:#?}");
    assert_eq!(compiled[0]["data"]["source"]["kind"], "agent");
    let result = events_of(&events, somite_api::FeedKind::Agent, "tool_call")
        .into_iter()
        .rev()
        .find(|e| e["data"]["tool_call"]["tool_call_id"] == "compile-1")
        .expect("the compile call is in the feed")["data"]["tool_call"]["raw_output"]
        .clone();
    let output = result.to_string();
    let output_path = output
        .split("packages/")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("an output_path under packages/: {result}"));
    let attached = root
        .join("tools/packages")
        .join(output_path.trim_end_matches('\\'));
    assert!(
        attached.join("main.nf").is_file(),
        "the package is attached at {}",
        attached.display()
    );
    (root, attached)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_compile_attaches_a_verified_package_to_its_tools_root() {
    let project = tempfile::tempdir().unwrap();
    ready_paired_reads(project.path());
    let serve = Serve::start(project.path());
    let api = Api::of(&serve);
    let (root, _) = attach_through_a_compile(&api).await;
    let disconnected = api.ok("/api/agent/disconnect", json!({})).await;
    assert_eq!(
        disconnected["cleanup"]["attachments"],
        json!({"kind": "removed", "path": root.join("tools/packages")}),
        "{disconnected}"
    );
    assert!(
        !root.exists(),
        "disconnect removes the attachment with the workspace"
    );
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disconnect_reports_attached_packages_and_a_workspace_it_could_not_remove() {
    let project = tempfile::tempdir().unwrap();
    ready_paired_reads(project.path());
    let serve = Serve::start(project.path());
    let api = Api::of(&serve);
    let (root, _) = attach_through_a_compile(&api).await;
    // Removals that fail for every user, root included, with no special
    // file attribute: the packages folder is a file by then (the server
    // reaches it through the handle it holds on the tools folder), and the
    // workspace has been moved away from where the server would remove it.
    let packages = root.join("tools/packages");
    std::fs::remove_dir_all(&packages).unwrap();
    std::fs::write(&packages, "not a folder\n").unwrap();
    let moved = root.with_extension("moved");
    std::fs::rename(&root, &moved).unwrap();
    let disconnected = api.ok("/api/agent/disconnect", json!({})).await;
    let cleanup = &disconnected["cleanup"];
    assert_eq!(cleanup["attachments"]["kind"], "failed", "{disconnected}");
    assert_eq!(
        cleanup["attachments"]["path"],
        json!(root.join("tools/packages")),
        "{disconnected}"
    );
    assert!(
        cleanup["attachments"]["error"]
            .as_str()
            .is_some_and(|e| !e.is_empty()),
        "{disconnected}"
    );
    assert_eq!(cleanup["workspace"]["kind"], "failed", "{disconnected}");
    assert_eq!(cleanup["workspace"]["path"], json!(root), "{disconnected}");
    assert!(
        moved.join("tools/packages").is_file(),
        "what could not be removed remains"
    );
    // The session is over all the same.
    assert_eq!(api.get("/api/agent/session").await["state"], "disconnected");
    std::fs::remove_dir_all(&moved).unwrap();
    serve.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_cancels_the_running_turn_and_the_session_goes_on() {
    let project = tempfile::tempdir().unwrap();
    let serve = Serve::start(project.path());
    let api = Api::of(&serve);
    api.connect_test_agent().await;
    let plan = json!([{"say": "thinking"}, {"sleep": {"ms": 30000}}, {"say": "too late"}]);
    api.ok(
        "/api/agent/prompt",
        json!({"text": format!("Take your time.\nPLAN: {plan}")}),
    )
    .await;
    let busy = api
        .session_until("the turn to run", |v| v["state"] == "prompting")
        .await;
    assert!(busy["turn"].is_number());
    let (status, refused) = api
        .post("/api/agent/prompt", json!({"text": "another"}))
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (409, Some("agent_busy"))
    );
    api.ok("/api/agent/cancel", json!({})).await;
    let events = api
        .feed_until("the cancelled turn", |events| {
            !events_of(events, somite_api::FeedKind::Agent, "turn_ended").is_empty()
        })
        .await;
    let ended = events_of(&events, somite_api::FeedKind::Agent, "turn_ended");
    assert_eq!(ended[0]["data"]["outcome"]["kind"], "cancelled");
    let view = api
        .session_until("ready again", |v| v["state"] == "ready")
        .await;
    assert_eq!(view["turn"], Value::Null);
    api.ok("/api/agent/prompt", json!({"text": "still there?"}))
        .await;
    api.feed_until("a second turn", |events| {
        events_of(events, somite_api::FeedKind::Agent, "turn_ended").len() == 2
    })
    .await;
    api.ok("/api/agent/disconnect", json!({})).await;
    serve.stop();
}

/// The tool result of call `id` in the feed: its final `raw_output`.
fn tool_output(events: &[Value], id: &str) -> Value {
    events_of(events, somite_api::FeedKind::Agent, "tool_call")
        .into_iter()
        .rev()
        .find(|e| e["data"]["tool_call"]["tool_call_id"] == id && !e["data"]["tool_call"]["raw_output"].is_null())
        .unwrap_or_else(|| panic!("no result for {id}: {events:#?}"))["data"]["tool_call"]["raw_output"]
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_install_waits_for_the_users_own_answer_every_time() {
    let project = tempfile::tempdir().unwrap();
    let serve = Serve::start(project.path());
    let api = Api::of(&serve);
    api.connect_test_agent().await;

    let install = json!({"action": "install", "provider_id": "k2_standard_08gb",
        "consent": {"download_bytes": 1, "stored_bytes": 1, "effect_digest": "blake3:00"}});
    let plan = json!([
        // Unasked: the runtime refuses before anything starts.
        {"call": {"server": "somite", "tool": somite_api::tools::somite::RESOURCE, "id": "unasked",
                  "arguments": install}},
        // Asked: Somite's policy does not answer for the user, not even
        // after they chose "Always allow" for the same call.
        {"call": {"server": "somite", "tool": somite_api::tools::somite::RESOURCE, "id": "asked-1",
                  "permission": true, "arguments": install}},
        {"call": {"server": "somite", "tool": somite_api::tools::somite::RESOURCE, "id": "asked-2",
                  "permission": true, "arguments": install}}
    ]);
    api.ok(
        "/api/agent/prompt",
        json!({"text": format!("Install the small Kraken2 database.\nPLAN: {plan}")}),
    )
    .await;

    for (id, option) in [("asked-1", "allow-always"), ("asked-2", "reject-once")] {
        let permission = api.pending_permission(id).await;
        api.answer_permission(&permission, &json!(option)).await;
    }

    let events = api
        .feed_until("the end of the turn", |events| {
            !events_of(events, somite_api::FeedKind::Agent, "turn_ended").is_empty()
        })
        .await;
    assert_eq!(
        tool_output(&events, "unasked")["code"],
        "resource_permission_required"
    );
    // Allowed by the user, the install reached the manager, which refuses
    // this provider for its own reason (no citable archive checksum).
    assert_eq!(
        tool_output(&events, "asked-1")["code"],
        "resource_unverified"
    );
    let resolved = events_of(&events, somite_api::FeedKind::Agent, "permission_resolved");
    assert_eq!(
        resolved.len(),
        2,
        "both prompts were the user's: {resolved:#?}"
    );
    serve.stop();
}
