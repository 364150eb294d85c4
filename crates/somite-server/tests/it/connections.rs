//! The runtime's HTTP/1.1 edge over raw loopback sockets, so no client
//! library can normalise the requests: bounded connections and request
//! heads, Host checks a well-behaved client would never trip.

use crate::support::assert_envelope;
use serde_json::Value;
use somite_project::{Project, Seed};
use somite_server::RunningServer;
use somite_server::config::{ConnectionLimits, ServerConfig};
use somite_server::serve::{MAX_HEAD_BYTES, MAX_HEADERS, MAX_URI_BYTES};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Far longer than any step here should take, so a failure shows as a
/// timeout rather than a hang; never a claim about speed.
const GENEROUS: Duration = Duration::from_secs(60);

async fn start(connections: ConnectionLimits) -> (RunningServer, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let project = Project::open(dir.path(), Seed::Empty).unwrap();
    let config = ServerConfig {
        connections,
        ..ServerConfig::loopback(dir.path(), "somite").unwrap()
    };
    (somite_server::start(&config, project).await.unwrap(), dir)
}

/// Sends `request` as is and reads the answer until the server closes:
/// the status and the JSON body.
async fn exchange(server: &RunningServer, request: &[u8]) -> (u16, Value) {
    let mut stream = TcpStream::connect(server.address).await.unwrap();
    stream.write_all(request).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(GENEROUS, stream.read_to_end(&mut answer))
        .await
        .expect("the server answers and closes")
        .unwrap();
    parse(&answer)
}

fn parse(answer: &[u8]) -> (u16, Value) {
    let text = String::from_utf8_lossy(answer);
    let (head, body) = text.split_once("\r\n\r\n").expect("a complete response");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let body = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, body)
}

/// A GET with `headers` plus `Connection: close`, so that any server, not
/// only one that never keeps connections alive, closes after answering.
fn get(target: &str, headers: &str) -> Vec<u8> {
    format!("GET {target} HTTP/1.1\r\n{headers}Connection: close\r\n\r\n").into_bytes()
}

