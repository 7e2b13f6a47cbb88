//! Properties of framing (behaviour spec, "Forwarded requests (M1)"
//! limits, "Lines that are not valid") and of the envelope
//! (`jsonrpc::Message::classify`).

use super::{ensure, text, Checked};
use crate::framing::{decode, sniff_id_at_end, sniff_id_at_start, Decoded, Frame, Nesting};
use crate::jsonrpc::exceeds_depth;

/// "The line reader keeps the first 256 bytes and the last 256 bytes of a
/// line that is too long" (behaviour spec, "Lines that are not valid").
const EDGE_BYTES: usize = 256;
use crate::jsonrpc::{Cause, Id, Message};
use crate::props::bytes::Bytes;
use crate::props::chunked::Chunked;
use serde_json::{Map, Value};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Every frame of `input`, read by [`crate::pipe::LineReader`] with the
/// limit `max` through reads of the sizes `chunks`. The reader is polled
/// by hand: an in-memory reader is always ready, so no runtime is needed.
pub(crate) fn read_frames(input: &[u8], max: usize, chunks: &[usize]) -> Result<Vec<Frame>, String> {
    let mut reader = crate::pipe::LineReader::new(Chunked::new(input, chunks), max);
    let mut cx = Context::from_waker(Waker::noop());
    let mut frames = Vec::new();
    // Each frame but the last ends at a `\n`: more frames than that is a loop.
    let most = input.iter().filter(|&&b| b == b'\n').count() + 1;
    for _ in 0..=most {
        let poll = pin!(reader.next_frame()).as_mut().poll(&mut cx);
        match poll {
            Poll::Ready(Ok(Some(frame))) => frames.push(frame),
            Poll::Ready(Ok(None)) => return Ok(frames),
            Poll::Ready(Err(e)) => return Err(format!("the in-memory reader failed: {e}")),
            Poll::Pending => return Err("the line reader is pending on a reader that is always ready".into()),
        }
    }
    Err(format!("the line reader gave more than {most} frames for {most} lines"))
}

/// The frames the spec asks for: one per `\n`, and one for a last line
/// without `\n` unless it is empty; a line over the limit keeps only its
/// first and last [`EDGE_BYTES`] bytes, and the nesting of every byte
/// before its last ones.
pub(crate) fn model_frames(input: &[u8], max: usize) -> Vec<Frame> {
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop();
    }
    lines
        .into_iter()
        .map(|line| {
            if line.len() <= max {
                return Frame::Line(line.to_vec());
            }
            let edge = EDGE_BYTES.min(line.len());
            let mut before_tail = Nesting::default();
            before_tail.feed(&line[..line.len() - edge]);
            Frame::TooLong { head: line[..edge].to_vec(), tail: line[line.len() - edge..].to_vec(), before_tail }
        })
        .collect()
}

fn show(frame: &Frame) -> String {
    match frame {
        Frame::Line(line) => format!("Line({:?})", String::from_utf8_lossy(line)),
        Frame::TooLong { head, tail, before_tail } => format!(
            "TooLong {{ head: {} bytes {:?}, tail: {} bytes {:?}, {before_tail:?} }}",
            head.len(),
            String::from_utf8_lossy(head),
            tail.len(),
            String::from_utf8_lossy(tail)
        ),
    }
}

/// The line reader never yields a line longer than the limit, keeps at
/// most [`EDGE_BYTES`] bytes at each end of a line that is too long, and
/// gives the frames of the model whatever the sizes of the reads.
pub(crate) fn line_reader(input: &[u8], max: usize, chunks: &[usize]) -> Checked {
    let frames = read_frames(input, max, chunks)?;
    for (index, frame) in frames.iter().enumerate() {
        match frame {
            Frame::Line(line) => {
                ensure!(line.len() <= max, "frame {index}: a line of {} bytes passed the limit {max}", line.len())
            }
            Frame::TooLong { head, tail, .. } => ensure!(
                head.len() <= EDGE_BYTES && tail.len() <= EDGE_BYTES,
                "frame {index}: the ends of a line that is too long have {} and {} bytes, more than {EDGE_BYTES}",
                head.len(),
                tail.len()
            ),
        }
    }
    let expected = model_frames(input, max);
    ensure!(frames.len() == expected.len(), "{} frames, the model has {}", frames.len(), expected.len());
    for (index, (got, want)) in frames.iter().zip(&expected).enumerate() {
        ensure!(
            got == want,
            "frame {index} (limit {max}, reads {chunks:?}): got {}, the model has {}",
            show(got),
            show(want)
        );
    }
    Ok(())
}

