//! The gate of text from outside: what a server, an authorization server, a
//! child process or a client wrote, on its way into a log line, a message
//! or `data.detail`.
//!
//! Such a text can hold a line break that writes a line of its own into the
//! log (VS Code's Output channel, where the README sends users to read the
//! sign-in line), a terminal escape, a bidirectional override that shows
//! the line in another order, or pages of text. The gate writes every such
//! character as an escape (`\n`, `\x1b`, `\u{202e}`) and cuts the text at the
//! bound of its field, with `…` where it cut. It never allocates for text
//! that needs nothing: [`Shown`] writes through a formatter.

use std::fmt::{self, Write};

/// The bound of a server's text in `data.detail` or in a message of the
/// bridge (an upstream message, an OAuth error code).
pub const DETAIL: usize = 200;
/// The bound of a name in a log line or a note: a method, a tool, the key
/// of an input request, a URI.
pub const NAME: usize = 200;
/// The bound of a JSON pointer into a tool's schema in a note: the R6 walk
/// stops at 64 levels, whose names come from the server.
pub(crate) const POINTER: usize = 1024;
/// The bound of one line of the child's stderr in the log (the line reader
/// keeps 16 KiB of it already).
pub const LINE: usize = 16 * 1024;

/// A text from outside, shown within its bound: see the module doc.
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a> {
    text: &'a str,
    bound: usize,
}

/// The text as a log line, a message or a detail may show it.
pub fn shown(text: &str, bound: usize) -> Shown<'_> {
    Shown { text, bound }
}

/// [`shown`] as a `String`, for a detail or a message.
pub(crate) fn escape(text: &str, bound: usize) -> String {
    shown(text, bound).to_string()
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Most text is short printable ASCII: one write, no walk.
        if self.text.len() <= self.bound && self.text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return f.write_str(self.text);
        }
        for (count, c) in self.text.chars().enumerate() {
            if count == self.bound {
                return f.write_char('…');
            }
            write_char(f, c)?;
        }
        Ok(())
    }
}

/// One character, escaped when it is a control, a line or paragraph
/// separator, or a bidirectional format character.
fn write_char(f: &mut fmt::Formatter<'_>, c: char) -> fmt::Result {
    match c {
        '\n' => f.write_str("\\n"),
        '\r' => f.write_str("\\r"),
        '\t' => f.write_str("\\t"),
        c if u32::from(c) < 0x20 || c == '\x7f' => write!(f, "\\x{:02x}", u32::from(c)),
        c if needs_escape(c) => write!(f, "\\u{{{:x}}}", u32::from(c)),
        c => f.write_char(c),
    }
}

/// The characters above ASCII that must not reach a line as themselves: the
/// C1 controls (U+0085 is a line break to some readers), the line and
/// paragraph separators, every format character of Unicode (category Cf:
/// the bidirectional marks, embeddings, overrides and isolates, the
/// zero-width space and joiners, the byte order mark, the soft hyphen, the
/// invisible operators, the tag characters that can smuggle a hidden text
/// into a line), and the other characters that show nothing: the variation
/// selectors (the Mongolian ones too), the combining grapheme joiner, the
/// Hangul and Khmer fillers, and the whole tag block.
fn needs_escape(c: char) -> bool {
    matches!(
        c,
        '\u{80}'..='\u{9f}'
            | '\u{ad}'
            | '\u{34f}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{115f}'..='\u{1160}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e007f}'
            | '\u{e0100}'..='\u{e01ef}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of character that could break a line or hide its order is
    /// written as an escape; plain text, quotes and backslashes stay.
    #[test]
    fn every_breaking_character_is_escaped_and_plain_text_stays() {
        for (text, shown) in [
            ("invalid_grant", "invalid_grant"),
            ("a\nb\rc\td", "a\\nb\\rc\\td"),
            ("\u{1b}[31mred\u{7}\u{7f}", "\\x1b[31mred\\x07\\x7f"),
            ("nel\u{85}ls\u{2028}ps\u{2029}", "nel\\u{85}ls\\u{2028}ps\\u{2029}"),
            ("\u{202e}evil\u{2066}\u{200f}", "\\u{202e}evil\\u{2066}\\u{200f}"),
            ("zero\u{200b}width\u{feff}\u{2060}", "zero\\u{200b}width\\u{feff}\\u{2060}"),
            // Hidden by other means: a tag text, a soft hyphen, an invisible
            // operator, a variation selector, a filler, a Mongolian separator.
            ("tag\u{e0041}\u{e0042} soft\u{ad}hy", "tag\\u{e0041}\\u{e0042} soft\\u{ad}hy"),
            ("\u{e0000}\u{e0002}\u{e001f} m\u{180b}\u{180f}", "\\u{e0000}\\u{e0002}\\u{e001f} m\\u{180b}\\u{180f}"),
            (
                "f\u{2061}x \u{fe0f}\u{e0100} \u{3164}\u{180e}\u{34f}",
                "f\\u{2061}x \\u{fe0f}\\u{e0100} \\u{3164}\\u{180e}\\u{34f}",
            ),
            ("é 中 \"q\" \\", "é 中 \"q\" \\"),
            ("", ""),
        ] {
            assert_eq!(escape(text, DETAIL), shown, "{text:?}");
        }
    }

    /// The bound counts the characters of the text, and the cut never
    /// splits a character.
    #[test]
    fn a_text_longer_than_its_bound_is_cut_with_an_ellipsis() {
        assert_eq!(escape(&"x".repeat(200), DETAIL), "x".repeat(200));
        assert_eq!(escape(&"x".repeat(201), DETAIL), format!("{}…", "x".repeat(200)));
        assert_eq!(escape("ééé", 2), "éé…");
        assert_eq!(escape("a\nb", 2), "a\\n…");
    }

    proptest::proptest! {
        /// Whatever the text, what the gate shows holds no control
        /// character, no line or paragraph separator and no bidirectional
        /// format character, and at most its bound and the ellipsis.
        #[test]
        fn no_text_leaves_the_gate_with_a_breaking_character(text in "\\PC{0,40}|(.|\n|\r|\u{85}|\u{2028}|\u{202e}|\u{e0041}|\u{ad}|\u{fe0f}){0,40}", bound in 1usize..50) {
            let out = escape(&text, bound);
            proptest::prop_assert!(!out.chars().any(|c| c.is_control() || needs_escape(c)), "{:?}", out);
            let kept = text.chars().count().min(bound);
            proptest::prop_assert!(out.chars().count() <= 10 * kept + 1, "{:?}", out);
            proptest::prop_assert_eq!(out.ends_with('…'), text.chars().count() > bound);
        }
    }
}
