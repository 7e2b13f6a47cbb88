//! How a sign-in after the first initialize asks the client: whether it
//! may ask now, the URL elicitation itself, and the cool-down after the
//! user declined.

use crate::gate::url::CheckedUrl;
use crate::jsonrpc::{BridgeError, Cause};
use crate::sync::lock;
use crate::upstream::later_sign_in::{Consent, ConsentFn, ConsentStep};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// After a declined sign-in, no new question to the client for this long.
const DECLINE_COOLDOWN: Duration = Duration::from_secs(60);

/// Asks the client on behalf of a later sign-in.
pub(crate) struct Asker {
    consent: ConsentFn,
    /// When the user last declined a later sign-in: no new question before
    /// the cool-down is over.
    declined_at: Mutex<Option<Instant>>,
}

impl Asker {
    pub(super) fn new(consent: ConsentFn) -> Asker {
        Asker { consent, declined_at: Mutex::new(None) }
    }

    /// Whether a later sign-in may start: not in the cool-down, and the
    /// client can be asked.
    pub(super) async fn may_ask(&self) -> Result<(), BridgeError> {
        if lock(&self.declined_at).is_some_and(|at| at.elapsed() < DECLINE_COOLDOWN) {
            return Err(BridgeError::new(Cause::ReauthorizationRequired).with_detail("cooldown"));
        }
        if (self.consent)(ConsentStep::CanAsk).await != Consent::Accepted {
            return Err(BridgeError::new(Cause::ReauthorizationRequired).with_detail("no_consent"));
        }
        Ok(())
    }

    /// Asks the client to open the URL of a later sign-in (with the code of
    /// a device sign-in).
    pub(super) async fn ask(&self, url: &CheckedUrl, code: Option<&str>) -> Result<(), BridgeError> {
        let step = ConsentStep::Ask { url: url.clone(), code: code.map(str::to_owned) };
        match (self.consent)(step).await {
            Consent::Accepted => Ok(()),
            Consent::Declined => {
                *lock(&self.declined_at) = Some(Instant::now());
                Err(BridgeError::new(Cause::ReauthorizationRequired).with_detail("declined"))
            }
            Consent::CannotAsk => Err(BridgeError::new(Cause::ReauthorizationRequired).with_detail("no_consent")),
        }
    }

    /// The URL step of the client is over, whatever the outcome.
    pub(super) async fn done(&self) {
        (self.consent)(ConsentStep::Done).await;
    }
}