/// Fuzz glue: two bytes of limit (below 1024, so that lines over the limit
/// are common, on both sides of the 256 bytes kept at each end of a long
/// line, `EDGE_BYTES`), a count and the sizes of the reads, then the input.
pub fn line_reader_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let max = usize::from(bytes.u16() % 1024);
    let count = usize::from(bytes.byte() % 8);
    let chunks: Vec<usize> = bytes.take(count).iter().map(|&b| usize::from(b).max(1)).collect();
    line_reader(bytes.rest(), max, &chunks)
}

/// The levels of nesting of a value: arrays and objects count, scalars
/// do not.
pub(crate) fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(members) => 1 + members.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}

/// The depth pre-scan agrees with the nesting of `serde_json`'s parse for
/// valid JSON, and is monotone in the limit for any bytes.
pub(crate) fn depth(bytes: &[u8], max: usize) -> Checked {
    let exceeds = exceeds_depth(bytes, max);
    if exceeds {
        ensure!(max == 0 || exceeds_depth(bytes, max - 1), "over the limit {max} but not over {}", max - 1);
    } else {
        ensure!(!exceeds_depth(bytes, max + 1), "within the limit {max} but over {}", max + 1);
    }
    if let Ok(value) = serde_json::from_slice::<Value>(bytes) {
        let levels = nesting(&value);
        ensure!(
            exceeds == (levels > max),
            "the scan says {} the limit {max}, the parse has {levels} levels",
            if exceeds { "over" } else { "within" }
        );
    }
    Ok(())
}

/// Fuzz glue: one byte of limit, then the text.
pub fn depth_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let max = usize::from(bytes.byte() % 80);
    depth(bytes.rest(), max)
}

/// The id of a valid JSON object, as the parser sees it.
fn parsed_id(line: &[u8]) -> Option<Option<Id>> {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(members)) => Some(members.get("id").cloned().and_then(Id::from_value)),
        _ => None,
    }
}

/// Id sniffing: on a valid JSON object the sniffed id is the parsed id,
/// both from the walk of the start and, for the end of the line read as
/// the end of an overlong line, from the end; an id found in a bad line is
/// valid, and an id found at the end is at depth 1.
pub(crate) fn sniff(line: &[u8]) -> Checked {
    let start = sniff_id_at_start(line);
    let end = sniff_id_at_end(line, Nesting::default());
    for found in [&start, &end].into_iter().flatten() {
        ensure!(
            Id::from_value(found.as_value().clone()).as_ref() == Some(found),
            "the sniffed id {found:?} is not valid"
        );
    }
    if let Some(parsed) = parsed_id(line) {
        ensure!(start == parsed, "the walk from the start gave {start:?} for a valid object whose id is {parsed:?}");
        if let Some(end) = &end {
            ensure!(Some(end) == parsed.as_ref(), "the end gave {end:?} for a valid object whose id is {parsed:?}");
        }
    }
    Ok(())
}

/// Fuzz glue: the line as it is.
pub fn sniff_bytes(data: &[u8]) -> Checked {
    sniff(data)
}

/// `decode` applies the checks in the order of the spec: blank, depth,
/// parse, envelope; a bad line carries the sniffed id; a valid envelope
/// is classified as [`classified`] says.
pub(crate) fn decode_line(line: &[u8], max_depth: usize) -> Checked {
    let limit = line.len();
    let got = decode(&Frame::Line(line.to_vec()), limit, max_depth);
    if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        ensure!(got.is_none(), "a blank line gave {got:?}");
        return Ok(());
    }
    let Some(got) = got else { return Err("a line that is not blank gave no message".into()) };
    let bad = |cause: Cause, id: Option<Id>| {
        move |got: &Decoded| match got {
            Decoded::Bad { id: got_id, error } => {
                ensure!(error.cause == cause, "the cause is {}, expected {}", error.cause.name(), cause.name());
                ensure!(error.code == cause.code(), "the code is {}", error.code);
                ensure!(*got_id == id, "the id is {got_id:?}, expected {id:?}");
                Ok(())
            }
            Decoded::Message(message) => Err(format!("expected {}, got {message:?}", cause.name())),
        }
    };
    if exceeds_depth(line, max_depth) {
        return bad(Cause::TooDeep, sniff_id_at_start(line))(&got);
    }
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(_) => return bad(Cause::ParseError, sniff_id_at_start(line))(&got),
    };
    let expected = classified(&value);
    match (&got, expected) {
        (_, Message::Invalid { id }) => bad(Cause::InvalidRequestShape, id)(&got),
        (Decoded::Message(message), expected) => {
            ensure!(*message == expected, "decoded {message:?}, the envelope rules give {expected:?}");
            round_trip(message)
        }
        (Decoded::Bad { .. }, expected) => Err(format!("decoded {got:?}, the envelope rules give {expected:?}")),
    }
}

