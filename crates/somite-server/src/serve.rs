//! The accept loop: bounded connections and bounded request heads.
//!
//! `axum::serve` has neither a header-read timeout nor a connection bound, so
//! a flood of half-open connections (a TCP handshake, then silence) could
//! hold the runtime until a real client's request timed out. The runtime
//! therefore serves HTTP/1.1 itself, over hyper:
//!
//! - At most [`ConnectionLimits::max_connections`] connections are held.
//!   When all are taken, a connection waiting for a request head is closed
//!   to make room — an idle kept-alive one first (its client reconnects
//!   transparently), else the oldest still sending its head — so a flood
//!   evicts itself rather than the newcomer; only when every slot is serving
//!   a request does accepting wait.
//! - A connection must send its whole request head within
//!   [`ConnectionLimits::header_read_timeout`], or it is closed unanswered.
//! - Every head is read and checked here before hyper sees it: a request
//!   target over [`MAX_URI_BYTES`] is answered 414 (`uri_too_long`), a head
//!   over [`MAX_HEAD_BYTES`] or with more than [`MAX_HEADERS`] fields 431
//!   (`headers_too_large`), an unparsable one 400 (`invalid_request`) — each
//!   with the JSON error envelope; hyper would answer them with an empty body.
//! - A request body must arrive within
//!   [`ConnectionLimits::body_read_timeout`] (enforced where every body is
//!   read, [`crate::body`]), so a stalled body cannot hold a slot either.
//! - Connections are kept alive, so a client making many small calls (the
//!   MCP adapter, about 0.2 ms saved per call over loopback) pays for one
//!   handshake, and every request on a connection gets the same head checks:
//!   hyper serves exactly one request at a time, on a stream ([`Framed`])
//!   that holds the checked head, then the `Content-Length` body bytes, and
//!   nothing more, so hyper's own parser never meets a later head. Once the
//!   response is under way hyper is told to finish and give the connection
//!   back, and the next head is read and checked here. A request whose body
//!   is not length-delimited (chunked), that asks `Connection: close`, is
//!   HTTP/1.0 or asks for an upgrade is served as before and its connection
//!   closed, as is one whose response says `Connection: close` or whose body
//!   was not read to its end.
//! - An idle kept-alive connection counts as waiting for its head: it is
//!   the first to be evicted, and it must send its next whole head within
//!   [`ConnectionLimits::idle_timeout`] (5 s,
//!   [`somite_api::limits::RUNTIME_KEEP_ALIVE`]; shorter than the header
//!   timeout because a kept-alive connection is a saving, never a need).
//! - Shutdown stops accepting, closes connections waiting for a head (idle
//!   ones included) at once, and waits for in-flight requests, whose
//!   connections then close.

use crate::api_error::status_of;
use crate::config::ConnectionLimits;
use axum::Router;
use axum::http::HeaderMap;
use hyper::service::Service as _;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use somite_api::{DomainCode, Error, HttpCode};
use std::collections::BTreeMap;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot, watch};

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
/// Reads from the client, for heads and for what [`Framed`] passes on.
const CHUNK: usize = 8 * 1024;

/// Serves `app` on `listener` until `shutdown` fires (or its sender drops).
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: oneshot::Receiver<()>,
) -> io::Result<()> {
    let max = u32::try_from(limits.max_connections.max(1)).unwrap_or(u32::MAX);
    let slots = Arc::new(Semaphore::new(max as usize));
    let waiting = Arc::new(WaitingHeads::default());
    let (stopping, stop) = watch::channel(false);
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
                waiting.make_room();
                let permit = tokio::select! {
                    permit = slots.clone().acquire_owned() => {
                        permit.expect("the connection semaphore is never closed")
                    }
                    _ = &mut shutdown => break,
                };
                waiting.room_made();
                permit
            }
        };
        // Responses are written whole; Nagle would only delay the tail of
        // one on a kept-alive connection.
        let _ = stream.set_nodelay(true);
        // Registered before the task starts, so the next newcomer can evict
        // this connection if it never sends a head.
        let first_head = waiting.register(Waiting::Head);
        tokio::spawn(connection(
            stream,
            app.clone(),
            Admitted {
                limits,
                first_head,
                waiting: waiting.clone(),
                stop: stop.clone(),
                _permit: permit,
            },
        ));
    }
    drop(listener);
    let _ = stopping.send(true);
    waiting.evict_all();
    // Every connection holds its slot until it ends: all slots back means
    // every in-flight request was answered.
    let _ = slots.acquire_many(max).await;
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
    limits: ConnectionLimits,
    /// Its place among the connections waiting for a head, taken when it
    /// was accepted, and the signal that it was evicted.
    first_head: (Registration, oneshot::Receiver<()>),
    waiting: Arc<WaitingHeads>,
    /// Becomes `true` when the runtime shuts down.
    stop: watch::Receiver<bool>,
    /// Its slot, freed when the connection ends.
    _permit: OwnedSemaphorePermit,
}

