//! The writing half of the framing: one task owns a stream and writes each
//! queued message whole, with its `\n`.

use bytes::Bytes;
use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;

/// The buffer of a stream. A piece longer than it goes to the stream
/// without a copy into it.
const BUFFER: usize = 64 * 1024;

/// One message for a stream, without its `\n`.
#[derive(Debug)]
pub(crate) enum Line {
    /// Its JSON text.
    Text(Vec<u8>),
    /// Its JSON text in pieces, one after the other: the raw path
    /// (`crate::raw`) writes the members of a big result straight from the
    /// line that was read.
    Pieces(Vec<Bytes>),
}

/// Writes each line of the queue and its `\n` until the queue closes, then
/// shuts the stream down (for a child's stdin, that is its end of input).
/// It flushes when nothing else waits, so a burst goes out in one write.
/// An error is a write that failed: the far end is gone (a child that
/// closed its stdin), and the lines still queued never go out.
pub(crate) async fn write_lines<W: AsyncWrite + Unpin>(out: W, mut queue: mpsc::Receiver<Line>) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(BUFFER, out);
    let written = write_all(&mut out, &mut queue).await;
    let _ = out.shutdown().await;
    written
}

async fn write_all<W: AsyncWrite + Unpin>(
    out: &mut BufWriter<W>,
    queue: &mut mpsc::Receiver<Line>,
) -> std::io::Result<()> {
    while let Some(line) = queue.recv().await {
        write_line(out, line).await?;
        if queue.is_empty() {
            out.flush().await?;
        }
    }
    Ok(())
}

async fn write_line<W: AsyncWrite + Unpin>(out: &mut BufWriter<W>, line: Line) -> std::io::Result<()> {
    match line {
        Line::Text(mut text) => {
            text.push(b'\n');
            out.write_all(&text).await
        }
        Line::Pieces(pieces) => {
            for piece in pieces {
                out.write_all(&piece).await?;
            }
            out.write_all(b"\n").await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn pieces_and_texts_go_out_in_order_each_with_its_newline() {
        let (tx, rx) = mpsc::channel(8);
        let (write, mut read) = tokio::io::duplex(1 << 20);
        let task = tokio::spawn(write_lines(write, rx));
        let big = Bytes::from(vec![b'x'; 3 * BUFFER]);
        let pieces = vec![Bytes::from_static(b"{\"a\":\""), big.clone(), Bytes::from_static(b"\"}")];
        for line in [Line::Text(b"1".to_vec()), Line::Pieces(pieces), Line::Text(b"2".to_vec())] {
            let _ = tx.send(line).await;
        }
        drop(tx);
        let _ = task.await;
        let mut got = Vec::new();
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut read, &mut got).await;
        let mut want = b"1\n{\"a\":\"".to_vec();
        want.extend_from_slice(&big);
        want.extend_from_slice(b"\"}\n2\n");
        assert_eq!(got, want);
    }
}
