//! What a result rule did, for the log and for the `check` report
//! (behaviour spec, "Result rules (M1)", R6: "each change gives one info
//! line").
//!
//! The rules return notes instead of logging them, so that they stay pure
//! and a test can compare the notes like any other output. The caller picks
//! the sink: `frontend::forward` logs each note at its level, and the
//! `check` command prints them.
//!
//! A rule gives a note when it repairs a schema, or when it discards a value
//! of the server that a person may miss. The routine removals that every
//! result of revision 2026-07-28 needs (`resultType`, `ttlMs`, ...) give no
//! note: they would only repeat themselves on each result.

use crate::gate::text;
use std::fmt;

/// How much a note matters. It maps to the level of the log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Level {
    /// A repair for the client: the result is fine after it.
    Info,
    /// The server sent something wrong, and the bridge worked around it.
    Warn,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Info => "info",
            Level::Warn => "warn",
        })
    }
}

/// One note of a result rule.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Note {
    pub level: Level,
    /// The name of the tool the note is about, where there is one.
    pub tool: Option<String>,
    /// The RFC 6901 pointer of the schema, relative to the root of the
    /// tool's `inputSchema` (`""` is the root itself), where there is one.
    pub pointer: Option<String>,
    /// What happened, as a sentence without a final full stop.
    pub text: String,
}

impl Note {
    pub fn info(text: impl Into<String>) -> Self {
        Note { level: Level::Info, tool: None, pointer: None, text: text.into() }
    }

    pub fn warn(text: impl Into<String>) -> Self {
        Note { level: Level::Warn, ..Note::info(text) }
    }

    /// The note is about this tool.
    pub fn for_tool(mut self, tool: Option<&str>) -> Self {
        self.tool = tool.map(str::to_owned);
        self
    }

    /// The note is about the schema at this pointer of the `inputSchema`.
    pub fn at(mut self, pointer: &str) -> Self {
        self.pointer = Some(pointer.to_owned());
        self
    }
}

/// `tool 'search', inputSchema '/properties/tags': <text>`. The level is
/// not part of it: the log line has its own, and a report can print
/// [`Note::level`] where it wants.
///
/// Written piece by piece with `write_str`: a `{}` of a string goes
/// through `Formatter::pad`, which counts characters, and the notes of a
/// big list made that a visible part of the list's time.
impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(tool) = &self.tool {
            f.write_str("tool '")?;
            fmt::Display::fmt(&text::shown(tool, text::NAME), f)?;
            f.write_str(if self.pointer.is_some() { "', " } else { "': " })?;
        }
        if let Some(pointer) = &self.pointer {
            f.write_str("inputSchema '")?;
            fmt::Display::fmt(&text::shown(pointer, text::POINTER), f)?;
            f.write_str("': ")?;
        }
        f.write_str(&self.text)
    }
}

/// Appends `/` and the reference token of a member name to a pointer.
pub(crate) fn push_name(pointer: &mut String, name: &str) {
    pointer.push('/');
    push_token(pointer, name);
}

/// Appends `/` and the reference token of an array index to a pointer.
pub(crate) fn push_index(pointer: &mut String, index: usize) {
    use std::fmt::Write;
    // Writing to a `String` cannot fail.
    let _ = write!(pointer, "/{index}");
}

/// Appends the RFC 6901 reference token of `token` to `out`: `~` becomes
/// `~0`, `/` becomes `~1` (one pass, so a `/` never turns into `~01`). No
/// `String` of its own: the R6 walk does it at each step.
pub(crate) fn push_token(out: &mut String, token: &str) {
    // Most tokens (property names, indexes) need no escape.
    if !token.bytes().any(|byte| byte == b'~' || byte == b'/') {
        return out.push_str(token);
    }
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}
