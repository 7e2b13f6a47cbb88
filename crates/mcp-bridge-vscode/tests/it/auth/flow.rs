//! The sign-in during initialize, the token store, and each way the first
//! sign-in fails (behaviour spec, "Sign-in during initialize (M4)" and the
//! sign-in rows of the error table).

use super::*;

/// "Sign-in during initialize (M4)" and the flow of `basic/authorization/`:
/// the initialize result comes after the sign-in, whose requests come in
/// the page's order: the request without a token and its 401, the
/// protected resource metadata of the challenge, the authorization server
/// metadata, a dynamic registration as a native client with its loopback
/// redirect URI, the authorization request with PKCE S256, state, resource
/// and the scope of the challenge, the token request with the verifier and
/// the resource, then the retry with the bearer token. A later tools/call
/// goes with that token.
#[test]
fn the_sign_in_during_initialize_follows_the_flow_of_the_page() {
    let dir = TempDir::new("flow");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    let start = start_url(&mut driver, 1);
    // Nothing answers initialize before the browser comes.
    assert_eq!(driver.take_new(Duration::from_millis(300)), Vec::<Value>::new());
    let end = follow(&start);
    assert_eq!(end.status, 200, "the last page of the sign-in: {end:?}");
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    driver.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        call,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "scope mcp:read"}]}})
    );

    let (base, resource) = (fake.base(), fake.url());
    let redirect_uri = format!("http://127.0.0.1:{}/callback", port_of(&start));
    let (access, refresh) = ("SeCrEt-access-2", "SeCrEt-refresh-3");
    assert_eq!(
        fake.records(),
        vec![
            json!({"method": "POST", "path": "/mcp", "rpc": "server/discover", "bearer": false, "token": null, "status": 401}),
            json!({"method": "GET", "path": "/.well-known/oauth-protected-resource/mcp", "query": []}),
            json!({"method": "GET", "path": "/.well-known/oauth-authorization-server", "query": []}),
            json!({"method": "POST", "path": "/register",
                "keys": ["application_type", "client_name", "grant_types", "redirect_uris", "response_types", "token_endpoint_auth_method"],
                "application_type": "native", "redirect_uris": [redirect_uri]}),
            json!({"method": "GET", "path": "/authorize",
                "query": ["client_id", "code_challenge", "code_challenge_method", "redirect_uri", "resource", "response_type", "scope", "state"],
                "values": {"response_type": "code", "client_id": "client-1", "redirect_uri": redirect_uri,
                    "scope": "mcp:read", "resource": resource, "code_challenge_method": "S256"}}),
            json!({"method": "POST", "path": "/token",
                "keys": ["client_id", "code", "code_verifier", "grant_type", "redirect_uri", "resource"],
                "grant_type": "authorization_code", "resource": resource, "refresh_token": null, "status": 200,
                "issued": {"access_token": access, "refresh_token": refresh}}),
            json!({"method": "POST", "path": "/mcp", "rpc": "server/discover", "bearer": true, "token": access, "status": 200}),
            json!({"method": "POST", "path": "/mcp", "rpc": "tools/call", "bearer": true, "token": access, "status": 200}),
        ],
        "the requests of the sign-in at {base}"
    );
}

/// "Sign-in during initialize (M4)": a sign-in starts only when the store
/// has no access token valid for more than a minute. A second process
/// with the same store initializes with the stored token: no sign-in
/// line, no metadata, registration, authorization or token request.
#[test]
fn a_stored_token_is_used_at_the_next_start_without_a_sign_in() {
    let dir = TempDir::new("reuse");
    let fake = Fake::start(dir.path(), &[]);
    {
        let mut first = bridge(dir.path(), &fake.url(), &[], &[]);
        assert_eq!(initialize_signing_in(&mut first), initialize_result());
    }
    let from = fake.records().len();
    let mut second = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut second);
    assert_eq!(second.response(&json!(INIT)), initialize_result());
    let call = second.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
    assert!(!second.stderr_text().contains(SIGN_IN_LINE), "a sign-in line:\n{}", second.stderr_text());
    let token = Some("SeCrEt-access-2");
    assert_eq!(since(&fake, from), vec![mcp("server/discover", token, 200), mcp("tools/call", token, 200)]);
}

