//! The head of one request to the redirect listener: read up to the blank
//! line that ends it, never more than a limit, then parsed into the target
//! of a `GET`. `end_of_head` and `parse` are pure over bytes and the reader
//! takes any `AsyncRead`, so that the fuzz target `redirect_request` holds
//! them to their properties with reads of any size.

use tokio::io::{AsyncRead, AsyncReadExt};

/// Why a request gets no route; each is a status of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not a request line `<method> /<target> HTTP/1.x`.
    Malformed,
    /// A request line of another method than `GET`.
    Method,
    /// No blank line within the size limit.
    TooLarge,
    /// The connection ended before the blank line.
    Ended,
}

impl Refusal {
    /// The status line and the text of the page.
    pub(crate) fn answer(self) -> (&'static str, &'static str) {
        match self {
            Refusal::Malformed | Refusal::Ended => ("400 Bad Request", "Bad request."),
            Refusal::Method => ("405 Method Not Allowed", "Only GET is served here."),
            Refusal::TooLarge => ("431 Request Header Fields Too Large", "The request is too large."),
        }
    }
}

/// The index just after the blank line that ends a head (LF or CRLF line
/// ends), or `None` when `bytes` holds no such line.
pub(crate) fn end_of_head(bytes: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\n', bytes).find_map(|at| match bytes.get(at + 1..) {
        Some([b'\n', ..]) => Some(at + 2),
        Some([b'\r', b'\n', ..]) => Some(at + 3),
        _ => None,
    })
}

/// Reads a head: the bytes up to and with its blank line, at most `limit`
/// bytes in all (a read never asks for more than the room left). Bytes
/// after the blank line are not kept: the routes have no body.
pub(crate) async fn read_head<R: AsyncRead + Unpin>(reader: &mut R, limit: usize) -> Result<Vec<u8>, Refusal> {
    let mut head = Vec::new();
    let mut chunk = [0u8; 2048];
    loop {
        let room = limit.saturating_sub(head.len()).min(chunk.len());
        if room == 0 {
            return Err(Refusal::TooLarge);
        }
        let n = reader.read(&mut chunk[..room]).await.map_err(|_| Refusal::Ended)?;
        let Some(read) = chunk.get(..n).filter(|r| !r.is_empty()) else {
            return Err(Refusal::Ended);
        };
        // A blank line that ends in this read starts at most two bytes
        // before it.
        let from = head.len().saturating_sub(2);
        head.extend_from_slice(read);
        if let Some(end) = head.get(from..).and_then(end_of_head) {
            head.truncate(from + end);
            return Ok(head);
        }
    }
}

/// The target of the request line of a head: `GET /<target> HTTP/1.0` or
/// `HTTP/1.1`, single spaces, then a line end. The target is visible ASCII
/// (RFC 9112 `origin-form`); anything else is refused.
pub(crate) fn parse(head: &[u8]) -> Result<&str, Refusal> {
    let Some(at) = memchr::memchr(b'\n', head) else { return Err(Refusal::Malformed) };
    let line = head.get(..at).unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut parts = line.split(|&b| b == b' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Refusal::Malformed);
    };
    let visible = target.iter().all(|b| (0x21..=0x7e).contains(b));
    if !matches!(version, b"HTTP/1.0" | b"HTTP/1.1") || !target.starts_with(b"/") || !visible || method.is_empty() {
        return Err(Refusal::Malformed);
    }
    if method != b"GET" {
        return Err(Refusal::Method);
    }
    std::str::from_utf8(target).map_err(|_| Refusal::Malformed)
}

/// The path and the query of a target (the query without its `?`).
pub(crate) fn split_target(target: &str) -> (&str, &str) {
    target.split_once('?').unwrap_or((target, ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_head_ends_at_its_first_blank_line_with_either_line_end() {
        assert_eq!(end_of_head(b"GET / HTTP/1.1\r\nHost: a\r\n\r\nrest"), Some(27));
        assert_eq!(end_of_head(b"GET / HTTP/1.1\n\n"), Some(16));
        assert_eq!(end_of_head(b"GET / HTTP/1.1\r\nHost: a\r\n"), None);
        assert_eq!(end_of_head(b"a\r\r\n"), None, "a CR alone ends no line");
        assert_eq!(end_of_head(b""), None);
    }

    #[test]
    fn only_a_get_of_an_origin_form_target_over_http_1_has_a_target() {
        for (head, expected) in [
            (&b"GET /callback?code=a&state=b HTTP/1.1\r\nHost: x\r\n\r\n"[..], Ok("/callback?code=a&state=b")),
            (b"GET /start/n HTTP/1.0\n\n", Ok("/start/n")),
            (b"POST /callback HTTP/1.1\r\n\r\n", Err(Refusal::Method)),
            (b"GET /a b HTTP/1.1\r\n\r\n", Err(Refusal::Malformed)),
            (b"GET  /a HTTP/1.1\r\n\r\n", Err(Refusal::Malformed)),
            (b"GET http://127.0.0.1/a HTTP/1.1\r\n\r\n", Err(Refusal::Malformed)),
            (b"GET /a HTTP/2\r\n\r\n", Err(Refusal::Malformed)),
            (b"GET /\xc3\xa9 HTTP/1.1\r\n\r\n", Err(Refusal::Malformed)),
            (b"GET /a\x01 HTTP/1.1\r\n\r\n", Err(Refusal::Malformed)),
            (b"GET /a HTTP/1.1", Err(Refusal::Malformed)),
            (b" /a HTTP/1.1\r\n\r\n", Err(Refusal::Malformed)),
        ] {
            assert_eq!(parse(head), expected, "{}", String::from_utf8_lossy(head));
        }
        assert_eq!(split_target("/callback?code=a?b"), ("/callback", "code=a?b"));
        assert_eq!(split_target("/start/n"), ("/start/n", ""));
    }

    #[tokio::test]
    async fn the_reader_stops_at_the_blank_line_or_the_limit() {
        let mut input: &[u8] = b"GET / HTTP/1.1\r\n\r\nGET /next HTTP/1.1\r\n\r\n";
        assert_eq!(read_head(&mut input, 64).await, Ok(b"GET / HTTP/1.1\r\n\r\n".to_vec()));
        let mut long: &[u8] = &[b'a'; 100];
        assert_eq!(read_head(&mut long, 64).await, Err(Refusal::TooLarge));
        assert_eq!(long.len(), 36, "no read past the limit");
        let mut cut: &[u8] = b"GET / HTTP/1.1\r\n";
        assert_eq!(read_head(&mut cut, 64).await, Err(Refusal::Ended));
    }
}
