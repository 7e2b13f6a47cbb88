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

use super::signin::{self, token_error, Carrier, Flow};
use crate::gate::text;
use crate::gate::url::CheckedUrl;
use crate::jsonrpc::{fail, BridgeError, Cause};
use oauth2::basic::BasicTokenResponse;
use oauth2::{
    DeviceAuthorizationUrl, DeviceCodeErrorResponse, DeviceCodeErrorResponseType, RequestTokenError,
    StandardDeviceAuthorizationResponse, TokenUrl,
};
use reqwest::Url;
use std::time::Duration;

/// The longest user code: RFC 8628 section 6.1 asks for short codes that
/// a person types (`WDJB-MJHT`); a longer one is not a code.
const USER_CODE_CHARS: usize = 32;
/// The least interval between two polls; a shorter one, 0 included, counts
/// as RFC 8628's default of 5 s.
const MIN_INTERVAL: Duration = Duration::from_secs(1);
const DEFAULT_INTERVAL_SECS: u64 = 5;

/// What the user must do: open `url`, and enter `code` unless the URL
/// carries it already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verification {
    pub url: CheckedUrl,
    pub code: String,
    /// Whether the URL holds the code (`verification_uri_complete`).
    pub complete: bool,
}

impl Verification {
    /// The URL and the code of a device authorization response as it came
    /// (a URI that `oauth2` cannot even parse is still a URL that failed the
    /// gate), when both pass their gates: each verification URI the URL rule
    /// of a sign-in (else `sign_in_invalid_url`, and nothing is opened or
    /// sent), the code printable ASCII of at most [`USER_CODE_CHARS`] (else
    /// `sign_in_failed`). `None` for a body without a verification URI (an
    /// error response).
    pub(crate) fn of(body: &[u8]) -> Option<Result<Verification, BridgeError>> {
        let body: serde_json::Value = serde_json::from_slice(body).ok()?;
        let uri = body.get("verification_uri").or_else(|| body.get("verification_url"))?;
        let complete = body.get("verification_uri_complete").map(|v| v.as_str().unwrap_or(""));
        let code = body.get("user_code").and_then(serde_json::Value::as_str).unwrap_or("");
        Some(Verification::checked(uri.as_str().unwrap_or(""), complete, code))
    }

    fn checked(uri: &str, complete: Option<&str>, code: &str) -> Result<Verification, BridgeError> {
        let gate = |url: &str| {
            CheckedUrl::for_sign_in(url).map_err(|why| {
                tracing::warn!(%why, "a verification URI of the device sign-in failed a check of the bridge; it is not opened");
                BridgeError::new(Cause::SignInInvalidUrl)
            })
        };
        let plain = gate(uri)?;
        let complete = complete.map(gate).transpose()?;
        let printable = code.bytes().all(|b| (0x20..0x7f).contains(&b));
        if code.is_empty() || code.chars().count() > USER_CODE_CHARS || !printable {
            tracing::warn!("the user code of the device sign-in is not a short printable text; the sign-in stops");
            return Err(fail(Cause::SignInFailed, "device authorization: the user code is not a short printable text"));
        }
        let code = code.to_owned();
        Ok(match complete {
            Some(url) => Verification { url, code, complete: true },
            None => Verification { url: plain, code, complete: false },
        })
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

/// The response with an interval of at least [`MIN_INTERVAL`]: `oauth2`
/// polls at the interval the server gave, and 0 would poll without a
/// pause.
fn with_interval_floor(
    details: StandardDeviceAuthorizationResponse,
) -> Result<StandardDeviceAuthorizationResponse, BridgeError> {
    if details.interval() >= MIN_INTERVAL {
        return Ok(details);
    }
    tracing::info!("the device authorization response asks polls less than 1 s apart; the bridge waits 5 s");
    let mut value = serde_json::to_value(&details)
        .map_err(|_| fail(Cause::SignInFailed, "device authorization: the response is not valid"))?;
    value["interval"] = serde_json::Value::from(DEFAULT_INTERVAL_SECS);
    serde_json::from_value(value)
        .map_err(|_| fail(Cause::SignInFailed, "device authorization: the response is not valid"))
}

/// Runs one device sign-in to its tokens. `expired` is the error of a code
/// that expired before the user approved it: the `sign_in_timeout` of the
/// sign-in, with its placeholders filled.
pub(crate) async fn sign_in(flow: Flow<'_>, expired: BridgeError) -> Result<BasicTokenResponse, BridgeError> {
    let endpoint =
        flow.server.device_authorization_endpoint.clone().ok_or_else(|| {
            fail(Cause::SignInFailed, "device authorization: the authorization server does not offer it")
        })?;
    let client = signin::registered(flow.grant, flow.server)
        .set_device_authorization_url(DeviceAuthorizationUrl::from_url(endpoint))
        .set_token_uri(TokenUrl::from_url(flow.server.token_endpoint.clone()));
    let carrier = Carrier::new(flow.http);
    let request =
        client.exchange_device_code().add_extra_param("resource", flow.resource).add_scopes(signin::scopes(flow.scope));
    let details: Result<StandardDeviceAuthorizationResponse, _> = request.request_async(&carrier).await;
    let verification = carrier.body().as_deref().and_then(Verification::of).transpose()?;
    let details = details.map_err(|err| token_error("device authorization", &err, carrier.outcome()))?;
    let details = with_interval_floor(details)?;
    // `oauth2` read the response, so it has a verification URI.
    let verification =
        verification.ok_or_else(|| fail(Cause::SignInFailed, "device authorization: the response is not valid"))?;
    let place =
        Url::parse(verification.url.as_str()).map_err(|_| "it is not a URL").and_then(|url| flow.http.allowed(&url));
    if let Err(why) = place {
        tracing::warn!(
            why,
            "the verification URI of the device sign-in failed a check of the bridge; it is not opened"
        );
        return Err(BridgeError::new(Cause::SignInInvalidUrl));
    }
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
        .map_err(|err| poll_error(&err, carrier.outcome(), expired))
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
            let code = text::escape(other.as_ref(), text::DETAIL);
            tracing::warn!(error = code, "the authorization server refused the device sign-in");
            BridgeError::new(Cause::SignInError).with_detail(code)
        }
    }
}
