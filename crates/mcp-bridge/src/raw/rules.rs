//! The result rules on the members of a raw result: the response line for
//! the client when no rule has to rewrite a member deeply, `None` when the
//! full path must apply the rules (behaviour spec, "Result rules (M1)").

use super::edit::{Edit, Members};
use super::list;
use super::scan::{Step, Text};
use super::RawResult;
use crate::dialect::Dialect;
use crate::jsonrpc::Id;
use crate::method::Method;
use crate::profile::Quirks;
use crate::translate::discover::SERVER_INFO_KEY;
use crate::translate::note::Note;
use crate::translate::result::MODERN_MEMBERS;
use bytes::{BufMut, Bytes, BytesMut};
use serde_json::Value;

/// Members shorter than this are copied into the line's own buffer; longer
/// ones go out as slices of the line that was read.
const SHARE_BYTES: usize = 4096;

/// A response for the client: the pieces of its line (without the `\n`),
/// and the notes of the rules, for the caller to log.
pub(crate) type RawResponse = (Vec<Bytes>, Vec<Note>);

/// The response to the client for `id`, or `None` for the full path: a
/// result that is not an object, an input request, a `tools/call` result
/// that needs a content array or the text mirror, whose structuredContent
/// the strict rule removes or whose resource links the icon rule filters,
/// and a list whose rules `raw::list` leaves to the full path. `cursor` is
/// the `cursor` of the request, for the `nextCursor` rule. The caller
/// asked `Dialect::raw_result` first: whether this result may take the raw
/// path at all is decided there, once.
pub(crate) fn apply(
    id: &Id,
    (method, cursor): (Method, Option<&Value>),
    raw: &RawResult,
    dialect: &Dialect,
) -> Option<RawResponse> {
    let text = raw.text();
    // The `tools` of a list get their rules where they are read: a list of
    // 2,000 tools is most of the line, and is scanned once.
    let tool_rules = list::tool_rules(method, dialect.quirks);
    let mut notes = Vec::new();
    let mut tools = None;
    let mut members = result_members(text, |name, at| match tool_rules {
        Some(rules) if name == "tools" && text.as_bytes().get(at) == Some(&b'[') => {
            // The walk of a second `tools` would note what the client
            // does not get: the full path takes it.
            if tools.is_some() {
                return None;
            }
            let (end, patched) = list::tools(text.get(at..)?, rules, &mut notes)?;
            tools = Some(patched);
            Some(at + end)
        }
        _ => Text::new(text).value_end(at),
    })?;
    // An input request is no result for the client: the rounds of the
    // section "Input requests" need its tree.
    let kind = members.get("resultType").and_then(|kind| Text::new(kind).string(0));
    if kind.is_some_and(|(kind, _)| kind == "input_required") {
        return None;
    }
    members.remove(&MODERN_MEMBERS);
    let mut edits = if method.is_list() { list::rules(&members, cursor, tools.flatten())? } else { Vec::new() };
    if let Some(meta) = members.get("_meta") {
        if let Some(edit) = server_meta(meta)? {
            edits.push(("_meta", edit));
        }
    }
    if method == Method::ToolsCall && !call_is_ready(&members, dialect.quirks, dialect.filters_icons(method))? {
        return None;
    }
    Some((response(id, &members, &edits, raw)?, notes))
}

/// The members of the result, in order, each as its JSON text. The text was
/// checked by `raw::read`, so `raw::scan` finds them without a second
/// parse (see [`Members::insert`]; `None` past [`Members::MOST`]).
/// `value_end` reads each value, from its name and where it starts, and
/// gives the offset after it.
fn result_members<'a>(text: &'a str, mut value_end: impl FnMut(&str, usize) -> Option<usize>) -> Option<Members<'a>> {
    let text = Text::new(text);
    if text.byte(0)? != b'{' {
        return None;
    }
    let mut members = Members::new();
    let mut step = text.open(0)?;
    while let Step::Item(at) = step {
        let (name, value) = text.name(at)?;
        let end = value_end(&name, value)?;
        members.insert(name, text.get(value, end)?)?;
        step = text.next(end, b'}')?;
    }
    matches!(step, Step::End(end) if end == text.bytes().len()).then_some(members)
}

