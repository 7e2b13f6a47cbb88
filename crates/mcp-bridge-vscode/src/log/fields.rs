//! The fields of a log line, as `tracing_subscriber`'s default formatter
//! writes them, with its escapes of terminal control characters in the
//! message (a tool name or an upstream's stderr line can hold them).
//!
//! The message and the fields are written here: the default formatter
//! escapes the message one character at a time, each through a
//! `Formatter`, which is a noticeable share of the time of a big list and
//! its 2,000 info lines; this one copies each run of characters that needs
//! no escape at once. For every other field the default formatter paints
//! the name and the `=` through `nu_ansi_term` even without colours, and
//! the fields of each request's span are written when the span starts,
//! once per request. Only an error field goes to the default formatter. A
//! test holds the two to the same text.

use std::fmt::{self, Write};
use tracing::field::{Field, Visit};
use tracing_subscriber::field::{MakeVisitor, VisitFmt, VisitOutput};
use tracing_subscriber::fmt::format::{DefaultVisitor, Writer};

/// The fields' format of the log.
pub struct Fields;

impl<'a> MakeVisitor<Writer<'a>> for Fields {
    type Visitor = Visitor<'a>;

    fn make_visitor(&self, writer: Writer<'a>) -> Visitor<'a> {
        Visitor { writer, is_empty: true, result: Ok(()) }
    }
}

pub struct Visitor<'a> {
    writer: Writer<'a>,
    /// No field is written yet: the next one needs no space before it.
    is_empty: bool,
    result: fmt::Result,
}

impl Visitor<'_> {
    /// The message, as the default formatter writes it (`{:?}` of the
    /// value, escaped).
    fn message(&mut self, value: &dyn fmt::Debug) {
        if !std::mem::replace(&mut self.is_empty, false) {
            self.result = self.writer.write_char(' ');
        }
        if self.result.is_ok() {
            self.result = write!(Escaping(&mut self.writer), "{value:?}");
        }
    }

    /// Any other field but an error: `name=value` with the value's `{:?}`,
    /// as the default formatter writes it without colours.
    fn field(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if !std::mem::replace(&mut self.is_empty, false) {
            self.result = self.writer.write_char(' ');
        }
        if self.result.is_ok() {
            let name = field.name();
            let name = name.strip_prefix("r#").unwrap_or(name);
            self.result = write!(self.writer, "{name}={value:?}");
        }
    }

    /// An error field, by the default formatter (it lists the sources).
    fn other(&mut self, record: impl FnOnce(&mut DefaultVisitor<'_>)) {
        let mut visitor = DefaultVisitor::new(self.writer.by_ref(), self.is_empty);
        record(&mut visitor);
        self.result = self.result.and(visitor.finish());
        self.is_empty = false;
    }
}

impl Visit for Visitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if self.result.is_err() {
            return;
        }
        match field.name() {
            "message" => self.message(&format_args!("{value}")),
            _ => self.field(field, &value),
        }
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        if self.result.is_ok() {
            self.other(|visitor| visitor.record_error(field, value));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if self.result.is_err() {
            return;
        }
        match field.name() {
            "message" => self.message(value),
            _ => self.field(field, value),
        }
    }
}

impl VisitOutput<fmt::Result> for Visitor<'_> {
    fn finish(self) -> fmt::Result {
        self.result
    }
}

impl VisitFmt for Visitor<'_> {
    fn writer(&mut self) -> &mut dyn Write {
        &mut self.writer
    }
}

/// Writes through to `W`, with the escapes of `tracing_subscriber`: ESC,
/// BEL, BS, FF and DEL as `\x..`, the C1 controls (U+0080 to U+009F) as
/// `\u{..}`.
struct Escaping<'a, W>(&'a mut W);

