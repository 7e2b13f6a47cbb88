//! The vocabulary that the rules over the raw text share: the members of a
//! result as they came, and what becomes of one of them.

use bytes::Bytes;
use indexmap::IndexMap;
use std::borrow::Cow;

/// The members of a result: each name, decoded, with its value's text.
pub(crate) type Members<'a> = IndexMap<Cow<'a, str>, &'a str>;

/// What becomes of a member of the result.
pub(crate) enum Edit {
    Drop,
    Replace(Bytes),
}

/// The edits of the result's members, by name.
pub(crate) type Edits = Vec<(&'static str, Edit)>;
