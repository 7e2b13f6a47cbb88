//! The revisions of MCP that the bridge serves to its client.

use std::fmt;

/// A revision of MCP that the bridge serves to its client (the client's
/// `protocolVersion` in `initialize`). Older revisions lack members that
/// newer ones added; the bridge sends a client only what its revision
/// defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Revision {
    /// 2024-11-05.
    V2024_11_05,
    /// 2025-03-26: tool annotations, audio content, the `completions`
    /// capability, the `message` of progress.
    V2025_03_26,
    /// 2025-06-18: structured tool output, elicitation, resource links,
    /// `title` fields.
    V2025_06_18,
    /// 2025-11-25, VS Code's: icons, URL elicitation, titled and
    /// multi-select enums and defaults in forms, the `description` and
    /// `websiteUrl` of an implementation.
    V2025_11_25,
}

impl Revision {
    /// Every revision the bridge serves, oldest first.
    pub const ALL: [Revision; 4] =
        [Revision::V2024_11_05, Revision::V2025_03_26, Revision::V2025_06_18, Revision::V2025_11_25];

    /// The newest revision the bridge serves.
    pub const LATEST: Revision = Revision::V2025_11_25;

    /// The revision of a `protocolVersion`, when the bridge serves it.
    pub fn parse(version: &str) -> Option<Revision> {
        Revision::ALL.into_iter().find(|r| r.as_str() == version)
    }

    /// Whether a client of the revision may send JSON-RPC batches: only
    /// 2025-03-26 defines them (2025-06-18 removed them again).
    pub(crate) fn takes_batches(self) -> bool {
        self == Revision::V2025_03_26
    }

    /// The `protocolVersion` of the revision.
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2024_11_05 => "2024-11-05",
            Revision::V2025_03_26 => "2025-03-26",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_11_25 => "2025-11-25",
        }
    }
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Revision;

    #[test]
    fn each_revision_reads_back_from_its_version_and_no_other_is_served() {
        for revision in Revision::ALL {
            assert_eq!(Revision::parse(revision.as_str()), Some(revision));
        }
        for other in ["2026-07-28", "2024-10-07", "2025-11-25 ", "", "latest"] {
            assert_eq!(Revision::parse(other), None, "{other}");
        }
        assert!(Revision::ALL.windows(2).all(|w| w[0] < w[1]), "oldest first");
    }
}