/// The response line: the envelope, then each member left, the edited ones
/// as the edit gives them, the untouched ones as the bytes that came.
fn response(id: &Id, members: &Members<'_>, edits: &[(&str, Edit)], raw: &RawResult) -> Option<Vec<Bytes>> {
    let mut line = Line { raw, pieces: Vec::new(), buffer: BytesMut::with_capacity(256) };
    line.push(b"{\"jsonrpc\":\"2.0\",\"id\":");
    line.json(id.as_value())?;
    line.push(b",\"result\":{");
    let mut first = true;
    for (key, value) in members.iter() {
        let edit = edits.iter().find(|(name, _)| *name == key).map(|(_, edit)| edit);
        if matches!(edit, Some(Edit::Drop)) {
            continue;
        }
        if !first {
            line.push(b",");
        }
        first = false;
        line.json(key)?;
        line.push(b":");
        match edit {
            Some(Edit::Replace(text)) => line.own(text),
            _ => line.share(value.as_bytes()),
        }
    }
    line.push(b"}}");
    Some(line.finish())
}

/// `_meta` loses the server information; a `_meta` then empty goes. One
/// that is not an object, or has no server information, stays as it is
/// (`None`).
fn server_meta(meta: &str) -> Option<Option<Edit>> {
    let Value::Object(mut meta) = serde_json::from_str(meta).ok()? else {
        return Some(None);
    };
    if meta.shift_remove(SERVER_INFO_KEY).is_none() && !meta.is_empty() {
        return Some(None);
    }
    if meta.is_empty() {
        return Some(Some(Edit::Drop));
    }
    serde_json::to_vec(&meta).ok().map(|text| Some(Edit::Replace(text.into())))
}

/// Whether a `tools/call` result goes as it is: a content array that has a
/// text block (or nothing for the mirror to add), no resource link when
/// `links_matter` (the icon rule of a remote server would filter its
/// icons), and no structuredContent for the strict rule to remove. `None`
/// when a member does not parse.
fn call_is_ready(members: &Members<'_>, quirks: Quirks, links_matter: bool) -> Option<bool> {
    // The text of a member starts with its value: `[` is an array.
    let Some(content) = members.get("content").filter(|c| c.starts_with('[')) else { return Some(false) };
    let structured = members.get("structuredContent");
    let mirror_needed = structured.is_some_and(|s| s != "null");
    if mirror_needed || links_matter {
        let (text, link) = block_types(content)?;
        if (mirror_needed && !text) || (links_matter && link) {
            return Some(false);
        }
    }
    let strict_removes = quirks.strict_legacy_results && structured.is_some_and(|s| !s.starts_with('{'));
    Some(!strict_removes)
}

