//! The loopback file server and the test-only provider.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use sha2::Digest as _;
use somite_resource::model::Consent;
use somite_resource::{ResourceConfig, ResourceManager};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tempfile::TempDir;

/// How the server misbehaves.
#[derive(Debug, Clone, Default)]
pub struct Behaviour {
    /// Bytes per chunk and the pause after each.
    pub chunk: usize,
    pub delay: Duration,
    /// The first transfer stops (connection dropped) at this offset.
    pub cut_at: Option<u64>,
}

#[derive(Default)]
pub struct Served {
    pub archive: Vec<u8>,
    pub behaviour: Behaviour,
    /// The `Range` header of every request (`None`: no range).
    pub ranges: Vec<Option<String>>,
}

pub type Shared = Arc<Mutex<Served>>;

async fn serve_archive(State(shared): State<Shared>, headers: HeaderMap) -> Response {
    let range = headers
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let (bytes, behaviour) = {
        let mut served = shared.lock().unwrap();
        served.ranges.push(range.clone());
        let behaviour = served.behaviour.clone();
        // The cut happens once.
        served.behaviour.cut_at = None;
        (served.archive.clone(), behaviour)
    };
    let total = bytes.len() as u64;
    let start = range
        .as_deref()
        .and_then(|r| r.strip_prefix("bytes="))
        .and_then(|r| r.strip_suffix('-'))
        .and_then(|n| n.parse::<u64>().ok());
    let (status, start) = match start {
        Some(start) if start >= total => {
            return Response::builder()
                .status(StatusCode::RANGE_NOT_SATISFIABLE)
                .body(Body::empty())
                .unwrap();
        }
        Some(start) => (StatusCode::PARTIAL_CONTENT, start),
        None => (StatusCode::OK, 0),
    };
    let chunk = if behaviour.chunk == 0 {
        4096
    } else {
        behaviour.chunk
    };
    let stop = behaviour.cut_at.unwrap_or(total).min(total);
    let pieces: Vec<Vec<u8>> = bytes[start as usize..stop.max(start) as usize]
        .chunks(chunk)
        .map(<[u8]>::to_vec)
        .collect();
    let cut = stop < total;
    let delay = behaviour.delay;
    let stream = futures_util::stream::unfold(
        (pieces.into_iter(), cut),
        move |(mut pieces, cut)| async move {
            match pieces.next() {
                Some(piece) => {
                    if !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    Some((Ok::<_, std::io::Error>(piece), (pieces, cut)))
                }
                // The error aborts the connection mid-body.
                None if cut => Some((Err(std::io::Error::other("cut")), (pieces, false))),
                None => None,
            }
        },
    );
    let mut builder = Response::builder()
        .status(status)
        .header(header::CONTENT_LENGTH, total - start)
        .header(header::ACCEPT_RANGES, "bytes");
    if status == StatusCode::PARTIAL_CONTENT {
        builder = builder.header(
            header::CONTENT_RANGE,
            format!("bytes {start}-{}/{total}", total - 1),
        );
    }
    builder.body(Body::from_stream(stream)).unwrap()
}

/// A loopback server for one archive; returns its URL.
pub async fn file_server(shared: Shared) -> String {
    let app = axum::Router::new()
        .route("/tiny.tar.gz", axum::routing::get(serve_archive))
        .with_state(shared);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}/tiny.tar.gz")
}

/// A gzip tarball of `files` (path, bytes), uncompressed inside the gzip
/// so the transfer is long enough to interrupt.
pub fn archive(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (path, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_entry_type(tar::EntryType::Regular);
        let name = &mut header.as_old_mut().name;
        name[..path.len()].copy_from_slice(path.as_bytes());
        header.set_cksum();
        builder.append(&header, *bytes).unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
    std::io::Write::write_all(&mut gz, &tar).unwrap();
    gz.finish().unwrap()
}

/// The tiny Kraken 2 database, wrapped in a folder as published archives are.
pub fn tiny_database_archive() -> Vec<u8> {
    let files: Vec<(String, &[u8])> = somite_runner::fixtures::KRAKEN2_DATABASE_FILES
        .iter()
        .map(|(name, bytes)| (format!("k2_tiny/{name}"), *bytes))
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), *b)).collect();
    archive(&borrowed)
}

pub fn sha256(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub const EFFECT: &str = "Test fixture: two species of one genus; classifies nothing real.";

/// A store, a test-only provider serving `archive`, and its consent.
pub struct World {
    pub store: TempDir,
    pub providers: TempDir,
    pub served: Shared,
    pub consent: Consent,
    pub stored_bytes: u64,
}

pub const PROVIDER: &str = "test_kraken2_tiny";

impl World {
    /// `checksum` defaults to the archive's own.
    pub async fn new(archive: Vec<u8>, behaviour: Behaviour, checksum: Option<String>) -> World {
        let stored_bytes: u64 = somite_runner::fixtures::KRAKEN2_DATABASE_FILES
            .iter()
            .map(|(_, b)| b.len() as u64)
            .sum();
        let served = Arc::new(Mutex::new(Served {
            archive: archive.clone(),
            behaviour,
            ranges: Vec::new(),
        }));
        let url = file_server(served.clone()).await;
        let providers = tempfile::tempdir().unwrap();
        let checksum = checksum.unwrap_or_else(|| sha256(&archive));
        std::fs::write(
            providers.path().join(format!("{PROVIDER}.toml")),
            format!(
                r#"id = "{PROVIDER}"
profile = "kraken2-database"
title = "Tiny Kraken 2 test database (test only)"
release = "test-1"
url = "{url}"
checksum = {{ algorithm = "sha256", value = "{checksum}" }}
download_bytes = {}
stored_bytes = {stored_bytes}
memory_bytes = 1000000
scientific_effect = "{EFFECT}"
licence = "Apache-2.0"
citation = "Somite test fixture"
source = "generated by the test"
test_only = true
"#,
                archive.len()
            ),
        )
        .unwrap();
        World {
            store: tempfile::tempdir().unwrap(),
            providers,
            served,
            consent: Consent {
                download_bytes: archive.len() as u64,
                stored_bytes,
                effect_digest: somite_resource::provider::effect_digest(EFFECT),
            },
            stored_bytes,
        }
    }

    pub fn config(&self) -> ResourceConfig {
        ResourceConfig {
            store_dir: self.store.path().join("resources"),
            providers_dir: Some(self.providers.path().to_owned()),
            base_url: None,
            free_disk_limit: None,
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(5),
        }
    }

    pub fn manager(&self) -> ResourceManager {
        ResourceManager::open(self.config()).unwrap()
    }

    pub fn set_behaviour(&self, behaviour: Behaviour) {
        self.served.lock().unwrap().behaviour = behaviour;
    }

    pub fn ranges(&self) -> Vec<Option<String>> {
        self.served.lock().unwrap().ranges.clone()
    }

    /// Every file under the store, relative.
    pub fn store_files(&self) -> Vec<String> {
        fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(root, &path, out);
                } else {
                    out.push(path.strip_prefix(root).unwrap().display().to_string());
                }
            }
        }
        let mut out = Vec::new();
        let root = self.store.path().join("resources");
        walk(&root, &root, &mut out);
        out.sort();
        out
    }
}

/// A slow transfer, for cancelling and restarting mid-way.
pub fn slow() -> Behaviour {
    Behaviour {
        chunk: 1024,
        delay: Duration::from_millis(15),
        cut_at: None,
    }
}
