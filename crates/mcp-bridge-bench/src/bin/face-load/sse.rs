//! The events of an SSE body as they arrive, for the answers of Streamable
//! HTTP: only the `data` of each event matters here (ids, `retry` and
//! comments are skipped; an event without data, such as the priming event
//! of 2025-11-25, is no message).

/// Reads chunks of an event stream and gives each event's data.
#[derive(Default)]
pub struct Events {
    /// The bytes after the last whole line.
    partial: Vec<u8>,
    /// The data lines of the event being read, joined by newlines.
    data: String,
    has_data: bool,
}

impl Events {
    /// Feeds a chunk; calls `each` with the data of every event it ends.
    pub fn feed(&mut self, chunk: &[u8], mut each: impl FnMut(&str)) {
        self.partial.extend_from_slice(chunk);
        let mut start = 0;
        while let Some(end) = self.partial[start..].iter().position(|&b| b == b'\n') {
            let line_end = start + end;
            let line = &self.partial[start..line_end];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                if self.has_data {
                    each(&self.data);
                }
                self.data.clear();
                self.has_data = false;
            } else if let Some(value) = line.strip_prefix(b"data:") {
                let value = value.strip_prefix(b" ").unwrap_or(value);
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&String::from_utf8_lossy(value));
                self.has_data = true;
            }
            start = line_end + 1;
        }
        self.partial.drain(..start);
    }
}

#[cfg(test)]
mod tests {
    use super::Events;

    #[test]
    fn skips_the_priming_event_and_joins_split_chunks() {
        let mut events = Events::default();
        let mut seen = Vec::new();
        events.feed(b"retry: 1000\nid: s1-0\ndata: \n\nid: s1-1\nevent: message\nda", |d| seen.push(d.to_owned()));
        events.feed(b"ta: {\"id\":2}\r\n\r\n", |d| seen.push(d.to_owned()));
        // The priming event's data is empty, which is still data: the
        // caller skips what does not parse as a message.
        assert_eq!(seen, ["", "{\"id\":2}"]);
    }
}
