//! Managed resources through the runtime's HTTP routes, as the web
//! workspace uses them: a test-only provider (SOMITE_RESOURCE_PROVIDERS_DIR)
//! served from loopback, the consent check, the install job on the activity
//! feed, the store (SOMITE_RESOURCE_DIR) and the resolutions.

use crate::support::ServeChild;
use serde_json::{Value, json};
use sha2::Digest as _;
use somite_api::EnvVars;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

/// Serves `bytes` to every request on a loopback port (no Range: the
/// Range protocol is tested in somite-resource).
fn file_server(bytes: Vec<u8>) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                bytes.len()
            );
            let _ = stream.write_all(&bytes);
        }
    });
    format!("http://{address}/tiny.tar.gz")
}

fn tiny_archive() -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, bytes) in somite_runner::fixtures::KRAKEN2_DATABASE_FILES {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        builder.append_data(&mut header, name, *bytes).unwrap();
    }
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&builder.into_inner().unwrap()).unwrap();
    gz.finish().unwrap()
}

struct Setup {
    _dirs: [tempfile::TempDir; 3],
    serve: ServeChild,
    client: reqwest::Client,
}

const EFFECT: &str = "Test fixture: classifies nothing real.";

fn start(free_disk_limit: Option<&str>) -> Setup {
    let archive = tiny_archive();
    let url = file_server(archive.clone());
    let checksum: String = sha2::Sha256::digest(&archive)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let stored: usize = somite_runner::fixtures::KRAKEN2_DATABASE_FILES
        .iter()
        .map(|(_, b)| b.len())
        .sum();
    let project = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let providers = tempfile::tempdir().unwrap();
    std::fs::write(
        providers.path().join("test_kraken2_tiny.toml"),
        format!(
            "id = \"test_kraken2_tiny\"\nprofile = \"kraken2-database\"\ntitle = \"Tiny (test only)\"\nrelease = \"test-1\"\nurl = \"{url}\"\nchecksum = {{ algorithm = \"sha256\", value = \"{checksum}\" }}\ndownload_bytes = {}\nstored_bytes = {stored}\nscientific_effect = \"{EFFECT}\"\nlicence = \"Apache-2.0\"\ncitation = \"Somite\"\nsource = \"test\"\ntest_only = true\n",
            archive.len()
        ),
    )
    .unwrap();
    let serve = ServeChild::start(project.path(), |command| {
        command
            .env(EnvVars::SOMITE_RESOURCE_DIR, store.path())
            .env(EnvVars::SOMITE_RESOURCE_PROVIDERS_DIR, providers.path());
        if let Some(limit) = free_disk_limit {
            command.env(EnvVars::SOMITE_RESOURCE_FREE_DISK_LIMIT, limit);
        }
    });
    Setup {
        _dirs: [project, store, providers],
        serve,
        client: reqwest::Client::new(),
    }
}

