//! A small blocking HTTP/1.1 client for the HTTP face (`--listen`) over
//! `std::net::TcpStream`: a request with a method, a path, headers and a
//! body; its status, its headers, and either its whole body
//! (`Content-Length` or chunked) or its SSE stream, event by event. Every
//! read has a deadline, so a hang fails the test.
//!
//! The face's refusals (status, JSON-RPC code, message, cause) come from
//! the table of crates/mcp-bridge/src/face/refusal.rs itself, read here,
//! so that a changed message changes one place.

use serde_json::{json, Value};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The longest wait of one read of a response.
pub const STEP: Duration = Duration::from_secs(10);

// --- Requests.

/// One HTTP request.
#[derive(Clone, Debug)]
pub struct Req {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
}

/// The `Accept` a client of Streamable HTTP sends with a POST.
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

impl Req {
    pub fn new(method: &str, path: &str) -> Req {
        Req { method: method.into(), path: path.into(), headers: Vec::new(), body: None }
    }

    /// A POST of `message` to /mcp, as a client of Streamable HTTP sends it.
    pub fn post(message: &Value) -> Req {
        Req::new("POST", "/mcp")
            .header("Accept", ACCEPT_BOTH)
            .header("Content-Type", "application/json")
            .body(message.to_string().into_bytes())
    }

    /// A GET of `path` that accepts an SSE stream.
    pub fn get(path: &str) -> Req {
        Req::new("GET", path).header("Accept", "text/event-stream")
    }

    /// Sets a header, in place of one of the same name.
    pub fn header(self, name: &str, value: &str) -> Req {
        let mut req = self.without(name);
        req.headers.push((name.into(), value.into()));
        req
    }

