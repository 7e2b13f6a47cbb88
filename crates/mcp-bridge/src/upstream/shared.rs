//! One upstream connection that many clients share: the face's sessions
//! and its 2026-07-28 clients, in front of one command (docs/decisions.md,
//! "One upstream for every session"). It is made at the first need, and
//! again at the first need after a loss; each client attached to it has
//! its own identity, log level and places in flight (`Client::attach`).

use super::client::Client;
use super::connect::{connect, Connection, UpstreamSpec};
use super::hooks::{Hooks, Identity, LogLevel, LogSink};
use super::later_sign_in::Consent;
use crate::jsonrpc::BridgeError;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

pub(crate) struct SharedLink {
    spec: UpstreamSpec,
    /// The name the connection's own requests give as `clientInfo`.
    name: String,
    max_line_bytes: usize,
    /// How long a lost connection's command gets to exit.
    grace: Duration,
    owner: tokio::sync::Mutex<Option<Client>>,
}

impl SharedLink {
    pub(crate) fn new(spec: UpstreamSpec, name: &str, max_line_bytes: usize, grace: Duration) -> SharedLink {
        SharedLink { spec, name: name.to_owned(), max_line_bytes, grace, owner: tokio::sync::Mutex::default() }
    }

    /// The client that owns the connection: the one there is, unless it is
    /// lost; else a new connection (a new child for a command).
    pub(crate) async fn client(&self) -> Result<Client, BridgeError> {
        let mut slot = self.owner.lock().await;
        if let Some(client) = slot.as_ref().filter(|c| !c.is_lost()) {
            return Ok(client.clone());
        }
        let identity = Identity { client_info: json!({"name": self.name}), capabilities: json!({}) };
        let hooks = Hooks {
            // A log message of a pipe names no request: while several
            // clients wait, whose it is cannot be told, and it goes to none.
            on_log: Arc::new(|_| tracing::debug!("a log message of the shared upstream went to no client")),
            log_level: LogLevel::default(),
            // Nobody to ask: a connection shared by many clients.
            consent: Arc::new(|_| Box::pin(async { Consent::CannotAsk })),
        };
        let connection = connect(&self.spec, identity, hooks, self.max_line_bytes)?;
        *slot = Some(connection.client.clone());
        // A connection lost while its child lives on (it closed its stdout)
        // is stopped at once: nobody else would until the next need.
        let (lost, grace) = (connection.client.clone(), self.grace);
        tokio::spawn(async move {
            lost.lost().await;
            lost.shutdown(grace).await;
        });
        Ok(connection.client)
    }

    /// A client of its own on the shared connection; a log message goes
    /// to its `on_log` while only it has requests in flight.
    pub(crate) async fn attach(
        &self,
        identity: &Identity,
        log_level: LogLevel,
        on_log: LogSink,
    ) -> Result<Connection, BridgeError> {
        let owner = self.client().await?;
        Ok(Connection { client: owner.attach(identity, log_level, on_log), sign_in: None })
    }

    /// Closes the connection (its owner stops).
    pub(crate) async fn close(&self) {
        if let Some(client) = self.owner.lock().await.take() {
            client.shutdown(self.grace).await;
        }
    }
}

impl std::fmt::Debug for SharedLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedLink")
    }
}
