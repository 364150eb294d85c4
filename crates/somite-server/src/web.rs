//! Serving the web workspace.
//!
//! The binary carries the Vite bundle it was built with (`build.rs` embeds
//! `web/dist`), so `somite serve` needs nothing beside it: a binary copied to
//! another machine is the whole product. `SOMITE_WEB_BUNDLE` names a folder
//! to serve instead, for working on the web without rebuilding the runtime.
//! Either way a path that is not a file gets `index.html`, the fallback for
//! client-side routes. A binary built before the web (a clean clone's
//! `cargo build`) serves a small page saying how to build it, so the JSON
//! runtime stays usable and the reason for the missing canvas is plain.
//!
//! Vite names everything under `assets/` by a hash of its content, so those
//! files are cached for good; everything else is revalidated, so a new
//! binary's `index.html` is picked up on the next load.

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Response};
use std::path::Path;
use tower_http::services::{ServeDir, ServeFile};

/// A built bundle compiled into the binary.
pub(crate) struct EmbeddedBundle {
    /// `index.html`, also among `files`: what every client route gets.
    index: &'static [u8],
    /// Every file by its URL path without the leading `/`, sorted by path.
    files: &'static [EmbeddedFile],
}

pub(crate) struct EmbeddedFile {
    path: &'static str,
    bytes: &'static [u8],
}

// `EMBEDDED`, written by build.rs.
include!(concat!(env!("OUT_DIR"), "/web_bundle.rs"));

/// Vite's output folder for content-hashed files.
const HASHED_DIR: &str = "assets/";
/// A content-hashed file never changes under its name.
const IMMUTABLE: HeaderValue = HeaderValue::from_static("public, max-age=31536000, immutable");
/// Anything else may change with the next binary: revalidate every time.
const REVALIDATE: HeaderValue = HeaderValue::from_static("no-cache");

const NO_BUNDLE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Somite</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto">
<h1>Somite</h1>
<p>The runtime is running, but this <code>somite</code> was built without the web workspace.</p>
<p>Start Somite with <code>scripts/start</code>, which builds both, or build the web with
<code>npm --prefix web ci &amp;&amp; npm --prefix web run build</code> and then <code>somite</code> again.</p>
<p>The JSON runtime is available under <a href="/api/workflow"><code>/api/</code></a>.</p>
</body></html>"#;

/// The web routes: the folder `bundle` when one is configured
/// (`SOMITE_WEB_BUNDLE`), else the embedded bundle, else the "not built" page.
pub fn routes<S: Clone + Send + Sync + 'static>(bundle: Option<&Path>) -> Router<S> {
    match (bundle, EMBEDDED.as_ref()) {
        (Some(dir), _) => {
            let index = ServeFile::new(dir.join("index.html"));
            Router::new().fallback_service(ServeDir::new(dir).fallback(index))
        }
        (None, Some(embedded)) => embedded_routes(embedded),
        (None, None) => Router::new().fallback(|| async { Html(NO_BUNDLE) }),
    }
}

fn embedded_routes<S: Clone + Send + Sync + 'static>(bundle: &'static EmbeddedBundle) -> Router<S> {
    Router::new().fallback(move |method: Method, uri: Uri| async move {
        serve_embedded(bundle, &method, uri.path())
    })
}

fn serve_embedded(bundle: &EmbeddedBundle, method: &Method, path: &str) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return (
            StatusCode::METHOD_NOT_ALLOWED,
            [(header::ALLOW, "GET, HEAD")],
        )
            .into_response();
    }
    // Vite's file names are plain ASCII, so the path is looked up as sent:
    // a percent-encoded one is no file of the bundle.
    let path = path.trim_start_matches('/');
    let found = bundle
        .files
        .binary_search_by(|file| file.path.cmp(path))
        .ok()
        .map(|i| &bundle.files[i]);
    let (name, bytes) = match found {
        Some(file) => (file.path, file.bytes),
        // A missing hashed file is a stale reference, not a client route:
        // answering it with HTML would only hide the cause.
        None if path.starts_with(HASHED_DIR) => return StatusCode::NOT_FOUND.into_response(),
        None => ("index.html", bundle.index),
    };
    let cache = if name.starts_with(HASHED_DIR) {
        IMMUTABLE
    } else {
        REVALIDATE
    };
    (
        [
            (header::CONTENT_TYPE, content_type(name)),
            (header::CACHE_CONTROL, cache),
        ],
        Body::from(bytes),
    )
        .into_response()
}

