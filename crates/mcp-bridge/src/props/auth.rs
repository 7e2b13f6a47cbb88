//! Properties of what an authorization server and a protected server send
//! to the sign-in: the `WWW-Authenticate` challenge (RFC 9110 section 11,
//! RFC 6750 section 3), the authorization server metadata (RFC 8414
//! section 3.3, the PKCE rule of the 2026-07-28 security page), the
//! resource of the protected resource metadata (RFC 9728 section 3.3) and
//! the registration response (RFC 7591 section 3.2).

use super::{ensure, Checked};
use crate::jsonrpc::Cause;
use crate::props::bytes::Bytes;
use crate::upstream::auth::challenge::Challenge;
use crate::upstream::auth::discovery::{check_metadata, covers};
use crate::upstream::auth::register::registration;
use reqwest::Url;
use serde_json::{json, Map, Value};

// --- The challenge ---------------------------------------------------------

/// The body of one challenge of the model.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    None,
    /// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
    Token68(String),
    /// `name=value` pairs; a value is written quoted when `.2` (always
    /// when it is not a token).
    Params(Vec<(String, String, bool)>),
}

/// One challenge: a scheme and its body.
pub(crate) type Model = (String, Body);

fn is_token(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// A challenge as a server writes it; `style` picks the optional
/// whitespace that the grammar allows around `=` (BWS) and `,` (OWS).
fn write(challenges: &[Model], style: u8) -> String {
    let eq = ["=", " = ", "\t="][usize::from(style % 3)];
    let comma = [", ", ",", " ,\t"][usize::from(style / 3 % 3)];
    let param = |(name, value, quoted): &(String, String, bool)| {
        if *quoted || !is_token(value) {
            let escaped: String =
                value.chars().flat_map(|c| if c == '"' || c == '\\' { vec!['\\', c] } else { vec![c] }).collect();
            format!("{name}{eq}\"{escaped}\"")
        } else {
            format!("{name}{eq}{value}")
        }
    };
    let one = |(scheme, body): &Model| match body {
        Body::Token68(token) => format!("{scheme} {token}"),
        Body::Params(params) if !params.is_empty() => {
            format!("{scheme} {}", params.iter().map(param).collect::<Vec<_>>().join(comma))
        }
        _ => scheme.clone(),
    };
    challenges.iter().map(one).collect::<Vec<_>>().join(comma)
}

/// What the first Bearer challenge asks: for each of its three names (in
/// any case), the last value given.
fn expected(challenges: &[Model]) -> Challenge {
    let Some((_, body)) = challenges.iter().find(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer")) else {
        return Challenge::default();
    };
    let mut challenge = Challenge::default();
    if let Body::Params(params) = body {
        for (name, value, _) in params {
            let slot = match name.to_ascii_lowercase().as_str() {
                "resource_metadata" => &mut challenge.resource_metadata,
                "scope" => &mut challenge.scope,
                "error" => &mut challenge.error,
                _ => continue,
            };
            *slot = Some(value.clone());
        }
    }
    challenge
}

/// The parse of challenges that follow the grammar is the first Bearer
/// challenge's parameters, whatever the optional whitespace, and the same
/// whether the challenges come in one header value or in several (RFC 9110
/// section 5.3: field lines combine with commas).
pub(crate) fn challenge(challenges: &[Model], style: u8, split: usize) -> Checked {
    let whole = write(challenges, style);
    let want = expected(challenges);
    let got = Challenge::parse([whole.as_str()]);
    ensure!(got == want, "{whole:?} gives {got:?}, not {want:?}");
    let (first, second) = challenges.split_at(split.min(challenges.len()));
    let values = [write(first, style), write(second, style)];
    let values: Vec<&str> = values.iter().map(String::as_str).filter(|v| !v.is_empty()).collect();
    let got = Challenge::parse(values.iter().copied());
    ensure!(got == want, "{values:?} as two values give {got:?}, not {want:?}");
    Ok(())
}

/// Header values of any text: no challenge without a `bearer` in them, and
/// every value found is text of the header, unescaped.
pub(crate) fn challenge_text(values: &[&str]) -> Checked {
    let got = Challenge::parse(values.iter().copied());
    let all = values.concat();
    if !all.to_ascii_lowercase().contains("bearer") {
        ensure!(got == Challenge::default(), "{values:?} without a Bearer challenge give {got:?}");
    }
    let unescaped = all.replace('\\', "");
    for value in [&got.resource_metadata, &got.scope, &got.error].into_iter().flatten() {
        ensure!(unescaped.contains(&value.replace('\\', "")), "{value:?} is not text of {values:?}");
    }
    Ok(())
}

/// Text of `bytes` over `alphabet`.
fn text(bytes: &[u8], alphabet: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(alphabet[usize::from(b) % alphabet.len()])).collect()
}

