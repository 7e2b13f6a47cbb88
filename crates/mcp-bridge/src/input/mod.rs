//! Input requests (behaviour spec, "Input requests (M2)"): the multi
//! round-trip requests of revision 2026-07-28 become requests of the
//! bridge to a 2025-11-25 client.

mod answers;
pub mod checks;
pub mod questions;
pub mod schema;
pub mod url;
