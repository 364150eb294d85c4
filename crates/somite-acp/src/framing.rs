//! Byte framing of a child's newline-delimited JSON-RPC output.
//!
//! ACP (and stdio MCP) put one JSON-RPC message on each line. The ACP SDK's
//! own stdio transport reads lines without a size limit, so an agent that
//! never writes a newline could make Somite buffer without bound. Somite
//! therefore frames the bytes itself, before any protocol decoding, with
//! `tokio_util`'s bounded [`LinesCodec`]: a frame, complete or
//! unterminated, longer than the limit (the shared workflow transaction
//! envelope, [`MAX_FRAME_BYTES`](crate::limits::MAX_FRAME_BYTES), in
//! production) is an error that ends the session, and memory never holds
//! more than one frame of at most that size plus one read.
//!
//! [`bounded_lines`] turns any `AsyncRead` into the line stream the SDK's
//! `Lines` transport consumes; the limit is a parameter so tests can use a
//! small one.

use std::io;

use futures::{Stream, StreamExt, TryStreamExt};
use thiserror::Error;
use tokio::io::AsyncRead;
use tokio_util::bytes::BytesMut;
use tokio_util::codec::{Decoder, FramedRead, LinesCodec, LinesCodecError};

/// Why a frame was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FrameError {
    /// A frame grew past the limit before its newline (or before end of input).
    #[error("a protocol frame exceeded {limit} bytes")]
    TooLarge {
        /// The limit it exceeded.
        limit: usize,
    },
    /// A frame is not UTF-8, so it cannot be JSON.
    #[error("a protocol frame is not UTF-8")]
    NotUtf8,
}

impl FrameError {
    /// The framing error carried by an I/O error from [`bounded_lines`], if any.
    #[must_use]
    pub fn from_io(error: &io::Error) -> Option<&Self> {
        error.get_ref()?.downcast_ref()
    }
}

impl From<FrameError> for io::Error {
    fn from(error: FrameError) -> Self {
        Self::new(io::ErrorKind::InvalidData, error)
    }
}

/// [`LinesCodec`] with its two refusals told apart as [`FrameError`]s. A
/// decoder sees only bytes already read, so the one I/O error `LinesCodec`
/// can raise while decoding is its UTF-8 check; the reader's own errors
/// reach the stream through `FramedRead` unchanged.
struct BoundedLines {
    lines: LinesCodec,
    limit: usize,
}

impl BoundedLines {
    fn refusal(&self, error: LinesCodecError) -> io::Error {
        match error {
            LinesCodecError::MaxLineLengthExceeded => FrameError::TooLarge { limit: self.limit },
            LinesCodecError::Io(_) => FrameError::NotUtf8,
        }
        .into()
    }
}

impl Decoder for BoundedLines {
    type Item = String;
    type Error = io::Error;

    fn decode(&mut self, buf: &mut BytesMut) -> io::Result<Option<String>> {
        self.lines.decode(buf).map_err(|e| self.refusal(e))
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> io::Result<Option<String>> {
        self.lines.decode_eof(buf).map_err(|e| self.refusal(e))
    }
}

/// The frames of `reader` as UTF-8 lines (a trailing `\r` dropped), the
/// unterminated rest at end of input included, skipping empty ones. The
/// stream ends after the first error.
pub fn bounded_lines<R>(reader: R, limit: usize) -> impl Stream<Item = io::Result<String>> + Send
where
    R: AsyncRead + Send + Unpin + 'static,
{
    let codec = BoundedLines {
        lines: LinesCodec::new_with_max_length(limit),
        limit,
    };
    let lines = Box::pin(
        FramedRead::new(reader, codec).try_filter(|line| std::future::ready(!line.is_empty())),
    );
    // The reader is dropped with the first error rather than kept by a
    // fused stream: a peer still writing an oversized frame then fails at
    // once instead of blocking on a pipe nobody reads.
    futures::stream::unfold(Some(lines), |state| async move {
        let mut lines = state?;
        match lines.next().await? {
            Ok(line) => Some((Ok(line), Some(lines))),
            Err(error) => Some((Err(error), None)),
        }
    })
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;

    async fn collect(input: &'static [u8], limit: usize) -> Vec<Result<String, FrameError>> {
        bounded_lines(input, limit)
            .map(|item| {
                item.map_err(|error| FrameError::from_io(&error).cloned().expect("a frame error"))
            })
            .collect()
            .await
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_including_an_unterminated_last_one() {
        let frames = collect(b"{\"a\":1}\r\n\n12345\nlast", 8).await;
        assert_eq!(
            frames,
            [
                Ok("{\"a\":1}".to_owned()),
                Ok("12345".to_owned()),
                Ok("last".to_owned())
            ]
        );
    }

    #[tokio::test]
    async fn a_frame_of_exactly_the_limit_passes() {
        assert_eq!(collect(b"12345\n", 5).await, [Ok("12345".to_owned())]);
    }

    #[tokio::test]
    async fn an_oversized_complete_frame_ends_the_stream() {
        let frames = collect(b"abc\n123456\nxyz\n", 5).await;
        assert_eq!(
            frames,
            [Ok("abc".to_owned()), Err(FrameError::TooLarge { limit: 5 })]
        );
    }

    #[tokio::test]
    async fn an_oversized_unterminated_frame_ends_the_stream() {
        assert_eq!(
            collect(b"123456", 5).await,
            [Err(FrameError::TooLarge { limit: 5 })]
        );
    }

    #[tokio::test]
    async fn endless_output_without_a_newline_stops_at_the_limit() {
        let endless = tokio::io::repeat(b'x');
        let first = Box::pin(bounded_lines(endless, 64 * 1024)).next().await;
        let error = first.expect("an item").expect_err("too large");
        assert_eq!(
            FrameError::from_io(&error),
            Some(&FrameError::TooLarge { limit: 64 * 1024 })
        );
    }

    #[tokio::test]
    async fn a_frame_that_is_not_utf8_ends_the_stream() {
        assert_eq!(
            collect(b"\xff\xfe\nnext\n", 16).await,
            [Err(FrameError::NotUtf8)]
        );
    }
}
