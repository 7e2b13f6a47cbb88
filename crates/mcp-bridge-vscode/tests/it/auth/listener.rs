//! The redirect listener under other local connections (error table,
//! `sign_in_start_reused`; M6, the one-time start URL): idle and slow
//! sockets on the redirect port never delay the browser, a callback that
//! is not of the sign-in never completes it, and a second GET of the start
//! URL stops it however the two requests come.
//!
//! The listener gives each connection 3 s to send its head; the tests
//! name that figure where they measure it.

use super::*;
use std::sync::{Arc, Barrier};

/// The time a connection has to send its head (the listener's read limit).
const READ_LIMIT: Duration = Duration::from_secs(3);

/// A connection to the redirect port, with bounded reads and writes.
fn open(port: u16) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("connect {port}: {e}"));
    stream.set_read_timeout(Some(STEP)).expect("read timeout");
    stream.set_write_timeout(Some(STEP)).expect("write timeout");
    stream
}

/// The status line and the `Location` of the answer on `stream`, read to
/// its end.
fn answer(mut stream: TcpStream) -> (String, Option<String>) {
    let mut bytes = Vec::new();
    stream.read_to_end(&mut bytes).unwrap_or_else(|e| panic!("the answer of the listener: {e}"));
    let text = String::from_utf8_lossy(&bytes);
    let head = text.split("\r\n\r\n").next().unwrap_or("");
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or("").to_owned();
    let location = lines.find_map(|l| l.strip_prefix("Location: ")).map(str::to_owned);
    (status, location)
}

/// The request of a GET of `path`.
fn request(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
}

/// The path and query of a loopback URL.
fn path_of(url: &str) -> &str {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    rest.find('/').map_or("/", |at| &rest[at..])
}

/// A socket that sends the head of a callback one byte every 100 ms for
/// 2.5 s and then nothing: it never completes its head. Gives its answer
/// and the time from its connection to the answer's end.
fn trickle(port: u16) -> std::thread::JoinHandle<((String, Option<String>), Duration)> {
    let mut stream = open(port);
    let opened = Instant::now();
    std::thread::spawn(move || {
        for byte in b"GET /callback?code=slow&state=slow HTTP/1.1\r\n".iter().take(25) {
            stream.write_all(&[*byte]).expect("a byte is written");
            std::thread::sleep(Duration::from_millis(100));
        }
        (answer(stream), opened.elapsed())
    })
}

/// M6 and the rule of the listener that each connection is served on its
/// own, with a read limit of its own: with 3 idle sockets and a trickling
/// one on the redirect port, the browser's GET of the start URL is
/// answered within 1 s; a callback with another state gets 400; the idle
/// and the trickling sockets get 408 once the 3 s of their connection are
/// over (not 3 s after their last byte) while the sign-in goes on waiting;
/// the real redirect then completes it, and its code is the only one that
/// reaches the token endpoint.
#[test]
fn idle_and_slow_sockets_do_not_delay_the_browser_and_a_wrong_state_never_completes() {
    let dir = TempDir::new("listener-idle");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    let start = start_url(&mut driver, 1);
    let port = port_of(&start);
    let opened = Instant::now();
    let idle: Vec<TcpStream> = (0..3).map(|_| open(port)).collect();
    let slow = trickle(port);

    let asked = Instant::now();
    let page = get(&start);
    let waited = asked.elapsed();
    let authorize = format!("{}/authorize?", fake.base());
    assert!(
        page.status == 302 && page.location.as_deref().is_some_and(|l| l.starts_with(&authorize)),
        "the start URL sends the browser on: {page:?}"
    );
    assert!(waited < Duration::from_secs(1), "the start URL was answered after {waited:?}");
    let forged = get(&format!("http://127.0.0.1:{port}/callback?code=forged&state=not-this-one"));
    assert_eq!((forged.status, forged.location), (400, None), "a callback with another state");

    let timed_out = ("HTTP/1.1 408 Request Timeout".to_owned(), None);
    for stream in idle {
        assert_eq!(answer(stream), timed_out, "an idle socket");
    }
    let idle_for = opened.elapsed();
    let (slow_answer, slow_for) = slow.join().expect("the slow socket");
    assert_eq!(slow_answer, timed_out, "the trickling socket");
    // The trickle stops at 2.5 s: a limit on each read would end it at
    // 5.5 s or later.
    for (what, took) in [("idle", idle_for), ("trickling", slow_for)] {
        assert!(
            took >= READ_LIMIT && took < READ_LIMIT + Duration::from_secs(2),
            "the {what} socket got its answer after {took:?}"
        );
    }

    let end = follow(page.location.as_deref().unwrap_or_default());
    assert_eq!(end.status, 200, "the last page of the sign-in: {end:?}");
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    let tokens: Vec<Value> = fake.requests_to("/token").iter().map(|r| r["status"].clone()).collect();
    assert_eq!(tokens, vec![json!(200)], "one token request, with the code of the real redirect");
}

