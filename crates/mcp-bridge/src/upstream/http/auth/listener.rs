//! The redirect listener of a sign-in, on 127.0.0.1 only: a one-time start
//! URL that sends the browser on to the authorization URL once (M6), and
//! the redirect URI that receives the code.
//!
//! Two GET routes and no bodies: a small reader of the request line is all
//! it needs, so no HTTP server is linked in for it. Every read is bounded.

use crate::jsonrpc::{BridgeError, Cause};
use reqwest::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The most of a request that is read: the request line and headers.
const REQUEST_BYTES: usize = 16 * 1024;
/// The path of the redirect URI.
pub const CALLBACK_PATH: &str = "/callback";

/// The answer of the authorization server, from the query of the redirect.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redirect {
    pub code: Option<String>,
    pub state: Option<String>,
    pub iss: Option<String>,
    pub error: Option<String>,
}

/// Binds the listener on 127.0.0.1:`port`; a port in use is
/// `redirect_port_unavailable` with the port in the message, never a walk
/// to another port.
pub async fn bind(port: u16) -> Result<TcpListener, BridgeError> {
    TcpListener::bind(("127.0.0.1", port)).await.map_err(|err| {
        tracing::warn!(port, error = %err, "cannot listen on the redirect port");
        let mut error = BridgeError::new(Cause::RedirectPortUnavailable);
        error.message = error.message.replace("{port}", &port.to_string());
        error
    })
}

/// Serves the start URL (`/start/<nonce>`) and the redirect URI until the
/// redirect with the right `state` comes. A second GET of the start URL
/// before it stops the sign-in with `sign_in_start_reused`.
pub async fn serve(
    listener: &TcpListener,
    start_path: &str,
    auth_url: &Url,
    state: &str,
) -> Result<Redirect, BridgeError> {
    let mut started = false;
    loop {
        let Ok((mut stream, _)) = listener.accept().await else { continue };
        let Some(target) = read_target(&mut stream).await else {
            respond(&mut stream, "400 Bad Request", None, "Bad request.").await;
            continue;
        };
        let (path, query) = target.split_once('?').unwrap_or((target.as_str(), ""));
        if path == start_path {
            if started {
                respond(&mut stream, "410 Gone", None, "This sign-in link was used already.").await;
                return Err(BridgeError::new(Cause::SignInStartReused));
            }
            started = true;
            respond(&mut stream, "302 Found", Some(auth_url.as_str()), "Redirecting to the sign-in page.").await;
            continue;
        }
        if path != CALLBACK_PATH {
            respond(&mut stream, "404 Not Found", None, "Not found.").await;
            continue;
        }
        let redirect = parse_redirect(query);
        if redirect.state.as_deref() != Some(state) {
            // Not the redirect of this sign-in: someone else's, or forged.
            respond(&mut stream, "400 Bad Request", None, "This is not the sign-in that the bridge waits for.").await;
            continue;
        }
        // The checks of the answer come after; the page says only that it
        // arrived.
        respond(
            &mut stream,
            "200 OK",
            None,
            "The bridge received the answer of the sign-in. You can close this window.",
        )
        .await;
        return Ok(redirect);
    }
}

/// The query of the redirect, decoded (`application/x-www-form-urlencoded`).
pub fn parse_redirect(query: &str) -> Redirect {
    let mut redirect = Redirect::default();
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        let slot = match name.as_ref() {
            "code" => &mut redirect.code,
            "state" => &mut redirect.state,
            "iss" => &mut redirect.iss,
            "error" => &mut redirect.error,
            _ => continue,
        };
        *slot = Some(value.into_owned());
    }
    redirect
}

/// The target of a `GET` request line; `None` for anything else.
async fn read_target(stream: &mut TcpStream) -> Option<String> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 2048];
    let read = async {
        while !buffer.windows(4).any(|w| w == b"\r\n\r\n") && buffer.len() < REQUEST_BYTES {
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                break;
            }
            buffer.extend_from_slice(&chunk[..n]);
        }
        Some(())
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), read).await.ok()??;
    let line = buffer.split(|b| *b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim_end();
    let mut parts = line.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) => Some(target.to_owned()),
        _ => None,
    }
}

async fn respond(stream: &mut TcpStream, status: &str, location: Option<&str>, text: &str) {
    let location = location.map(|l| format!("Location: {l}\r\n")).unwrap_or_default();
    let page = format!("<!doctype html><meta charset=utf-8><title>mcp-bridge</title><p>{text}</p>");
    let response = format!(
        "HTTP/1.1 {status}\r\n{location}Content-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_of_the_redirect_is_decoded() {
        assert_eq!(
            parse_redirect("code=a%2Fb&state=s1&iss=https%3A%2F%2Fauth.example.com&x=1"),
            Redirect {
                code: Some("a/b".into()),
                state: Some("s1".into()),
                iss: Some("https://auth.example.com".into()),
                error: None
            }
        );
        assert_eq!(parse_redirect("error=access_denied&state=s").error.as_deref(), Some("access_denied"));
    }
}
