//! The record of this server in the store, which other bridges on the same
//! server (two VS Code windows) share: every read-modify-write holds the
//! record's lock and reads the record again under it, so that it never
//! undoes the save of another bridge. The file and credential-store work
//! blocks its thread for a moment, so it runs on tokio's blocking pool.
//!
//! In one process (the face, whose sessions each have their own [`Auth`]
//! of the same server), one sign-in runs at a time per server: the others
//! wait for its turn to end and then take its tokens from the store, so
//! the user signs in once.
//!
//! [`Auth`]: super::Auth

use super::record::Record;
use super::store::{Locked, Store};
use crate::jsonrpc::{BridgeError, Cause};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, Weak};
use std::time::Duration;
use tokio::sync::OwnedMutexGuard;

/// The sign-in turn of each server (by resource) in this process; an entry
/// goes with its last holder.
static TURNS: LazyLock<Mutex<HashMap<String, Weak<tokio::sync::Mutex<()>>>>> = LazyLock::new(Mutex::default);

/// Waits for the sign-in turn of `resource`: held while a sign-in runs.
pub(crate) async fn turn(resource: &str) -> OwnedMutexGuard<()> {
    let turn = {
        let mut turns = crate::sync::lock(&TURNS);
        turns.retain(|_, turn| turn.strong_count() > 0);
        match turns.get(resource).and_then(Weak::upgrade) {
            Some(turn) => turn,
            None => {
                let turn = Arc::new(tokio::sync::Mutex::new(()));
                turns.insert(resource.to_owned(), Arc::downgrade(&turn));
                turn
            }
        }
    };
    turn.lock_owned().await
}

/// Takes the lock of the record, waiting at most `wait` for another bridge
/// that holds it.
pub(crate) async fn lock(store: &Store, resource: &str, wait: Duration) -> Result<Locked, BridgeError> {
    store.lock(resource, wait).await.map_err(|err| {
        tracing::warn!(error = %err, "the record of the server in the token store cannot be locked");
        BridgeError::new(Cause::SignInFailed).with_detail("the token store: the record of the server is busy")
    })
}

/// The record as the last save of any bridge left it, with the lock
/// still held; `None` when the read did not complete (the lock is gone
/// with it).
pub(crate) async fn read(locked: Locked) -> Option<(Locked, Record)> {
    tokio::task::spawn_blocking(move || {
        let record = locked.load();
        (locked, record)
    })
    .await
    .ok()
}

/// Saves the record under the lock; it comes back with its new revision.
pub(crate) async fn write(locked: Locked, mut record: Record) -> Result<Record, String> {
    let outcome = tokio::task::spawn_blocking(move || locked.save(&mut record).map(|()| record)).await;
    match outcome {
        Ok(Ok(record)) => Ok(record),
        Ok(Err(err)) => Err(err.to_string()),
        Err(err) => Err(err.to_string()),
    }
}
