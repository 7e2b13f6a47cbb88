//! mcp-bridge: the core of a bridge between MCP clients of the older
//! revisions (2024-11-05 to 2025-11-25) and an upstream server of revision
//! 2026-07-28. Toward each client it is a server of the client's revision,
//! over stdio or over HTTP for many clients ([`serve_http`]); toward the
//! upstream it is a 2026-07-28 client of a child process, a URL (Streamable
//! HTTP with OAuth sign-in) or a server in the same process.
//!
//! # What an embedder touches
//!
//! - [`serve`] serves one connection of a client on any reader and writer,
//!   with its [`Config`] ([`Timeouts`], the [`NoteSink`] of the result
//!   rules) until its input ends or the upstream is lost ([`Exit`]).
//! - [`Profile`]: the product's settings ([`Quirks`], [`MetaPassthrough`],
//!   the [`Words`] of its messages, which a known client gets in its own
//!   terms); [`Profile::vscode`] is VS Code's, [`Profile::new`] another's.
//! - [`UpstreamSpec`]: where the upstream server is, with its options
//!   ([`StdioCommand`], [`HttpOptions`] and the sign-in's [`AuthOptions`],
//!   [`MemoryLink`]).
//! - [`BridgeError`] and its [`Cause`]: the error table of the behaviour
//!   spec.
//! - `embed` (feature `embed`): one stdio connection of an `rmcp` server,
//!   for clients of both revisions.
//!
//! Each option struct has a constructor with the spec's defaults
//! ([`Config::new`], [`HttpOptions::new`], [`AuthOptions::new`], ...) and
//! public fields to change after it; the structs and enums that will grow
//! are `#[non_exhaustive]`. [`cli_support`] is for the `mcp-bridge-vscode`
//! executable, not for an embedder.
//!
//! # Layout
//!
//! Layers import downward only, from the top:
//!
//! - `embed` (feature `embed`): one stdio connection of an `rmcp` server;
//!   `face`: the HTTP face, a `frontend` connection per session;
//!   `cli_support`: what only the executable needs.
//! - `frontend`: the state machine toward the client and its dispatch.
//! - `listener`: the listen stream, one owner task.
//! - `upstream`: the 2026-07-28 client and its transports (stdio, HTTP with
//!   its sign-in, the in-memory link).
//! - `raw`: the result rules over the raw text of a result; `output`: the
//!   one writer of the client's stream.
//! - `pipe`: the bounded line reader, the writer, the kept buffer.
//! - `framing` (what a line is), `input` (input requests into questions),
//!   `translate` (the pure `Value` rules): no I/O.
//! - `jsonrpc` (the envelope, ids, the error table), `method` (what a
//!   forwarded method is), `dialect` (how a client differs: quirks,
//!   revision, icon rule), `profile` (the product, its clients' words,
//!   the revisions),
//!   `gate` (the one way outside data is shown), `sync`.
//!
//! ARCHITECTURE.md at the root of the repository is the map.
#![deny(clippy::print_stdout)]
#![warn(unreachable_pub)]

pub mod cli_support;
mod dialect;
#[cfg(feature = "embed")]
pub mod embed;
mod face;
mod framing;
mod frontend;
mod gate;
mod input;
mod jsonrpc;
mod listener;
mod method;
mod output;
mod pipe;
mod profile;
mod raw;
mod sync;
mod translate;
mod upstream;

// Test support for the fuzz targets and the property tests; not API.
#[cfg(any(test, feature = "props"))]
#[doc(hidden)]
pub mod props;

#[cfg(test)]
mod tests;

pub use face::{serve_http, FaceOptions};
pub use frontend::{serve, Config, Exit, NoteSink, Timeouts};
pub use jsonrpc::{BridgeError, Cause};
pub use listener::ListenTimings;
pub use profile::{MetaPassthrough, Profile, Quirks, Revision, Words};
pub use translate::note::{Level, Note};
pub use upstream::auth::{AuthOptions, ClientOptions, SignInMode};
pub use upstream::http::{CaBundle, HttpOptions, SecretHeader};
pub use upstream::{MemoryLink, StdioCommand, UpstreamSpec};
