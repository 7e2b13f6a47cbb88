//! The embedded bridge (behaviour spec, "The embedded bridge (M5)"): one
//! stdio connection of an `rmcp` server, served to a client of either
//! revision from inside the server's own process.
//!
//! The first request of the client picks the path (`route`): `initialize`
//! takes the legacy path, where a front end with the caller's profile
//! serves the client and its upstream is the same server over an in-memory
//! link (`UpstreamSpec::Memory`), so every rule of this bridge applies; any
//! other request, a notification or a response takes the modern path,
//! where rmcp's own server serves the client. A `server/discover` before
//! the first other request picks no path (the discover rule). The bytes
//! after the first request come from the same reader, so two messages in
//! one write both reach the path.

mod modern;
mod options;
mod readable;
mod route;

pub use options::{Discover, Options};
pub use route::Route;

use crate::frontend::{self, Config, Exit, Timeouts};
use crate::upstream::{MemoryLink, UpstreamSpec};
use rmcp::{ServerHandler, ServiceExt};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};

/// No time limit over the memory link (the behaviour spec: "The time
/// limits of the requests do not apply over the memory link"): a day is
/// longer than any call, and far from the overflow of a deadline.
const NO_LIMIT: Duration = Duration::from_secs(24 * 3600);

/// Serves one connection on stdin and stdout until the input ends.
/// `make` makes the server for the path the client took; a handler can
/// tell the paths apart by it.
pub async fn serve_stdio<S, F>(make: F, options: Options) -> std::io::Result<()>
where
    S: ServerHandler,
    F: Fn(Route) -> S + Send + Sync + 'static,
{
    let (read, write) = rmcp::transport::stdio_pipes();
    serve(make, options, read, write).await
}

/// Serves one connection on `input` and `output` until `input` ends.
pub async fn serve<S, F, R, W>(make: F, options: Options, input: R, output: W) -> std::io::Result<()>
where
    S: ServerHandler,
    F: Fn(Route) -> S + Send + Sync + 'static,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let make = Arc::new(make);
    let mut output = output;
    match route::choose(&make, &options, input, &mut output).await? {
        route::Chosen::Nothing => Ok(()),
        route::Chosen::Legacy(input) => legacy(make, options, input, output).await,
        route::Chosen::Modern(input) => modern::serve(make(Route::Modern), &options, input, output).await,
    }
}

/// The legacy path: a front end with the caller's profile, whose upstream
/// is the same server over an in-memory link.
async fn legacy<S, F, R, W>(make: Arc<F>, options: Options, input: R, output: W) -> std::io::Result<()>
where
    S: ServerHandler,
    F: Fn(Route) -> S + Send + Sync + 'static,
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let link = MemoryLink::new(move || {
        let (client, server) = tokio::io::duplex(1 << 20);
        let handler = make(Route::Legacy);
        tokio::spawn(async move {
            match handler.serve(tokio::io::split(server)).await {
                Ok(service) => {
                    let _ = service.waiting().await;
                }
                Err(err) => tracing::debug!(error = %err, "the server of the memory link ended before a request"),
            }
        });
        client
    });
    let timeouts = Timeouts {
        discover: NO_LIMIT,
        list: NO_LIMIT,
        first_round: NO_LIMIT,
        later_round: NO_LIMIT,
        call: NO_LIMIT,
        shutdown_grace: options.shutdown_grace,
        ..Timeouts::default()
    };
    let config = Config {
        profile: options.profile,
        upstream: UpstreamSpec::Memory(link),
        fallback_name: options.name,
        max_line_bytes: options.max_line_bytes,
        timeouts,
        notes: None,
        link: None,
        by_url: false,
    };
    match frontend::serve(config, input, output).await {
        Exit::EndOfInput => Ok(()),
        Exit::UpstreamLost => Err(std::io::Error::other("the server of the memory link ended")),
    }
}
