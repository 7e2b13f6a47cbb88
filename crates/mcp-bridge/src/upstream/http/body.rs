//! The body of a response: one JSON message, or a stream of Server-Sent
//! Events, each message handed to the inbox inline (the next one is read
//! only when the inbox is done with this one). `--max-response-bytes`
//! bounds one JSON body and one event: a larger one fails its request at
//! once, and the rest is never read.

use crate::jsonrpc::{BridgeError, Cause};
use crate::pipe::KeptBuffer;
use crate::upstream::inbox::Inbox;
use futures_util::StreamExt;
use sse_stream::SseByteStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Reads a JSON body, at most `max` bytes, and hands its message to the
/// inbox. The request fails when the body is over the limit, cannot be
/// read, or holds no response to it. A big body is read into the buffer
/// of the big body before, when `kept` still keeps it.
pub(super) async fn json(inbox: &Inbox, id: u64, mut response: reqwest::Response, (max, kept): (usize, &KeptBuffer)) {
    if response.content_length().is_some_and(|n| n > max as u64) {
        inbox.fail(id, over_limit(max));
        return;
    }
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > max {
                    inbox.fail(id, over_limit(max));
                    return;
                }
                kept.grow(&mut body, chunk.len(), max);
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(err) => {
                let err = err.without_url();
                tracing::warn!(error = %err, "the body of an upstream response broke off");
                inbox.fail(id, BridgeError::new(Cause::TransportFailed).with_detail("the body broke off"));
                return;
            }
        }
    }
    inbox.receive_bytes(body, max, kept).await;
    // A body that was a notification, or the response to another request,
    // leaves this request without its response.
    inbox.fail(id, BridgeError::new(Cause::InvalidResponse).with_detail("the body holds no response to the request"));
}

/// Reads an SSE stream and hands the data of each event to the inbox;
/// comments, `retry:`, `id:` and events without data carry no message.
/// When the stream ends or breaks before the response of its request, the
/// request fails with `transport_failed`; an event over the limit fails it
/// with `invalid_response`.
pub(super) async fn sse(inbox: &Inbox, id: u64, response: reqwest::Response, (max, kept): (usize, &KeptBuffer)) {
    let over = Arc::new(AtomicBool::new(false));
    let mut limit = EventLimit::new(max, over.clone());
    let bytes = response.bytes_stream().map(move |chunk| match chunk {
        Ok(chunk) if limit.feed(&chunk) => Ok(chunk),
        Ok(_) => Err(std::io::Error::other("an event is over the limit")),
        Err(err) => Err(std::io::Error::other(err.without_url())),
    });
    let mut events = std::pin::pin!(SseByteStream::new(bytes));
    while let Some(event) = events.next().await {
        match event {
            Ok(event) => {
                if let Some(data) = event.data {
                    inbox.receive_bytes(data.into_bytes(), max, kept).await;
                    if !inbox.is_pending(id) {
                        // The response is in (or the request was given up):
                        // a server that keeps the stream open after it
                        // holds nothing here any more.
                        return;
                    }
                }
            }
            Err(_) if over.load(Ordering::Acquire) => {
                tracing::warn!(limit = max, "an event of an upstream stream is over --max-response-bytes");
                inbox.fail(id, over_limit(max));
                return;
            }
            Err(err) => {
                tracing::warn!(error = %err, "an upstream event stream broke off");
                break;
            }
        }
    }
    inbox.fail(id, BridgeError::new(Cause::TransportFailed).with_detail("the stream ended before its response"));
}

fn over_limit(max: usize) -> BridgeError {
    BridgeError::new(Cause::InvalidResponse).with_detail(format!("limit: {max} bytes"))
}

/// Counts the bytes of the event being read: an event ends at a blank
/// line (LF, CR or CRLF line ends, as the SSE format allows). More than
/// `max` bytes without an end is over the limit.
pub(crate) struct EventLimit {
    max: usize,
    since_boundary: usize,
    /// The last byte ended a line: a line end now is a blank line.
    at_line_start: bool,
    /// The last byte was a CR: an LF now belongs to the same line end.
    after_cr: bool,
    /// That CR ended a blank line: its LF is not part of the next event.
    blank_cr: bool,
    over: Arc<AtomicBool>,
}

impl EventLimit {
    pub(crate) fn new(max: usize, over: Arc<AtomicBool>) -> EventLimit {
        EventLimit { max, since_boundary: 0, at_line_start: true, after_cr: false, blank_cr: false, over }
    }

    /// Takes the next bytes; `false` once an event is over the limit.
    pub(crate) fn feed(&mut self, mut bytes: &[u8]) -> bool {
        while !bytes.is_empty() {
            let Some(at) = memchr::memchr2(b'\n', b'\r', bytes) else {
                self.since_boundary += bytes.len();
                self.at_line_start = false;
                self.after_cr = false;
                break;
            };
            self.since_boundary += at + 1;
            let byte = bytes[at];
            if at > 0 {
                self.at_line_start = false;
                self.after_cr = false;
            }
            if byte == b'\n' && self.after_cr {
                // The LF of a CRLF: the line end was counted at the CR.
                self.after_cr = false;
                if self.blank_cr {
                    self.since_boundary = 0;
                }
            } else {
                self.blank_cr = self.at_line_start && byte == b'\r';
                if self.at_line_start {
                    self.since_boundary = 0;
                }
                self.at_line_start = true;
                self.after_cr = byte == b'\r';
            }
            bytes = &bytes[at + 1..];
            if self.since_boundary > self.max {
                break;
            }
        }
        if self.since_boundary > self.max {
            self.over.store(true, Ordering::Release);
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::EventLimit;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn fits(max: usize, chunks: &[&[u8]]) -> bool {
        let mut limit = EventLimit::new(max, Arc::new(AtomicBool::new(false)));
        chunks.iter().all(|c| limit.feed(c))
    }

    #[test]
    fn the_limit_counts_the_bytes_of_one_event_whatever_the_line_ends() {
        // Each event is 12 bytes with its end; many of them fit under 16.
        let lf = b"data: 12345\n\n".repeat(50);
        assert!(fits(16, &[&lf]));
        let crlf = b"data: 1234\r\n\r\n".repeat(50);
        assert!(fits(16, &[&crlf]));
        let cr = b"data: 12345\r\r".repeat(50);
        assert!(fits(16, &[&cr]));
        // Split anywhere, also between CR and LF.
        let split: Vec<&[u8]> = crlf.chunks(3).collect();
        assert!(fits(16, &split));
        // One event over the limit, however it comes.
        assert!(!fits(16, &[b"data: 0123456789abcdef\n\n"]));
        assert!(!fits(16, &[b"data: 0123", b"456789", b"abcdef\n"]));
        // Many lines without a blank line are one event.
        assert!(!fits(16, &[b"data: 1\ndata: 2\ndata: 3\ndata: 4\n"]));
        // A CRLF alone is not a blank line.
        assert!(!fits(16, &[b"data: 1\r\ndata: 2\r\ndata: 3\r\n"]));
    }

    /// The LF of a CRLF blank line ends the event before; it once counted
    /// as the first byte of the next one, so an event of exactly the limit
    /// after a CRLF blank line was refused (fuzz/regressions/sse_limit/).
    #[test]
    fn an_event_of_exactly_the_limit_fits_after_a_crlf_blank_line() {
        assert!(fits(5, &[b"d\n\r\ndddd\n"]));
        assert!(fits(5, &[b"d\n\r", b"\ndddd\n"]));
        assert!(!fits(5, &[b"d\n\r\nddddd\n"]));
    }
}
