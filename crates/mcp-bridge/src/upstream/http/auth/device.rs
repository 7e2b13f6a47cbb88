//! The device authorization grant (RFC 8628): the sign-in of a bridge on a
//! host whose loopback the user's browser cannot reach (a remote window of
//! VS Code, a browser-based one). The bridge asks the authorization server
//! for a device code, shows the user the verification URL and the user
//! code, and polls the token endpoint until the user approved, declined or
//! the code expired. No redirect, so no listener and no port.
//!
//! `oauth2` builds the requests and does the polling of section 3.5
//! (`authorization_pending` waits the interval again, `slow_down` adds 5 s
//! to it); `resource` (RFC 8707) goes with both requests.

use super::discovery::ServerMetadata;
use super::fetch::Fetcher;
use super::record::Grant;
use super::signin::{self, token_error, Carrier};
use crate::jsonrpc::{fail, server_text, BridgeError, Cause};
use oauth2::basic::{BasicClient, BasicTokenResponse};
use oauth2::{
    ClientId, ClientSecret, DeviceAuthorizationUrl, DeviceCodeErrorResponse, DeviceCodeErrorResponseType,
    RequestTokenError, Scope, StandardDeviceAuthorizationResponse, TokenUrl,
};

/// What one device sign-in needs.
pub(crate) struct DeviceSignIn<'a> {
    pub http: &'a Fetcher,
    pub server: &'a ServerMetadata,
    pub grant: &'a Grant,
    /// The canonical URI of the MCP server (RFC 8707).
    pub resource: &'a str,
    pub scope: Option<&'a str>,
    pub present: signin::Present<'a>,
    /// The error of a code that expired before the user approved it: the
    /// `sign_in_timeout` of the sign-in, with its placeholders filled.
    pub expired: BridgeError,
}

/// What the user must do: open `url`, and enter `code` unless the URL
/// carries it already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verification {
    pub url: String,
    pub code: String,
    /// Whether the URL holds the code (`verification_uri_complete`).
    pub complete: bool,
}

impl Verification {
    fn of(details: &StandardDeviceAuthorizationResponse) -> Verification {
        match details.verification_uri_complete() {
            Some(complete) => Verification {
                url: complete.secret().clone(),
                code: details.user_code().secret().clone(),
                complete: true,
            },
            None => Verification {
                url: details.verification_uri().to_string(),
                code: details.user_code().secret().clone(),
                complete: false,
            },
        }
    }

    /// The sign-in line of the log, which VS Code shows in the Output
    /// channel of the server.
    pub(crate) fn line(&self) -> String {
        if self.complete {
            format!(
                "sign-in: open {} in a web browser to sign in to the upstream server (the code is {})",
                self.url, self.code
            )
        } else {
            format!(
                "sign-in: open {} in a web browser and enter the code {} to sign in to the upstream server",
                self.url, self.code
            )
        }
    }
}

/// Runs one device sign-in to its tokens.
pub(crate) async fn sign_in(flow: DeviceSignIn<'_>) -> Result<BasicTokenResponse, BridgeError> {
    let endpoint =
        flow.server.device_authorization_endpoint.clone().ok_or_else(|| {
            fail(Cause::SignInFailed, "device authorization: the authorization server does not offer it")
        })?;
    let client = BasicClient::new(ClientId::new(flow.grant.client_id.clone()))
        .set_device_authorization_url(DeviceAuthorizationUrl::from_url(endpoint))
        .set_token_uri(TokenUrl::from_url(flow.server.token_endpoint.clone()));
    let client = match &flow.grant.client_secret {
        Some(secret) => client
            .set_client_secret(ClientSecret::new(secret.clone()))
            .set_auth_type(signin::auth_type(flow.grant, flow.server)),
        None => client,
    };
    let carrier = Carrier::new(flow.http);
    let mut request = client.exchange_device_code().add_extra_param("resource", flow.resource);
    if let Some(scope) = flow.scope.filter(|s| !s.is_empty()) {
        request = request.add_scopes(scope.split(' ').filter(|s| !s.is_empty()).map(|s| Scope::new(s.to_owned())));
    }
    let details: StandardDeviceAuthorizationResponse = request
        .request_async(&carrier)
        .await
        .map_err(|err| token_error("device authorization", &err, carrier.outcome()))?;
    let verification = Verification::of(&details);
    match flow.present {
        signin::Present::Browser(browser) => {
            tracing::warn!("{}", verification.line());
            if browser {
                signin::open_browser(&verification.url).await;
            }
        }
        signin::Present::Ask(auth) => auth.ask(&verification.url, Some(&verification.code)).await?,
    }
    client
        .exchange_device_access_token(&details)
        .add_extra_param("resource", flow.resource)
        .request_async(&carrier, tokio::time::sleep, None)
        .await
        .map_err(|err| poll_error(&err, carrier.outcome(), flow.expired))
}

/// The failure of the polling (RFC 8628 section 3.5): a denial is
/// `sign_in_denied`, a code that expired is the sign-in's
/// `sign_in_timeout`, another error code is `sign_in_error` with the code;
/// no answer at all is `sign_in_failed`.
fn poll_error<E: std::error::Error>(
    err: &RequestTokenError<E, DeviceCodeErrorResponse>,
    outcome: Option<Result<u16, super::fetch::Failure>>,
    expired: BridgeError,
) -> BridgeError {
    let RequestTokenError::ServerResponse(response) = err else {
        return token_error("token request", err, outcome);
    };
    match response.error() {
        DeviceCodeErrorResponseType::AccessDenied => BridgeError::new(Cause::SignInDenied),
        DeviceCodeErrorResponseType::ExpiredToken => expired,
        other => {
            let code = server_text(other.as_ref());
            tracing::warn!(error = code, "the authorization server refused the device sign-in");
            BridgeError::new(Cause::SignInError).with_detail(code)
        }
    }
}
