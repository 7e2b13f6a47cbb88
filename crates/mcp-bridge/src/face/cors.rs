//! The cross-origin rules of browsers (CORS) for the pages the door lets
//! in (the face's own origin, `--allow-origin`): a preflight (`OPTIONS`)
//! gets the methods of its path and the headers of the transport, and
//! every answer to such a page names its origin and shows it the session
//! id. A page of any other origin never gets this far (403).

use super::http::{self, Body};
use crate::upstream::http::headers::is_field_name;
use hyper::header::{
    HeaderValue, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS, ACCESS_CONTROL_ALLOW_ORIGIN,
    ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE, VARY,
};
use hyper::{Response, StatusCode};

/// The request headers of the transports that a page may send.
const HEADERS: [&str; 8] = [
    "accept",
    "authorization",
    "content-type",
    "last-event-id",
    "mcp-method",
    "mcp-name",
    "mcp-protocol-version",
    "mcp-session-id",
];

/// The answer to a preflight from `origin` for a path that takes `allow`:
/// the requested headers that the transports use (those above, and
/// `Mcp-Param-*`), for 10 minutes.
pub(super) fn preflight(origin: &str, allow: &'static str, requested: Option<&str>) -> Response<Body> {
    let mut response = http::empty(StatusCode::NO_CONTENT);
    let headers: Vec<String> = requested
        .unwrap_or("")
        .split(',')
        .map(|h| h.trim().to_ascii_lowercase())
        .filter(|h| HEADERS.contains(&h.as_str()) || is_param_header(h))
        .collect();
    let map = response.headers_mut();
    map.insert(ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static(allow));
    if let Ok(value) = HeaderValue::from_str(&headers.join(", ")) {
        map.insert(ACCESS_CONTROL_ALLOW_HEADERS, value);
    }
    map.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
    allow_origin(&mut response, origin);
    response
}

/// `Mcp-Param-<name>` with a name that a tool's `x-mcp-header` may have.
fn is_param_header(header: &str) -> bool {
    header.strip_prefix("mcp-param-").is_some_and(is_field_name)
}

/// Names the page's origin on an answer, and lets it read the session id
/// and a challenge.
pub(super) fn allow_origin(response: &mut Response<Body>, origin: &str) {
    let Ok(value) = HeaderValue::from_str(origin) else { return };
    let map = response.headers_mut();
    map.insert(ACCESS_CONTROL_ALLOW_ORIGIN, value);
    map.insert(ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static("mcp-session-id, www-authenticate"));
    map.append(VARY, HeaderValue::from_static("origin"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preflight_allows_the_transports_headers_only() {
        let response = preflight(
            "https://app.example.com",
            "GET, POST, DELETE",
            Some("Content-Type, X-Evil, mcp-param-region, mcp-session-id"),
        );
        let header = |name| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        assert_eq!(
            header(ACCESS_CONTROL_ALLOW_HEADERS).as_deref(),
            Some("content-type, mcp-param-region, mcp-session-id")
        );
        assert_eq!(header(ACCESS_CONTROL_ALLOW_ORIGIN).as_deref(), Some("https://app.example.com"));
        assert_eq!(header(ACCESS_CONTROL_ALLOW_METHODS).as_deref(), Some("GET, POST, DELETE"));
    }
}
