//! The nesting-depth pre-scan: it walks the bytes once, without
//! allocating, before `serde_json` builds anything.

/// Whether the JSON text nests objects and arrays deeper than `max`.
/// Brackets inside strings do not count. The text need not be valid: a
/// broken line is found by the parser after this scan.
pub fn exceeds_depth(bytes: &[u8], max: usize) -> bool {
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        at += 1;
        match b {
            // A string is skipped to its closing quote with `memchr`: the
            // text of a big result is one long string, and a byte loop
            // over it was most of the cost of a 16 MiB line.
            b'"' => at = string_end(bytes, at),
            b'{' | b'[' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The offset after the quote that closes the string whose text starts at
/// `at`, or the length of `bytes` when it is not closed. A backslash
/// escapes the byte after it, whatever it is.
fn string_end(bytes: &[u8], mut at: usize) -> usize {
    loop {
        let Some(rest) = bytes.get(at..) else { return bytes.len() };
        match memchr::memchr2(b'"', b'\\', rest) {
            None => return bytes.len(),
            Some(found) if rest[found] == b'"' => return at + found + 1,
            Some(found) => at += found + 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::exceeds_depth;

    fn nested(levels: usize) -> String {
        format!("{}{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn sixty_four_levels_pass_and_sixty_five_do_not() {
        let cases: &[(&str, bool)] = &[
            (&nested(64), false),
            (&nested(65), true),
            ("{\"a\":\"[[[[[[[[[[\"}", false),
            ("{\"a\":\"\\\"[[[\"}", false),
            ("", false),
        ];
        for (text, expected) in cases {
            assert_eq!(exceeds_depth(text.as_bytes(), 64), *expected, "{text}");
        }
        assert!(exceeds_depth(b"{\"a\":{\"b\":[1]}}", 2));
        assert!(!exceeds_depth(b"{\"a\":{\"b\":[1]}}", 3));
        // The string skip: an escaped backslash ends the escape, an escaped
        // quote does not end the string, an open string hides the rest.
        assert!(!exceeds_depth(br#"["\\",[[]]]"#, 3));
        assert!(exceeds_depth(br#"["\\",[[[]]]]"#, 3));
        assert!(!exceeds_depth(br#"["\"[[[[[["]"#, 3));
        assert!(!exceeds_depth(br#"["[[[[[["#, 3));
        assert!(!exceeds_depth(br#"["\"#, 3));
    }
}
