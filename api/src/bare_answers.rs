//! The answers actix-web's HTTP/1 parser sends on its own, before any of our code sees the
//! request, put in words.
//!
//! A request head the parser cannot read (a URL over 65,534 bytes, a malformed line) gets a
//! bare `400`, a head over 128 KiB or of more than 96 headers a bare `431`, and a head that
//! does not arrive in time a bare `408`: a status line and no body. Nothing in actix-web lets
//! an application answer these, so each connection's writes are watched: a write that begins
//! with one of those answers — which no answer of ours resembles, since every error of ours
//! carries a problem body — is sent as the same status with a problem body (in English: the
//! request's `Accept-Language` was not read). The connection is closed after it either way.

use std::io;
use std::pin::Pin;
use std::sync::LazyLock;
use std::task::{Context, Poll, ready};

use actix_web::ResponseError;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use crate::config::CLIENT_REQUEST_TIMEOUT;
use crate::error::ApiError;

/// A connection whose parser's bare answers are sent with a problem body.
pub struct Worded<T> {
    io: T,
    /// A worded answer being written, and how many bytes of the bare one it stands for.
    replacing: Option<Replacing>,
}

struct Replacing {
    answer: &'static [u8],
    written: usize,
    stands_for: usize,
}

impl<T> Worded<T> {
    pub fn new(io: T) -> Self {
        Self {
            io,
            replacing: None,
        }
    }
}

/// The bare answers, by their first bytes, and what is sent instead.
static ANSWERS: LazyLock<Vec<(&'static [u8], Vec<u8>)>> = LazyLock::new(|| {
    vec![
        (
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n".as_slice(),
            worded(&ApiError::HeadUnreadable),
        ),
        (
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n".as_slice(),
            worded(&ApiError::HeadTooLarge),
        ),
        (
            b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\n".as_slice(),
            worded(&ApiError::HeadTooSlow(CLIENT_REQUEST_TIMEOUT.as_secs())),
        ),
    ]
});

/// A whole HTTP/1.1 answer: the error's status and its problem, and the connection closed.
fn worded(error: &ApiError) -> Vec<u8> {
    let status = error.status_code();
    let body = serde_json::to_vec(&error.problem()).unwrap_or_default();
    let mut answer = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/problem+json\r\ncontent-length: {}\r\n\
         content-language: en\r\nconnection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    answer
}

/// The worded answer for a write that begins with a bare one, and the length of the bare
/// answer's head (what the worded one stands for).
fn instead_of(written: &[u8]) -> Option<Replacing> {
    let (_, answer) = ANSWERS.iter().find(|(bare, _)| written.starts_with(bare))?;
    let end = written.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    Some(Replacing {
        answer,
        written: 0,
        stands_for: end,
    })
}

impl<T: AsyncRead + Unpin> AsyncRead for Worded<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Worded<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.replacing.is_none() {
            this.replacing = instead_of(buf);
        }
        let Some(replacing) = &mut this.replacing else {
            return Pin::new(&mut this.io).poll_write(cx, buf);
        };
        while replacing.written < replacing.answer.len() {
            let n = ready!(
                Pin::new(&mut this.io).poll_write(cx, &replacing.answer[replacing.written..])
            )?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            replacing.written += n;
        }
        let stands_for = replacing.stands_for;
        this.replacing = None;
        Poll::Ready(Ok(stands_for))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    async fn sent(writes: &[&[u8]]) -> String {
        let mut out = Worded::new(Vec::new());
        for write in writes {
            out.write_all(write).await.unwrap();
        }
        String::from_utf8(out.io).unwrap()
    }

    #[tokio::test]
    async fn a_bare_431_goes_out_with_a_problem_naming_the_limits() {
        let out = sent(&[
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\
                           connection: close\r\ndate: Sun, 06 Dec 2026 07:38:10 GMT\r\n\r\n",
        ])
        .await;

        let (head, body) = out.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains("content-type: application/problem+json"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let problem: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(problem["status"], 431);
        assert_eq!(
            problem["detail"],
            "the request line and headers may hold at most 128 KiB and 96 headers; shorten the URL or the headers"
        );
    }

    #[tokio::test]
    async fn a_bare_400_and_408_are_worded_too() {
        let bad =
            sent(&[b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"])
                .await;
        let slow = sent(&[
            b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        ])
        .await;

        assert!(bad.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{bad}");
        assert!(bad.contains("a URL may hold at most 65,534 bytes"), "{bad}");
        assert!(
            slow.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
            "{slow}"
        );
        assert!(slow.contains("did not arrive within 5 s"), "{slow}");
    }

    #[tokio::test]
    async fn an_answer_of_ours_goes_out_as_it_is() {
        let ours: &[u8] = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 57\r\n\
                            content-type: application/problem+json\r\n\r\n{\"status\":400}";

        assert_eq!(sent(&[ours]).await.as_bytes(), ours);
    }
}
