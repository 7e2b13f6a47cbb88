//! Redirects and `--header-env`: a redirect to another origin is not
//! followed, so the headers of the option never leave their origin.

use super::*;

/// "A redirect to another origin is not followed (the request fails with
/// transport_failed and the HTTP status), so the --header-env headers never
/// reach another origin": the other origin gets no request at all.
#[test]
fn a_redirect_to_another_origin_is_not_followed_and_the_header_stays_home() {
    let fake = Fake::start("redirect", &["--status", "prompts/list=308:redirect"]);
    let mut driver = bridge_env(
        &fake.url(),
        &["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY"],
        &[("MCP_BRIDGE_TEST_KEY", HEADER_SECRET)],
    );
    driver.initialize();
    exchange(&mut driver, call(json!(1), "redirect", json!({})), err(json!(1), transport_failed("HTTP status 307")));
    exchange(
        &mut driver,
        request(json!(2), "prompts/list", json!({})),
        err(json!(2), transport_failed("HTTP status 308")),
    );
    exchange(
        &mut driver,
        call(json!(3), "echo", json!({})),
        ok(json!(3), json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {}}})),
    );
    assert_json("the requests that reached the other origin", &json!(fake.other_requests()), &json!([]));
    for post in fake.posts() {
        assert_eq!(header(&post, "X-Api-Key").as_deref(), Some(HEADER_SECRET), "{post:#}");
    }
    finish(driver);
}

/// The other side of the rule above (the product's choice; the page is
/// silent): a redirect within the origin of the server is followed, the
/// POST goes again with its body and the headers of `--header-env`.
#[test]
fn a_redirect_within_the_origin_is_followed_with_the_body_and_the_headers() {
    let fake = Fake::start("redirect-same", &[]);
    let mut driver = bridge_env(
        &fake.url(),
        &["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY"],
        &[("MCP_BRIDGE_TEST_KEY", HEADER_SECRET)],
    );
    driver.initialize();
    exchange(&mut driver, call(json!(1), "redirect-same", json!({"n": 1})), text(json!(1), "moved here"));
    let posts: Vec<Value> = fake.posts_of("tools/call");
    let paths: Vec<Value> = posts.iter().map(|p| p["path"].clone()).collect();
    let path = format!("/mcp/{PATH_SECRET}?key={QUERY_SECRET}");
    assert_eq!(paths, [json!(path), json!(format!("/moved{path}"))], "the POST and the redirected one");
    assert_json("the body sent again", &posts[1]["body"], &posts[0]["body"]);
    for post in &posts {
        assert_eq!(header(post, "X-Api-Key").as_deref(), Some(HEADER_SECRET), "{post:#}");
        assert_json(
            "the headers of the page",
            &page_headers(post),
            &expected_headers("tools/call", Some("redirect-same")),
        );
    }
    let ended = finish(driver);
    assert_no_secret("the stderr of the bridge", &ended.stderr);
}

/// `--header-env NAME=VAR` (repeatable) sends the header NAME with the value
/// of VAR on every POST: server/discover, the forwarded requests, the
/// The proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY and their
/// lower-case forms): with `HTTP_PROXY` (and with `http_proxy`) every POST
/// to the server goes through the proxy; with the server's host in
/// `NO_PROXY` none does.
#[test]
fn the_proxy_variables_send_the_posts_through_the_proxy_unless_no_proxy_names_the_host() {
    for (vars, through) in [
        (&[("HTTP_PROXY", true)][..], true),
        (&[("http_proxy", true)][..], true),
        (&[("HTTP_PROXY", true), ("NO_PROXY", false)][..], false),
    ] {
        let dir = folder("proxy");
        let fake = Fake::start_in(&dir, &[]);
        let record = dir.join("proxy.jsonl");
        let mut cmd = Command::new("python3");
        cmd.arg(crate::support::repo_root().join("tests/fake/http_proxy.py")).arg("--record").arg(&record);
        let proxy = Served::start(cmd, false);
        let proxy_url = format!("http://127.0.0.1:{}", proxy.port);
        let env: Vec<(&str, &str)> = vars
            .iter()
            .map(|(name, is_proxy)| (*name, if *is_proxy { proxy_url.as_str() } else { "127.0.0.1" }))
            .collect();
        let mut driver = bridge_env(&fake.url(), &[], &env);
        driver.initialize();
        exchange(
            &mut driver,
            request(json!(1), "tools/list", json!({})),
            ok(json!(1), json!({"method": "tools/list"})),
        );
        let _ = finish(driver);
        let seen: Vec<Value> = std::fs::read_to_string(&record)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let origin = format!("http://127.0.0.1:{}", fake.served.port);
        if through {
            assert!(seen.len() >= 2, "{vars:?}: the proxy saw {seen:?}");
            assert!(seen.iter().all(|r| r["origin"] == origin.as_str() && r["method"] == "POST"), "{vars:?}: {seen:?}");
        } else {
            assert_eq!(seen, Vec::<Value>::new(), "{vars:?}: NO_PROXY names the host");
        }
    }
}

