//! An in-memory reader for the properties of readers: it hands out its
//! bytes in pieces of the given sizes, in turn, so that a message can
//! cross any number of reads. It is always ready, so a reader over it is
//! polled by hand with no runtime.

use std::future::Future;
use std::io;
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};
use tokio::io::{AsyncRead, ReadBuf};

pub(crate) struct Chunked<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    turn: usize,
}

impl<'a> Chunked<'a> {
    /// Reads of `sizes` in turn (each at least 1); all at once when empty.
    pub(crate) fn new(data: &'a [u8], sizes: &'a [usize]) -> Self {
        Chunked { data, sizes, turn: 0 }
    }
}

impl AsyncRead for Chunked<'_> {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let size = match self.sizes.len() {
            0 => usize::MAX,
            n => self.sizes.get(self.turn % n).copied().unwrap_or(1).max(1),
        };
        self.turn = self.turn.wrapping_add(1);
        let n = size.min(self.data.len()).min(buf.remaining());
        let (piece, rest) = self.data.split_at(n);
        buf.put_slice(piece);
        self.data = rest;
        Poll::Ready(Ok(()))
    }
}

/// The output of a future that completes without waiting (one over
/// [`Chunked`]); `None` when it would wait.
pub(crate) fn ready<F: Future>(future: F) -> Option<F::Output> {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => Some(output),
        Poll::Pending => None,
    }
}
