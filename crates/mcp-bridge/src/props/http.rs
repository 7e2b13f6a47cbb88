//! Properties of what the Streamable HTTP transport reads from a remote
//! server: the bound of one event of an SSE stream (behaviour spec,
//! "`--max-response-bytes` limits ... one event of a stream"; the line
//! ends of the SSE format: CRLF, LF or CR) and the `Mcp-Param-*` headers
//! of a tool's `x-mcp-header` annotations (2026-07-28 transports page,
//! "Request Metadata").

use super::{ensure, Checked};
use crate::props::bytes::Bytes;
use crate::upstream::http::body::EventLimit;
use crate::upstream::http::headers::{encode_value, param_values, tool_headers, ParamHeader};
use base64::Engine;
use serde_json::{json, Map, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

// --- The event limit -------------------------------------------------------

/// The first byte at which an event of `input` has more than `max` bytes,
/// counted from the end of the blank line before it (the stream's start
/// for the first) with its lines' ends; written from the SSE format, a
/// CRLF being one line end.
fn model_over(input: &[u8], max: usize) -> Option<usize> {
    let (mut start, mut empty_line, mut after_cr, mut blank_cr) = (0, true, false, false);
    for (at, &byte) in input.iter().enumerate() {
        match byte {
            b'\n' if after_cr => {
                // The LF of a CRLF: the line ended at the CR.
                if blank_cr {
                    start = at + 1;
                }
                after_cr = false;
            }
            b'\n' | b'\r' => {
                blank_cr = empty_line && byte == b'\r';
                if empty_line {
                    start = at + 1;
                }
                empty_line = true;
                after_cr = byte == b'\r';
            }
            _ => {
                empty_line = false;
                after_cr = false;
            }
        }
        if at + 1 - start > max {
            return Some(at);
        }
    }
    None
}

/// The limit on the events of a stream, fed in pieces of the sizes
/// `chunks`: it refuses the piece that holds the first byte past `max` of
/// an event, and no piece before it, whatever the sizes; its flag tells
/// the reader so.
pub(crate) fn event_limit(input: &[u8], max: usize, chunks: &[usize]) -> Checked {
    let over = Arc::new(AtomicBool::new(false));
    let mut limit = EventLimit::new(max, over.clone());
    let mut rest = input;
    let mut refused = None;
    for turn in 0.. {
        if rest.is_empty() {
            break;
        }
        let size = chunks.get(turn % chunks.len().max(1)).copied().unwrap_or(rest.len()).clamp(1, rest.len());
        let (piece, after) = rest.split_at(size);
        let offset = input.len() - rest.len();
        if !limit.feed(piece) {
            refused = Some(offset..offset + size);
            break;
        }
        rest = after;
    }
    let expected = model_over(input, max);
    match (&refused, expected) {
        (None, None) => {}
        (Some(piece), Some(at)) if piece.contains(&at) => {}
        _ => return Err(format!("max {max}, reads {chunks:?}: refused {refused:?}, the model says byte {expected:?}")),
    }
    ensure!(over.load(Ordering::Acquire) == refused.is_some(), "the flag says {}", over.load(Ordering::Acquire));
    Ok(())
}

/// The glue of the fuzz target `sse_limit`: the limit (0 to 255), the
/// count and sizes of the reads, then the stream.
pub fn event_limit_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let max = usize::from(bytes.byte());
    let count = usize::from(bytes.byte() % 8);
    let chunks: Vec<usize> = bytes.take(count).iter().map(|&b| usize::from(b).max(1)).collect();
    event_limit(bytes.rest(), max, &chunks)
}

// --- The x-mcp-header walk -------------------------------------------------

/// Counts the `x-mcp-header` members of a schema: every object of the
/// schema but the values of `const`, `default`, `enum` and `examples`
/// (data, not schemas), and the names of `properties` (names, not
/// keywords).
fn annotations(schema: &Value, names: bool) -> usize {
    match schema {
        Value::Object(object) if names => object.values().map(|s| annotations(s, false)).sum(),
        Value::Object(object) => object
            .iter()
            .map(|(key, value)| match key.as_str() {
                "x-mcp-header" => 1,
                "const" | "default" | "enum" | "examples" => 0,
                "properties" => annotations(value, true),
                _ => annotations(value, false),
            })
            .sum(),
        Value::Array(items) => items.iter().map(|s| annotations(s, false)).sum(),
        _ => 0,
    }
}

