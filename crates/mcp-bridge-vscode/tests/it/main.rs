//! The integration tests of `mcp-bridge-vscode`, in one test binary (cargo
//! links each top-level file under `tests/` as a binary of its own): one
//! module per area, and [`support`], which drives the real binary, starts
//! the scripted fakes (tests/fake) and the pinned peers (tests/peers), and
//! reads the messages of the error table.
//!
//! Run one area with `scripts/test -E 'test(/^faults::/)'`, one test with
//! `scripts/test -E 'test(name)'`.
//!
//! `arguments`, `demo` and `embed` need neither the peers nor the fakes:
//! they are the tests that `scripts/package-crates` runs in the packaged
//! crate.

mod support;

mod arguments;
mod auth;
mod bad_input;
mod check;
mod client_words;
mod client_words_attack;
mod command_line;
mod demo;
mod embed;
mod embed_peers;
mod exactness;
mod face;
mod face_peers;
mod faults;
mod http;
mod http_peers;
mod input;
mod input_peers;
mod lifecycle;
mod lines;
mod listen;
mod live_peers;
mod logging;
mod meta;
mod older_revisions;
mod peers;
mod raw;
mod revisions;
mod scripts;
mod soak;
mod stdout_noise;
