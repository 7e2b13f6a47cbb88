//! The token store: what a sign-in leaves for the next start, per upstream
//! server (the resource) and per authorization server (the issuer): the
//! client registration, the redirect port, and the tokens.
//!
//! One file per resource under the user's config directory
//! (`mcp-bridge/auth/<sha-256 of the resource>.json`), mode 0600 in a
//! directory of mode 0700. The name of a file says nothing of the server.
//! The secrets (tokens, client secret) go to the OS credential store when
//! one answers (`vault`), else into the file.
//!
//! Several bridges share the store (two VS Code windows on one server):
//! - `disk`: a write goes to a temporary file of its own and is renamed
//!   over the record, so a read, which takes no lock, sees one save or the
//!   next, whole; no open follows a symbolic link; reads are bounded;
//! - `lock`: a read-modify-write (a refresh, a new grant, a registration,
//!   `logout`) holds the lock of the record ([`Store::lock`], [`Locked`]),
//!   with a bounded wait, and reads the record again under it, so it never
//!   undoes the save of another bridge;
//! - each save has the next revision, in the record file and in the
//!   credential store's entry; a load takes the secrets of the newer of
//!   the two, so an entry left behind by a save that the credential store
//!   refused never wins over the file.

mod disk;
mod error;
mod lock;

pub(crate) use error::StoreError;

use super::record::{canonical_resource, Record};
use super::vault::{Sealed, Vault};
use lock::RecordLock;
use reqwest::Url;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long [`Store::save`] and [`Store::forget_resource`] wait for the lock of a
/// record that another bridge holds.
pub(crate) const LOCK_WAIT: Duration = Duration::from_secs(5);
/// Reads of a record and its entry without the lock before the newer of
/// the two is taken as it is: a save of another bridge between the two
/// reads shows as an entry newer than the file.
const LOAD_TRIES: usize = 3;

/// The folder of the records.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    vault: Vault,
}

impl Store {
    /// Opens (and makes) the user's store, in the config directory of the
    /// platform; `Err` says why it cannot be used.
    pub fn open() -> Result<Store, String> {
        let base = dirs::config_dir().ok_or("the user has no config directory")?;
        Store::open_at(&base.join("mcp-bridge").join("auth"), Vault::choose())
    }

    pub(crate) fn open_at(dir: &Path, vault: Vault) -> Result<Store, String> {
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
        disk::probe(dir).map_err(|e| format!("cannot write the token store {}: {e}", dir.display()))?;
        disk::sweep(dir);
        Ok(Store { dir: dir.to_owned(), vault })
    }

    fn digest(resource: &str) -> String {
        Sha256::digest(resource.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
    }

    fn path(&self, resource: &str) -> PathBuf {
        self.dir.join(format!("{}.json", Store::digest(resource)))
    }

    /// The record of a resource, without the lock (a record is only ever
    /// replaced whole); an empty one when there is none or it cannot be
    /// read.
    pub(crate) fn load(&self, resource: &str) -> Record {
        self.read(resource, LOAD_TRIES)
    }

    /// Takes the lock of the record of `resource`, waiting at most `wait`
    /// for another bridge to release it (`StoreError::Busy` then). The
    /// wait sleeps the task, never a worker of the runtime. See [`Locked`]
    /// for the sequence of a read-modify-write.
    pub(crate) async fn lock(&self, resource: &str, wait: Duration) -> Result<Locked, StoreError> {
        let lock = RecordLock::waiting(&self.lock_path(resource), wait).await?;
        Ok(Locked { store: self.clone(), resource: resource.to_owned(), _lock: lock })
    }

    /// [`Store::lock`] for code outside the runtime (`logout`): the wait
    /// sleeps the thread.
    pub(crate) fn lock_blocking(&self, resource: &str, wait: Duration) -> Result<Locked, StoreError> {
        let lock = RecordLock::blocking(&self.lock_path(resource), wait)?;
        Ok(Locked { store: self.clone(), resource: resource.to_owned(), _lock: lock })
    }

    /// Saves a record under its lock, taken for this save alone (waiting
    /// at most [`LOCK_WAIT`], sleeping the thread); the tests' way to write
    /// a record. The bridge always reads under the lock first
    /// ([`Store::lock`], `auth::shared`).
    #[cfg(test)]
    pub(crate) fn save(&self, record: &mut Record) -> Result<(), StoreError> {
        self.lock_blocking(&record.resource, LOCK_WAIT)?.save(record)
    }

    /// Forgets the tokens and the registrations of the server at `url`
    /// (`logout`), under the lock of its record; `Ok(false)` when there
    /// were none (a text that is not a URL has none).
    pub fn forget(&self, url: &str) -> Result<bool, String> {
        let Ok(url) = Url::parse(url) else { return Ok(false) };
        self.forget_resource(&canonical_resource(&url)).map_err(|e| e.to_string())
    }

    /// Forgets the record of a canonical resource, under its lock.
    pub(crate) fn forget_resource(&self, resource: &str) -> Result<bool, StoreError> {
        let _locked = self.lock_blocking(resource, LOCK_WAIT)?;
        self.vault.forget(&Store::digest(resource));
        match std::fs::remove_file(self.path(resource)) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(StoreError::io("remove the record of the server from", e)),
        }
    }

