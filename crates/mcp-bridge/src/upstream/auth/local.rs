//! Where the user's machine is, for the sign-in of a remote server: its
//! requests and the URLs it opens may reach the user's machine only when
//! the MCP server is there too (`fetch`). A host is the user's machine when
//! it is written so (`localhost`, a loopback or unspecified address), and,
//! for the requests, when its name resolves only there ([`RemoteOnly`]).

use reqwest::dns::{Name, Resolve, Resolving};
use reqwest::Url;
use std::net::{IpAddr, SocketAddr};

/// Whether the host of a URL is the user's machine as written: `localhost`
/// (and its subdomains, RFC 6761), an address of 127.0.0.0/8 or 0.0.0.0/8
/// (which connects to this machine), `[::1]`, `[::]`, or such an IPv4
/// address mapped into IPv6.
pub(crate) fn on_users_machine(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        Some(url::Host::Ipv4(a)) => is_local(IpAddr::V4(a)),
        Some(url::Host::Ipv6(a)) => is_local(IpAddr::V6(a)),
        None => false,
    }
}

/// A loopback or unspecified address, also as IPv4 mapped into IPv6.
fn is_local(ip: IpAddr) -> bool {
    let v4 = |a: std::net::Ipv4Addr| matches!(a.octets()[0], 0 | 127);
    match ip {
        IpAddr::V4(a) => v4(a),
        IpAddr::V6(a) => a.is_loopback() || a.is_unspecified() || a.to_ipv4_mapped().is_some_and(v4),
    }
}

/// The name resolution of the sign-in of a remote server: the addresses of
/// the user's machine are left out, and a name that has no other address
/// fails (a name of the metadata that the system maps to 127.0.0.1 is the
/// user's machine as surely as `127.0.0.1`). The host of a proxy of the
/// environment is resolved as it is: a local proxy is the user's own
/// choice, and the proxy, not the bridge, resolves the names behind it.
#[derive(Clone)]
pub(crate) struct RemoteOnly {
    proxies: Vec<String>,
}

impl RemoteOnly {
    /// With the hosts of the proxy variables that reqwest reads.
    pub(crate) fn from_env() -> RemoteOnly {
        let vars = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"];
        let proxies = vars
            .iter()
            .filter_map(|var| std::env::var(var).ok())
            .filter_map(|value| Url::parse(&value).ok().or_else(|| Url::parse(&format!("http://{value}")).ok()))
            .filter_map(|url| url.host_str().map(str::to_ascii_lowercase))
            .collect();
        RemoteOnly { proxies }
    }

    /// The addresses of `host` that the sign-in may reach: all of them
    /// for the proxy's host, else those not of the user's machine. An
    /// empty list when none is left (the log says why).
    pub(crate) async fn addresses(&self, host: &str) -> std::io::Result<Vec<SocketAddr>> {
        let proxy = self.proxies.contains(&host.to_ascii_lowercase());
        let found: Vec<SocketAddr> = tokio::net::lookup_host((host, 0)).await?.collect();
        let kept: Vec<SocketAddr> = found.into_iter().filter(|a| proxy || !is_local(a.ip())).collect();
        if kept.is_empty() {
            tracing::warn!(
                "the sign-in does not send a request to a name that resolves to the user's machine, and the MCP server is not there"
            );
        }
        Ok(kept)
    }
}

impl Resolve for RemoteOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        let proxies = self.proxies.clone();
        Box::pin(async move {
            let kept = RemoteOnly { proxies }.addresses(&host).await?;
            if kept.is_empty() {
                return Err("the name resolves to the user's machine".into());
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way of writing a host of the user's machine, and hosts that
    /// only look like one.
    #[test]
    fn the_users_machine_is_every_loopback_and_unspecified_address_and_localhost() {
        for local in [
            "http://localhost/",
            "https://LOCALHOST.:8443/",
            "https://auth.localhost/",
            "http://127.0.0.1:9/",
            "https://127.1.2.3/",
            "http://0.0.0.0:8080/",
            "http://[::1]/",
            "http://[::]/",
            "http://[::ffff:127.0.0.1]/",
            "http://2130706433/",
            "http://0x7f.1/",
        ] {
            assert!(on_users_machine(&Url::parse(local).unwrap_or_else(|e| panic!("{local}: {e}"))), "{local}");
        }
        for remote in [
            "https://auth.example.com/",
            "https://localhost.example.com/",
            "https://10.0.0.1/",
            "https://[2001:db8::1]/",
        ] {
            assert!(!on_users_machine(&Url::parse(remote).unwrap_or_else(|e| panic!("{remote}: {e}"))), "{remote}");
        }
    }

    /// `localhost` resolves to the user's machine and nowhere else: the
    /// resolver of a remote server's sign-in refuses it, unless it names
    /// the proxy of the environment.
    #[tokio::test]
    async fn a_name_that_resolves_only_to_the_users_machine_is_refused() {
        let name = |n: &str| n.parse::<Name>().unwrap_or_else(|e| panic!("{n}: {e}"));
        let refused = RemoteOnly { proxies: Vec::new() }.resolve(name("localhost")).await;
        assert!(refused.is_err(), "localhost resolved");
        let proxy = RemoteOnly { proxies: vec!["localhost".into()] }.resolve(name("localhost")).await;
        assert!(proxy.is_ok_and(|mut addrs| addrs.all(|a| is_local(a.ip()))), "the proxy's host");
    }
}
