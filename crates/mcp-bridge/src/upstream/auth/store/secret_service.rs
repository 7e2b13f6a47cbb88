//! The token store against a real OS credential store: on Linux, a Secret
//! Service (gnome-keyring) in a private D-Bus session, which
//! `scripts/with-secret-service` starts (`scripts/test` runs every test in
//! one). Without it these tests fail: they never fall back to the file.

use super::*;
use crate::upstream::auth::record::Grant;
use crate::upstream::auth::vault::{parse, SERVICE};
use std::collections::BTreeMap;

/// The credential store, or a failure that says how to get one.
fn keyring() -> Vault {
    let vault = Vault::probe();
    assert_eq!(
        vault,
        Vault::Keyring,
        "no Secret Service answers: run the tests under scripts/with-secret-service (DBUS_SESSION_BUS_ADDRESS={:?})",
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS")
    );
    vault
}

/// A fresh folder and a server URL that no other run uses.
fn fresh(name: &str) -> (PathBuf, String) {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let tag = format!("{name}-{}-{nanos}", std::process::id());
    (std::env::temp_dir().join(format!("mcp-bridge-keyring-{tag}")), format!("https://mcp.example.com/{tag}"))
}

const ISSUER: &str = "https://auth.example.com";

fn signed_in(resource: &str, access_token: &str) -> Record {
    let grant = Grant {
        client_id: "client".into(),
        client_secret: Some("SeCrEt-client".into()),
        registration: "dynamic".into(),
        access_token: Some(access_token.into()),
        refresh_token: Some(format!("{access_token}-refresh")),
        expires_at: Some(4_000_000_000),
        ..Grant::default()
    };
    Record {
        resource: resource.into(),
        issuer: Some(ISSUER.into()),
        grants: BTreeMap::from([(ISSUER.to_owned(), grant)]),
        ..Record::default()
    }
}

/// The entry of a server as the credential store holds it.
fn entry_of(resource: &str) -> Result<Sealed, String> {
    let digest = sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(resource.as_bytes()));
    let digest: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let text = keyring::Entry::new(SERVICE, &digest).and_then(|e| e.get_password()).map_err(|e| e.to_string())?;
    parse(&text).ok_or_else(|| format!("not an entry of the bridge: {text}"))
}

fn access_token(record: &Record) -> Option<&str> {
    record.grants.get(ISSUER).and_then(|g| g.access_token.as_deref())
}

#[test]
fn the_secrets_go_to_the_secret_service_and_the_file_keeps_none() {
    let vault = keyring();
    let (dir, resource) = fresh("roundtrip");
    let store = Store::open_at(&dir, vault).unwrap_or_else(|e| panic!("{e}"));
    let mut record = signed_in(&resource, "SeCrEt-access-1");
    store.save(&mut record).unwrap_or_else(|e| panic!("{e}"));

    let files: Vec<PathBuf> =
        std::fs::read_dir(&dir).map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect()).unwrap_or_default();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).unwrap_or_default();
    assert!(!text.contains("SeCrEt"), "a secret is in the file:\n{text}");
    let entry = entry_of(&resource).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(entry.revision, 1);
    assert_eq!(entry.grants.get(ISSUER).and_then(|s| s.client_secret.as_deref()), Some("SeCrEt-client"));

    assert_eq!(store.load(&resource), record, "the record comes back whole");
    let without = Store::open_at(&dir, Vault::File).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(access_token(&without.load(&resource)), None, "the file alone has no token");

    assert_eq!(store.forget(&resource).map_err(|e| e.to_string()), Ok(true));
    assert_eq!(entry_of(&resource).err().as_deref(), Some(keyring::Error::NoEntry.to_string().as_str()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_entry_left_stale_by_a_refused_save_never_wins_over_the_newer_file() {
    let vault = keyring();
    let (dir, resource) = fresh("stale");
    let store = Store::open_at(&dir, vault).unwrap_or_else(|e| panic!("{e}"));
    let mut record = signed_in(&resource, "SeCrEt-access-1");
    store.save(&mut record).unwrap_or_else(|e| panic!("{e}"));

    // A save that the credential store refused: the file, with the next
    // revision, keeps the new secrets; the entry stays as it was.
    let refused = Store::open_at(&dir, Vault::File).unwrap_or_else(|e| panic!("{e}"));
    let mut rotated = signed_in(&resource, "SeCrEt-access-2");
    rotated.revision = record.revision;
    refused.save(&mut rotated).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rotated.revision, 2);
    let entry = entry_of(&resource).unwrap_or_else(|e| panic!("{e}"));
    let stale = entry.grants.get(ISSUER).and_then(|s| s.access_token.clone());
    assert_eq!((entry.revision, stale.as_deref()), (1, Some("SeCrEt-access-1")), "the entry is stale");

    let loaded = store.load(&resource);
    assert_eq!(access_token(&loaded), Some("SeCrEt-access-2"), "the newer file wins");
    let locked = store.lock_blocking(&resource, Duration::ZERO).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(locked.load(), loaded, "a load under the lock agrees");

    // The next save that the credential store takes moves the secrets
    // back into it, with a revision after both.
    let mut next = signed_in(&resource, "SeCrEt-access-3");
    locked.save(&mut next).unwrap_or_else(|e| panic!("{e}"));
    drop(locked);
    assert_eq!(next.revision, 3);
    assert_eq!(entry_of(&resource).map(|e| e.revision), Ok(3));
    assert_eq!(access_token(&store.load(&resource)), Some("SeCrEt-access-3"));
    let text = std::fs::read_dir(&dir)
        .ok()
        .and_then(|mut d| d.next())
        .and_then(|e| e.ok())
        .and_then(|e| std::fs::read_to_string(e.path()).ok())
        .unwrap_or_default();
    assert!(!text.contains("SeCrEt") && text.contains("\"revision\": 3"), "{text}");

    assert_eq!(store.forget(&resource).map_err(|e| e.to_string()), Ok(true));
    let _ = std::fs::remove_dir_all(&dir);
}
