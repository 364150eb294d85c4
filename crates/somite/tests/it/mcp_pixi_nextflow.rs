//! The Pixi and Nextflow MCP servers over stdio, driven by the official rmcp
//! client against the real `somite` binary.
//!
//! The manuals are the copies of Pixi 0.77.0 and Nextflow 26.04.6 committed
//! under the repository's `tests/data/manuals/`, imported into a per-test
//! documentation cache. Pixi and Nextflow are not installed on every machine:
//! the tests that need the real binaries say `skipped: ... not installed` and
//! return; the others run the servers with a PATH that lacks them, or with a
//! stand-in script playing the binary, which shows the exact argument arrays
//! the servers pass.

use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;
use tokio::process::Command;

const PIXI_DOCS: &str = "pixi-v0.77.0";
const NEXTFLOW_DOCS: &str = "nextflow-v26.04.6";
/// A PATH with a shell and coreutils but neither Pixi nor Nextflow.
const SYSTEM_PATH: &str = "/usr/bin:/bin";

/// A manual committed under the repository's `tests/data/manuals/` (its
/// README says which upstream tag each one is).
fn upstream(manual: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/manuals")
        .join(manual)
}

fn count_markdown(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .expect("manual directory")
        .map(|entry| entry.expect("directory entry").path())
        .map(|path| {
            if path.is_dir() {
                count_markdown(&path)
            } else {
                usize::from(path.extension().is_some_and(|ext| ext == "md"))
            }
        })
        .sum()
}

/// Where `binary` is on the machine's own PATH, if anywhere.
fn installed(binary: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(binary))
        .find(|candidate| candidate.is_file())
}

/// Says plainly that a test needing `binary` did not run. Written to the
/// process's stderr directly, past the test harness's output capture, so it
/// shows in every test log.
fn skipped(test: &str, binary: &str) {
    somite_test_support::skipped(test, &format!("{binary} not installed"));
}

/// One server process and the directories it owns.
struct Session {
    client: RunningService<RoleClient, ()>,
    root: tempfile::TempDir,
    _cache: tempfile::TempDir,
}

struct Launch<'a> {
    server: &'a str,
    path: String,
    lifecycle: ClientLifecycleMode,
    extra_env: Vec<(&'a str, String)>,
}

impl<'a> Launch<'a> {
    fn new(server: &'a str) -> Self {
        Self {
            server,
            path: SYSTEM_PATH.to_owned(),
            lifecycle: ClientLifecycleMode::Initialize,
            extra_env: Vec::new(),
        }
    }

    fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    fn lifecycle(mut self, lifecycle: ClientLifecycleMode) -> Self {
        self.lifecycle = lifecycle;
        self
    }

    fn env(mut self, name: &'a str, value: impl Into<String>) -> Self {
        self.extra_env.push((name, value.into()));
        self
    }

    async fn start(self) -> Session {
        let root = tempfile::tempdir().expect("workspace root");
        let cache = tempfile::tempdir().expect("docs cache");
        let manual = if self.server == "pixi" {
            PIXI_DOCS
        } else {
            NEXTFLOW_DOCS
        };
        let mut command = Command::new(env!("CARGO_BIN_EXE_somite"));
        command
            .args(["mcp", self.server, "--workspace-root"])
            .arg(root.path())
            .arg("--docs-source")
            .arg(upstream(manual))
            .env_clear()
            .env("PATH", &self.path)
            .env("HOME", root.path())
            .env(somite_api::EnvVars::SOMITE_MCP_DOCS_CACHE_DIR, cache.path())
            .env(somite_api::EnvVars::SOMITE_LOG, "warn")
            .envs(
                self.extra_env
                    .iter()
                    .map(|(name, value)| (*name, value.as_str())),
            );
        let (transport, _stderr) = TokioChildProcess::builder(command)
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn somite");
        let client = ().serve_with_lifecycle(transport, self.lifecycle).await.expect("MCP session");
        Session {
            client,
            root,
            _cache: cache,
        }
    }
}

