//! What rmcp's server can read. rmcp answers a line it cannot read as its
//! message type (params that are not an object, an id beyond 64 bits, a
//! `_meta` that is not an object) with an error that has no id, even for
//! a notification. Such a request gets its error here, with its id, and
//! never reaches rmcp; such a notification or response is dropped.

use crate::jsonrpc::{BridgeError, Cause};
use rmcp::model::ClientJsonRpcMessage;
use serde_json::Value;

/// Whether rmcp's server reads `line` as a message of a client.
pub(crate) fn by_rmcp(line: &[u8]) -> bool {
    serde_json::from_slice::<ClientJsonRpcMessage>(line).is_ok()
}

/// The error of a request that rmcp cannot read: `invalid_params` for
/// params that are not an object, else `invalid_request_shape`.
pub(crate) fn refusal(params: Option<&Value>) -> BridgeError {
    match params {
        Some(params) if !params.is_object() => Cause::InvalidParams.into(),
        _ => Cause::InvalidRequestShape.into(),
    }
}