async fn connection(mut stream: TcpStream, app: Router, admitted: Admitted) {
    let Admitted {
        limits,
        first_head,
        waiting,
        mut stop,
        _permit,
    } = admitted;
    // What the client sent past the previous request: the next one's start.
    let mut buffer = Vec::new();
    let mut next = Some(first_head);
    let mut timeout = limits.header_read_timeout;
    loop {
        let (registration, evicted) = next
            .take()
            .unwrap_or_else(|| waiting.register(Waiting::Idle));
        let head = tokio::select! {
            head = tokio::time::timeout(timeout, read_head(&mut stream, &mut buffer)) => head,
            // Evicted for a newcomer, or shutting down: close unanswered.
            _ = evicted => return,
        };
        drop(registration);
        let head = match head {
            Ok(Ok(Head::Complete(head))) => head,
            Ok(Ok(Head::Refused(error))) => return refuse(stream, &error).await,
            // No complete head in time, the client went away, or reading failed.
            Ok(Ok(Head::Closed)) | Ok(Err(_)) | Err(_) => return,
        };
        match serve_one(stream, buffer, &head, &app, &mut stop).await {
            Some((kept, rest)) => {
                stream = kept;
                buffer = rest;
                timeout = limits.idle_timeout.min(limits.header_read_timeout);
            }
            None => return,
        }
    }
}

/// Serves the request whose checked head starts `buffer`; gives the
/// connection back, with what the client sent after the request, when it
/// can carry another.
async fn serve_one(
    stream: TcpStream,
    buffer: Vec<u8>,
    head: &RequestHead,
    app: &Router,
    stop: &mut watch::Receiver<bool>,
) -> Option<(TcpStream, Vec<u8>)> {
    let framed = Framed::new(stream, buffer, head);
    let answer = Arc::new(Answer::default());
    let service = {
        let app = TowerToHyperService::new(app.clone());
        let answer = answer.clone();
        hyper::service::service_fn(move |request| {
            let response = app.call(request);
            let answer = answer.clone();
            Box::pin(async move {
                let response = response.await;
                if let Ok(response) = &response {
                    answer
                        .closes
                        .store(says_close(response.headers()), Ordering::Relaxed);
                }
                answer.given.store(true, Ordering::Relaxed);
                response
            })
        })
    };
    let mut connection = hyper::server::conn::http1::Builder::new()
        .keep_alive(head.reusable)
        .max_headers(MAX_HEADERS)
        .serve_connection(TokioIo::new(framed), service);
    let served = {
        let mut finishing = false;
        let mut stopping = std::pin::pin!(stop.wait_for(|stopping| *stopping));
        std::future::poll_fn(|cx| {
            loop {
                let poll = connection.poll_without_shutdown(cx);
                if poll.is_ready() || finishing {
                    return poll;
                }
                // Once the response head is written (hyper writes it in the
                // poll that produced it), keep-alive is switched off: hyper
                // finishes this response and stops instead of reading another
                // head. On shutdown, before the head, the response says
                // `Connection: close`.
                if answer.given.load(Ordering::Relaxed) || stopping.as_mut().poll(cx).is_ready() {
                    Pin::new(&mut connection).graceful_shutdown();
                    finishing = true;
                    continue;
                }
                return Poll::Pending;
            }
        })
        .await
    };
    let parts = connection.into_parts();
    let mut framed = parts.io.into_inner();
    let reusable = served.is_ok()
        && head.reusable
        && answer.given.load(Ordering::Relaxed)
        && !answer.closes.load(Ordering::Relaxed)
        && framed.body_left == Some(0)
        && parts.read_buf.is_empty()
        && !framed.client_closed
        && !*stop.borrow();
    if let Err(error) = &served {
        tracing::debug!(%error, "a connection ended with an error");
    }
    if reusable {
        Some((framed.stream, framed.after))
    } else {
        let _ = framed.stream.shutdown().await;
        None
    }
}

/// What the service saw of its response.
#[derive(Default)]
struct Answer {
    /// The response was produced (and so its head written).
    given: AtomicBool,
    /// The response says `Connection: close`.
    closes: AtomicBool,
}

/// Whether a `Connection` header among `headers` has the `close` option.
fn says_close(headers: &HeaderMap) -> bool {
    has_option(
        headers
            .get_all(axum::http::header::CONNECTION)
            .iter()
            .map(|v| v.as_bytes()),
        "close",
    )
}

