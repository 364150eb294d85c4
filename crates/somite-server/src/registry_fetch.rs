//! The live ACP Registry: fetched over HTTPS when the Agent panel asks for
//! launchers, kept for an hour, and replaced by the bundled snapshot
//! whenever the fetch fails (always, on a machine without the network).
//!
//! One cached answer serves both the launcher list and `connect`, so the
//! agent launched is exactly the pinned entry the user was shown.
//!
//! The URL may carry credentials (a mirror behind basic auth): wherever it
//! is named — the launcher list's source, a fallback's reason — it is shown
//! with its password masked, and fetch errors are rendered without it.

use std::time::{Duration, Instant};

use somite_acp::registry::{Registry, RegistryError, RegistrySource};
use somite_acp::secrets::redact_secret_values;
use somite_acp::{LoadedRegistry, load_registry};

/// How long one fetch may take.
pub const REGISTRY_FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// The largest registry document accepted.
pub const MAX_REGISTRY_BYTES: usize = 2 * 1024 * 1024;
/// How long a fetched registry is used before it is fetched again.
pub const REGISTRY_TTL: Duration = Duration::from_secs(60 * 60);
/// How long after a failed fetch the next one is tried.
pub const FAILED_FETCH_RETRY: Duration = Duration::from_secs(5 * 60);

/// Where the registry comes from, with the last answer.
#[derive(Debug)]
pub struct LiveRegistry {
    url: Option<String>,
    client: reqwest::Client,
    cached: tokio::sync::Mutex<Option<(Instant, LoadedRegistry)>>,
}

impl LiveRegistry {
    /// Fetches from `url`; `None` reads only the bundled snapshot.
    #[must_use]
    pub fn new(url: Option<String>) -> Self {
        let client = reqwest::Client::builder()
            .timeout(REGISTRY_FETCH_TIMEOUT)
            .build()
            .unwrap_or_default();
        Self {
            url,
            client,
            cached: tokio::sync::Mutex::new(None),
        }
    }

    /// The registry to list launchers from.
    pub async fn current(&self) -> LoadedRegistry {
        let mut cached = self.cached.lock().await;
        if let Some((at, loaded)) = cached.as_ref() {
            let keep = match loaded.origin {
                somite_acp::registry::RegistryOrigin::Source { .. } => REGISTRY_TTL,
                somite_acp::registry::RegistryOrigin::BundledFallback { .. } => FAILED_FETCH_RETRY,
            };
            if at.elapsed() < keep {
                return loaded.clone();
            }
        }
        let loaded = match &self.url {
            None => load_registry(&somite_acp::registry::BundledSnapshot),
            Some(url) => load_registry(&Fetched {
                name: redact_secret_values(url).into_owned(),
                document: self.fetch(url).await,
            }),
        };
        *cached = Some((Instant::now(), loaded.clone()));
        loaded
    }

    async fn fetch(&self, url: &str) -> Result<String, String> {
        let mut response = self
            .client
            .get(url)
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .map_err(|error| error.without_url().to_string())?;
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|error| error.without_url().to_string())?
        {
            if body.len() + chunk.len() > MAX_REGISTRY_BYTES {
                return Err(format!(
                    "the document is larger than {MAX_REGISTRY_BYTES} bytes"
                ));
            }
            body.extend_from_slice(&chunk);
        }
        String::from_utf8(body).map_err(|_| "the document is not UTF-8".to_owned())
    }
}

/// A fetched registry document, or why fetching it failed, named by its
/// URL with any password masked.
struct Fetched {
    name: String,
    document: Result<String, String>,
}

impl RegistrySource for Fetched {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn load(&self) -> Result<Registry, RegistryError> {
        match &self.document {
            Ok(text) => Registry::parse(text, &self.name),
            Err(reason) => Err(RegistryError::Unreadable {
                source_name: self.name.clone(),
                error: std::io::Error::other(reason.clone()),
            }),
        }
    }
}
