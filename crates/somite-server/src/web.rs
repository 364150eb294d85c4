//! Serving the built web workspace.
//!
//! When a Vite bundle exists (`web/dist`, or `SOMITE_WEB_BUNDLE`), its files
//! are served with `index.html` as the fallback for client-side routes.
//! Without one, a small page says how to build it, so the JSON runtime stays
//! usable and the reason for the missing canvas is plain.

use axum::Router;
use axum::response::Html;
use std::path::{Path, PathBuf};
use tower_http::services::{ServeDir, ServeFile};

/// Where the bundle is when no location was configured: beside the sources.
pub fn default_bundle() -> Option<PathBuf> {
    let candidate = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/dist");
    candidate.join("index.html").is_file().then_some(candidate)
}

const NO_BUNDLE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Somite</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto">
<h1>Somite</h1>
<p>The runtime is running, but the web workspace has not been built.</p>
<p>Start Somite with <code>scripts/start</code>, which builds it, or build it with
<code>npm --prefix web ci &amp;&amp; npm --prefix web run build</code>.</p>
<p>The JSON runtime is available under <a href="/api/workflow"><code>/api/</code></a>.</p>
</body></html>"#;

pub fn routes<S: Clone + Send + Sync + 'static>(bundle: Option<&Path>) -> Router<S> {
    match bundle {
        Some(dir) => {
            let index = ServeFile::new(dir.join("index.html"));
            Router::new().fallback_service(ServeDir::new(dir).fallback(index))
        }
        None => Router::new().fallback(|| async { Html(NO_BUNDLE) }),
    }
}