#[tokio::test]
async fn a_flood_of_half_open_connections_cannot_starve_a_real_request() {
    // The header timeout is out of reach: only the connection bound's
    // eviction of waiting heads can let the real request in.
    let limits = ConnectionLimits {
        max_connections: 8,
        header_read_timeout: Duration::from_secs(3600),
        ..ConnectionLimits::default()
    };
    let (server, _dir) = start(limits).await;
    let mut flood = Vec::new();
    for _ in 0..limits.max_connections * 4 {
        let mut stream = TcpStream::connect(server.address).await.unwrap();
        stream
            .write_all(b"GET /api/health HTTP/1.1\r\n")
            .await
            .unwrap();
        flood.push(stream);
    }
    let host = format!("Host: {}\r\n", server.address);
    let (status, body) = exchange(&server, &get("/api/health", &host)).await;
    assert_eq!(status, 200, "{body}");
    // The oldest half-open connection made room and was closed unanswered.
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(GENEROUS, flood[0].read_to_end(&mut rest))
        .await
        .expect("the oldest waiting connection is closed");
    assert!(closed.is_err() || rest.is_empty(), "closed unanswered");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_connection_without_a_complete_head_is_closed_after_the_timeout() {
    let (server, _dir) = start(ConnectionLimits {
        header_read_timeout: Duration::from_millis(200),
        ..ConnectionLimits::default()
    })
    .await;
    let mut stream = TcpStream::connect(server.address).await.unwrap();
    stream
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(GENEROUS, stream.read_to_end(&mut rest))
        .await
        .expect("the server closes the connection");
    assert!(closed.is_err() || rest.is_empty(), "closed unanswered");
    // Others are still served.
    let host = format!("Host: {}\r\n", server.address);
    assert_eq!(exchange(&server, &get("/api/health", &host)).await.0, 200);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn host_headers_and_absolute_targets_must_agree_on_this_loopback_address() {
    let (server, _dir) = start(ConnectionLimits::default()).await;
    let address = server.address;
    let host = format!("Host: {address}\r\n");

    let (status, body) = exchange(&server, &get("/api/health", &host)).await;
    assert_eq!(status, 200, "{body}");

    let twice = format!("{host}Host: evil.example\r\n");
    let (status, body) = exchange(&server, &get("/api/health", &twice)).await;
    assert_eq!(status, 400);
    assert_envelope(&body, "invalid_request");
    let twice_loopback = format!("{host}{host}");
    let (status, body) = exchange(&server, &get("/api/health", &twice_loopback)).await;
    assert_eq!(status, 400);
    assert_envelope(&body, "invalid_request");

    for foreign in [
        "http://evil.example/api/health".to_owned(),
        format!("http://evil.example:{}/api/health", address.port()),
        format!("http://localhost:{}/api/health", address.port()),
    ] {
        let (status, body) = exchange(&server, &get(&foreign, &host)).await;
        assert_eq!(status, 403, "{foreign}");
        assert_envelope(&body, "forbidden_host");
    }
    let same = format!("http://{address}/api/health");
    let (status, body) = exchange(&server, &get(&same, &host)).await;
    assert_eq!(status, 200, "{body}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn oversized_request_heads_are_answered_with_the_envelope() {
    let (server, _dir) = start(ConnectionLimits::default()).await;
    let host = format!("Host: {}\r\n", server.address);

    // Just over the limit, and far beyond what hyper itself would parse.
    for len in [MAX_URI_BYTES + 1, 200 * 1024] {
        let target = format!("/api/health?q={}", "a".repeat(len));
        let (status, body) = exchange(&server, &get(&target, &host)).await;
        assert_eq!(status, 414, "{len}");
        assert_envelope(&body, "uri_too_long");
    }

    let many = format!("{host}{}", "x-filler: 1\r\n".repeat(MAX_HEADERS));
    let (status, body) = exchange(&server, &get("/api/health", &many)).await;
    assert_eq!(status, 431);
    assert_envelope(&body, "headers_too_large");

    for len in [MAX_HEAD_BYTES, 1024 * 1024] {
        let large = format!("{host}x-filler: {}\r\n", "b".repeat(len));
        let (status, body) = exchange(&server, &get("/api/health", &large)).await;
        assert_eq!(status, 431, "{len}");
        assert_envelope(&body, "headers_too_large");
    }

    // The limits leave ordinary requests alone.
    // Host and Connection are two of the fields.
    let fine = format!("{host}{}", "x-filler: 1\r\n".repeat(MAX_HEADERS - 2));
    let target = format!("/api/health?q={}", "a".repeat(MAX_URI_BYTES - 20));
    assert_eq!(exchange(&server, &get(&target, &fine)).await.0, 200);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_stalled_body_is_answered_and_its_connection_closed() {
    let (server, _dir) = start(ConnectionLimits {
        body_read_timeout: Duration::from_millis(200),
        ..ConnectionLimits::default()
    })
    .await;
    let request = format!(
        "POST /api/transactions HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\nConnection: close\r\n\r\n{{\"summary\"",
        server.address
    );
    // The client keeps its side open: only the server can end the exchange.
    let mut stream = TcpStream::connect(server.address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(GENEROUS, stream.read_to_end(&mut answer))
        .await
        .expect("the server answers and closes")
        .unwrap();
    let (status, body) = parse(&answer);
    assert_eq!(status, 408);
    assert_envelope(&body, "request_timeout");
    server.shutdown().await.unwrap();
}

/// A GET that leaves the connection open for another request.
fn get_kept(target: &str, headers: &str) -> Vec<u8> {
    format!("GET {target} HTTP/1.1\r\n{headers}\r\n").into_bytes()
}

/// Reads one response from a connection that stays open: its head, then
/// the `Content-Length` bytes of its body. `pending` holds what was read
/// past the previous response.
async fn read_response(stream: &mut TcpStream, pending: &mut Vec<u8>) -> (u16, String, Value) {
    let mut chunk = [0u8; 8192];
    let split = loop {
        if let Some(at) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let read = tokio::time::timeout(GENEROUS, stream.read(&mut chunk))
            .await
            .expect("a response head")
            .unwrap();
        assert!(read > 0, "closed before a response: {pending:?}");
        pending.extend_from_slice(&chunk[..read]);
    };
    let head = String::from_utf8(pending[..split].to_vec()).unwrap();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().unwrap())
        })
        .expect("a content-length");
    while pending.len() < split + length {
        let read = tokio::time::timeout(GENEROUS, stream.read(&mut chunk))
            .await
            .expect("a response body")
            .unwrap();
        assert!(read > 0, "closed within a response body");
        pending.extend_from_slice(&chunk[..read]);
    }
    let rest = pending.split_off(split + length);
    let (status, body) = parse(pending);
    *pending = rest;
    (status, head.to_ascii_lowercase(), body)
}

/// Whether the server closes `stream` (after anything it still sends).
async fn closes(stream: &mut TcpStream) -> bool {
    let mut rest = Vec::new();
    matches!(
        tokio::time::timeout(GENEROUS, stream.read_to_end(&mut rest)).await,
        Ok(Ok(_) | Err(_))
    )
}

#[tokio::test]
async fn one_connection_carries_several_requests_each_answered() {
    let (server, _dir) = start(ConnectionLimits::default()).await;
    let host = format!("Host: {}\r\n", server.address);
    let mut stream = TcpStream::connect(server.address).await.unwrap();
    let mut pending = Vec::new();

    // One after the other.
    for _ in 0..3 {
        stream
            .write_all(&get_kept("/api/health", &host))
            .await
            .unwrap();
        let (status, head, body) = read_response(&mut stream, &mut pending).await;
        assert_eq!(status, 200, "{body}");
        assert!(!head.contains("connection: close"), "{head}");
    }

    // A body the route reads (a refused transaction), one no route reads
    // (an unknown path), then a read: each body ends where its length says.
    let body = r#"{"summary": 1}"#;
    let post = |target: &str| {
        format!(
            "POST {target} HTTP/1.1\r\n{host}Content-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
    };
    let mut pipelined = post("/api/transactions").into_bytes();
    pipelined.extend(post("/api/no-such-route").into_bytes());
    pipelined.extend(get_kept("/api/health", &host));
    // All three in one write: the server sees them at once.
    stream.write_all(&pipelined).await.unwrap();
    let (status, _, body) = read_response(&mut stream, &mut pending).await;
    assert_eq!(status, 422, "{body}");
    assert_envelope(&body, "invalid_transaction");
    let (status, _, _) = read_response(&mut stream, &mut pending).await;
    assert_eq!(status, 404);
    let (status, _, body) = read_response(&mut stream, &mut pending).await;
    assert_eq!(status, 200, "{body}");

    // `Connection: close` is honoured: answered, then closed.
    stream.write_all(&get("/api/health", &host)).await.unwrap();
    let (status, head, _) = read_response(&mut stream, &mut pending).await;
    assert_eq!(status, 200);
    assert!(head.contains("connection: close"), "{head}");
    assert!(closes(&mut stream).await);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_later_request_on_a_kept_connection_gets_the_same_head_checks() {
    let (server, _dir) = start(ConnectionLimits::default()).await;
    let host = format!("Host: {}\r\n", server.address);
    let oversized = [
        (
            get_kept(
                &format!("/api/health?q={}", "a".repeat(MAX_URI_BYTES + 1)),
                &host,
            ),
            414,
            "uri_too_long",
        ),
        (
            get_kept(
                "/api/health",
                &format!("{host}{}", "x-filler: 1\r\n".repeat(MAX_HEADERS)),
            ),
            431,
            "headers_too_large",
        ),
        (
            get_kept(
                "/api/health",
                &format!("{host}x-filler: {}\r\n", "b".repeat(MAX_HEAD_BYTES)),
            ),
            431,
            "headers_too_large",
        ),
    ];
    for (request, code, envelope) in oversized {
        let mut stream = TcpStream::connect(server.address).await.unwrap();
        let mut pending = Vec::new();
        stream
            .write_all(&get_kept("/api/health", &host))
            .await
            .unwrap();
        assert_eq!(read_response(&mut stream, &mut pending).await.0, 200);
        stream.write_all(&request).await.unwrap();
        let (status, _, body) = read_response(&mut stream, &mut pending).await;
        assert_eq!(status, code, "{envelope}");
        assert_envelope(&body, envelope);
        assert!(closes(&mut stream).await, "{envelope}");
    }

    // Sent right behind an ordinary request, in the same write, the
    // oversized one is still checked on its own.
    let mut stream = TcpStream::connect(server.address).await.unwrap();
    let mut pending = Vec::new();
    let mut both = get_kept("/api/health", &host);
    both.extend(get_kept(
        &format!("/api/health?q={}", "a".repeat(MAX_URI_BYTES + 1)),
        &host,
    ));
    stream.write_all(&both).await.unwrap();
    assert_eq!(read_response(&mut stream, &mut pending).await.0, 200);
    let (status, _, body) = read_response(&mut stream, &mut pending).await;
    assert_eq!(status, 414);
    assert_envelope(&body, "uri_too_long");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_idle_kept_connection_makes_room_for_a_newcomer() {
    // Neither timeout can end the idle connection: only eviction can.
    let (server, _dir) = start(ConnectionLimits {
        max_connections: 1,
        header_read_timeout: Duration::from_secs(3600),
        idle_timeout: Duration::from_secs(3600),
        ..ConnectionLimits::default()
    })
    .await;
    let host = format!("Host: {}\r\n", server.address);
    let mut idle = TcpStream::connect(server.address).await.unwrap();
    idle.write_all(&get_kept("/api/health", &host))
        .await
        .unwrap();
    assert_eq!(read_response(&mut idle, &mut Vec::new()).await.0, 200);

    let (status, body) = exchange(&server, &get("/api/health", &host)).await;
    assert_eq!(status, 200, "{body}");
    assert!(closes(&mut idle).await, "the idle connection was closed");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_idle_kept_connection_is_closed_after_the_idle_timeout() {
    let (server, _dir) = start(ConnectionLimits {
        idle_timeout: Duration::from_millis(200),
        ..ConnectionLimits::default()
    })
    .await;
    let host = format!("Host: {}\r\n", server.address);
    let mut idle = TcpStream::connect(server.address).await.unwrap();
    idle.write_all(&get_kept("/api/health", &host))
        .await
        .unwrap();
    assert_eq!(read_response(&mut idle, &mut Vec::new()).await.0, 200);
    assert!(closes(&mut idle).await);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn shutdown_closes_idle_kept_connections_without_waiting_for_them() {
    let (server, _dir) = start(ConnectionLimits {
        header_read_timeout: Duration::from_secs(3600),
        idle_timeout: Duration::from_secs(3600),
        ..ConnectionLimits::default()
    })
    .await;
    let host = format!("Host: {}\r\n", server.address);
    let mut idle = TcpStream::connect(server.address).await.unwrap();
    idle.write_all(&get_kept("/api/health", &host))
        .await
        .unwrap();
    assert_eq!(read_response(&mut idle, &mut Vec::new()).await.0, 200);
    tokio::time::timeout(GENEROUS, server.shutdown())
        .await
        .expect("shutdown does not wait for an idle connection")
        .unwrap();
    assert!(closes(&mut idle).await);
}
