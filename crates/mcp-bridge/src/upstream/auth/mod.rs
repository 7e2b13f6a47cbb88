//! Sign-in for an upstream server at a URL (behaviour spec, "Sign-in during
//! initialize (M4)" and the sign-in rows of the error table; 2026-07-28
//! `basic/authorization/`). The HTTP transport asks it for the bearer token
//! of each request and tells it of a 401 or an `insufficient_scope` 403;
//! nothing above `upstream` knows OAuth.
//!
//! - `session`: the sign-in of one server ([`Auth`]): the bearer token of
//!   each request (`token`), its refresh, a new sign-in; `options` are its
//!   command-line options, `ask` how a later one asks the client;
//! - `challenge`: the `WWW-Authenticate` header (pure);
//! - `discovery`: protected resource and authorization server metadata;
//! - `fetch`: every request of the sign-in, bounded in size and time;
//! - `handle`: the sign-in as the layers above see it ([`SignIn`]);
//! - `register`: pre-registered, metadata document, dynamic registration;
//! - `redirect`: the redirect listener and the one-time start URL;
//! - `device`, `place`: the device grant, and where the bridge runs;
//! - `signin`: PKCE, the `iss` check, the token and refresh requests;
//! - `store`: the registrations and tokens, per resource and issuer;
//!   `record` is what it keeps of a server, `vault` where the secrets
//!   live, `shared` the read-modify-write that bridges on one server share.
//!
//! This file only names the parts; no child imports it.
//!
//! No token, code, verifier, secret, URL path or query reaches a message,
//! a detail or a log line.

mod ask;
pub(crate) mod challenge;
mod device;
pub(crate) mod discovery;
mod fetch;
mod handle;
mod local;
mod options;
mod place;
mod record;
pub(crate) mod redirect;
pub(crate) mod register;
mod session;
mod shared;
mod signin;
mod store;
mod token;
mod vault;

pub(crate) use fetch::{Fetcher, MakeClient};
pub(crate) use handle::SignIn;
pub use options::{AuthOptions, SignInMode};
pub use register::ClientOptions;
pub(crate) use session::Auth;
pub use store::Store;
