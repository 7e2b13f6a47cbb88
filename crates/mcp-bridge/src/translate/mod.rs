//! Pure `Value -> Value` rules. No I/O, no async: each function changes only
//! the members its rule names and keeps every other member as it came.

pub(crate) mod capabilities;
pub(crate) mod discover;
pub(crate) mod icons;
pub(crate) mod items;
pub(crate) mod meta;
pub(crate) mod note;
pub(crate) mod params;
pub(crate) mod result;
pub(crate) mod revision;
