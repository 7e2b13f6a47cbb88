//! The device authorization grant (RFC 8628), the sign-in of a bridge on a
//! remote host: the user opens a URL and enters a code on their own
//! machine, and the bridge polls the token endpoint; no redirect reaches
//! the host (issue of the remote windows: Remote-SSH, Dev Containers, WSL,
//! Codespaces). The test plays the user: it opens the verification URL,
//! which approves the code at the fake (`&deny=1` declines it).

use super::*;

/// The environment of an SSH session: the bridge runs on a remote host.
const SSH: (&str, &str) = ("SSH_CONNECTION", "10.0.0.2 50000 10.0.0.1 22");
/// The grant type of RFC 8628.
const DEVICE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";

/// The sign-in line of a device sign-in: its URL and its code.
#[track_caller]
pub(super) fn device_line(driver: &mut Driver) -> (String, String) {
    const OPEN: &str = "sign-in: open ";
    driver.wait_stderr(OPEN, 1);
    let stderr = driver.stderr_text();
    let rest = &stderr[stderr.find(OPEN).unwrap_or(0) + OPEN.len()..];
    let line = rest.lines().next().unwrap_or("");
    let url = line.split_whitespace().next().unwrap_or("").to_owned();
    let code = line
        .split("(the code is ")
        .nth(1)
        .or_else(|| line.split("enter the code ").nth(1))
        .and_then(|c| c.split([')', ' ']).next())
        .unwrap_or("")
        .to_owned();
    assert!(url.contains("/device") && !code.is_empty(), "the sign-in line: {line}");
    (url, code)
}

/// Initializes a client that declares `elicitation.url` through a device
/// sign-in that the test approves, then sends `notifications/initialized`:
/// from then on a later sign-in asks the client.
pub(super) fn signed_in_with_url_elicitation(driver: &mut Driver) {
    driver.send_request(
        json!(INIT),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"url": {}}}, "clientInfo": {"name": "auth-test", "version": "1.0"}}),
    );
    let (first, _) = device_line(driver);
    assert_eq!(get(&first).status, 200);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    driver.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

/// The device grant's requests of the token endpoint.
fn polls(fake: &Fake) -> Vec<Value> {
    fake.requests_to("/token").into_iter().filter(|r| r["grant_type"] == DEVICE_GRANT).collect()
}

