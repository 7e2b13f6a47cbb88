//! The nesting-depth pre-scan: it walks the bytes once, without
//! allocating, before `serde_json` builds anything.

/// The most levels `serde_json` parses: its recursion limit of 128 fails
/// at the 128th level. A test of `framing` holds it to that.
pub(crate) const PARSER_MAX_DEPTH: usize = 127;

/// Whether the JSON text nests objects and arrays deeper than `max`.
/// Brackets inside strings do not count. The text need not be valid: a
/// broken line is found by the parser after this scan.
pub(crate) fn exceeds_depth(bytes: &[u8], max: usize) -> bool {
    // A text with no more opening brackets than `max`, in strings or not,
    // cannot nest deeper: most lines end here, after a vectorized count.
    if memchr::memchr2_iter(b'{', b'[', bytes).take(max.saturating_add(1)).count() <= max {
        return false;
    }
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        at += 1;
        match b {
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
/// `at`, or the length of `bytes` when it is not closed.
fn string_end(bytes: &[u8], at: usize) -> usize {
    skip_string(bytes, at).map_or(bytes.len(), |(end, _)| end)
}

/// The bytes of a string looked at one by one before `memchr` takes over
/// (see [`skip_string`]).
const SHORT: usize = 32;

/// The offset after the quote that closes the string whose text starts at
/// `at` (after its opening quote), and whether it has an escape; `None`
/// when it is not closed. A backslash escapes the byte after it, whatever
/// it is.
///
/// A string is skipped with `memchr`: the text of a big result is one long
/// string, and a byte loop over it was most of the cost of a 16 MiB line.
/// Most strings of a big list are short names, though, where `memchr`'s
/// start costs more than the string: their first bytes are looked at one
/// by one.
pub(crate) fn skip_string(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    let mut from = at;
    let mut escaped = false;
    let short = at.saturating_add(SHORT).min(bytes.len());
    while from < short {
        match bytes.get(from)? {
            b'"' => return Some((from + 1, escaped)),
            b'\\' => {
                escaped = true;
                from += 2;
            }
            _ => from += 1,
        }
    }
    loop {
        let rest = bytes.get(from..)?;
        let found = memchr::memchr2(b'"', b'\\', rest)?;
        if rest.get(found) == Some(&b'"') {
            return Some((from + found + 1, escaped));
        }
        escaped = true;
        from += found + 2;
    }
}

#[cfg(test)]
mod tests {
    use super::{exceeds_depth, skip_string, SHORT};

    /// The end of a string one byte at a time: the model of `skip_string`.
    fn model(bytes: &[u8], mut at: usize) -> Option<(usize, bool)> {
        let mut escaped = false;
        loop {
            match bytes.get(at)? {
                b'"' => return Some((at + 1, escaped)),
                b'\\' => {
                    escaped = true;
                    at += 2;
                }
                _ => at += 1,
            }
        }
    }

    /// Strings shorter and longer than the bytes looked at one by one, with
    /// an escape at each place, closed or not: the same end as the model.
    #[test]
    fn a_string_ends_at_its_closing_quote_on_both_sides_of_the_short_run() {
        for len in 0..(3 * SHORT) {
            for escape in [None, Some(r#"\""#), Some(r"\\"), Some(r"\n")] {
                for place in 0..=len {
                    let mut text = "a".repeat(len);
                    if let Some(escape) = escape {
                        text.insert_str(place, escape);
                    }
                    for tail in [r#"" x"#, "", r"\"] {
                        let bytes = format!("{text}{tail}");
                        assert_eq!(skip_string(bytes.as_bytes(), 0), model(bytes.as_bytes(), 0), "{bytes}");
                    }
                    if escape.is_none() {
                        break;
                    }
                }
            }
        }
    }

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
        // More brackets than levels, side by side: the count lets the walk
        // decide, and the walk sees two levels.
        assert!(!exceeds_depth(b"[[],[],[],[],[]]", 3));
        assert!(!exceeds_depth(b"[[],[],[],[],[]]", 2));
        assert!(exceeds_depth(b"[[],[],[],[],[[]]]", 2));
    }
}
