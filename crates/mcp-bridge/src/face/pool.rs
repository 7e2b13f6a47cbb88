//! The one upstream connection that the face's 2026-07-28 clients share
//! (`modern`): made at their first request, and again after a loss.

use super::params::Known;
use crate::frontend::Config;
use crate::jsonrpc::BridgeError;
use crate::sync::lock;
use crate::upstream::http::passed::{Passed, Refused};
use crate::upstream::{self, Client, Consent, Hooks, Identity, LogLevel, UpstreamSpec};
use serde_json::json;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// The places of the shared connection that one client's address may
/// take at one time (of the 256 of the connection).
const SHARE: usize = 64;

/// The shared connection, when it is made.
pub(super) struct Upstream {
    client: tokio::sync::Mutex<Option<Client>>,
    /// The `Mcp-Param-*` headers of each tool (`params`).
    pub params: Known,
    /// The places each client's address holds now.
    shares: Arc<Mutex<HashMap<IpAddr, usize>>>,
    /// With `--pass-authorization`: what the upstream said of the
    /// clients' authorization (each request carries its client's own).
    passed: Option<Arc<Passed>>,
}

impl Upstream {
    pub(super) fn new(passing: bool) -> Upstream {
        Upstream {
            client: tokio::sync::Mutex::default(),
            params: Known::default(),
            shares: Arc::default(),
            passed: passing.then(Arc::default),
        }
    }

    /// A place for a request of the client at `address`, unless it holds
    /// its share already.
    pub(super) fn share(&self, address: IpAddr) -> Option<Share> {
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

    pub(super) async fn client(&self, config: &Config) -> Result<Client, BridgeError> {
        let mut slot = self.client.lock().await;
        if let Some(client) = slot.as_ref().filter(|c| !c.is_lost()) {
            return Ok(client.clone());
        }
        let identity = Identity { client_info: json!({"name": config.profile.name}), capabilities: json!({}) };
        let hooks = Hooks {
            // A log message of a pipe belongs to no request that can be
            // told: it goes to no client (docs/decisions.md).
            on_log: Arc::new(|_| tracing::debug!("a log message of the upstream went to no client of the face")),
            log_level: LogLevel::default(),
            consent: Arc::new(|_| Box::pin(async { Consent::CannotAsk })),
        };
        let spec = match (&config.upstream, &self.passed) {
            (UpstreamSpec::Http(options), Some(passed)) => {
                let mut options = options.clone();
                options.passed = Some(passed.clone());
                UpstreamSpec::Http(options)
            }
            (spec, _) => spec.clone(),
        };
        let connection = upstream::connect(&spec, identity, hooks, config.max_line_bytes)?;
        *slot = Some(connection.client.clone());
        Ok(connection.client)
    }

    /// Closes the connection (the face stops).
    pub(super) async fn close(&self, grace: std::time::Duration) {
        if let Some(client) = self.client.lock().await.take() {
            client.shutdown(grace).await;
        }
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
