//! `somite serve` as a user runs it: it prints the URL, is ready at once,
//! refuses non-loopback binds and bad configuration, and stops cleanly on
//! Ctrl-C.

use crate::support::ServeChild;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn somite() -> Command {
    Command::new(env!("CARGO_BIN_EXE_somite"))
}

#[test]
fn serve_prints_its_url_answers_and_stops_on_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let mut child = somite()
        .args(["serve", "--port", "0", "--project"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert!(
        line.starts_with("Somite is serving http://127.0.0.1:"),
        "{line}"
    );
    let url = line
        .split_whitespace()
        .nth(3)
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    eprintln!("time to ready: {} ms", started.elapsed().as_millis());

    let address = url.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    use std::io::{Read, Write};
    write!(
        stream,
        "GET /api/workflow HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.contains("Paired-end read QC"),
        "a new project starts from the example"
    );

    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = exit_within_ten_seconds(&mut child, "SIGINT");
    assert!(exit.success(), "{exit:?}");
}

/// How `child` exited, which it must within ten seconds of `signal`.
fn exit_within_ten_seconds(
    child: &mut std::process::Child,
    signal: &str,
) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(exit) = child.try_wait().unwrap() {
            return exit;
        }
        assert!(Instant::now() < deadline, "serve did not stop on {signal}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn serve_refuses_a_non_loopback_address_and_bad_environment() {
    let output = somite()
        .args(["serve", "--host", "0.0.0.0", "--port", "0"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("loopback"));
    let output = somite()
        .args(["serve"])
        .env(somite_api::EnvVars::SOMITE_PORT, "99999")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(somite_api::EnvVars::SOMITE_PORT) && stderr.contains("1..=65535"),
        "{stderr}"
    );
}

/// The JSON answer of `GET {server}{path}`.
fn get(server: &ServeChild, path: &str) -> serde_json::Value {
    tokio_runtime().block_on(async {
        reqwest::get(format!("{}{path}", server.url))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    })
}

/// Posts a one-operation edit as the web workspace does; the status and answer.
fn edit(
    server: &ServeChild,
    base: &str,
    key: &str,
    operation: serde_json::Value,
) -> (u16, serde_json::Value) {
    tokio_runtime().block_on(async {
        let response = reqwest::Client::new()
            .post(format!("{}/api/transactions", server.url))
            .json(&serde_json::json!({
                "base_state_revision": base, "idempotency_key": key,
                "summary": "web edit", "operations": [operation],
            }))
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap())
    })
}

fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn state_revision(workflow: &serde_json::Value) -> String {
    workflow["state_revision"].as_str().unwrap().to_owned()
}

