//! What the token store keeps of one upstream server: its record, with the
//! grant of each authorization server. Plain data, shared by the store, the
//! credential store (`vault`) and the sign-in.

use reqwest::Url;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The grant type of the device authorization grant (RFC 8628), asked for
/// in a dynamic registration.
pub(crate) const DEVICE_GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// A client registration and the tokens of one authorization server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Grant {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// How the client was registered: `pre-registered`, `metadata-document`
    /// or `dynamic`.
    pub registration: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The `token_endpoint_auth_method` of the registration, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_auth_method: Option<String>,
    /// The scopes requested so far (space-separated), for the step-up union.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The grant types a dynamic registration allows (its response's
    /// `grant_types`); empty for another registration, or one from before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grant_types: Vec<String>,
}

impl Grant {
    /// Whether the client may sign in with the device grant: a dynamic
    /// registration must allow it; of another one the bridge cannot know,
    /// and the authorization server says so if it does not.
    pub(crate) fn allows_device(&self) -> bool {
        self.registration != "dynamic" || self.grant_types.iter().any(|g| g == DEVICE_GRANT_TYPE)
    }
}

/// The canonical URI of the server for RFC 8707: the URL without its user
/// information, query and fragment (a password or a query can hold a key,
/// and must not reach the authorization server, the browser's history or
/// the store) and without a trailing slash.
pub(crate) fn canonical_resource(url: &Url) -> String {
    let mut url = url.clone();
    // Both fail only for a URL that cannot have user information.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
    url.as_str().trim_end_matches('/').to_owned()
}

/// The record of one upstream server, under the key of its
/// [`canonical_resource`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    /// The server URL (without query). Not written to the file: the file's
    /// name is its digest, and a path can hold a key.
    #[serde(skip)]
    pub resource: String,
    /// The save that wrote the record, counted from 1 (0: never saved, or
    /// saved before revisions). A read-modify-write that finds a revision
    /// other than the one it holds knows that another bridge saved since.
    #[serde(default)]
    pub revision: u64,
    /// The resource identifier of the protected resource metadata, sent as
    /// `resource` (RFC 8707); the server URL when the metadata has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indicator: Option<String>,
    /// The issuer of the last sign-in: its grant is the one in use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// The redirect port of this server's sign-ins, kept across restarts
    /// because a registration names its redirect URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_port: Option<u16>,
    /// The grant of each issuer: a registration is never reused with
    /// another authorization server.
    #[serde(default)]
    pub grants: BTreeMap<String, Grant>,
}

/// The clock of the grants' expiry: seconds since the Unix epoch.
pub(crate) fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_canonical_resource_drops_the_query_the_fragment_and_a_trailing_slash() {
        let url = |t: &str| Url::parse(t).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(canonical_resource(&url("https://mcp.example.com/mcp?key=SECRET#x")), "https://mcp.example.com/mcp");
        assert_eq!(canonical_resource(&url("https://MCP.example.com/")), "https://mcp.example.com");
        assert_eq!(canonical_resource(&url("https://user:pass@mcp.example.com/mcp")), "https://mcp.example.com/mcp");
    }
}