    pub fn without(mut self, name: &str) -> Req {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    pub fn session(self, id: &str) -> Req {
        self.header("Mcp-Session-Id", id)
    }

    pub fn body(mut self, bytes: Vec<u8>) -> Req {
        self.body = Some(bytes);
        self
    }

    /// The value of a header of the request.
    pub fn named(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// Sends `request` to 127.0.0.1:`port` on a new connection and reads the
/// head of the response; a JSON or empty body is read whole, an SSE body
/// is left to [`Reply::events`].
#[track_caller]
pub fn send(port: u16, request: &Req) -> Reply {
    let mut replies = send_pipelined(port, std::slice::from_ref(request));
    replies.pop().unwrap_or_else(|| panic!("no reply to {request:?}"))
}

/// Sends `requests` in one write on one connection (HTTP/1.1 pipelining)
/// and reads their responses in order; each but the last must have a
/// whole body (no SSE stream).
#[track_caller]
pub fn send_pipelined(port: u16, requests: &[Req]) -> Vec<Reply> {
    let stream = send_only(port, requests);
    let mut conn = Some(Conn { stream, raw: Vec::new() });
    let mut replies = Vec::new();
    for request in requests {
        let Some(taken) = conn.take() else { panic!("an SSE stream before {request:?}") };
        let (reply, rest) = read_reply(taken, request);
        conn = rest;
        replies.push(reply);
    }
    replies
}

/// Sends `requests` in one write on a new connection, and reads nothing:
/// the connection, for a client that goes away.
#[track_caller]
pub fn send_only(port: u16, requests: &[Req]) -> TcpStream {
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("connect to {port}: {e}"));
    write_requests(stream, requests)
}

/// [`send_only`] from the local address `source` (127.0.0.2, say: a
/// second client's address on the loopback), for the limits of one
/// client's address.
#[track_caller]
pub fn send_only_from(source: std::net::IpAddr, port: u16, requests: &[Req]) -> TcpStream {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_io().build().expect("a runtime to connect");
    let connected = runtime.block_on(async {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind((source, 0).into())?;
        socket.connect(([127, 0, 0, 1], port).into()).await
    });
    let stream =
        connected.and_then(|s| s.into_std()).unwrap_or_else(|e| panic!("connect from {source} to {port}: {e}"));
    stream.set_nonblocking(false).expect("a blocking stream");
    write_requests(stream, requests)
}

/// Writes `requests` in one write, each with its `Content-Length`.
#[track_caller]
fn write_requests(stream: TcpStream, requests: &[Req]) -> TcpStream {
    let _ = stream.set_nodelay(true);
    let mut bytes = Vec::new();
    for request in requests {
        bytes.extend_from_slice(format!("{} {} HTTP/1.1\r\n", request.method, request.path).as_bytes());
        for (name, value) in &request.headers {
            bytes.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
        if let Some(body) = &request.body {
            bytes.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
        }
        bytes.extend_from_slice(b"\r\n");
        bytes.extend_from_slice(request.body.as_deref().unwrap_or_default());
    }
    (&stream).write_all(&bytes).unwrap_or_else(|e| panic!("send {requests:?}: {e}"));
    stream
}

/// Reads the response to `request` on `stream`, where [`send_only`] sent
/// it (or only its head): a JSON or empty body whole, an SSE body left to
/// [`Reply::events`]; each read at most [`STEP`].
#[track_caller]
pub fn receive(stream: TcpStream, request: &Req) -> Reply {
    read_reply(Conn { stream, raw: Vec::new() }, request).0
}

/// Reads the whole response to `request` on `stream` (no SSE stream),
/// then whether the server closed the connection after it: the end of
/// the connection within [`STEP`], with no byte after the response.
#[track_caller]
pub fn receive_then_closed(stream: TcpStream, request: &Req) -> (Reply, bool) {
    let (reply, conn) = read_reply(Conn { stream, raw: Vec::new() }, request);
    let Some(mut conn) = conn else { panic!("an SSE stream, not a whole response: {reply}") };
    let deadline = Instant::now() + STEP;
    let closed = conn.raw.is_empty() && matches!(conn.fill(deadline), Ok(false));
    (reply, closed)
}

/// Reads one response of `conn`; the connection comes back after a whole
/// body, not after the head of an SSE stream.
#[track_caller]
fn read_reply(mut conn: Conn, request: &Req) -> (Reply, Option<Conn>) {
    let deadline = Instant::now() + STEP;
    let head = conn.until(b"\r\n\r\n", deadline).unwrap_or_else(|e| panic!("the head of {request:?}: {e}"));
    let head = String::from_utf8(head).expect("a head in ASCII");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line.split(' ').nth(1).and_then(|s| s.parse().ok());
    let status = status.unwrap_or_else(|| panic!("no status in {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut reply = Reply { status, headers, body: Vec::new(), events: None };
    // A 1xx, 204 or 304 has no body (RFC 9112, 6.3), whatever its headers.
    let bodiless = status < 200 || status == 204 || status == 304;
    let chunked = !bodiless && reply.header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let length = if bodiless { Some(0) } else { reply.header("content-length").and_then(|v| v.parse::<usize>().ok()) };
    let mut events = Events { conn, chunked, length, text: Vec::new(), ended: false };
    if reply.header("content-type").is_some_and(|v| v.starts_with("text/event-stream")) {
        reply.events = Some(events);
        return (reply, None);
    }
    while !events.ended {
        if let Err(e) = events.pump(deadline) {
            panic!("the body of {} {} (status {status}): {e}", request.method, request.path);
        }
    }
    reply.body = events.text;
    (reply, Some(events.conn))
}

impl Req {
    /// Adds a header beside one of the same name: a request with two.
    pub fn also(mut self, name: &str, value: &str) -> Req {
        self.headers.push((name.into(), value.into()));
        self
    }
}

// --- Responses.

/// A response: its status, its headers (names in lowercase), and its body
/// or its SSE stream.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    events: Option<Events>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body as JSON.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("a body that is not JSON ({e}): {self}"))
    }

    /// The SSE stream of the response.
    #[track_caller]
    pub fn events(self) -> Events {
        let shown = self.to_string();
        self.events.unwrap_or_else(|| panic!("not an SSE stream: {shown}"))
    }
}

impl std::fmt::Display for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?} {}", self.status, self.headers, String::from_utf8_lossy(&self.body))
    }
}

/// One event of an SSE stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub event: Option<String>,
    pub id: Option<String>,
    pub data: String,
}

/// What came next on a stream.
#[derive(Debug)]
pub enum Next {
    Event(Event),
    /// The stream ended.
    End,
    /// Nothing came in the wait.
    Quiet,
}

/// The body of a response, read as it comes.
#[derive(Debug)]
pub struct Events {
    conn: Conn,
    chunked: bool,
    length: Option<usize>,
    /// The body's bytes decoded so far, not yet handed out.
    text: Vec<u8>,
    ended: bool,
}

impl Events {
    /// The next event within `wait`; a comment (a keep-alive) is none.
    pub fn next_within(&mut self, wait: Duration) -> Next {
        let deadline = Instant::now() + wait;
        loop {
            if let Some(event) = self.take_event() {
                return Next::Event(event);
            }
            if self.ended {
                return Next::End;
            }
            if let Err(e) = self.pump(deadline) {
                if e.kind() == ErrorKind::TimedOut {
                    return Next::Quiet;
                }
                panic!("reading an SSE stream: {e}");
            }
        }
    }

