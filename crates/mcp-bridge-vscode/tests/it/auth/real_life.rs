//! The sign-in in real life: slow, hostile and short-lived answers of the
//! authorization server, endless bodies, short-lived tokens, a Secret
//! Service, and several bridges on one token store.

use super::*;

/// Error table, `sign_in_failed` ("the step and the HTTP status of a failed
/// token request"): a token request refused with an OAuth error names the
/// step, the error code and the HTTP status.
#[test]
fn a_refused_token_request_names_its_step_code_and_http_status() {
    let (response, fake, _dir) = sign_in_with("token-error", &["--token-error", "invalid_grant"]);
    let detail = "token request: invalid_grant, HTTP status 400";
    assert_eq!(
        response,
        err(json!(INIT), bridge_error(-32603, &message("sign_in_failed"), "sign_in_failed", Some(detail)))
    );
    assert_eq!(fake.requests_to("/token").len(), 1);
}

/// Error table, `sign_in_invalid_url`: "The authorization URL failed a
/// check of the bridge". An authorization endpoint that is neither https
/// nor on a loopback host is never opened: no sign-in line, no request to
/// it, and the error has the message of the table without a detail.
#[test]
fn an_authorization_endpoint_that_fails_the_check_gives_sign_in_invalid_url() {
    for endpoint in ["file:///etc/passwd", "http://auth.example.com/authorize"] {
        let dir = TempDir::new("bad-authorize");
        let fake = Fake::start(dir.path(), &["--authorization-endpoint", endpoint]);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
        assert_eq!(
            initialize_without_browser(&mut driver),
            err(json!(INIT), bridge_error(-32603, &message("sign_in_invalid_url"), "sign_in_invalid_url", None)),
            "{endpoint}"
        );
        assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
        assert_eq!(fake.requests_to("/register"), Vec::<Value>::new(), "{endpoint}");
    }
}

