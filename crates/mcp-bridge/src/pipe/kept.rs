//! The buffer of a big line, kept a moment after the line is done with,
//! for the next big line of the same pipe.
//!
//! A big line needs thousands of fresh pages, and the kernel's fault and
//! zeroing of each, then their freeing, are a large part of the bridge's
//! time on the line (docs/benchmarks.md has the figures). A burst of big results (the pages of a long list, a client that
//! reads many resources) reuses the pages of the line before instead. The
//! buffer is kept for [`KEEP`] after it came back, as an allocator keeps
//! freed pages for a while before it gives them back, so an idle bridge
//! holds nothing extra for longer than that.

use crate::sync::lock;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;
use tokio::time::Instant;

/// How long a buffer that came back is kept for the next big line.
pub(crate) const KEEP: Duration = Duration::from_secs(1);

/// Buffers smaller than this are not worth keeping: a line this short
/// faults in at most 16 pages, and the reader's own buffer is this size.
pub(crate) const MIN_BYTES: usize = 64 * 1024;

/// The place of one kept buffer, shared by the reader that takes it and
/// the lines that give it back.
#[derive(Clone, Default)]
pub(crate) struct KeptBuffer {
    slot: Arc<Mutex<Slot>>,
}

#[derive(Default)]
struct Slot {
    buffer: Option<Vec<u8>>,
    /// When the kept buffer came back.
    since: Option<Instant>,
    /// Whether the one expiry task of this slot is running: a burst of big
    /// lines arms one timer, not one per line.
    armed: bool,
}

impl KeptBuffer {
    /// The kept buffer, emptied, when it holds more than `capacity` bytes.
    pub(crate) fn take_larger(&self, capacity: usize) -> Option<Vec<u8>> {
        let mut slot = lock(&self.slot);
        if slot.buffer.as_ref().is_some_and(|buffer| buffer.capacity() > capacity) {
            return slot.buffer.take();
        }
        None
    }

    /// Moves what `message` holds into the kept buffer when a big message
    /// (a line, an HTTP body) is about to outgrow its own buffer with
    /// `more` bytes: the kept buffer's pages are already there, and the
    /// growth would fault in fresh ones. Nothing moves for a message that
    /// would pass `max`, which is not kept.
    pub(crate) fn grow(&self, message: &mut Vec<u8>, more: usize, max: usize) {
        let needed = message.len() + more;
        if needed <= message.capacity() || needed < MIN_BYTES || needed > max {
            return;
        }
        if let Some(mut buffer) = self.take_larger(message.capacity()) {
            buffer.extend_from_slice(message);
            *message = buffer;
        }
    }

