//! A reader of JSON text that serde_json has already checked: it finds
//! where each value, member name and item starts and ends, and builds
//! nothing.
//!
//! The text of a big list is checked by `raw::read` (the whole line
//! parsed by serde_json, at most 127 levels, no surrogate escape), so this
//! reader need not check the grammar again: it follows the structure from
//! byte to byte and skips each string to its closing quote
//! (`framing::skip_string`, shared with the depth pre-scan).
//! Building the schemas as trees with serde_json's seeds, and writing them
//! again, was most of the time of a list of 2,000 repaired tools.
//!
//! It still refuses (`None`) whatever it does not expect, and never reads
//! past the end: text that is not checked JSON gets no answer, not a
//! panic. Whatever it refuses goes to the full path.

use crate::jsonrpc::skip_string;
use std::borrow::Cow;

/// The JSON text of one checked value. A `str`, so that a string without
/// escapes is a slice of it, with no second check of its UTF-8.
#[derive(Clone, Copy)]
pub(crate) struct Text<'a> {
    text: &'a str,
}

/// Where the reader is within an object or an array.
pub(crate) enum Step {
    /// A member name or an item starts here.
    Item(usize),
    /// The object or the array ended; the offset after its last byte.
    End(usize),
}

impl<'a> Text<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Text { text }
    }

    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// The text from `start` to `end`.
    pub(crate) fn get(&self, start: usize, end: usize) -> Option<&'a str> {
        self.text.get(start..end)
    }

    /// The byte at `at`.
    pub(crate) fn byte(&self, at: usize) -> Option<u8> {
        self.bytes().get(at).copied()
    }

    /// The offset of the first byte at or after `at` that is no
    /// whitespace.
    pub(crate) fn skip_space(&self, mut at: usize) -> usize {
        while matches!(self.byte(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            at += 1;
        }
        at
    }

    /// The first member or item of the object or array that opens at `at`.
    pub(crate) fn open(&self, at: usize) -> Option<Step> {
        let close = match self.byte(at)? {
            b'{' => b'}',
            b'[' => b']',
            _ => return None,
        };
        let first = self.skip_space(at + 1);
        if self.byte(first)? == close {
            return Some(Step::End(first + 1));
        }
        Some(Step::Item(first))
    }

    /// The next member or item after a value that ended at `end`, within an
    /// object or array that `close` closes.
    pub(crate) fn next(&self, end: usize, close: u8) -> Option<Step> {
        let at = self.skip_space(end);
        match self.byte(at)? {
            b',' => Some(Step::Item(self.skip_space(at + 1))),
            byte if byte == close => Some(Step::End(at + 1)),
            _ => None,
        }
    }

    /// The member name at `at`, and where its value starts.
    pub(crate) fn name(&self, at: usize) -> Option<(Cow<'a, str>, usize)> {
        if self.byte(at)? != b'"' {
            return None;
        }
        let (end, escaped) = self.string_end(at)?;
        let name = self.decode(at, end, escaped)?;
        let colon = self.skip_space(end);
        if self.byte(colon)? != b':' {
            return None;
        }
        Some((name, self.skip_space(colon + 1)))
    }

    /// The string whose JSON text starts at `at`, and the offset after it.
    pub(crate) fn string(&self, at: usize) -> Option<(Cow<'a, str>, usize)> {
        if self.byte(at)? != b'"' {
            return None;
        }
        let (end, escaped) = self.string_end(at)?;
        Some((self.decode(at, end, escaped)?, end))
    }

    /// The string whose JSON text is `start..end`, quotes included: a slice
    /// of the text when it has no escape, else decoded.
    fn decode(&self, start: usize, end: usize, escaped: bool) -> Option<Cow<'a, str>> {
        if !escaped {
            return self.get(start + 1, end.checked_sub(1)?).map(Cow::Borrowed);
        }
        serde_json::from_str::<String>(self.get(start, end)?).ok().map(Cow::Owned)
    }

    /// The offset after the value that starts at `at`.
    pub(crate) fn value_end(&self, at: usize) -> Option<usize> {
        match self.byte(at)? {
            b'"' => self.string_end(at).map(|(end, _)| end),
            b'{' | b'[' => self.container_end(at),
            b't' | b'n' => Some(at + 4),
            b'f' => Some(at + 5),
            _ => {
                let mut end = at;
                while matches!(self.byte(end), Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')) {
                    end += 1;
                }
                (end > at).then_some(end)
            }
        }
    }

    /// The `type` of the value at `at` as the full parse reads
    /// `value["type"].as_str()`: the last `type` member counts, its string
    /// decoded; `None` when the value is no object or that member is no
    /// string. Also the offset after the value.
    pub(crate) fn type_of(&self, at: usize) -> Option<(Option<Cow<'a, str>>, usize)> {
        if self.byte(at)? != b'{' {
            return Some((None, self.value_end(at)?));
        }
        let mut kind = None;
        let mut step = self.open(at)?;
        while let Step::Item(member) = step {
            let (name, value) = self.name(member)?;
            let end = match (name == "type", self.byte(value)?) {
                (true, b'"') => {
                    let (string, end) = self.string(value)?;
                    kind = Some(string);
                    end
                }
                (is_type, _) => {
                    if is_type {
                        kind = None;
                    }
                    self.value_end(value)?
                }
            };
            step = self.next(end, b'}')?;
        }
        match step {
            Step::End(end) => Some((kind, end)),
            Step::Item(_) => None,
        }
    }

    /// The offset after the quote that closes the string opening at `at`,
    /// and whether the string has an escape.
    fn string_end(&self, at: usize) -> Option<(usize, bool)> {
        skip_string(self.bytes(), at + 1)
    }

    /// The offset after the bracket that closes the one at `at`.
    fn container_end(&self, at: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut from = at;
        loop {
            match self.byte(from)? {
                b'"' => from = self.string_end(from)?.0,
                b'{' | b'[' => {
                    depth += 1;
                    from += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    from += 1;
                    if depth == 0 {
                        return Some(from);
                    }
                }
                _ => from += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each value of a checked text ends where serde_json ends it.
    #[test]
    fn each_value_ends_where_it_ends() {
        for (text, value) in [
            (r#""a\"b\\" ,"#, r#""a\"b\\""#),
            (r#"{"a":[1,{"b":"}]"}],"c":"\\"} x"#, r#"{"a":[1,{"b":"}]"}],"c":"\\"}"#),
            ("[ ] ", "[ ]"),
            ("true,", "true"),
            ("false]", "false"),
            ("null}", "null"),
            ("-1.5e+3,", "-1.5e+3"),
            ("0 ", "0"),
        ] {
            assert_eq!(Text::new(text).value_end(0), Some(value.len()), "{text}");
        }
    }

    /// What is not checked JSON gets no answer, and no panic.
    #[test]
    fn a_broken_text_is_refused() {
        for text in [r#""abc"#, r#""ab\"#, "[1,2", "{", "", "x", "]"] {
            assert_eq!(Text::new(text).value_end(0), None, "{text}");
        }
        let text = Text::new(r#"{"a" 1}"#);
        assert!(text.name(1).is_none());
        assert!(Text::new("[1 2]").next(2, b']').is_none());
        assert!(Text::new("[1").next(2, b']').is_none());
        assert!(Text::new("1").open(0).is_none());
    }

    /// An object's type is its last `type` member, when a string, decoded;
    /// anything else has none. The offset after the value comes with it.
    #[test]
    fn the_type_of_an_object_is_its_last_type_member() {
        for (text, want) in [
            (r#"{"type":"text"}"#, true),
            (r#"{ "x" : {"type":"image"} , "type" : "t\u0065xt" }"#, true),
            (r#"{"type":"image","type":"text"}"#, true),
            (r#"{"type":"text","type":"image"}"#, false),
            (r#"{"type":"text","type":1}"#, false),
            (r#"{"type":"text","x":1}"#, true),
            (r#"{"t\u0079pe":"text"}"#, true),
            (r#"{"type":"texts"}"#, false),
            (r#"{"type":["text"]}"#, false),
            (r#"{"x":{"type":"text"}}"#, false),
            ("{}", false),
            (r#"["text"]"#, false),
            (r#""text""#, false),
            ("1.5", false),
        ] {
            let (kind, end) = Text::new(text).type_of(0).unwrap_or_default();
            assert_eq!((kind.as_deref() == Some("text"), end), (want, text.len()), "{text}");
        }
        assert_eq!(Text::new(r#"{"type":"text""#).type_of(0), None);
    }

    /// Members and items are found in order, names decoded when they have
    /// escapes.
    #[test]
    fn members_and_items_are_read_in_order() {
        let text = Text::new(r#" { "k\u0065y" : [ 1 , "x" ] , "b":{ } } "#);
        let Some(Step::Item(first)) = text.open(1) else { panic!("no first member") };
        let (name, value) = text.name(first).unwrap_or_default();
        assert_eq!(name, "key");
        let Some(Step::Item(one)) = text.open(value) else { panic!("no first item") };
        assert_eq!(text.value_end(one), Some(one + 1));
        let Some(Step::Item(x)) = text.next(one + 1, b']') else { panic!("no second item") };
        assert_eq!(text.string(x), Some(("x".into(), x + 3)));
        let Some(Step::End(array_end)) = text.next(x + 3, b']') else { panic!("the array goes on") };
        let Some(Step::Item(second)) = text.next(array_end, b'}') else { panic!("no second member") };
        let (name, value) = text.name(second).unwrap_or_default();
        assert_eq!(name, "b");
        let Some(Step::End(empty_end)) = text.open(value) else { panic!("the empty object has a member") };
        assert!(matches!(text.next(empty_end, b'}'), Some(Step::End(end)) if end == text.bytes().len() - 1));
    }
}
