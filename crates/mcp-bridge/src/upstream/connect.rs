//! Connecting to the upstream server (steps 3 and 4 of the first
//! initialize): each kind of upstream makes its transport, the inbox that
//! its readers hand messages to, the client over both, and the hooks that
//! only it has.

use super::auth::SignIn;
use super::client::Client;
use super::hooks::{Hooks, Identity};
use super::http;
use super::inbox::Inbox;
use super::lines;
use super::stdio::{self, StdioCommand};
use super::transport::Transport;
use crate::jsonrpc::{BridgeError, Cause};
use std::sync::Arc;

/// Where the upstream server is.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum UpstreamSpec {
    /// A child process over stdio.
    Stdio(StdioCommand),
    /// A server at a URL, over Streamable HTTP.
    Http(Box<http::HttpOptions>),
    /// A server in this process, over an in-memory duplex (the embedded
    /// mode). A factory, because a failed `initialize` starts the upstream
    /// again.
    Memory(MemoryLink),
}

/// Makes the client's end of a new in-memory link to a server in this
/// process; the server serves the other end.
#[derive(Clone)]
pub struct MemoryLink(Arc<dyn Fn() -> tokio::io::DuplexStream + Send + Sync>);

impl MemoryLink {
    /// A link whose every new connection is a duplex from `connect`: the
    /// caller serves the other end of each.
    pub fn new(connect: impl Fn() -> tokio::io::DuplexStream + Send + Sync + 'static) -> MemoryLink {
        MemoryLink(Arc::new(connect))
    }
}

impl std::fmt::Debug for MemoryLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemoryLink")
    }
}

/// A connected upstream: the client, and the handle of its sign-in when it
/// has one (a URL with sign-in).
pub(crate) struct Connection {
    pub client: Client,
    pub sign_in: Option<SignIn>,
}

/// Makes the client for an upstream server: starts the command, opens the
/// in-memory link, or makes the HTTP client for the URL. `max_line_bytes`
/// bounds each line of a pipe.
pub(crate) fn connect(
    spec: &UpstreamSpec,
    identity: Identity,
    hooks: Hooks,
    max_line_bytes: usize,
) -> Result<Connection, BridgeError> {
    let inbox = Arc::new(Inbox::new(hooks.on_log));
    match spec {
        UpstreamSpec::Stdio(command) => {
            let (lines, child) = stdio::spawn(command, max_line_bytes)?;
            child.start(inbox.clone());
            let client = Client::new((Transport::Lines(lines), inbox), &identity, hooks.log_level, None);
            Ok(Connection { client, sign_in: None })
        }
        UpstreamSpec::Memory(link) => {
            let (lines, pipe) = lines::open(tokio::io::split((link.0)()), max_line_bytes, None);
            let mut tasks = pipe.start(inbox.clone());
            // Nothing of ours owns the far end: its end is `closed`.
            let lost = inbox.clone();
            tokio::spawn(async move {
                tasks.ended().await;
                lost.mark_lost(BridgeError::new(Cause::Closed));
            });
            let client = Client::new((Transport::Lines(lines), inbox), &identity, hooks.log_level, None);
            Ok(Connection { client, sign_in: None })
        }
        UpstreamSpec::Http(options) => {
            let http = http::Http::new(options, hooks.consent, inbox.clone())?;
            let (sign_in, observer) = (http.sign_in(), http.result_observer());
            let client = Client::new((Transport::Http(http), inbox), &identity, hooks.log_level, Some(observer));
            Ok(Connection { client, sign_in })
        }
    }
}