/// Whether any of the comma-separated `values` is `option`.
fn has_option<'a>(values: impl IntoIterator<Item = &'a [u8]>, option: &str) -> bool {
    values.into_iter().any(|value| {
        value
            .split(|b| *b == b',')
            .any(|o| o.trim_ascii().eq_ignore_ascii_case(option.as_bytes()))
    })
}

/// A request head as read from the client.
enum Head {
    /// A complete head (with whatever followed it still in the buffer).
    Complete(RequestHead),
    /// A head the runtime will not serve.
    Refused(Error),
    /// The client closed the connection before finishing its head.
    Closed,
}

/// What the runtime needs of a checked head to serve it and go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RequestHead {
    /// Bytes of the head, up to and including its empty line.
    len: usize,
    /// The body's length, when it is given by `Content-Length` (or absent,
    /// for no body); `None` for a chunked or otherwise framed body.
    body: Option<u64>,
    /// The client lets the connection carry another request: HTTP/1.1, no
    /// `Connection: close`, no upgrade.
    reusable: bool,
}

impl RequestHead {
    fn of(request: &httparse::Request<'_, '_>, len: usize) -> RequestHead {
        let named = |name: &'static str| {
            request
                .headers
                .iter()
                .filter(move |h| h.name.eq_ignore_ascii_case(name))
                .map(|h| h.value)
        };
        let mut lengths = named("content-length").map(|v| {
            std::str::from_utf8(v)
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
        });
        let body = match (named("transfer-encoding").next(), lengths.next()) {
            (Some(_), _) => None,
            (None, None) => Some(0),
            // hyper refuses conflicting or invalid lengths; such a request
            // is served as unframed and its connection closed.
            (None, Some(first)) => first.filter(|first| lengths.all(|l| l == Some(*first))),
        };
        let reusable = request.version == Some(1)
            && !has_option(named("connection"), "close")
            && !has_option(named("connection"), "upgrade")
            && named("upgrade").next().is_none();
        RequestHead {
            len,
            body,
            reusable: reusable && body.is_some(),
        }
    }
}

/// Reads until the request head in `buffer` (which may already hold some
/// or all of it) is complete or breaks a limit.
async fn read_head(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> io::Result<Head> {
    let mut chunk = [0u8; CHUNK];
    loop {
        if !buffer.is_empty()
            && let Some(verdict) = check_head(buffer)
        {
            return Ok(match verdict {
                Ok(head) => Head::Complete(head),
                Err(error) => Head::Refused(error),
            });
        }
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            return Ok(Head::Closed);
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
}

/// Whether `buffer` starts with an acceptable request head: `None` while it
/// may still become one.
fn check_head(buffer: &[u8]) -> Option<Result<RequestHead, Error>> {
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
        Ok(httparse::Status::Complete(len)) => Some(Ok(RequestHead::of(&request, len))),
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

/// The connection as hyper sees it for one request: the checked head and
/// whatever of the body arrived with it, then the rest of the body from the
/// client, then nothing — what the client sends after the request is kept
/// in `after` for the next head check, never shown to hyper.
struct Framed {
    stream: TcpStream,
    /// The head and the body bytes read along with it.
    prefix: Vec<u8>,
    replayed: usize,
    /// Body bytes still to come from the client; `None` when the body is not
    /// length-delimited, and everything the client sends is passed on (the
    /// connection then closes after this request).
    body_left: Option<u64>,
    /// What the client sent after this request.
    after: Vec<u8>,
    /// The client closed its side.
    client_closed: bool,
}

impl Framed {
    fn new(stream: TcpStream, mut buffer: Vec<u8>, head: &RequestHead) -> Framed {
        let (body_left, after) = match head.body {
            Some(body) => {
                let arrived = (buffer.len() - head.len) as u64;
                let after = if arrived > body {
                    // The request ends within what was read.
                    buffer.split_off(head.len + body as usize)
                } else {
                    Vec::new()
                };
                (Some(body.saturating_sub(arrived)), after)
            }
            None => (None, Vec::new()),
        };
        Framed {
            stream,
            prefix: buffer,
            replayed: 0,
            body_left,
            after,
            client_closed: false,
        }
    }

    /// After the request: keeps what the client sends for the next head
    /// (up to a head's worth; the rest waits in the socket) and reports
    /// the client hanging up, so hyper stops work on a request nobody
    /// waits for, as it would on a bare connection.
    fn poll_after(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut chunk = [0u8; CHUNK];
        while self.after.len() <= MAX_HEAD_BYTES {
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut self.stream).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    self.client_closed = true;
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(Ok(())) => self.after.extend_from_slice(read.filled()),
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Pending => return Poll::Pending,
            }
        }
        // Enough for the next head's check; hyper is woken by its own
        // writes and by the service meanwhile.
        Poll::Pending
    }
}

impl AsyncRead for Framed {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let rest = &this.prefix[this.replayed..];
        if !rest.is_empty() {
            let len = rest.len().min(buf.remaining());
            buf.put_slice(&rest[..len]);
            this.replayed += len;
            return Poll::Ready(Ok(()));
        }
        match this.body_left {
            None => Pin::new(&mut this.stream).poll_read(cx, buf),
            Some(0) => this.poll_after(cx),
            Some(left) => {
                let mut chunk = [0u8; CHUNK];
                let len = buf
                    .remaining()
                    .min(CHUNK)
                    .min(usize::try_from(left).unwrap_or(CHUNK));
                let mut read = ReadBuf::new(&mut chunk[..len]);
                std::task::ready!(Pin::new(&mut this.stream).poll_read(cx, &mut read))?;
                let read = read.filled();
                if read.is_empty() {
                    this.client_closed = true;
                }
                buf.put_slice(read);
                this.body_left = Some(left - read.len() as u64);
                Poll::Ready(Ok(()))
            }
        }
    }
}