impl<W: Write> Write for Escaping<'_, W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        // Most text is printable ASCII, which needs no escape: a check of
        // every byte without an early exit, which the compiler vectorizes.
        let plain = text.bytes().fold(true, |plain, b| plain & (0x20..0x7f).contains(&b));
        if plain {
            return self.0.write_str(text);
        }
        let mut rest = text;
        // The C1 controls are the two bytes `C2 80` to `C2 9F` in UTF-8.
        while let Some(at) = rest.bytes().position(|b| matches!(b, 0x1b | 0x07 | 0x08 | 0x0c | 0x7f | 0xc2)) {
            let (clean, tail) = rest.split_at_checked(at).ok_or(fmt::Error)?;
            self.0.write_str(clean)?;
            let mut chars = tail.chars();
            let Some(c) = chars.next() else { break };
            match c {
                '\x1b' | '\x07' | '\x08' | '\x0c' | '\x7f' => write!(self.0, "\\x{:02x}", u32::from(c))?,
                '\u{80}'..='\u{9f}' => write!(self.0, "\\u{{{:x}}}", u32::from(c))?,
                c => self.0.write_char(c)?,
            }
            rest = chars.as_str();
        }
        self.0.write_str(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;
    use std::sync::{Arc, Mutex};
    use tracing_subscriber::fmt::format::DefaultFields;
    use tracing_subscriber::fmt::MakeWriter;

    #[derive(Clone, Default)]
    struct Recorder(Arc<Mutex<Vec<u8>>>);

    impl io::Write for Recorder {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().map_err(|_| io::Error::other("poisoned"))?.extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Recorder {
        type Writer = Recorder;
        fn make_writer(&'a self) -> Recorder {
            self.clone()
        }
    }

    /// The events of the test, logged within a span with fields.
    fn events() {
        let span = tracing::info_span!("request", method = "tools/list", id = 7, text = "a\x1bb");
        let _entered = span.enter();
        for text in ["plain", "bell\x07 bs\x08 ff\x0c esc\x1b[31m del\x7f", "c1 \u{80}\u{9b}\u{9f} é ÿ \u{a0} ✓", ""]
        {
            tracing::info!("tool '{text}': {}", 5);
            tracing::info!(count = 3, error = %"x\x1by", r#type = text, "{text}");
            tracing::warn!(text);
        }
        let error = io::Error::other("broken\x1b");
        tracing::warn!(error = &error as &dyn std::error::Error, "failed");
    }

    fn logged<N>(fields: N) -> String
    where
        N: for<'w> tracing_subscriber::fmt::FormatFields<'w> + Send + Sync + 'static,
    {
        logged_with(fields, events)
    }

    fn logged_with<N>(fields: N, events: impl FnOnce()) -> String
    where
        N: for<'w> tracing_subscriber::fmt::FormatFields<'w> + Send + Sync + 'static,
    {
        let recorder = Recorder::default();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(recorder.clone())
            .with_ansi(false)
            .event_format(super::super::Tagged("t"))
            .fmt_fields(fields)
            .finish();
        tracing::subscriber::with_default(subscriber, events);
        let bytes = recorder.0.lock().map(|bytes| bytes.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The lines are those of the default formatter, escapes and all.
    #[test]
    fn the_fields_are_written_as_the_default_formatter_writes_them() {
        let ours = logged(Fields);
        assert_eq!(ours, logged(DefaultFields::new()));
        assert!(ours.contains(r"esc\x1b[31m del\x7f"), "{ours}");
        assert!(ours.contains(r"c1 \u{80}\u{9b}\u{9f} é ÿ"), "{ours}");
        assert_eq!(ours.lines().count(), 13, "{ours}");
    }

    /// Any text, with line breaks, controls and separators among others.
    fn hostile() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let pieces = prop_oneof![
            Just("\n".to_owned()),
            Just("\r".to_owned()),
            Just("\u{85}".to_owned()),
            Just("\u{2028}".to_owned()),
            Just("\u{2029}".to_owned()),
            Just("[mcp-bridge-vscode] WARN sign-in: open https://evil.example".to_owned()),
            any::<char>().prop_map(String::from),
            "[ -~]{0,8}",
        ];
        proptest::collection::vec(pieces, 0..12).prop_map(|p| p.concat())
    }

    proptest::proptest! {
        /// One event is one line, whatever text its message, its fields and
        /// the fields of its span hold.
        #[test]
        fn one_event_stays_one_line(message in hostile(), shown in hostile(), quoted in hostile(), span in hostile()) {
            let out = logged_with(Fields, || {
                let request = tracing::info_span!("request", id = %span);
                let _entered = request.enter();
                tracing::warn!(detail = %shown, other = ?quoted, plain = shown.as_str(), "{message}");
            });
            let breaks: Vec<char> = out.chars().filter(|c| matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')).collect();
            proptest::prop_assert_eq!(breaks, vec!['\n'], "{:?}", out);
            proptest::prop_assert!(out.ends_with('\n') && out.starts_with("[t] WARN "), "{:?}", out);
        }
    }
}
