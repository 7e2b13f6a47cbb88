//! Step-up and the later sign-in after initialize, what never leaks to
//! stdout or stderr, and the exit code after a sign-in.

use super::*;

/// "Step-Up Authorization Flow": an insufficient_scope 403 during
/// initialize (here of server/discover) signs in again with the union of
/// the scopes asked before and the challenge's; the registration is
/// reused, and the request is retried with the new token.
#[test]
fn a_step_up_during_initialize_signs_in_again_with_the_union_of_the_scopes() {
    let dir = TempDir::new("stepup-init");
    let fake = Fake::start(dir.path(), &["--step-up", "mcp:write", "--step-up-method", "server/discover"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    follow(&start_url(&mut driver, 1));
    let end = follow(&start_url(&mut driver, 2));
    assert_eq!(end.status, 200, "the last page of the second sign-in: {end:?}");
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    let scopes: Vec<Value> = fake.requests_to("/authorize").iter().map(|r| r["values"]["scope"].clone()).collect();
    assert_eq!(scopes, vec![json!("mcp:read"), json!("mcp:read mcp:write")]);
    assert_eq!(fake.requests_to("/register").len(), 1, "the registration is reused");
    let discovers: Vec<Value> = only(&fake.records(), "/mcp");
    assert_eq!(
        discovers,
        vec![
            mcp("server/discover", None, 401),
            mcp("server/discover", Some("SeCrEt-access-2"), 403),
            mcp("server/discover", Some("SeCrEt-access-5"), 200),
        ]
    );
    driver.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read mcp:write", "{call}");
}

/// Error table, `reauthorization_required`: after initialize the bridge
/// does not open a sign-in by itself; an insufficient_scope 403 of a
/// tools/call, from a client that declared no URL elicitation, fails that
/// call with the detail no_consent, and no new sign-in starts.
#[test]
fn a_step_up_after_initialize_without_consent_fails_with_reauthorization_required() {
    let dir = TempDir::new("stepup-later");
    let fake = Fake::start(dir.path(), &["--step-up", "mcp:write"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let from = fake.records().len();
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        call,
        err(
            json!(2),
            bridge_error(-32603, &message("reauthorization_required"), "reauthorization_required", Some("no_consent"))
        )
    );
    assert_eq!(since(&fake, from), vec![mcp("tools/call", Some("SeCrEt-access-2"), 403)]);
    assert_eq!(driver.stderr_text().matches(SIGN_IN_LINE).count(), 1, "{}", driver.stderr_text());
}

/// Initializes as a client that declares `elicitation.url` (through the
/// first sign-in), then calls the tool that needs a step-up; returns the
/// question of the later sign-in.
#[track_caller]
fn step_up_question(driver: &mut Driver) -> Value {
    driver.send_request(
        json!(INIT),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"url": {}}}, "clientInfo": {"name": "auth-test", "version": "1.0"}}),
    );
    assert_eq!(follow(&start_url(driver, 1)).status, 200);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    driver.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    driver.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}),
    );
    let question = driver.recv();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    question
}

/// The `notifications/initialized` row ("it also lets a later sign-in ask
/// the client with a URL elicitation, when the client declared
/// elicitation.url") and the step-up of "Scope Challenge Handling": after
/// initialize, an `insufficient_scope` 403 asks the client to open the
/// one-time start URL; the user accepts, the sign-in asks for the union of
/// the scopes, the call is retried once and answered, and the URL step is
/// completed before the response.
#[test]
fn a_step_up_after_initialize_asks_the_client_with_a_url_elicitation() {
    let dir = TempDir::new("stepup-elicit");
    let fake = Fake::start(dir.path(), &["--step-up", "mcp:write"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    let question = step_up_question(&mut driver);
    let url = question["params"]["url"].as_str().unwrap_or("").to_owned();
    assert!(url.starts_with("http://127.0.0.1:") && url.contains("/start/"), "{question}");
    assert_eq!(
        question["params"],
        json!({"mode": "url", "message": "The upstream server needs a new sign-in. Open the URL to sign in, then return here.", "url": url, "elicitationId": "elicitation-1"})
    );
    assert_eq!(driver.stderr_text().matches(SIGN_IN_LINE).count(), 1, "no second sign-in line: the client opens it");
    driver.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept"}}));
    assert_eq!(follow(&url).status, 200);
    assert_eq!(
        driver.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": "elicitation-1"}})
    );
    assert_eq!(
        driver.recv(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "scope mcp:read mcp:write"}]}})
    );
    let scopes: Vec<Value> = fake.requests_to("/authorize").iter().map(|r| r["values"]["scope"].clone()).collect();
    assert_eq!(scopes, vec![json!("mcp:read"), json!("mcp:read mcp:write")]);
}

