//! How the bridge signs in to a server at a URL.

use super::fetch;
use super::place::Place;
use super::register::ClientOptions;
use super::store::Store;
use std::time::Duration;

/// The time limit of a sign-in by default.
const SIGN_IN_TIME_LIMIT: Duration = Duration::from_secs(300);

/// How the bridge signs in to a server at a URL that asks for it (OAuth
/// 2.1 with PKCE, or the device grant), and keeps the tokens for the next
/// start ([`AuthOptions::new`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AuthOptions {
    /// The OAuth client the bridge signs in as.
    pub client: ClientOptions,
    /// The port of the loopback redirect; without it the port the store
    /// kept for the server, else a new one.
    pub redirect_port: Option<u16>,
    /// Whether a sign-in during initialize opens the browser on the user's
    /// machine (its URL is in the log either way).
    pub browser: bool,
    /// The time limit of a sign-in.
    pub sign_in_timeout: Duration,
    /// The program that the message of a sign-in that took too long tells
    /// the user to run with `logout`.
    pub program: String,
    /// The bridge runs in a sandbox that blocks the browser and the
    /// redirect port: a sign-in fails at once with `sandbox`.
    pub sandbox: bool,
    pub(crate) store: Store,
    /// The time limit of each request of the sign-in and of a refresh
    /// (30 s).
    pub request_limit: Duration,
    /// How long before its expiry an access token is refreshed, in whole
    /// seconds; `None` (the default): when a quarter of its life is left,
    /// and at most 60 s before. A test sets a long one to make a token due
    /// at once.
    pub refresh_ahead: Option<Duration>,
    /// How a sign-in reaches the user.
    pub sign_in: SignInMode,
    /// Where the bridge runs (`Place::here()`): on a remote host no
    /// browser opens, and `auto` takes the device grant.
    pub(crate) place: Place,
    /// The client's own way to carry a port to the user's machine, for the
    /// advice of a sign-in on a remote host: the front end sets its
    /// client's ([`Words::port_forwarding`](crate::Words)); VS Code's by default.
    pub(crate) port_forwarding: Option<String>,
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
            refresh_ahead: None,
            sign_in: SignInMode::Auto,
            place: Place::here(),
            port_forwarding: crate::profile::Words::vscode().port_forwarding,
        })
    }
}

/// How a sign-in reaches the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
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
