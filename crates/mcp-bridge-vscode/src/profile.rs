//! The VS Code profile (behaviour spec, "The profile"): the library's
//! `Profile::vscode`, which embedding servers use too.

use mcp_bridge::Profile;

/// The name of the product: the tag of the log lines, and the server name
/// when no other name exists.
pub const NAME: &str = Profile::VSCODE_NAME;
