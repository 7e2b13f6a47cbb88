//! The responses that wait for the rest of their batch. A client of
//! revision 2025-03-26 may send a JSON-RPC batch, and gets one array of
//! the responses back (JSON-RPC 2.0, "Batch"), in the order of its
//! requests, once the last one is answered or canceled. A batch whose
//! requests all end without a response (canceled, or notifications only)
//! gets nothing.

use crate::jsonrpc::IdKey;
use crate::sync::lock;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The requests whose responses are held, by id.
#[derive(Default)]
pub(super) struct Held {
    /// How many responses are held. Zero on every connection without a
    /// batch, so that a response reads one atomic and nothing else.
    count: AtomicUsize,
    /// The places of the held requests. A queue per id: a batch may repeat
    /// an id, and each response fills the first place still open.
    by_id: Mutex<HashMap<IdKey, VecDeque<Place>>>,
}

/// A request's place in its batch.
struct Place {
    batch: Arc<Mutex<Gathered>>,
    index: usize,
}

/// The responses of one batch so far.
#[derive(Default)]
pub(super) struct Gathered {
    /// One entry per response the batch expects, in the order of its
    /// elements: `None` until it comes, or when it never will.
    responses: Vec<Option<Vec<u8>>>,
    /// The responses still to come, and one more until the batch is sealed.
    waiting: usize,
}

impl Gathered {
    /// The array of the batch, once nothing is waiting; `None` before, and
    /// when no response came.
    fn done(&mut self) -> Option<Vec<u8>> {
        if self.waiting > 0 {
            return None;
        }
        let responses: Vec<Vec<u8>> = self.responses.drain(..).flatten().collect();
        if responses.is_empty() {
            return None;
        }
        let mut line = Vec::with_capacity(responses.iter().map(|r| r.len() + 1).sum::<usize>() + 2);
        line.push(b'[');
        for (i, response) in responses.iter().enumerate() {
            if i > 0 {
                line.push(b',');
            }
            line.extend_from_slice(response);
        }
        line.push(b']');
        Some(line)
    }
}

impl Held {
    /// Whether any response is held.
    pub(super) fn any(&self) -> bool {
        self.count.load(Ordering::Acquire) > 0
    }

    /// A new batch, unsealed.
    pub(super) fn open() -> Arc<Mutex<Gathered>> {
        Arc::new(Mutex::new(Gathered { responses: Vec::new(), waiting: 1 }))
    }

    /// Holds the response of the request `key` for `batch`.
    pub(super) fn hold(&self, batch: &Arc<Mutex<Gathered>>, key: IdKey) {
        let index = {
            let mut gathered = lock(batch);
            gathered.responses.push(None);
            gathered.waiting += 1;
            gathered.responses.len() - 1
        };
        lock(&self.by_id).entry(key).or_default().push_back(Place { batch: batch.clone(), index });
        self.count.fetch_add(1, Ordering::AcqRel);
    }

    /// A response of the batch known at once (the error of an element
    /// that is not valid).
    pub(super) fn add(batch: &Arc<Mutex<Gathered>>, response: Vec<u8>) {
        lock(batch).responses.push(Some(response));
    }

    /// Every element of the batch was read: the array, when it is complete.
    pub(super) fn seal(batch: &Arc<Mutex<Gathered>>) -> Option<Vec<u8>> {
        let mut gathered = lock(batch);
        gathered.waiting -= 1;
        gathered.done()
    }

    /// Every place still open gets no response (the end of the input: the
    /// requests in flight were canceled): the arrays of the batches that
    /// hold an answer already.
    pub(super) fn abandon_all(&self) -> Vec<Vec<u8>> {
        let places: Vec<Place> = lock(&self.by_id).drain().flat_map(|(_, places)| places).collect();
        self.count.store(0, Ordering::Release);
        let mut arrays = Vec::new();
        for place in places {
            let mut gathered = lock(&place.batch);
            gathered.waiting -= 1;
            arrays.extend(gathered.done());
        }
        arrays
    }

    /// Puts the response of `key` (`None`: it has none) into its batch.
    /// `Err` gives the response back when no batch holds `key`; `Ok` has
    /// the batch's array when this completed it.
    pub(super) fn fill(
        &self,
        key: impl FnOnce() -> IdKey,
        response: Option<Vec<u8>>,
    ) -> Result<Option<Vec<u8>>, Option<Vec<u8>>> {
        if !self.any() {
            return Err(response);
        }
        let key = key();
        let place = {
            let mut by_id = lock(&self.by_id);
            let place = by_id.get_mut(&key).and_then(VecDeque::pop_front);
            if by_id.get(&key).is_some_and(VecDeque::is_empty) {
                by_id.remove(&key);
            }
            place
        };
        let Some(place) = place else { return Err(response) };
        self.count.fetch_sub(1, Ordering::AcqRel);
        let mut gathered = lock(&place.batch);
        if let Some(entry) = gathered.responses.get_mut(place.index) {
            *entry = response;
        }
        gathered.waiting -= 1;
        Ok(gathered.done())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: Option<Vec<u8>>) -> Option<String> {
        line.map(|l| String::from_utf8_lossy(&l).into_owned())
    }

    /// The array keeps the order of the batch's elements, whatever order
    /// the responses come in, and goes once the last one is in and the
    /// batch is sealed; a canceled request leaves no entry.
    #[test]
    fn a_batch_goes_out_whole_in_the_order_of_its_requests() {
        let held = Held::default();
        let batch = Held::open();
        held.hold(&batch, "1".into());
        Held::add(&batch, b"bad".to_vec());
        held.hold(&batch, "2".into());
        held.hold(&batch, "3".into());
        assert_eq!(held.fill(|| "2".into(), Some(b"two".to_vec())), Ok(None));
        assert_eq!(text(Held::seal(&batch)), None);
        assert_eq!(held.fill(|| "3".into(), None), Ok(None));
        assert_eq!(held.fill(|| "9".into(), Some(b"other".to_vec())), Err(Some(b"other".to_vec())));
        let done = held.fill(|| "1".into(), Some(b"one".to_vec()));
        assert_eq!(done.map(text), Ok(Some("[one,bad,two]".to_owned())));
        assert_eq!(held.count.load(Ordering::Acquire), 0);
        assert!(lock(&held.by_id).is_empty());
    }

    /// A repeated id fills the places of the batch one after the other; a
    /// batch of answered notifications only, or of canceled requests,
    /// gives nothing.
    #[test]
    fn a_repeated_id_fills_its_places_in_turn_and_an_empty_batch_gives_nothing() {
        let held = Held::default();
        let batch = Held::open();
        held.hold(&batch, "1".into());
        held.hold(&batch, "1".into());
        assert_eq!(Held::seal(&batch), None);
        assert_eq!(held.fill(|| "1".into(), Some(b"a".to_vec())), Ok(None));
        assert_eq!(held.fill(|| "1".into(), Some(b"b".to_vec())).map(text), Ok(Some("[a,b]".to_owned())));
        let empty = Held::open();
        assert_eq!(Held::seal(&empty), None);
        let canceled = Held::open();
        held.hold(&canceled, "5".into());
        assert_eq!(Held::seal(&canceled), None);
        assert_eq!(held.fill(|| "5".into(), None), Ok(None));
    }
}
