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
use super::transport::{FarEnd, Transport};
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

impl UpstreamSpec {
    /// Whether the server is remote, for the icon rule of the behaviour
    /// spec ("Icons of a remote upstream server"): a server at a URL is;
    /// a command's or one in this process is not. The same answer as the
    /// client's over the transport that the spec makes.
    pub fn is_remote(&self) -> bool {
        self.far_end().is_remote()
    }

    /// What the far end of its transport is.
    fn far_end(&self) -> FarEnd {
        match self {
            UpstreamSpec::Stdio(_) | UpstreamSpec::Memory(_) => FarEnd::Pipe,
            UpstreamSpec::Http(_) => FarEnd::Url,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::hooks::LogLevel;
    use crate::upstream::later_sign_in::Consent;
    use serde_json::json;

    /// A spec is remote when the client that it makes is: only a URL.
    #[tokio::test]
    async fn a_spec_and_its_client_agree_that_only_a_url_is_remote() {
        let memory = UpstreamSpec::Memory(MemoryLink::new(|| tokio::io::duplex(64).0));
        let url = UpstreamSpec::Http(Box::new(http::HttpOptions::new("https://mcp.example.com/mcp").expect("a URL")));
        for (spec, remote) in [(memory, false), (url, true)] {
            let hooks = Hooks {
                on_log: Arc::new(|_| {}),
                log_level: LogLevel::default(),
                consent: Arc::new(|_| Box::pin(async { Consent::CannotAsk })),
            };
            let identity = Identity { client_info: json!({"name": "t"}), capabilities: json!({}) };
            let client = connect(&spec, identity, hooks, 1 << 10).map(|c| c.client).expect("a client");
            assert_eq!((spec.is_remote(), client.is_remote()), (remote, remote), "{spec:?}");
        }
        assert!(!UpstreamSpec::Stdio(StdioCommand::new("server", ["--stdio"])).is_remote());
    }
}
