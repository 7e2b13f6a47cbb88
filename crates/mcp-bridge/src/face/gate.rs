//! The door of the face: what every request passes before it reaches a
//! path. A `Host` that is not the face's own refuses DNS rebinding (a page
//! of another site whose name resolves to this address), an `Origin` that
//! is not the face's own or an allowed one refuses a browser's cross-site
//! request, and a bearer token, when the face has one, refuses everyone
//! else. Pure: the values come in as text, the answer is a [`Refusal`].

use super::refusal::Refusal;
use crate::gate::text;
use sha2::{Digest, Sha256};
use std::net::SocketAddr;
use subtle::ConstantTimeEq;

/// The checks of one face.
#[derive(Clone)]
pub(crate) struct Door {
    /// The authorities (`host:port`, lowercase) that a request may name in
    /// `Host`, beside the address it came to; one without its port too
    /// where the port is its scheme's default (the public URL's).
    hosts: Vec<String>,
    /// The origins (`scheme://host:port`, lowercase, with the port) that
    /// may send requests, beside the face's own.
    origins: Vec<String>,
    /// The SHA-256 of the bearer token, when the face has one.
    token: Option<[u8; 32]>,
}

impl Door {
    /// A door for a face at `public` (its public URL, when it has one),
    /// with the extra `origins` and the `token`.
    pub(crate) fn new(public: Option<&url::Url>, origins: &[String], token: Option<&str>) -> Door {
        let mut hosts = Vec::new();
        let mut allowed = Vec::new();
        if let Some(public) = public {
            if let (Some(host), Some(port)) = (public.host_str(), public.port_or_known_default()) {
                hosts.push(authority(host, port));
                if public.port().is_none() {
                    hosts.push(bare(host));
                }
                allowed.extend(normal_origin(&public.origin().ascii_serialization()));
            }
        }
        allowed.extend(origins.iter().filter_map(|o| normal_origin(o)));
        Door { hosts, origins: allowed, token: token.map(digest) }
    }

    /// Checks one request that came to the face's address `local`, with
    /// its `Host`, `Origin` and `Authorization` headers (`None` when
    /// absent, or not text).
    pub(crate) fn check(
        &self,
        local: SocketAddr,
        host: Option<&str>,
        origin: Option<&str>,
        authorization: Option<&str>,
    ) -> Result<(), Refusal> {
        self.check_place(local, host, origin)?;
        self.check_token(authorization)
    }

    /// The `Host` and the `Origin` only: a browser's preflight (`OPTIONS`)
    /// carries no credentials.
    pub(crate) fn check_place(
        &self,
        local: SocketAddr,
        host: Option<&str>,
        origin: Option<&str>,
    ) -> Result<(), Refusal> {
        let own = self.own_hosts(local);
        let named = host.and_then(host_authority);
        let named_bare = host.and_then(bare_authority);
        let public = named_bare.as_ref().is_some_and(|h| self.hosts.contains(h));
        if !public && !named.as_ref().is_some_and(|h| own.contains(h) || self.hosts.contains(h)) {
            tracing::warn!(host = %text::shown(host.unwrap_or(""), text::NAME), "refused a request: its Host is not the bridge's");
            return Err(Refusal::ForeignHost);
        }
        if let Some(origin) = origin {
            let ours = own
                .iter()
                .any(|h| normal_origin(&format!("http://{h}")).as_deref() == normal_origin(origin).as_deref());
            let allowed = normal_origin(origin).is_some_and(|o| self.origins.contains(&o));
            if !ours && !allowed {
                tracing::warn!(origin = %text::shown(origin, text::NAME), "refused a request: its Origin is not allowed");
                return Err(Refusal::ForeignOrigin);
            }
        }
        Ok(())
    }

    fn check_token(&self, authorization: Option<&str>) -> Result<(), Refusal> {
        if let Some(token) = &self.token {
            let presented = authorization.and_then(bearer).map(digest);
            if !presented.is_some_and(|p| bool::from(p.ct_eq(token))) {
                tracing::debug!("refused a request without the bridge's bearer token");
                return Err(Refusal::Unauthorized);
            }
        }
        Ok(())
    }

    /// The authorities of the address a request came to: the address
    /// itself, and `localhost` for a loopback address.
    fn own_hosts(&self, local: SocketAddr) -> Vec<String> {
        let port = local.port();
        let mut own = vec![authority(&local.ip().to_string(), port)];
        if local.ip().is_loopback() {
            own.push(authority("localhost", port));
        }
        own
    }
}

