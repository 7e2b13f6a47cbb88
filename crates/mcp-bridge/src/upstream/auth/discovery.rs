//! Where the authorization server is (2026-07-28 `basic/authorization/
//! authorization-server-discovery.md`): the protected resource metadata of
//! RFC 9728 (the `resource_metadata` of the challenge, else the well-known
//! URIs in the page's order), then the authorization server metadata of
//! RFC 8414 or OpenID Connect Discovery with path insertion, checked as
//! RFC 8414 section 3.3 says.

use super::fetch::{secure, Failure, Fetcher};

use crate::jsonrpc::{fail, BridgeError, Cause};
use reqwest::Url;
use serde_json::Value;

/// The well-known URIs of the protected resource metadata of a server, in
/// the page's order: at the path of the MCP endpoint, then at the root.
pub(crate) fn resource_metadata_urls(server: &Url) -> Vec<Url> {
    let path = server.path().trim_end_matches('/');
    let mut urls = Vec::new();
    if !path.is_empty() {
        urls.push(well_known(server, &format!("/.well-known/oauth-protected-resource{path}")));
    }
    urls.push(well_known(server, "/.well-known/oauth-protected-resource"));
    urls
}

/// The metadata URIs of an issuer, in the page's order.
pub(crate) fn authorization_server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = issuer.path().trim_end_matches('/');
    if path.is_empty() {
        vec![
            well_known(issuer, "/.well-known/oauth-authorization-server"),
            well_known(issuer, "/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            well_known(issuer, &format!("/.well-known/oauth-authorization-server{path}")),
            well_known(issuer, &format!("/.well-known/openid-configuration{path}")),
            well_known(issuer, &format!("{path}/.well-known/openid-configuration")),
        ]
    }
}

/// A metadata URI on the origin of `base`, without its user information,
/// query and fragment.
fn well_known(base: &Url, path: &str) -> Url {
    let mut url = base.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_path(path);
    url.set_query(None);
    url.set_fragment(None);
    url
}

/// The authorization server metadata that the flow needs.
#[derive(Debug, Clone)]
pub(crate) struct ServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: Url,
    pub token_endpoint: Url,
    pub registration_endpoint: Option<Url>,
    /// The device authorization endpoint of RFC 8628, when it offers one.
    pub device_authorization_endpoint: Option<Url>,
    pub client_id_metadata_document_supported: bool,
    pub iss_parameter_supported: bool,
    /// `token_endpoint_auth_methods_supported` (empty when absent).
    pub token_auth_methods: Vec<String>,
}

/// What the protected resource metadata gives.
#[derive(Debug, Clone)]
pub(crate) struct ResourceMetadata {
    /// The resource identifier the metadata publishes, when it has one.
    pub resource: Option<String>,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Option<Vec<String>>,
}

/// Reads the protected resource metadata: the URL of the challenge, else
/// the well-known URIs in order; the first document with at least one
/// authorization server wins.
pub(crate) async fn resource_metadata(
    http: &Fetcher,
    server: &Url,
    from_challenge: Option<&str>,
) -> Result<ResourceMetadata, BridgeError> {
    let urls = match from_challenge.and_then(|u| Url::parse(u).ok()) {
        Some(url) => vec![url],
        None => resource_metadata_urls(server),
    };
    for url in urls {
        secure(&url)?;
        let Some(document) = get_json(http, &url).await? else { continue };
        let servers: Vec<String> = strings(document.get("authorization_servers")).unwrap_or_default();
        if servers.is_empty() {
            continue;
        }
        let resource = document.get("resource").and_then(Value::as_str).map(str::to_owned);
        if let Some(resource) = &resource {
            if !covers(resource, server) {
                return Err(fail(
                    Cause::SignInFailed,
                    "discovery: the protected resource metadata is for another resource",
                ));
            }
        }
        return Ok(ResourceMetadata {
            resource,
            authorization_servers: servers,
            scopes_supported: strings(document.get("scopes_supported")),
        });
    }
    Err(fail(Cause::SignInFailed, "discovery: no protected resource metadata names an authorization server"))
}

