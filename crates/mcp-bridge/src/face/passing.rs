//! `--pass-authorization`: the face as the operator's front for the same
//! server at a URL. Each client's `Authorization` goes upstream unchanged
//! (`upstream::http::passed`); the face accepts no token for itself. A
//! refusal of the upstream (401, or 403) becomes the same refusal for the
//! client, whose challenge names the face's own protected resource
//! metadata: the upstream's, served at `/.well-known/oauth-protected-
//! resource[/mcp]` with `resource` set to the face's public URL. So the
//! client's own OAuth runs against the upstream's authorization server,
//! and its token is for the URL it knows.

use super::http::{self, Body};
use crate::upstream::http::passed::{resource_metadata, Refused};
use crate::upstream::http::HttpOptions;
use crate::upstream::UpstreamSpec;
use hyper::header::{HeaderValue, WWW_AUTHENTICATE};
use hyper::{Response, StatusCode};
use std::net::SocketAddr;

/// The paths of the face's protected resource metadata.
pub(super) const METADATA_PATHS: [&str; 2] =
    ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"];

/// The resource the face is: its public URL, else its own `/mcp`.
pub(super) fn resource(public: Option<&url::Url>, local: SocketAddr) -> String {
    match public {
        Some(url) => url.as_str().to_owned(),
        None => format!("http://{local}/mcp"),
    }
}

/// The URL of the face's metadata for `resource`.
fn metadata_url(resource: &str) -> String {
    match url::Url::parse(resource) {
        Ok(url) => format!("{}{}", url.origin().ascii_serialization(), METADATA_PATHS[0]),
        Err(_) => METADATA_PATHS[0].to_owned(),
    }
}

/// The refusal of the client after the upstream's: the same status, and a
/// Bearer challenge that names the face's metadata, with the upstream's
/// `scope` and `error` when they are plain tokens.
pub(super) fn refused(refused: &Refused, resource: &str) -> Response<Body> {
    let status = StatusCode::from_u16(refused.status).unwrap_or(StatusCode::UNAUTHORIZED);
    let mut challenge = format!("Bearer resource_metadata=\"{}\"", metadata_url(resource));
    for (name, value) in [("scope", &refused.challenge.scope), ("error", &refused.challenge.error)] {
        if let Some(value) = value.as_deref().filter(|v| is_plain(v)) {
            challenge.push_str(&format!(", {name}=\"{value}\""));
        }
    }
    let mut response = http::empty(status);
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response.headers_mut().insert(WWW_AUTHENTICATE, value);
    }
    response
}

/// A value that goes into a quoted parameter as it is: visible ASCII and
/// spaces, no quote and no backslash, at most 1 KiB.
fn is_plain(value: &str) -> bool {
    value.len() <= 1024 && value.bytes().all(|b| (0x20..=0x7e).contains(&b) && b != b'"' && b != b'\\')
}

/// The upstream's protected resource metadata as the face's: 200 with it,
/// or 404 when the upstream publishes none.
pub(super) async fn metadata(upstream: &HttpOptions, from_challenge: Option<&str>, resource: &str) -> Response<Body> {
    match resource_metadata(upstream.make_client(), upstream.url(), from_challenge, resource).await {
        Some(document) => http::json(StatusCode::OK, crate::jsonrpc::json_line(&document)),
        None => http::empty(StatusCode::NOT_FOUND),
    }
}

/// The options of the upstream at a URL, when it is one.
pub(super) fn http_options(spec: &UpstreamSpec) -> Option<&HttpOptions> {
    match spec {
        UpstreamSpec::Http(options) => Some(options),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::auth::challenge::Challenge;

    /// The client's challenge names the face's metadata, with the
    /// upstream's scope and error; a value that could break out of its
    /// quotes is left out.
    #[test]
    fn the_clients_challenge_names_the_faces_metadata() {
        let refused = Refused {
            status: 401,
            challenge: Challenge {
                resource_metadata: Some("https://up.example/.well-known/oauth-protected-resource".into()),
                scope: Some("read write".into()),
                error: Some("invalid_token\", x=\"y".into()),
            },
        };
        let response = super::refused(&refused, "https://mcp.example.com/mcp");
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            response.headers().get(WWW_AUTHENTICATE).and_then(|v| v.to_str().ok()),
            Some(
                "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"read write\""
            )
        );
        let local = SocketAddr::from(([127, 0, 0, 1], 8931));
        assert_eq!(resource(None, local), "http://127.0.0.1:8931/mcp");
    }
}
