//! The result rules on the members of a raw result: the response line for
//! the client when no rule has to rewrite a member deeply, `None` when the
//! full path must apply the rules (behaviour spec, "Result rules (M1)").

use super::RawResult;
use crate::jsonrpc::Id;
use crate::translate::icons::IconRule;
use crate::translate::initialize::SERVER_INFO_KEY;
use crate::translate::result::{LIST_METHODS, MODERN_MEMBERS};
use crate::Profile;
use bytes::{BufMut, Bytes, BytesMut};
use indexmap::IndexMap;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::fmt;

/// Members shorter than this are copied into the line's own buffer; longer
/// ones go out as slices of the line that was read.
const SHARE_BYTES: usize = 4096;

/// The response to the client for `id`, in pieces to write one after the
/// other (without the `\n`), or `None` for the full path: a list result
/// (R6, `nextCursor`, icons), an icon rule other than `All`, a result that
/// is not an object, an input request, and a `tools/call` result that
/// needs a content array or the text mirror, or whose structuredContent
/// the strict rule removes.
/// The fast path gives no notes: each rule with a note takes the full path.
pub fn result_line(id: &Id, method: &str, raw: &RawResult, profile: &Profile, icons: IconRule) -> Option<Vec<Bytes>> {
    if !may_take(method, icons) {
        return None;
    }
    let mut members: IndexMap<String, &RawValue> = serde_json::from_slice(raw.text()).ok()?;
    // An input request is no result for the client: the rounds of the
    // section "Input requests" need its tree.
    let kind = members.get("resultType").map(|t| serde_json::from_str::<Value>(t.get())).transpose().ok()?;
    if kind.as_ref().and_then(Value::as_str) == Some("input_required") {
        return None;
    }
    for key in MODERN_MEMBERS {
        members.shift_remove(key);
    }
    let meta = match members.get("_meta") {
        Some(meta) => server_meta(meta)?,
        None => Meta::Keep,
    };
    if method == "tools/call" && !call_is_ready(&members, profile)? {
        return None;
    }
    response(id, &members, &meta, raw)
}

/// The response line: the envelope, then each member left, the untouched
/// ones as the bytes that came.
fn response(id: &Id, members: &IndexMap<String, &RawValue>, meta: &Meta, raw: &RawResult) -> Option<Vec<Bytes>> {
    let mut line = Line { raw, pieces: Vec::new(), buffer: BytesMut::with_capacity(256) };
    line.push(b"{\"jsonrpc\":\"2.0\",\"id\":");
    line.push(&serde_json::to_vec(id.as_value()).ok()?);
    line.push(b",\"result\":{");
    let mut first = true;
    for (key, value) in members {
        let value = match (key.as_str(), meta) {
            ("_meta", Meta::Drop) => continue,
            ("_meta", Meta::Replace(text)) => Part::Own(text),
            _ => Part::Shared(value.get().as_bytes()),
        };
        if !first {
            line.push(b",");
        }
        first = false;
        line.push(&serde_json::to_vec(key).ok()?);
        line.push(b":");
        match value {
            Part::Own(text) => line.push(text),
            Part::Shared(text) => line.share(text),
        }
    }
    line.push(b"}}");
    Some(line.finish())
}

/// Whether a result of `method` can take the fast path at all: not a list
/// (R6, `nextCursor` and the icons of its items need the tree), and only
/// with every icon kept.
pub fn may_take(method: &str, icons: IconRule) -> bool {
    icons == IconRule::All && !LIST_METHODS.contains(&method)
}

/// What becomes of the result's `_meta`.
enum Meta {
    Keep,
    /// Its server information went, and nothing was left.
    Drop,
    /// Its server information went; the rest, serialized.
    Replace(Vec<u8>),
}

/// `_meta` loses the server information; a `_meta` then empty goes. One
/// that is not an object stays as it is.
fn server_meta(meta: &RawValue) -> Option<Meta> {
    let Value::Object(mut meta) = serde_json::from_str(meta.get()).ok()? else {
        return Some(Meta::Keep);
    };
    if meta.shift_remove(SERVER_INFO_KEY).is_none() && !meta.is_empty() {
        return Some(Meta::Keep);
    }
    if meta.is_empty() {
        return Some(Meta::Drop);
    }
    serde_json::to_vec(&meta).ok().map(Meta::Replace)
}