/// The token store (BRIEF, "The command"; the spec's rule that no URL path
/// or query, which can hold a key, goes anywhere but the request): one
/// file of mode 0600 in a folder of mode 0700, whose name says nothing of
/// the server, and whose text has neither the query nor the path of the
/// server's URL.
#[test]
fn the_store_is_a_private_file_without_the_host_path_or_query_of_the_server() {
    let dir = TempDir::new("store");
    let path = format!("/tenant-PaTh{}/mcp", std::process::id());
    let fake = Fake::start_at(dir.path(), &path, &[]);
    let key = format!("QuErY-{}", std::process::id());
    let url = format!("{}?key={key}", fake.url());
    let mut driver = bridge(dir.path(), &url, &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());

    use std::os::unix::fs::PermissionsExt;
    let store = store_dir(dir.path());
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777).unwrap_or(0);
    assert_eq!(mode(&store), 0o700, "the folder of the store");
    let names: Vec<String> = std::fs::read_dir(&store)
        .expect("the store is there")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "one file per server: {names:?}");
    let name = &names[0];
    let digest = name.strip_suffix(".json").unwrap_or("");
    assert!(
        digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()) && !name.contains("127.0.0.1"),
        "the name of the file: {name}"
    );
    let file = store.join(name);
    assert_eq!(mode(&file), 0o600, "the file of the store");
    let text = std::fs::read_to_string(&file).expect("the file reads");
    let record: Value = serde_json::from_str(&text).expect("the store is JSON");
    assert_eq!(record["grants"][fake.base()]["access_token"], "SeCrEt-access-2", "{text}");
    assert!(!text.contains(&key) && !text.contains("key="), "the query is in the store:\n{text}");
    assert!(!text.contains("PaTh"), "the path of the server URL is in the store:\n{text}");
}