impl Session {
    async fn call(&self, tool: &str, arguments: Value) -> CallToolResult {
        let Value::Object(arguments) = arguments else {
            panic!("tool arguments are an object");
        };
        self.client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
            .await
            .unwrap_or_else(|error| panic!("{tool} call failed: {error}"))
    }

    /// Calls `tool` and returns its structured content, asserting success.
    async fn ok(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments).await;
        assert_ne!(result.is_error, Some(true), "{tool}: {result:?}");
        result.structured_content.expect("structured content")
    }

    /// Calls `tool` and returns its failure envelope, asserting failure.
    async fn error(&self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments).await;
        assert_eq!(result.is_error, Some(true), "{tool}: {result:?}");
        let envelope = result.structured_content.expect("structured error");
        for field in ["code", "message", "recovery"] {
            assert!(envelope[field].is_string(), "{field} missing: {envelope}");
        }
        envelope
    }

    async fn tools(&self) -> Vec<Tool> {
        self.client.list_all_tools().await.expect("tools/list")
    }
}

fn assert_closed_and_annotated(tools: &[Tool], expected: &[&str]) {
    let names: BTreeSet<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(names, expected.iter().copied().collect(), "tool names");
    for tool in tools {
        assert_eq!(
            tool.input_schema.get("additionalProperties"),
            Some(&json!(false)),
            "{} input schema is closed",
            tool.name
        );
        let output = tool
            .output_schema
            .as_ref()
            .unwrap_or_else(|| panic!("{} has an output schema", tool.name));
        assert_eq!(output.get("type"), Some(&json!("object")), "{}", tool.name);
        assert!(
            output["$defs"].get("Error").is_some(),
            "{} output schema covers the failure envelope",
            tool.name
        );
        let annotations = tool
            .annotations
            .as_ref()
            .unwrap_or_else(|| panic!("{} is annotated", tool.name));
        for hint in [
            annotations.read_only_hint,
            annotations.destructive_hint,
            annotations.idempotent_hint,
            annotations.open_world_hint,
        ] {
            assert!(hint.is_some(), "{} declares every hint", tool.name);
        }
        if tool.name.contains("_docs_") {
            assert_eq!(annotations.read_only_hint, Some(true), "{}", tool.name);
            assert_eq!(annotations.open_world_hint, Some(false), "{}", tool.name);
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn pixi_tools_have_closed_schemas_output_schemas_and_annotations() {
    let session = Launch::new("pixi").start().await;
    let tools = session.tools().await;
    assert_closed_and_annotated(
        &tools,
        &[
            somite_api::tools::pixi::DOCS_SEARCH,
            somite_api::tools::pixi::DOCS_READ,
            somite_api::tools::pixi::DOCS_LIST,
            somite_api::tools::pixi::RUNTIME_INFO,
            somite_api::tools::pixi::INSPECT,
            somite_api::tools::pixi::PACKAGE_SEARCH,
            somite_api::tools::pixi::DEPENDENCY,
            somite_api::tools::pixi::LOCK,
            somite_api::tools::pixi::WORKSPACE,
            somite_api::tools::pixi::ENVIRONMENT,
            somite_api::tools::pixi::TASK,
        ],
    );
    let task = tools
        .iter()
        .find(|tool| tool.name == somite_api::tools::pixi::TASK)
        .expect(somite_api::tools::pixi::TASK);
    let annotations = task.annotations.as_ref().expect("annotations");
    assert_eq!(
        annotations.read_only_hint,
        Some(false),
        "running a task executes code"
    );
    assert_eq!(annotations.destructive_hint, Some(true));
}

#[tokio::test(flavor = "multi_thread")]
async fn nextflow_tools_have_closed_schemas_output_schemas_and_annotations() {
    let session = Launch::new("nextflow").start().await;
    let tools = session.tools().await;
    assert_closed_and_annotated(
        &tools,
        &[
            somite_api::tools::nextflow::DOCS_SEARCH,
            somite_api::tools::nextflow::DOCS_READ,
            somite_api::tools::nextflow::DOCS_LIST,
            somite_api::tools::nextflow::RUNTIME_INFO,
            somite_api::tools::nextflow::ANALYZE,
            somite_api::tools::nextflow::RUN,
            somite_api::tools::nextflow::HISTORY,
        ],
    );
    let history = tools
        .iter()
        .find(|tool| tool.name == somite_api::tools::nextflow::HISTORY)
        .expect("history");
    assert_eq!(
        history.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_argument_is_refused() {
    let session = Launch::new("pixi").start().await;
    let arguments = json!({ "query": "lock", "shell": "rm -rf /" });
    let Value::Object(arguments) = arguments else {
        unreachable!()
    };
    let result = session
        .client
        .call_tool(
            CallToolRequestParams::new(somite_api::tools::pixi::DOCS_SEARCH)
                .with_arguments(arguments),
        )
        .await
        .expect("rmcp reports invalid arguments as a tool error");
    assert_eq!(result.is_error, Some(true));
    let text = result
        .content
        .first()
        .and_then(|block| block.as_text())
        .map(|text| text.text.as_str());
    assert!(
        text.is_some_and(|text| text.contains("unknown field `shell`")),
        "{text:?}"
    );
    // The same structured envelope as every other expected failure.
    let envelope = result.structured_content.expect("structured error");
    assert_eq!(envelope["code"], "invalid_argument", "{envelope}");
    assert!(envelope["recovery"].is_string(), "{envelope}");
}

#[tokio::test(flavor = "multi_thread")]
async fn page_lists_match_the_manuals() {
    for (server, manual) in [("pixi", PIXI_DOCS), ("nextflow", NEXTFLOW_DOCS)] {
        let session = Launch::new(server).start().await;
        let list = session.ok(&format!("{server}_docs_list"), json!({})).await;
        let expected = count_markdown(&upstream(manual));
        assert_eq!(list["manual"]["page_count"], json!(expected), "{server}");
        assert_eq!(
            list["pages"].as_array().map(Vec::len),
            Some(expected),
            "{server}"
        );
        assert!(expected > 90, "{server} manual has {expected} pages");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_returns_the_page_as_markdown_in_slices() {
    let session = Launch::new("pixi").start().await;
    let page = session
        .ok(
            somite_api::tools::pixi::DOCS_READ,
            json!({ "path": "workspace/lock_file.md" }),
        )
        .await;
    assert_eq!(page["title"], "Lock file");
    let content = page["content"].as_str().expect("content");
    assert!(content.contains("## What is a lock file?"), "{content}");
    assert!(
        !content.contains("!!! "),
        "admonitions are normalised: {content}"
    );
    assert_eq!(
        page["source_url"],
        "https://github.com/prefix-dev/pixi/blob/v0.77.0/docs/workspace/lock_file.md"
    );

    let first = session
        .ok(
            somite_api::tools::pixi::DOCS_READ,
            json!({ "path": "workspace/lock_file.md", "max_bytes": 1000 }),
        )
        .await;
    let next = first["next_offset"].as_u64().expect("the page continues");
    assert!(next <= 1000);
    let second = session
        .ok(
            somite_api::tools::pixi::DOCS_READ,
            json!({ "path": "workspace/lock_file.md", "offset": next, "max_bytes": 1000 }),
        )
        .await;
    assert_eq!(second["offset"].as_u64(), Some(next));

    let missing = session
        .error(
            somite_api::tools::pixi::DOCS_READ,
            json!({ "path": "workspace/nope.md" }),
        )
        .await;
    assert_eq!(missing["code"], "not_found");
}

async fn first_hit(session: &Session, tool: &str, query: &str) -> String {
    let result = session
        .ok(tool, json!({ "query": query, "limit": 5 }))
        .await;
    let hit = &result["hits"][0];
    assert!(
        hit["snippet"].as_str().is_some_and(|s| !s.is_empty()),
        "{query}: {hit}"
    );
    hit["path"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn pixi_searches_rank_the_right_page_first() {
    let session = Launch::new("pixi").start().await;
    for (query, page) in [
        ("lock file", "workspace/lock_file.md"),
        ("pypi dependencies", "concepts/conda_pypi.md"),
        ("task dependencies", "workspace/advanced_tasks.md"),
    ] {
        assert_eq!(
            first_hit(&session, somite_api::tools::pixi::DOCS_SEARCH, query).await,
            page,
            "{query}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nextflow_searches_rank_the_right_page_first() {
    let session = Launch::new("nextflow").start().await;
    for (query, page) in [
        ("process directives", "process.md"),
        ("channel factory", "reference/channel.md"),
        ("executor slurm", "executor.md"),
        ("resume", "cache-and-resume.md"),
    ] {
        assert_eq!(
            first_hit(&session, somite_api::tools::nextflow::DOCS_SEARCH, query).await,
            page,
            "{query}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_stateless_2026_07_28_protocol_is_served() {
    let session = Launch::new("nextflow")
        .lifecycle(ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        })
        .start()
        .await;
    assert_eq!(session.tools().await.len(), 7);
    assert_eq!(
        first_hit(
            &session,
            somite_api::tools::nextflow::DOCS_SEARCH,
            "channel factory"
        )
        .await,
        "reference/channel.md"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn paths_outside_the_workspace_root_are_rejected() {
    let session = Launch::new("nextflow").start().await;
    let root = session.root.path();
    std::fs::create_dir_all(root.join("project")).expect("project");
    std::fs::write(root.join("project/main.nf"), "workflow {}\n").expect("script");
    std::os::unix::fs::symlink("/etc", root.join("escape")).expect("symlink");
    std::os::unix::fs::symlink(root.join("project/main.nf"), root.join("alias.nf"))
        .expect("symlink");
    for (project, script) in [
        ("..", None),
        ("project/../..", None),
        ("/etc", None),
        ("escape", None),
        ("project", Some("/etc/passwd")),
        ("project", Some("../outside.nf")),
        ("project", Some("alias.nf")),
    ] {
        let mut arguments = json!({ "mode": "preview", "project": project });
        if let Some(script) = script {
            arguments["script"] = json!(script);
        }
        let envelope = session
            .error(somite_api::tools::nextflow::RUN, arguments)
            .await;
        assert_eq!(
            envelope["code"], "path_rejected",
            "{project} {script:?}: {envelope}"
        );
    }

    let pixi = Launch::new("pixi").start().await;
    std::os::unix::fs::symlink("/tmp", pixi.root.path().join("outside")).expect("symlink");
    for workspace in ["../", "/usr", "outside"] {
        let envelope = pixi
            .error(
                somite_api::tools::pixi::INSPECT,
                json!({ "action": "manifest", "workspace": workspace }),
            )
            .await;
        assert_eq!(envelope["code"], "path_rejected", "{workspace}: {envelope}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_binaries_are_toolchain_missing_while_docs_keep_working() {
    for binary in ["pixi", "nextflow"] {
        assert!(
            SYSTEM_PATH
                .split(':')
                .all(|dir| !Path::new(dir).join(binary).exists()),
            "{binary} must not be in {SYSTEM_PATH} for this test"
        );
    }
    let pixi = Launch::new("pixi").start().await;
    let envelope = pixi
        .error(somite_api::tools::pixi::RUNTIME_INFO, json!({}))
        .await;
    assert_eq!(envelope["code"], "toolchain_missing");
    assert!(
        envelope["recovery"]
            .as_str()
            .is_some_and(|r| r.contains("0.77")),
        "{envelope}"
    );
    let envelope = pixi
        .error(somite_api::tools::pixi::LOCK, json!({ "action": "check" }))
        .await;
    assert_eq!(envelope["code"], "toolchain_missing");
    assert!(
        pixi.ok(
            somite_api::tools::pixi::DOCS_SEARCH,
            json!({ "query": "lock file" })
        )
        .await["hits"][0]
            .is_object()
    );

    let nextflow = Launch::new("nextflow").start().await;
    let envelope = nextflow
        .error(somite_api::tools::nextflow::RUNTIME_INFO, json!({}))
        .await;
    assert_eq!(envelope["code"], "toolchain_missing");
    assert!(
        envelope["recovery"]
            .as_str()
            .is_some_and(|r| r.contains("26.04")),
        "{envelope}"
    );
    assert!(
        nextflow
            .ok(somite_api::tools::nextflow::DOCS_LIST, json!({}))
            .await["pages"]
            .is_array()
    );
}

/// A directory holding a stand-in `pixi`: it answers `--version` with
/// `version`, lists one task named `hello`, and otherwise prints its
/// arguments one per line followed by its environment's variable names.
fn fake_pixi(version: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = format!(
        r#"#!/bin/sh
if [ "$1" = "--version" ]; then echo "pixi {version}"; exit 0; fi
for arg in "$@"; do
  if [ "$arg" = "list" ] && [ "$4" = "task" ]; then
    echo '{{"environments":[{{"name":"default","tasks":[{{"name":"hello","cmd":"echo hello"}}]}}]}}'
    exit 0
  fi
done
printf '%s\n' "$@"
echo "--- env"
env | cut -d= -f1 | sort
"#
    );
    let path = dir.path().join("pixi");
    std::fs::write(&path, script).expect("write fake pixi");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

fn command_of(result: &Value) -> Vec<String> {
    serde_json::from_value(result["command"].clone()).expect("command array")
}

#[tokio::test(flavor = "multi_thread")]
async fn another_pixi_release_fails_closed_with_both_versions() {
    let fake = fake_pixi("0.70.2");
    let session = Launch::new("pixi")
        .path(format!("{}:{SYSTEM_PATH}", fake.path().display()))
        .start()
        .await;
    let envelope = session
        .error(somite_api::tools::pixi::LOCK, json!({ "action": "check" }))
        .await;
    assert_eq!(envelope["code"], "toolchain_version_mismatch");
    let message = envelope["message"].as_str().expect("message");
    assert!(
        message.contains("0.70.2") && message.contains("0.77.1"),
        "{message}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_proven_pixi_receives_fixed_argument_arrays_and_an_allowlisted_environment() {
    let fake = fake_pixi("0.77.1");
    let session = Launch::new("pixi")
        .path(format!("{}:{SYSTEM_PATH}", fake.path().display()))
        .env("AWS_SECRET_ACCESS_KEY", "must-not-leak")
        .env("PIXI_TLS_NO_VERIFY", "true")
        .start()
        .await;
    let root = session.root.path().canonicalize().expect("root");
    let executable = fake.path().join("pixi").display().to_string();
    let manifest = root.display().to_string();

    let check = session
        .ok(somite_api::tools::pixi::LOCK, json!({ "action": "check" }))
        .await;
    assert_eq!(
        command_of(&check),
        [
            executable.as_str(),
            "--color",
            "never",
            "--no-progress",
            "lock",
            "--check",
            "--dry-run",
            "--json",
            "--manifest-path",
            manifest.as_str(),
        ]
    );
    assert_eq!(check["cwd"], manifest);
    assert_eq!(check["ok"], true);
    let stdout = check["stdout"].as_str().expect("stdout");
    let (_, env) = stdout.split_once("--- env\n").expect("env listing");
    assert!(
        !env.contains("AWS_SECRET_ACCESS_KEY") && !env.contains("PIXI_TLS_NO_VERIFY"),
        "{env}"
    );
    assert!(env.lines().any(|name| name == "PATH"), "{env}");

    let add = session
        .ok(
            somite_api::tools::pixi::DEPENDENCY,
            json!({ "action": "add", "specs": ["samtools>=1.20"], "feature": "qc" }),
        )
        .await;
    let add = command_of(&add);
    assert_eq!(
        add[4..],
        [
            "add",
            "--feature",
            "qc",
            "--no-install",
            "--manifest-path",
            manifest.as_str(),
            "--",
            "samtools>=1.20"
        ]
    );

    let option_injection = session
        .error(
            somite_api::tools::pixi::DEPENDENCY,
            json!({ "action": "add", "specs": ["--tls-no-verify"] }),
        )
        .await;
    assert_eq!(option_injection["code"], "invalid_argument");
    let bad_name = session
        .error(
            somite_api::tools::pixi::INSPECT,
            json!({ "action": "packages", "environment": "-e" }),
        )
        .await;
    assert_eq!(bad_name["code"], "invalid_argument");

    let run = session
        .ok(
            somite_api::tools::pixi::TASK,
            json!({ "action": "run", "task": "hello" }),
        )
        .await;
    assert_eq!(
        command_of(&run)[4..],
        [
            "run",
            "--locked",
            "--manifest-path",
            manifest.as_str(),
            "hello"
        ]
    );
    let undefined = session
        .error(
            somite_api::tools::pixi::TASK,
            json!({ "action": "run", "task": "rm" }),
        )
        .await;
    assert_eq!(undefined["code"], "not_found");
}

#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_call_kills_the_tool_process() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pid_file = dir.path().join("pid");
    let script = format!(
        "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo 'pixi 0.77.1'; exit 0; fi\necho $$ > {}\nexec sleep 30\n",
        pid_file.display()
    );
    std::fs::write(dir.path().join("pixi"), script).expect("write");
    std::fs::set_permissions(
        dir.path().join("pixi"),
        std::fs::Permissions::from_mode(0o755),
    )
    .expect("chmod");
    let session = Launch::new("pixi")
        .path(format!("{}:{SYSTEM_PATH}", dir.path().display()))
        .start()
        .await;
    let call = session.call(somite_api::tools::pixi::LOCK, json!({ "action": "lock" }));
    // Dropping the call's future sends notifications/cancelled.
    let abandoned = tokio::time::timeout(Duration::from_secs(3), call).await;
    assert!(abandoned.is_err(), "the tool was still running");
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("the tool started")
        .trim()
        .parse()
        .expect("pid");
    for _ in 0..100 {
        let alive = std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
        });
        if !alive {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("process {pid} survived the cancelled call");
}

#[tokio::test(flavor = "multi_thread")]
async fn real_pixi_is_exercised_when_installed() {
    let Some(pixi) = installed("pixi") else {
        skipped("real_pixi_is_exercised_when_installed", "pixi");
        return;
    };
    let path = format!(
        "{}:{SYSTEM_PATH}",
        pixi.parent().expect("bin dir").display()
    );
    let session = Launch::new("pixi").path(path).start().await;
    let info = session
        .ok(somite_api::tools::pixi::RUNTIME_INFO, json!({}))
        .await;
    assert!(
        info["version"]
            .as_str()
            .is_some_and(|v| v.starts_with("0.77.")),
        "{info}"
    );
    std::fs::write(
        session.root.path().join("pixi.toml"),
        "[workspace]\nname = \"probe\"\nchannels = [\"conda-forge\"]\nplatforms = [\"linux-64\"]\n\n[tasks]\nhello = \"echo hello\"\n",
    )
    .expect("manifest");
    let tasks = session
        .ok(somite_api::tools::pixi::TASK, json!({ "action": "list" }))
        .await;
    assert_eq!(tasks["ok"], true, "{tasks}");
    let manifest = session
        .ok(
            somite_api::tools::pixi::INSPECT,
            json!({ "action": "manifest" }),
        )
        .await;
    assert_eq!(manifest["ok"], true, "{manifest}");
}

#[tokio::test(flavor = "multi_thread")]
async fn real_nextflow_is_exercised_when_installed() {
    let Some(nextflow) = installed("nextflow") else {
        skipped("real_nextflow_is_exercised_when_installed", "nextflow");
        return;
    };
    let path = format!(
        "{}:{SYSTEM_PATH}",
        nextflow.parent().expect("bin dir").display()
    );
    let session = Launch::new("nextflow")
        .path(path)
        .env("JAVA_HOME", std::env::var("JAVA_HOME").unwrap_or_default())
        .start()
        .await;
    let info = session
        .ok(somite_api::tools::nextflow::RUNTIME_INFO, json!({}))
        .await;
    assert!(
        info["version"]
            .as_str()
            .is_some_and(|v| v.starts_with("26.04")),
        "{info}"
    );
    std::fs::write(
        session.root.path().join("main.nf"),
        "process hello {\n    output:\n    stdout\n\n    script:\n    \"\"\"\n    echo hello\n    \"\"\"\n}\n\nworkflow {\n    hello()\n}\n",
    )
    .expect("script");
    let lint = session
        .ok(
            somite_api::tools::nextflow::ANALYZE,
            json!({ "action": "lint" }),
        )
        .await;
    assert_eq!(lint["ok"], true, "{lint}");
    let preview = session
        .ok(
            somite_api::tools::nextflow::RUN,
            json!({ "mode": "preview" }),
        )
        .await;
    assert_eq!(preview["ok"], true, "{preview}");
}

#[tokio::test(flavor = "multi_thread")]
async fn hard_links_and_links_the_tools_would_use_are_rejected() {
    let outside = tempfile::tempdir().expect("outside");
    let secret = outside.path().join("secret.nf");
    std::fs::write(&secret, "workflow {}\n").expect("outside file");

    let nextflow = Launch::new("nextflow").start().await;
    let root = nextflow.root.path();
    std::fs::create_dir_all(root.join("project")).expect("project");
    std::fs::create_dir_all(root.join("linked")).expect("project");
    std::fs::write(root.join("project/main.nf"), "workflow {}\n").expect("script");
    std::fs::hard_link(&secret, root.join("project/other.nf")).expect("hard link");
    std::fs::hard_link(&secret, root.join("linked/main.nf")).expect("hard link");
    std::fs::create_dir_all(root.join("scratch")).expect("project");
    std::fs::write(root.join("scratch/main.nf"), "workflow {}\n").expect("script");
    std::os::unix::fs::symlink(outside.path(), root.join("scratch/work")).expect("symlink");
    for (project, script) in [
        ("project", Some("project/other.nf")),
        ("linked", None),
        ("scratch", None),
    ] {
        let mut arguments = json!({ "mode": "preview", "project": project });
        if let Some(script) = script {
            arguments["script"] = json!(script);
        }
        let envelope = nextflow
            .error(somite_api::tools::nextflow::RUN, arguments)
            .await;
        assert_eq!(
            envelope["code"], "path_rejected",
            "{project} {script:?}: {envelope}"
        );
    }

    let pixi = Launch::new("pixi").start().await;
    let manifest = outside.path().join("pixi.toml");
    std::fs::write(&manifest, "[workspace]\n").expect("outside manifest");
    std::fs::hard_link(&manifest, pixi.root.path().join("pixi.toml")).expect("hard link");
    for workspace in [".", "pixi.toml"] {
        let envelope = pixi
            .error(
                somite_api::tools::pixi::DEPENDENCY,
                json!({ "action": "add", "specs": ["samtools"], "workspace": workspace }),
            )
            .await;
        assert_eq!(envelope["code"], "path_rejected", "{workspace}: {envelope}");
    }
    assert_eq!(
        std::fs::read_to_string(&manifest).expect("manifest"),
        "[workspace]\n"
    );
}

/// A stand-in `pixi` whose `workspace export conda-explicit-spec` writes one
/// spec file into the output directory it is given (its last argument), the
/// way Pixi does.
fn exporting_pixi() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = r#"#!/bin/sh
if [ "$1" = "--version" ]; then echo "pixi 0.77.1"; exit 0; fi
for out; do :; done
mkdir -p "$out" && printf '@EXPLICIT\n' > "$out/default_linux-64_conda_spec.txt"
"#;
    let path = dir.path().join("pixi");
    std::fs::write(&path, script).expect("write stand-in");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files.extend(files_below(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[tokio::test(flavor = "multi_thread")]
async fn an_export_lands_in_its_output_directory_and_never_through_a_swapped_link() {
    let fake = exporting_pixi();
    let session = Launch::new("pixi")
        .path(format!("{}:{SYSTEM_PATH}", fake.path().display()))
        .start()
        .await;
    let root = session.root.path().to_path_buf();
    let export = json!({ "action": "export_conda_explicit_spec", "output_dir": "out/envs" });

    let exported = session
        .ok(somite_api::tools::pixi::WORKSPACE, export.clone())
        .await;
    assert_eq!(exported["ok"], true, "{exported}");
    assert_eq!(
        exported["parsed"],
        json!({ "output_dir": "out/envs", "files": ["out/envs/default_linux-64_conda_spec.txt"] })
    );
    assert_eq!(
        std::fs::read_to_string(root.join("out/envs/default_linux-64_conda_spec.txt"))
            .expect("published"),
        "@EXPLICIT\n"
    );

    // Another thread keeps swapping `out` between a directory and a link to
    // a folder outside the root while the export runs again and again.
    let outside = tempfile::tempdir().expect("outside");
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let done = std::sync::Arc::clone(&done);
        let out = root.join("out");
        let target = outside.path().to_path_buf();
        std::thread::spawn(move || {
            // Losing a race to the tool (a directory not empty, an entry
            // already gone) is part of the test, so failures are ignored.
            let mut swaps = 0_u64;
            while !done.load(std::sync::atomic::Ordering::Relaxed) && swaps < 10_000_000 {
                let _ = std::fs::remove_dir_all(&out);
                let _ = std::fs::remove_file(&out);
                let _ = std::os::unix::fs::symlink(&target, &out);
                std::thread::yield_now();
                let _ = std::fs::remove_file(&out);
                let _ = std::fs::create_dir_all(out.join("envs"));
                std::thread::yield_now();
                swaps += 1;
            }
            swaps
        })
    };
    let mut outcomes = BTreeSet::new();
    let mut escapes = Vec::new();
    for call in 0..200 {
        let result = session
            .call(somite_api::tools::pixi::WORKSPACE, export.clone())
            .await;
        let content = result.structured_content.expect("structured content");
        outcomes.insert(if result.is_error == Some(true) {
            content["code"].as_str().unwrap_or_default().to_owned()
        } else {
            "ok".to_owned()
        });
        // Cleared after each call, so every call that wrote outside counts.
        for escaped in files_below(outside.path()) {
            escapes.push(format!("call {call}: {}", escaped.display()));
            std::fs::remove_file(escaped).expect("clear the outside folder");
        }
    }
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let swaps = swapper.join().expect("swapper");
    assert!(swaps > 0);
    assert!(
        escapes.is_empty(),
        "{} of 200 exports wrote outside the root ({outcomes:?}): {escapes:#?}",
        escapes.len()
    );
    assert!(
        outcomes.iter().all(
            |outcome| ["ok", "path_rejected", "write_failed", "not_found"]
                .contains(&outcome.as_str())
        ),
        "{outcomes:?}"
    );
}