/// Whether a `tools/call` result goes as it is: a content array that has a
/// text block (or nothing for the mirror to add), and no structuredContent
/// for the strict rule to remove. `None` when a member does not parse.
fn call_is_ready(members: &IndexMap<String, &RawValue>, profile: &Profile) -> Option<bool> {
    // The text of a `RawValue` starts with its value: `[` is an array.
    let Some(content) = members.get("content").filter(|c| c.get().starts_with('[')) else { return Some(false) };
    let structured = members.get("structuredContent").map(|s| s.get());
    let mirror_needed = structured.is_some_and(|s| s != "null");
    if mirror_needed && !has_text_block(content)? {
        return Some(false);
    }
    let strict_removes = profile.quirks.strict_legacy_results && structured.is_some_and(|s| !s.starts_with('{'));
    Some(!strict_removes)
}

/// A block whose `type` is `"text"`, in one scan of the content array.
fn has_text_block(content: &RawValue) -> Option<bool> {
    let blocks: Vec<BlockType> = serde_json::from_str(content.get()).ok()?;
    Some(blocks.iter().any(|b| b.0.as_ref().and_then(Value::as_str) == Some("text")))
}

/// The `type` of a content block: its last `type` member, as the full
/// parse keeps it. The other members, and a block that is no object, are
/// skipped without being built (the text of a big block is most of a big
/// result).
struct BlockType(Option<Value>);

impl<'de> Deserialize<'de> for BlockType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(BlockVisitor)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = BlockType;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BlockType, A::Error> {
        let mut kind = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "type" {
                kind = Some(map.next_value::<Value>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(BlockType(kind))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<BlockType, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(BlockType(None))
    }

    fn visit_bool<E>(self, _: bool) -> Result<BlockType, E> {
        Ok(BlockType(None))
    }

    fn visit_i64<E>(self, _: i64) -> Result<BlockType, E> {
        Ok(BlockType(None))
    }

    fn visit_u64<E>(self, _: u64) -> Result<BlockType, E> {
        Ok(BlockType(None))
    }

    fn visit_f64<E>(self, _: f64) -> Result<BlockType, E> {
        Ok(BlockType(None))
    }

    fn visit_str<E>(self, _: &str) -> Result<BlockType, E> {
        Ok(BlockType(None))
    }

    fn visit_unit<E>(self) -> Result<BlockType, E> {
        Ok(BlockType(None))
    }
}

enum Part<'a> {
    Own(&'a [u8]),
    Shared(&'a [u8]),
}

/// The pieces of a response line: small parts gather in a buffer, a long
/// member of the raw result goes as a slice of the line that was read.
struct Line<'a> {
    raw: &'a RawResult,
    pieces: Vec<Bytes>,
    buffer: BytesMut,
}

impl Line<'_> {
    fn push(&mut self, text: &[u8]) {
        self.buffer.put_slice(text);
    }

    fn share(&mut self, text: &[u8]) {
        if text.len() < SHARE_BYTES {
            return self.push(text);
        }
        if !self.buffer.is_empty() {
            self.pieces.push(self.buffer.split().freeze());
        }
        self.pieces.push(self.raw.share(text));
    }

    fn finish(mut self) -> Vec<Bytes> {
        if !self.buffer.is_empty() {
            self.pieces.push(self.buffer.freeze());
        }
        self.pieces
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_block(content: &str) -> Option<bool> {
        has_text_block(serde_json::from_str::<&RawValue>(content).ok()?)
    }

    /// The mirror rule's test, as the full path reads `content[i].type`.
    #[test]
    fn a_text_block_is_one_whose_last_type_is_text() {
        assert_eq!(text_block(r#"[{"type":"image"},{"text":"x","type":"text"}]"#), Some(true));
        assert_eq!(text_block(r#"[{"type":"image","type":"text"}]"#), Some(true));
        assert_eq!(text_block(r#"[{"type":"text","type":"image"}]"#), Some(false));
        assert_eq!(text_block(r#"[{"x":{"type":"text"}},["text"],"text",1,1.5,-0,null,true]"#), Some(false));
        assert_eq!(text_block(r#"[{"type":"t\u0065xt"}]"#), Some(true));
        assert_eq!(text_block(r#"[]"#), Some(false));
    }
}
