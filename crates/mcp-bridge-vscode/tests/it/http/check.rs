//! `check <URL>`, and the secrets of the URL in the logs.

use super::tls::tls_fake;
use super::*;

/// `check <URL>` works like `check -- <command>`: it prints what VS Code will
/// see, and it leaves out a tool with an x-mcp-header that is not valid.
#[test]
fn check_with_a_url_reports_the_server_and_its_tools() {
    let tools = json!({"tools": [
        {"name": "tag", "inputSchema": {"type": "object", "properties": {"tags": {"type": "array"}}}},
        {"name": "bad", "inputSchema": {"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}}
    ]});
    let fake = Fake::start("check", &["--result", &format!("tools/list={tools}")]);
    let output = isolated(&mut Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode")))
        .arg("check")
        .arg(fake.url())
        .stdin(Stdio::null())
        .output()
        .expect("check runs");
    let report = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{report}\n{stderr}");
    for expected in [
        "Server: fake-http-upstream 0.0.1",
        "Instructions: fake http instructions",
        "tools/list: 1 item(s)",
        "  - tag",
        "[tools/list] tool 'tag', inputSchema '/properties/tags': an array schema without items got items: {}",
        "VS Code can use this server.",
    ] {
        assert!(report.contains(expected), "the report lacks {expected:?}:\n{report}");
    }
    assert!(
        stderr.lines().any(|l| l.contains(" WARN ") && l.contains("bad")),
        "the warning of the tool bad:\n{stderr}"
    );
    assert_no_secret("the report", &report);
    assert_no_secret("the stderr of check", &stderr);
}

/// "A message or a detail never contains a secret"; "A message never has the
/// URL of the upstream server, because its path or its query can hold a
/// key"; the logs never hold a secret: through failures of every kind
/// (statuses, a JSON-RPC error, a body over the limit, a broken stream, a
/// time limit, a redirect, failing listen streams, a cancel, an unreachable
/// and an untrusted server), neither the whole stderr of the bridge at its
/// default level nor any message it wrote holds the path or the query of
/// the URL, or the value of `--header-env`; at the level debug, the value of
/// `--header-env` is still never written.
#[test]
fn no_message_and_no_log_line_holds_the_path_or_query_of_the_url_or_the_header_value() {
    let key = [("MCP_BRIDGE_TEST_KEY", HEADER_SECRET)];
    let header_env = ["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY"];
    for level in [None, Some("debug")] {
        let fake = Fake::start(
            "secrets",
            &["--capabilities", r#"{"tools":{"listChanged":true}}"#, "--listen", "ack-close:0,status:503,status:401"],
        );
        let mut options = header_env.to_vec();
        options.extend([
            "--max-response-bytes",
            "4096",
            "--test-request-timeout-ms",
            "1000",
            "--test-listen-ms",
            LISTEN_MS,
        ]);
        let env: Vec<(&str, &str)> = key.iter().copied().chain(level.map(|l| ("MCP_BRIDGE_LOG", l))).collect();
        let mut driver = bridge_env(&fake.url(), &options, &env);
        driver.initialize();
        let calls = [
            ("status", json!({"code": 500})),
            ("status", json!({"code": 404, "body": "jsonrpc"})),
            ("big", json!({"bytes": 8192})),
            ("sse", json!({"frames": ["data: {{log}}\n\n"], "end": "abort"})),
            ("slow", json!({"ms": 5000})),
            ("redirect", json!({})),
            ("body", json!({"text": "nope"})),
        ];
        for (i, (tool, arguments)) in calls.iter().enumerate() {
            driver.send(&call(json!(i), tool, arguments.clone()));
            let response = driver.response(&json!(i));
            assert!(response.get("error").is_some(), "{tool} fails: {response}");
        }
        driver.send(&call(json!("cancel"), "wait", json!({})));
        fake.wait("the wait call", |e| e.iter().any(|p| p["body"]["params"]["name"] == "wait"));
        driver.cancel(&json!("cancel"));
        fake.wait("three listen streams", |e| {
            e.iter().filter(|p| p["body"]["method"] == "subscriptions/listen").count() >= 3
        });
        driver.assert_alive_amid("ping");
        let seen = json!(driver.seen).to_string();
        let ended = finish(driver);
        assert_no_secret("the messages of the bridge", &seen);
        match level {
            None => assert_no_secret("the stderr of the bridge", &ended.stderr),
            Some(_) => assert!(!ended.stderr.contains(HEADER_SECRET), "the header value at debug:\n{}", ended.stderr),
        }
    }
    // An upstream that cannot be reached, and one whose certificate is not trusted.
    let port = Fake::start("secrets-gone", &[]).served.port;
    let (tls, _files) = tls_fake("secrets-tls");
    for url in [format!("http://127.0.0.1:{port}/mcp/{PATH_SECRET}?key={QUERY_SECRET}"), tls.url()] {
        let mut driver = bridge_env(&url, &header_env, &key);
        let response = driver.initialize_with(json!({}));
        assert_eq!(response["error"]["data"]["cause"], "transport_failed", "{response}");
        let seen = json!(driver.seen).to_string();
        let ended = finish(driver);
        assert_no_secret("the messages of the bridge", &seen);
        assert_no_secret("the stderr of the bridge", &ended.stderr);
    }
}
