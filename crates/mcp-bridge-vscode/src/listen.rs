//! `--listen HOST:PORT`: the HTTP face, glue. Reads its options into
//! `FaceOptions`, refuses a remote bind without auth, binds, says where it
//! listens in one line, and stops at SIGINT or SIGTERM.

use crate::cli::{BridgeArgs, ListenArgs};
use crate::hint;
use mcp_bridge::{Config, FaceOptions, UpstreamSpec};
use std::net::SocketAddr;
use std::time::Duration;
use tokio_util::sync::CancellationToken;
use url::Url;

/// The face's options from the command line; `Err` is a usage error.
pub fn options(args: &ListenArgs) -> Result<(SocketAddr, FaceOptions), String> {
    let given = args.listen.as_deref().unwrap_or("");
    let address = address(given).ok_or_else(|| {
        format!(
            "--listen {} is not HOST:PORT with an IP address or localhost, for example 127.0.0.1:8931",
            hint::word(given)
        )
    })?;
    let mut options = FaceOptions::new();
    if let Some(var) = &args.auth_token_env {
        let token = std::env::var(var)
            .map_err(|_| format!("the variable {} of --auth-token-env is not set", hint::word(var)))?;
        if token.trim().is_empty() {
            return Err(format!("the variable {} of --auth-token-env is empty", hint::word(var)));
        }
        options.bearer_token = Some(token);
    }
    options.pass_authorization = args.pass_authorization;
    if !address.ip().is_loopback() && options.bearer_token.is_none() && !options.pass_authorization {
        return Err(format!(
            "--listen {} is not a loopback address: anyone who reaches it could use the server. \
             Give --auth-token-env VAR (clients send Authorization: Bearer <value of VAR>), or \
             --pass-authorization with a server at a URL, or listen on 127.0.0.1",
            hint::word(given)
        ));
    }
    if let Some(url) = &args.public_url {
        let parsed = Url::parse(url).ok().filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
        options.public_url =
            Some(parsed.ok_or_else(|| format!("--public-url {} is not an http or https URL", hint::word(url)))?);
    }
    for origin in &args.allow_origin {
        let parsed =
            Url::parse(origin).ok().filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
        if parsed.is_none() {
            return Err(format!(
                "--allow-origin {} is not an origin such as https://app.example.com",
                hint::word(origin)
            ));
        }
        options.allow_origins.push(origin.clone());
    }
    options.max_sessions = usize::try_from(args.max_sessions).unwrap_or(usize::MAX);
    options.child_per_session = args.child_per_session;
    options.session_idle = match args.test_session_idle_ms {
        Some(ms) => Duration::from_millis(ms),
        None => Duration::from_secs(args.session_idle),
    };
    Ok((address, options))
}

/// `--pass-authorization` is for a server at a URL, and the face then
/// sends it nothing of the operator's own: no user name and password in
/// the URL, no `--header-env`, which every client, signed in or not,
/// would use.
pub fn check_passing(options: &FaceOptions, upstream: &UpstreamSpec, args: &BridgeArgs) -> Result<(), String> {
    if !options.pass_authorization {
        return Ok(());
    }
    let UpstreamSpec::Http(http) = upstream else {
        return Err("--pass-authorization is for a server at a URL: a command gets no Authorization header".into());
    };
    if http.has_user_info() {
        return Err("--pass-authorization sends each client's own Authorization: the URL must not hold a user name \
                    or password, which would reach the server for clients that send none"
            .into());
    }
    if !args.header_env.is_empty() {
        return Err("--pass-authorization sends each client's own Authorization: --header-env would send the \
                    operator's header for every client, signed in or not"
            .into());
    }
    Ok(())
}

/// `HOST:PORT` with an IP address (IPv6 in brackets) or `localhost`.
fn address(text: &str) -> Option<SocketAddr> {
    if let Ok(address) = text.parse::<SocketAddr>() {
        return Some(address);
    }
    let port = text.strip_prefix("localhost:")?.parse::<u16>().ok()?;
    Some(SocketAddr::from(([127, 0, 0, 1], port)))
}

/// Binds and serves until SIGINT or SIGTERM; `Err` is a usage error (the
/// address cannot be bound).
pub async fn serve(address: SocketAddr, config: Config, options: FaceOptions, name: &str) -> Result<(), String> {
    let listener =
        tokio::net::TcpListener::bind(address).await.map_err(|e| format!("cannot listen on {address}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| format!("cannot listen on {address}: {e}"))?;
    eprintln!("{name}: listening on http://{bound}/mcp (Streamable HTTP) and http://{bound}/sse (HTTP+SSE)");
    let stop = CancellationToken::new();
    tokio::spawn(stop_on_signal(stop.clone()));
    if let Err(err) = mcp_bridge::serve_http(listener, config, options, stop).await {
        tracing::error!(error = %err, "the HTTP face failed");
    }
    tracing::info!("stopped listening");
    Ok(())
}

/// Fires `stop` at the first SIGINT or SIGTERM (Ctrl+C elsewhere).
async fn stop_on_signal(stop: CancellationToken) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let (Ok(mut interrupt), Ok(mut terminate)) = (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
        else {
            tracing::warn!("cannot watch SIGINT and SIGTERM");
            return;
        };
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
    }
    tracing::info!("stopping: every session ends");
    stop.cancel();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_an_ip_and_a_port_or_localhost() {
        assert_eq!(address("127.0.0.1:0"), Some(SocketAddr::from(([127, 0, 0, 1], 0))));
        assert_eq!(address("localhost:8931"), Some(SocketAddr::from(([127, 0, 0, 1], 8931))));
        assert!(address("[::1]:8931").is_some_and(|a| a.ip().is_loopback()));
        for bad in ["", "127.0.0.1", "example.com:80", "localhost", "localhost:x", ":80"] {
            assert_eq!(address(bad), None, "{bad}");
        }
    }
}
