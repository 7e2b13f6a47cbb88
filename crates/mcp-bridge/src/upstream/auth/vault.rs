//! Where the secrets of the token store live: the OS credential store
//! where one is reachable (Secret Service, macOS Keychain, Windows
//! Credential Manager, through `keyring`), else the record file itself,
//! which is 0600 in a 0700 folder either way.
//!
//! The secrets of a server are one entry: a JSON object of the revision of
//! the save that wrote it and of the access token, refresh token and
//! client secret of each issuer. The record file has the same revision,
//! so a load can tell which of the two is newer. Every call to the
//! credential store is bounded in time: a session bus that stalls never
//! holds up a request, nor the lock of a record.

use super::record::{Grant, Record};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::Duration;

/// The service name of the entries.
pub(super) const SERVICE: &str = "mcp-bridge";
/// The longest wait for the credential store to answer one call: a
/// session bus without a Secret Service can stall a call for long.
const LIMIT: Duration = Duration::from_secs(3);

/// The secrets of one grant.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Secrets {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
}

impl Secrets {
    /// Takes the secrets out of a grant.
    pub(crate) fn take(grant: &mut Grant) -> Secrets {
        Secrets {
            access_token: grant.access_token.take(),
            refresh_token: grant.refresh_token.take(),
            client_secret: grant.client_secret.take(),
        }
    }

    /// Puts them back.
    pub(crate) fn restore(self, grant: &mut Grant) {
        grant.access_token = self.access_token;
        grant.refresh_token = self.refresh_token;
        grant.client_secret = self.client_secret;
    }
}

/// The entry of one server: the secrets of each issuer, and the revision
/// of the save that wrote them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Sealed {
    pub revision: u64,
    pub grants: BTreeMap<String, Secrets>,
}

impl Sealed {
    /// Takes the secrets out of every grant of a record.
    pub(crate) fn take(record: &mut Record) -> Sealed {
        let grants = record.grants.iter_mut().map(|(issuer, grant)| (issuer.clone(), Secrets::take(grant))).collect();
        Sealed { revision: record.revision, grants }
    }

    /// Puts the secrets back into the grants that the record has.
    pub(crate) fn restore(self, record: &mut Record) {
        for (issuer, secrets) in self.grants {
            if let Some(grant) = record.grants.get_mut(&issuer) {
                secrets.restore(grant);
            }
        }
    }
}