#[test]
fn one_writer_per_project_a_cli_edit_goes_through_the_running_server() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServeChild::start(dir.path(), |_| {});

    // A second server refuses, naming the first.
    let second = somite()
        .args(["serve", "--port", "0", "--project"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(second.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(
        stderr.contains("project_in_use") && stderr.contains(&server.url),
        "{stderr}"
    );

    // What the CLI reads is what the server serves, seed included.
    let served = get(&server, "/api/workflow");
    let shown = somite()
        .args(["graph", "show", "--json", "--project"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(shown.status.success());
    let shown: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(state_revision(&shown), state_revision(&served));

    // A CLI edit goes through the server: acknowledged, on its feed, kept.
    let edit_file = dir.path().join("edit.json");
    std::fs::write(
        &edit_file,
        serde_json::to_vec(&serde_json::json!({
            "base_state_revision": state_revision(&served),
            "idempotency_key": "cli-edit-0001",
            "summary": "a note from the command line",
            "operations": [{"op": "add_note", "note_id": "from-cli", "text": "cli", "x": 0, "y": 0}],
        }))
        .unwrap(),
    )
    .unwrap();
    let applied = somite()
        .args(["graph", "apply", "--json", "--project"])
        .arg(dir.path())
        .arg(&edit_file)
        .output()
        .unwrap();
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stdout)
    );
    assert!(String::from_utf8_lossy(&applied.stderr).contains(&server.url));
    let outcome: serde_json::Value = serde_json::from_slice(&applied.stdout).unwrap();
    let feed = get(&server, "/api/activity?after=0");
    assert!(
        feed.to_string().contains("a note from the command line"),
        "the canvas's feed announces the CLI edit: {feed}"
    );

    // The next web edit builds on it instead of overwriting it.
    let after_cli = get(&server, "/api/workflow");
    assert_eq!(state_revision(&after_cli), outcome["state_revision"]);
    let (status, _) = edit(
        &server,
        &state_revision(&after_cli),
        "web-edit-0001",
        serde_json::json!({"op": "add_note", "note_id": "from-web", "text": "web", "x": 9, "y": 9}),
    );
    assert_eq!(status, 200);

    // Writes without an HTTP route are refused, never applied behind its back.
    let document = dir.path().join("other.somite.json");
    std::fs::write(
        &document,
        serde_json::to_vec(&after_cli["document"]).unwrap(),
    )
    .unwrap();
    let import = somite()
        .args(["graph", "import", "--json", "--project"])
        .arg(dir.path())
        .arg(&document)
        .output()
        .unwrap();
    assert_eq!(import.status.code(), Some(1));
    let refusal: serde_json::Value = serde_json::from_slice(&import.stdout).unwrap();
    assert_eq!(refusal["code"], "project_in_use");
    assert_eq!(refusal["details"]["server_url"], server.url.as_str());

    // A rebind goes through the server, which announces it.
    let rebind = somite()
        .args(["project", "rebind", "--json", "--project"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        rebind.status.success(),
        "{}",
        String::from_utf8_lossy(&rebind.stdout)
    );
    assert!(String::from_utf8_lossy(&rebind.stderr).contains(&server.url));
    let feed = get(&server, "/api/activity?after=0");
    assert!(
        feed["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|event| event["kind"] == somite_api::FeedKind::Rebind),
        "{feed}"
    );

    drop(server);
    let kept = somite_project::Project::open(dir.path(), somite_project::Seed::Empty).unwrap();
    let notes: Vec<&str> = kept
        .document()
        .notes
        .iter()
        .map(|n| n.id.as_str())
        .collect();
    assert!(
        notes.contains(&"from-cli") && notes.contains(&"from-web"),
        "both acknowledged edits are kept: {notes:?}"
    );
}

#[test]
fn a_stale_announcement_never_routes_an_edit_to_another_projects_server() {
    // Project B's server runs; project A holds the announcement a killed
    // server of A left behind, naming B's URL (the default port is every
    // project's).
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let other = ServeChild::start(b.path(), |_| {});
    let b_before = state_revision(&get(&other, "/api/workflow"));
    let mut a_project =
        somite_project::Project::open(a.path(), somite_project::Seed::Empty).unwrap();
    a_project
        .announce_server(&other.url, "0000000000000000")
        .unwrap();
    let a_base = a_project.state_revision().to_string();
    // Keep A's announcement as a killed server leaves it, and A's lock
    // held a moment by another command, which is when the CLI reads it.
    let announcement = std::fs::read(a.path().join(".somite/server.json")).unwrap();
    drop(a_project);
    std::fs::write(a.path().join(".somite/server.json"), &announcement).unwrap();
    let holder = match somite_project::lock::claim(
        &somite_project::layout::Layout::new(a.path()),
        std::time::Duration::from_secs(1),
    )
    .unwrap()
    {
        somite_project::lock::Claim::Acquired(lock) => lock,
        somite_project::lock::Claim::HeldByServer(_) => panic!("nobody holds A"),
    };
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(500));
        drop(holder);
    });

    let edit_file = a.path().join("edit.json");
    std::fs::write(
        &edit_file,
        serde_json::to_vec(&serde_json::json!({
            "base_state_revision": a_base,
            "idempotency_key": "stale-announce-0001",
            "summary": "meant for A",
            "operations": [{"op": "add_note", "note_id": "for-a", "text": "A", "x": 0, "y": 0}],
        }))
        .unwrap(),
    )
    .unwrap();
    let applied = somite()
        .args(["graph", "apply", "--json", "--project"])
        .arg(a.path())
        .arg(&edit_file)
        .output()
        .unwrap();
    release.join().unwrap();
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stdout)
    );
    assert!(
        !String::from_utf8_lossy(&applied.stderr).contains(&other.url),
        "not sent to B's server"
    );
    assert_eq!(
        state_revision(&get(&other, "/api/workflow")),
        b_before,
        "B is untouched"
    );
    assert!(
        !a.path().join(".somite/server.json").exists(),
        "the stale announcement is gone"
    );
    let kept = somite_project::Project::open(a.path(), somite_project::Seed::Empty).unwrap();
    assert!(
        kept.document().notes.iter().any(|n| n.id == "for-a"),
        "A holds its edit"
    );
}

#[test]
fn read_only_commands_never_break_the_servers_writes() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServeChild::start(dir.path(), |_| {});
    let project = dir.path().to_owned();
    let readers = std::thread::spawn(move || {
        for _ in 0..25 {
            for verb in [&["graph", "show"][..], &["assess"][..]] {
                let status = somite()
                    .args(verb)
                    .arg("--project")
                    .arg(&project)
                    .stdout(Stdio::null())
                    .status()
                    .unwrap();
                assert!(status.success());
            }
        }
    });
    let mut base = state_revision(&get(&server, "/api/workflow"));
    let mut edits = 0;
    while !readers.is_finished() || edits < 20 {
        let (status, reply) = edit(
            &server,
            &base,
            &format!("web-edit-{edits:04}"),
            serde_json::json!({"op": "move", "node_id": "reads", "x": edits, "y": 0}),
        );
        assert_eq!(status, 200, "edit {edits} failed beside readers: {reply}");
        base = reply["state_revision"].as_str().unwrap().to_owned();
        edits += 1;
    }
    readers.join().unwrap();
    let served = get(&server, "/api/workflow");
    assert_eq!(state_revision(&served), base);
    drop(server);
    let kept = somite_project::Project::open(dir.path(), somite_project::Seed::Example).unwrap();
    assert_eq!(
        kept.state_revision(),
        &base,
        "every acknowledged edit is on disk"
    );
    eprintln!("{edits} web edits beside 50 read-only commands, all acknowledged and kept");
}

