//! What the upstream client sends, as every transport gets it: one
//! [`Outgoing`] message, its method as a type and its JSON text. A pipe
//! writes the text as a line; HTTP posts it as the body and reads its
//! headers from the method and the params.

use super::stream::LISTEN_METHOD;
use crate::jsonrpc;
use crate::method::Method;
use serde_json::{Map, Value};

/// The method of a message that the upstream client sends. The forwarded
/// ones come parsed from the front end; nothing here reads a method name
/// back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UpstreamMethod {
    /// `server/discover`, the first request of a connection.
    Discover,
    /// A request of the client that the bridge forwards.
    Forwarded(Method),
    /// `subscriptions/listen`, which opens a listen stream.
    Listen,
    /// `notifications/cancelled`, for a request that the bridge abandons.
    Cancelled,
}

impl UpstreamMethod {
    pub(crate) fn name(self) -> &'static str {
        match self {
            UpstreamMethod::Discover => "server/discover",
            UpstreamMethod::Forwarded(method) => method.name(),
            UpstreamMethod::Listen => LISTEN_METHOD,
            UpstreamMethod::Cancelled => "notifications/cancelled",
        }
    }
}

/// One message for the upstream server.
pub(super) struct Outgoing<'a> {
    /// The id of a request; `None` for a notification.
    pub id: Option<u64>,
    pub method: UpstreamMethod,
    /// The params that HTTP reads its headers from (`Mcp-Name`,
    /// `Mcp-Param-*`); their `_meta` plays no part there.
    pub params: Option<&'a Map<String, Value>>,
    /// The JSON text, without a `\n`: the line of a pipe, the body of a
    /// POST.
    pub text: Vec<u8>,
    /// The client's own `Authorization` of a relayed request, for HTTP.
    pub authorization: Option<&'a str>,
}

impl<'a> Outgoing<'a> {
    /// A message built as a `Value`.
    pub(super) fn of(id: Option<u64>, method: UpstreamMethod, message: &'a Value) -> Outgoing<'a> {
        let params = message.get("params").and_then(Value::as_object);
        Outgoing { id, method, params, text: jsonrpc::json_line(message), authorization: None }
    }
}
