//! The accept loop: bounded connections and bounded request heads.
//!
//! `axum::serve` has neither a header-read timeout nor a connection bound, so
//! a flood of half-open connections (a TCP handshake, then silence) could
//! hold the runtime until a real client's request timed out. The runtime
//! therefore serves HTTP/1.1 itself, over hyper:
//!
//! - At most [`ConnectionLimits::max_connections`] connections are held.
//!   When all are taken, the oldest connection still sending its request head
//!   is closed to make room, so a flood evicts itself rather than the
//!   newcomer; only when every slot is serving a request does accepting wait.
//! - A connection must send its whole request head within
//!   [`ConnectionLimits::header_read_timeout`], or it is closed unanswered.
//! - The head is read and checked here before hyper sees it: a request
//!   target over [`MAX_URI_BYTES`] is answered 414 (`uri_too_long`), a head
//!   over [`MAX_HEAD_BYTES`] or with more than [`MAX_HEADERS`] fields 431
//!   (`headers_too_large`), an unparsable one 400 (`invalid_request`) — each
//!   with the JSON error envelope; hyper would answer them with an empty body.
//! - A request body must arrive within
//!   [`ConnectionLimits::body_read_timeout`] (enforced where every body is
//!   read, [`crate::body`]), so a stalled body cannot hold a slot either.
//! - Each connection serves one request (no keep-alive). A second request on
//!   the same connection would reach hyper's head parser unchecked, and an
//!   idle kept-alive connection would hold a slot. A fresh loopback
//!   connection per request costs about 0.2 ms (`/api/health`: 0.37 ms
//!   median against 0.14 ms kept alive).
//! - Shutdown stops accepting, closes connections still sending their head,
//!   and waits for in-flight requests.

use crate::api_error::status_of;
use crate::config::ConnectionLimits;
use axum::Router;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use hyper_util::service::TowerToHyperService;
use somite_api::{DomainCode, Error, HttpCode};
use std::collections::BTreeMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};

/// Connections held at once by default. Far below common file-descriptor
/// limits, far above what one browser and a few MCP adapters open.
pub const MAX_CONNECTIONS: usize = 256;
/// How long a connection may take to send its request head by default.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest request target (path and query) accepted; no route needs more.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// Largest request head (request line and header fields) accepted.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Most header fields in one request; hyper is configured with the same.
pub const MAX_HEADERS: usize = 100;
/// After refusing a head, how long the rest of the client's request is read
/// and discarded, so closing with unread data does not reset the connection
/// before the client has read the refusal.
const LINGER: Duration = Duration::from_secs(2);
/// At most this much of a refused request is discarded before closing.
const LINGER_BYTES: usize = 1024 * 1024;
/// Pause after an accept failure that is not about one connection (such as
/// running out of file descriptors), instead of spinning on it.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// Serves `app` on `listener` until `shutdown` fires (or its sender drops).
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: oneshot::Receiver<()>,
) -> io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let waiting = Arc::new(WaitingHeads::default());
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) if is_connection_error(&error) => continue,
                Err(error) => {
                    tracing::warn!(%error, "accepting a connection failed");
                    tokio::time::sleep(ACCEPT_RETRY).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let permit = match slots.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                waiting.evict_oldest();
                tokio::select! {
                    permit = slots.clone().acquire_owned() => {
                        permit.expect("the connection semaphore is never closed")
                    }
                    _ = &mut shutdown => break,
                }
            }
        };
        let (evict, evicted) = oneshot::channel();
        let registration = waiting.register(evict);
        tokio::spawn(connection(
            stream,
            app.clone(),
            Admitted {
                timeout: limits.header_read_timeout,
                registration,
                evicted,
                watcher: graceful.watcher(),
                _permit: permit,
            },
        ));
    }
    drop(listener);
    waiting.evict_all();
    graceful.shutdown().await;
    Ok(())
}

/// Errors about one connection that leave the listener healthy.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