/// "The device authorization grant (RFC 8628) ... chosen automatically in
/// a remote context": on an SSH host, with a server that offers it, the
/// registration asks for the grant, the sign-in line names the
/// verification URL with the code, and once the user approved it the
/// initialize result comes; no authorization request, no redirect, no
/// browser. `resource` goes with the device request and each poll. The
/// tokens serve the calls, stay in the store for the next start, and are
/// refreshed after they expired.
#[test]
fn on_a_remote_host_the_device_grant_signs_in_without_a_redirect() {
    let dir = TempDir::new("device");
    let fake = Fake::start(dir.path(), &["--device", "--expires-in", "2"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
    send_initialize(&mut driver);
    let (url, code) = device_line(&mut driver);
    assert!(url.ends_with(&format!("/device?user_code={code}")), "{url}");
    assert_eq!(get(&url).status, 200, "the user approves the code");
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    let register = fake.requests_to("/register");
    assert_eq!(register[0]["grant_types"], json!(["authorization_code", "refresh_token", DEVICE_GRANT]));
    let asked = fake.requests_to("/device_authorization");
    assert_eq!(asked.len(), 1);
    assert_eq!(
        (&asked[0]["client_id"], &asked[0]["resource"], &asked[0]["scope"]),
        (&json!("client-1"), &json!(fake.url()), &json!("mcp:read"))
    );
    let polls = polls(&fake);
    assert!(polls.iter().all(|p| p["resource"] == fake.url()), "{polls:?}");
    assert_eq!(polls.last().map(|p| &p["status"]), Some(&json!(200)), "{polls:?}");
    assert_eq!(fake.requests_to("/authorize"), Vec::<Value>::new(), "no redirect flow");
    let stderr = driver.stderr_text();
    assert!(!stderr.contains("/start/"), "no start URL: {stderr}");
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
    drop(driver);
    // The next start: the token expired meanwhile; it is refreshed, no new
    // sign-in.
    std::thread::sleep(Duration::from_secs(3));
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
    send_initialize(&mut driver);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    assert_eq!(fake.requests_to("/device_authorization").len(), 1, "no second device sign-in");
    let refreshes = fake.requests_to("/token").into_iter().filter(|r| r["grant_type"] == "refresh_token").count();
    assert_eq!(refreshes, 1, "the stored grant is refreshed");
}

/// RFC 8628 section 3.5: `authorization_pending` polls again after the
/// interval, `slow_down` adds 5 s to it, and the tokens come once the user
/// approved. The fake answers the first three polls as scripted.
#[test]
fn every_polling_answer_of_the_rfc_is_followed() {
    let dir = TempDir::new("device-polls");
    let fake = Fake::start(dir.path(), &["--device", "--device-polls", "pending,slow_down,pending"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
    send_initialize(&mut driver);
    let (url, _) = device_line(&mut driver);
    assert_eq!(get(&url).status, 200);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    let polls = polls(&fake);
    let statuses: Vec<&Value> = polls.iter().map(|p| &p["status"]).collect();
    assert_eq!(statuses, [&json!(400), &json!(400), &json!(400), &json!(200)], "{polls:?}");
    let at: Vec<f64> = polls.iter().filter_map(|p| p["t"].as_f64()).collect();
    // The interval is 1 s; after slow_down it is 6 s (a loaded machine
    // only makes the gaps longer).
    assert!(at[1] - at[0] >= 1.0 && at[2] - at[1] >= 6.0 && at[3] - at[2] >= 6.0, "poll times: {at:?}");
}

/// The failures of the polling, each with the cause of the error table:
/// a denial is `sign_in_denied`; a code that expires is `sign_in_timeout`
/// (its message, with the sign-in's limit); another error code is
/// `sign_in_error` with the code.
#[test]
fn a_denied_an_expired_or_a_refused_device_code_ends_with_the_cause_of_the_table() {
    for (name, options, user, expected) in [
        (
            "deny",
            vec!["--device"],
            Some("&deny=1"),
            bridge_error(-32603, &message("sign_in_denied"), "sign_in_denied", None),
        ),
        (
            "expire",
            vec!["--device", "--device-expires-in", "2"],
            None,
            bridge_error(
                -32603,
                &message_with("sign_in_timeout", &[("seconds", "300"), ("name", "mcp-bridge-vscode")]),
                "sign_in_timeout",
                None,
            ),
        ),
        (
            "refuse",
            vec!["--device", "--device-polls", "error:unauthorized_client"],
            None,
            bridge_error(-32603, &message("sign_in_error"), "sign_in_error", Some("unauthorized_client")),
        ),
    ] {
        let dir = TempDir::new(&format!("device-{name}"));
        let fake = Fake::start(dir.path(), &options);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
        send_initialize(&mut driver);
        let (url, _) = device_line(&mut driver);
        if let Some(query) = user {
            assert_eq!(get(&format!("{url}{query}")).status, 200);
        }
        assert_eq!(driver.response(&json!(INIT)), err(json!(INIT), expected), "{name}");
        assert_eq!(fake.requests_to("/mcp").len(), 1, "{name}: no token reached the server");
    }
}

/// "A server without the grant keeps the browser flow, and a remote user
/// gets one clear line saying which port to forward": without a device
/// endpoint, or with a registration that does not allow the grant, the
/// sign-in on an SSH host redirects to 127.0.0.1 as before (here the test
/// runs the browser on the same host, as a forwarded port would), opens
/// no browser, and its log names the port and `ssh -L`.
#[test]
fn without_the_device_grant_a_remote_bridge_keeps_the_browser_flow_and_names_the_port_to_forward() {
    for (name, options) in [
        ("no-endpoint", vec![]),
        ("not-registered", vec!["--device", "--registration-grant-types", "authorization_code,refresh_token"]),
    ] {
        let dir = TempDir::new(&format!("device-fallback-{name}"));
        let fake = Fake::start(dir.path(), &options);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
        assert_eq!(initialize_signing_in(&mut driver), initialize_result(), "{name}");
        let port = port_of(&start_url(&mut driver, 1));
        let stderr = driver.stderr_text();
        let forward = format!("ssh -L {port}:127.0.0.1:{port}");
        assert!(stderr.contains(&forward) && stderr.contains("--redirect-port"), "{name}: {stderr}");
        assert!(!stderr.contains("the browser did not open"), "{name}: a browser was tried on the host");
        assert_eq!(fake.requests_to("/device_authorization"), Vec::<Value>::new(), "{name}");
        assert_eq!(fake.requests_to("/authorize").len(), 1, "{name}");
    }
}

/// `--sign-in device` takes the device grant on the user's own machine
/// too, and fails clearly with `sign_in_failed` where the authorization
/// server does not offer it; `--sign-in browser` keeps the redirect on a
/// remote host although the server offers the device grant.
#[test]
fn the_sign_in_option_chooses_the_flow() {
    let dir = TempDir::new("device-option");
    let fake = Fake::start(dir.path(), &["--device"]);
    let mut driver = bridge(dir.path(), &fake.url(), &["--sign-in", "device"], &[]);
    send_initialize(&mut driver);
    let (url, _) = device_line(&mut driver);
    assert_eq!(get(&url).status, 200);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());

    let dir = TempDir::new("device-option-browser");
    let fake = Fake::start(dir.path(), &["--device"]);
    let mut driver = bridge(dir.path(), &fake.url(), &["--sign-in", "browser"], &[SSH]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    assert_eq!(fake.requests_to("/device_authorization"), Vec::<Value>::new());

    let dir = TempDir::new("device-option-none");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &["--sign-in", "device"], &[]);
    let detail = "device authorization: the authorization server does not offer it";
    assert_eq!(
        initialize_without_browser(&mut driver),
        err(json!(INIT), bridge_error(-32603, &message("sign_in_failed"), "sign_in_failed", Some(detail)))
    );
}

/// "Through VS Code's URL elicitation for a later sign-in, with the code in
/// the message": a step-up after initialize on a remote host asks the
/// client to open the verification URL, with the code in the message;
/// once the user accepted and approved, the call is answered.
#[test]
fn a_later_device_sign_in_asks_the_client_with_the_url_and_the_code() {
    let dir = TempDir::new("device-later");
    let fake = Fake::start(dir.path(), &["--device", "--step-up", "mcp:write"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[SSH]);
    signed_in_with_url_elicitation(&mut driver);
    driver.send_request(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    let question = driver.recv();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    let url = question["params"]["url"].as_str().unwrap_or("").to_owned();
    let code = url.split("user_code=").nth(1).unwrap_or("").to_owned();
    let message = format!(
        "The upstream server needs a new sign-in. Open the URL, enter the code {code} if it asks for one, then return here."
    );
    assert_eq!(
        question["params"],
        json!({"mode": "url", "message": message, "url": url, "elicitationId": "elicitation-1"})
    );
    driver.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept"}}));
    assert_eq!(get(&url).status, 200);
    assert_eq!(
        driver.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": "elicitation-1"}})
    );
    assert_eq!(
        driver.recv(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "scope mcp:read mcp:write"}]}})
    );
    assert_eq!(fake.requests_to("/authorize"), Vec::<Value>::new(), "no redirect flow");
}
