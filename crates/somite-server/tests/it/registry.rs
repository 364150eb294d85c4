//! The live ACP Registry behind `GET /api/agent/launchers`: a served
//! registry is used (and cached), and every way a fetch can fail — an error
//! status, a document too large, one that is not a registry, nothing
//! listening — falls back to the bundled snapshot with the reason shown.

use serde_json::Value;
use somite_project::{Project, Seed};
use somite_server::config::ServerConfig;
use somite_server::registry_fetch::MAX_REGISTRY_BYTES;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A one-route HTTP server answering every request with `status` and
/// `body`; returns its URL and how many requests it served.
async fn serve(status: &'static str, body: Vec<u8>) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/registry.json", listener.local_addr().unwrap());
    let served = Arc::new(AtomicUsize::new(0));
    let count = served.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            let mut request = [0u8; 4096];
            let _ = socket.read(&mut request).await;
            let head = format!(
                "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(&body).await;
        }
    });
    (url, served)
}

async fn launchers(registry_url: Option<String>) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    let mut config = ServerConfig::loopback(dir.path(), "somite").unwrap();
    config.agents.registry_url = registry_url;
    let server = somite_server::start(&config, project).await.unwrap();
    let url = format!("{}/api/agent/launchers", server.url());
    reqwest::get(&url).await.unwrap().json().await.unwrap()
}

fn ids(list: &Value) -> Vec<String> {
    list["launchers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|launcher| launcher["id"].as_str().unwrap().to_owned())
        .collect()
}

const SERVED_REGISTRY: &str = r#"{"version": "1.0.0", "agents": [{
    "id": "served-agent", "name": "Served agent", "version": "2.0.0",
    "description": "Only in the served registry",
    "distribution": {"npx": {"package": "@example/served-agent@2.0.0", "args": ["--acp"]}}
}]}"#;

#[tokio::test]
async fn a_served_registry_is_listed_and_fetched_once() {
    let (url, served) = serve("200 OK", SERVED_REGISTRY.into()).await;
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    let mut config = ServerConfig::loopback(dir.path(), "somite").unwrap();
    config.agents.registry_url = Some(url.clone());
    let server = somite_server::start(&config, project).await.unwrap();
    let route = format!("{}/api/agent/launchers", server.url());
    let list: Value = reqwest::get(&route).await.unwrap().json().await.unwrap();
    assert_eq!(list["registry"]["kind"], "source");
    assert_eq!(list["registry"]["name"], url.as_str());
    assert_eq!(ids(&list), ["served-agent"]);
    let again: Value = reqwest::get(&route).await.unwrap().json().await.unwrap();
    assert_eq!(again, list);
    assert_eq!(served.load(Ordering::SeqCst), 1, "the answer is cached");
}

#[tokio::test]
async fn every_failed_fetch_falls_back_to_the_bundled_snapshot_and_says_why() {
    let unused = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let nothing_listening = format!("http://{}/registry.json", unused.local_addr().unwrap());
    drop(unused);
    let cases = [
        (serve("404 Not Found", b"{}".to_vec()).await.0, "404"),
        (
            serve("200 OK", vec![b' '; MAX_REGISTRY_BYTES + 1]).await.0,
            "larger than",
        ),
        (
            serve("200 OK", b"{\"agents\": 7}".to_vec()).await.0,
            "not valid",
        ),
        (nothing_listening, "could not read"),
    ];
    for (url, reason) in cases {
        let list = launchers(Some(url.clone())).await;
        assert_eq!(
            list["registry"]["kind"], "bundled_fallback",
            "{url}: {list:#}"
        );
        let shown = list["registry"]["reason"].as_str().unwrap();
        assert!(shown.contains(reason) && shown.contains(&url), "{shown}");
        assert!(ids(&list).contains(&"codex-acp".to_owned()));
    }
}

#[tokio::test]
async fn a_password_in_the_registry_url_never_reaches_the_launcher_list() {
    let (url, _) = serve("200 OK", SERVED_REGISTRY.into()).await;
    let with_password = url.replacen("http://", "http://mirror:s3cret-pass@", 1);
    let served = launchers(Some(with_password)).await;
    let unused = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let nothing_listening = format!(
        "http://mirror:s3cret-pass@{}/registry.json",
        unused.local_addr().unwrap()
    );
    drop(unused);
    let fallback = launchers(Some(nothing_listening)).await;
    assert_eq!(served["registry"]["kind"], "source", "{served:#}");
    assert_eq!(
        fallback["registry"]["kind"], "bundled_fallback",
        "{fallback:#}"
    );
    for list in [served, fallback] {
        let shown = list.to_string();
        assert!(!shown.contains("s3cret-pass"), "{shown}");
        assert!(
            shown.contains("http://mirror:"),
            "the URL stays recognisable: {shown}"
        );
    }
}

#[tokio::test]
async fn with_fetching_off_the_bundled_snapshot_is_the_source() {
    let list = launchers(None).await;
    assert_eq!(list["registry"]["kind"], "source");
    assert_eq!(list["registry"]["name"], "the bundled registry snapshot");
}
