//! Request guards: loopback Host and Origin, and the MCP capability.
//!
//! Binding 127.0.0.1 keeps other machines out, but a web page in the user's
//! own browser can still reach loopback. DNS rebinding makes such a page look
//! same-origin, so every request must name exactly one loopback Host (and an
//! absolute-form target may only repeat it), and any request carrying an
//! Origin must come from a loopback origin. MCP-only routes additionally
//! require a live capability, whether or not the caller claims to be the MCP
//! adapter.

use crate::api_error::ApiError;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::HeaderMap;
use axum::http::header::{HOST, ORIGIN};
use axum::middleware::Next;
use axum::response::Response;
use somite_api::{DomainCode, HttpCode};
use std::sync::Arc;

/// Whether `host` (a Host header value: name, optional port) is loopback.
pub fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((name, tail)) if tail.is_empty() || valid_port(tail) => name,
            _ => return false,
        }
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) if valid_port(&format!(":{port}")) => name,
            Some(_) => return false,
            None => host,
        }
    };
    let name = name.to_ascii_lowercase();
    name == "localhost"
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn valid_port(tail: &str) -> bool {
    tail.strip_prefix(':')
        .is_some_and(|p| !p.is_empty() && p.parse::<u16>().is_ok())
}

/// Whether an Origin header value is Somite's own origin: the page the
/// request's (loopback) Host serves, `http://<host>`. Another local web
/// server's page (another port, or https) is another origin and may not
/// act on the runtime.
pub fn is_own_origin(origin: &str, host: &str) -> bool {
    origin
        .strip_prefix("http://")
        .is_some_and(|authority| authority.eq_ignore_ascii_case(host))
}

/// Rejects any request whose Host or Origin is not loopback, that names more
/// than one Host, or whose absolute-form target names another authority than
/// its Host: each would let the check read one host while something else acts
/// on another.
pub async fn loopback_only(request: Request, next: Next) -> Result<Response, ApiError> {
    let headers = request.headers();
    let route = request.uri().path();
    let mut hosts = headers.get_all(HOST).iter();
    let host = hosts.next().and_then(|h| h.to_str().ok());
    if hosts.next().is_some() {
        refused(route, DomainCode::InvalidRequest.into());
        return Err(ApiError::new(
            DomainCode::InvalidRequest,
            "the request has more than one Host header",
            "send exactly one Host header, naming 127.0.0.1:<port> (or localhost)",
        ));
    }
    let authority = request.uri().authority().map(|a| a.as_str());
    let consistent = authority.is_none_or(|a| host.is_some_and(|h| a.eq_ignore_ascii_case(h)));
    if !host.is_some_and(is_loopback_host) || !consistent {
        refused(route, HttpCode::ForbiddenHost.into());
        return Err(ApiError::new(
            HttpCode::ForbiddenHost,
            "the Host header (or the request target's authority) is not this loopback address",
            "open Somite at http://127.0.0.1:<port>/ (or localhost); other host names are refused to prevent DNS rebinding",
        ));
    }
    let mut origins = headers.get_all(ORIGIN).iter();
    let origin = origins.next();
    let own = origin.is_none_or(|o| {
        o.to_str()
            .is_ok_and(|o| host.is_some_and(|h| is_own_origin(o, h)))
    });
    if origins.next().is_some() || !own {
        refused(route, HttpCode::ForbiddenOrigin.into());
        return Err(ApiError::new(
            HttpCode::ForbiddenOrigin,
            "requests from this origin are refused (one Origin, Somite's own page, is accepted)",
            "use the Somite page served at this address; other sites, and other local servers' pages, cannot call the local runtime",
        ));
    }
    Ok(next.run(request).await)
}

/// One `debug` line per request, refused ones included: method, route,
/// status and how long it took (never a query, which may carry a cursor or
/// a search, nor a header).
pub async fn log_request(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let route = request.uri().path().to_owned();
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    tracing::debug!(
        %method,
        route,
        status = response.status().as_u16(),
        ms = started.elapsed().as_secs_f64() * 1000.0,
        "request"
    );
    response
}

/// Requires a live capability on MCP-only routes.
pub async fn capability_required(
    State(state): State<Arc<AppState>>,
    mut request: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let Some(id) =
        presented_capability(request.headers()).and_then(|c| state.capabilities.identify(c))
    else {
        refused(request.uri().path(), HttpCode::CapabilityRequired.into());
        return Err(ApiError::new(
            HttpCode::CapabilityRequired,
            "this route is for Somite's MCP adapter and needs its capability",
            "call it through `somite mcp somite`, which presents the capability it was given",
        ));
    };
    // Routes that act for one agent session (compile's attachment) read it.
    request.extensions_mut().insert(id);
    Ok(next.run(request).await)
}

/// One `warn` line per refused request: the route and the reason's code,
/// never a header's value (a Host, Origin or capability may be hostile or
/// secret). Every peer is loopback, so it is not named.
fn refused(route: &str, code: somite_api::ErrorCode) {
    tracing::warn!(route, code = code.as_str(), "request refused");
}

fn presented_capability(headers: &HeaderMap) -> Option<&str> {
    headers.get(somite_api::headers::CAPABILITY)?.to_str().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_are_recognised() {
        for ok in [
            "127.0.0.1:7310",
            "127.0.0.1",
            "localhost:80",
            "LOCALHOST",
            "[::1]:7310",
            "[::1]",
            "127.1.2.3:9",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "example.com",
            "127.0.0.1.nip.io:7310",
            "evil.localhost:7310",
            "10.0.0.1:7310",
            "[::2]:1",
            "127.0.0.1:",
            "127.0.0.1:99999",
            "[::1]x",
            "",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn only_the_pages_own_origin_is_accepted() {
        assert!(is_own_origin("http://127.0.0.1:7310", "127.0.0.1:7310"));
        assert!(is_own_origin("http://LOCALHOST:5173", "localhost:5173"));
        for bad in [
            "null",
            "http://example.com",
            "file://",
            "http://127.0.0.1:7310/x",
            "ws://127.0.0.1:7310",
            "https://127.0.0.1:7310",
            "http://127.0.0.1:8080",
            "http://localhost:7310",
        ] {
            assert!(!is_own_origin(bad, "127.0.0.1:7310"), "{bad}");
        }
    }
}
