//! The tests of the crate's public API, in one binary: the error table
//! against the spec's, the fuzz corpora replayed on stable Rust, and the
//! embedded mode's return. The allocation budget has a binary of its own
//! (`tests/allocations.rs`): its counting allocator is global.

mod embed_return;
mod error_table;
mod fuzz_corpus;