impl AsyncWrite for Framed {
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

/// Whether a connection waiting for a head has served a request before.
/// Idle kept-alive connections sort first: they are evicted first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Waiting {
    /// Kept alive after a response, its client may not need it again.
    Idle,
    /// Newly accepted, sending (or yet to send) its first head.
    Head,
}

/// Connections waiting for a request head, in eviction order, each with the
/// means to close it.
#[derive(Default)]
struct WaitingHeads {
    state: Mutex<Heads>,
}

#[derive(Default)]
struct Heads {
    next: u64,
    waiting: BTreeMap<(Waiting, u64), oneshot::Sender<()>>,
    /// A newcomer waits for a slot and nobody was waiting when it came: the
    /// next connection to wait for a head makes room at once.
    owed: bool,
    /// Shutting down: every connection that waits for a head is closed.
    closed: bool,
}

/// A connection's place among [`WaitingHeads`], given up when dropped.
struct Registration {
    key: (Waiting, u64),
    heads: Arc<WaitingHeads>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        lock(&self.heads.state).waiting.remove(&self.key);
    }
}

impl WaitingHeads {
    /// Enters a connection about to wait for a head; the receiver fires
    /// when it is to be closed.
    fn register(self: &Arc<Self>, kind: Waiting) -> (Registration, oneshot::Receiver<()>) {
        let (evict, evicted) = oneshot::channel();
        let mut heads = lock(&self.state);
        heads.next += 1;
        let key = (kind, heads.next);
        if heads.closed || std::mem::take(&mut heads.owed) {
            let _ = evict.send(());
        } else {
            heads.waiting.insert(key, evict);
        }
        let registration = Registration {
            key,
            heads: self.clone(),
        };
        (registration, evicted)
    }

    /// Closes the first connection in eviction order, or, when none waits,
    /// the next one to.
    fn make_room(&self) {
        let mut heads = lock(&self.state);
        match heads.waiting.pop_first() {
            Some((_, evict)) => {
                let _ = evict.send(());
            }
            None => heads.owed = true,
        }
    }

    /// The newcomer has its slot: nobody else needs to make room.
    fn room_made(&self) {
        lock(&self.state).owed = false;
    }

    fn evict_all(&self) {
        let mut heads = lock(&self.state);
        heads.closed = true;
        for (_, evict) in std::mem::take(&mut heads.waiting) {
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

    fn head(text: &str) -> RequestHead {
        match check_head(text.as_bytes()) {
            Some(Ok(head)) => head,
            _ => panic!("not a complete, acceptable head: {text:?}"),
        }
    }

    #[test]
    fn only_length_delimited_keep_alive_requests_let_the_connection_go_on() {
        let plain = head("GET / HTTP/1.1\r\nHost: a\r\n\r\n");
        assert_eq!(plain.body, Some(0));
        assert!(plain.reusable);
        assert_eq!(plain.len, "GET / HTTP/1.1\r\nHost: a\r\n\r\n".len());
        let sized = head("POST / HTTP/1.1\r\nContent-Length: 12\r\ncontent-length: 12\r\n\r\n");
        assert_eq!((sized.body, sized.reusable), (Some(12), true));
        for closing in [
            "GET / HTTP/1.1\r\nConnection: keep-alive, Close\r\n\r\n",
            "GET / HTTP/1.0\r\n\r\n",
            "GET / HTTP/1.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        ] {
            assert!(!head(closing).reusable, "{closing:?}");
        }
        assert_eq!(
            head("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n").body,
            None
        );
    }

    #[test]
    fn heads_are_judged_as_they_arrive() {
        assert!(check_head(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1").is_none());
        assert!(matches!(
            check_head(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
            Some(Ok(_))
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
