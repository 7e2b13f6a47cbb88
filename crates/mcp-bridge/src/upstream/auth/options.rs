//! The sign-in options of the command line.

use super::place::Place;
use super::register::ClientOptions;
use super::store::Store;
use std::time::Duration;

/// The sign-in options of the command line.
#[derive(Debug, Clone)]
pub struct AuthOptions {
    pub client: ClientOptions,
    /// `--redirect-port`; without it the port of the store, else a new one.
    pub redirect_port: Option<u16>,
    /// Open the browser (`--no-browser` turns it off).
    pub browser: bool,
    /// `--sign-in-timeout`.
    pub sign_in_timeout: Duration,
    /// The name of the executable, for the message of `sign_in_timeout`.
    pub program: String,
    /// `SANDBOX_RUNTIME=1`: a sign-in fails at once with `sandbox`.
    pub sandbox: bool,
    pub store: Store,
    /// The time limit of each request of the sign-in and of a refresh
    /// (`fetch::TIME_LIMIT`; shorter in tests).
    pub request_limit: Duration,
    /// `--sign-in`: how a sign-in reaches the user.
    pub sign_in: SignInMode,
    /// Where the bridge runs (`Place::here()`): on a remote host no
    /// browser opens, and `auto` takes the device grant.
    pub place: Place,
}

/// How a sign-in reaches the user (`--sign-in`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SignInMode {
    /// The device grant on a remote host when the authorization server
    /// offers it and the registration allows it; else the browser.
    #[default]
    Auto,
    /// The authorization code flow through the loopback redirect.
    Browser,
    /// The device grant (RFC 8628), wherever the bridge runs.
    Device,
}