impl Setup {
    async fn get(&self, path: &str) -> (u16, Value) {
        let response = self
            .client
            .get(format!("{}{path}", self.serve.url))
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .client
            .post(format!("{}{path}", self.serve.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }
}

fn consent(provider: &Value) -> Value {
    json!({
        "download_bytes": provider["download_bytes"],
        "stored_bytes": provider["stored_bytes"],
        "effect_digest": provider["effect_digest"],
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_consented_install_reaches_the_store_the_feed_and_the_resolutions() {
    let setup = start(None);
    let (status, overview) = setup.get("/api/resources").await;
    assert_eq!(status, 200, "{overview}");
    let providers = overview["providers"].as_array().unwrap();
    let ids: Vec<_> = providers
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["k2_standard_08gb", "k2_standard", "test_kraken2_tiny"]
    );
    assert_eq!(providers[0]["installable"], false);
    let tiny = providers[2].clone();
    assert_eq!(tiny["installable"], true);

    // The reviewed providers refuse; a consent that differs is refused.
    let (status, body) = setup
        .post(
            "/api/resources/k2_standard_08gb/install",
            json!({"consent": consent(&tiny)}),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("resource_unverified"))
    );
    let mut wrong = consent(&tiny);
    wrong["stored_bytes"] = json!(1);
    let (status, body) = setup
        .post(
            "/api/resources/test_kraken2_tiny/install",
            json!({"consent": wrong}),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (409, Some("consent_mismatch"))
    );
    // Installing is the person's route, not the agent adapter's.
    let (status, _) = setup
        .post(
            "/api/mcp/resources/test_kraken2_tiny/install",
            json!({"consent": consent(&tiny)}),
        )
        .await;
    assert_ne!(status, 202);

    let (status, job) = setup
        .post(
            "/api/resources/test_kraken2_tiny/install",
            json!({"consent": consent(&tiny)}),
        )
        .await;
    assert_eq!(status, 202, "{job}");
    let deadline = Instant::now() + Duration::from_secs(30);
    let installed = loop {
        let (_, inspect) = setup.get("/api/resources/test_kraken2_tiny").await;
        if inspect["job"]["state"] == "installed" {
            break inspect["installed"].clone();
        }
        assert_ne!(inspect["job"]["state"], "failed", "{inspect}");
        assert!(Instant::now() < deadline, "{inspect}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(
        installed["reference"],
        "somite-resource:test_kraken2_tiny@test-1"
    );
    assert_eq!(installed["verified"], true);

    let (_, feed) = setup.get("/api/activity?after=0").await;
    let states: Vec<_> = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == somite_api::FeedKind::Resource)
        .map(|e| e["data"]["state"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(states.first().map(String::as_str), Some("queued"), "{feed}");
    assert_eq!(
        states.last().map(String::as_str),
        Some("installed"),
        "{feed}"
    );

    let (status, resolutions) = setup
        .get("/api/resources/resolutions?profile=kraken2-database")
        .await;
    assert_eq!(status, 200, "{resolutions}");
    let first = &resolutions["resolutions"][0];
    assert_eq!(first["kind"], "installed");
    assert_eq!(first["reference"], installed["reference"]);
    let (status, check) = setup
        .post(
            "/api/resources/check-directory",
            json!({"profile": "kraken2-database", "path": installed["path"]}),
        )
        .await;
    assert_eq!(
        (status, check["ok"].as_bool()),
        (200, Some(true)),
        "{check}"
    );
    // The agent adapter may read.
    let (status, _) = setup.get("/api/mcp/resources").await;
    assert_eq!(status, 401, "without a capability the MCP routes refuse");
}

#[tokio::test(flavor = "multi_thread")]
async fn too_little_disk_is_refused_before_anything_downloads() {
    let setup = start(Some("1000"));
    let (_, overview) = setup.get("/api/resources").await;
    assert_eq!(overview["free_disk_bytes"], 1000);
    let tiny = overview["providers"][2].clone();
    let (status, body) = setup
        .post(
            "/api/resources/test_kraken2_tiny/install",
            json!({"consent": consent(&tiny)}),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (507, Some("insufficient_disk")),
        "{body}"
    );
}

#[test]
fn the_command_line_lists_inspects_and_refuses_unverified_or_unconsented_installs() {
    let store = tempfile::tempdir().unwrap();
    let somite = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_somite"))
            .arg("resource")
            .args(args)
            .env(EnvVars::SOMITE_RESOURCE_DIR, store.path())
            .env("NO_COLOR", "1")
            .output()
            .unwrap()
    };
    let list = somite(&["list", "--json"]);
    assert!(list.status.success());
    let overview: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(overview["providers"][0]["id"], "k2_standard_08gb");
    let inspect = somite(&["inspect", "k2_standard_08gb"]);
    assert!(String::from_utf8_lossy(&inspect.stdout).contains("refuses install"));
    let install = somite(&[
        "install",
        "k2_standard_08gb",
        "--download-bytes",
        "1",
        "--stored-bytes",
        "1",
        "--effect-digest",
        "blake3:00",
    ]);
    assert!(!install.status.success());
    assert!(String::from_utf8_lossy(&install.stderr).contains("resource_unverified"));
    let cancel = somite(&["cancel", "k2_standard_08gb"]);
    assert!(!cancel.status.success());
    assert!(String::from_utf8_lossy(&cancel.stderr).contains("resource_not_found"));
}
