//! A 2025-11-25 client of Streamable HTTP: the initialize handshake,
//! `tools/call` requests and the DELETE that ends a session, each a POST on
//! a keep-alive HTTP/1.1 connection (a `Lane`: one request at a time, as a
//! browser's or an SDK's connection carries them), its answer read as JSON
//! or as an SSE stream.

use crate::sse::Events;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Method, Request};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use std::fmt;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;

/// The revision this client speaks.
pub const REVISION: &str = "2025-11-25";
/// The most of an answer that is read; more is a failure.
const MAX_BODY: usize = 16 << 20;
/// How long the rest of an SSE answer may take after its response: a
/// server that keeps the stream open loses the connection instead.
const TAIL: Duration = Duration::from_secs(2);
/// A connection idle longer than this may have been closed by the server
/// (uvicorn and Node close idle keep-alive connections after 5 s): a send
/// that fails on it is tried once more on a new connection.
const STALE: Duration = Duration::from_secs(1);

/// Where the server under test listens: `http://HOST:PORT/PATH`.
pub struct Target {
    pub addr: SocketAddr,
    /// The `Host` header.
    pub host: String,
    pub path: String,
}

impl Target {
    pub fn parse(url: &str) -> Result<Target, String> {
        let rest = url.strip_prefix("http://").ok_or_else(|| format!("{url} is not an http:// URL"))?;
        let (host, path) = match rest.find('/') {
            Some(slash) => (&rest[..slash], &rest[slash..]),
            None => (rest, "/"),
        };
        let addr = host
            .to_socket_addrs()
            .map_err(|e| format!("cannot resolve {host}: {e}"))?
            .next()
            .ok_or_else(|| format!("{host} resolves to no address"))?;
        Ok(Target { addr, host: host.to_owned(), path: path.to_owned() })
    }
}

/// Why a request failed.
#[derive(Debug)]
pub enum Failure {
    Connect(String),
    Http(String),
    Status(u16, String),
    Timeout,
    /// An answer that is no JSON-RPC response to the request.
    Protocol(String),
    /// A JSON-RPC error response.
    Rpc(String),
    /// A `tools/call` result with `isError`.
    Tool(String),
}

impl Failure {
    /// The kind, for counts.
    pub fn kind(&self) -> &'static str {
        match self {
            Failure::Connect(_) => "connect",
            Failure::Http(_) => "http",
            Failure::Status(..) => "status",
            Failure::Timeout => "timeout",
            Failure::Protocol(_) => "protocol",
            Failure::Rpc(_) => "json-rpc error",
            Failure::Tool(_) => "isError",
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Connect(why) => write!(f, "cannot connect: {why}"),
            Failure::Http(why) => write!(f, "HTTP: {why}"),
            Failure::Status(code, body) => write!(f, "status {code}: {body}"),
            Failure::Timeout => write!(f, "no answer in time"),
            Failure::Protocol(why) => write!(f, "{why}"),
            Failure::Rpc(error) => write!(f, "JSON-RPC error {error}"),
            Failure::Tool(text) => write!(f, "tool error: {text}"),
        }
    }
}

/// An open session: its id, and the ids of its requests.
#[derive(Clone)]
pub struct Session {
    pub id: Arc<str>,
    ids: Arc<AtomicU64>,
}

impl Session {
    pub fn next_id(&self) -> u64 {
        self.ids.fetch_add(1, Ordering::Relaxed)
    }
}

/// What came back for a POST or a DELETE.
pub struct Reply {
    pub session_id: Option<String>,
    /// The response to the request, when it was one.
    pub message: Option<Value>,
}

/// One keep-alive connection, opened when first needed and again after
/// the server closed it.
pub struct Lane {
    target: Arc<Target>,
    sender: Option<SendRequest<Full<Bytes>>>,
    last_used: Instant,
    /// Connections opened after the first.
    pub reconnects: u64,
}

impl Lane {
    pub fn new(target: Arc<Target>) -> Lane {
        Lane { target, sender: None, last_used: Instant::now(), reconnects: 0 }
    }

