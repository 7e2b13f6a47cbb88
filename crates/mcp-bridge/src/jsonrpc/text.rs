//! The JSON text of a message, as the writers send it.

/// The JSON text of a message, with room for the `\n` that the writer
/// adds. `serde_json::to_writer` into a `Vec` writes the bytes straight
/// into it; `Value::to_string` went through `fmt::Write`, a call per
/// piece, and left no room for the newline (a second copy of a 32 MiB line
/// when its `Vec` was exactly full). The text is the same byte for byte.
pub(crate) fn json_line(message: &serde_json::Value) -> Vec<u8> {
    let mut line = Vec::with_capacity(128);
    append_json(&mut line, message);
    line.reserve_exact(1);
    line
}

/// Appends the JSON text of a value to a line.
pub(crate) fn append_json(line: &mut Vec<u8>, value: &serde_json::Value) {
    let start = line.len();
    if serde_json::to_writer(&mut *line, value).is_err() {
        // Serializing a `Value` into a `Vec` cannot fail (its keys are
        // strings, and a `Vec` takes every write); the `Display` text is
        // the same JSON, should it ever do.
        line.truncate(start);
        line.extend_from_slice(value.to_string().as_bytes());
    }
}