/// Whether a published resource identifier names this server: the same
/// origin, and a path that is the server's path or a parent of it at a
/// segment boundary (RFC 9728 section 3.3 asks the identifier to match the
/// URL the metadata was found for; the root document names the origin).
pub(crate) fn covers(resource: &str, server: &Url) -> bool {
    let Ok(resource) = Url::parse(resource) else { return false };
    // RFC 8707: a resource indicator has no fragment (nor a query here).
    if resource.origin() != server.origin() || resource.query().is_some() || resource.fragment().is_some() {
        return false;
    }
    let (outer, inner) = (resource.path().trim_end_matches('/'), server.path().trim_end_matches('/'));
    inner == outer || inner.starts_with(&format!("{outer}/"))
}

/// Reads and checks the metadata of an issuer: its `issuer` must be the
/// issuer itself, the endpoints must be secure URLs, and PKCE with S256
/// must be supported (the security page: without
/// `code_challenge_methods_supported` the client refuses to go on).
pub(crate) async fn server_metadata(http: &Fetcher, issuer: &str) -> Result<ServerMetadata, BridgeError> {
    let issuer_url = Url::parse(issuer).map_err(|_| fail(Cause::SignInFailed, "discovery: the issuer is not a URL"))?;
    secure(&issuer_url)?;
    for url in authorization_server_metadata_urls(&issuer_url) {
        let Some(document) = get_json(http, &url).await? else { continue };
        return check_metadata(&document, issuer);
    }
    Err(fail(Cause::SignInFailed, "discovery: the authorization server has no metadata"))
}

