//! Time limits and cancellation over HTTP: a request without a response in
//! its limit gets `timeout`, and its stream closes.

use super::*;

/// "A request without a response in its limit gets -32603 with the cause
/// timeout. Its data.detail has the method and the limit." Over HTTP the
/// bridge also closes the request's stream (the cancellation signal of the
/// page), whether the status of the response came (a stream) or not yet.
#[test]
fn a_slow_answer_gets_the_time_limit_and_its_stream_closes() {
    let (fake, mut driver) =
        session("timeout", &["--delay", "prompts/list=10000"], &["--test-request-timeout-ms", "500"]);
    let timeout = |method: &str| {
        bridge_error(-32603, &message("timeout"), "timeout", Some(&format!("{method}: no response in 500 ms")))
    };
    for (id, sse) in [(1, false), (2, true)] {
        exchange(
            &mut driver,
            call(json!(id), "slow", json!({"ms": 10000, "sse": sse})),
            err(json!(id), timeout("tools/call")),
        );
        fake.wait_disconnect(&fake.call_of("slow")["body"]["id"]);
    }
    exchange(&mut driver, request(json!(3), "prompts/list", json!({})), err(json!(3), timeout("prompts/list")));
    fake.wait_disconnect(&fake.posts_of("prompts/list")[0]["body"]["id"]);
    exchange(&mut driver, call(json!(4), "slow", json!({"ms": 10})), text(json!(4), "slow"));
    finish(driver);
}

/// The contract of the transport: "Notifications (notifications/cancelled on
/// a cancel) are POSTed"; docs/decisions.md: "Timeouts are canceled upstream
/// with notifications/cancelled, reason the request timed out". A request
/// that the bridge abandons gets its notifications/cancelled with the
/// reason of the event, whether the server had sent the status of its
/// response (a stream) or not yet (a JSON answer still to come).
#[test]
fn every_abandoned_request_posts_notifications_cancelled_also_before_its_status() {
    let (fake, mut driver) = session("abandoned", &[], &["--test-request-timeout-ms", "700"]);
    let mut seen = Vec::new();
    for (case, sse, cancel) in [
        ("timeout, stream", true, false),
        ("timeout, no status yet", false, false),
        ("cancel, no status yet", false, true),
    ] {
        let id = json!(case);
        driver.send(&call(id.clone(), "slow", json!({"ms": 10000, "sse": sse})));
        let entries = fake.wait(&format!("{case}: the POST"), |e| {
            e.iter().filter(|p| p["body"]["params"]["name"] == "slow").count() > seen.len()
        });
        let upstream = entries
            .iter()
            .rev()
            .find(|p| p["body"]["params"]["name"] == "slow")
            .map(|p| p["body"]["id"].clone())
            .unwrap_or_default();
        if cancel {
            driver.cancel(&id);
        } else {
            let response = driver.response(&id);
            assert_eq!(response["error"]["data"]["cause"], "timeout", "{response}");
        }
        fake.wait_disconnect(&upstream);
        let reason = fake.find_cancel(&upstream).map(|c| c["body"]["params"]["reason"].clone());
        seen.push((case, reason));
    }
    let expected = [
        ("timeout, stream", Some(json!("the request timed out"))),
        ("timeout, no status yet", Some(json!("the request timed out"))),
        ("cancel, no status yet", Some(json!("the client canceled the request"))),
    ];
    assert_eq!(seen, expected, "the reason of the notifications/cancelled of each case (None: no POST)");
    finish(driver);
}

/// "Cancellation (M1)": the client's notifications/cancelled cancels the
/// request in flight, which gets no response; the bridge posts
/// notifications/cancelled (Mcp-Method of the notification, the upstream id,
/// the reason "the client canceled the request") and closes the request's
/// stream ("Closing the SSE response stream MUST be treated by the server as
/// cancellation"). A notification POST that is not accepted changes nothing.
#[test]
fn a_cancel_posts_notifications_cancelled_and_closes_the_stream_of_the_request() {
    for (name, options) in [("cancel", vec![]), ("cancel-refused", vec!["--status", "notifications/cancelled=500"])] {
        let (fake, mut driver) = session(name, &options, &[]);
        driver.send(&json!({"jsonrpc": "2.0", "id": "long", "method": "tools/call", "params": {"name": "wait", "arguments": {}, "_meta": {"progressToken": 5}}}));
        assert_json(
            "the progress of the stream",
            &driver.recv(),
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 5, "progress": 0, "total": 1, "message": "waiting"}}),
        );
        driver.cancel(&json!("long"));
        let upstream = fake.call_of("wait")["body"]["id"].clone();
        fake.wait_disconnect(&upstream);
        let cancel = fake.wait_cancel(&upstream);
        assert_json(
            "the cancellation",
            &cancel["body"],
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": upstream, "reason": "the client canceled the request"}}),
        );
        assert_eq!(header(&cancel, "Mcp-Method").as_deref(), Some("notifications/cancelled"), "{cancel:#}");
        assert_eq!(header(&cancel, "MCP-Protocol-Version").as_deref(), Some("2026-07-28"), "{cancel:#}");
        driver.assert_alive_amid("ping");
        assert_never_answered(&driver.seen, &[json!("long")]);
        finish(driver);
    }
}
