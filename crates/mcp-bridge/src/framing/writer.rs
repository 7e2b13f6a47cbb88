//! The writing half of the framing: one task owns a stream and writes each
//! queued message whole, with its `\n`.

use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;

/// Writes each line of the queue and its `\n` until the queue closes, then
/// shuts the stream down (for a child's stdin, that is its end of input).
/// It flushes when nothing else waits, so a burst goes out in one write.
pub async fn write_lines<W: AsyncWrite + Unpin>(out: W, mut queue: mpsc::Receiver<Vec<u8>>) {
    let mut out = BufWriter::with_capacity(64 * 1024, out);
    while let Some(mut line) = queue.recv().await {
        line.push(b'\n');
        if out.write_all(&line).await.is_err() {
            break;
        }
        if queue.is_empty() && out.flush().await.is_err() {
            break;
        }
    }
    let _ = out.shutdown().await;
}