const SCHEMES: [&str; 6] = ["Bearer", "bearer", "Basic", "Negotiate", "DPoP", "BEARER"];
const NAMES: [&str; 8] = ["resource_metadata", "scope", "error", "Scope", "realm", "error_description", "x", "ERROR"];
const VALUE_CHARS: &[u8] = b"abcAZ09:/._-~ \"\\,=;";
const TOKEN68_CHARS: &[u8] = b"aZ09-._~+/";

/// The glue of the fuzz target `challenge`: the first byte picks a model
/// (odd) or raw header values (even, one per line); a model is a list of
/// challenges, 3 bytes and their data each.
pub fn challenge_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let mode = bytes.byte();
    if mode.is_multiple_of(2) {
        let text = String::from_utf8_lossy(bytes.rest());
        let values: Vec<&str> = text.split('\n').collect();
        return challenge_text(&values);
    }
    let style = bytes.byte();
    let split = usize::from(bytes.byte() % 4);
    let mut challenges = Vec::new();
    for _ in 0..(mode / 2 % 5) {
        let scheme = SCHEMES[usize::from(bytes.byte()) % SCHEMES.len()].to_owned();
        let kind = bytes.byte();
        let body = match kind % 4 {
            // Bearer takes parameters only (RFC 6750 section 3).
            1 if !scheme.eq_ignore_ascii_case("bearer") => {
                let n = usize::from(bytes.byte() % 12) + 1;
                Body::Token68(text(bytes.take(n), TOKEN68_CHARS) + &"=".repeat(usize::from(kind / 4 % 3)))
            }
            0 => Body::None,
            _ => Body::Params(
                (0..kind / 4 % 5)
                    .map(|_| {
                        let name = NAMES[usize::from(bytes.byte()) % NAMES.len()].to_owned();
                        let flags = bytes.byte();
                        let value = text(bytes.take(usize::from(flags % 8)), VALUE_CHARS);
                        (name, value, flags & 8 != 0)
                    })
                    .collect(),
            ),
        };
        challenges.push((scheme, body));
    }
    challenge(&challenges, style, split)
}

// --- The metadata ----------------------------------------------------------

