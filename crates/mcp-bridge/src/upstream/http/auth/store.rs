//! The token store: what a sign-in leaves for the next start, per upstream
//! server (the resource) and per authorization server (the issuer): the
//! client registration, the redirect port, and the tokens.
//!
//! One file per resource under the user's config directory
//! (`mcp-bridge/auth/<sha-256 of the resource>.json`), mode 0600 in a
//! directory of mode 0700, written whole to a temporary file and renamed,
//! so a crash never leaves half a file. The name of a file says nothing of
//! the server. The secrets (tokens, client secret) go to the OS credential
//! store when one answers (`vault`), else into the file.

use super::vault::{Secrets, Vault};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A client registration and the tokens of one authorization server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grant {
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
}

/// The record of one upstream server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The server URL (without query). Not written to the file: the file's
    /// name is its digest, and a path can hold a key.
    #[serde(skip)]
    pub resource: String,
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

/// The folder of the records.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    vault: Vault,
}

impl Store {
    /// Opens (and makes) the folder of the store; `Err` when it cannot be
    /// used, which stops the bridge with exit code 2.
    pub fn open() -> Result<Store, String> {
        let base = dirs::config_dir().ok_or("the user has no config directory")?;
        Store::open_at(&base.join("mcp-bridge").join("auth"), Vault::choose())
    }

    pub fn open_at(dir: &Path, vault: Vault) -> Result<Store, String> {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir).map_err(|e| format!("cannot make the token store {}: {e}", dir.display()))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| format!("cannot protect the token store {}: {e}", dir.display()))?;
        }
        let probe = dir.join(".probe");
        write_private(&probe, b"").map_err(|e| format!("cannot write the token store {}: {e}", dir.display()))?;
        let _ = std::fs::remove_file(&probe);
        Ok(Store { dir: dir.to_owned(), vault })
    }

    fn digest(resource: &str) -> String {
        Sha256::digest(resource.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
    }

    fn path(&self, resource: &str) -> PathBuf {
        self.dir.join(format!("{}.json", Store::digest(resource)))
    }

    /// The record of a resource; an empty one when there is none or it
    /// cannot be read.
    pub fn load(&self, resource: &str) -> Record {
        let empty = Record { resource: resource.to_owned(), ..Record::default() };
        let Ok(text) = std::fs::read(self.path(resource)) else { return empty };
        match serde_json::from_slice::<Record>(&text) {
            Ok(mut record) => {
                record.resource = resource.to_owned();
                for (issuer, secrets) in self.vault.load(&Store::digest(resource)) {
                    if let Some(grant) = record.grants.get_mut(&issuer) {
                        secrets.restore(grant);
                    }
                }
                record
            }
            _ => {
                tracing::warn!("a record of the token store cannot be read; signing in again");
                empty
            }
        }
    }

    pub fn save(&self, record: &Record) -> Result<(), String> {
        let mut public = record.clone();
        let entry = public.grants.iter_mut().map(|(issuer, grant)| (issuer.clone(), Secrets::take(grant))).collect();
        let file = if self.vault.save(&Store::digest(&record.resource), &entry) { &public } else { record };
        let text = serde_json::to_vec_pretty(file).map_err(|e| e.to_string())?;
        let path = self.path(&record.resource);
        let temporary = path.with_extension("tmp");
        write_private(&temporary, &text).map_err(|e| format!("cannot write the token store: {e}"))?;
        std::fs::rename(&temporary, &path).map_err(|e| format!("cannot write the token store: {e}"))
    }

    /// Forgets the tokens and the registrations of a resource (`logout`);
    /// `Ok(false)` when there were none.
    pub fn forget(&self, resource: &str) -> Result<bool, String> {
        self.vault.forget(&Store::digest(resource));
        match std::fs::remove_file(self.path(resource)) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(format!("cannot remove the record of the server: {e}")),
        }
    }

    /// The redirect ports that the records of other servers keep, so that a
    /// new port never collides with one of them.
    pub fn ports_in_use(&self) -> Vec<u16> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        entries
            .filter_map(Result::ok)
            .filter_map(|e| std::fs::read(e.path()).ok())
            .filter_map(|text| serde_json::from_slice::<Record>(&text).ok())
            .filter_map(|r| r.redirect_port)
            .collect()
    }
}

/// Writes a file that only its owner can read.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        std::env::temp_dir().join(format!("mcp-bridge-store-{name}-{}-{nanos}", std::process::id()))
    }

    #[test]
    fn a_record_survives_a_restart_in_a_private_file_named_by_a_digest() {
        let dir = temp_dir("roundtrip");
        let store = Store::open_at(&dir, Vault::File).unwrap_or_else(|e| panic!("{e}"));
        let resource = "https://mcp.example.com/mcp?key=SECRET";
        assert_eq!(store.load(resource), Record { resource: resource.into(), ..Record::default() });
        let mut record = store.load(resource);
        record.redirect_port = Some(41234);
        record.grants.insert(
            "https://auth.example.com".into(),
            Grant {
                client_id: "c".into(),
                registration: "dynamic".into(),
                access_token: Some("AT".into()),
                ..Grant::default()
            },
        );
        assert_eq!(store.save(&record), Ok(()));
        assert_eq!(Store::open_at(&dir, Vault::File).map(|s| s.load(resource)), Ok(record));
        assert_eq!(store.ports_in_use(), vec![41234]);
        let files: Vec<String> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        assert_eq!(files.len(), 1);
        assert!(files[0].len() == 64 + 5 && !files[0].contains("example"), "{files:?}");
        let text = std::fs::read_to_string(dir.join(&files[0])).unwrap_or_default();
        assert!(!text.contains("mcp.example.com") && !text.contains("SECRET"), "the file names the server: {text}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777).unwrap_or(0);
            assert_eq!(mode(&dir), 0o700);
            assert_eq!(mode(&dir.join(&files[0])), 0o600);
        }
        assert_eq!(store.forget(resource), Ok(true));
        assert_eq!(store.forget(resource), Ok(false));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
