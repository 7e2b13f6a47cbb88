//! The authorization code flow with PKCE S256 (OAuth 2.1), `state`, the
//! `resource` of RFC 8707 in both requests, the `iss` check of RFC 9207
//! before the code goes to any token endpoint, and the refresh of a token.
//! `oauth2` builds the requests and reads the token responses; reqwest
//! carries them.

use super::ask::Asker;
use super::discovery::ServerMetadata;
use super::fetch::{Failure, Fetcher};
use super::record::{now_secs, Grant};
use super::redirect::{self, Redirect};
use crate::gate::text;
use crate::gate::url::CheckedUrl;
use crate::jsonrpc::{fail, BridgeError, Cause};
use oauth2::basic::{BasicClient, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge, RedirectUrl,
    RefreshToken, Scope, TokenResponse, TokenUrl,
};
use reqwest::Url;
use tokio::net::TcpListener;

/// What a sign-in of the user needs, with either grant: the authorization
/// code here, the device grant in `device`.
pub(crate) struct Flow<'a> {
    pub http: &'a Fetcher,
    pub server: &'a ServerMetadata,
    pub grant: &'a Grant,
    /// The canonical URI of the MCP server (RFC 8707).
    pub resource: &'a str,
    pub scope: Option<&'a str>,
    pub present: Present<'a>,
}

/// How the URL of a sign-in reaches the user.
pub(crate) enum Present<'a> {
    /// During initialize: the sign-in line on stderr, and the browser when
    /// `true` (not `--no-browser`, and not on a remote host).
    Browser(bool),
    /// Later: a URL elicitation to the client, which must accept it.
    Ask(&'a Asker),
}

/// Runs one sign-in with the authorization code: the browser goes to the
/// one-time start URL of `listener`, which redirects it to the
/// authorization URL; the redirect to `redirect_uri` brings the code,
/// which becomes the tokens.
pub(crate) async fn sign_in(
    flow: Flow<'_>,
    listener: &TcpListener,
    redirect_uri: &str,
) -> Result<BasicTokenResponse, BridgeError> {
    let redirect_url = RedirectUrl::new(redirect_uri.to_owned())
        .map_err(|_| fail(Cause::SignInFailed, "the redirect URI is not valid"))?;
    let client = registered(flow.grant, flow.server)
        .set_auth_uri(AuthUrl::from_url(flow.server.authorization_endpoint.clone()))
        .set_token_uri(TokenUrl::from_url(flow.server.token_endpoint.clone()))
        .set_redirect_uri(redirect_url);
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let (auth_url, state) = client
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("resource", flow.resource)
        .add_scopes(scopes(flow.scope))
        .url();
    flow.http.allowed(&auth_url).map_err(super::discovery::invalid_authorization_url)?;
    let auth_url = check_authorization_url(&auth_url, state.secret(), redirect_uri)?;
    let nonce = CsrfToken::new_random();
    let start_path = format!("/start/{}", nonce.secret());
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    // Ours, but it goes where outside URLs go: through the same gate.
    let start_url = CheckedUrl::for_sign_in(&format!("http://127.0.0.1:{port}{start_path}"))
        .map_err(|_| fail(Cause::SignInFailed, "the start URL is not valid"))?;
    match flow.present {
        Present::Browser(browser) => {
            tracing::warn!("sign-in: open {start_url} in a web browser to sign in to the upstream server");
            if browser {
                open_browser(&start_url).await;
            }
        }
        Present::Ask(auth) => auth.ask(&start_url, None).await?,
    }
    let redirect = redirect::serve(listener, &start_path, &auth_url, state.secret()).await?;
    let code = check_redirect(&redirect, flow.server)?;
    let carrier = Carrier::new(flow.http);
    let token = client
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", flow.resource)
        .request_async(&carrier)
        .await
        .map_err(|err| token_error("token request", &err, carrier.outcome()))?;
    Ok(token)
}

/// The checks of the bridge on the authorization URL before anyone opens
/// it (error table, `sign_in_invalid_url`): the gate of a sign-in URL
/// (https, or http on a loopback host, without user information), no
/// fragment, exactly one `state`, ours, and one `redirect_uri`, ours. An
/// authorization endpoint whose query brings its own `state` or
/// `redirect_uri` fails here.
pub(crate) fn check_authorization_url(url: &Url, state: &str, redirect_uri: &str) -> Result<CheckedUrl, BridgeError> {
    let invalid = super::discovery::invalid_authorization_url;
    let checked = CheckedUrl::for_sign_in(url.as_str()).map_err(|why| invalid(&why.to_string()))?;
    if url.fragment().is_some() {
        return Err(invalid("it has a fragment"));
    }
    let values = |name: &str| -> Vec<String> {
        url.query_pairs().filter(|(key, _)| key == name).map(|(_, value)| value.into_owned()).collect()
    };
    if values("state") != [state] {
        return Err(invalid("it has no state, or another one"));
    }
    if values("redirect_uri") != [redirect_uri] {
        return Err(invalid("it has another redirect URI"));
    }
    Ok(checked)
}

