//! The VS Code profile (behaviour spec, "The profile").

use mcp_bridge::{MetaPassthrough, Profile, Quirks};

/// The name of the product: the tag of the log lines, and the server name
/// when no other name exists.
pub const NAME: &str = "mcp-bridge-vscode";

/// The settings of `vscode.profile`.
pub fn vscode() -> Profile {
    Profile {
        name: NAME.to_owned(),
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
