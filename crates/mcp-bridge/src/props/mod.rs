//! The properties of the pure parts of the bridge, shared by the fuzz
//! targets (`fuzz/`, libFuzzer) and the property tests
//! (`tests/properties_*.rs`, proptest on stable Rust).
//!
//! Test support, not API: hidden from the docs and not covered by semver.
//! It lives in the library so that both runners check a property with the
//! same code. Each check returns the first broken property as `Err(text)`
//! instead of panicking: proptest then shrinks the input, and a fuzz target
//! panics with the text so that libFuzzer saves the input.
//!
//! A property here is stated from the behaviour spec, not from the code
//! under test: a reference model (the line reader), another way to compute
//! the same thing (the depth scan against the parser), or a relation that
//! must hold between input and output (a rule keeps every member it does
//! not name).

pub mod auth;
pub(crate) mod bytes;
pub(crate) mod chunked;
pub mod framing;
pub mod handshake;
pub mod http;
pub mod input;
pub mod listen;
pub mod raw;
pub mod redirect;
pub mod translate;

/// The outcome of a check: `Err` names the broken property.
pub type Checked = Result<(), String>;

/// Returns `Err(format!(...))` from the check when the condition is false.
macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}
pub(crate) use ensure;

/// The JSON text of a value, with member order and number text: the way
/// to compare two values exactly, because `Value`'s `==` ignores the order
/// of members.
pub(crate) fn text(value: &serde_json::Value) -> String {
    value.to_string()
}
