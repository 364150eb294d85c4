//! Fetching a manual from its upstream tag, against a loopback stand-in of
//! GitHub's trees API and raw-content host (the real ones are unreachable
//! from CI): the manual's Markdown pages are stored and searchable, files
//! outside its folder or over the page limit are left alone, and a failed
//! fetch leaves the cache as it was.

use somite_mcp::docs::fetch::{FetchError, MAX_FETCH_PAGES, Upstream, fetch_manual};
use somite_mcp::docs::{DocsCache, Manual, PIXI_MANUAL};
use somite_mcp::limits::MAX_PAGE_BYTES;
use std::collections::HashMap;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves `routes` (path with query → body); anything else is a 404.
async fn serve(routes: HashMap<String, String>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let routes = Arc::new(routes);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let routes = routes.clone();
            tokio::spawn(async move {
                let mut request = vec![0u8; 8192];
                let read = socket.read(&mut request).await.unwrap_or(0);
                let text = String::from_utf8_lossy(&request[..read]);
                let path = text.split_whitespace().nth(1).unwrap_or_default();
                let (status, body) = match routes.get(path) {
                    Some(body) => ("200 OK", body.clone()),
                    None => ("404 Not Found", "not found".to_owned()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = socket.write_all(head.as_bytes()).await;
                let _ = socket.write_all(body.as_bytes()).await;
            });
        }
    });
    base
}

const TREE: &str = "/repos/prefix-dev/pixi/git/trees/v0.77.0?recursive=1";
const RAW: &str = "/prefix-dev/pixi/v0.77.0/";

fn upstream(base: &str) -> Upstream {
    Upstream {
        api: base.to_owned(),
        raw: base.to_owned(),
    }
}

fn tree(entries: &[(&str, u64)]) -> String {
    let entries: Vec<serde_json::Value> = entries
        .iter()
        .map(|(path, size)| serde_json::json!({"path": path, "type": "blob", "size": size}))
        .collect();
    serde_json::json!({"tree": entries, "truncated": false}).to_string()
}

#[tokio::test]
async fn the_manual_of_the_tag_is_fetched_stored_and_searchable() {
    let mut routes = HashMap::new();
    routes.insert(
        TREE.to_owned(),
        tree(&[
            ("docs/index.md", 40),
            ("docs/workspace/lock_file.md", 60),
            ("docs/assets/logo.png", 10),
            ("docs/huge.md", MAX_PAGE_BYTES + 1),
            ("README.md", 10),
        ]),
    );
    routes.insert(
        format!("{RAW}docs/index.md"),
        "# Pixi\n\nA package manager.\n".into(),
    );
    routes.insert(
        format!("{RAW}docs/workspace/lock_file.md"),
        "# The lock file\n\nPixi writes `pixi.lock`, the lock file of the workspace.\n".into(),
    );
    let base = serve(routes).await;
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = DocsCache::at(cache_dir.path());
    let report = fetch_manual(&PIXI_MANUAL, &upstream(&base), &cache)
        .await
        .unwrap();
    assert_eq!(report.pages, 2);
    let manual = Manual::load(&PIXI_MANUAL, &cache, None).expect("now in the cache");
    let paths: Vec<&str> = manual
        .catalog()
        .pages()
        .iter()
        .map(|page| page.path.as_str())
        .collect();
    assert_eq!(paths, ["index.md", "workspace/lock_file.md"]);
    let hits = manual.index().unwrap().search("lock file", 3).unwrap();
    assert_eq!(hits[0].path, "workspace/lock_file.md");
}

#[tokio::test]
async fn a_failed_fetch_says_why_and_leaves_the_cache_empty() {
    let cache_dir = tempfile::tempdir().unwrap();
    let cache = DocsCache::at(cache_dir.path());

    let nothing = serve(HashMap::new()).await;
    let error = fetch_manual(&PIXI_MANUAL, &upstream(&nothing), &cache)
        .await
        .unwrap_err();
    assert!(matches!(error, FetchError::Request { .. }), "{error}");
    assert!(error.to_string().contains("404"), "{error}");

    let mut routes = HashMap::new();
    routes.insert(
        TREE.to_owned(),
        tree(&[("docs/index.md", 10), ("docs/gone.md", 10)]),
    );
    routes.insert(format!("{RAW}docs/index.md"), "# Pixi\n".into());
    let half = serve(routes).await;
    let error = fetch_manual(&PIXI_MANUAL, &upstream(&half), &cache)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("docs/gone.md"), "{error}");

    let mut routes = HashMap::new();
    routes.insert(TREE.to_owned(), tree(&[("src/main.rs", 10)]));
    let empty = serve(routes).await;
    let error = fetch_manual(&PIXI_MANUAL, &upstream(&empty), &cache)
        .await
        .unwrap_err();
    assert!(matches!(error, FetchError::NoPages { .. }), "{error}");

    let crowded: Vec<String> = (0..=MAX_FETCH_PAGES)
        .map(|n| format!("docs/page{n}.md"))
        .collect();
    let entries: Vec<(&str, u64)> = crowded.iter().map(|path| (path.as_str(), 10)).collect();
    let mut routes = HashMap::new();
    routes.insert(TREE.to_owned(), tree(&entries));
    let too_many = serve(routes).await;
    let error = fetch_manual(&PIXI_MANUAL, &upstream(&too_many), &cache)
        .await
        .unwrap_err();
    assert!(
        matches!(error, FetchError::TooManyPages { pages } if pages == MAX_FETCH_PAGES + 1),
        "{error}"
    );

    assert!(
        cache.load(&PIXI_MANUAL).unwrap().is_none(),
        "nothing was stored"
    );
}
