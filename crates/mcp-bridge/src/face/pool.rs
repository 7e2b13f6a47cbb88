//! The one upstream connection that the face's 2026-07-28 clients share
//! (`modern`), and its sessions too when the upstream is a command
//! (`link`): made at the first need, and again after a loss.

use super::params::Known;
use crate::frontend::Config;
use crate::jsonrpc::BridgeError;
use crate::sync::lock;
use crate::upstream::http::passed::{Passed, Refused};
use crate::upstream::{Client, SharedLink, UpstreamSpec};
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The places of the shared connection that one client's address may
/// take at one time (of the 256 of the connection).
const SHARE: usize = 64;

/// The shared connection, when it is made.
pub(super) struct Upstream {
    pub link: Arc<SharedLink>,
    /// The `Mcp-Param-*` headers of each tool (`params`).
    pub params: Known,
    /// The places each client's address holds now.
    shares: Arc<Mutex<HashMap<IpAddr, usize>>>,
    /// With `--pass-authorization`: what the upstream said of the
    /// clients' authorization (each request carries its client's own).
    passed: Option<Arc<Passed>>,
}

impl Upstream {
    pub(super) fn new(config: &Config, passing: bool) -> Upstream {
        let passed: Option<Arc<Passed>> = passing.then(Arc::default);
        let spec = match (&config.upstream, &passed) {
            (UpstreamSpec::Http(options), Some(passed)) => {
                let mut options = options.clone();
                options.passed = Some(passed.clone());
                UpstreamSpec::Http(options)
            }
            (spec, _) => spec.clone(),
        };
        let (name, grace) = (&config.profile.name, config.timeouts.shutdown_grace);
        Upstream {
            link: Arc::new(SharedLink::new(spec, name, config.max_line_bytes, grace)),
            params: Known::default(),
            shares: Arc::default(),
            passed,
        }
    }

    /// A place for a request of the client at `address`, unless it holds
    /// its share already.
    pub(super) fn share(&self, address: IpAddr) -> Option<Share> {
        let address = client_of(address);
        let mut shares = lock(&self.shares);
        let held = shares.entry(address).or_default();
        if *held >= SHARE {
            return None;
        }
        *held += 1;
        Some(Share { shares: self.shares.clone(), address })
    }

    /// The URL of the protected resource metadata of the upstream's last
    /// challenge, when it gave one.
    pub(super) fn last_challenge(&self) -> Option<String> {
        self.passed.as_ref()?.refused_since(0)?.challenge.resource_metadata
    }

    /// The scope and error of the upstream's last refusal.
    pub(super) fn last_refusal(&self) -> Option<Refused> {
        self.passed.as_ref()?.refused_since(0)
    }

    pub(super) async fn client(&self) -> Result<Client, BridgeError> {
        self.link.client().await
    }

    /// Closes the connection (the face stops).
    pub(super) async fn close(&self) {
        self.link.close().await;
    }
}

/// One place of a client's share, given back when it drops.
pub(super) struct Share {
    shares: Arc<Mutex<HashMap<IpAddr, usize>>>,
    address: IpAddr,
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut shares = lock(&self.shares);
        if let Some(held) = shares.get_mut(&self.address) {
            *held = held.saturating_sub(1);
            if *held == 0 {
                shares.remove(&self.address);
            }
        }
    }
}

/// The address that stands for one client: every loopback address is the
/// one machine (a process may pick any 127.x.y.z), an IPv4 address mapped
/// into IPv6 is that IPv4 address, and an IPv6 address its /64, which one
/// host gets whole.
fn client_of(address: IpAddr) -> IpAddr {
    match address {
        address if address.is_loopback() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) if v4.is_loopback() => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    use super::client_of;
    use std::net::IpAddr;

    #[test]
    fn one_client_is_one_machine_on_loopback_and_one_64_on_ipv6() {
        let of = |text: &str| client_of(text.parse::<IpAddr>().unwrap_or(IpAddr::from([0, 0, 0, 0])));
        assert_eq!(of("127.0.0.1"), of("127.8.9.10"));
        assert_eq!(of("127.0.0.1"), of("::1"));
        assert_eq!(of("::ffff:127.0.0.2"), of("::1"));
        assert_eq!(of("::ffff:192.0.2.1"), of("192.0.2.1"));
        assert_eq!(of("2001:db8:1:2::1"), of("2001:db8:1:2:ffff::9"));
        assert_ne!(of("2001:db8:1:2::1"), of("2001:db8:1:3::1"));
        assert_ne!(of("192.0.2.1"), of("192.0.2.2"));
    }
}
