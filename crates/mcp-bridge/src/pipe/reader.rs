//! The bounded line reader. It never holds more than the line limit: the
//! bytes of an overlong line are dropped as they come, except its first
//! and last [`EDGE_BYTES`] bytes, where the id can be sniffed.

use super::kept::KeptBuffer;
use crate::framing::{Frame, Nesting};
use std::io;
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// The bytes kept at each end of a line that is too long.
pub(crate) const EDGE_BYTES: usize = 256;

/// Reads newline-delimited frames with a limit on the line length.
pub(crate) struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
    line: Vec<u8>,
    /// `Some` while the current line is over the limit: its two ends.
    overflow: Option<Overflow>,
    /// Where a big line finds the buffer of the big line before.
    kept: Option<KeptBuffer>,
}

/// What is kept of a line over the limit: its two ends, and the nesting
/// of every byte before the tail (for the id sniffed at the end).
#[derive(Default)]
struct Overflow {
    head: Vec<u8>,
    tail: Vec<u8>,
    before_tail: Nesting,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader whose lines have at most `max` bytes, not counting `\n`.
    pub(crate) fn new(inner: R, max: usize) -> Self {
        LineReader {
            inner: BufReader::with_capacity(64 * 1024, inner),
            max,
            line: Vec::new(),
            overflow: None,
            kept: None,
        }
    }

    /// The same reader, whose big lines reuse the buffer that `kept`
    /// keeps, when it is larger than what the line has.
    pub(crate) fn with_kept(mut self, kept: KeptBuffer) -> Self {
        self.kept = Some(kept);
        self
    }

    /// The next frame, or `None` at the end of the input. A last line
    /// without `\n` is still a frame: JSON needs no newline.
    pub(crate) async fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        self.read_frame().await
    }

    /// The buffered reader, with the bytes after the last frame still in
    /// its buffer (the embedded mode hands them to the path it chose).
    #[cfg(feature = "embed")]
    pub(crate) fn into_inner(self) -> BufReader<R> {
        self.inner
    }

    async fn read_frame(&mut self) -> io::Result<Option<Frame>> {
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                return Ok(self.take_frame(true));
            }
            let (piece, found) = match memchr::memchr(b'\n', chunk) {
                Some(pos) => (&chunk[..pos], Some(pos + 1)),
                None => (chunk, None),
            };
            let used = found.unwrap_or(chunk.len());
            if let (Some(kept), None) = (&self.kept, &self.overflow) {
                kept.grow(&mut self.line, piece.len(), self.max);
            }
            push_piece(&mut self.line, &mut self.overflow, self.max, piece);
            self.inner.consume(used);
            if found.is_some() {
                if let Some(frame) = self.take_frame(false) {
                    return Ok(Some(frame));
                }
            }
        }
    }

    /// The frame of the bytes gathered so far. At the end of the input,
    /// nothing gathered means no frame.
    fn take_frame(&mut self, at_end: bool) -> Option<Frame> {
        if let Some(Overflow { head, tail, before_tail }) = self.overflow.take() {
            return Some(Frame::TooLong { head, tail, before_tail });
        }
        if at_end && self.line.is_empty() {
            return None;
        }
        Some(Frame::Line(std::mem::take(&mut self.line)))
    }
}

/// Adds the bytes of a piece of the current line, switching to keeping
/// only the two ends once the line passes the limit.
fn push_piece(line: &mut Vec<u8>, overflow: &mut Option<Overflow>, max: usize, piece: &[u8]) {
    if let Some(Overflow { head, tail, before_tail }) = overflow {
        // With a limit below EDGE_BYTES the line passes the limit before
        // its head is full: the head goes on filling from later reads, so
        // that it does not depend on how the input was cut into reads.
        let missing = EDGE_BYTES.saturating_sub(head.len());
        head.extend_from_slice(&piece[..missing.min(piece.len())]);
        keep_tail(tail, before_tail, piece);
        return;
    }
    if line.len() + piece.len() <= max {
        line.extend_from_slice(piece);
        return;
    }
    let mut kept = Overflow { head: std::mem::take(line), tail: Vec::with_capacity(EDGE_BYTES), ..Overflow::default() };
    keep_tail(&mut kept.tail, &mut kept.before_tail, &kept.head);
    keep_tail(&mut kept.tail, &mut kept.before_tail, piece);
    let missing = EDGE_BYTES.saturating_sub(kept.head.len());
    kept.head.extend_from_slice(&piece[..missing.min(piece.len())]);
    kept.head.truncate(EDGE_BYTES);
    kept.head.shrink_to_fit();
    *overflow = Some(kept);
}