/// An entry as stored: with its revision, or of a version before
/// revisions (the secrets alone), which counts as revision 0.
#[derive(Deserialize)]
#[serde(untagged)]
enum Stored {
    Sealed(Sealed),
    Unrevised(BTreeMap<String, Secrets>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Vault {
    /// The OS credential store.
    Keyring,
    /// The record file.
    File,
}

impl Vault {
    /// The OS credential store when it answers within [`LIMIT`], else the
    /// file. `MCP_BRIDGE_TOKEN_STORE=file` chooses the file; any other
    /// value (`keyring`, which the tests set) or none asks first.
    pub(crate) fn choose() -> Vault {
        if std::env::var("MCP_BRIDGE_TOKEN_STORE").is_ok_and(|v| v == "file") {
            return Vault::File;
        }
        Vault::probe()
    }

    /// The OS credential store when it answers within [`LIMIT`], else the
    /// file. On Linux without a session bus there is no Secret Service to
    /// ask.
    pub(crate) fn probe() -> Vault {
        if cfg!(all(unix, not(target_os = "macos"))) && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
            return Vault::File;
        }
        let usable = bounded(|| {
            keyring::Entry::store_status().is_ok()
                && keyring::Entry::new(SERVICE, "probe")
                    .is_ok_and(|e| matches!(e.get_password(), Ok(_) | Err(keyring::Error::NoEntry)))
        });
        if usable == Some(true) {
            Vault::Keyring
        } else {
            tracing::info!("no OS credential store answers; the tokens go to a private file");
            Vault::File
        }
    }

    /// The entry of the server with this digest; `None` when there is
    /// none, or it cannot be read.
    pub(crate) fn load(self, digest: &str) -> Option<Sealed> {
        if self == Vault::File {
            return None;
        }
        let digest = digest.to_owned();
        let text = match bounded(move || keyring::Entry::new(SERVICE, &digest).and_then(|e| e.get_password())) {
            Some(Ok(text)) => text,
            Some(Err(keyring::Error::NoEntry)) => return None,
            Some(Err(e)) => {
                tracing::warn!(error = %e, "the OS credential store did not give the tokens");
                return None;
            }
            None => {
                tracing::warn!("the OS credential store did not answer in {LIMIT:?}");
                return None;
            }
        };
        let sealed = parse(&text);
        if sealed.is_none() {
            tracing::warn!("an entry of the OS credential store is not one of the bridge; it is ignored");
        }
        sealed
    }

    /// Keeps the entry; `false` when the credential store refused it or
    /// did not answer in time (the caller then keeps the secrets in the
    /// file, with the same revision, so the file wins over the entry).
    pub(crate) fn save(self, digest: &str, sealed: &Sealed) -> bool {
        if self == Vault::File {
            return false;
        }
        let Ok(text) = serde_json::to_string(sealed) else { return false };
        let digest = digest.to_owned();
        match bounded(move || keyring::Entry::new(SERVICE, &digest).and_then(|e| e.set_password(&text))) {
            Some(Ok(())) => true,
            Some(Err(e)) => {
                tracing::warn!(error = %e, "the OS credential store refused the tokens; they go to the private file");
                false
            }
            None => {
                tracing::warn!(
                    "the OS credential store did not answer in {LIMIT:?}; the tokens go to the private file"
                );
                false
            }
        }
    }

    /// Removes the entry of the server with this digest.
    pub(crate) fn forget(self, digest: &str) {
        if self == Vault::File {
            return;
        }
        let digest = digest.to_owned();
        match bounded(move || keyring::Entry::new(SERVICE, &digest).and_then(|e| e.delete_credential())) {
            Some(Ok(()) | Err(keyring::Error::NoEntry)) => {}
            Some(Err(e)) => tracing::warn!(error = %e, "the OS credential store did not remove the tokens"),
            None => tracing::warn!("the OS credential store did not answer in {LIMIT:?}"),
        }
    }
}

/// The entry in the text of the credential store; `None` when it is not
/// one of ours.
pub(super) fn parse(text: &str) -> Option<Sealed> {
    match serde_json::from_str(text).ok()? {
        Stored::Sealed(sealed) => Some(sealed),
        Stored::Unrevised(grants) => Some(Sealed { revision: 0, grants }),
    }
}

/// Runs a call to the credential store on a thread of its own and waits
/// for it at most [`LIMIT`]; `None` when it did not answer in time.
fn bounded<T: Send + 'static>(call: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(call());
    });
    rx.recv_timeout(LIMIT).ok()
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
            grant_types: vec!["authorization_code".into()],
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
        assert_eq!(Vault::File.load("d"), None);
        assert!(!Vault::File.save("d", &Sealed::default()), "the file vault keeps the secrets in the record");
    }

    #[test]
    fn an_entry_from_before_revisions_reads_as_revision_0() {
        let old = r#"{"https://auth.example.com":{"access_token":"AT"}}"#;
        let new = r#"{"revision":4,"grants":{"https://auth.example.com":{"access_token":"AT"}}}"#;
        let grants = BTreeMap::from([(
            "https://auth.example.com".to_owned(),
            Secrets { access_token: Some("AT".into()), ..Secrets::default() },
        )]);
        assert_eq!(parse(old), Some(Sealed { revision: 0, grants: grants.clone() }));
        assert_eq!(parse(new), Some(Sealed { revision: 4, grants }));
        assert_eq!(parse("[1]"), None);
        assert_eq!(parse("\"text\""), None);
    }
}
