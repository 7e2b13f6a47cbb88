//! The error table of the bridge (behaviour spec, "Error table").
//!
//! Every error the bridge makes itself has a cause: a name (`data.cause`), a
//! JSON-RPC code and a fixed message. They live here, in one table, so that
//! they cannot drift from the spec; `tests/error_table.rs` compares each row
//! with the table of the behaviour spec.

use crate::profile::Words;
use serde_json::{json, Map, Value};
use std::time::Duration;

/// JSON-RPC error codes used by the bridge.
pub(crate) mod code {
    pub(crate) const PARSE_ERROR: i64 = -32700;
    pub(crate) const INVALID_REQUEST: i64 = -32600;
    pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
    pub(crate) const INVALID_PARAMS: i64 = -32602;
    pub(crate) const INTERNAL_ERROR: i64 = -32603;
    /// Reserved by revision 2026-07-28; VS Code opens each URL in its data.
    pub(crate) const URL_ELICITATION_REQUIRED: i64 = -32042;
    /// `UnsupportedProtocolVersionError` of revision 2026-07-28.
    pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// `HeaderMismatchError` of revision 2026-07-28 (Streamable HTTP).
    pub(crate) const HEADER_MISMATCH: i64 = -32020;
    /// `MissingRequiredClientCapabilityError` of revision 2026-07-28.
    pub(crate) const MISSING_CAPABILITY: i64 = -32021;
}

macro_rules! causes {
    ($($variant:ident => $name:literal, $code:expr, $message:literal;)*) => {
        /// The cause of an error of the bridge: one row of the error table.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Cause { $($variant,)* }

        impl Cause {
            /// Every cause, in the order of the table.
            pub const ALL: &'static [Cause] = &[$(Cause::$variant,)*];

            /// The name of the cause, the value of `data.cause`.
            pub fn name(self) -> &'static str {
                match self { $(Cause::$variant => $name,)* }
            }

            /// The JSON-RPC code. `canceled` has no response; its code is
            /// never written. `discover_failed` keeps the upstream code when
            /// there is one.
            pub fn code(self) -> i64 {
                match self { $(Cause::$variant => $code,)* }
            }

            /// The fixed message with its placeholders: the client's
            /// words (`{client}`, `{log}`: [`Words`]), and in some
            /// messages of the sign-in `{seconds}` and the like, which
            /// the caller fills.
            pub fn template(self) -> &'static str {
                match self { $(Cause::$variant => $message,)* }
            }

            /// The fixed message as the behaviour spec writes it, with
            /// VS Code's words.
            pub fn message(self) -> String {
                Words::vscode().fill(self.template())
            }
        }
    };
}

use code::*;

