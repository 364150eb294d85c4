//! Bounded capture of a child's output stream.
//!
//! A child may write without end; Somite keeps a bounded part and keeps
//! reading the rest (a child blocked on a full pipe would never exit). Which
//! part is the caller's choice per use, because what matters differs: a
//! tool report is read from the top, a failure's message is at the end.

use std::io;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Which part of a stream is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    /// The stream goes to `/dev/null`.
    Discard,
    /// The first `n` bytes are kept; the rest is read, counted and dropped.
    Head(usize),
    /// The last `n` bytes are kept; earlier bytes are read and dropped.
    Tail(usize),
}

/// What was kept of one stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    kept: Vec<u8>,
    total: u64,
}

impl Captured {
    /// The kept bytes, in stream order.
    pub fn bytes(&self) -> &[u8] {
        &self.kept
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.kept
    }

    /// How many bytes the stream carried in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Whether bytes were dropped.
    pub fn truncated(&self) -> bool {
        self.total > self.kept.len() as u64
    }
}

/// The last `limit` bytes of a stream, kept as it is read. Trims only when
/// twice the limit is held, so each byte is moved a bounded number of times.
#[derive(Debug, Clone)]
pub struct TailBuffer {
    limit: usize,
    bytes: Vec<u8>,
}

impl TailBuffer {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            bytes: Vec::new(),
        }
    }

    pub fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend_from_slice(chunk);
        if self.bytes.len() > self.limit.saturating_mul(2) {
            let excess = self.bytes.len() - self.limit;
            self.bytes.drain(..excess);
        }
    }

    /// The last `limit` bytes pushed.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[self.bytes.len().saturating_sub(self.limit)..]
    }
}

/// One stream being captured. Every step is cancel-safe (all state lives
/// here), so a caller may stop draining at a deadline and resume later.
pub(crate) struct Stream {
    reader: Option<Box<dyn AsyncRead + Unpin + Send>>,
    kept: Kept,
    total: u64,
}

enum Kept {
    Head { bytes: Vec<u8>, limit: usize },
    Tail(TailBuffer),
}

impl Stream {
    pub(crate) fn new(
        reader: Option<impl AsyncRead + Unpin + Send + 'static>,
        capture: Capture,
    ) -> Self {
        let kept = match capture {
            Capture::Discard => Kept::Head {
                bytes: Vec::new(),
                limit: 0,
            },
            Capture::Head(limit) => Kept::Head {
                bytes: Vec::new(),
                limit,
            },
            Capture::Tail(limit) => Kept::Tail(TailBuffer::new(limit)),
        };
        Self {
            reader: reader.map(|r| Box::new(r) as Box<dyn AsyncRead + Unpin + Send>),
            kept,
            total: 0,
        }
    }

    /// Reads to the end of the stream.
    pub(crate) async fn drain(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 16 * 1024];
        while let Some(reader) = self.reader.as_mut() {
            let read = reader.read(&mut chunk).await?;
            if read == 0 {
                self.reader = None;
                break;
            }
            self.total += read as u64;
            match &mut self.kept {
                Kept::Head { bytes, limit } => {
                    let room = limit.saturating_sub(bytes.len());
                    bytes.extend_from_slice(&chunk[..read.min(room)]);
                }
                Kept::Tail(tail) => tail.push(&chunk[..read]),
            }
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> Captured {
        let kept = match self.kept {
            Kept::Head { bytes, .. } => bytes,
            Kept::Tail(tail) => tail.as_bytes().to_vec(),
        };
        Captured {
            kept,
            total: self.total,
        }
    }
}

/// Reads `reader` to its end under `capture` — for a stream a caller holds
/// itself, such as an agent's standard error beside its streamed stdio. A
/// read error ends the stream; what was read before it is kept.
pub async fn drain(reader: impl AsyncRead + Unpin + Send + 'static, capture: Capture) -> Captured {
    let mut stream = Stream::new(Some(reader), capture);
    let _ = stream.drain().await;
    stream.finish()
}
