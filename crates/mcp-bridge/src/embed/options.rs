//! The options of an embedded connection: the profile and name of the
//! legacy path, what a `server/discover` before the first other request
//! gets, and the limits of both paths.

use crate::framing;
use crate::frontend::MAX_LINE_BYTES;
use crate::profile::Profile;
use std::time::Duration;

/// What a `server/discover` before the first other request gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Discover {
    /// The server answers it; a 2026-07-28 client then sends its next
    /// request and takes the modern path.
    #[default]
    Answer,
    /// -32601 `method_not_found`: a client of both revisions then sends
    /// `initialize` and takes the legacy path.
    Refuse,
}

/// The options of an embedded connection ([`Options::new`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// The profile of the legacy path (for VS Code: its profile).
    pub profile: Profile,
    /// The server name when the server gives none (the legacy path).
    pub name: String,
    pub discover: Discover,
    /// The server's line limit, on the first line and on both paths.
    pub max_line_bytes: usize,
    /// The server's depth limit of a message.
    pub max_depth: usize,
    /// How long the end of the input waits for the requests.
    pub shutdown_grace: Duration,
}

impl Options {
    /// The defaults of the bridge: 64 MiB lines, 64 levels, 2 s of grace,
    /// and `Discover::Answer`.
    pub fn new(profile: Profile, name: impl Into<String>) -> Options {
        Options {
            profile,
            name: name.into(),
            discover: Discover::Answer,
            max_line_bytes: MAX_LINE_BYTES,
            max_depth: framing::MAX_DEPTH,
            shutdown_grace: Duration::from_secs(2),
        }
    }
}