/// The file's media type by its extension; text in UTF-8, which is what
/// Vite writes.
fn content_type(name: &str) -> HeaderValue {
    let mime = mime_guess::from_path(name).first_or_octet_stream();
    let text = mime.type_() == mime_guess::mime::TEXT
        || matches!(mime.subtype().as_str(), "javascript" | "json");
    let value = if text && mime.get_param("charset").is_none() {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_string()
    };
    HeaderValue::from_str(&value).unwrap_or(HeaderValue::from_static("application/octet-stream"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::to_bytes;
    use axum::http::Request;
    use tower::ServiceExt;

    const INDEX: &[u8] = b"<!doctype html><script type=module src=/assets/index-Ab12.js></script>";

    /// What build.rs generates for a small Vite build.
    static FIXTURE: EmbeddedBundle = EmbeddedBundle {
        index: INDEX,
        files: &[
            EmbeddedFile {
                path: "assets/index-Ab12.js",
                bytes: b"console.log(1)",
            },
            EmbeddedFile {
                path: "assets/index-Cd34.css",
                bytes: b"body{}",
            },
            EmbeddedFile {
                path: "favicon.svg",
                bytes: b"<svg/>",
            },
            EmbeddedFile {
                path: "index.html",
                bytes: INDEX,
            },
        ],
    };

    async fn get(method: Method, path: &str) -> (StatusCode, Vec<(String, String)>, Vec<u8>) {
        let router: Router = embedded_routes(&FIXTURE);
        let request = Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .unwrap();
        let response = router.oneshot(request).await.unwrap();
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap().to_owned()))
            .collect();
        let status = response.status();
        let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, headers, body.to_vec())
    }

    fn header<'a>(headers: &'a [(String, String)], name: &str) -> &'a str {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("no {name} in {headers:?}"))
    }

    #[tokio::test]
    async fn the_root_is_index_html_revalidated_every_time() {
        let (status, headers, body) = get(Method::GET, "/").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, INDEX);
        assert_eq!(header(&headers, "content-type"), "text/html; charset=utf-8");
        assert_eq!(header(&headers, "cache-control"), "no-cache");
    }

    #[tokio::test]
    async fn hashed_assets_have_their_content_type_and_are_cached_for_good() {
        let (status, headers, body) = get(Method::GET, "/assets/index-Ab12.js").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body, b"console.log(1)");
        assert_eq!(
            header(&headers, "content-type"),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(
            header(&headers, "cache-control"),
            "public, max-age=31536000, immutable"
        );

        let (_, headers, _) = get(Method::GET, "/assets/index-Cd34.css").await;
        assert_eq!(header(&headers, "content-type"), "text/css; charset=utf-8");
        let (_, headers, _) = get(Method::GET, "/favicon.svg").await;
        assert_eq!(header(&headers, "content-type"), "image/svg+xml");
        assert_eq!(header(&headers, "cache-control"), "no-cache");
    }

    #[tokio::test]
    async fn client_routes_fall_back_to_index_html() {
        for path in ["/workflow/reads", "/index.html", "/some/deep/route/"] {
            let (status, headers, body) = get(Method::GET, path).await;
            assert_eq!(status, StatusCode::OK, "{path}");
            assert_eq!(body, INDEX, "{path}");
            assert_eq!(header(&headers, "content-type"), "text/html; charset=utf-8");
        }
    }

    #[tokio::test]
    async fn a_missing_hashed_asset_is_not_found_rather_than_html() {
        let (status, _, body) = get(Method::GET, "/assets/index-Gone.js").await;
        assert_eq!(status, StatusCode::NOT_FOUND);
        assert!(body.is_empty());
    }

    #[tokio::test]
    async fn only_reads_are_answered() {
        let (status, headers, _) = get(Method::POST, "/").await;
        assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(header(&headers, "allow"), "GET, HEAD");
        let (status, _, _) = get(Method::HEAD, "/assets/index-Ab12.js").await;
        assert_eq!(status, StatusCode::OK);
    }

    #[tokio::test]
    async fn without_a_folder_the_binary_serves_what_it_carries() {
        let router: Router = routes(None);
        let request = Request::get("/").body(Body::empty()).unwrap();
        let response = router.oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        match EMBEDDED.as_ref() {
            Some(bundle) => {
                assert_eq!(body, bundle.index);
                // What the lookup relies on and build.rs promises.
                assert!(bundle.files.is_sorted_by_key(|f| f.path));
                let index = bundle.files.iter().find(|f| f.path == "index.html");
                assert_eq!(index.map(|f| f.bytes), Some(bundle.index));
            }
            None => assert_eq!(body, NO_BUNDLE.as_bytes()),
        }
    }
}
