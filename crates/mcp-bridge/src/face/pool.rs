//! The one upstream connection that the face's 2026-07-28 clients share
//! (`modern`): made at their first request, and again after a loss.

use crate::frontend::Config;
use crate::jsonrpc::BridgeError;
use crate::upstream::{self, Client, Consent, Hooks, Identity, LogLevel};
use serde_json::json;
use std::sync::Arc;

/// The shared connection, when it is made.
#[derive(Default)]
pub(super) struct Upstream(tokio::sync::Mutex<Option<Client>>);

impl Upstream {
    pub(super) async fn client(&self, config: &Config) -> Result<Client, BridgeError> {
        let mut slot = self.0.lock().await;
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
        let connection = upstream::connect(&config.upstream, identity, hooks, config.max_line_bytes)?;
        *slot = Some(connection.client.clone());
        Ok(connection.client)
    }

    /// Closes the connection (the face stops).
    pub(super) async fn close(&self, grace: std::time::Duration) {
        if let Some(client) = self.0.lock().await.take() {
            client.shutdown(grace).await;
        }
    }
}
