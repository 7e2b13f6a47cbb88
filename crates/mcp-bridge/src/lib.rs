//! mcp-bridge: the core of a bridge between a client of MCP revision
//! 2025-11-25 and an upstream server of revision 2026-07-28.
//!
//! The rules are those of a written behaviour spec, the translation rules,
//! kept beside the repository; each module names the section it follows,
//! and the repository's README says what a user needs of them.
#![deny(clippy::print_stdout)]

pub mod profile;
pub mod translate;

pub use profile::{MetaPassthrough, Profile, Quirks};
#[cfg(feature = "embed")]
pub mod embed;
pub mod fast;
pub mod framing;
pub mod frontend;
pub mod input;
pub mod jsonrpc;
pub mod listener;
pub mod output;
mod support;

pub use support::format_limit;
pub mod upstream;

// Test support for the fuzz targets and the property tests; not API.
#[doc(hidden)]
pub mod props;