    /// The next event, at most [`STEP`].
    #[track_caller]
    pub fn next(&mut self) -> Event {
        match self.next_within(STEP) {
            Next::Event(event) => event,
            other => panic!("expected an event, got {other:?}"),
        }
    }

    /// The next event, which must be a message of JSON-RPC without an
    /// event id: its JSON.
    #[track_caller]
    pub fn message(&mut self) -> Value {
        let event = self.next();
        assert_eq!((event.event.as_deref(), event.id.as_deref()), (Some("message"), None), "{event:?}");
        serde_json::from_str(&event.data).unwrap_or_else(|e| panic!("data that is not JSON ({e}): {event:?}"))
    }

    /// The next message of JSON-RPC, whatever its event id: a resumable
    /// stream (SEP-1699) gives each event one, and opens with a priming
    /// event (an id and no data), which is skipped.
    #[track_caller]
    pub fn any_message(&mut self) -> Value {
        loop {
            let event = self.next();
            if event.event.is_none() && event.id.is_some() && event.data.is_empty() {
                continue;
            }
            assert_eq!(event.event.as_deref(), Some("message"), "{event:?}");
            return serde_json::from_str(&event.data)
                .unwrap_or_else(|e| panic!("data that is not JSON ({e}): {event:?}"));
        }
    }

    /// The stream ends, at most [`STEP`], without another event.
    #[track_caller]
    pub fn assert_end(&mut self) {
        match self.next_within(STEP) {
            Next::End => {}
            other => panic!("expected the end of the stream, got {other:?}"),
        }
    }

    /// Decodes what the connection has, reading once when that is nothing.
    fn pump(&mut self, deadline: Instant) -> std::io::Result<()> {
        if self.decode()? {
            return Ok(());
        }
        if !self.conn.fill(deadline)? {
            // The connection closed: the body ends here, chunked or not.
            self.text.append(&mut std::mem::take(&mut self.conn.raw));
            self.ended = true;
        }
        Ok(())
    }

    /// Moves the complete chunks (or the bytes of a plain body) of the
    /// connection's bytes into `text`; whether it moved any or ended.
    fn decode(&mut self) -> std::io::Result<bool> {
        if self.ended {
            return Ok(true);
        }
        if !self.chunked {
            // Up to the length: what follows is the next response's.
            let wanted = self.length.map_or(usize::MAX, |length| length - self.text.len());
            let raw: Vec<u8> = self.conn.raw.drain(..wanted.min(self.conn.raw.len())).collect();
            self.text.extend_from_slice(&raw);
            self.ended = self.length.is_some_and(|length| self.text.len() >= length);
            return Ok(!raw.is_empty() || self.ended);
        }
        let mut moved = false;
        loop {
            let raw = &self.conn.raw;
            let Some(end) = find(raw, b"\r\n") else { return Ok(moved) };
            let size_text = String::from_utf8_lossy(&raw[..end]).to_string();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| std::io::Error::new(ErrorKind::InvalidData, format!("chunk size {size_text:?}")))?;
            // The size line, the data and its CRLF (the last chunk: CRLF).
            let whole = end + 2 + size + 2;
            if raw.len() < whole {
                return Ok(moved);
            }
            let data = raw[end + 2..end + 2 + size].to_vec();
            self.conn.raw.drain(..whole);
            self.text.extend_from_slice(&data);
            moved = true;
            if size == 0 {
                self.ended = true;
                return Ok(true);
            }
        }
    }

    /// The first whole event of `text`, skipping comments.
    fn take_event(&mut self) -> Option<Event> {
        loop {
            let end = find(&self.text, b"\n\n")?;
            let block = String::from_utf8_lossy(&self.text[..end]).replace('\r', "");
            self.text.drain(..end + 2);
            let mut event = Event { event: None, id: None, data: String::new() };
            let mut data: Vec<&str> = Vec::new();
            for line in block.lines().filter(|l| !l.starts_with(':')) {
                let (field, value) = line.split_once(':').unwrap_or((line, ""));
                let value = value.strip_prefix(' ').unwrap_or(value);
                match field {
                    "event" => event.event = Some(value.to_owned()),
                    "id" => event.id = Some(value.to_owned()),
                    "data" => data.push(value),
                    _ => {}
                }
            }
            if event.event.is_none() && event.id.is_none() && data.is_empty() {
                continue;
            }
            event.data = data.join("\n");
            return Some(event);
        }
    }
}

