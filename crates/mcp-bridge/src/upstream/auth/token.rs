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

    /// Whether it is time for a refresh: a part of its life is left, or
    /// the margin `ahead` of the options (`AuthOptions::refresh_ahead`),
    /// in seconds, when they give one.
    pub(super) fn refresh_due(&self, now: u64, ahead: Option<u64>) -> bool {
        let part = || self.lifetime.map_or(REFRESH_AHEAD_SECS, |life| (life / REFRESH_PART).min(REFRESH_AHEAD_SECS));
        !self.valid_for(now, ahead.unwrap_or_else(part))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(expires_in: u64, lifetime: Option<u64>) -> Token {
        Token { value: "t".into(), expires_at: Some(1000 + expires_in), lifetime }
    }

    /// A quarter of its life, at most a minute; a token of the store (its
    /// life unknown) a minute; a margin of the options instead of both.
    #[test]
    fn a_token_is_due_when_its_part_or_the_given_margin_is_left() {
        // 8 s of life: due when 2 s are left.
        assert!(!token(8, Some(8)).refresh_due(1005, None));
        assert!(token(8, Some(8)).refresh_due(1006, None));
        // An hour: due when a minute is left.
        assert!(!token(3600, Some(3600)).refresh_due(4539, None));
        assert!(token(3600, Some(3600)).refresh_due(4540, None));
        assert!(token(60, None).refresh_due(1000, None));
        assert!(!token(61, None).refresh_due(1000, None));
        // A margin of the options.
        assert!(token(8, Some(8)).refresh_due(1000, Some(3600)));
        assert!(!token(3600, Some(3600)).refresh_due(1000, Some(10)));
        assert!(!Token { expires_at: None, ..token(0, None) }.refresh_due(1000, Some(3600)));
    }
}