/// The message that the envelope rules of JSON-RPC 2.0 and of the spec
/// ("Lines that are not valid") give for a parsed value, written as a
/// table of cases rather than as the steps of `classify`.
pub(crate) fn classified(value: &Value) -> Message {
    let Value::Object(obj) = value else { return Message::Invalid { id: None } };
    let id = obj.get("id").cloned().and_then(Id::from_value);
    let has_id = obj.contains_key("id");
    let version_ok = obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let method = obj.get("method");
    let params = obj.get("params").cloned();
    // An error object has an integer code and a string message.
    let error_object =
        |e: &Value| e.get("code").is_some_and(Value::is_i64) && e.get("message").is_some_and(Value::is_string);
    let lone_error = obj.get("error").is_some() && !obj.contains_key("result");
    let outcome = match (obj.get("result"), obj.get("error")) {
        (Some(result), None) => Some(Ok(result.clone())),
        (None, Some(error)) if error_object(error) => Some(Err(error.clone())),
        _ => None,
    };
    match (version_ok, method, has_id, id, outcome) {
        (false, _, _, id, _) => Message::Invalid { id },
        (true, Some(Value::String(m)), false, _, _) => Message::Notification { method: m.clone(), params },
        (true, Some(Value::String(m)), true, Some(id), _) => Message::Request { id, method: m.clone(), params },
        (true, Some(Value::String(_)), true, None, _) => Message::Invalid { id: None },
        (true, Some(_), _, id, _) => Message::Invalid { id },
        (true, None, _, Some(id), Some(outcome)) => Message::Response { id, outcome },
        // A result response without an id member is not on the list of
        // those that get no answer: it is not a valid message.
        (true, None, false, None, Some(Ok(_))) => Message::Invalid { id: None },
        (true, None, _, None, Some(_)) => Message::Unanswerable,
        // An error response without a valid id gets no answer, whatever its error.
        (true, None, _, None, None) if lone_error => Message::Unanswerable,
        (true, None, _, id, None) => Message::Invalid { id },
    }
}

/// A message written back as a line decodes to the same message, and ids
/// keep their exact text.
fn round_trip(message: &Message) -> Checked {
    let mut obj = Map::new();
    obj.insert("jsonrpc".into(), Value::from("2.0"));
    match message.clone() {
        Message::Request { id, method, params } => {
            obj.insert("id".into(), id.as_value().clone());
            obj.insert("method".into(), Value::from(method));
            if let Some(params) = params {
                obj.insert("params".into(), params);
            }
        }
        Message::Notification { method, params } => {
            obj.insert("method".into(), Value::from(method));
            if let Some(params) = params {
                obj.insert("params".into(), params);
            }
        }
        Message::Response { id, outcome } => {
            obj.insert("id".into(), id.as_value().clone());
            match outcome {
                Ok(result) => obj.insert("result".into(), result),
                Err(error) => obj.insert("error".into(), error),
            };
        }
        Message::Unanswerable | Message::Invalid { .. } => return Ok(()),
    }
    let line = text(&Value::Object(obj));
    let again = decode(&Frame::Line(line.clone().into_bytes()), line.len(), usize::MAX);
    ensure!(again == Some(Decoded::Message(message.clone())), "{line} decodes to {again:?}, not to {message:?}");
    Ok(())
}

/// A line that is too long goes out as `line_too_long` with the id of its
/// start, else of its end (read as the end of a line whose dropped bytes
/// were the head: the nesting of the head before the tail).
pub(crate) fn decode_too_long(head: &[u8], tail: &[u8]) -> Checked {
    let mut before_tail = Nesting::default();
    before_tail.feed(head);
    let got = decode(&Frame::TooLong { head: head.to_vec(), tail: tail.to_vec(), before_tail }, 7, 64);
    let id = sniff_id_at_start(head).or_else(|| sniff_id_at_end(tail, before_tail));
    match got {
        Some(Decoded::Bad { id: got_id, error }) => {
            ensure!(error.cause == Cause::LineTooLong, "the cause is {}", error.cause.name());
            ensure!(error.detail.as_deref() == Some("limit: 7 bytes"), "the detail is {:?}", error.detail);
            ensure!(got_id == id, "the id is {got_id:?}, expected {id:?}");
            Ok(())
        }
        other => Err(format!("a line that is too long gave {other:?}")),
    }
}

/// Fuzz glue: one byte picks the depth limit (the spec's 64 most of the
/// time) or a line that is too long split in two; the rest is the line.
pub fn decode_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let option = bytes.byte();
    let line = bytes.rest();
    match option {
        0..=199 => decode_line(line, crate::framing::MAX_DEPTH),
        200..=249 => decode_line(line, usize::from(option - 200)),
        _ => {
            let cut = line.len() / 2;
            let (head, tail) = line.split_at(cut);
            decode_too_long(&head[..head.len().min(EDGE_BYTES)], &tail[tail.len().saturating_sub(EDGE_BYTES)..])
        }
    }
}