/// What an accepted connection carries until it ends.
struct Admitted {
    timeout: Duration,
    registration: Registration,
    evicted: oneshot::Receiver<()>,
    watcher: Watcher,
    /// Its slot, freed when the connection ends.
    _permit: OwnedSemaphorePermit,
}

async fn connection(mut stream: TcpStream, app: Router, admitted: Admitted) {
    let Admitted {
        timeout,
        registration,
        evicted,
        watcher,
        _permit,
    } = admitted;
    let head = tokio::select! {
        head = tokio::time::timeout(timeout, read_head(&mut stream)) => head,
        // Evicted for a newcomer, or shutting down: close unanswered.
        _ = evicted => return,
    };
    drop(registration);
    match head {
        Ok(Ok(Head::Complete(head))) => {
            let io = TokioIo::new(Replay {
                head,
                replayed: 0,
                stream,
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .keep_alive(false)
                .max_headers(MAX_HEADERS)
                .serve_connection(io, TowerToHyperService::new(app));
            if let Err(error) = watcher.watch(connection).await {
                tracing::debug!(%error, "a connection ended with an error");
            }
        }
        Ok(Ok(Head::Refused(error))) => refuse(stream, &error).await,
        // No complete head in time, the client went away, or reading failed.
        Ok(Ok(Head::Closed)) | Ok(Err(_)) | Err(_) => {}
    }
}

/// A request head as read from the client.
enum Head {
    /// A complete head, with whatever of the body arrived along with it.
    Complete(Vec<u8>),
    /// A head the runtime will not serve.
    Refused(Error),
    /// The client closed the connection before finishing its head.
    Closed,
}

/// Reads until the request head is complete or breaks a limit.
async fn read_head(stream: &mut TcpStream) -> io::Result<Head> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8 * 1024];
    loop {
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            return Ok(Head::Closed);
        }
        buffer.extend_from_slice(&chunk[..read]);
        if let Some(verdict) = check_head(&buffer) {
            return Ok(match verdict {
                Ok(()) => Head::Complete(buffer),
                Err(error) => Head::Refused(error),
            });
        }
    }
}

/// Whether `buffer` starts with an acceptable request head: `None` while it
/// may still become one.
fn check_head(buffer: &[u8]) -> Option<Result<(), Error>> {
    if target_len(buffer) > MAX_URI_BYTES {
        return Some(Err(uri_too_long()));
    }
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut request = httparse::Request::new(&mut fields);
    match request.parse(buffer) {
        Ok(httparse::Status::Complete(_)) if request.path.map_or(0, str::len) > MAX_URI_BYTES => {
            Some(Err(uri_too_long()))
        }
        Ok(httparse::Status::Complete(len)) if len > MAX_HEAD_BYTES => {
            Some(Err(headers_too_large()))
        }
        Ok(httparse::Status::Complete(_)) => Some(Ok(())),
        Ok(httparse::Status::Partial) if buffer.len() >= MAX_HEAD_BYTES => {
            Some(Err(headers_too_large()))
        }
        Ok(httparse::Status::Partial) => None,
        Err(httparse::Error::TooManyHeaders) => Some(Err(headers_too_large())),
        Err(error) => Some(Err(Error::new(
            DomainCode::InvalidRequest,
            format!("the request head is not valid HTTP/1.1: {error}"),
            "send a well-formed HTTP/1.1 request",
        ))),
    }
}

/// The length of the request target so far: the second space-separated word
/// of the request line (after any empty lines, which HTTP/1.1 lets a server
/// skip), whether or not the line is complete yet.
fn target_len(buffer: &[u8]) -> usize {
    let line = buffer
        .split(|b| *b == b'\n')
        .find(|line| !line.is_empty() && *line != b"\r")
        .unwrap_or_default();
    let mut words = line.split(|b| *b == b' ');
    words.next();
    words.next().map_or(0, <[u8]>::len)
}

fn uri_too_long() -> Error {
    Error::new(
        HttpCode::UriTooLong,
        format!("the request target exceeds {MAX_URI_BYTES} bytes"),
        "shorten the path and query; send large inputs in a JSON body instead",
    )
}

