//! What the upstream client is given: from the layer above it, without
//! importing that layer, where log messages go, the log level to send, how
//! to ask for a later sign-in, and who the client is; from a transport
//! that learns from results, the observer of each result.

use super::later_sign_in::ConsentFn;
use super::outgoing::UpstreamMethod;
use crate::jsonrpc::LoggingLevel;
use crate::sync::lock;
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// Sees each result of a call before its caller does, with the call's
/// method: a transport that learns from results (the headers that a
/// `tools/list` teaches HTTP) changes or learns from it here.
pub(crate) type ResultObserver = Arc<dyn Fn(UpstreamMethod, &mut Value) + Send + Sync>;

/// Receives each valid `notifications/message` of the upstream server.
pub(crate) type LogSink = Arc<dyn Fn(Value) + Send + Sync>;

/// The log level that the client chose with `logging/setLevel`, shared by
/// the front end (which sets it in every state) and the upstream client
/// (which reads it for each request and stream it sends). One cell, so a
/// level set during `initializing` reaches every later request. Cheap to
/// clone.
#[derive(Clone, Default)]
pub(crate) struct LogLevel(Arc<Mutex<Option<LoggingLevel>>>);

impl LogLevel {
    pub(crate) fn set(&self, level: LoggingLevel) {
        *lock(&self.0) = Some(level);
    }

    /// The level now; `None` until the client chose one.
    pub(crate) fn get(&self) -> Option<LoggingLevel> {
        *lock(&self.0)
    }
}

/// The hooks of one connection.
#[derive(Clone)]
pub(crate) struct Hooks {
    /// Where the log messages of the upstream server go.
    pub on_log: LogSink,
    /// The level each request and listen stream carries in its `_meta`.
    pub log_level: LogLevel,
    /// How a sign-in after the first initialize asks the client.
    pub consent: ConsentFn,
}

/// Who the client is, as the 2025-11-25 client told the bridge.
#[derive(Debug, Clone)]
pub(crate) struct Identity {
    /// The `clientInfo` of the client.
    pub client_info: Value,
    /// The translated `clientCapabilities`.
    pub capabilities: Value,
}