/// listen stream and the notifications.
#[test]
fn header_env_sends_each_header_on_every_post() {
    let fake = Fake::start("header-env", &["--capabilities", r#"{"tools":{"listChanged":true}}"#]);
    let mut driver = bridge_env(
        &fake.url(),
        &["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY", "--header-env", "Authorization=MCP_BRIDGE_TEST_AUTH"],
        &[("MCP_BRIDGE_TEST_KEY", HEADER_SECRET), ("MCP_BRIDGE_TEST_AUTH", "Bearer token-5e5e")],
    );
    driver.initialize();
    fake.wait("the listen stream", |e| e.iter().any(|p| p["body"]["method"] == "subscriptions/listen"));
    exchange(&mut driver, request(json!(1), "tools/list", json!({})), ok(json!(1), json!({"method": "tools/list"})));
    driver.send(&call(json!(2), "wait", json!({})));
    let upstream = fake.wait("the wait call", |e| e.iter().any(|p| p["body"]["params"]["name"] == "wait"));
    let upstream = upstream
        .iter()
        .find(|p| p["body"]["params"]["name"] == "wait")
        .map(|p| p["body"]["id"].clone())
        .unwrap_or_default();
    driver.cancel(&json!(2));
    fake.wait_cancel(&upstream);
    let methods: Vec<Value> = fake.posts().iter().map(|p| p["body"]["method"].clone()).collect();
    for method in ["server/discover", "subscriptions/listen", "tools/list", "tools/call", "notifications/cancelled"] {
        assert!(methods.contains(&json!(method)), "no POST of {method}: {methods:?}");
    }
    for post in fake.posts() {
        assert_eq!(header(&post, "X-Api-Key").as_deref(), Some(HEADER_SECRET), "{post:#}");
        assert_eq!(header(&post, "Authorization").as_deref(), Some("Bearer token-5e5e"), "{post:#}");
    }
    let ended = finish(driver);
    assert_no_secret("the stderr of the bridge", &ended.stderr);
}

/// Runs the bridge with `args` and `env` and its stdin held open, to its
/// exit (at most [`EXIT`], else the test fails: a bridge that waits for its
/// input does not refuse); returns (exit code, stdout, stderr).
pub(super) fn run_with_open_stdin(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    isolated(&mut cmd).args(args).envs(env.iter().copied()).env_remove("MCP_BRIDGE_TEST_UNSET");
    let done = run_bounded(cmd, Input::Open, EXIT);
    (done.status.code(), done.stdout, done.stderr)
}

/// The exit code "is 2 for arguments that are not valid, and for a missing
/// variable of --header-env": found before anything is read from stdin,
/// with a line that names the variable; the upstream gets no request.
#[test]
fn a_missing_header_env_variable_or_a_bad_header_env_exits_2_before_reading_stdin() {
    let fake = Fake::start("header-env-missing", &[]);
    let url = fake.url();
    let (code, stdout, stderr) = run_with_open_stdin(&["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_UNSET", &url], &[]);
    assert_eq!(code, Some(2), "stderr:\n{stderr}");
    assert_eq!(stdout, "", "nothing on stdout");
    assert!(stderr.contains("MCP_BRIDGE_TEST_UNSET"), "the line names the variable:\n{stderr}");
    assert_no_secret("the stderr of the bridge", &stderr);
    for bad in ["X-Api-Key", "=MCP_BRIDGE_TEST_KEY", "X-Api-Key=", "Bad Name=MCP_BRIDGE_TEST_KEY"] {
        let (code, stdout, stderr) =
            run_with_open_stdin(&["--header-env", bad, &url], &[("MCP_BRIDGE_TEST_KEY", HEADER_SECRET)]);
        assert_eq!((code, stdout.as_str()), (Some(2), ""), "--header-env {bad:?}; stderr:\n{stderr}");
        assert_no_secret("the stderr of the bridge", &stderr);
    }
    // A value that cannot be a header value is not valid either, and is never shown.
    let (code, _, stderr) = run_with_open_stdin(
        &["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY", &url],
        &[("MCP_BRIDGE_TEST_KEY", "header-secret-c0ffee\nInjected: 1")],
    );
    assert_eq!(code, Some(2), "stderr:\n{stderr}");
    assert_no_secret("the stderr of the bridge", &stderr);
    assert_json("the requests of the fake", &json!(fake.posts()), &json!([]));
}

/// "mcp-bridge-vscode [OPTIONS] <URL>": a URL that is not http or https, and
/// a URL beside a command, are arguments that are not valid: exit 2.
#[test]
fn a_url_that_is_not_http_or_https_exits_2() {
    for args in [
        vec!["ftp://127.0.0.1/mcp"],
        vec!["not a url"],
        vec!["file:///tmp/mcp"],
        vec!["http://127.0.0.1:9/mcp", "--", "python3", "server.py"],
    ] {
        let (code, stdout, stderr) = run_with_open_stdin(&args, &[]);
        assert_eq!((code, stdout.as_str()), (Some(2), ""), "{args:?}; stderr:\n{stderr}");
    }
}
