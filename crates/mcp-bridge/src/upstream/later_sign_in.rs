//! A sign-in after the first initialize needs the client's consent: the
//! question it asks (`ConsentStep`), the answer (`Consent`), and the
//! function of the front end that asks (`ConsentFn`). A leaf, so that the
//! sign-in below and the front end above share these words without
//! importing each other.

use crate::gate::url::CheckedUrl;
use std::sync::Arc;

/// The answer of the client when a later sign-in asks it to open a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Consent {
    /// The user opened the URL: the sign-in waits for its redirect.
    Accepted,
    /// The user declined.
    Declined,
    /// The client cannot ask (no `elicitation.url`, not initialized yet,
    /// no answer, an error).
    CannotAsk,
}

/// What a later sign-in asks of the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConsentStep {
    /// Whether the client can be asked at all (`Accepted` or `CannotAsk`),
    /// before the sign-in sends anything.
    CanAsk,
    /// Open this URL; with a code, the user enters it there (the device
    /// grant).
    Ask { url: CheckedUrl, code: Option<String> },
    /// The sign-in is over.
    Done,
}

/// The future of a consent.
pub(crate) type ConsentFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Consent> + Send>>;
/// Asks the client about a later sign-in.
pub(crate) type ConsentFn = Arc<dyn Fn(ConsentStep) -> ConsentFuture + Send + Sync>;
