//! The face's table of refusals: each request the HTTP face turns away
//! before it reaches a session, with its HTTP status and its JSON-RPC
//! error (code, fixed message, `data.cause`), which the body carries as an
//! error response without an id (the transport spec allows one). Beside
//! the error table of the behaviour spec (`jsonrpc::cause`), which these
//! rows extend for the transport; docs/decisions.md has the choices.

use serde_json::{json, Value};

macro_rules! refusals {
    ($($variant:ident => $name:literal, $status:literal, $code:literal, $message:literal;)*) => {
        /// Why the face turned a request away.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Refusal { $($variant,)* }

        impl Refusal {
            /// Every refusal, in the order of the table.
            #[cfg(test)]
            pub(crate) const ALL: &'static [Refusal] = &[$(Refusal::$variant,)*];

            /// The value of `data.cause`.
            pub(crate) fn name(self) -> &'static str {
                match self { $(Refusal::$variant => $name,)* }
            }

            /// The HTTP status.
            pub(crate) fn status(self) -> u16 {
                match self { $(Refusal::$variant => $status,)* }
            }

            /// The JSON-RPC code of the body's error.
            pub(crate) fn code(self) -> i64 {
                match self { $(Refusal::$variant => $code,)* }
            }

            /// The fixed message.
            pub(crate) fn message(self) -> &'static str {
                match self { $(Refusal::$variant => $message,)* }
            }
        }
    };
}

refusals! {
    ForeignHost => "foreign_host", 403, -32600, "The Host header names neither the address of the bridge nor its public URL.";
    ForeignOrigin => "foreign_origin", 403, -32600, "The Origin of the request is neither the origin of the bridge nor one that --allow-origin names.";
    Unauthorized => "unauthorized", 401, -32600, "The request does not have the bearer token of the bridge.";
    NotFound => "not_found", 404, -32600, "The bridge has no endpoint at this path. The MCP endpoint is /mcp.";
    MethodNotAllowed => "method_not_allowed", 405, -32600, "The endpoint does not take this HTTP method.";
    NotAcceptable => "not_acceptable", 406, -32600, "The Accept header must list application/json and text/event-stream for a POST, and text/event-stream for a GET.";
    UnsupportedMediaType => "unsupported_media_type", 415, -32600, "The body of the request must be application/json.";
    BodyTooLong => "body_too_long", 413, -32600, "The body of the request is longer than the line limit of the bridge.";
    BodyTimeout => "body_timeout", 408, -32600, "The body of the request did not come whole in time.";
    Busy => "busy", 503, -32603, "The bridge reads as many large bodies as it can hold at one time. Try again later.";
    TwoHeaders => "two_headers", 400, -32600, "The request has more than one Host or Origin header.";
    SessionRequired => "session_required", 400, -32600, "The request has no Mcp-Session-Id header. Send initialize first, then the session ID of its response with each request.";
    UnknownSession => "unknown_session", 404, -32600, "The session does not exist or ended. Send initialize again, without a session ID.";
    WrongProtocolVersion => "wrong_protocol_version", 400, -32600, "The MCP-Protocol-Version header is not the revision of the session.";
    TooManySessions => "too_many_sessions", 503, -32603, "The bridge has the largest number of sessions that it allows. Try again later.";
    StreamOpen => "stream_open", 409, -32600, "The session has an open GET stream already. Close it before you open another.";
    NoBatches => "no_batches", 400, -32600, "The revision of the session does not have JSON-RPC batches. Send one message in each request.";
    NotInitialize => "not_initialize", 400, -32600, "A request without a session ID must be initialize, or a request of revision 2026-07-28.";
    HeaderMismatch => "header_mismatch", 400, -32020, "The MCP-Protocol-Version, Mcp-Method or Mcp-Name header is missing or does not match the body of the request.";
}

impl Refusal {
    /// The body: a JSON-RPC error response that has no id (the transport
    /// pages' words; the schemas' `RequestId` is no null).
    pub(crate) fn body(self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "error": {"code": self.code(), "message": self.message(), "data": {"cause": self.name()}}
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row has a client or server error status, a message that is a
    /// sentence, and a name of its own.
    #[test]
    fn each_refusal_is_a_row_of_its_own() {
        let mut names: Vec<&str> = Refusal::ALL.iter().map(|r| r.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Refusal::ALL.len());
        for refusal in Refusal::ALL {
            assert!((400..600).contains(&refusal.status()), "{refusal:?}");
            assert!(refusal.message().ends_with('.'), "{refusal:?}");
            assert_eq!(refusal.body()["error"]["data"]["cause"], refusal.name());
            assert_eq!(refusal.body().get("id"), None);
        }
    }
}