/// An authorization URL the bridge may use: https, or http to a loopback
/// host.
fn secure(text: &str) -> bool {
    Url::parse(text).is_ok_and(|u| {
        u.scheme() == "https"
            || (u.scheme() == "http" && matches!(u.host_str(), Some("127.0.0.1" | "[::1]" | "localhost")))
    })
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    Some(value?.as_array()?.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

/// A metadata document passes exactly when its `issuer` is the issuer, its
/// two endpoints are there and secure, a registration endpoint is secure
/// when there is one, and `S256` is among the PKCE methods; then each
/// member is the document's, a flag only when it is `true`. A failure
/// names a rule that the document breaks; an authorization endpoint that
/// is not a secure URL is `sign_in_invalid_url`, without a detail.
pub(crate) fn metadata(document: &Value, issuer: &str) -> Checked {
    let endpoint = |name: &str| document.get(name).and_then(Value::as_str);
    let ok_endpoint = |name: &str| endpoint(name).is_some_and(secure);
    let pkce = strings(document.get("code_challenge_methods_supported")).is_some_and(|m| m.iter().any(|m| m == "S256"));
    let issuer_ok = document.get("issuer").and_then(Value::as_str) == Some(issuer);
    let registration_ok = endpoint("registration_endpoint").is_none_or(secure);
    let passes =
        issuer_ok && ok_endpoint("authorization_endpoint") && ok_endpoint("token_endpoint") && pkce && registration_ok;
    match check_metadata(document, issuer) {
        Ok(meta) => {
            ensure!(passes, "{document} passed for the issuer {issuer:?}");
            let url = |name: &str| endpoint(name).and_then(|t| Url::parse(t).ok());
            ensure!(meta.issuer == issuer, "the issuer is {:?}", meta.issuer);
            ensure!(Some(&meta.authorization_endpoint) == url("authorization_endpoint").as_ref(), "authorization");
            ensure!(Some(&meta.token_endpoint) == url("token_endpoint").as_ref(), "token endpoint");
            ensure!(meta.registration_endpoint == url("registration_endpoint"), "registration endpoint");
            let flag = |name: &str| document.get(name) == Some(&Value::Bool(true));
            ensure!(
                meta.client_id_metadata_document_supported == flag("client_id_metadata_document_supported"),
                "cimd"
            );
            ensure!(meta.iss_parameter_supported == flag("authorization_response_iss_parameter_supported"), "iss");
            let methods = strings(document.get("token_endpoint_auth_methods_supported")).unwrap_or_default();
            ensure!(meta.token_auth_methods == methods, "the auth methods are {:?}", meta.token_auth_methods);
        }
        Err(error) => {
            ensure!(!passes, "{document} failed for the issuer {issuer:?}: {:?}", error.detail);
            if error.cause == Cause::SignInInvalidUrl {
                // The URL the browser would open fails a check of the
                // bridge: the error has no detail.
                let bad = endpoint("authorization_endpoint").is_some_and(|t| !secure(t));
                ensure!(bad && error.detail.is_none(), "{document}: sign_in_invalid_url for a valid URL");
                return Ok(());
            }
            ensure!(error.cause == Cause::SignInFailed, "the cause is {:?}", error.cause);
            let detail = error.detail.unwrap_or_default();
            let broken = match detail.as_str() {
                "discovery: the issuer of the metadata is not the authorization server" => !issuer_ok,
                "discovery: the metadata has no authorization_endpoint" => endpoint("authorization_endpoint").is_none(),
                "discovery: the metadata has no token_endpoint" => endpoint("token_endpoint").is_none(),
                "discovery: the authorization server does not support PKCE with S256" => !pkce,
                "discovery: an authorization URL is not https and not on a loopback host" => {
                    ["authorization_endpoint", "token_endpoint", "registration_endpoint"]
                        .iter()
                        .any(|n| endpoint(n).is_some_and(|t| Url::parse(t).is_ok() && !secure(t)))
                }
                other => other
                    .strip_prefix("discovery: ")
                    .and_then(|d| d.strip_suffix(" is not a URL"))
                    .is_some_and(|name| endpoint(name).is_some_and(|t| Url::parse(t).is_err())),
            };
            ensure!(broken, "{document}: the detail {detail:?} names no rule that it breaks");
        }
    }
    Ok(())
}

/// A published resource names this server exactly when it has the origin
/// of the server, no query, no fragment (RFC 8707), and a path that is the server's or a parent
/// of it at a segment boundary; the server URL itself (without query and
/// fragment) and its origin always do.
pub(crate) fn resource(resource: &str, server: &Url) -> Checked {
    let got = covers(resource, server);
    let expected = Url::parse(resource).is_ok_and(|r| {
        let (outer, inner) = (r.path().trim_end_matches('/'), server.path().trim_end_matches('/'));
        r.origin() == server.origin()
            && r.query().is_none()
            && r.fragment().is_none()
            && (inner == outer || inner.strip_prefix(outer).is_some_and(|rest| rest.starts_with('/')))
    });
    ensure!(got == expected, "covers({resource:?}, {server}) is {got}");
    let mut own = server.clone();
    own.set_query(None);
    own.set_fragment(None);
    if server.origin().is_tuple() {
        ensure!(covers(own.as_str(), server), "{server} does not cover itself");
        ensure!(covers(&server.origin().ascii_serialization(), server), "the origin of {server} does not cover it");
    }
    Ok(())
}

const ISSUERS: [&str; 3] = ["https://auth.example.com", "https://auth.example.com/tenant", "http://127.0.0.1:9"];
const URLS: [&str; 10] = [
    "https://auth.example.com/authorize",
    "https://auth.example.com/token",
    "http://127.0.0.1:9/x",
    "http://localhost/x",
    "http://[::1]:8/x",
    "http://auth.example.com/token",
    "file:///etc/passwd",
    "not a url",
    "https://user:pw@auth.example.com/",
    "javascript:alert(1)",
];

/// A member of a metadata document from one byte: absent, a URL of the
/// table, or a value of another type.
fn member_value(byte: u8) -> Option<Value> {
    match byte % 14 {
        0 => None,
        1 => Some(json!(5)),
        2 => Some(json!(null)),
        3 => Some(json!(["https://auth.example.com/x"])),
        n => URLS.get(usize::from(n - 4)).map(|u| json!(u)),
    }
}

/// The glue of the fuzz target `metadata`: the first byte picks a built
/// document (odd) or the rest as JSON (even); then the issuer, then a
/// resource and a server URL for `covers`.
pub fn metadata_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let mode = bytes.byte();
    let issuer = ISSUERS[usize::from(bytes.byte()) % ISSUERS.len()];
    let servers = [
        "https://mcp.example.com/mcp",
        "http://127.0.0.1:3000/a/b/",
        "https://mcp.example.com",
        "https://h:8443/x?k=1",
    ];
    let server = Url::parse(servers[usize::from(bytes.byte()) % servers.len()]).map_err(|e| e.to_string())?;
    if mode.is_multiple_of(2) {
        let text = String::from_utf8_lossy(bytes.rest()).into_owned();
        let resource_text = text.lines().next().unwrap_or_default().to_owned();
        resource(&resource_text, &server)?;
        let rebased = server.join(&resource_text).map(String::from).unwrap_or(resource_text);
        resource(&rebased, &server)?;
        return match serde_json::from_str::<Value>(&text) {
            Ok(document) => metadata(&document, issuer),
            Err(_) => Ok(()),
        };
    }
    let mut document = Map::new();
    let issuer_choice = bytes.byte();
    let issuer_value = match issuer_choice % 4 {
        0 => None,
        1 => Some(json!(issuer)),
        2 => Some(json!(format!("{issuer}/"))),
        _ => Some(json!(ISSUERS[usize::from(issuer_choice / 4) % 3])),
    };
    if let Some(value) = issuer_value {
        document.insert("issuer".into(), value);
    }
    for name in ["authorization_endpoint", "token_endpoint", "registration_endpoint"] {
        if let Some(value) = member_value(bytes.byte()) {
            document.insert(name.into(), value);
        }
    }
    let flags = bytes.byte();
    let methods = [json!(["S256"]), json!(["plain"]), json!(["plain", "S256"]), json!("S256"), json!([5, "S256"])];
    if flags & 1 != 0 {
        document.insert("code_challenge_methods_supported".into(), methods[usize::from(flags >> 5) % 5].clone());
    }
    let flag_values = [json!(true), json!(false), json!("true")];
    if flags & 2 != 0 {
        document.insert(
            "authorization_response_iss_parameter_supported".into(),
            flag_values[usize::from(flags >> 3) % 3].clone(),
        );
    }
    if flags & 4 != 0 {
        document
            .insert("client_id_metadata_document_supported".into(), flag_values[usize::from(flags >> 4) % 3].clone());
    }
    if flags & 8 != 0 {
        document.insert("token_endpoint_auth_methods_supported".into(), json!(["none", 3, "client_secret_post"]));
    }
    metadata(&Value::Object(document), issuer)?;
    let paths = ["", "/", "/mcp", "/mcp/", "/m", "/a", "/a/b", "/a/bc", "/x?k=1", "/mcp#f"];
    let origins = ["https://mcp.example.com", "http://127.0.0.1:3000", "https://h:8443", "http://mcp.example.com"];
    let pick = bytes.byte();
    let candidate = format!("{}{}", origins[usize::from(pick % 4)], paths[usize::from(pick / 4) % paths.len()]);
    resource(&candidate, &server)
}

// --- The registration response -------------------------------------------

/// A registration response gives a dynamic grant exactly when its status
/// is 2xx and its `client_id` a string; the grant has the response's
/// client ID, secret and authentication method (strings only) and no
/// token yet. Anything else is `registration_failed` with the status, the
/// redirect URI in the message, and a detail `HTTP status <n>, ` then the
/// error code (a plain one as it is, `no error code` without one).
pub(crate) fn registration_response(status: u16, body: &Value) -> Checked {
    let redirect_uri = "http://127.0.0.1:49152/callback";
    let string = |name: &str| body.get(name).and_then(Value::as_str).map(str::to_owned);
    match registration(status, body, redirect_uri) {
        Ok(grant) => {
            ensure!((200..300).contains(&status), "status {status} gave a grant");
            ensure!(Some(&grant.client_id) == string("client_id").as_ref(), "the client ID is {:?}", grant.client_id);
            ensure!(grant.client_secret == string("client_secret"), "the secret is not the response's");
            ensure!(
                grant.token_auth_method == string("token_endpoint_auth_method"),
                "the method is not the response's"
            );
            ensure!(grant.registration == "dynamic", "the registration is {:?}", grant.registration);
            ensure!(
                grant.access_token.is_none()
                    && grant.refresh_token.is_none()
                    && grant.expires_at.is_none()
                    && grant.scope.is_none(),
                "a new registration has tokens"
            );
        }
        Err(error) => {
            ensure!(
                !(200..300).contains(&status) || string("client_id").is_none(),
                "status {status} with a client_id failed: {body}"
            );
            ensure!(error.cause == Cause::RegistrationFailed, "the cause is {:?}", error.cause);
            ensure!(error.status == Some(status), "the status of the error is {:?}", error.status);
            ensure!(
                error.message.contains(&format!("the redirect URI {redirect_uri} at")) && !error.message.contains('{'),
                "the message {:?}",
                error.message
            );
            let detail = error.detail.unwrap_or_default();
            let Some(code) = detail.strip_prefix(&format!("HTTP status {status}, ")) else {
                return Err(format!("the detail {detail:?} does not start with the status"));
            };
            match string("error") {
                None => ensure!(code == "no error code", "the code of {body} is {code:?}"),
                Some(error) => {
                    let cleaned = crate::gate::text::escape(&error, crate::gate::text::DETAIL);
                    ensure!(code == cleaned, "the code {error:?} shows as {code:?}");
                    ensure!(!code.chars().any(char::is_control), "control characters in {code:?}");
                    ensure!(code.chars().count() <= 201, "a code of {} characters", code.chars().count());
                }
            }
        }
    }
    Ok(())
}

/// The glue of the fuzz target `registration`: the status (two bytes,
/// 100 to 599), then a built body (first byte odd) or the rest as JSON.
pub fn registration_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let status = 100 + bytes.u16() % 500;
    let mode = bytes.byte();
    if mode.is_multiple_of(2) {
        let body = serde_json::from_slice(bytes.rest()).unwrap_or(Value::Null);
        return registration_response(status, &body);
    }
    let values = [json!("client-1"), json!(""), json!(7), json!(null), json!({"a": 1}), json!("invalid_redirect_uri")];
    let mut body = Map::new();
    for (i, name) in ["client_id", "client_secret", "token_endpoint_auth_method", "error"].iter().enumerate() {
        let pick = bytes.byte();
        if (mode >> (i + 1)) & 1 != 0 {
            let value = match pick % 8 {
                6 => json!(String::from_utf8_lossy(bytes.take(usize::from(pick / 8))).into_owned()),
                7 => json!("\u{1b}[31mred\r\nline"),
                n => values[usize::from(n)].clone(),
            };
            body.insert((*name).into(), value);
        }
    }
    registration_response(status, &Value::Object(body))
}