causes! {
    Rpc => "rpc", INTERNAL_ERROR, "The upstream server sent an error. See {log}.";
    Canceled => "canceled", INTERNAL_ERROR, "The client canceled the request.";
    Timeout => "timeout", INTERNAL_ERROR, "The upstream server did not answer in time. See {log}.";
    Closed => "closed", INTERNAL_ERROR, "The upstream server process stopped. See {log}.";
    TransportFailed => "transport_failed", INTERNAL_ERROR, "The connection to the upstream server failed. See {log}.";
    InvalidResponse => "invalid_response", INTERNAL_ERROR, "The upstream server sent a response that is not valid. See {log}.";
    TooManyRounds => "too_many_rounds", INTERNAL_ERROR, "The upstream server asked for input too many times. See {log}.";
    OutOfMemory => "out_of_memory", INTERNAL_ERROR, "The bridge does not have sufficient memory for the request.";
    UndeclaredInputRequest => "undeclared_input_request", INTERNAL_ERROR, "The upstream server asked for input that the client did not declare.";
    HookFailed => "hook_failed", INTERNAL_ERROR, "The bridge cannot give the input that the upstream server asked for.";
    NotConnected => "not_connected", INTERNAL_ERROR, "The bridge has no connection to the upstream server. See {log}.";
    TaskCancelled => "task_cancelled", INTERNAL_ERROR, "The upstream server canceled the task of the request.";
    InvalidRequest => "invalid_request", INVALID_PARAMS, "The bridge cannot send the parameters of the request to the upstream server.";
    InvalidMeta => "invalid_meta", INVALID_PARAMS, "The request has a _meta key that the bridge cannot send to the upstream server.";
    SpawnFailed => "spawn_failed", INTERNAL_ERROR, "The bridge cannot start the upstream server. Examine the command in the configuration of the server. See {log}.";
    ConnectFailed => "connect_failed", INTERNAL_ERROR, "The bridge cannot make the client for the URL of the upstream server. Examine the URL, the proxy variables and the CA certificates. See {log}.";
    DiscoverFailed => "discover_failed", INTERNAL_ERROR, "The upstream server did not answer server/discover. It is not an MCP server of revision 2026-07-28, or it does not respond. See {log}.";
    UpstreamExited => "upstream_exited", INTERNAL_ERROR, "The upstream server process stopped. See {log}.";
    NotInitialized => "not_initialized", INVALID_REQUEST, "The client did not initialize the connection. Send initialize first.";
    AlreadyInitialized => "already_initialized", INVALID_REQUEST, "The client already sent initialize on this connection.";
    TooManyRequests => "too_many_requests", INTERNAL_ERROR, "The connection has too many requests in flight";
    LineTooLong => "line_too_long", INVALID_REQUEST, "The request is longer than the line limit of the bridge.";
    TooDeep => "too_deep", INVALID_REQUEST, "The request has more levels of nesting than the limit of the bridge.";
    ParseError => "parse_error", PARSE_ERROR, "The request is not valid JSON.";
    InvalidRequestShape => "invalid_request_shape", INVALID_REQUEST, "The message is not a valid JSON-RPC 2.0 request.";
    MethodNotFound => "method_not_found", METHOD_NOT_FOUND, "The server does not have this method.";
    InvalidParams => "invalid_params", INVALID_PARAMS, "The parameters of the request are not valid.";
    InvalidInputRequest => "invalid_input_request", INTERNAL_ERROR, "The upstream server sent an input request that is not valid for the client. See {log}.";
    TooManyInputRequests => "too_many_input_requests", INTERNAL_ERROR, "The upstream server asked for more inputs at one time than the limit of the bridge.";
    InputTimeout => "input_timeout", INTERNAL_ERROR, "The client did not answer the input request of the upstream server in time.";
    InvalidClientAnswer => "invalid_client_answer", INTERNAL_ERROR, "The client sent an answer that is not valid for the input request of the upstream server.";
    SignInFailed => "sign_in_failed", INTERNAL_ERROR, "The sign-in at the authorization server of the upstream server failed. See {log}.";
    SignInTimeout => "sign_in_timeout", INTERNAL_ERROR, "The sign-in did not complete in {seconds} s. The URL of the sign-in is in {log}. To get more time, set --sign-in-timeout. During initialize, also set --discover-timeout. When the authorization server shows no sign-in page, it possibly does not know the stored client. Then run \"{name} logout <url>\" with the URL of this server, and restart the server.";
    SignInDenied => "sign_in_denied", INTERNAL_ERROR, "The authorization server refused the access. Restart the server to sign in again.";
    SignInError => "sign_in_error", INTERNAL_ERROR, "The authorization server sent an error for the sign-in. See {log}.";
    SignInInvalidUrl => "sign_in_invalid_url", INTERNAL_ERROR, "The authorization server sent an authorization URL that is not valid. The bridge did not open it. See {log}.";
    SignInStartReused => "sign_in_start_reused", INTERNAL_ERROR, "The start URL of the sign-in received a second request, thus the bridge stopped the sign-in. Another program on the host of the bridge possibly opened the URL. Restart the server to sign in again. When this occurs again on a host that other users share, use --no-browser.";
    BrowserLaunchFailed => "browser_launch_failed", INTERNAL_ERROR, "The bridge cannot open a browser for the sign-in. See {log}.";
    RedirectPortUnavailable => "redirect_port_unavailable", INTERNAL_ERROR, "The bridge cannot listen on the redirect port {port}. Stop the program that uses the port, or set a different port with --redirect-port. Each server with a sign-in needs its own port.";
    RegistrationUnavailable => "registration_unavailable", INTERNAL_ERROR, "The authorization server has no client registration that the bridge can use. Register a client with the redirect URI {redirect_uri} at the authorization server. Then give its client ID with --client-id and its issuer with --client-issuer.";
    RegistrationFailed => "registration_failed", INTERNAL_ERROR, "The authorization server refused the registration of the client. Register a client with the redirect URI {redirect_uri} at the authorization server. Then give its client ID with --client-id and its issuer with --client-issuer.";
    IssuerNotRegistered => "issuer_not_registered", INTERNAL_ERROR, "The client ID of --client-id is not for the authorization server of the upstream server. Give a client ID of this authorization server with --client-id, and its issuer with --client-issuer.";
    InvalidClientMetadataUrl => "invalid_client_metadata_url", INTERNAL_ERROR, "The URL of --client-metadata-url is not valid for a client ID metadata document. Use an https URL with a path.";
    AccessRefused => "access_refused", INTERNAL_ERROR, "The upstream server refused the access after the sign-in. The account possibly does not have the necessary permissions. See {log}.";
    ReauthorizationRequired => "reauthorization_required", INTERNAL_ERROR, "The upstream server needs a new sign-in, and the client did not open the URL of the sign-in. Restart the server to sign in again.";
    Sandbox => "sandbox", INTERNAL_ERROR, "The upstream server needs a sign-in, but the bridge runs in the sandbox of {client}. The sandbox blocks the browser and the redirect port of the sign-in. Disable the sandbox for this server.";
}