fn headers_too_large() -> Error {
    Error::new(
        HttpCode::HeadersTooLarge,
        format!("the request head exceeds {MAX_HEAD_BYTES} bytes or {MAX_HEADERS} header fields"),
        "send fewer or smaller headers",
    )
}

/// Answers with the error envelope and closes the connection.
async fn refuse(mut stream: TcpStream, error: &Error) {
    let status = status_of(error.code);
    let body = serde_json::to_vec(error).unwrap_or_default();
    let head = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or_default(),
        body.len(),
    );
    let answered = async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(&body).await?;
        stream.shutdown().await
    };
    if answered.await.is_err() {
        return;
    }
    let _ = tokio::time::timeout(LINGER, async {
        let mut discarded = 0;
        let mut chunk = [0u8; 8 * 1024];
        while discarded < LINGER_BYTES {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(read) => discarded += read,
            }
        }
    })
    .await;
}

/// The connection with its already-read head put back in front, for hyper.
struct Replay {
    head: Vec<u8>,
    replayed: usize,
    stream: TcpStream,
}

impl AsyncRead for Replay {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let rest = &this.head[this.replayed..];
        if rest.is_empty() {
            return Pin::new(&mut this.stream).poll_read(cx, buf);
        }
        let len = rest.len().min(buf.remaining());
        buf.put_slice(&rest[..len]);
        this.replayed += len;
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Replay {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Connections still sending their request head, oldest first, each with
/// the means to close it.
#[derive(Default)]
struct WaitingHeads {
    next: Mutex<u64>,
    waiting: Mutex<BTreeMap<u64, oneshot::Sender<()>>>,
}

/// A connection's place among [`WaitingHeads`], given up when dropped.
struct Registration {
    id: u64,
    heads: Arc<WaitingHeads>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        lock(&self.heads.waiting).remove(&self.id);
    }
}

impl WaitingHeads {
    fn register(self: &Arc<Self>, evict: oneshot::Sender<()>) -> Registration {
        let id = {
            let mut next = lock(&self.next);
            *next += 1;
            *next
        };
        lock(&self.waiting).insert(id, evict);
        Registration {
            id,
            heads: self.clone(),
        }
    }

    /// Closes the connection that has waited longest for its head, if any.
    fn evict_oldest(&self) {
        if let Some((_, evict)) = lock(&self.waiting).pop_first() {
            let _ = evict.send(());
        }
    }

    fn evict_all(&self) {
        for (_, evict) in std::mem::take(&mut *lock(&self.waiting)) {
            let _ = evict.send(());
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_judged_as_they_arrive() {
        assert!(check_head(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1").is_none());
        assert!(matches!(
            check_head(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
            Some(Ok(()))
        ));
        let long = "a".repeat(MAX_URI_BYTES);
        for head in [
            format!("GET /{long}"),
            format!("\r\n\r\nGET /{long}"),
            format!("\r\nGET /{long} HTTP/1.1\r\n\r\n"),
        ] {
            let refused = check_head(head.as_bytes()).unwrap().unwrap_err();
            assert_eq!(refused.code, HttpCode::UriTooLong, "{:?}", &head[..8]);
        }
        let many = format!(
            "GET / HTTP/1.1\r\n{}\r\n",
            "x-a: 1\r\n".repeat(MAX_HEADERS + 1)
        );
        let refused = check_head(many.as_bytes()).unwrap().unwrap_err();
        assert_eq!(refused.code, HttpCode::HeadersTooLarge);
        let big = format!("GET / HTTP/1.1\r\nx-a: {}", "b".repeat(MAX_HEAD_BYTES));
        let refused = check_head(big.as_bytes()).unwrap().unwrap_err();
        assert_eq!(refused.code, HttpCode::HeadersTooLarge);
        let refused = check_head(b"GET / HTTP/1.1\r\nbad header\r\n\r\n")
            .unwrap()
            .unwrap_err();
        assert_eq!(refused.code, DomainCode::InvalidRequest);
    }
}
