//! The tests of the crate's public API, in one binary: the error table
//! against the spec's, the embedded mode's return, the example as a
//! newcomer runs it (`embedded_example`), the replay of the fuzz corpora
//! (`fuzz_corpus`), and the import rule of the house (`house`, read from
//! the source). The allocation budget has a binary of its own
//! (`tests/allocations.rs`): its counting allocator is global.

mod embed_return;
mod embedded_example;
mod error_table;
mod fuzz_corpus;
mod house;
