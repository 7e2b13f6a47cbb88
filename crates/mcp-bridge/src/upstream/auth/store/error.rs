//! The errors of the token store. None names a server or holds a secret:
//! a path in the store is a digest.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
    /// Another bridge held the lock of the record for the whole wait.
    #[error("another bridge holds the lock of the server's record for more than {0:?}")]
    Busy(Duration),
    #[error("cannot {what} the token store: {source}")]
    Io {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
}

impl StoreError {
    pub(super) fn io(what: &'static str, source: std::io::Error) -> StoreError {
        StoreError::Io { what, source }
    }
}