#[test]
fn a_signal_sent_the_moment_the_url_is_printed_stops_serve_cleanly() {
    for signal in ["-INT", "-TERM"] {
        let dir = tempfile::tempdir().unwrap();
        let server = ServeChild::start(dir.path(), |_| {});
        let mut child = server.into_child();
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let exit = exit_within_ten_seconds(&mut child, signal);
        assert!(
            exit.success(),
            "{signal} right after readiness is a clean stop, not a kill: {exit:?}"
        );
        assert!(
            !dir.path().join(".somite/server.json").exists(),
            "a stopped server withdraws its announcement"
        );
    }
}

/// The server's logs reach stderr, and no secret does: here the ACP
/// Registry is a private mirror whose URL carries a password, an `sk-`
/// key and a token that is also in the environment; the mirror is down, so
/// the server logs why it falls back to the bundled registry.
#[test]
fn serve_logs_to_stderr_with_secrets_redacted() {
    // A loopback port with nothing listening: the fetch is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let password = "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
    let key = "sk-proj-ZyXwVuTsRqPoNmLkJiHg";
    // 64 hex characters, like a capability: no pattern knows this shape;
    // it is a secret because a secret-shaped variable holds it.
    let token = "0f1e2d3c4b5a69788796a5b4c3d2e1f00123456789abcdeffedcba9876543210";
    let registry =
        format!("http://somite:{password}@127.0.0.1:{port}/registry.json?key={key}&access={token}");
    let dir = tempfile::tempdir().unwrap();
    let server = ServeChild::start(dir.path(), |command| {
        command
            .env(somite_api::EnvVars::SOMITE_ACP_REGISTRY_URL, &registry)
            .env("REGISTRY_TOKEN", token)
            .env_remove(somite_api::EnvVars::SOMITE_LOG)
            .env_remove(somite_api::EnvVars::RUST_LOG)
            .stderr(Stdio::piped());
    });
    let url = server.url.clone();
    let mut child = server.into_child();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (lines, logged) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });

    let launchers: serde_json::Value = tokio_runtime().block_on(async {
        reqwest::get(format!("{url}/api/agent/launchers"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    });
    assert!(launchers.is_object(), "{launchers}");
    let line = logged
        .iter()
        .find(|line| line.contains("using the bundled ACP registry snapshot"))
        .expect("the fallback is logged on stderr");
    assert!(line.contains("INFO"), "{line}");
    assert!(
        line.contains("[redacted]") && line.contains(&format!("127.0.0.1:{port}")),
        "the line keeps its context: {line}"
    );
    for secret in [password, key, token, "ghp_", "sk-"] {
        assert!(!line.contains(secret), "{secret} logged: {line}");
    }

    // A refusal leaves one warn line: route and reason, not the header.
    let status = tokio_runtime().block_on(async {
        reqwest::Client::new()
            .get(format!("{url}/api/health"))
            .header("origin", "http://attacker.example")
            .send()
            .await
            .unwrap()
            .status()
    });
    assert_eq!(status, 403);
    let refusal = logged
        .iter()
        .find(|line| line.contains("request refused"))
        .expect("the refusal is logged");
    assert!(
        refusal.contains("WARN")
            && refusal.contains("/api/health")
            && refusal.contains("forbidden_origin"),
        "{refusal}"
    );
    assert!(!refusal.contains("attacker.example"), "{refusal}");

    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(exit_within_ten_seconds(&mut child, "SIGINT").success());
}

#[test]
fn each_request_is_logged_at_debug_with_its_route_status_and_time() {
    let dir = tempfile::tempdir().unwrap();
    let server = ServeChild::start(dir.path(), |command| {
        command
            .env(somite_api::EnvVars::SOMITE_LOG, "somite_server=debug")
            .stderr(Stdio::piped());
    });
    let url = server.url.clone();
    let mut child = server.into_child();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    let (lines, logged) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    tokio_runtime().block_on(async {
        reqwest::get(format!("{url}/api/workflow/read?cursor=secret-cursor"))
            .await
            .unwrap()
    });
    let line = logged
        .iter()
        .find(|line| line.contains("request") && line.contains("/api/workflow/read"))
        .expect("the request is logged");
    assert!(
        line.contains("DEBUG") && line.contains("GET") && line.contains("status=400"),
        "{line}"
    );
    assert!(line.contains("ms="), "{line}");
    assert!(!line.contains("secret-cursor"), "no query: {line}");
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(exit_within_ten_seconds(&mut child, "SIGINT").success());
}
