//! Input requests (behaviour spec, "Input requests (M2)"): the multi
//! round-trip requests of revision 2026-07-28 become requests of the
//! bridge to a 2025-11-25 client.

mod answers;
pub(crate) mod checks;
pub(crate) mod questions;
pub(crate) mod schema;
mod shape;