/// RFC 8414 section 3.3 and the PKCE rule, on a metadata document.
pub(crate) fn check_metadata(document: &Value, issuer: &str) -> Result<ServerMetadata, BridgeError> {
    if document.get("issuer").and_then(Value::as_str) != Some(issuer) {
        return Err(fail(Cause::SignInFailed, "discovery: the issuer of the metadata is not the authorization server"));
    }
    let endpoint = |name: &str| -> Result<Option<Url>, BridgeError> {
        match document.get(name).and_then(Value::as_str) {
            None => Ok(None),
            Some(text) => {
                let url = Url::parse(text)
                    .map_err(|_| fail(Cause::SignInFailed, format!("discovery: {name} is not a URL")))?;
                secure(&url)?;
                Ok(Some(url))
            }
        }
    };
    // The authorization URL is the one the browser opens: a URL that fails
    // a check of the bridge is `sign_in_invalid_url` (error table).
    let authorization_endpoint = endpoint("authorization_endpoint")
        .map_err(|error| invalid_authorization_url(error.detail.as_deref().unwrap_or("")))?
        .ok_or_else(|| fail(Cause::SignInFailed, "discovery: the metadata has no authorization_endpoint"))?;
    let token_endpoint = endpoint("token_endpoint")?
        .ok_or_else(|| fail(Cause::SignInFailed, "discovery: the metadata has no token_endpoint"))?;
    let pkce = strings(document.get("code_challenge_methods_supported")).unwrap_or_default();
    if !pkce.iter().any(|m| m == "S256") {
        return Err(fail(Cause::SignInFailed, "discovery: the authorization server does not support PKCE with S256"));
    }
    Ok(ServerMetadata {
        issuer: issuer.to_owned(),
        authorization_endpoint,
        token_endpoint,
        registration_endpoint: endpoint("registration_endpoint")?,
        device_authorization_endpoint: endpoint("device_authorization_endpoint")?,
        client_id_metadata_document_supported: document
            .get("client_id_metadata_document_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        iss_parameter_supported: document
            .get("authorization_response_iss_parameter_supported")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        token_auth_methods: strings(document.get("token_endpoint_auth_methods_supported")).unwrap_or_default(),
    })
}

/// `sign_in_invalid_url`: the error has no detail; the log says why.
pub(crate) fn invalid_authorization_url(why: &str) -> BridgeError {
    tracing::warn!(why, "the authorization URL failed a check of the bridge; it is not opened");
    BridgeError::new(Cause::SignInInvalidUrl)
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    Some(value?.as_array()?.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

/// GETs a JSON document; `None` when it is not there or not JSON, so that
/// the next URI is tried. A response over the size limit, or one that
/// stalls, ends the sign-in.
pub(crate) async fn get_json(http: &Fetcher, url: &Url) -> Result<Option<Value>, BridgeError> {
    let request = http.request(reqwest::Method::GET, url.clone()).map(|r| r.header("Accept", "application/json"));
    let fetched = match http.send(request).await {
        Ok(fetched) => fetched,
        Err(Failure::Unreachable) => {
            tracing::debug!("a metadata URI cannot be reached");
            return Ok(None);
        }
        Err(failure) => {
            return Err(fail(Cause::SignInFailed, format!("discovery: {}", failure.text())));
        }
    };
    if !(200..300).contains(&fetched.status) {
        tracing::debug!(status = fetched.status, "a metadata URI has no document");
        return Ok(None);
    }
    Ok(serde_json::from_slice(&fetched.body).ok().filter(Value::is_object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn texts(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn the_resource_metadata_uris_follow_the_pages_order() {
        assert_eq!(
            texts(resource_metadata_urls(&url("https://example.com/public/mcp?key=1"))),
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            texts(resource_metadata_urls(&url("https://user:pass@example.com/mcp"))),
            [
                "https://example.com/.well-known/oauth-protected-resource/mcp",
                "https://example.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            texts(resource_metadata_urls(&url("https://example.com/"))),
            ["https://example.com/.well-known/oauth-protected-resource"]
        );
    }

    #[test]
    fn a_published_resource_must_name_this_server_or_a_parent_path_of_it() {
        let server = url("http://localhost:3000/mcp");
        for ok in [
            "http://localhost:3000/mcp",
            "http://localhost:3000",
            "http://localhost:3000/",
            "http://localhost:3000/mcp/",
        ] {
            assert!(covers(ok, &server), "{ok}");
        }
        for bad in [
            "https://evil.example.com/mcp",
            "http://localhost:3001/mcp",
            "http://localhost:3000/mc",
            "http://localhost:3000/other",
            "http://localhost:3000/mcp#x",
            "not a url",
        ] {
            assert!(!covers(bad, &server), "{bad}");
        }
    }

    #[test]
    fn the_metadata_uris_of_an_issuer_insert_its_path() {
        assert_eq!(
            texts(authorization_server_metadata_urls(&url("https://auth.example.com/tenant1"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            texts(authorization_server_metadata_urls(&url("https://auth.example.com"))),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
    }

    fn metadata() -> Value {
        json!({
            "issuer": "https://auth.example.com",
            "authorization_endpoint": "https://auth.example.com/authorize",
            "token_endpoint": "https://auth.example.com/token",
            "registration_endpoint": "https://auth.example.com/register",
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true
        })
    }

    #[test]
    fn metadata_must_name_its_issuer_support_s256_and_use_secure_endpoints() {
        let ok = check_metadata(&metadata(), "https://auth.example.com").map_err(|e| e.detail);
        assert!(matches!(&ok, Ok(m) if m.iss_parameter_supported && m.registration_endpoint.is_some()), "{ok:?}");
        let detail = |doc: Value, issuer: &str| check_metadata(&doc, issuer).err().and_then(|e| e.detail);
        assert_eq!(
            detail(metadata(), "https://auth.example.com/"),
            Some("discovery: the issuer of the metadata is not the authorization server".into())
        );
        let mut no_pkce = metadata();
        no_pkce["code_challenge_methods_supported"] = json!(["plain"]);
        assert_eq!(
            detail(no_pkce, "https://auth.example.com"),
            Some("discovery: the authorization server does not support PKCE with S256".into())
        );
        for bad in ["file:///etc/passwd", "http://auth.example.com/authorize", "not a url"] {
            let mut bad_authorize = metadata();
            bad_authorize["authorization_endpoint"] = json!(bad);
            let error = check_metadata(&bad_authorize, "https://auth.example.com").err();
            assert_eq!(error.map(|e| (e.cause, e.detail)), Some((Cause::SignInInvalidUrl, None)), "{bad}");
        }
        let mut plain_http = metadata();
        plain_http["token_endpoint"] = json!("http://auth.example.com/token");
        assert_eq!(
            detail(plain_http, "https://auth.example.com"),
            Some("discovery: an authorization URL is not https and not on a loopback host".into())
        );
        let mut loopback = metadata();
        loopback["token_endpoint"] = json!("http://127.0.0.1:9/token");
        assert!(check_metadata(&loopback, "https://auth.example.com").is_ok());
    }
}