/// The value at a path of `properties` names: of the schema when `step`
/// is `properties`, of the arguments when it is empty.
fn at<'a>(mut value: &'a Value, path: &[String], step: Option<&str>) -> Option<&'a Value> {
    for key in path {
        value = match step {
            Some(step) => value.get(step)?.get(key)?,
            None => value.get(key)?,
        };
    }
    Some(value)
}

/// A header value decoded: the Base64 sentinel's text, else the value.
fn decode(header: &str) -> Option<String> {
    match header.strip_prefix("=?base64?").and_then(|h| h.strip_suffix("?=")) {
        Some(encoded) => String::from_utf8(base64::engine::general_purpose::STANDARD.decode(encoded).ok()?).ok(),
        None => Some(header.to_owned()),
    }
}

/// A header value is plain text (visible ASCII and inner spaces) that
/// decodes to the text.
fn header_text(text: &str, header: &str) -> Checked {
    ensure!(
        header.bytes().all(|b| (0x20..=0x7e).contains(&b)) && !header.starts_with(' ') && !header.ends_with(' '),
        "{header:?} is not plain header text"
    );
    ensure!(decode(header).as_deref() == Some(text), "{header:?} does not decode to {text:?}");
    Ok(())
}

/// The headers of a tool and of a call: each header of the walk names an
/// annotated property reached through `properties` alone, of type string,
/// integer or boolean, with a field-name token used once; every
/// annotation of the schema is one of them. A call gets a header only for
/// an argument it provides, with its text (a string's text or its Base64
/// sentinel, `true`/`false`, an integer's decimal text); every string,
/// boolean and integer written as one gets its header.
pub(crate) fn mcp_headers(tool: &Value, arguments: &Value) -> Checked {
    let schema = tool.get("inputSchema");
    let headers = match tool_headers(tool) {
        Ok(headers) => headers,
        Err(reason) => {
            let count = schema.map_or(0, |s| annotations(s, false));
            ensure!(count > 0, "{tool} was refused without an annotation: {reason}");
            return Ok(());
        }
    };
    let count = schema.map_or(0, |s| annotations(s, false));
    ensure!(headers.len() == count, "{} headers for {count} annotations in {tool}", headers.len());
    for (i, ParamHeader { name, path }) in headers.iter().enumerate() {
        let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        ensure!(!name.is_empty() && name.bytes().all(tchar), "{name:?} is not a token");
        ensure!(!headers[..i].iter().any(|h| h.name.eq_ignore_ascii_case(name)), "{name} is used twice");
        let annotated = schema.and_then(|s| at(s, path, Some("properties")));
        ensure!(
            !path.is_empty() && annotated.and_then(|a| a.get("x-mcp-header")) == Some(&json!(name)),
            "{name} at {path:?} is not an annotation reached through properties"
        );
        let kind = annotated.and_then(|a| a.get("type")).and_then(Value::as_str);
        ensure!(matches!(kind, Some("string" | "integer" | "boolean")), "{name} is on a property of type {kind:?}");
    }
    let sent = param_values(Some(arguments), &headers);
    let mut rest = sent.iter().peekable();
    for ParamHeader { name, path } in &headers {
        let value = at(arguments, path, None);
        let must = match value {
            Some(Value::String(_) | Value::Bool(_)) => true,
            // An integer value, however it is written (`42`, `42.0`, `1e2`):
            // integers are compared numerically.
            Some(Value::Number(n)) => {
                n.as_f64().is_some_and(|f| f.is_finite() && f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_991.0)
            }
            _ => false,
        };
        let header = format!("Mcp-Param-{name}");
        let Some((_, text)) = rest.next_if(|(sent_name, _)| *sent_name == header) else {
            ensure!(!must, "{header} is missing for {value:?}");
            continue;
        };
        match value {
            Some(Value::String(s)) => header_text(s, text)?,
            Some(Value::Bool(b)) => ensure!(*text == b.to_string(), "{header}: {text:?} for {b}"),
            Some(Value::Number(n)) => {
                let integer: Option<i64> = text.parse().ok().filter(|i: &i64| i.to_string() == *text);
                let same =
                    integer.is_some_and(|i| n.as_f64() == Some(i as f64) && i.unsigned_abs() <= 9_007_199_254_740_991);
                ensure!(same, "{header}: {text:?} for the number {n}");
            }
            other => return Err(format!("{header}: {text:?} for {other:?}, which is not a provided value")),
        }
    }
    ensure!(rest.next().is_none(), "headers beyond the annotations, or out of order: {sent:?}");
    Ok(())
}