/// `host:port`, lowercase, an IPv6 address in brackets.
fn authority(host: &str, port: u16) -> String {
    let host = host.trim_start_matches('[').trim_end_matches(']').to_ascii_lowercase();
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// A host without a port, lowercase.
fn bare(host: &str) -> String {
    authority(host, 0).trim_end_matches(":0").to_owned()
}

/// The host a `Host` header names when it names no port.
fn bare_authority(host: &str) -> Option<String> {
    // Parsed, `http://h:80/` has no port either: the text tells.
    let names_port = match host.strip_prefix('[') {
        Some(v6) => v6.contains("]:"),
        None => host.contains(':'),
    };
    let url = url::Url::parse(&format!("http://{host}/")).ok()?;
    (!names_port && host_authority(host).is_some()).then(|| bare(url.host_str().unwrap_or_default()))
}

/// The authority a `Host` header names, with the port of `http` when it
/// has none; `None` for a value that is not one.
fn host_authority(host: &str) -> Option<String> {
    let url = url::Url::parse(&format!("http://{host}/")).ok()?;
    if !url.username().is_empty() || url.password().is_some() || url.path() != "/" || url.query().is_some() {
        return None;
    }
    Some(authority(url.host_str()?, url.port_or_known_default()?))
}

/// An origin as `scheme://host:port`, lowercase, with the port written;
/// `None` for `null` or a value that is not one.
fn normal_origin(origin: &str) -> Option<String> {
    let url = url::Url::parse(origin.trim_end_matches('/')).ok()?;
    if !matches!(url.scheme(), "http" | "https") || url.path() != "/" || url.query().is_some() {
        return None;
    }
    Some(format!("{}://{}", url.scheme(), authority(url.host_str()?, url.port_or_known_default()?)))
}

/// The token of an `Authorization: Bearer <token>` value.
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then_some(token.trim()).filter(|t| !t.is_empty())
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local() -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], 8931))
    }

    /// DNS rebinding: only the face's own names pass `Host`; a page of
    /// another site whose name resolves here names that site.
    #[test]
    fn only_the_faces_own_host_passes() {
        let door = Door::new(None, &[], None);
        for (host, ok) in [
            (Some("127.0.0.1:8931"), true),
            (Some("localhost:8931"), true),
            (Some("LOCALHOST:8931"), true),
            (Some("evil.example:8931"), false),
            (Some("127.0.0.1:8932"), false),
            (Some("127.0.0.1"), false),
            (Some("user@127.0.0.1:8931"), false),
            (Some("127.0.0.1:8931/x"), false),
            (Some(""), false),
            (None, false),
        ] {
            assert_eq!(door.check(local(), host, None, None).is_ok(), ok, "{host:?}");
        }
        let public = url::Url::parse("https://mcp.example.com/mcp").ok();
        let door = Door::new(public.as_ref(), &[], None);
        assert!(door.check(local(), Some("mcp.example.com"), None, None).is_ok(), "https's default port");
        let origin = Some("https://mcp.example.com");
        assert!(door.check(local(), Some("mcp.example.com"), origin, None).is_ok(), "the public URL's origin");
        assert!(door.check(local(), Some("mcp.example.com:443"), None, None).is_ok());
        assert!(door.check(local(), Some("mcp.example.com:80"), None, None).is_err());
        assert!(door.check(local(), Some("other.example.com"), None, None).is_err());
        let v6 = SocketAddr::from(([0, 0, 0, 0, 0, 0, 0, 1], 9000));
        assert!(door.check(v6, Some("[::1]:9000"), None, None).is_ok());
        assert!(door.check(v6, Some("localhost:9000"), None, None).is_ok());
    }

    /// An Origin passes when it is the face's own or allowed; none at all
    /// (a client that is no browser) passes too.
    #[test]
    fn only_the_faces_own_or_an_allowed_origin_passes() {
        let door = Door::new(None, &["https://app.example.com".to_owned()], None);
        let host = Some("127.0.0.1:8931");
        for (origin, ok) in [
            (None, true),
            (Some("http://127.0.0.1:8931"), true),
            (Some("http://localhost:8931"), true),
            (Some("https://app.example.com"), true),
            (Some("https://APP.example.com:443/"), true),
            (Some("https://app.example.com:8443"), false),
            (Some("http://evil.example"), false),
            (Some("null"), false),
            (Some("http://127.0.0.1:8932"), false),
            (Some("file://"), false),
        ] {
            let got = door.check(local(), host, origin, None);
            assert_eq!(got.is_ok(), ok, "{origin:?}");
            if !ok {
                assert_eq!(got, Err(Refusal::ForeignOrigin));
            }
        }
    }

    #[test]
    fn a_bearer_token_is_required_when_the_face_has_one() {
        let door = Door::new(None, &[], Some("s3cret"));
        let host = Some("127.0.0.1:8931");
        for (authorization, ok) in [
            (Some("Bearer s3cret"), true),
            (Some("bearer s3cret"), true),
            (Some("Bearer s3cret2"), false),
            (Some("Bearer "), false),
            (Some("Basic s3cret"), false),
            (Some("s3cret"), false),
            (None, false),
        ] {
            let got = door.check(local(), host, None, authorization);
            assert_eq!(got.is_ok(), ok, "{authorization:?}");
        }
        assert_eq!(door.check(local(), Some("evil:1"), None, Some("Bearer s3cret")), Err(Refusal::ForeignHost));
    }
}
