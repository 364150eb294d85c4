//! A loopback stand-in of nf-co.re and the GitHub API serving the fixtures,
//! a store pointed at it, and a builder of (hostile) tarballs.
//!
//! The stand-in answers what the real services document: `pipelines.json`;
//! `GET /repos/{o}/{r}/commits/{ref}` (`{sha, commit: {committer: {date}}}`,
//! 404 for an unknown repository, 422 for an unknown ref, 403 with
//! `x-ratelimit-remaining: 0` when the limit is spent); and
//! `GET /repos/{o}/{r}/tarball/{sha}`, which redirects (302) to a second
//! listener (another origin, as codeload.github.com is) serving the archive.

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use somite_source::github::GITHUB_JSON;
use somite_source::{Clock, RATE_LIMIT_REMAINING, RATE_LIMIT_RESET, SourceConfig, SourceStore};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

pub const DEMO_1_0_0: &str = "705f18e4b1540f207cf8ffdc97ee5bd70a0b022c";
pub const DEMO_1_0_1: &str = "04060b4644d68649180db796e89a3db2a466a8d8";
pub const FETCHNGS_1_12_0: &str = "8ec2d934f9301c818d961b1e4fdf7fc79610bdc5";
/// nf-core/rnaseq 3.24.0: in the catalog, its archive deliberately not served.
pub const RNASEQ_3_24_0: &str = "47b3b0d3daad69e99d45c9e2dd8db19ee28307a1";
/// `x-ratelimit-reset` the stand-in sends: 2026-12-03T22:00:00Z.
pub const RESET_EPOCH: u64 = 1_796_335_200;

/// Relative to the crate that includes this module (`somite-source`, and
/// `somite`'s CLI tests), both under `crates/`.
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../somite-source/tests/data");

/// How the stand-in's catalog answers.
#[derive(Clone)]
pub enum CatalogMode {
    Serve(Vec<u8>),
    Fail,
}

#[derive(Default)]
pub struct Behaviour {
    pub catalog: Option<CatalogMode>,
    /// `(repository, ref)` → commit for the commits endpoint.
    pub refs: HashMap<(String, String), String>,
    /// `(repository, commit)` → archive bytes.
    pub archives: HashMap<(String, String), Vec<u8>>,
    pub rate_limited: bool,
    /// Delay before answering the commits endpoint.
    pub slow: Option<Duration>,
    /// Every request as `METHOD path`, in order.
    pub log: Vec<String>,
    /// The `Authorization` header of each commits request.
    pub authorization: Vec<Option<String>>,
    /// The `Authorization` header of each archive download (after the redirect).
    pub archive_authorization: Vec<Option<String>>,
    /// Where the tarball endpoint redirects to.
    pub codeload_base: String,
}

#[derive(Clone)]
pub struct StandIn {
    pub base: String,
    pub state: Arc<Mutex<Behaviour>>,
}