/// An error of the bridge, ready to become the `error` member of a response.
/// Its text (for logs and embedders) is the cause's name with the detail;
/// like the message, it never holds a secret or a URL path.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{}", cause.name(), detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
#[non_exhaustive]
pub struct BridgeError {
    pub cause: Cause,
    /// The code; usually `cause.code()`, the upstream code for `discover_failed`.
    pub code: i64,
    /// The message: `cause.template()` with the caller's placeholders
    /// filled; the client's words fill the rest when it goes out.
    pub(crate) message: String,
    /// `data.detail`, where the table says so.
    pub detail: Option<String>,
    /// The HTTP status of a failed request to an upstream server at a URL;
    /// `data.detail` names it too. The table of ends of the listen streams
    /// and the sign-in read it.
    pub status: Option<u16>,
}

/// An error of a cause with a detail.
pub(crate) fn fail(cause: Cause, detail: impl Into<String>) -> BridgeError {
    BridgeError::new(cause).with_detail(detail)
}

impl BridgeError {
    /// The error of a cause, with its code and message from the table.
    pub fn new(cause: Cause) -> Self {
        BridgeError { cause, code: cause.code(), message: cause.template().to_owned(), detail: None, status: None }
    }

    /// The same error after a failed HTTP request: `data.detail` gets
    /// `HTTP status <n>` (behaviour spec, after the error table), after the
    /// detail it had.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self.detail = Some(match self.detail.take() {
            Some(detail) => format!("{detail}, HTTP status {status}"),
            None => format!("HTTP status {status}"),
        });
        self
    }

    /// `cause` with the detail of a time limit that passed:
    /// `<method>: no response in <limit>` (see [`no_response`]).
    pub(crate) fn no_response(cause: Cause, method: Option<&str>, limit: Duration) -> Self {
        BridgeError::new(cause).with_detail(no_response(method, limit))
    }

    /// The same error with `data.detail`.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The same error with a text of a server in `data.detail` (an upstream
    /// message, an OAuth error code), through the gate of outside text.
    pub fn with_server_text(self, text: &str) -> Self {
        self.with_detail(crate::gate::text::escape(text, crate::gate::text::DETAIL))
    }

    /// The message as the behaviour spec writes it, with VS Code's words.
    pub fn message(&self) -> String {
        Words::vscode().fill(&self.message)
    }

    /// The `error` object as a client of these words reads it.
    pub(crate) fn to_value_for(&self, words: &Words) -> Value {
        let mut data = Map::new();
        data.insert("cause".into(), Value::from(self.cause.name()));
        if let Some(detail) = &self.detail {
            data.insert("detail".into(), Value::from(detail.as_str()));
        }
        json!({ "code": self.code, "message": words.fill(&self.message), "data": data })
    }

    /// The `error` object with the behaviour spec's words (VS Code's):
    /// code, message and `data` with `cause` (always) and `detail` (when
    /// there is one).
    pub fn to_value(&self) -> Value {
        self.to_value_for(&Words::vscode())
    }
}

