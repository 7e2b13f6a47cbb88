//! The sign-in options of the command line.

use super::fetch;
use super::place::Place;
use super::register::ClientOptions;
use super::store::Store;
use std::time::Duration;

/// The time limit of a sign-in by default.
const SIGN_IN_TIME_LIMIT: Duration = Duration::from_secs(300);

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
    pub(crate) store: Store,
    /// The time limit of each request of the sign-in and of a refresh
    /// (`fetch::TIME_LIMIT`; shorter in tests).
    pub request_limit: Duration,
    /// `--sign-in`: how a sign-in reaches the user.
    pub sign_in: SignInMode,
    /// Where the bridge runs (`Place::here()`): on a remote host no
    /// browser opens, and `auto` takes the device grant.
    pub(crate) place: Place,
}

impl AuthOptions {
    /// The sign-in of the product `name` (the `client_name` of a dynamic
    /// registration, and the program of `logout` in the message of a
    /// sign-in that took too long), with its tokens in the user's store,
    /// which opens here (`Err` says why it cannot be used), and the
    /// defaults: a redirect port from the store or a new one, the browser
    /// on the user's machine, 300 s for a sign-in, the grant that fits
    /// where the bridge runs.
    pub fn new(name: impl Into<String>) -> Result<AuthOptions, String> {
        let name = name.into();
        Ok(AuthOptions {
            client: ClientOptions { name: name.clone(), ..ClientOptions::default() },
            redirect_port: None,
            browser: true,
            sign_in_timeout: SIGN_IN_TIME_LIMIT,
            program: name,
            sandbox: false,
            store: Store::open()?,
            request_limit: fetch::TIME_LIMIT,
            sign_in: SignInMode::Auto,
            place: Place::here(),
        })
    }
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
