//! The profile of one bridge product (behaviour spec, "The profile"), and
//! the revisions of MCP it serves to its client.
//!
//! The core never picks a profile from the `clientInfo` of the client: the
//! product (the executable) owns its profile and hands it to every function.
//! The revision is the client's: the one it asks for in `initialize`, when
//! the bridge serves it.

use std::fmt;

/// Which `_meta` keys of the client may reach the upstream server
/// (behaviour spec, "Meta passthrough (M3)").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MetaPassthrough {
    /// Keys allowed as a whole, such as `traceparent`.
    pub keys: Vec<String>,
    /// Prefixes that allow every key starting with them, such as `vscode.`.
    pub prefixes: Vec<String>,
}

impl MetaPassthrough {
    /// Whether the profile lets this key through. The grammar and the
    /// reserved-prefix rules are checked elsewhere, after this.
    pub fn allows(&self, key: &str) -> bool {
        self.keys.iter().any(|k| k == key) || self.prefixes.iter().any(|p| key.starts_with(p))
    }
}

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

/// Repairs a client needs beyond the plain translation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Quirks {
    /// The items rule for array schemas (R6).
    pub normalize_array_items: bool,
    /// Remove each tool `outputSchema` whose root lacks `type: "object"`.
    pub drop_non_object_output_schema: bool,
    /// Remove the values that revision 2025-11-25 does not allow.
    pub strict_legacy_results: bool,
    /// A remote upstream's icons reach the client only as `data:` URIs
    /// (behaviour spec, "Icons of a remote upstream server (M4)": VS Code
    /// gives `file:` icons the trust of a local process).
    pub data_only_remote_icons: bool,
}

impl Quirks {
    /// Whether the raw path of results implements every quirk that is on.
    /// Each field is named here, so that a new quirk cannot be added
    /// without deciding whether the raw path applies it (then it steps
    /// aside for it: the `Value` path applies every quirk).
    pub(crate) fn raw_path_implements(self) -> bool {
        let Quirks {
            normalize_array_items: _,
            drop_non_object_output_schema: _,
            strict_legacy_results: _,
            data_only_remote_icons: _,
        } = self;
        true
    }
}

/// One bridge product: its name, the revision it answers with, and its quirks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Profile {
    /// The tag of the log lines, and the server name when no other exists.
    pub name: String,
    /// The version of the product, used in the fallback `serverInfo`.
    pub version: String,
    /// The revision of the initialize result when the client asks for one
    /// that the bridge does not serve (behaviour spec: 2025-11-25).
    pub reply_protocol_version: Revision,
    /// The prefix of the ids of the bridge's own requests to the client.
    pub request_id_prefix: String,
    /// The `_meta` keys of the client that can go to the upstream server.
    pub meta_passthrough: MetaPassthrough,
    /// The client-specific repairs.
    pub quirks: Quirks,
    /// Where the client shows the bridge's log, as the error messages name
    /// it ("See the Output channel of the server.").
    pub log_place: String,
}

impl Profile {
    /// The name of the VS Code product: the tag of its log lines, and the
    /// server name when no other name exists.
    pub const VSCODE_NAME: &'static str = "mcp-bridge-vscode";

    /// The profile of VS Code (behaviour spec, "The profile",
    /// `vscode.profile`): `mcp-bridge-vscode` runs with it, and an
    /// embedding server passes it to the legacy path of `embed`.
    pub fn vscode() -> Profile {
        Profile {
            name: Profile::VSCODE_NAME.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            reply_protocol_version: Revision::V2025_11_25,
            request_id_prefix: "b-".to_owned(),
            meta_passthrough: MetaPassthrough {
                keys: vec!["traceparent".to_owned(), "tracestate".to_owned()],
                prefixes: vec!["vscode.".to_owned()],
            },
            quirks: Quirks {
                normalize_array_items: true,
                drop_non_object_output_schema: true,
                // VS Code and the MCP Apps read the values this would remove.
                strict_legacy_results: false,
                data_only_remote_icons: true,
            },
            log_place: crate::jsonrpc::LOG_PLACE.to_owned(),
        }
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
