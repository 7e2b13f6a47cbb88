//! The raw path of results against the full path: on the
//! same upstream line, `raw` either steps aside or gives what the full
//! path gives, the same JSON for the client.

use super::translate::{dialect, quirks_from, METHODS};
use super::{ensure, text, Checked};
use crate::framing::{decode, Decoded, Frame};
use crate::jsonrpc::{result_response, Id, Message};
use crate::method::Method;
use crate::props::bytes::Bytes;
use crate::raw::{read, rules};
use crate::translate::icons::filter_icons;
use crate::translate::result::{is_input_required, translate_result};
use crate::upstream::UPSTREAM_MAX_DEPTH;
use crate::Quirks;
use serde_json::Value;

/// The glue of the `raw_path` fuzz target: the method (1 byte), the
/// quirks (1 byte, whose bit 8 gives the request the cursor `"next"` and
/// whose bit 16 makes the upstream remote, with its icon rule), then the
/// upstream line.
pub fn raw_path_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let method = METHODS[usize::from(bytes.byte()) % METHODS.len()];
    let bits = bytes.byte();
    let cursor = (bits & 8 != 0).then(|| Value::from(CURSOR));
    raw_path((method, cursor.as_ref()), (quirks_from(bits), bits & 16 != 0), bytes.rest())
}

/// The cursor of a request in [`raw_path_bytes`] (a result's `nextCursor`
/// equal to it gets a warning).
pub(crate) const CURSOR: &str = "next";

/// For one line of the upstream server, the answer to a request of
/// `method`:
/// - a line that `raw::read` takes is, to the full decode, a result
///   response with the same id and a result equal to the raw one, member
///   for member, in order and with the same number text;
/// - a response line that `raw::rules` gives is, once parsed, the line
///   that the full path writes (the rules, the icon rule of an upstream
///   that is `remote` or not, the envelope), with the notes that the full
///   path gives, in the same order, when `Dialect::raw_result` lets the
///   result take the raw path.
pub(crate) fn raw_path(
    (method, cursor): (Method, Option<&Value>),
    (quirks, remote): (Quirks, bool),
    line: &[u8],
) -> Checked {
    let Ok((id, raw)) = read::response(line.to_vec(), &Default::default()) else { return Ok(()) };
    let decoded = decode(&Frame::Line(line.to_vec()), usize::MAX, UPSTREAM_MAX_DEPTH);
    let Some(Decoded::Message(Message::Response { id: full_id, outcome: Ok(result) })) = decoded else {
        return Err(format!("the raw path took a line that the full path decodes as {decoded:?}"));
    };
    ensure!(full_id == Id::number(id), "the raw path read the id {id}, the full path {full_id:?}");
    let parsed = raw.to_value().map_err(|err| format!("the raw result does not parse: {err}"))?;
    ensure!(text(&parsed) == text(&result), "raw result {} is not the full path's {}", text(&parsed), text(&result));

    let client_id = Id::from_value(Value::from("c-1")).ok_or("no client id")?;
    let dialect = dialect(quirks, remote);
    if !dialect.raw_result(method) {
        return Ok(());
    }
    let Some((pieces, raw_notes)) = rules::apply(&client_id, (method, cursor), &raw, &dialect) else {
        return Ok(());
    };
    ensure!(!is_input_required(&result), "the raw path answered an input request");
    let bytes: Vec<u8> = pieces.concat();
    let answer: Value = serde_json::from_slice(&bytes)
        .map_err(|err| format!("the raw line is not JSON ({err}): {}", String::from_utf8_lossy(&bytes)))?;
    let (mut translated, notes) = translate_result(method, cursor, result, &dialect);
    filter_icons(method, &mut translated, &dialect);
    ensure!(raw_notes == notes, "the raw path noted {raw_notes:?}, the full path {notes:?}");
    let full = result_response(&client_id, translated);
    ensure!(text(&answer) == text(&full), "raw {} but full {}", text(&answer), text(&full));
    Ok(())
}