    async fn connect(&mut self) -> Result<(), Failure> {
        let stream = TcpStream::connect(self.target.addr).await.map_err(|e| Failure::Connect(e.to_string()))?;
        // Small requests go out at once, as every client here sends them.
        stream.set_nodelay(true).map_err(|e| Failure::Connect(e.to_string()))?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| Failure::Http(e.to_string()))?;
        // The connection's task ends when the sender is dropped or the
        // server closes it; its error then shows on the next send.
        tokio::spawn(connection);
        if self.sender.is_some() {
            self.reconnects += 1;
        }
        self.sender = Some(sender);
        Ok(())
    }

    /// Drops the connection: its answer may still be on the way.
    pub fn abandon(&mut self) {
        self.sender = None;
    }

    /// Sends `body` (or a DELETE without one) and reads the answer to
    /// request `id`, if any.
    pub async fn send(
        &mut self,
        method: Method,
        session: Option<&Session>,
        body: Option<&Bytes>,
        id: Option<u64>,
    ) -> Result<Reply, Failure> {
        let stale = self.last_used.elapsed() > STALE;
        let first = self.send_once(method.clone(), session, body, id).await;
        let result = match first {
            Err(Failure::Http(_)) if stale => {
                self.sender = None;
                self.send_once(method, session, body, id).await
            }
            other => other,
        };
        self.last_used = Instant::now();
        result
    }

    async fn send_once(
        &mut self,
        method: Method,
        session: Option<&Session>,
        body: Option<&Bytes>,
        id: Option<u64>,
    ) -> Result<Reply, Failure> {
        if self.sender.as_ref().is_none_or(|s| s.is_closed()) {
            self.connect().await?;
        }
        let Some(sender) = self.sender.as_mut() else { return Err(Failure::Connect("no connection".into())) };
        if let Err(e) = sender.ready().await {
            self.sender = None;
            return Err(Failure::Http(e.to_string()));
        }
        let mut request = Request::builder()
            .method(method)
            .uri(self.target.path.as_str())
            .header("host", self.target.host.as_str())
            .header("accept", "application/json, text/event-stream");
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        if let Some(session) = session {
            request = request.header("mcp-session-id", &*session.id).header("mcp-protocol-version", REVISION);
        }
        let request =
            request.body(Full::new(body.cloned().unwrap_or_default())).map_err(|e| Failure::Http(e.to_string()))?;
        let response = match sender.send_request(request).await {
            Ok(response) => response,
            Err(e) => {
                self.sender = None;
                return Err(Failure::Http(e.to_string()));
            }
        };
        let status = response.status().as_u16();
        let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let session_id = header("mcp-session-id");
        let is_sse = header("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
        let mut body = response.into_body();
        if !(200..300).contains(&status) {
            let text = read_text(&mut body).await;
            return Err(Failure::Status(status, text));
        }
        let mut message = None;
        if is_sse {
            let mut events = Events::default();
            let mut size = 0;
            let mut found = None;
            loop {
                // The wait for the response is the caller's time limit;
                // after it, the rest gets `TAIL`.
                let frame = if found.is_some() {
                    match tokio::time::timeout(TAIL, body.frame()).await {
                        Ok(frame) => frame,
                        Err(_) => {
                            self.sender = None;
                            break;
                        }
                    }
                } else {
                    body.frame().await
                };
                let Some(frame) = frame else { break };
                let frame = frame.map_err(|e| Failure::Http(e.to_string()))?;
                let Ok(chunk) = frame.into_data() else { continue };
                size += chunk.len();
                if size > MAX_BODY {
                    self.sender = None;
                    return Err(Failure::Protocol("an SSE answer over 16 MiB".into()));
                }
                events.feed(&chunk, |data| {
                    if found.is_none() {
                        found = serde_json::from_str::<Value>(data).ok().filter(|m| is_response_to(m, id));
                    }
                });
            }
            message = found;
        } else {
            let bytes = body.collect().await.map_err(|e| Failure::Http(e.to_string()))?.to_bytes();
            if !bytes.is_empty() {
                let value = serde_json::from_slice::<Value>(&bytes)
                    .map_err(|e| Failure::Protocol(format!("a JSON body that does not parse: {e}")))?;
                message = Some(value).filter(|m| is_response_to(m, id));
            }
        }
        if id.is_some() && message.is_none() {
            return Err(Failure::Protocol("the answer had no response to the request".into()));
        }
        Ok(Reply { session_id, message })
    }

    /// `initialize` and `notifications/initialized`: a new session.
    pub async fn open(&mut self) -> Result<Session, Failure> {
        let body = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": REVISION,
                "capabilities": {},
                "clientInfo": {"name": "face-load", "version": env!("CARGO_PKG_VERSION")},
            },
        });
        let reply = self.send(Method::POST, None, Some(&Bytes::from(body.to_string())), Some(0)).await?;
        let message = reply.message.unwrap_or_default();
        if let Some(error) = message.get("error") {
            return Err(Failure::Rpc(error.to_string()));
        }
        let id = reply.session_id.ok_or_else(|| Failure::Protocol("initialize gave no Mcp-Session-Id".into()))?;
        let session = Session { id: id.into(), ids: Arc::new(AtomicU64::new(1)) };
        let initialized = Bytes::from_static(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        self.send(Method::POST, Some(&session), Some(&initialized), None).await?;
        Ok(session)
    }

    /// One `tools/call`, judged: a JSON-RPC error or `isError` fails it.
    pub async fn call(&mut self, session: &Session, tool: &Call) -> Result<(), Failure> {
        let id = session.next_id();
        let body = tool.body(id);
        let reply = self.send(Method::POST, Some(session), Some(&body), Some(id)).await?;
        let message = reply.message.unwrap_or_default();
        if let Some(error) = message.get("error") {
            return Err(Failure::Rpc(error.to_string()));
        }
        let result = message.get("result").ok_or_else(|| Failure::Protocol("a response without a result".into()))?;
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            return Err(Failure::Tool(excerpt(&result.to_string())));
        }
        Ok(())
    }

    /// DELETE: the client ends its session.
    pub async fn close(&mut self, session: &Session) -> Result<(), Failure> {
        self.send(Method::DELETE, Some(session), None, None).await.map(|_| ())
    }
}