/// The text of a time limit that passed, the one way the details write it:
/// `tools/list: no response in 120 s`, or without a method `no response in
/// 250 ms` (the limit in whole seconds, else in milliseconds).
pub(crate) fn no_response(method: Option<&str>, limit: Duration) -> String {
    match method {
        Some(method) => format!("{method}: no response in {}", format_limit(limit)),
        None => format!("no response in {}", format_limit(limit)),
    }
}

/// A time limit as the error details write it: `120 s`, or `250 ms` below
/// a whole second or between whole seconds.
pub(crate) fn format_limit(limit: Duration) -> String {
    if limit.subsec_millis() == 0 && limit.as_secs() > 0 {
        format!("{} s", limit.as_secs())
    } else {
        format!("{} ms", limit.as_millis())
    }
}

impl From<Cause> for BridgeError {
    fn from(cause: Cause) -> Self {
        BridgeError::new(cause)
    }
}

#[cfg(test)]
mod tests {
    use super::{BridgeError, Cause, Words};

    #[test]
    fn the_text_of_an_error_is_its_cause_and_its_detail() {
        assert_eq!(BridgeError::new(Cause::Closed).to_string(), "closed");
        let timeout = BridgeError::new(Cause::Timeout).with_detail("tools/list: no response in 120 s");
        assert_eq!(timeout.to_string(), "timeout: tools/list: no response in 120 s");
    }

    /// The messages name VS Code's log as the spec writes them; a client
    /// that shows the log elsewhere gets its own place and name, and the
    /// rest of the error stays.
    #[test]
    fn a_message_names_the_log_and_the_product_of_the_client() {
        let error = BridgeError::new(Cause::Timeout).with_detail("d");
        assert_eq!(error.to_value_for(&Words::vscode()), error.to_value());
        assert_eq!(
            error.to_value()["message"],
            "The upstream server did not answer in time. See the Output channel of the server."
        );
        let elsewhere = error.to_value_for(&Words::new("Codex", "the log"));
        assert_eq!(elsewhere["message"], "The upstream server did not answer in time. See the log.");
        assert_eq!(elsewhere["data"], error.to_value()["data"]);
        let sandbox = BridgeError::new(Cause::Sandbox).to_value_for(&Words::new("Codex", "the log"));
        let message = sandbox["message"].as_str().unwrap_or_default();
        assert!(message.contains("the sandbox of Codex."), "{message}");
        assert!(Cause::ALL.iter().all(|c| !c.message().contains("{log}") && !c.message().contains("{client}")));
    }

    #[test]
    fn a_failed_http_request_names_its_status_in_the_detail() {
        let error = BridgeError::new(Cause::TransportFailed).with_status(404);
        assert_eq!(error.status, Some(404));
        assert_eq!(error.detail.as_deref(), Some("HTTP status 404"));
        let error = BridgeError::new(Cause::InvalidResponse).with_detail("parse_error").with_status(200);
        assert_eq!(error.detail.as_deref(), Some("parse_error, HTTP status 200"));
    }
}
