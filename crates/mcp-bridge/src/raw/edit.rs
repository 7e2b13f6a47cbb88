//! The vocabulary that the rules over the raw text share: the members of a
//! result as they came, and what becomes of one of them.

use bytes::Bytes;
use std::borrow::Cow;

/// The members of a result, in the order they came: each name, decoded,
/// with its value's text. A short list searched in order: a result has a
/// handful of members, and hashing each name cost more than the search.
/// A result with more than [`Members::MOST`] members goes to the full
/// path, so that the search stays short.
pub(crate) struct Members<'a>(Vec<(Cow<'a, str>, &'a str)>);

impl<'a> Members<'a> {
    /// The most members the raw path takes.
    pub(crate) const MOST: usize = 64;

    pub(crate) fn new() -> Self {
        Members(Vec::with_capacity(8))
    }

    /// Adds a member. A name that comes twice keeps its first place and
    /// takes its last value, as in a `serde_json::Map` with
    /// `preserve_order`. `None` when the result has too many members.
    pub(crate) fn insert(&mut self, name: Cow<'a, str>, value: &'a str) -> Option<()> {
        if let Some(member) = self.0.iter_mut().find(|(known, _)| *known == name) {
            member.1 = value;
        } else if self.0.len() < Self::MOST {
            self.0.push((name, value));
        } else {
            return None;
        }
        Some(())
    }

    /// The text of the value of `name`.
    pub(crate) fn get(&self, name: &str) -> Option<&'a str> {
        self.0.iter().find(|(known, _)| known == name).map(|(_, value)| *value)
    }

    /// Takes out every member named in `names`, keeping the order of the rest.
    pub(crate) fn remove(&mut self, names: &[&str]) {
        self.0.retain(|(name, _)| !names.contains(&&**name));
    }

    /// The members in order: each name with its value's text.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &'a str)> {
        self.0.iter().map(|(name, value)| (&**name, *value))
    }
}

/// What becomes of a member of the result.
pub(crate) enum Edit {
    Drop,
    Replace(Bytes),
}

/// The edits of the result's members, by name.
pub(crate) type Edits = Vec<(&'static str, Edit)>;
