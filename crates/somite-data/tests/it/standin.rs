//! One loopback server standing in for all four providers, under the
//! paths their real bases have: `/datasets/v2`, `/entrez/eutils`, `/rest`
//! and `/pub`.

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Response, StatusCode, Uri};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    RateLimited { retry_after: u64 },
    RateLimitedOnce { retry_after: u64 },
    Down,
    Malformed,
    Oversized,
}

#[derive(Debug)]
struct Shared {
    mode: Mode,
    hits: usize,
    api_keys: Vec<String>,
    terms: Vec<String>,
}

pub struct StandIn {
    pub base: String,
    shared: Arc<Mutex<Shared>>,
}

impl StandIn {
    pub async fn start() -> StandIn {
        let shared = Arc::new(Mutex::new(Shared {
            mode: Mode::Normal,
            hits: 0,
            api_keys: Vec::new(),
            terms: Vec::new(),
        }));
        let app = Router::new().fallback(answer).with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        StandIn { base, shared }
    }

    pub fn set_mode(&self, mode: Mode) {
        self.shared.lock().unwrap().mode = mode;
    }

    pub fn hits(&self) -> usize {
        self.shared.lock().unwrap().hits
    }

    pub fn saw_api_key(&self, key: &str) -> bool {
        self.shared
            .lock()
            .unwrap()
            .api_keys
            .iter()
            .any(|k| k == key)
    }

    pub fn saw_term(&self, term: &str) -> bool {
        self.shared.lock().unwrap().terms.iter().any(|t| t == term)
    }
}

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/it/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn respond(status: StatusCode, headers: &[(&str, String)], body: Vec<u8>) -> Response<Body> {
    let mut response = Response::builder().status(status);
    for (name, value) in headers {
        response = response.header(*name, value);
    }
    response.body(Body::from(body)).unwrap()
}

async fn answer(
    State(shared): State<Arc<Mutex<Shared>>>,
    uri: Uri,
    headers: HeaderMap,
) -> Response<Body> {
    let query: HashMap<String, String> = uri
        .query()
        .map(|q| {
            url_pairs(q)
                .into_iter()
                .collect::<HashMap<String, String>>()
        })
        .unwrap_or_default();
    let mode = {
        let mut shared = shared.lock().unwrap();
        shared.hits += 1;
        if let Some(key) = query.get("api_key") {
            shared.api_keys.push(key.clone());
        }
        if let Some(key) = headers.get("api-key").and_then(|v| v.to_str().ok()) {
            shared.api_keys.push(key.to_owned());
        }
        if let Some(term) = query.get("term") {
            shared.terms.push(term.clone());
        }
        let mode = shared.mode;
        if let Mode::RateLimitedOnce { .. } = mode {
            shared.mode = Mode::Normal;
        }
        mode
    };
    match mode {
        Mode::RateLimited { retry_after } | Mode::RateLimitedOnce { retry_after } => {
            return respond(
                StatusCode::TOO_MANY_REQUESTS,
                &[("retry-after", retry_after.to_string())],
                b"{\"error\":\"API rate limit exceeded\"}".to_vec(),
            );
        }
        Mode::Down => return respond(StatusCode::INTERNAL_SERVER_ERROR, &[], Vec::new()),
        Mode::Malformed => {
            return respond(
                StatusCode::OK,
                &[],
                b"{\"reports\": [{\"gene\": 42}]}".to_vec(),
            );
        }
        Mode::Oversized => {
            let mut body = b"{\"reports\":[".to_vec();
            body.extend(std::iter::repeat_n(b' ', 256 * 1024));
            body.extend(b"]}");
            return respond(StatusCode::OK, &[], body);
        }
        Mode::Normal => {}
    }
    let path = uri.path();
    let name = match path {
        "/datasets/v2/genome/accession/GCF_000001405.40/dataset_report" => {
            "datasets_genome_accession.json".to_owned()
        }
        "/datasets/v2/genome/taxon/human/dataset_report" => {
            if query.get("page_token").map(String::as_str) == Some("eNpjYGBgBAAABQAC") {
                "datasets_genome_taxon_2.json".to_owned()
            } else {
                "datasets_genome_taxon_1.json".to_owned()
            }
        }
        "/datasets/v2/taxonomy/taxon/9606/dataset_report" => "datasets_taxonomy.json".to_owned(),
        "/datasets/v2/gene/id/672/dataset_report" => "datasets_gene.json".to_owned(),
        "/entrez/eutils/esearch.fcgi" => match query.get("term").map(String::as_str) {
            Some("PRJNA257197") => format!(
                "eutils_esearch_study_{}.json",
                query.get("retstart").map_or("0", String::as_str)
            ),
            _ => "eutils_esearch_run.json".to_owned(),
        },
        "/entrez/eutils/esummary.fcgi" => {
            format!("eutils_esummary_{}.json", query.get("id").unwrap())
        }
        "/rest/info/data" => "ensembl_info_data.json".to_owned(),
        "/rest/info/species" => "ensembl_info_species.json".to_owned(),
        "/rest/info/assembly/homo_sapiens" => "ensembl_info_assembly.json".to_owned(),
        "/rest/lookup/id/ENSG00000157764" | "/rest/lookup/symbol/homo_sapiens/BRAF" => {
            "ensembl_lookup_gene.json".to_owned()
        }
        "/pub/release-115/fasta/homo_sapiens/dna/CHECKSUMS" => "ftp_fasta_CHECKSUMS".to_owned(),
        "/pub/release-115/gtf/homo_sapiens/CHECKSUMS" => "ftp_gtf_CHECKSUMS".to_owned(),
        _ => return respond(StatusCode::NOT_FOUND, &[], Vec::new()),
    };
    respond(StatusCode::OK, &[], fixture(&name))
}

/// `application/x-www-form-urlencoded` pairs, decoded.
fn url_pairs(query: &str) -> Vec<(String, String)> {
    let url = reqwest::Url::parse(&format!("http://x/?{query}")).unwrap();
    url.query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}