/// The OAuth client of a registration: its id, and its secret with the
/// way the token endpoint takes it.
pub(super) fn registered(grant: &Grant, server: &ServerMetadata) -> BasicClient {
    let client = BasicClient::new(ClientId::new(grant.client_id.clone()));
    match &grant.client_secret {
        Some(secret) => {
            client.set_client_secret(ClientSecret::new(secret.clone())).set_auth_type(auth_type(grant, server))
        }
        None => client,
    }
}

/// The scopes of a space-separated `scope`; none for no scope (then no
/// `scope` parameter goes out).
pub(super) fn scopes(scope: Option<&str>) -> Vec<Scope> {
    scope.unwrap_or("").split(' ').filter(|s| !s.is_empty()).map(|s| Scope::new(s.to_owned())).collect()
}

/// How a client with a secret authenticates at the token endpoint: the
/// method of its registration, else HTTP Basic unless the server supports
/// only `client_secret_post`.
fn auth_type(grant: &Grant, server: &ServerMetadata) -> AuthType {
    let post = match grant.token_auth_method.as_deref() {
        Some(method) => method == "client_secret_post",
        None => {
            let supports = |m: &str| server.token_auth_methods.iter().any(|s| s == m);
            supports("client_secret_post") && !supports("client_secret_basic")
        }
    };
    if post {
        AuthType::RequestBody
    } else {
        AuthType::BasicAuth
    }
}

/// Opens the browser at a URL of the sign-in, whose line is in the log
/// already: VS Code shows stderr in the Output channel of the server,
/// where the user can open the URL. A browser that does not open is not
/// fatal: the line is there.
pub(super) async fn open_browser(url: &CheckedUrl) {
    let url = url.as_str().to_owned();
    let opened = tokio::task::spawn_blocking(move || webbrowser::open(&url)).await;
    if !matches!(opened, Ok(Ok(()))) {
        tracing::warn!("the browser did not open; open the sign-in URL of the line above by hand");
    }
}

/// The checks of the redirect, in order: the `iss` table of the page
/// (before the code goes anywhere; on a mismatch the error of the response
/// is not acted on), then the error, then the code.
pub(crate) fn check_redirect(redirect: &Redirect, server: &ServerMetadata) -> Result<String, BridgeError> {
    match (&redirect.iss, server.iss_parameter_supported) {
        (Some(iss), _) if iss != &server.issuer => {
            return Err(fail(Cause::SignInFailed, "redirect: the iss of the response is not the authorization server"));
        }
        (None, true) => {
            return Err(fail(Cause::SignInFailed, "redirect: the response has no iss, which the server promised"));
        }
        _ => {}
    }
    match (&redirect.error, &redirect.code) {
        (Some(error), _) if error == "access_denied" => Err(BridgeError::new(Cause::SignInDenied)),
        (Some(error), _) => Err(BridgeError::new(Cause::SignInError).with_server_text(error)),
        (None, Some(code)) => Ok(code.clone()),
        (None, None) => Err(fail(Cause::SignInFailed, "redirect: the response has no code")),
    }
}

/// Refreshes the tokens; a rotated refresh token replaces the old one.
pub(crate) async fn refresh(
    http: &Fetcher,
    server: &ServerMetadata,
    grant: &Grant,
    resource: &str,
) -> Result<BasicTokenResponse, BridgeError> {
    let Some(refresh_token) = &grant.refresh_token else {
        return Err(fail(Cause::SignInFailed, "refresh: no refresh token"));
    };
    let client = registered(grant, server).set_token_uri(TokenUrl::from_url(server.token_endpoint.clone()));
    let carrier = Carrier::new(http);
    client
        .exchange_refresh_token(&RefreshToken::new(refresh_token.clone()))
        .add_extra_param("resource", resource)
        .request_async(&carrier)
        .await
        .map_err(|err| token_error("refresh request", &err, carrier.outcome()))
}

