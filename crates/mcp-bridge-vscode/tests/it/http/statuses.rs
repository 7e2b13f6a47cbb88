//! The HTTP statuses of the page and of the behaviour spec's error table:
//! a status with or without a JSON-RPC error, per method, and during the
//! first initialize.

use super::*;

/// The statuses of the tests: each row of the tables of the page and of the
/// behaviour spec.
const STATUSES: [u16; 9] = [400, 401, 403, 404, 408, 429, 500, 501, 503];

/// The answer to a request that got `status`, whatever its body, when the
/// status is a challenge: a 401 after initialize asks for a later sign-in,
/// and these clients declare no `elicitation.url`, so the bridge cannot ask
/// them to open its URL (notifications/initialized, "From M4"; the Error
/// table, reauthorization_required: "data.detail has declined, no_consent or
/// cooldown").
fn challenged(status: u16) -> Option<Value> {
    (status == 401).then(|| {
        bridge_error(-32603, &message("reauthorization_required"), "reauthorization_required", Some("no_consent"))
    })
}

/// "After a failed request to an upstream server at a URL, data.detail also
/// has the HTTP status": a status that is not a success, without a JSON-RPC
/// error in its body (none, text, HTML, JSON that is not JSON-RPC), fails
/// that request with transport_failed and `HTTP status <n>`; a 401 is a
/// challenge (see `challenged`); the connection goes on.
#[test]
fn each_error_status_without_a_json_rpc_error_fails_only_its_request_with_transport_failed() {
    let (_fake, mut driver) = session("status-plain", &[], &[]);
    let mut n = 0;
    for status in STATUSES {
        for body in ["empty", "text", "html", "json"] {
            n += 1;
            exchange(
                &mut driver,
                call(json!(n), "status", json!({"code": status, "body": body})),
                err(json!(n), challenged(status).unwrap_or_else(|| transport_failed(&format!("HTTP status {status}")))),
            );
        }
    }
    exchange(
        &mut driver,
        call(json!("after"), "echo", json!({})),
        ok(
            json!("after"),
            json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {}}}),
        ),
    );
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// "An error of the upstream server goes to the client with its code, its
/// message and its data": the JSON-RPC error in the body of an error status
/// ("modern servers also use 400 ... with a JSON-RPC error") is the answer;
/// a 401 is a challenge, whatever its body.
#[test]
fn each_error_status_with_a_json_rpc_error_body_gives_that_error_unchanged() {
    let (_fake, mut driver) = session("status-jsonrpc", &[], &[]);
    for status in STATUSES {
        exchange(
            &mut driver,
            call(json!(status), "status", json!({"code": status, "body": "jsonrpc"})),
            err(json!(status), challenged(status).unwrap_or_else(|| refused(status))),
        );
    }
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// A status per method (the fake's `--status`): each method fails alone,
/// with the status or with the error of its body; the others answer.
#[test]
fn a_status_of_one_method_fails_that_method_only() {
    let (_fake, mut driver) = session(
        "status-method",
        &["--status", "tools/list=500", "--status", "prompts/get=404:jsonrpc", "--status", "resources/read=429:text"],
        &[],
    );
    exchange(
        &mut driver,
        request(json!(1), "tools/list", json!({})),
        err(json!(1), transport_failed("HTTP status 500")),
    );
    exchange(&mut driver, request(json!(2), "prompts/get", json!({"name": "p"})), err(json!(2), refused(404)));
    exchange(
        &mut driver,
        request(json!(3), "resources/read", json!({"uri": "x://1"})),
        err(json!(3), transport_failed("HTTP status 429")),
    );
    exchange(
        &mut driver,
        request(json!(4), "prompts/list", json!({})),
        ok(json!(4), json!({"method": "prompts/list"})),
    );
    finish(driver);
}

/// Steps of the first initialize: a failure of server/discover fails
/// initialize and the bridge stays open. An error status without a JSON-RPC
/// error gives transport_failed with the status; a JSON-RPC error gives
/// discover_failed with the upstream code and message, and the HTTP status
/// in `data.detail` ("After a failed request to an upstream server at a
/// URL, data.detail also has the HTTP status"); a refused connection
/// gives transport_failed.
#[test]
fn a_failed_server_discover_over_http_fails_initialize_and_the_bridge_stays_open() {
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
    for (name, options, expected) in [
        ("discover-503", vec!["--status", "server/discover=503"], transport_failed("HTTP status 503")),
        (
            "discover-404-jsonrpc",
            vec!["--status", "server/discover=404:jsonrpc"],
            json!({"code": -32001, "message": &message("discover_failed"), "data": {"cause": "discover_failed", "detail": "refused with HTTP status 404, HTTP status 404"}}),
        ),
    ] {
        let fake = Fake::start(name, &options);
        let mut driver = bridge(&fake.url(), &[]);
        exchange(&mut driver, request(json!(1), "initialize", params.clone()), err(json!(1), expected.clone()));
        driver.assert_alive_amid("ping");
        // A second initialize is a new first one: it posts server/discover again.
        exchange(&mut driver, request(json!(2), "initialize", params.clone()), err(json!(2), expected));
        assert_eq!(fake.posts_of("server/discover").len(), 2, "{name}");
        finish(driver);
    }
    // Nothing listens on the port of a fake that stopped.
    let port = {
        let fake = Fake::start("discover-refused", &[]);
        fake.served.port
    };
    let mut driver = bridge(&format!("http://127.0.0.1:{port}/mcp/{PATH_SECRET}?key={QUERY_SECRET}"), &[]);
    exchange(
        &mut driver,
        request(json!(1), "initialize", params),
        err(json!(1), transport_failed("cannot connect to the upstream server")),
    );
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// "Bounded OAuth" and the connect limit of the HTTP client: a server that
/// accepts the TCP connection and then stays silent (here the TLS
/// handshake never completes) fails the request with `transport_failed`
/// after the connect limit of 10 s, not at the request's own limit (here
/// the discover limit of 60 s, which would give `discover_failed`).
#[test]
fn a_server_that_accepts_and_stays_silent_fails_at_the_connect_limit() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener that never answers");
    let port = silent.local_addr().expect("its address").port();
    let mut driver = bridge(&format!("https://127.0.0.1:{port}/mcp"), &["--discover-timeout", "60"]);
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
    driver.send_request(json!(1), "initialize", params);
    let response = driver.response(&json!(1));
    assert_eq!(response, err(json!(1), transport_failed("cannot connect to the upstream server")));
    drop(silent);
    finish(driver);
}
