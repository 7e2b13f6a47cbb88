//! The client registration (2026-07-28 `basic/authorization/
//! client-registration.md`), in the page's order: a pre-registered client
//! (`--client-id` with `--client-issuer`), a client ID metadata document
//! (`--client-metadata-url`), dynamic registration (RFC 7591, with
//! `application_type: "native"`), else the user must register one.

use super::discovery::ServerMetadata;
use super::fetch::Fetcher;
use super::record::{Grant, DEVICE_GRANT_TYPE};
use crate::gate::text;
use crate::jsonrpc::{fail, BridgeError, Cause};
use reqwest::Url;
use serde_json::{json, Value};

/// The OAuth client the bridge signs in as, in the order of the
/// authorization page: a pre-registered client, a client ID metadata
/// document, else a dynamic registration.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ClientOptions {
    /// The client ID of a pre-registered client and the issuer of the
    /// authorization server it is registered with.
    pub pre_registered: Option<(String, String)>,
    /// The secret of a confidential pre-registered client.
    pub client_secret: Option<String>,
    /// The https URL of a client ID metadata document, checked when a
    /// sign-in uses it.
    pub metadata_url: Option<String>,
    /// The `client_name` of a dynamic registration.
    pub name: String,
}

/// Checks `--client-metadata-url`: an https URL with a path, else
/// `invalid_client_metadata_url`.
pub(crate) fn check_metadata_url(text: &str) -> Result<Url, BridgeError> {
    Url::parse(text)
        .ok()
        .filter(|u| u.scheme() == "https" && u.path() != "/" && !u.path().is_empty())
        .ok_or_else(|| BridgeError::new(Cause::InvalidClientMetadataUrl))
}

/// The registration for this authorization server: the one of the store
/// when it has one for this issuer, else a new one.
pub(crate) async fn register(
    http: &Fetcher,
    options: &ClientOptions,
    server: &ServerMetadata,
    stored: Option<&Grant>,
    (redirect_uri, device): (&str, bool),
) -> Result<Grant, BridgeError> {
    if let Some((client_id, issuer)) = &options.pre_registered {
        if issuer != &server.issuer {
            return Err(BridgeError::new(Cause::IssuerNotRegistered));
        }
        let mut grant = stored.filter(|g| &g.client_id == client_id).cloned().unwrap_or_default();
        grant.client_id = client_id.clone();
        grant.client_secret = options.client_secret.clone();
        grant.registration = "pre-registered".into();
        return Ok(grant);
    }
    if let Some(text) = options.metadata_url.as_ref().filter(|_| server.client_id_metadata_document_supported) {
        let url = check_metadata_url(text)?;
        let mut grant = stored.filter(|g| g.client_id == url.as_str()).cloned().unwrap_or_default();
        grant.client_id = url.to_string();
        grant.registration = "metadata-document".into();
        return Ok(grant);
    }
    // A stored registration serves, unless the device grant is wanted and
    // it does not allow it: then a new one asks for it.
    if let Some(grant) = stored.filter(|g| g.registration == "dynamic" && (!device || g.allows_device())) {
        return Ok(grant.clone());
    }
    let Some(endpoint) = &server.registration_endpoint else {
        return Err(with_redirect_uri(Cause::RegistrationUnavailable, redirect_uri));
    };
    let document = json!({
        "client_name": options.name,
        "redirect_uris": [redirect_uri],
        "grant_types": grant_types(device),
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": "native",
    });
    let request = http.request(reqwest::Method::POST, endpoint.clone()).map(|request| {
        request
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .body(document.to_string())
    });
    let response = http
        .send(request)
        .await
        .map_err(|failure| fail(Cause::SignInFailed, format!("registration: {}", failure.text())))?;
    let body: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
    let mut grant = registration(response.status, &body, redirect_uri)?;
    // RFC 7591: the response names the grant types it registered; without
    // them, the server took those that were asked.
    grant.grant_types = match body.get("grant_types").and_then(Value::as_array) {
        Some(types) => types.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        None => grant_types(device),
    };
    Ok(grant)
}

/// The grant types a dynamic registration asks for: the device grant too
/// when the sign-in may use it.
fn grant_types(device: bool) -> Vec<String> {
    let mut types = vec!["authorization_code".to_owned(), "refresh_token".to_owned()];
    if device {
        types.push(DEVICE_GRANT_TYPE.to_owned());
    }
    types
}

/// The grant of a registration response (RFC 7591 section 3.2.1), or
/// `registration_failed` with its HTTP status and error code (section
/// 3.2.2). Pure, for the fuzz target `registration`.
pub(crate) fn registration(status: u16, body: &Value, redirect_uri: &str) -> Result<Grant, BridgeError> {
    let client_id = body.get("client_id").and_then(Value::as_str);
    match client_id {
        Some(client_id) if (200..300).contains(&status) => Ok(Grant {
            client_id: client_id.to_owned(),
            client_secret: body.get("client_secret").and_then(Value::as_str).map(str::to_owned),
            token_auth_method: body.get("token_endpoint_auth_method").and_then(Value::as_str).map(str::to_owned),
            registration: "dynamic".into(),
            ..Grant::default()
        }),
        _ => {
            let code = text::escape(body.get("error").and_then(Value::as_str).unwrap_or("no error code"), text::DETAIL);
            tracing::warn!(status, error = code, "the dynamic client registration failed");
            let mut error = with_redirect_uri(Cause::RegistrationFailed, redirect_uri);
            error.detail = Some(format!("HTTP status {status}, {code}"));
            error.status = Some(status);
            Err(error)
        }
    }
}

fn with_redirect_uri(cause: Cause, redirect_uri: &str) -> BridgeError {
    let mut error = BridgeError::new(cause);
    error.message = error.message.replace("{redirect_uri}", redirect_uri);
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_metadata_url_must_be_https_with_a_path() {
        assert!(check_metadata_url("https://app.example.com/client.json").is_ok());
        for bad in
            ["http://app.example.com/client.json", "https://app.example.com", "https://app.example.com/", "not a url"]
        {
            assert_eq!(check_metadata_url(bad).map_err(|e| e.cause), Err(Cause::InvalidClientMetadataUrl), "{bad}");
        }
    }

    #[test]
    fn the_messages_name_the_redirect_uri() {
        let error = with_redirect_uri(Cause::RegistrationUnavailable, "http://127.0.0.1:41234/callback");
        assert!(
            error.message.contains("Register a client with the redirect URI http://127.0.0.1:41234/callback at"),
            "{}",
            error.message
        );
        assert!(!error.message.contains('{'));
    }
}