/// The `tools/call` every active session makes.
#[derive(Clone)]
pub struct Call {
    /// The request before its id: `{"jsonrpc":"2.0","method":...,"params":...,"id":`.
    head: String,
}

impl Call {
    pub fn new(tool: &str, arguments: &Value) -> Call {
        let request =
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
        let text = request.to_string();
        // The same text with `"id":N}` at its end, built without a tree per call.
        let head = format!("{},\"id\":", &text[..text.len() - 1]);
        Call { head }
    }

    pub fn body(&self, id: u64) -> Bytes {
        Bytes::from(format!("{}{id}}}", self.head))
    }
}

fn is_response_to(message: &Value, id: Option<u64>) -> bool {
    let Some(id) = id else { return false };
    message.get("id").and_then(Value::as_u64) == Some(id)
        && (message.get("result").is_some() || message.get("error").is_some())
}

async fn read_text(body: &mut hyper::body::Incoming) -> String {
    let mut text = Vec::new();
    while let Some(Ok(frame)) = body.frame().await {
        if let Ok(chunk) = frame.into_data() {
            text.extend_from_slice(&chunk);
            if text.len() > 4096 {
                break;
            }
        }
    }
    excerpt(&String::from_utf8_lossy(&text))
}

/// The start of a text, on one line, for a report.
pub fn excerpt(text: &str) -> String {
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).take(200).collect();
    line.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::Call;
    use serde_json::{json, Value};

    #[test]
    fn a_call_body_is_the_request_with_its_id() {
        let call = Call::new("add", &json!({"a": 1, "b": 2}));
        let body: Value = serde_json::from_slice(&call.body(7)).unwrap_or_default();
        assert_eq!(body["id"], 7);
        assert_eq!(body["params"]["arguments"]["b"], 2);
    }
}
