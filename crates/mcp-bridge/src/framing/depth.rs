//! The nesting-depth pre-scan: it walks the bytes once, without
//! allocating, before `serde_json` builds anything.

/// Whether the JSON text nests objects and arrays deeper than `max`.
/// Brackets inside strings do not count. The text need not be valid: a
/// broken line is found by the parser after this scan.
pub fn exceeds_depth(bytes: &[u8], max: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
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
    }
}