impl StandIn {
    /// Serves `pipelines.json`, the three fixture archives, and the refs
    /// their releases name (plus `master` of nf-core/demo at 1.0.1).
    pub async fn start() -> StandIn {
        let mut behaviour = Behaviour {
            catalog: Some(CatalogMode::Serve(fixture("pipelines.json"))),
            ..Behaviour::default()
        };
        for (repo, sha, tag) in [
            ("nf-core/demo", DEMO_1_0_0, "1.0.0"),
            ("nf-core/demo", DEMO_1_0_1, "1.0.1"),
            ("nf-core/fetchngs", FETCHNGS_1_12_0, "1.12.0"),
        ] {
            let file = format!("{}-{sha}.tar.gz", repo.replace('/', "-"));
            behaviour
                .archives
                .insert((repo.into(), sha.into()), fixture(&file));
            behaviour.refs.insert((repo.into(), tag.into()), sha.into());
        }
        behaviour
            .refs
            .insert(("nf-core/demo".into(), "master".into()), DEMO_1_0_1.into());
        let codeload_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        behaviour.codeload_base = format!("http://{}", codeload_listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(behaviour));
        let api = Router::new()
            .route("/pipelines.json", get(catalog))
            .route("/repos/{owner}/{repo}/commits/{*git_ref}", get(commit))
            .route("/repos/{owner}/{repo}/tarball/{sha}", get(tarball))
            .with_state(state.clone());
        let codeload_app = Router::new()
            .route("/codeload/{owner}/{repo}/{sha}", get(codeload))
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, api).await.unwrap() });
        tokio::spawn(async move { axum::serve(codeload_listener, codeload_app).await.unwrap() });
        StandIn { base, state }
    }

    pub fn with<R>(&self, f: impl FnOnce(&mut Behaviour) -> R) -> R {
        f(&mut self.state.lock().unwrap())
    }

    /// How many logged requests start with `prefix`.
    pub fn count(&self, prefix: &str) -> usize {
        self.with(|b| b.log.iter().filter(|l| l.starts_with(prefix)).count())
    }

    /// Serves `archive` as `repository` at `commit`.
    pub fn serve_archive(&self, repository: &str, commit: &str, archive: Vec<u8>) {
        self.with(|b| {
            b.archives
                .insert((repository.into(), commit.into()), archive)
        });
    }

    /// A configuration for this stand-in and a cache folder under `cache`.
    pub fn config(&self, cache: &std::path::Path) -> SourceConfig {
        let mut config = SourceConfig::new(cache.join("somite"));
        config.nfcore_pipelines_url = format!("{}/pipelines.json", self.base);
        config.github_api_url = self.base.clone();
        config.timeouts.request = Duration::from_secs(10);
        config
    }

    pub fn store(&self, cache: &std::path::Path) -> SourceStore {
        SourceStore::new(self.config(cache)).unwrap()
    }
}

/// A store whose clock reads `at`.
pub fn store_at(config: SourceConfig, at: SystemTime) -> SourceStore {
    SourceStore::new(SourceConfig {
        clock: Clock::fixed(at),
        ..config
    })
    .unwrap()
}

pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{DATA}/{name}")).unwrap()
}

type Shared = State<Arc<Mutex<Behaviour>>>;

async fn catalog(State(state): Shared) -> Response {
    let mode = {
        let mut b = state.lock().unwrap();
        b.log.push("GET /pipelines.json".into());
        b.catalog.clone()
    };
    match mode {
        Some(CatalogMode::Serve(body)) => {
            ([(header::CONTENT_TYPE, "application/json")], body).into_response()
        }
        _ => StatusCode::SERVICE_UNAVAILABLE.into_response(),
    }
}

async fn commit(
    State(state): Shared,
    Path((owner, repo, git_ref)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    let repository = format!("{owner}/{repo}");
    let (slow, limited, sha, known) = {
        let mut b = state.lock().unwrap();
        b.log
            .push(format!("GET /repos/{repository}/commits/{git_ref}"));
        let auth = headers
            .get(header::AUTHORIZATION)
            .map(|v| v.to_str().unwrap().to_owned());
        b.authorization.push(auth);
        let known = b.refs.keys().any(|(r, _)| *r == repository);
        let sha = b.refs.get(&(repository.clone(), git_ref.clone())).cloned();
        (b.slow, b.rate_limited, sha, known)
    };
    if let Some(delay) = slow {
        tokio::time::sleep(delay).await;
    }
    // GitHub documents this media type for its REST API.
    if headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) != Some(GITHUB_JSON) {
        return StatusCode::NOT_ACCEPTABLE.into_response();
    }
    if limited {
        return (
            StatusCode::FORBIDDEN,
            [
                (RATE_LIMIT_REMAINING, "0".to_owned()),
                (RATE_LIMIT_RESET, RESET_EPOCH.to_string()),
            ],
            r#"{"message":"API rate limit exceeded"}"#,
        )
            .into_response();
    }
    match (sha, known) {
        (Some(sha), _) => axum::Json(serde_json::json!({
            "sha": sha,
            "commit": {"committer": {"date": "2024-10-18T11:11:31Z"}},
        }))
        .into_response(),
        (None, true) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            r#"{"message":"No commit found for SHA"}"#,
        )
            .into_response(),
        (None, false) => (StatusCode::NOT_FOUND, r#"{"message":"Not Found"}"#).into_response(),
    }
}