/// `reauthorization_required` with `declined`, then `cooldown`: a user who
/// declines the URL of a later sign-in is not asked again at once.
#[test]
fn a_declined_later_sign_in_gives_declined_and_then_cooldown() {
    let dir = TempDir::new("stepup-decline");
    let fake = Fake::start(dir.path(), &["--step-up", "mcp:write"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    let question = step_up_question(&mut driver);
    driver.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}}));
    assert_eq!(
        driver.response(&json!(2)),
        err(
            json!(2),
            bridge_error(-32603, &message("reauthorization_required"), "reauthorization_required", Some("declined"))
        )
    );
    let again = driver.call(json!(3), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        again,
        err(
            json!(3),
            bridge_error(-32603, &message("reauthorization_required"), "reauthorization_required", Some("cooldown"))
        )
    );
    assert_eq!(fake.requests_to("/authorize").len(), 1, "no sign-in after the decline");
}

/// Error table, `access_refused`: a server that refuses the token of a
/// fresh sign-in again fails the request with the HTTP status in
/// data.detail, after one sign-in only.
#[test]
fn a_refusal_after_the_sign_in_fails_with_access_refused_and_the_status() {
    let (response, fake, _dir) = sign_in_with("refuse", &["--always-refuse"]);
    assert_eq!(
        response,
        err(json!(INIT), bridge_error(-32603, &message("access_refused"), "access_refused", Some("HTTP status 401")))
    );
    assert_eq!(fake.requests_to("/authorize").len(), 1);
    assert_eq!(
        fake.requests_to("/mcp"),
        vec![mcp("server/discover", None, 401), mcp("server/discover", Some("SeCrEt-access-2"), 401)]
    );
}

/// The paragraph after the error table and the rule of the log ("never a
/// secret"): no token, code, client secret or query of the server URL
/// reaches stdout or stderr, over a sign-in, a tools/list and a tools/call
/// at the debug level. The fake's records show that each of them was
/// used.
#[test]
fn no_token_code_client_secret_or_query_reaches_stdout_or_stderr() {
    let dir = TempDir::new("secrets");
    let secret = format!("SeCrEt{}x", std::process::id());
    let key = format!("KeY{}x", std::process::id());
    let fake = Fake::start(dir.path(), &["--secret", &secret, "--client-secret"]);
    let url = format!("{}?key={key}", fake.url());
    let mut driver = bridge(dir.path(), &url, &[], &[("MCP_BRIDGE_LOG", "debug")]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let list = driver.call(json!(2), "tools/list", json!({}));
    assert_eq!(list["result"]["tools"][0]["name"], "whoami", "{list}");
    let call = driver.call(json!(3), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
    let used = fake.requests_to("/mcp");
    assert!(
        used.len() == 4 && used[1..].iter().all(|r| r["token"].as_str().is_some_and(|t| t.starts_with(&secret))),
        "the tokens of the fake went to the server: {used:?}"
    );
    // Every line of the run so far: the bridge does not exit at the end of
    // its input yet (see the last test), so the run is read here, after
    // the last response, when each log line of the work is written.
    let stderr = driver.stderr_text();
    for line in driver.seen.iter().map(Value::to_string) {
        assert!(!line.contains(&secret) && !line.contains(&key), "a secret on stdout: {line}");
    }
    for line in stderr.lines() {
        assert!(!line.contains(&secret) && !line.contains(&key), "a secret on stderr: {line}");
    }
    assert!(stderr.contains(SIGN_IN_LINE), "the log was captured:\n{stderr}");
}

/// "The exit code of mcp-bridge-vscode is 0 at the end of stdin", for an
/// upstream server at a URL after a sign-in too.
#[test]
fn the_bridge_exits_with_0_at_the_end_of_stdin_after_a_sign_in() {
    let dir = TempDir::new("exit");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    driver.close_stdin();
    let ended = driver.wait_exit(STEP);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(0), "stderr:\n{}", ended.stderr);
}