/// Whether a refresh failed because the authorization server refused the
/// refresh token (`invalid_grant`): spent, rotated by another bridge, or
/// revoked.
pub(crate) fn rejected_grant(error: &BridgeError) -> bool {
    error.detail.as_deref().is_some_and(|d| d.starts_with("refresh request: invalid_grant"))
}

/// Puts a token response into the grant: the access token, its expiry,
/// a new refresh token (rotation), the granted scope.
pub(crate) fn store_tokens(grant: &mut Grant, token: &BasicTokenResponse, requested_scope: Option<&str>) {
    grant.access_token = Some(token.access_token().secret().clone());
    grant.expires_at = token.expires_in().map(|d| now_secs() + d.as_secs());
    if let Some(refresh) = token.refresh_token() {
        grant.refresh_token = Some(refresh.secret().clone());
    }
    let granted = token.scopes().map(|s| s.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" "));
    grant.scope = granted.or_else(|| requested_scope.map(str::to_owned)).or(grant.scope.take());
}

/// The error of a token request: the step, the OAuth error code or why
/// there is no response, and the HTTP status of a response
/// (`token request: invalid_grant, HTTP status 400`); never a token or a
/// code.
pub(super) fn token_error<E: std::error::Error, T: oauth2::ErrorResponseType + AsRef<str> + std::fmt::Display>(
    step: &str,
    err: &oauth2::RequestTokenError<E, oauth2::StandardErrorResponse<T>>,
    outcome: Option<Result<u16, Failure>>,
) -> BridgeError {
    let what = match (err, outcome) {
        (oauth2::RequestTokenError::ServerResponse(response), _) => {
            text::escape(response.error().as_ref(), text::DETAIL)
        }
        (_, Some(Err(failure))) => failure.text(),
        (oauth2::RequestTokenError::Parse(_, _), _) => "the token response is not valid".into(),
        _ => "the request failed".into(),
    };
    let error = fail(Cause::SignInFailed, format!("{step}: {what}"));
    let error = match outcome {
        Some(Ok(status)) => error.with_status(status),
        _ => error,
    };
    tracing::warn!(detail = error.detail.as_deref().unwrap_or(""), "a token request of the sign-in failed");
    error
}

/// Carries the requests of `oauth2` with reqwest, bounded (`fetch`), and
/// keeps the status of the response or why there is none, for the
/// detail of a failure. A type of its own (not a closure) so that its
/// future is `Send` for every lifetime, as the tasks of the bridge need.
pub(super) struct Carrier<'a> {
    http: &'a Fetcher,
    outcome: std::sync::Mutex<Option<Result<u16, Failure>>>,
    /// The body of the last response (at most `fetch::MAX_BYTES`).
    body: std::sync::Mutex<Option<Vec<u8>>>,
}

impl<'a> Carrier<'a> {
    pub(super) fn new(http: &'a Fetcher) -> Self {
        Carrier { http, outcome: std::sync::Mutex::new(None), body: std::sync::Mutex::new(None) }
    }

    pub(super) fn outcome(&self) -> Option<Result<u16, Failure>> {
        *crate::sync::lock(&self.outcome)
    }

    /// The body of the last response, as it came.
    pub(super) fn body(&self) -> Option<Vec<u8>> {
        crate::sync::lock(&self.body).clone()
    }
}

impl<'c> oauth2::AsyncHttpClient<'c> for Carrier<'_> {
    type Error = HttpError;
    type Future =
        std::pin::Pin<Box<dyn std::future::Future<Output = Result<oauth2::HttpResponse, HttpError>> + Send + 'c>>;

    fn call(&'c self, request: oauth2::HttpRequest) -> Self::Future {
        Box::pin(async move {
            let outcome = send(self.http, request).await;
            *crate::sync::lock(&self.outcome) = Some(outcome.as_ref().map(|r| r.status().as_u16()).map_err(|f| *f));
            *crate::sync::lock(&self.body) = outcome.as_ref().ok().map(|r| r.body().clone());
            outcome.map_err(|_| HttpError)
        })
    }
}

/// Carries one request of `oauth2` with reqwest.
async fn send(http: &Fetcher, request: oauth2::HttpRequest) -> Result<oauth2::HttpResponse, Failure> {
    let (parts, body) = request.into_parts();
    let url = Url::parse(&parts.uri.to_string()).map_err(|_| Failure::Unreachable)?;
    let request = http.request(parts.method, url).map(|request| request.headers(parts.headers).body(body));
    let fetched = http.send(request).await?;
    let mut out = oauth2::HttpResponse::new(fetched.body);
    *out.status_mut() = reqwest::StatusCode::from_u16(fetched.status).map_err(|_| Failure::Unreachable)?;
    *out.headers_mut() = fetched.headers;
    Ok(out)
}

