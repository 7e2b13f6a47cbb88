//! The access token in use, and when it is due for a refresh.

use super::record::Grant;

/// A sign-in can start during `server/discover` unless the access token is
/// valid for longer than this (behaviour spec, "Sign-in during
/// initialize"); it is also the most of its life that a token has left
/// when it is refreshed.
pub(super) const REFRESH_AHEAD_SECS: u64 = 60;
/// A token is refreshed when this part of its lifetime is left (and at most
/// [`REFRESH_AHEAD_SECS`]): a token valid for a minute is not refreshed
/// before every request.
const REFRESH_PART: u64 = 4;

/// The access token in use.
#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) value: String,
    /// When it expires, in seconds since the Unix epoch.
    pub(super) expires_at: Option<u64>,
    /// How long it was valid when it came; unknown for a token of the
    /// store.
    pub(super) lifetime: Option<u64>,
}

impl Token {
    pub(super) fn of(grant: &Grant, now: u64) -> Option<Token> {
        let value = grant.access_token.clone()?;
        let lifetime = grant.expires_at.map(|at| at.saturating_sub(now));
        Some(Token { value, expires_at: grant.expires_at, lifetime })
    }

    /// Whether it is valid for longer than `secs` from `now`. The wall
    /// clock, not a monotonic one: it goes on while the machine sleeps.
    pub(super) fn valid_for(&self, now: u64, secs: u64) -> bool {
        self.expires_at.is_none_or(|at| at > now + secs)
    }

    /// Whether it is time for a refresh: a part of its life is left.
    pub(super) fn refresh_due(&self, now: u64) -> bool {
        let ahead = self.lifetime.map_or(REFRESH_AHEAD_SECS, |life| (life / REFRESH_PART).min(REFRESH_AHEAD_SECS));
        !self.valid_for(now, ahead)
    }
}
