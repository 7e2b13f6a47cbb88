//! What a result rule did, for the log and for the `check` report. The
//! rules return notes instead of logging, so that they stay pure.

use std::fmt;

/// How much a note matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// A repair the client needs: the result is fine after it.
    Info,
    /// Something wrong with the server that the bridge worked around.
    Warn,
}

/// One note of a result rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub level: Level,
    /// The tool the note is about, where there is one.
    pub tool: Option<String>,
    /// The RFC 6901 pointer of the schema, within the tool's inputSchema.
    pub pointer: Option<String>,
    /// What happened, as a sentence.
    pub text: String,
}

impl Note {
    pub fn info(text: impl Into<String>) -> Self {
        Note { level: Level::Info, tool: None, pointer: None, text: text.into() }
    }

    pub fn warn(text: impl Into<String>) -> Self {
        Note { level: Level::Warn, ..Note::info(text) }
    }

    pub fn for_tool(mut self, tool: &str) -> Self {
        self.tool = Some(tool.to_owned());
        self
    }

    pub fn at(mut self, pointer: &str) -> Self {
        self.pointer = Some(pointer.to_owned());
        self
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.tool, &self.pointer) {
            (Some(tool), Some(pointer)) => write!(f, "tool '{tool}', inputSchema '{pointer}': {}", self.text),
            (Some(tool), None) => write!(f, "tool '{tool}': {}", self.text),
            _ => f.write_str(&self.text),
        }
    }
}

/// An RFC 6901 reference token: `~` becomes `~0` and `/` becomes `~1`.
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
