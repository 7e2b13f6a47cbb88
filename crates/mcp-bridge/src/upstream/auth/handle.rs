//! The sign-in as the layers above the upstream client see it: whether a
//! request could start one, what a time limit that stopped one says, when
//! one completes, and the end of the first initialize. Only an upstream at
//! a URL with sign-in has one; nothing else about OAuth leaves `auth`.

use super::session::Auth;
use crate::jsonrpc::BridgeError;
use std::sync::Arc;

/// The handle of the sign-in of one upstream server. Cheap to clone.
#[derive(Clone)]
pub(crate) struct SignIn(Arc<Auth>);

impl SignIn {
    pub(in crate::upstream) fn new(auth: Arc<Auth>) -> SignIn {
        SignIn(auth)
    }

    /// Whether a request now could start a sign-in (no token valid for
    /// more than a minute): then the discover limit grows by the sign-in
    /// limit.
    pub(crate) fn may_start(&self) -> bool {
        !self.0.has_valid_token()
    }

    /// The `sign_in_timeout` error when a sign-in runs now, or was stopped
    /// by a time limit (the limit names the sign-in, not the request).
    pub(crate) fn stopped_error(&self) -> Option<BridgeError> {
        self.0.take_signing_in().then(|| self.0.timeout_error())
    }

    /// Resolves at the next completed sign-in.
    pub(crate) async fn completed(&self) {
        let mut sign_ins = self.0.sign_ins();
        if sign_ins.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }

    /// The first initialize is over: a later sign-in needs the consent of
    /// the client.
    pub(crate) fn end_interactive(&self) {
        self.0.end_interactive();
    }
}