/// The Base64 sentinel: a text is sent as it is exactly when it is plain
/// header text that does not look encoded; anything else is its sentinel,
/// and both decode back to the text.
pub(crate) fn header_value(text: &str) -> Checked {
    let header = encode_value(text);
    header_text(text, &header)?;
    let visible = text.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let looks_encoded = text.starts_with("=?base64?") && text.ends_with("?=");
    let plain = visible && !padded && !looks_encoded;
    ensure!((header == text) == plain, "{text:?} is sent as {header:?}");
    Ok(())
}

const PROPERTY_NAMES: [&str; 6] = ["region", "opts", "n", "x-mcp-header", "const", "a b"];
const HEADER_NAMES: [&str; 6] = ["Region", "region", "Count", "Bad Name", "", "Flag"];
const TYPES: [&str; 6] = ["string", "integer", "boolean", "number", "object", "array"];

/// A schema of `depth` levels from the bytes, and arguments for it.
fn built(bytes: &mut Bytes<'_>, depth: u8) -> (Value, Value) {
    let mut properties = Map::new();
    let mut arguments = Map::new();
    for _ in 0..bytes.byte() % 4 {
        let name = PROPERTY_NAMES[usize::from(bytes.byte()) % PROPERTY_NAMES.len()].to_owned();
        let flags = bytes.byte();
        let kind = TYPES[usize::from(flags) % TYPES.len()];
        let mut property = Map::new();
        property.insert("type".into(), json!(kind));
        if flags & 8 != 0 {
            let header = match bytes.byte() % 8 {
                6 => json!(5),
                7 => json!(null),
                n => json!(HEADER_NAMES[usize::from(n)]),
            };
            property.insert("x-mcp-header".into(), header);
        }
        let argument = if kind == "object" && depth > 0 {
            let (inner, inner_arguments) = built(bytes, depth - 1);
            property.extend(inner.as_object().cloned().unwrap_or_default());
            inner_arguments
        } else {
            let text = String::from_utf8_lossy(bytes.take(usize::from(flags >> 5))).into_owned();
            [
                json!(text),
                json!(42),
                json!(42.0),
                json!(true),
                json!(null),
                json!(1e300),
                json!(-0.0),
                json!(9_007_199_254_740_992_u64),
            ][usize::from(bytes.byte() % 8)]
            .clone()
        };
        if flags & 16 != 0 {
            // An annotation where it may not stand: inside a subschema.
            let place = ["items", "anyOf", "$defs", "default"][usize::from(bytes.byte() % 4)];
            let sub = json!({"type": "string", "x-mcp-header": "Inner"});
            let sub = if place == "anyOf" { json!([sub]) } else { sub };
            property.insert(place.into(), sub);
        }
        if !bytes.byte().is_multiple_of(4) {
            arguments.insert(name.clone(), argument);
        }
        properties.insert(name, Value::Object(property));
    }
    (json!({"type": "object", "properties": properties}), Value::Object(arguments))
}

/// The glue of the fuzz target `mcp_headers`: the first byte picks a built
/// tool and its arguments (odd) or the rest as JSON `[tool, arguments]`;
/// the header value of the last text is checked too.
pub fn mcp_headers_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    if bytes.byte() % 2 == 1 {
        let (schema, arguments) = built(&mut bytes, 2);
        header_value(&String::from_utf8_lossy(bytes.rest()))?;
        return mcp_headers(&json!({"name": "t", "inputSchema": schema}), &arguments);
    }
    let rest = bytes.rest();
    header_value(&String::from_utf8_lossy(rest))?;
    match serde_json::from_slice::<Value>(rest) {
        Ok(Value::Array(pair)) => {
            mcp_headers(pair.first().unwrap_or(&Value::Null), pair.get(1).unwrap_or(&Value::Null))
        }
        _ => Ok(()),
    }
}
