//! The URL rule of URL elicitations (behaviour spec, "The URL rule").
//!
//! A web browser reads a URL by the WHATWG rules; the bridge reads it by
//! RFC 3986 (`fluent-uri`). With a backslash the two can find different
//! hosts, so a backslash is refused before parsing.

use fluent_uri::component::Host;
use fluent_uri::Uri;

/// Whether the client may get this URL: a valid absolute URL that is
/// https, or http to a loopback host without user information.
pub(crate) fn is_allowed(url: &str) -> bool {
    if url.contains('\\') {
        return false;
    }
    let Ok(uri) = Uri::parse(url) else {
        return false;
    };
    let Some(authority) = uri.authority() else {
        return false;
    };
    if authority.host().is_empty() {
        return false;
    }
    let scheme = uri.scheme().as_str();
    if scheme.eq_ignore_ascii_case("https") {
        return true;
    }
    scheme.eq_ignore_ascii_case("http") && !authority.has_userinfo() && is_loopback(&authority.host_parsed())
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
    use super::is_allowed;

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
            assert_eq!(is_allowed(url), expected, "{url}");
        }
    }
}
