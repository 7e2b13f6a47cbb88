//! The 2026-07-28 client toward the upstream server.
//!
//! One client, interchangeable transports: the client (`client`) owns the
//! ids, the per-request `_meta`, the time limits and cancellation; a
//! transport (`transport`) only moves messages out; what comes in, each
//! transport's reader hands inline to the inbox (`inbox`), which holds the
//! table of requests in flight: progress and log messages reach their
//! callbacks before the reader hands over the next message, so they keep
//! their order relative to the responses.
//!
//! The sign-in of a server at a URL (`auth`) sits beside the HTTP
//! transport, which uses it; the layers above see only its handle
//! (`SignIn`) and the words of a later sign-in's consent
//! (`later_sign_in`): nothing above `upstream` knows OAuth.
//!
//! This file only names the parts; no child imports it.

pub(crate) mod auth;
mod client;
pub(crate) mod command;
mod connect;
mod hooks;
pub(crate) mod http;
mod inbox;
mod later_sign_in;
mod lines;
mod listen;
mod noise;
mod outgoing;
mod pending;
mod request;
mod shared;
mod stdio;
mod stream;
mod transport;

pub(crate) use auth::SignIn;
#[cfg(feature = "embed")]
pub(crate) use client::MAX_IN_FLIGHT;
pub(crate) use client::{Call, CallError, Client, Payload, Relay, Slot};
pub(crate) use connect::{connect, Connection};
pub use connect::{MemoryLink, UpstreamSpec};
pub(crate) use hooks::{Hooks, Identity, LogLevel, LogSink};
#[cfg(any(test, feature = "props"))]
pub(crate) use inbox::UPSTREAM_MAX_DEPTH;
pub(crate) use later_sign_in::{Consent, ConsentFn, ConsentStep};
pub(crate) use outgoing::UpstreamMethod;
pub(crate) use pending::ProgressSink;
pub(crate) use shared::SharedLink;
pub use stdio::StdioCommand;
pub(crate) use stream::{Listen, StreamEnd, StreamEvent, StreamSink, StreamStop, LISTEN_METHOD, SUBSCRIPTION_ID_KEY};