async fn tarball(
    State(state): Shared,
    Path((owner, repo, sha)): Path<(String, String, String)>,
) -> Response {
    let codeload = {
        let mut b = state.lock().unwrap();
        b.log
            .push(format!("GET /repos/{owner}/{repo}/tarball/{sha}"));
        b.codeload_base.clone()
    };
    (
        StatusCode::FOUND,
        [(
            header::LOCATION,
            format!("{codeload}/codeload/{owner}/{repo}/{sha}"),
        )],
    )
        .into_response()
}

async fn codeload(
    State(state): Shared,
    Path((owner, repo, sha)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    let archive = {
        let mut b = state.lock().unwrap();
        let auth = headers
            .get(header::AUTHORIZATION)
            .map(|v| v.to_str().unwrap().to_owned());
        b.archive_authorization.push(auth);
        b.archives.get(&(format!("{owner}/{repo}"), sha)).cloned()
    };
    match archive {
        Some(bytes) => (
            [(header::CONTENT_TYPE, "application/x-gzip")],
            Body::from(bytes),
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// One entry of a generated tarball; names and link targets are written
/// into the header verbatim (no validation), so they can be hostile.
#[derive(Clone, Copy)]
pub enum Entry<'a> {
    Dir(&'a str),
    File(&'a str, &'a [u8]),
    Exec(&'a str, &'a [u8]),
    Symlink(&'a str, &'a str),
    Hardlink(&'a str, &'a str),
    Fifo(&'a str),
    /// A pax extended header (for the next entry) with this content.
    Pax(&'a [u8]),
}

/// A gzip tarball of `entries`, in order.
pub fn tarball_of(entries: &[Entry<'_>]) -> Vec<u8> {
    use tar::{EntryType, Header};
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut builder = tar::Builder::new(gz);
    for entry in entries {
        let mut header = Header::new_ustar();
        let (path, kind, data, link, mode): (&str, EntryType, &[u8], Option<&str>, u32) =
            match entry {
                Entry::Dir(p) => (p, EntryType::Directory, b"", None, 0o755),
                Entry::File(p, d) => (p, EntryType::Regular, d, None, 0o644),
                Entry::Exec(p, d) => (p, EntryType::Regular, d, None, 0o755),
                Entry::Symlink(p, t) => (p, EntryType::Symlink, b"", Some(t), 0o777),
                Entry::Hardlink(p, t) => (p, EntryType::Link, b"", Some(t), 0o644),
                Entry::Fifo(p) => (p, EntryType::Fifo, b"", None, 0o644),
                Entry::Pax(d) => ("PaxHeader", EntryType::XHeader, d, None, 0o644),
            };
        let old = header.as_old_mut();
        old.name[..path.len()].copy_from_slice(path.as_bytes());
        if let Some(link) = link {
            old.linkname[..link.len()].copy_from_slice(link.as_bytes());
        }
        header.set_entry_type(kind);
        header.set_mode(mode);
        header.set_size(data.len() as u64);
        header.set_cksum();
        builder.append(&header, data).unwrap();
    }
    builder.into_inner().unwrap().finish().unwrap()
}

/// Every path under `root`, relative, sorted.
pub fn listing(root: &std::path::Path) -> Vec<String> {
    fn walk(dir: &std::path::Path, root: &std::path::Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            out.push(path.strip_prefix(root).unwrap().display().to_string());
            if entry.file_type().unwrap().is_dir() {
                walk(&path, root, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}
