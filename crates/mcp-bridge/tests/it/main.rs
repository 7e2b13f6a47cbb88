//! The tests of the crate's public API, in one binary: the error table
//! against the spec's, the embedded mode's return, the example as a
//! newcomer runs it (`embedded_example`), and the import rule of
//! the house (`house`, read from the source). Two have a binary of
//! their own: the allocation budget (`tests/allocations.rs`), whose
//! counting allocator is global, and the replay of the fuzz corpora
//! (`tests/fuzz_corpus.rs`), which reads the workspace's `fuzz/` folder and
//! so is left out of the published package.

mod embed_return;
mod embedded_example;
mod error_table;
mod house;
