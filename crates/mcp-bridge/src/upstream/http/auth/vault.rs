//! Where the secrets of the token store live: the OS credential store
//! where one is reachable (Secret Service, macOS Keychain, Windows
//! Credential Manager, through `keyring`), else the record file itself,
//! which is 0600 in a 0700 folder either way.
//!
//! The secrets of a server are one entry: a JSON object of the access
//! token, refresh token and client secret of each issuer.

use super::store::Grant;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// The service name of the entries.
const SERVICE: &str = "mcp-bridge";
/// The longest wait for the credential store to answer at the start: a
/// session bus without a Secret Service can stall a call for long.
const PROBE: Duration = Duration::from_secs(3);

/// The secrets of one grant.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Secrets {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
}

impl Secrets {
    /// Takes the secrets out of a grant.
    pub fn take(grant: &mut Grant) -> Secrets {
        Secrets {
            access_token: grant.access_token.take(),
            refresh_token: grant.refresh_token.take(),
            client_secret: grant.client_secret.take(),
        }
    }

    /// Puts them back.
    pub fn restore(self, grant: &mut Grant) {
        grant.access_token = self.access_token;
        grant.refresh_token = self.refresh_token;
        grant.client_secret = self.client_secret;
    }
}

/// The secrets of every issuer of one server.
pub type Entry = BTreeMap<String, Secrets>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vault {
    /// The OS credential store.
    Keyring,
    /// The record file.
    File,
}

impl Vault {
    /// The OS credential store when it answers within [`PROBE`], else the
    /// file. `MCP_BRIDGE_TOKEN_STORE=file` chooses the file. On Linux
    /// without a session bus there is no Secret Service to ask.
    pub fn choose() -> Vault {
        if std::env::var("MCP_BRIDGE_TOKEN_STORE").is_ok_and(|v| v == "file") {
            return Vault::File;
        }
        if cfg!(all(unix, not(target_os = "macos"))) && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
            return Vault::File;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let usable = keyring::Entry::store_status().is_ok()
                && keyring::Entry::new(SERVICE, "probe").is_ok_and(|e| {
                    e.get_password().is_ok() || matches!(e.get_password(), Err(keyring::Error::NoEntry))
                });
            let _ = tx.send(usable);
        });
        match rx.recv_timeout(PROBE) {
            Ok(true) => Vault::Keyring,
            _ => {
                tracing::info!("no OS credential store answers; the tokens go to a private file");
                Vault::File
            }
        }
    }

    /// The entry of the server with this digest; empty when there is none.
    pub fn load(self, digest: &str) -> Entry {
        if self == Vault::File {
            return Entry::new();
        }
        keyring::Entry::new(SERVICE, digest)
            .and_then(|e| e.get_password())
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Keeps the entry; `false` when the credential store refused it (the
    /// caller then keeps the secrets in the file).
    pub fn save(self, digest: &str, entry: &Entry) -> bool {
        if self == Vault::File {
            return false;
        }
        let Ok(text) = serde_json::to_string(entry) else { return false };
        keyring::Entry::new(SERVICE, digest).and_then(|e| e.set_password(&text)).is_ok()
    }

    pub fn forget(self, digest: &str) {
        if self == Vault::Keyring {
            let _ = keyring::Entry::new(SERVICE, digest).and_then(|e| e.delete_credential());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secrets_leave_a_grant_whole_and_come_back_whole() {
        let full = Grant {
            client_id: "c".into(),
            client_secret: Some("CS".into()),
            registration: "dynamic".into(),
            access_token: Some("AT".into()),
            refresh_token: Some("RT".into()),
            expires_at: Some(7),
            token_auth_method: None,
            scope: Some("s".into()),
        };
        let mut public = full.clone();
        let secrets = Secrets::take(&mut public);
        assert_eq!(
            public,
            Grant { client_secret: None, access_token: None, refresh_token: None, ..full.clone() },
            "no secret stays in the file's part"
        );
        secrets.restore(&mut public);
        assert_eq!(public, full);
        assert_eq!(Vault::File.load("d"), Entry::new());
        assert!(!Vault::File.save("d", &Entry::new()), "the file vault keeps the secrets in the record");
    }
}
