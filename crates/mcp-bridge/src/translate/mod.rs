//! Pure `Value -> Value` rules. No I/O, no async: each function changes only
//! the members its rule names and keeps every other member as it came.

pub mod capabilities;
pub mod icons;
pub mod initialize;
pub mod items;
pub mod meta;
pub mod note;
pub mod params;
pub mod result;