/// Error table, `sign_in_start_reused`, "even when the two GETs arrive
/// concurrently": two connections send the GET of the start URL at the
/// same moment; one is sent on to the authorization URL, the other gets
/// 410, and initialize fails with the message of the table and no detail.
#[test]
fn a_concurrent_double_get_of_the_start_url_stops_the_sign_in() {
    let dir = TempDir::new("listener-double");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    let start = start_url(&mut driver, 1);
    let port = port_of(&start);
    let together = Arc::new(Barrier::new(2));
    let gets: Vec<_> = (0..2)
        .map(|_| {
            let (mut stream, together, text) = (open(port), together.clone(), request(path_of(&start)));
            std::thread::spawn(move || {
                together.wait();
                stream.write_all(text.as_bytes()).expect("the request is written");
                answer(stream)
            })
        })
        .collect();
    let mut answers: Vec<(String, Option<String>)> = gets.into_iter().map(|t| t.join().expect("a GET")).collect();
    answers.sort();
    let authorize = format!("{}/authorize?", fake.base());
    assert_eq!(answers[0].0, "HTTP/1.1 302 Found", "{answers:?}");
    assert!(answers[0].1.as_deref().is_some_and(|l| l.starts_with(&authorize)), "{answers:?}");
    assert_eq!(answers[1], ("HTTP/1.1 410 Gone".to_owned(), None));
    assert_eq!(
        driver.response(&json!(INIT)),
        err(json!(INIT), bridge_error(-32603, &message("sign_in_start_reused"), "sign_in_start_reused", None))
    );
    assert_eq!((fake.requests_to("/authorize"), fake.requests_to("/token")), (vec![], vec![]));
}

/// M6 against a racing local process: it GETs the start URL first, takes
/// the state from the answer and gets a code for it at the authorization
/// server, and holds its callback ready on an open connection. The
/// browser's GET then comes second and stops the sign-in at once, so the
/// process's code never reaches the token endpoint.
#[test]
fn a_process_that_took_the_start_url_first_cannot_complete_the_sign_in() {
    let dir = TempDir::new("listener-race");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    let start = start_url(&mut driver, 1);
    let port = port_of(&start);
    let taken = get(&start);
    let authorize = taken.location.clone().unwrap_or_default();
    let approved = get(&authorize);
    let callback = approved.location.clone().unwrap_or_default();
    assert!(
        approved.status == 302 && callback.starts_with(&format!("http://127.0.0.1:{port}/callback?")),
        "the process has a code for the state: {approved:?}"
    );
    let held = open(port);

    let browser = get(&start);
    assert_eq!((browser.status, browser.location), (410, None), "the browser's GET is the second one");
    assert_eq!(
        driver.response(&json!(INIT)),
        err(json!(INIT), bridge_error(-32603, &message("sign_in_start_reused"), "sign_in_start_reused", None))
    );
    // The sign-in is over: the held connection was closed unanswered, and
    // the port listens no more.
    assert_eq!(answer(held), (String::new(), None));
    let refused = TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.kind());
    assert_eq!(refused.map(|_| ()), Err(std::io::ErrorKind::ConnectionRefused));
    assert_eq!(fake.requests_to("/token"), Vec::<Value>::new());
}