    /// Keeps `line`'s buffer for the next big line when it is big and
    /// larger than the one kept, and drops it [`KEEP`] after the last
    /// buffer came back. Outside a tokio runtime nothing could drop it
    /// later, so it is not kept.
    pub(crate) fn give_back(&self, mut line: Vec<u8>) {
        if line.capacity() < MIN_BYTES {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let mut slot = lock(&self.slot);
        if slot.buffer.as_ref().is_some_and(|kept| kept.capacity() >= line.capacity()) {
            return;
        }
        line.clear();
        slot.buffer = Some(line);
        slot.since = Some(Instant::now());
        if !std::mem::replace(&mut slot.armed, true) {
            runtime.spawn(expire(Arc::downgrade(&self.slot)));
        }
    }
}

/// The expiry task of a slot: drops the kept buffer once [`KEEP`] has
/// passed since it came back, waiting again while a later one came back
/// in between, and ends with the buffer (or with the slot).
async fn expire(home: Weak<Mutex<Slot>>) {
    let mut due = Instant::now() + KEEP;
    loop {
        tokio::time::sleep_until(due).await;
        let Some(home) = home.upgrade() else { return };
        let mut slot = lock(&home);
        match slot.since {
            Some(since) if slot.buffer.is_some() && since + KEEP > Instant::now() => due = since + KEEP,
            _ => {
                slot.buffer = None;
                slot.since = None;
                slot.armed = false;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(byte: u8) -> Vec<u8> {
        vec![byte; MIN_BYTES * 2]
    }

    /// A kept buffer goes after KEEP, unless a later one took its place;
    /// a smaller buffer never replaces a larger one.
    #[tokio::test(start_paused = true)]
    async fn a_kept_buffer_goes_after_keep() {
        let kept = KeptBuffer::default();
        kept.give_back(big(b'a'));
        tokio::time::sleep(KEEP / 2).await;
        let larger = vec![0; MIN_BYTES * 4];
        kept.give_back(larger);
        tokio::time::sleep(KEEP / 2 + Duration::from_millis(1)).await;
        assert_eq!(kept.take_larger(0).map(|b| b.capacity()), Some(MIN_BYTES * 4), "the later one stays");
        kept.give_back(vec![0; MIN_BYTES * 4]);
        kept.give_back(big(b'b'));
        assert_eq!(kept.take_larger(0).map(|b| b.capacity()), Some(MIN_BYTES * 4), "the smaller one is dropped");
        kept.give_back(big(b'c'));
        tokio::time::sleep(KEEP + Duration::from_millis(1)).await;
        assert!(kept.take_larger(0).is_none(), "dropped after KEEP");
    }

    /// A burst of big lines arms one timer, which ends with the buffer.
    #[tokio::test(start_paused = true)]
    async fn a_burst_of_big_lines_arms_one_timer() {
        let kept = KeptBuffer::default();
        let alive = || tokio::runtime::Handle::current().metrics().num_alive_tasks();
        for _ in 0..100 {
            let line = kept.take_larger(0).unwrap_or_else(|| big(b'x'));
            kept.give_back(line);
        }
        assert_eq!(alive(), 1, "one expiry task");
        tokio::time::sleep(KEEP + Duration::from_millis(1)).await;
        assert!(kept.take_larger(0).is_none(), "dropped after KEEP");
        assert_eq!(alive(), 0, "the task ended with the buffer");
        kept.give_back(big(b'y'));
        assert_eq!(alive(), 1, "armed again");
    }

    /// Small buffers are not kept, a buffer no larger than asked for is
    /// not taken, and outside a runtime nothing is kept.
    #[test]
    fn small_buffers_and_buffers_outside_a_runtime_are_not_kept() {
        let kept = KeptBuffer::default();
        kept.give_back(big(b'x'));
        assert!(kept.take_larger(0).is_none(), "outside a runtime");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("a runtime");
        runtime.block_on(async {
            kept.give_back(vec![0; MIN_BYTES - 1]);
            assert!(kept.take_larger(0).is_none(), "too small to keep");
            kept.give_back(big(b'x'));
            assert!(kept.take_larger(MIN_BYTES * 2).is_none(), "not larger than asked");
            assert!(kept.take_larger(MIN_BYTES * 2 - 1).is_some());
        });
    }

    /// A big message that outgrows its buffer moves into the kept one,
    /// with what it holds; a small one, one that fits, one over `max` and
    /// one whose buffer is as large stay where they are.
    #[tokio::test]
    async fn a_big_message_that_outgrows_its_buffer_moves_into_the_kept_one() {
        let kept = KeptBuffer::default();
        kept.give_back(big(b'x'));
        let mut small = b"ab".to_vec();
        kept.grow(&mut small, 10, usize::MAX);
        let mut over = b"ab".to_vec();
        kept.grow(&mut over, MIN_BYTES, MIN_BYTES);
        let mut fits = Vec::with_capacity(MIN_BYTES + 2);
        fits.extend_from_slice(b"ab");
        kept.grow(&mut fits, MIN_BYTES, usize::MAX);
        assert_eq!(
            (small.capacity() < MIN_BYTES, over.capacity() < MIN_BYTES, fits.capacity()),
            (true, true, MIN_BYTES + 2)
        );
        let mut growing = b"ab".to_vec();
        kept.grow(&mut growing, MIN_BYTES, usize::MAX);
        assert_eq!((growing.as_slice(), growing.capacity()), (&b"ab"[..], MIN_BYTES * 2), "moved, with its bytes");
        let mut next = b"cd".to_vec();
        kept.grow(&mut next, MIN_BYTES, usize::MAX);
        assert!(next.capacity() < MIN_BYTES, "taken once");
    }
}
