//! Byte framing of a child's newline-delimited JSON-RPC output.
//!
//! ACP (and stdio MCP) put one JSON-RPC message on each line. The ACP SDK's
//! own stdio transport reads lines without a size limit, so an agent that
//! never writes a newline could make Somite buffer without bound. Somite
//! therefore frames the bytes itself, before any protocol decoding: a frame,
//! complete or unterminated, longer than the limit (the shared workflow
//! transaction envelope, [`MAX_FRAME_BYTES`](crate::limits::MAX_FRAME_BYTES),
//! in production) is an error that ends the session, and memory never holds
//! more than one frame of at most that size.
//!
//! [`bounded_lines`] turns any `AsyncRead` into the line stream the SDK's
//! `Lines` transport consumes; the limit is a parameter so tests can use a
//! small one.

use std::io;

use futures::Stream;
use thiserror::Error;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, BufReader};

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

/// Reads the next frame: the bytes before the next `\n` (a trailing `\r` is
/// dropped), or the unterminated rest at end of input. `None` at end of input.
///
/// # Errors
/// [`FrameError::TooLarge`] as soon as the frame would exceed `limit` bytes;
/// an I/O error from the reader.
pub async fn read_frame<R>(reader: &mut R, limit: usize) -> io::Result<Option<Vec<u8>>>
where
    R: AsyncBufRead + Unpin,
{
    let mut frame = Vec::new();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok((!frame.is_empty()).then_some(frame));
        }
        let newline = available.iter().position(|&byte| byte == b'\n');
        let chunk = &available[..newline.unwrap_or(available.len())];
        if frame.len() + chunk.len() > limit {
            return Err(FrameError::TooLarge { limit }.into());
        }
        frame.extend_from_slice(chunk);
        let consumed = chunk.len() + usize::from(newline.is_some());
        reader.consume(consumed);
        if newline.is_some() {
            if frame.last() == Some(&b'\r') {
                frame.pop();
            }
            return Ok(Some(frame));
        }
    }
}

/// The frames of `reader` as UTF-8 lines, skipping empty ones. The stream ends
/// after the first error.
pub fn bounded_lines<R>(reader: R, limit: usize) -> impl Stream<Item = io::Result<String>> + Send
where
    R: AsyncRead + Send + Unpin + 'static,
{
    futures::stream::unfold(Some(BufReader::new(reader)), move |state| async move {
        let mut reader = state?;
        loop {
            match read_frame(&mut reader, limit).await {
                Ok(None) => return None,
                Ok(Some(frame)) if frame.is_empty() => {}
                Ok(Some(frame)) => {
                    let line = String::from_utf8(frame).map_err(|_| FrameError::NotUtf8.into());
                    let next = line.is_ok().then_some(reader);
                    return Some((line, next));
                }
                Err(error) => return Some((Err(error), None)),
            }
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
