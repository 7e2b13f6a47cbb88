//! The profile of one bridge product (behaviour spec, "The profile"): its
//! name, its quirks, and the words of its messages, which a client that
//! the bridge knows gets in its own terms (`clients`); and the revisions of
//! MCP it serves to its client.
//!
//! The revision is the client's: the one it asks for in `initialize`, when
//! the bridge serves it. The words are picked from the client's
//! `clientInfo` at the same time, unless the product fixed them
//! ([`Profile::follows_client`]).

mod clients;
mod revision;

pub use clients::Words;
use clients::KNOWN;
pub use revision::Revision;

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

/// One bridge product: its name, the revision it answers with, its quirks
/// and the words of its messages.
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
    /// What the messages call the client and the place of its log.
    pub words: Words,
    /// Whether a client that the bridge knows, by the `clientInfo` of its
    /// `initialize`, reads its own words instead of these. `--client` and
    /// `check` fix the words; an unknown client always reads these.
    pub follows_client: bool,
}

impl Profile {
    /// The name of the VS Code product: the tag of its log lines, and the
    /// server name when no other name exists.
    pub const VSCODE_NAME: &'static str = "mcp-bridge-vscode";

    /// The profile of VS Code (behaviour spec, "The profile",
    /// `vscode.profile`): `mcp-bridge-vscode` runs with it, and an
    /// embedding server passes it to the legacy path of `embed`. A client
    /// that the bridge knows gets its own words.
    pub fn vscode() -> Profile {
        Profile::new(Profile::VSCODE_NAME, env!("CARGO_PKG_VERSION"))
    }

    /// The profile of a product with this name and version, and the
    /// behaviour spec's settings (VS Code's quirks and words, each known
    /// client's own words); its fields change the rest.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Profile {
        Profile {
            name: name.into(),
            version: version.into(),
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
            words: Words::vscode(),
            follows_client: true,
        }
    }

    /// The same profile with the fixed words of a known client (`--client
    /// NAME`); `None` for a name the bridge does not know. The names are
    /// [`Profile::client_names`].
    pub fn for_client(mut self, name: &str) -> Option<Profile> {
        self.words = clients::Known::by_id(name)?.words();
        self.follows_client = false;
        Some(self)
    }

    /// The names of the clients the bridge knows, for `--client`.
    pub fn client_names() -> impl Iterator<Item = &'static str> {
        KNOWN.iter().map(|k| k.id)
    }

    /// The words for a client whose `initialize` names it `client_name`,
    /// which reached the bridge by URL or started it.
    pub(crate) fn words_for(&self, client_name: &str, by_url: bool) -> Words {
        match clients::Known::by_client_info(client_name) {
            Some(known) if self.follows_client && by_url => known.words_by_url(),
            Some(known) if self.follows_client => known.words(),
            _ => self.words.clone(),
        }
    }
}