/// A connection and the bytes read from it but not yet decoded.
#[derive(Debug)]
struct Conn {
    stream: TcpStream,
    raw: Vec<u8>,
}

impl Conn {
    /// Reads once, at most until `deadline`; `false` at the end of the
    /// connection.
    fn fill(&mut self, deadline: Instant) -> std::io::Result<bool> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut buf = [0u8; 16 * 1024];
        match self.stream.read(&mut buf) {
            Ok(0) => Ok(false),
            Ok(n) => {
                self.raw.extend_from_slice(&buf[..n]);
                Ok(true)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err(ErrorKind::TimedOut.into())
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// The bytes up to `pattern` (which it takes too), at most until
    /// `deadline`.
    fn until(&mut self, pattern: &[u8], deadline: Instant) -> std::io::Result<Vec<u8>> {
        loop {
            if let Some(at) = find(&self.raw, pattern) {
                let taken: Vec<u8> = self.raw.drain(..at + pattern.len()).collect();
                return Ok(taken[..at].to_vec());
            }
            if !self.fill(deadline)? {
                return Err(std::io::Error::new(ErrorKind::UnexpectedEof, "the connection closed"));
            }
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

// --- The face's refusals.

/// One row of the face's table of refusals.
#[derive(Debug, Clone)]
pub struct Refusal {
    pub cause: String,
    pub status: u16,
    pub code: i64,
    pub message: String,
}

impl Refusal {
    /// The body of the refusal: a JSON-RPC error response that has no id
    /// (the transport pages' words).
    pub fn body(&self) -> Value {
        json!({"jsonrpc": "2.0",
            "error": {"code": self.code, "message": self.message, "data": {"cause": self.cause}}})
    }
}

/// The row of `cause` in the face's table.
#[track_caller]
pub fn refusal(cause: &str) -> Refusal {
    let found = refusals().iter().find(|r| r.cause == cause);
    found.cloned().unwrap_or_else(|| panic!("the face's table has no refusal {cause:?}"))
}

/// Asserts that `reply` is the refusal `cause`: its status, a JSON body
/// that is exactly the row's error response.
#[track_caller]
pub fn assert_refused(reply: &Reply, cause: &str) {
    let row = refusal(cause);
    assert_eq!(reply.status, row.status, "the status of {cause}: {reply}");
    assert_eq!(reply.header("content-type"), Some("application/json"), "{cause}: {reply}");
    super::assert_json(cause, &reply.json(), &row.body());
}

/// The rows of the `refusals!` table of the library's face/refusal.rs:
/// `Variant => "cause", status, code, "message";`.
fn refusals() -> &'static [Refusal] {
    static TABLE: OnceLock<Vec<Refusal>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let crates = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let places = [crates.join("mcp-bridge"), crates.join(concat!("mcp-bridge-", env!("CARGO_PKG_VERSION")))]
            .map(|library| library.join("src/face/refusal.rs"));
        let source = places
            .iter()
            .find_map(|path| std::fs::read_to_string(path).ok())
            .unwrap_or_else(|| panic!("no table of refusals at {places:?}"));
        let table = source.split("\nrefusals! {").nth(1).and_then(|rest| rest.split("\n}").next());
        let rows: Vec<Refusal> =
            table.expect("the refusals! table").lines().filter(|l| l.contains("=>")).map(row).collect();
        assert!(rows.len() >= 15, "the table of refusals has {} rows", rows.len());
        rows
    })
}

#[track_caller]
fn row(line: &str) -> Refusal {
    let (_, cells) = line.split_once("=>").unwrap_or_default();
    let cells = cells.trim().strip_suffix(';').unwrap_or_else(|| panic!("a row without ';': {line}"));
    let mut parts = cells.splitn(4, ',').map(str::trim);
    let mut next = || parts.next().unwrap_or_else(|| panic!("a row without four cells: {line}"));
    let literal = |text: &str| -> String {
        let inner = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
        inner.unwrap_or_else(|| panic!("not a string literal: {text}")).replace("\\\"", "\"").replace("\\\\", "\\")
    };
    let cause = literal(next());
    let status = next().parse().unwrap_or_else(|_| panic!("a status that is no number: {line}"));
    let code = next().parse().unwrap_or_else(|_| panic!("a code that is no number: {line}"));
    let message = literal(next());
    Refusal { cause, status, code, message }
}
