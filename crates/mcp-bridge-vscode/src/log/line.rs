//! One event, one line: the last gate of the product's log. The library
//! escapes every outside text it logs (its gate of outside text); this
//! writer also escapes a line break that reaches a field anyway, so that no
//! text, from any crate, can write a line of its own into the Output
//! channel of the server.

use std::fmt::{self, Write};

/// Writes through to `W`, with CR, LF and the other line breaks of a
/// reader (U+0085, U+2028, U+2029) as escapes.
pub struct OneLine<W>(pub W);

impl<W: Write> Write for OneLine<W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        // A line break is CR, LF, or a character whose UTF-8 starts with
        // C2 (U+0085) or E2 (U+2028, U+2029): most text has none of them.
        if !text.bytes().any(|b| matches!(b, b'\n' | b'\r' | 0xc2 | 0xe2)) {
            return self.0.write_str(text);
        }
        for c in text.chars() {
            match c {
                '\n' => self.0.write_str("\\n")?,
                '\r' => self.0.write_str("\\r")?,
                '\u{85}' | '\u{2028}' | '\u{2029}' => write!(self.0, "\\u{{{:x}}}", u32::from(c))?,
                c => self.0.write_char(c)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::OneLine;
    use std::fmt::Write;

    #[test]
    fn every_line_break_is_written_as_an_escape() {
        let mut out = String::new();
        let _ = write!(OneLine(&mut out), "a\nb\r\nc\u{85}d\u{2028}e\u{2029}f é ✓");
        assert_eq!(out, "a\\nb\\r\\nc\\u{85}d\\u{2028}e\\u{2029}f é ✓");
    }
}
