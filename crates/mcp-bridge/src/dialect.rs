//! How the client of one connection differs from another: the one place
//! that says it. A [`Dialect`] is the product's quirks, the revision the
//! client negotiated, and the icon rule that the quirks and the upstream
//! give. The full path (`translate`) and the raw path (`raw`) of results
//! read it, and it decides, once per request, whether a result may take
//! the raw path at all.

use crate::method::Method;
use crate::profile::{Profile, Quirks, Revision};

/// Which icons of the upstream server the client gets (behaviour spec,
/// "Icons of a remote upstream server (M4)").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IconRule {
    /// Every icon (a stdio upstream, the memory link).
    All,
    /// Only the icons with a `data:` URI (an upstream at a URL).
    DataOnly,
}

/// What the client of one connection reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dialect {
    pub quirks: Quirks,
    pub revision: Revision,
    pub icons: IconRule,
}

impl Dialect {
    /// The dialect of a client of `revision` under `profile`, whose
    /// upstream is `remote` or not.
    pub(crate) fn new(profile: &Profile, revision: Revision, remote: bool) -> Dialect {
        let icons = if remote && profile.quirks.data_only_remote_icons { IconRule::DataOnly } else { IconRule::All };
        Dialect { quirks: profile.quirks, revision, icons }
    }

    /// The revision that a client asking for `requested` gets: that one
    /// when the bridge serves it, else the profile's (the MCP lifecycle: a
    /// server answers a version it does not support with one it does).
    pub(crate) fn negotiate(requested: &str, profile: &Profile) -> Revision {
        Revision::parse(requested).unwrap_or(profile.reply_protocol_version)
    }

    /// Whether a result of `method` may take the raw path: the raw path
    /// writes revision 2025-11-25 only, applies every quirk it implements,
    /// and leaves the results whose icons the rule of a remote server
    /// filters to the full path (`Method::may_stay_raw`). Decided once, at
    /// the start of the request; the raw path itself steps aside only for
    /// what it finds in a result.
    pub(crate) fn raw_result(&self, method: Method) -> bool {
        self.revision == Revision::LATEST
            && self.quirks.raw_path_implements()
            && method.may_stay_raw(self.icons == IconRule::DataOnly)
    }

    /// Whether the icon rule can change a result of `method`: the items of
    /// the four lists, the resource links of a `tools/call` result's
    /// content and of a `prompts/get` result's messages.
    pub(crate) fn filters_icons(&self, method: Method) -> bool {
        self.icons == IconRule::DataOnly && method.icons_filtered()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dialect(revision: Revision, remote: bool) -> Dialect {
        Dialect::new(&Profile::vscode(), revision, remote)
    }

    /// The lifecycle's negotiation: a revision the bridge serves is
    /// answered as asked; any other gets the profile's.
    #[test]
    fn a_served_revision_is_kept_and_any_other_gets_the_profiles() {
        let profile = Profile::vscode();
        assert_eq!(Dialect::negotiate("2025-06-18", &profile), Revision::V2025_06_18);
        assert_eq!(Dialect::negotiate("2024-11-05", &profile), Revision::V2024_11_05);
        for other in ["2026-07-28", "1.0", ""] {
            assert_eq!(Dialect::negotiate(other, &profile), Revision::V2025_11_25, "{other}");
        }
    }

    /// The one decision of the raw path: only 2025-11-25, and for a remote
    /// upstream not what the icon rule filters (`tools/call` checks its
    /// resource links itself).
    #[test]
    fn the_raw_path_serves_the_latest_revision_and_steps_aside_for_the_icon_rule() {
        for method in Method::ALL {
            assert!(dialect(Revision::LATEST, false).raw_result(method), "{method:?}");
            for older in [Revision::V2024_11_05, Revision::V2025_03_26, Revision::V2025_06_18] {
                assert!(!dialect(older, false).raw_result(method), "{method:?} for {older}");
            }
        }
        let remote: Vec<Method> =
            Method::ALL.into_iter().filter(|m| dialect(Revision::LATEST, true).raw_result(*m)).collect();
        assert_eq!(remote, [Method::ToolsCall, Method::ResourcesRead, Method::CompletionComplete]);
        let mut profile = Profile::vscode();
        profile.quirks.data_only_remote_icons = false;
        assert_eq!(Dialect::new(&profile, Revision::LATEST, true).icons, IconRule::All, "the quirk is off");
    }
}