/// Whether a block of the content array is of `type` `"text"`, and whether
/// one is a `"resource_link"`, in one scan (its text was checked by
/// `raw::read`).
fn block_types(content: &str) -> Option<(bool, bool)> {
    let text = Text::new(content);
    let (mut texts, mut links) = (false, false);
    let mut step = text.open(0)?;
    while let Step::Item(at) = step {
        let (kind, end) = text.type_of(at)?;
        texts |= kind.as_deref() == Some("text");
        links |= kind.as_deref() == Some("resource_link");
        step = text.next(end, b']')?;
    }
    Some((texts, links))
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

    /// The JSON text of a value, written into the buffer (a `Vec` of its
    /// own for each id and name was two allocations of a small response).
    fn json<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Option<()> {
        serde_json::to_writer((&mut self.buffer).writer(), value).ok()
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

    /// A text of the bridge's own: a long one goes as its own piece.
    fn own(&mut self, text: &Bytes) {
        if text.len() < SHARE_BYTES {
            return self.push(text);
        }
        if !self.buffer.is_empty() {
            self.pieces.push(self.buffer.split().freeze());
        }
        self.pieces.push(text.clone());
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
        block_types(content).map(|(text, _)| text)
    }

    /// The response line of the raw path for a result of `method`, as
    /// text, or `None` when it steps aside.
    fn answer(method: Method, result: &str) -> Option<(String, usize)> {
        answer_with(method, result, false)
    }

    /// The same toward a `remote` upstream (VS Code's icon rule applies).
    fn answer_with(method: Method, result: &str, remote: bool) -> Option<(String, usize)> {
        let line = format!(r#"{{"jsonrpc":"2.0","id":3,"result":{result}}}"#);
        let (_, raw) = crate::raw::read::response(line.into_bytes(), &Default::default()).ok()?;
        let dialect = Dialect::new(&crate::profile::Profile::vscode(), crate::profile::Revision::LATEST, remote);
        let (pieces, notes) = apply(&Id::number(9), (method, None), &raw, &dialect)?;
        Some((String::from_utf8(pieces.concat()).ok()?, notes.len()))
    }

    /// The raw path keeps a result's members in order and searches them
    /// one by one: past `Members::MOST` members it steps aside, and the
    /// full path gives the response. A member twice keeps its first place
    /// and its last value; `resultType` drops out wherever it stands, and
    /// an escaped `input_required` is still an input request.
    #[test]
    fn members_keep_their_order_and_too_many_step_aside() {
        let members = |n: usize| (0..n).map(|i| format!(r#""m{i}":{i}"#)).collect::<Vec<_>>().join(",");
        let most = format!(r#"{{"content":[{{"type":"text","text":"t"}}],{}}}"#, members(Members::MOST - 1));
        let want = format!(r#"{{"jsonrpc":"2.0","id":9,"result":{most}}}"#);
        assert_eq!(answer(Method::ToolsCall, &most), Some((want, 0)));
        let over = format!(r#"{{"content":[{{"type":"text","text":"t"}}],{}}}"#, members(Members::MOST));
        assert_eq!(answer(Method::ToolsCall, &over), None);
        let twice = r#"{"b":1,"resultType":"complete","a":2,"b":3}"#;
        let want = r#"{"jsonrpc":"2.0","id":9,"result":{"b":3,"a":2}}"#;
        assert_eq!(answer(Method::ResourcesRead, twice), Some((want.to_owned(), 0)));
        assert_eq!(answer(Method::ResourcesRead, r#"{"resultType":"input\u005frequired"}"#), None);
    }

    /// "Icons of a remote upstream server (M4)" needs the tree of what it
    /// filters (`Dialect::raw_result` keeps the lists and `prompts/get` of
    /// a remote server on the full path): a `tools/call` result steps aside
    /// by itself when a block of its content is a resource link. Any other
    /// call result of a remote server, a `resources/read` result, and
    /// every result of a local one take the raw path.
    #[test]
    fn a_remote_servers_call_result_with_a_resource_link_steps_aside() {
        let icons = r#"[{"src":"https://x/a.png"}]"#;
        let link = format!(r#"{{"type":"resource_link","uri":"x://1","name":"one","icons":{icons}}}"#);
        let with_link = format!(r#"{{"content":[{{"type":"text","text":"t"}},{link}]}}"#);
        assert_eq!(answer_with(Method::ToolsCall, &with_link, true), None);
        let want = format!(r#"{{"jsonrpc":"2.0","id":9,"result":{with_link}}}"#);
        assert_eq!(answer_with(Method::ToolsCall, &with_link, false), Some((want, 0)));
        let plain = format!(r#"{{"content":[{{"type":"text","text":"t","icons":{icons}}}]}}"#);
        let want = format!(r#"{{"jsonrpc":"2.0","id":9,"result":{plain}}}"#);
        assert_eq!(answer_with(Method::ToolsCall, &plain, true), Some((want, 0)));
        let read = format!(r#"{{"contents":[{{"uri":"x://1","icons":{icons}}}]}}"#);
        let want = format!(r#"{{"jsonrpc":"2.0","id":9,"result":{read}}}"#);
        assert_eq!(answer_with(Method::ResourcesRead, &read, true), Some((want, 0)));
    }

    /// One scan of the content finds both kinds of block.
    #[test]
    fn the_blocks_of_a_content_array_say_whether_one_is_text_and_one_a_link() {
        for (content, want) in [
            (r#"[{"type":"text"},{"type":"resource_link"}]"#, Some((true, true))),
            (r#"[{"type":"resource_link","type":"image"}]"#, Some((false, false))),
            (r#"[{"type":"resource_l\u0069nk"}]"#, Some((false, true))),
            (r#"[{"type":"image"},{"x":{"type":"resource_link"}}]"#, Some((false, false))),
            ("[]", Some((false, false))),
            (r#"[{"type":"text"}"#, None),
        ] {
            assert_eq!(block_types(content), want, "{content}");
        }
    }

    /// The result's members are read from the checked text: a member twice
    /// keeps its first place and its last value, as the full parse does;
    /// a result that is no object, or a list with `tools` twice (the walk
    /// of the first would note what the client does not get), is left to
    /// the full path.
    #[test]
    fn the_result_is_read_as_the_full_parse_reads_it() {
        let got = answer(Method::PromptsList, r#" { "prompts" : [1] , "x":1, "prompts":[2] } "#);
        assert_eq!(got, Some((r#"{"jsonrpc":"2.0","id":9,"result":{"prompts":[2],"x":1}}"#.into(), 0)));
        let got = answer(Method::ToolsList, r#"{"tools":[{"name":"a","inputSchema":{"type":"array"}}]}"#);
        let want =
            r#"{"jsonrpc":"2.0","id":9,"result":{"tools":[{"name":"a","inputSchema":{"type":"array","items":{}}}]}}"#;
        assert_eq!(got, Some((want.into(), 1)));
        for (method, result) in [
            (Method::PromptsList, "[]"),
            (Method::PromptsList, r#""text""#),
            (Method::ToolsList, r#"{"tools":[],"tools":[{"name":"a","inputSchema":{"type":"array"}}]}"#),
        ] {
            assert_eq!(answer(method, result), None, "{result}");
        }
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