    /// The redirect ports that the records of other servers keep, so that a
    /// new port never collides with one of them.
    pub(crate) fn ports_in_use(&self) -> Vec<u16> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        entries
            .take(disk::MAX_ENTRIES)
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_str().is_some_and(is_record_name))
            .filter_map(|e| disk::read(&e.path()))
            .filter_map(|text| serde_json::from_slice::<Record>(&text).ok())
            .filter_map(|r| r.redirect_port)
            .collect()
    }

    fn lock_path(&self, resource: &str) -> PathBuf {
        self.dir.join(format!(".{}.lock", Store::digest(resource)))
    }

    /// The record file alone; `None` when there is none or it is not a
    /// record (logged).
    fn read_file(&self, resource: &str) -> Option<Record> {
        let text = disk::read(&self.path(resource))?;
        let record = serde_json::from_slice::<Record>(&text).ok();
        if record.is_none() {
            tracing::warn!("a record of the token store cannot be read; signing in again");
        }
        record
    }

    /// The record with the secrets of the newer of the file and the
    /// entry. The file is read first: a save writes the entry first, so
    /// an entry older than the file is one that the credential store
    /// refused (the file then holds the secrets), and an entry newer than
    /// the file is a save under way, read again up to `tries` times.
    fn read(&self, resource: &str, tries: usize) -> Record {
        let digest = Store::digest(resource);
        let mut record = Record::default();
        for _ in 0..tries.max(1) {
            let Some(file) = self.read_file(resource) else {
                return Record { resource: resource.to_owned(), ..Record::default() };
            };
            record = file;
            match self.vault.load(&digest) {
                Some(sealed) if sealed.revision > record.revision => {
                    record = newest(record, sealed);
                    continue;
                }
                Some(sealed) => record = newest(record, sealed),
                None => {}
            }
            break;
        }
        record.resource = resource.to_owned();
        record
    }

    /// The revision of the last save, of the file or of the entry.
    fn revision(&self, resource: &str) -> u64 {
        let file = self.read_file(resource).map_or(0, |r| r.revision);
        let entry = self.vault.load(&Store::digest(resource)).map_or(0, |s| s.revision);
        file.max(entry)
    }
}

/// The record with the secrets of the entry when it is as new as the file
/// or newer; with its own when the file is newer.
fn newest(mut record: Record, sealed: Sealed) -> Record {
    if sealed.revision >= record.revision {
        sealed.restore(&mut record);
    }
    record
}

/// `<64 hex digits>.json`: a record, not a temporary or a lock file.
fn is_record_name(name: &str) -> bool {
    name.strip_suffix(".json").is_some_and(|d| d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The lock of one record, for a read-modify-write; released on drop.
///
/// A refresh, so that only one of several bridges spends a refresh token:
/// 1. `let locked = store.lock(&resource, wait).await?`, with `wait` at
///    least the time limit of a refresh, so that a waiter sees the
///    holder's result rather than `Busy` (on `Busy`, do not refresh: read
///    the record again later);
/// 2. `let fresh = locked.load()`: the record as it is now;
/// 3. when `fresh.revision` differs from the revision of the record in
///    memory, another bridge saved since (it may have rotated the tokens):
///    take `fresh` (its access token when still valid) instead of
///    refreshing;
/// 4. else refresh, change the record, `locked.save(&mut record)?`, which
///    sets `record.revision`; after an `invalid_grant`, one more
///    `locked.load()` before a sign-in catches a save that did not take
///    the lock (a bridge of an older version);
/// 5. drop `locked`.
///
/// A new grant, a registration and `logout` follow the same steps.
///
/// `load` and `save` block the thread for file I/O and for the calls to the
/// credential store (each bounded by 3 s); `Locked` is `Send + 'static`, so
/// async code can move it into `spawn_blocking` for them.
#[derive(Debug)]
pub(crate) struct Locked {
    store: Store,
    resource: String,
    _lock: RecordLock,
}

impl Locked {
    /// The record as the last save left it (no other bridge saves while
    /// the lock is held).
    pub(crate) fn load(&self) -> Record {
        self.store.read(&self.resource, 1)
    }

    /// Saves `record` as the record of this lock's resource, with the next
    /// revision (set in `record`): the secrets to the credential store
    /// first, then the file, which keeps the secrets itself when the
    /// credential store did not take them.
    pub(crate) fn save(&self, record: &mut Record) -> Result<(), StoreError> {
        let digest = Store::digest(&self.resource);
        record.revision = self.store.revision(&self.resource).saturating_add(1);
        let mut public = record.clone();
        let sealed = Sealed::take(&mut public);
        let file = if self.store.vault.save(&digest, &sealed) { &public } else { &*record };
        let text = serde_json::to_vec_pretty(file).map_err(|e| StoreError::io("write", e.into()))?;
        disk::write(&self.store.path(&self.resource), &text).map_err(|e| StoreError::io("write", e))
    }
}

#[cfg(test)]
mod secret_service;
#[cfg(test)]
mod tests;
