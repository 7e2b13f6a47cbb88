//! "Listen stream (M3)" over HTTP: one POST with an event stream, its
//! acknowledgments, its events and new streams after a loss.

use super::*;

/// "Listen stream (M3)" over HTTP: `subscriptions/listen` is one POST with
/// an event stream; its first acknowledgment gives the events after a gap;
/// its events reach the client ("The order of events and responses": on a
/// URL, a list change of a call can come after the result of the call); a
/// subscription opens a new stream with the URI, whose acknowledgment gives
/// the response {}, and the old stream closes.
#[test]
fn the_listen_stream_is_a_post_with_an_event_stream_whose_events_reach_the_client() {
    let caps = r#"{"tools":{"listChanged":true},"resources":{"subscribe":true}}"#;
    let (fake, mut driver) = session("listen", &["--capabilities", caps], &[]);
    let list_changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}});
    assert_json("the event after the first acknowledgment", &driver.recv(), &list_changed);
    let first = fake.posts_of("subscriptions/listen");
    assert_eq!(first.len(), 1, "{first:#?}");
    assert_json(
        "the headers of the listen stream",
        &page_headers(&first[0]),
        &expected_headers("subscriptions/listen", None),
    );
    assert_json("the filter", &first[0]["body"]["params"]["notifications"], &json!({"toolsListChanged": true}));

    driver.send(&call(json!(1), "emit", json!({"events": [{"method": "notifications/tools/list_changed"}]})));
    assert_json("the result of emit", &driver.response(&json!(1)), &text(json!(1), "emitted"));
    // The event and the result take two HTTP requests: either can come first.
    wait_count(&mut driver, &list_changed, 2);

    exchange(&mut driver, request(json!(2), "resources/subscribe", json!({"uri": "x://a"})), ok(json!(2), json!({})));
    let listens = fake.posts_of("subscriptions/listen");
    assert_eq!(listens.len(), 2, "{listens:#?}");
    assert_json(
        "the filter with the URI",
        &listens[1]["body"]["params"]["notifications"],
        &json!({"toolsListChanged": true, "resourceSubscriptions": ["x://a"]}),
    );
    fake.wait_disconnect(&listens[0]["body"]["id"]);
    exchange(
        &mut driver,
        call(
            json!(3),
            "emit",
            json!({"events": [{"method": "notifications/resources/updated", "params": {"uri": "x://a"}}]}),
        ),
        text(json!(3), "emitted"),
    );
    let updated = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "x://a"}});
    driver.wait_for(|m| m == &updated, "the update of the subscribed URI");
    finish(driver);
}

/// Waits until the bridge wrote `message` `count` times, at most [`STEP`].
#[track_caller]
fn wait_count(driver: &mut Driver, message: &Value, count: usize) {
    let start = Instant::now();
    loop {
        let seen = driver.seen.iter().filter(|m| *m == message).count();
        if seen >= count {
            assert_eq!(seen, count, "{message} more often than {count}: {:#?}", driver.seen);
            return;
        }
        assert!(start.elapsed() < STEP, "{seen} of {count} times {message} in {STEP:?}: {:#?}", driver.seen);
        driver.take_new(Duration::from_millis(200));
    }
}

/// "New streams after a loss", over HTTP: "the status 408, 429, or 500 to
/// 599 except 501: the bridge opens a new stream after a wait", again after
/// each failure; "The first wait is 0.5 s (listen_backoff). Each later wait
/// is two times longer, up to 30 s" (the test timings: 20 ms, up to 80 ms).
/// The first stream acknowledges and ends; each later one gets the status.
/// The time between two refused streams is at least the wait (a loaded
/// machine only makes it longer).
#[test]
fn a_listen_stream_that_fails_with_408_429_500_or_503_opens_again_after_the_back_off() {
    for status in [408, 429, 500, 503] {
        let spec = format!("ack-close:0,status:{status}");
        let (fake, driver) = session(
            &format!("listen-{status}"),
            &["--capabilities", r#"{"tools":{"listChanged":true}}"#, "--listen", &spec],
            &["--test-listen-ms", LISTEN_MS],
        );
        let entries = fake.wait(&format!("six listen streams with {status}"), |entries| {
            entries.iter().filter(|e| e["body"]["method"] == "subscriptions/listen").count() >= 6
        });
        let times: Vec<f64> = entries
            .iter()
            .filter(|e| e["body"]["method"] == "subscriptions/listen")
            .filter_map(|e| e["t"].as_f64())
            .collect();
        // times[1] is the first refused stream; the waits after it double.
        for (k, wait_ms) in [20.0, 40.0, 80.0, 80.0].into_iter().enumerate() {
            let gap_ms = (times[k + 2] - times[k + 1]) * 1000.0;
            assert!(gap_ms >= wait_ms, "{status}: {gap_ms:.1} ms between the refused streams {} and {}, not after the wait of {wait_ms} ms; all: {times:?}", k + 1, k + 2);
        }
        finish(driver);
    }
}

/// "After a sleep" (issue of the field) and "New streams after a loss":
/// a listen stream whose connection breaks after its acknowledgment (a
/// laptop that slept, a network that dropped it) ends with
/// `TransportFailed`, so the bridge opens a new stream after the wait, and
/// the acknowledgment of the new stream after the loss gives the client
/// the events after a gap: one more list change.
#[test]
fn a_listen_stream_whose_connection_breaks_opens_again_with_the_events_after_a_gap() {
    let (fake, mut driver) = session(
        "listen-broken",
        &["--capabilities", r#"{"tools":{"listChanged":true}}"#, "--listen", "ack-abort:100,ack"],
        &["--test-listen-ms", LISTEN_MS],
    );
    driver.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let list_changed = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}});
    // One change after the first acknowledgment, one after the second.
    wait_count(&mut driver, &list_changed, 2);
    assert_eq!(fake.posts_of("subscriptions/listen").len(), 2, "one new stream after the break");
    exchange(
        &mut driver,
        call(json!(1), "emit", json!({"events": [{"method": "notifications/tools/list_changed"}]})),
        text(json!(1), "emitted"),
    );
    wait_count(&mut driver, &list_changed, 3);
    finish(driver);
}

/// "New streams after a loss", over HTTP: "the status 401 or 403, with a
/// sign-in: ... after the next sign-in of a different request, and never
/// after a timer" (no sign-in completes here); "each other status: the
/// bridge opens no new stream". After the stream that failed, nothing for a
/// window of ten times the longest back-off; the bridge still serves.
#[test]
fn a_listen_stream_that_fails_with_400_401_403_404_or_501_does_not_open_again() {
    for status in [400, 401, 403, 404, 501] {
        let spec = format!("ack-close:0,status:{status}");
        let (fake, mut driver) = session(
            &format!("listen-{status}"),
            &["--capabilities", r#"{"tools":{"listChanged":true}}"#, "--listen", &spec],
            &["--test-listen-ms", LISTEN_MS],
        );
        fake.wait(&format!("the second listen stream with {status}"), |entries| {
            entries.iter().filter(|e| e["body"]["method"] == "subscriptions/listen").count() >= 2
        });
        driver.drain_for(Duration::from_millis(800));
        let listens = fake.posts_of("subscriptions/listen").len();
        assert_eq!(listens, 2, "{status}: no new stream after the status");
        exchange(
            &mut driver,
            call(json!(1), "echo", json!({})),
            ok(
                json!(1),
                json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {}}}),
            ),
        );
        finish(driver);
    }
}
