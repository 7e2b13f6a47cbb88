//! The body of a request, read within its bounds: its size (the line
//! limit; a `Content-Length` over it is refused before a byte is read),
//! its time (a body that stalls is refused), and the bytes of all bodies
//! being read or decoded at one time (a budget that a big body waits for,
//! so that many of them cannot take the machine's memory: a decoded body
//! takes many times its size). A big body is decoded off the runtime's
//! threads, so that its parse never stalls another session.

use super::refusal::Refusal;
use crate::framing::{self, Decoded, Frame};
use bytes::Bytes;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderMap, CONTENT_LENGTH};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The longest a body may take to come whole.
const DEADLINE: Duration = Duration::from_secs(60);
/// A body up to this size takes no part of the budget: the small requests
/// of every client never wait for a big one.
const SMALL: usize = 64 * 1024;
/// A body over this size is decoded on a thread of its own.
const BIG: usize = 1024 * 1024;
/// The budget counts in KiB (a semaphore's permits).
const UNIT: usize = 1024;
/// The longest body of a client that brings no `Authorization` to a face
/// that passes the clients' own (`--pass-authorization`): such a client
/// is anyone, and its requests are small.
const ANONYMOUS: usize = 64 * 1024;

/// The longest body of a request: the line limit, or [`ANONYMOUS`] for a
/// request without `Authorization` when the face passes the clients' own.
pub(crate) fn limit(max: usize, passing: bool, headers: &HeaderMap) -> usize {
    if passing && !headers.contains_key(hyper::header::AUTHORIZATION) {
        max.min(ANONYMOUS)
    } else {
        max
    }
}

/// The budget of the bytes of big bodies being read and decoded at one
/// time: the line limit (one body of the largest size), at least 16 MiB.
pub(crate) struct Budget {
    permits: Arc<Semaphore>,
    max: usize,
}

impl Budget {
    pub(crate) fn new(max_body: usize) -> Budget {
        let units = max_body.max(16 << 20).div_ceil(UNIT);
        Budget { permits: Arc::new(Semaphore::new(units)), max: units }
    }
}

/// A body read whole, and its part of the budget until it is decoded.
pub(crate) struct Read {
    pub bytes: Bytes,
    _share: Option<OwnedSemaphorePermit>,
}

/// Reads a body of at most `max` bytes; `Err` with the refusal, or `Ok(None)`
/// when the connection failed on the way.
pub(crate) async fn read(
    budget: &Budget,
    headers: &HeaderMap,
    body: Incoming,
    max: usize,
) -> Result<Option<Read>, Refusal> {
    let declared = headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > max as u64) {
        return Err(Refusal::BodyTooLong);
    }
    // A body of unknown length may be as long as the limit.
    let size = declared.map_or(max, |length| length as usize);
    let share = if size > SMALL {
        let units = u32::try_from(size.div_ceil(UNIT).min(budget.max)).unwrap_or(u32::MAX);
        let acquired = tokio::time::timeout(DEADLINE, budget.permits.clone().acquire_many_owned(units)).await;
        match acquired {
            Ok(Ok(permit)) => Some(permit),
            _ => return Err(Refusal::Busy),
        }
    } else {
        None
    };
    match tokio::time::timeout(DEADLINE, Limited::new(body, max).collect()).await {
        Err(_) => Err(Refusal::BodyTimeout),
        Ok(Ok(collected)) => Ok(Some(Read { bytes: collected.to_bytes(), _share: share })),
        Ok(Err(err)) if err.downcast_ref::<LengthLimitError>().is_some() => Err(Refusal::BodyTooLong),
        Ok(Err(err)) => {
            tracing::debug!(error = %err, "the body of a request did not come whole");
            Ok(None)
        }
    }
}

/// What a body holds: one message (`batch` false), the elements of a
/// batch, or nothing (a blank body).
pub(crate) struct Messages {
    pub batch: bool,
    pub all: Vec<Decoded>,
}

/// Decodes a body as a line of the client: a batch where `batches`, else
/// one message. A big body is decoded on a thread of its own; its part of
/// the budget is freed once it is decoded.
pub(crate) async fn decode(read: Read, max: usize, batches: bool) -> Messages {
    let big = read.bytes.len() > BIG;
    let work = move || {
        let frame = Frame::Line(read.bytes.to_vec());
        if batches {
            if let Some(all) = framing::decode_batch(&frame, framing::MAX_DEPTH) {
                return Messages { batch: true, all };
            }
        }
        let all = framing::decode(&frame, max, framing::MAX_DEPTH).into_iter().collect();
        Messages { batch: false, all }
    };
    if big {
        tokio::task::spawn_blocking(work).await.unwrap_or(Messages { batch: false, all: Vec::new() })
    } else {
        work()
    }
}

/// Whether a body holds a batch (a JSON array), by its first byte that is
/// not blank.
pub(crate) fn is_batch(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')) == Some(&b'[')
}