/// A token request that did not complete; its cause is in the log only.
#[derive(Debug, thiserror::Error)]
#[error("the request to the authorization server did not complete")]
pub(crate) struct HttpError;

#[cfg(test)]
mod tests {
    use super::*;

    fn server(iss_supported: bool) -> ServerMetadata {
        ServerMetadata {
            issuer: "https://auth.example.com".into(),
            authorization_endpoint: Url::parse("https://auth.example.com/authorize").unwrap_or_else(|e| panic!("{e}")),
            token_endpoint: Url::parse("https://auth.example.com/token").unwrap_or_else(|e| panic!("{e}")),
            registration_endpoint: None,
            device_authorization_endpoint: None,
            client_id_metadata_document_supported: false,
            iss_parameter_supported: iss_supported,
            token_auth_methods: Vec::new(),
        }
    }

    fn redirect(iss: Option<&str>, error: Option<&str>, code: Option<&str>) -> Redirect {
        Redirect {
            code: code.map(Into::into),
            state: Some("s".into()),
            iss: iss.map(Into::into),
            error: error.map(Into::into),
        }
    }

    /// Error table, `sign_in_invalid_url`: "The authorization URL failed a
    /// check of the bridge, or it has no state or a different redirect URI."
    #[test]
    fn the_authorization_url_must_be_secure_with_our_state_and_redirect_uri() {
        let redirect = "http://127.0.0.1:5000/callback";
        let check = |text: &str| {
            let url = Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            check_authorization_url(&url, "S", redirect).map_err(|e| (e.cause, e.detail))
        };
        let ours = "state=S&redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback";
        for ok in [
            format!("https://auth.example.com/authorize?response_type=code&{ours}"),
            format!("http://localhost:9/authorize?{ours}"),
        ] {
            assert_eq!(check(&ok).map(|u| u.to_string()), Ok(ok.clone()));
        }
        for bad in [
            format!("http://auth.example.com/authorize?{ours}"),
            format!("https://user:pw@auth.example.com/authorize?{ours}"),
            format!("https://auth.example.com/authorize?{ours}#x"),
            format!("https://auth.example.com/authorize?state=T&{ours}"),
            format!("https://auth.example.com/authorize?redirect_uri=https%3A%2F%2Fevil.example.com&{ours}"),
            "https://auth.example.com/authorize?redirect_uri=http%3A%2F%2F127.0.0.1%3A5000%2Fcallback".into(),
        ] {
            assert_eq!(check(&bad), Err((Cause::SignInInvalidUrl, None)), "{bad}");
        }
    }

    /// The table of "Authorization Response Validation", row by row, and
    /// the errors of the redirect.
    #[test]
    fn the_iss_of_the_redirect_is_checked_before_anything_else() {
        let issuer = Some("https://auth.example.com");
        let other = Some("https://evil.example.com");
        let cause =
            |r: Redirect, supported: bool| check_redirect(&r, &server(supported)).map_err(|e| (e.cause, e.detail));
        assert_eq!(cause(redirect(issuer, None, Some("c")), true), Ok("c".into()));
        assert_eq!(
            cause(redirect(None, None, Some("c")), true),
            Err((Cause::SignInFailed, Some("redirect: the response has no iss, which the server promised".into())))
        );
        assert_eq!(
            cause(redirect(other, Some("access_denied"), None), false),
            Err((
                Cause::SignInFailed,
                Some("redirect: the iss of the response is not the authorization server".into())
            )),
            "a mismatch is not acted on, whatever the error"
        );
        // A trailing slash is a different string: no normalization.
        assert_eq!(
            cause(redirect(Some("https://auth.example.com/"), None, Some("c")), false).map_err(|e| e.0),
            Err(Cause::SignInFailed)
        );
        assert_eq!(cause(redirect(None, None, Some("c")), false), Ok("c".into()));
        assert_eq!(cause(redirect(issuer, Some("access_denied"), None), true), Err((Cause::SignInDenied, None)));
        assert_eq!(
            cause(redirect(issuer, Some("server_error"), None), true),
            Err((Cause::SignInError, Some("server_error".into())))
        );
        assert_eq!(
            cause(redirect(None, Some("bad\u{1b}[31m\ncode"), None), false),
            Err((Cause::SignInError, Some("bad\\x1b[31m\\ncode".into())))
        );
    }
}
