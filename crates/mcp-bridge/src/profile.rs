//! The profile of one bridge product (behaviour spec, "The profile").
//!
//! The core never picks a profile from the `clientInfo` of the client: the
//! product (the executable) owns its profile and hands it to every function.

/// Which `_meta` keys of the client may reach the upstream server
/// (behaviour spec, "Meta passthrough (M3)").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
pub struct Quirks {
    /// The items rule for array schemas (R6).
    pub normalize_array_items: bool,
    /// Remove each tool `outputSchema` whose root lacks `type: "object"`.
    pub drop_non_object_output_schema: bool,
    /// Remove the values that revision 2025-11-25 does not allow.
    pub strict_legacy_results: bool,
}

/// One bridge product: its name, the revision it answers with, and its quirks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Profile {
    /// The tag of the log lines, and the server name when no other exists.
    pub name: String,
    /// The version of the product, used in the fallback `serverInfo`.
    pub version: String,
    /// The `protocolVersion` of the initialize result.
    pub reply_protocol_version: String,
    /// The prefix of the ids of the bridge's own requests to the client.
    pub request_id_prefix: String,
    /// The `_meta` keys of the client that can go to the upstream server.
    pub meta_passthrough: MetaPassthrough,
    /// The client-specific repairs.
    pub quirks: Quirks,
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
            reply_protocol_version: "2025-11-25".to_owned(),
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
            },
        }
    }
}
