//! The crate's tests that read its inner parts: the properties of the
//! pure parts on stable Rust (proptest, the same functions as the fuzz
//! targets: `crate::props`), the checks of input requests, and the result
//! rules against their golden fixtures. Tests of the public API live in
//! `tests/`.

mod input_checks;
mod properties_framing;
mod properties_input;
mod properties_raw;
mod properties_remote;
mod properties_translate;
mod result_rules;
mod strategies;