/// The exit code "is also 2 ... for a token store that does not open": with
/// the config folder a file, the bridge exits with 2 before it reads stdin
/// (the test keeps stdin open), names the problem, and `logout` exits 2 too.
#[test]
fn a_token_store_that_does_not_open_exits_2_before_reading_stdin() {
    let dir = TempDir::new("store-fails");
    let config = dir.path().join("not-a-folder");
    std::fs::write(&config, b"a file where the config folder should be").expect("a file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .arg("http://127.0.0.1:9/mcp")
        .env("XDG_CONFIG_HOME", &config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the bridge starts");
    let status = exit_of(&mut child, "the bridge with a token store that does not open");
    let mut err = String::new();
    let _ = child.stderr.take().map(|mut s| s.read_to_string(&mut err));
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.starts_with("mcp-bridge-vscode: cannot make the token store "), "{err}");
    let (status, err) = logout(&config, "http://127.0.0.1:9/mcp");
    assert_eq!(status.code(), Some(2), "{err}");
}

/// `logout <URL>` (BRIEF, "The command") forgets the tokens and the
/// registration of the server and exits with 0, also when there is
/// nothing to forget; the next start signs in again, with a new
/// registration.
#[test]
fn logout_forgets_the_server_and_the_next_start_signs_in_again() {
    let dir = TempDir::new("logout");
    let fake = Fake::start(dir.path(), &[]);
    let url = format!("{}?key=LoGoUt", fake.url());
    {
        let mut driver = bridge(dir.path(), &url, &[], &[]);
        assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    }
    let store = store_dir(dir.path());
    let files = || std::fs::read_dir(&store).map(|d| d.count()).unwrap_or(0);
    assert_eq!(files(), 1);

    let (status, stderr) = logout(dir.path(), &url);
    assert_eq!((status.code(), stderr.as_str()), (Some(0), "mcp-bridge-vscode: forgot the sign-in of the server\n"));
    assert_eq!(files(), 0, "the record of the server is gone");
    let (status, stderr) = logout(dir.path(), &url);
    assert_eq!((status.code(), stderr.as_str()), (Some(0), "mcp-bridge-vscode: the server had no sign-in\n"));

    let from = fake.records().len();
    let mut driver = bridge(dir.path(), &url, &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let again = since(&fake, from);
    assert_eq!(again[0], mcp("server/discover", None, 401), "{again:?}");
    assert_eq!((only(&again, "/register").len(), only(&again, "/authorize").len()), (1, 1), "{again:?}");
    assert_eq!(files(), 1);
}

/// Refresh (2026-07-28 "Refresh Tokens"): a token that is still valid is
/// not refreshed before every request, and one that expired while the
/// bridge was idle (a laptop that slept) is refreshed once before the next
/// request, which then goes with the new token, without a 401 or a
/// sign-in. Each refresh presents the refresh token of the last answer
/// (rotation), and the store keeps the last one, so that the next process
/// refreshes with it.
#[test]
fn an_expired_token_is_refreshed_once_before_the_next_request_and_the_rotated_refresh_token_is_kept() {
    let dir = TempDir::new("refresh");
    let fake = Fake::start(dir.path(), &["--expires-in", "2"]);
    let resource = fake.url();
    let metadata = json!({"method": "GET", "path": "/.well-known/oauth-authorization-server", "query": []});
    let token = |presented: &str, access: &str, rotated: &str| {
        json!({"method": "POST", "path": "/token", "keys": ["client_id", "grant_type", "refresh_token", "resource"],
            "grant_type": "refresh_token", "resource": resource, "refresh_token": presented, "status": 200,
            "issued": {"access_token": access, "refresh_token": rotated}})
    };
    // Each refresh reads the metadata of the issuer again, then asks.
    let refresh = |presented: &str, access: &str, rotated: &str| [metadata.clone(), token(presented, access, rotated)];
    {
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
        assert_eq!(initialize_signing_in(&mut driver), initialize_result());
        let list = driver.call(json!(2), "tools/list", json!({}));
        assert_eq!(list["result"]["tools"][0]["name"], "whoami", "{list}");
        let records = fake.records();
        let first = records.iter().position(|r| r["path"] == "/token").expect("a token request");
        assert_eq!(records[first]["issued"]["refresh_token"], "SeCrEt-refresh-3", "{records:?}");
        assert_eq!(
            records[first + 1..].to_vec(),
            [mcp("server/discover", Some("SeCrEt-access-2"), 200), mcp("tools/list", Some("SeCrEt-access-2"), 200)],
            "a valid token goes without a refresh"
        );
        // The bridge is idle until the token expired.
        std::thread::sleep(Duration::from_secs(3));
        let from = fake.records().len();
        let call = driver.call(json!(3), "tools/call", json!({"name": "whoami", "arguments": {}}));
        assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
        assert_eq!(
            since(&fake, from),
            [
                refresh("SeCrEt-refresh-3", "SeCrEt-access-4", "SeCrEt-refresh-5").to_vec(),
                vec![mcp("tools/call", Some("SeCrEt-access-4"), 200)],
            ]
            .concat()
        );
    }
    std::thread::sleep(Duration::from_secs(3));
    let from = fake.records().len();
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    assert_eq!(
        since(&fake, from),
        [
            refresh("SeCrEt-refresh-5", "SeCrEt-access-6", "SeCrEt-refresh-7").to_vec(),
            vec![mcp("server/discover", Some("SeCrEt-access-6"), 200)],
        ]
        .concat(),
        "the next process refreshes with the last refresh token"
    );
    assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
}

/// Error table, `sign_in_denied`: a redirect with error=access_denied
/// fails initialize with the message of the table and no detail; the
/// bridge asks for no token.
#[test]
fn a_denied_sign_in_fails_initialize_with_sign_in_denied() {
    let (response, fake, _dir) = sign_in_with("deny", &["--deny"]);
    assert_eq!(response, err(json!(INIT), bridge_error(-32603, &message("sign_in_denied"), "sign_in_denied", None)));
    assert_eq!(fake.requests_to("/token"), Vec::<Value>::new());
}

/// Error table, `sign_in_error`: a redirect with another error gives its
/// error code in data.detail.
#[test]
fn an_error_of_the_redirect_fails_initialize_with_sign_in_error_and_its_code() {
    let (response, fake, _dir) = sign_in_with("error", &["--error", "server_error"]);
    assert_eq!(
        response,
        err(json!(INIT), bridge_error(-32603, &message("sign_in_error"), "sign_in_error", Some("server_error")))
    );
    assert_eq!(fake.requests_to("/token"), Vec::<Value>::new());
}

/// "Authorization Response Validation" (RFC 9207): an iss that is not the
/// recorded issuer is rejected before the code goes to any token
/// endpoint: `sign_in_failed` with the detail of the check, and no token
/// request.
#[test]
fn a_wrong_iss_fails_the_sign_in_before_any_token_request() {
    let (response, fake, _dir) = sign_in_with("iss", &["--iss", "wrong"]);
    let detail = "redirect: the iss of the response is not the authorization server";
    assert_eq!(
        response,
        err(json!(INIT), bridge_error(-32603, &message("sign_in_failed"), "sign_in_failed", Some(detail)))
    );
    assert_eq!(fake.requests_to("/token"), Vec::<Value>::new());
    assert_eq!(fake.requests_to("/authorize").len(), 1);
}

/// Error table, `registration_unavailable`, and the paragraph after it: an
/// authorization server without any registration the bridge can use
/// fails initialize, and the message names the redirect URI with the port
/// filled in. No sign-in line: the browser has nothing to open.
#[test]
fn no_registration_fails_with_registration_unavailable_naming_the_redirect_uri() {
    let dir = TempDir::new("noreg");
    let fake = Fake::start(dir.path(), &["--no-registration"]);
    let port = free_port().to_string();
    let mut driver = bridge(dir.path(), &fake.url(), &["--redirect-port", &port], &[]);
    let message =
        message_with("registration_unavailable", &[("redirect_uri", &format!("http://127.0.0.1:{port}/callback"))]);
    assert_eq!(
        initialize_without_browser(&mut driver),
        err(json!(INIT), bridge_error(-32603, &message, "registration_unavailable", None))
    );
    assert_eq!((fake.requests_to("/register"), fake.requests_to("/authorize")), (vec![], vec![]));
    assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
}

/// Error table, `registration_failed`: a refused dynamic registration has
/// the HTTP status and the error code in data.detail, and the message
/// names the redirect URI that the registration asked for.
#[test]
fn a_refused_registration_fails_with_registration_failed_and_its_status_and_code() {
    let dir = TempDir::new("regfail");
    let fake = Fake::start(dir.path(), &["--registration-status", "400"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    let response = initialize_without_browser(&mut driver);
    let register = fake.requests_to("/register");
    assert_eq!(register.len(), 1, "{register:?}");
    let redirect_uri = register[0]["redirect_uris"][0].as_str().unwrap_or_default().to_owned();
    assert!(
        redirect_uri.starts_with("http://127.0.0.1:") && redirect_uri.ends_with("/callback"),
        "the redirect URI of the registration: {redirect_uri}"
    );
    let message = message_with("registration_failed", &[("redirect_uri", &redirect_uri)]);
    let detail = "HTTP status 400, invalid_redirect_uri";
    assert_eq!(response, err(json!(INIT), bridge_error(-32603, &message, "registration_failed", Some(detail))));
    assert_eq!(fake.requests_to("/authorize"), Vec::<Value>::new());
}

/// Error table, `redirect_port_unavailable`: a --redirect-port that
/// another program uses fails the sign-in with that port in the message,
/// never a walk to another port.
#[test]
fn a_redirect_port_in_use_fails_with_redirect_port_unavailable_naming_it() {
    let dir = TempDir::new("port");
    let fake = Fake::start(dir.path(), &[]);
    let taken = TcpListener::bind("127.0.0.1:0").expect("a listener");
    let port = taken.local_addr().expect("its address").port();
    let mut driver = bridge(dir.path(), &fake.url(), &["--redirect-port", &port.to_string()], &[]);
    assert_eq!(
        initialize_without_browser(&mut driver),
        err(
            json!(INIT),
            bridge_error(
                -32603,
                &message_with("redirect_port_unavailable", &[("port", &port.to_string())]),
                "redirect_port_unavailable",
                None
            )
        )
    );
    assert_eq!((fake.requests_to("/register"), fake.requests_to("/authorize")), (vec![], vec![]));
    assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
    drop(taken);
}

/// Error table, `sign_in_start_reused` (M6): the one-time start URL sends
/// the browser on once; a second GET before the redirect stops the
/// sign-in, with the message of the table and no detail.
#[test]
fn a_second_get_of_the_start_url_stops_the_sign_in() {
    let dir = TempDir::new("reused");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    let start = start_url(&mut driver, 1);
    let first = get(&start);
    let authorize = format!("{}/authorize?", fake.base());
    assert!(
        first.status == 302 && first.location.as_deref().is_some_and(|l| l.starts_with(&authorize)),
        "the first GET goes on to the authorization URL: {first:?}"
    );
    let second = get(&start);
    assert!(second.status >= 400 && second.location.is_none(), "the second GET goes nowhere: {second:?}");
    assert_eq!(
        driver.response(&json!(INIT)),
        err(json!(INIT), bridge_error(-32603, &message("sign_in_start_reused"), "sign_in_start_reused", None))
    );
    assert_eq!((fake.requests_to("/authorize"), fake.requests_to("/token")), (vec![], vec![]));
}

/// "Sign-in during initialize (M4)" and the error table, `sign_in_timeout`:
/// without a redirect in the time limit, initialize fails with the
/// seconds of --sign-in-timeout and the name of the executable in place
/// of the placeholders. The sign-in line was there.
#[test]
fn a_sign_in_without_a_redirect_stops_at_its_time_limit() {
    let dir = TempDir::new("timeout");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &["--sign-in-timeout", "1", "--discover-timeout", "1"], &[]);
    let started = Instant::now();
    send_initialize(&mut driver);
    start_url(&mut driver, 1);
    let response = driver.response(&json!(INIT));
    let elapsed = started.elapsed();
    let message = message_with("sign_in_timeout", &[("seconds", "1"), ("name", "mcp-bridge-vscode")]);
    assert_eq!(response, err(json!(INIT), bridge_error(-32603, &message, "sign_in_timeout", None)));
    assert!(elapsed >= Duration::from_secs(1), "the error came before the limit: {elapsed:?}");
    assert_eq!((fake.requests_to("/authorize"), fake.requests_to("/token")), (vec![], vec![]));
}

/// "Sign-in during initialize (M4)" and the error table, `sandbox`: with
/// SANDBOX_RUNTIME=1 a necessary sign-in fails initialize at once: no
/// sign-in line, nothing asked of the authorization server.
#[test]
fn in_the_sandbox_a_necessary_sign_in_fails_at_once() {
    let dir = TempDir::new("sandbox");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[("SANDBOX_RUNTIME", "1")]);
    assert_eq!(
        initialize_without_browser(&mut driver),
        err(json!(INIT), bridge_error(-32603, &message("sandbox"), "sandbox", None))
    );
    assert_eq!(fake.records(), vec![mcp("server/discover", None, 401)]);
    assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
}