/// "Nothing leaks from the URL": the error text of a refused registration
/// reaches `data.detail` through the gate of outside text: its control
/// characters (a terminal escape, line breaks) written as escapes, and cut
/// after 200 of its characters, marked with `…`.
#[test]
fn a_hostile_registration_error_is_cleaned_and_cut_in_the_detail() {
    let dir = TempDir::new("hostile-registration");
    let hostile = format!("\u{1b}[31mbad\r\nline{}", "x".repeat(500));
    let fake = Fake::start(dir.path(), &["--registration-error", &hostile]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    let response = initialize_without_browser(&mut driver);
    let register = fake.requests_to("/register");
    let redirect_uri = register[0]["redirect_uris"][0].as_str().unwrap_or_default().to_owned();
    // 14 characters before the x's: ESC [ 3 1 m b a d CR LF l i n e.
    let detail = format!("HTTP status 400, \\x1b[31mbad\\r\\nline{}…", "x".repeat(186));
    let message = message_with("registration_failed", &[("redirect_uri", &redirect_uri)]);
    assert_eq!(response, err(json!(INIT), bridge_error(-32603, &message, "registration_failed", Some(&detail))));
    assert!(!driver.stderr_text().contains('\u{1b}'), "a terminal escape in the log");
}

/// "Nothing leaks from the URL": the user name and password of the server
/// URL reach neither the authorization server (the `resource` of the
/// authorization URL, which the browser keeps, and of the token request)
/// nor the log nor the store; the server gets them only as a Basic header
/// while no bearer token is in use, never beside one.
#[test]
fn the_user_info_of_the_server_url_never_reaches_the_authorization_server_the_log_or_the_store() {
    let dir = TempDir::new("userinfo");
    let fake = Fake::start(dir.path(), &[]);
    let url = fake.url().replacen("http://", "http://mcp-user:Pa55w0rd@", 1);
    let mut driver = bridge(dir.path(), &url, &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
    let authorize = fake.requests_to("/authorize");
    assert_eq!(authorize[0]["values"]["resource"], fake.url(), "{authorize:?}");
    let tokens = fake.requests_to("/token");
    assert_eq!(tokens[0]["resource"], fake.url(), "{tokens:?}");
    let mcp_requests = fake.requests_to("/mcp");
    let basic: Vec<&Value> = mcp_requests.iter().filter(|r| r.get("basic").is_some()).collect();
    assert_eq!(basic.len(), 1, "only the first request, without a token, is Basic: {mcp_requests:?}");
    assert_eq!(basic[0]["bearer"], false, "{mcp_requests:?}");
    assert!(
        mcp_requests.iter().all(|r| r.get("authorizations").is_none()),
        "two Authorization headers: {mcp_requests:?}"
    );
    for (what, text) in [("the log", driver.stderr_text()), ("the store", store_text(dir.path()))] {
        assert!(!text.contains("Pa55w0rd") && !text.contains("mcp-user"), "the user info in {what}: {text}");
    }
}

/// The text of every file of the token store.
fn store_text(config: &Path) -> String {
    let entries = std::fs::read_dir(store_dir(config)).map(|d| d.filter_map(Result::ok).collect::<Vec<_>>());
    entries.unwrap_or_default().iter().filter_map(|e| std::fs::read_to_string(e.path()).ok()).collect()
}

/// "Bounded OAuth": a metadata, registration or token response is read up
/// to 128 KiB, so an endless body ends the sign-in at once with
/// `sign_in_failed` and the step, and the bridge's memory stays near its
/// idle figure (its peak RSS at most twice the peak before the sign-in).
#[test]
fn endless_oauth_bodies_end_the_sign_in_with_bounded_memory() {
    for (route, detail, browser) in [
        ("resource-metadata", "discovery: the response is larger than 128 KiB", false),
        ("server-metadata", "discovery: the response is larger than 128 KiB", false),
        ("register", "registration: the response is larger than 128 KiB", false),
        ("token", "token request: the response is larger than 128 KiB", true),
    ] {
        let dir = TempDir::new("endless");
        let fake = Fake::start(dir.path(), &["--huge", route]);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
        driver.assert_alive_amid("p0");
        let idle = peak_rss_kib(driver.pid());
        send_initialize(&mut driver);
        if browser {
            follow(&start_url(&mut driver, 1));
        }
        let response = driver.response(&json!(INIT));
        assert_eq!(
            response,
            err(json!(INIT), bridge_error(-32603, &message("sign_in_failed"), "sign_in_failed", Some(detail))),
            "{route}"
        );
        let peak = peak_rss_kib(driver.pid());
        eprintln!("{route}: peak RSS {peak} KiB, before the sign-in {idle} KiB");
        assert!(idle > 0 && peak <= 2 * idle, "{route}: peak RSS {peak} KiB, before the sign-in {idle} KiB");
    }
}

/// "A refresh never blocks a request that still holds a valid access
/// token; a hung refresh ends within its own limit": with the token
/// endpoint hanging, four requests sent while the token is still valid
/// (but due for a refresh) are answered with it at once, before the
/// refresh's token request gives up after its limit (2 s here) and the
/// refresh ends with that request's error. A refresh margin longer than
/// the token's life makes it due from the start, so no test waits for it
/// to age: the refresh starts with the first request that the token
/// serves (the one that follows the sign-in).
#[test]
fn a_hanging_refresh_blocks_no_request_with_a_valid_token_and_ends_within_its_limit() {
    let dir = TempDir::new("hang-refresh");
    let fake = Fake::start(dir.path(), &["--expires-in", "30", "--hang-refresh"]);
    let options = ["--test-oauth-timeout-ms", "2000", "--test-refresh-ahead-secs", "3600"];
    let mut driver = bridge(dir.path(), &fake.url(), &options, &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let ids: Vec<Value> = (1..=4).map(|n| json!(n)).collect();
    let sent = Instant::now();
    for id in &ids {
        driver.send_request(id.clone(), "tools/call", json!({"name": "whoami", "arguments": {}}));
    }
    for id in &ids {
        let response = driver.response(id);
        assert_eq!(response["result"]["content"][0]["text"], "scope mcp:read", "{response}");
    }
    const GAVE_UP: &str = "the access token could not be refreshed cause=\"sign_in_failed\"";
    assert!(!driver.stderr_text().contains(GAVE_UP), "the requests waited for the refresh");
    driver.wait_stderr(GAVE_UP, 1);
    // The refresh's bound is twice the request limit; a second of room.
    assert!(sent.elapsed() < Duration::from_secs(5), "the refresh ended after {:?}", sent.elapsed());
    let stderr = driver.stderr_text();
    assert!(stderr.contains("detail=\"refresh request: no response in 2 s\""), "{stderr}");
    // The refresh runs beside the requests: its token request may reach
    // the server after their answers, but before the limit ends it.
    let held = fake.requests_to("/token").into_iter().filter(|r| r.get("held").is_some()).count();
    assert_eq!(held, 1, "one refresh for four requests");
}

/// "Short-lived tokens are refreshed when a fraction of their life is
/// left, not before every request": over 300 calls in 10 s with tokens of
/// 12 s, one refresh (when a quarter of the first token's life is left,
/// after 9 s; the second token would be due after 17 s), and every call is
/// answered with a valid token, never a 401.
#[test]
fn a_short_lived_token_is_refreshed_once_per_life_over_300_calls() {
    let dir = TempDir::new("short-lived");
    let fake = Fake::start(dir.path(), &["--expires-in", "12"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let start = Instant::now();
    let mut calls = 0;
    while calls < 300 || start.elapsed() < Duration::from_secs(10) {
        calls += 1;
        let response = driver.call(json!(calls), "tools/call", json!({"name": "whoami", "arguments": {}}));
        assert_eq!(response["result"]["content"][0]["text"], "scope mcp:read", "{response}");
        std::thread::sleep(Duration::from_millis(10));
    }
    let refreshes = fake.requests_to("/token").iter().filter(|r| r["grant_type"] == "refresh_token").count();
    eprintln!("{calls} calls in {:?}: {refreshes} refresh with 12 s tokens", start.elapsed());
    assert_eq!(refreshes, 1, "{calls} calls in {:?}", start.elapsed());
    let refused = fake.requests_to("/mcp").iter().filter(|r| r["status"] == 401).count();
    assert_eq!(refused, 1, "only the first request of the sign-in is refused");
}

/// The token store with the OS credential store, for real (README, "Where
/// it is verified"): with a Secret Service (scripts/test runs the tests in
/// one; without it this test fails), the secrets of a sign-in leave the
/// record file for it, the next start uses the stored token without a
/// sign-in, and `logout` leaves nothing in the folder (that it removes the
/// entry too is checked in `store::secret_service`).
#[test]
fn with_a_secret_service_the_tokens_leave_the_file_and_serve_the_next_start() {
    let dir = TempDir::new("keyring");
    let fake = Fake::start(dir.path(), &[]);
    let keyring = [("MCP_BRIDGE_TOKEN_STORE", "keyring")];
    {
        let mut first = bridge(dir.path(), &fake.url(), &[], &keyring);
        assert_eq!(initialize_signing_in(&mut first), initialize_result());
    }
    let store = store_dir(dir.path());
    let files: Vec<PathBuf> =
        std::fs::read_dir(&store).expect("the store").map(|e| e.expect("an entry").path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).expect("the record reads");
    assert!(!text.contains("SeCrEt"), "with a Secret Service a secret is in the file:\n{text}");
    let record: Value = serde_json::from_str(&text).expect("the record is JSON");
    assert_eq!(
        (record["revision"].as_u64(), record["grants"][fake.base()]["registration"].as_str()),
        (Some(1), Some("dynamic"))
    );

    let from = fake.records().len();
    let mut second = bridge(dir.path(), &fake.url(), &[], &keyring);
    send_initialize(&mut second);
    assert_eq!(second.response(&json!(INIT)), initialize_result());
    assert!(!second.stderr_text().contains(SIGN_IN_LINE), "a sign-in line:\n{}", second.stderr_text());
    assert_eq!(since(&fake, from), vec![mcp("server/discover", Some("SeCrEt-access-2"), 200)]);
    drop(second);

    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .args(["logout", &fake.url()])
        .env("XDG_CONFIG_HOME", dir.path())
        .env("MCP_BRIDGE_TOKEN_STORE", "keyring")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("logout starts");
    assert_eq!(exit_of(&mut child, "logout").code(), Some(0));
    assert_eq!(std::fs::read_dir(&store).map(|d| d.count()).ok(), Some(0), "logout leaves nothing of the server");
}

/// "One token store, many bridges" (two or three VS Code windows on one
/// server): over 20 s of tokens that live 2 s at most, with calls to every
/// bridge at once, only one bridge refreshes each grant (the others take its tokens
/// from the store under the record's lock), so no spent refresh token is
/// ever sent (the server rotates them and refuses a reused one), no new
/// sign-in starts, no call is refused, every call is answered once, and
/// the record in the store is always a whole JSON document.
fn bridges_share_one_grant(count: usize) {
    let dir = TempDir::new(&format!("bridges-{count}"));
    let fake = Fake::start(dir.path(), &["--expires-in", "2"]);
    let mut first = bridge(dir.path(), &fake.url(), &[], &[]);
    assert_eq!(initialize_signing_in(&mut first), initialize_result());
    let mut drivers = vec![first];
    for _ in 1..count {
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
        send_initialize(&mut driver);
        assert_eq!(driver.response(&json!(INIT)), initialize_result());
        drivers.push(driver);
    }
    let start = Instant::now();
    let mut round = 0;
    while start.elapsed() < Duration::from_secs(20) {
        round += 1;
        for driver in &mut drivers {
            driver.send_request(json!(round), "tools/call", json!({"name": "whoami", "arguments": {}}));
        }
        for driver in &mut drivers {
            let response = driver.response(&json!(round));
            assert_eq!(response["result"]["content"][0]["text"], "scope mcp:read", "round {round}: {response}");
        }
        let records = std::fs::read_dir(store_dir(dir.path())).map(|d| d.filter_map(Result::ok).collect::<Vec<_>>());
        let records: Vec<PathBuf> = records
            .unwrap_or_default()
            .iter()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        assert_eq!(records.len(), 1, "round {round}: one record: {records:?}");
        let text = std::fs::read_to_string(&records[0]).unwrap_or_default();
        assert!(serde_json::from_str::<Value>(&text).is_ok(), "round {round}: the record is not whole: {text}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let tokens = fake.requests_to("/token");
    let refreshes: Vec<&Value> = tokens.iter().filter(|r| r["grant_type"] == "refresh_token").collect();
    eprintln!("{count} bridges, {round} rounds in {:?}: {} refreshes", start.elapsed(), refreshes.len());
    assert!(refreshes.len() >= 9, "the token lived 2 s at most: {} refreshes", refreshes.len());
    // One chain: each refresh presents the refresh token that the one
    // before it got (the sign-in's for the first), so each life of a token
    // ended with one refresh, never two in parallel, never a spent token.
    let mut issued = tokens[0]["issued"]["refresh_token"].clone();
    for refresh in &refreshes {
        assert_eq!(refresh["status"], 200, "{refresh}");
        assert_eq!(refresh["refresh_token"], issued, "a refresh that is not the next of the chain: {refreshes:#?}");
        issued = refresh["issued"]["refresh_token"].clone();
    }
    assert_eq!(fake.requests_to("/authorize").len(), 1, "one sign-in in all");
    let refused = fake.requests_to("/mcp").iter().filter(|r| r["status"] == 401).count();
    assert_eq!(refused, 1, "only the first request of the sign-in is refused");
}

#[test]
fn two_bridges_on_one_store_refresh_each_grant_once() {
    bridges_share_one_grant(2);
}

#[test]
fn three_bridges_on_one_store_refresh_each_grant_once() {
    bridges_share_one_grant(3);
}
