//! The gate of URLs from outside: the URL rule of the behaviour spec ("The
//! URL rule"), for every URL that an upstream server or an authorization
//! server gives and that the bridge opens in a browser, writes in a
//! sign-in line, or sends to the client.
//!
//! A web browser reads a URL by the WHATWG rules; the bridge reads it by
//! RFC 3986 (`fluent-uri`). With a backslash the two can find different
//! hosts, so a backslash is refused before parsing.
//!
//! [`CheckedUrl`] can only be made here: a function that opens, writes or
//! sends a URL takes one, so no URL reaches those places without the gate.

use fluent_uri::component::Host;
use fluent_uri::Uri;
use std::fmt;

/// The most bytes of a URL of a sign-in: a verification URI is meant to be
/// typed by hand, and an authorization URL is a few hundred bytes.
const SIGN_IN_URL_BYTES: usize = 4096;

/// A URL that passed the gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CheckedUrl(String);

/// Why the gate refused a URL, for the log (never with the URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    Backslash,
    NotAbsolute,
    /// Neither https nor http to a loopback host without user information.
    Scheme,
    /// A sign-in URL with user information, which a reader can take for
    /// the host (`https://good.example@evil.example/`).
    UserInfo,
    TooLong,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Refused::Backslash => "it has a backslash",
            Refused::NotAbsolute => "it is not an absolute URL with a host",
            Refused::Scheme => "it is not https, and not http to a loopback host without user information",
            Refused::UserInfo => "it has user information",
            Refused::TooLong => "it is longer than 4096 bytes",
        })
    }
}

impl CheckedUrl {
    /// The URL rule: a valid absolute URL that is https, or http to a
    /// loopback host without user information; no backslash.
    pub(crate) fn check(url: &str) -> Result<CheckedUrl, Refused> {
        if url.contains('\\') {
            return Err(Refused::Backslash);
        }
        let uri = Uri::parse(url).map_err(|_| Refused::NotAbsolute)?;
        let authority = uri.authority().filter(|a| !a.host().is_empty()).ok_or(Refused::NotAbsolute)?;
        let scheme = uri.scheme().as_str();
        let secure = scheme.eq_ignore_ascii_case("https")
            || (scheme.eq_ignore_ascii_case("http")
                && !authority.has_userinfo()
                && is_loopback(&authority.host_parsed()));
        if !secure {
            return Err(Refused::Scheme);
        }
        Ok(CheckedUrl(url.to_owned()))
    }

    /// The URL rule, and what a sign-in URL also needs: no user
    /// information, at most 4096 bytes.
    pub(crate) fn for_sign_in(url: &str) -> Result<CheckedUrl, Refused> {
        if url.len() > SIGN_IN_URL_BYTES {
            return Err(Refused::TooLong);
        }
        let checked = CheckedUrl::check(url)?;
        let has_userinfo = Uri::parse(url).ok().and_then(|u| u.authority().map(|a| a.has_userinfo()));
        if has_userinfo != Some(false) {
            return Err(Refused::UserInfo);
        }
        Ok(checked)
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CheckedUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `localhost`, an address in 127.0.0.0/8, or `[::1]`.
fn is_loopback(host: &Host<'_>) -> bool {
    match host {
        Host::Ipv4(addr) => addr.octets()[0] == 127,
        Host::Ipv6(addr) => addr.is_loopback(),
        Host::RegName(name) => name.as_str().eq_ignore_ascii_case("localhost"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_case_of_the_url_rule() {
        let cases = [
            ("https://example.com/path?q=1#f", true),
            ("HTTPS://EXAMPLE.COM", true),
            ("https://user:pw@example.com/", true),
            ("http://localhost:8080/cb", true),
            ("http://LOCALHOST/", true),
            ("http://127.0.0.1/", true),
            ("http://127.255.1.2:9/", true),
            ("http://[::1]:3000/", true),
            ("http://example.com/", false),
            ("http://128.0.0.1/", false),
            ("http://user@localhost/", false),
            ("http://localhost.example.com/", false),
            ("https://example.com\\@evil.com/", false),
            ("https:\\\\example.com", false),
            ("javascript:alert(1)", false),
            ("file:///etc/passwd", false),
            ("https:///path", false),
            ("https:example.com", false),
            ("/relative/path", false),
            ("https://exa mple.com/", false),
            ("", false),
            ("ftp://localhost/", false),
        ];
        for (url, expected) in cases {
            assert_eq!(CheckedUrl::check(url).is_ok(), expected, "{url}");
        }
    }

    /// A sign-in URL (a device grant's verification URI, the authorization
    /// URL) passes the URL rule, has no user information and is short;
    /// every value a hostile authorization server tried is refused, with
    /// its reason.
    #[test]
    fn a_sign_in_url_also_has_no_user_information_and_a_bound() {
        assert_eq!(
            CheckedUrl::for_sign_in("https://auth.example.com/device").map(|u| u.0),
            Ok("https://auth.example.com/device".into())
        );
        assert!(CheckedUrl::for_sign_in("http://127.0.0.1:5000/device?user_code=A").is_ok());
        for (url, why) in [
            ("javascript:alert(document.domain)", Refused::NotAbsolute),
            ("file:///etc/passwd", Refused::NotAbsolute),
            ("data:text/html,<script>alert(1)</script>", Refused::NotAbsolute),
            ("http://evil.example/device", Refused::Scheme),
            ("vscode://vscode.git/clone?url=https://evil.example/r.git", Refused::Scheme),
            ("../../etc/passwd", Refused::NotAbsolute),
            ("https://auth.example.com@evil.example/device", Refused::UserInfo),
            ("https://evil.example\\@auth.example.com/", Refused::Backslash),
            ("https://evil.example/device\nWARN sign-in", Refused::NotAbsolute),
        ] {
            assert_eq!(CheckedUrl::for_sign_in(url), Err(why), "{url}");
        }
        let long = format!("https://auth.example.com/{}", "a".repeat(4096));
        assert_eq!(CheckedUrl::for_sign_in(&long), Err(Refused::TooLong));
    }
}