/// Keeps the last [`EDGE_BYTES`] bytes of `tail` followed by `more`; the
/// bytes that leave the tail go through `before_tail`.
fn keep_tail(tail: &mut Vec<u8>, before_tail: &mut Nesting, more: &[u8]) {
    if more.len() >= EDGE_BYTES {
        before_tail.feed(tail);
        before_tail.feed(&more[..more.len() - EDGE_BYTES]);
        tail.clear();
        tail.extend_from_slice(&more[more.len() - EDGE_BYTES..]);
        return;
    }
    tail.extend_from_slice(more);
    if tail.len() > EDGE_BYTES {
        let gone = tail.len() - EDGE_BYTES;
        before_tail.feed(&tail[..gone]);
        tail.drain(..gone);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut reader = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Ok(Some(frame)) = reader.next_frame().await {
            out.push(frame);
        }
        out
    }

    fn line(s: &str) -> Frame {
        Frame::Line(s.as_bytes().to_vec())
    }

    #[tokio::test]
    async fn lines_split_at_newlines_and_the_last_needs_none() {
        assert_eq!(frames(b"a\nbc\n\nd", 10).await, vec![line("a"), line("bc"), line(""), line("d")]);
        assert_eq!(frames(b"", 10).await, Vec::<Frame>::new());
        assert_eq!(frames(b"x\r\n", 10).await, vec![line("x\r")]);
    }

    #[tokio::test]
    async fn a_line_exactly_at_the_limit_passes_and_one_byte_more_does_not() {
        assert_eq!(frames(b"12345\nok\n", 5).await, vec![line("12345"), line("ok")]);
        let got = frames(b"123456\nok\n", 5).await;
        assert_eq!(
            got,
            vec![
                Frame::TooLong { head: b"123456".to_vec(), tail: b"123456".to_vec(), before_tail: Nesting::default() },
                line("ok")
            ]
        );
    }

    #[tokio::test]
    async fn an_overlong_line_keeps_only_its_two_ends() {
        let mut input = vec![b'a'; 300];
        input.extend(vec![b'b'; 10_000]);
        input.extend(vec![b'c'; 300]);
        input.extend(b"\nnext\n");
        let got = frames(&input, 1000).await;
        assert_eq!(got.len(), 2);
        let Frame::TooLong { head, tail, .. } = &got[0] else { panic!("expected TooLong, got {:?}", got[0]) };
        assert_eq!(head, &vec![b'a'; EDGE_BYTES]);
        assert_eq!(tail, &vec![b'c'; EDGE_BYTES]);
        assert_eq!(got[1], line("next"));
    }

    /// Found by the `line_reader` property (proptest and fuzz target):
    /// with a limit below 256 and reads of one byte, the head stopped at
    /// the read that passed the limit.
    #[tokio::test]
    async fn a_limit_below_the_edge_keeps_the_first_256_bytes_whatever_the_reads() {
        let input: Vec<u8> = (0..600u32).map(|i| b'a' + (i % 26) as u8).collect();
        let want = Frame::TooLong {
            head: input[..EDGE_BYTES].to_vec(),
            tail: input[600 - EDGE_BYTES..].to_vec(),
            before_tail: Nesting::default(),
        };
        assert_eq!(frames(&input, 5).await, vec![want.clone()]);
        // Reads of one byte: the line passes the limit at its sixth byte.
        let (mut tx, rx) = tokio::io::duplex(1);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = tx.write_all(&input).await;
        });
        let mut reader = LineReader::new(rx, 5);
        let got = reader.next_frame().await.ok().flatten();
        let _ = writer.await;
        assert_eq!(got, Some(want));
    }

    #[tokio::test]
    async fn small_reads_give_the_same_frames() {
        // A reader that hands out one byte at a time.
        let data: Vec<u8> = b"{\"id\":1}\n".iter().cycle().take(9 * 50).copied().collect();
        let (mut tx, rx) = tokio::io::duplex(1);
        let writer = tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = tx.write_all(&data).await;
        });
        let mut reader = LineReader::new(rx, 64);
        let mut count = 0;
        while let Ok(Some(frame)) = reader.next_frame().await {
            assert_eq!(frame, line("{\"id\":1}"));
            count += 1;
        }
        let _ = writer.await;
        assert_eq!(count, 50);
    }

    /// A big line is read into the kept buffer, whose pages are already
    /// there, and gives the same frames as without one.
    #[tokio::test]
    async fn a_big_line_is_read_into_the_kept_buffer() {
        let kept = KeptBuffer::default();
        let buffer = vec![0u8; 4 << 20];
        let at = buffer.as_ptr();
        kept.give_back(buffer);
        let big: Vec<u8> = (0..300_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        let mut input = b"small\n".to_vec();
        input.extend_from_slice(&big);
        input.extend_from_slice(b"\nok\n");
        let mut reader = LineReader::new(&input[..], 1 << 20).with_kept(kept.clone());
        assert_eq!(reader.next_frame().await.ok().flatten(), Some(line("small")));
        let Ok(Some(Frame::Line(got))) = reader.next_frame().await else { panic!("the big line") };
        assert_eq!((got.as_ptr(), &got), (at, &big), "read into the kept buffer, the same bytes");
        assert_eq!(reader.next_frame().await.ok().flatten(), Some(line("ok")));
        assert!(kept.take_larger(0).is_none(), "taken by the big line");
        assert_eq!(
            frames(&input, 1 << 20).await,
            vec![line("small"), Frame::Line(big), line("ok")],
            "without a kept buffer"
        );
    }
}
