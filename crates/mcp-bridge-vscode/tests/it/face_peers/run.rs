//! The face as a process and its real clients: `mcp-bridge-vscode --listen
//! 127.0.0.1:0` in front of an upstream (its port from its ready line), the
//! TypeScript SDK 1.32.2 client of tests/peers/node/client-http.mjs and the
//! Python `mcp==2.3.0` client of tests/peers/python/http_client.py, and
//! what every session of a client must show whatever its upstream.

use crate::support::peers::{node, peers, run_driver, DRIVER_LIMIT};
use crate::support::process::{read_lines, run_bounded, Input};
use crate::support::{assert_json, repo_root};
use serde_json::{json, Value};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// The longest wait for the ready line (a cold start on a loaded machine).
const READY_WAIT: Duration = Duration::from_secs(30);
/// The longest wait for the face to exit after SIGTERM: it ends every
/// session and its upstream first.
const EXIT_WAIT: Duration = Duration::from_secs(15);
/// What the face writes before its address once it listens.
const READY: &str = "mcp-bridge-vscode: listening on http://";

/// The transports of the face, and the transport of client-http.mjs for each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Streamable HTTP at /mcp (2025-03-26 to 2025-11-25).
    Streamable,
    /// HTTP+SSE at /sse (2024-11-05's transport).
    Sse,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Streamable => "streamable",
            Kind::Sse => "sse",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Kind::Streamable => "/mcp",
            Kind::Sse => "/sse",
        }
    }
}

/// A running face, in a process group of its own: its drop kills the
/// group (the face and the upstream children of its sessions).
pub struct Face {
    child: Child,
    port: u16,
    /// The lines of its stderr after the ready line.
    stderr: Receiver<String>,
    /// Its own config folder (the token store of a URL upstream).
    home: PathBuf,
}

impl Face {
    /// `--listen 127.0.0.1:0 -- <upstream command>`.
    #[track_caller]
    pub fn command(upstream: &[String]) -> Face {
        let mut args = vec!["--".to_string()];
        args.extend_from_slice(upstream);
        Face::launch(&args)
    }

    /// `--listen 127.0.0.1:0 --child-per-session -- <upstream command>`.
    #[track_caller]
    pub fn command_per_session(upstream: &[String]) -> Face {
        let mut args = vec!["--child-per-session".to_string(), "--".to_string()];
        args.extend_from_slice(upstream);
        Face::launch(&args)
    }

    /// `--listen 127.0.0.1:0 <url>`: the upstream is a server over HTTP.
    #[track_caller]
    pub fn url(url: &str) -> Face {
        Face::launch(&[url.to_string()])
    }

    #[track_caller]
    fn launch(upstream: &[String]) -> Face {
        let home = std::env::temp_dir().join(format!(
            "mcp-bridge-face-peers-{}-{}",
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0)
        ));
        std::fs::create_dir_all(&home).expect("a config folder");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
        cmd.args(["--listen", "127.0.0.1:0"])
            .args(upstream)
            .env("XDG_CONFIG_HOME", &home)
            .env("SANDBOX_RUNTIME", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0);
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start the face: {e}"));
        let stderr = read_lines(child.stderr.take().expect("stderr is piped"));
        let mut face = Face { child, port: 0, stderr, home };
        let deadline = Instant::now() + READY_WAIT;
        let line = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match face.stderr.recv_timeout(left) {
                Ok(line) if line.starts_with(READY) => break line,
                Ok(_) => {}
                Err(e) => panic!("the face wrote no ready line in {READY_WAIT:?} ({e:?})"),
            }
        };
        // "Ready and gone": one line names both URLs of the bound address.
        let address = line[READY.len()..].split('/').next().unwrap_or_default().to_string();
        assert_eq!(line, format!("{READY}{address}/mcp (Streamable HTTP) and http://{address}/sse (HTTP+SSE)"));
        face.port = address.strip_prefix("127.0.0.1:").and_then(|p| p.parse().ok()).expect("the port of the face");
        face
    }

    /// The URL of a transport of the face.
    pub fn at(&self, kind: Kind) -> String {
        format!("http://127.0.0.1:{}{}", self.port, kind.path())
    }

    /// "Ready and gone": SIGTERM ends every session and its upstream, then
    /// the face exits 0 (at most [`EXIT_WAIT`]).
    #[track_caller]
    pub fn stop(mut self) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status();
        assert!(sent.is_ok_and(|s| s.success()), "kill -TERM {pid}");
        let deadline = Instant::now() + EXIT_WAIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            assert!(Instant::now() < deadline, "the face did not exit in {EXIT_WAIT:?} after SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(0), "the exit of the face after SIGTERM: {status}");
    }
}

impl Drop for Face {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
        if std::thread::panicking() {
            let lines: Vec<String> = self.stderr.try_iter().collect();
            eprintln!("the stderr of the face:\n{}", lines.join("\n"));
        }
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// The command of client-http.mjs for a scenario on a transport of `face`.
pub fn client_command(face: &Face, kind: Kind, scenario: &str, options: &[&str]) -> Command {
    peers();
    let mut cmd = Command::new(node());
    cmd.arg(repo_root().join("tests/peers/node/client-http.mjs"))
        .args([face.at(kind).as_str(), kind.name(), scenario, "--timeout-ms", "60000"])
        .args(options);
    cmd
}

/// Runs a scenario of client-http.mjs to its end; its document (described
/// in client-http.mjs), which must say that the driver did not break.
#[track_caller]
pub fn client(face: &Face, kind: Kind, scenario: &str) -> Value {
    run_driver(client_command(face, kind, scenario, &[]))
}

/// [`client`] as a client of an older `revision`, which its initialize asks for.
#[track_caller]
pub fn older_client(face: &Face, kind: Kind, scenario: &str, revision: &str) -> Value {
    run_driver(client_command(face, kind, scenario, &["--protocol-version", revision]))
}

/// Runs tests/peers/python/http_client.py against the face's /mcp; its
/// document, which must say that it did not break.
#[track_caller]
pub fn python_client(face: &Face) -> Value {
    let mut cmd = Command::new(peers().join("py/bin/python"));
    cmd.arg(repo_root().join("tests/peers/python/http_client.py")).arg(face.at(Kind::Streamable));
    let done = run_bounded(cmd, Input::Closed, DRIVER_LIMIT);
    let doc: Value = serde_json::from_str(done.stdout.trim()).unwrap_or_else(|e| {
        panic!("http_client.py printed no JSON ({e}), {}:\n{}\nstderr:\n{}", done.status, done.stdout, done.stderr)
    });
    assert!(done.status.success(), "http_client.py failed, {}:\n{doc:#}\nstderr:\n{}", done.status, done.stderr);
    assert_eq!(doc["driverError"], Value::Null, "http_client.py broke:\n{doc:#}\nstderr:\n{}", done.stderr);
    doc
}

/// The names of the tools of a tools/list result.
pub fn names(list: &Value) -> Vec<&str> {
    list["tools"].as_array().map(|tools| tools.iter().filter_map(|t| t["name"].as_str()).collect()).unwrap_or_default()
}

/// `notifications/<list>/list_changed`.
pub fn list_changed(list: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": format!("notifications/{list}/list_changed"), "params": {}})
}

/// The events after the first acknowledgment of the listen stream for an
/// upstream that declares the three list changes ("Events after a gap").
pub fn gap() -> Vec<Value> {
    ["tools", "prompts", "resources"].into_iter().map(list_changed).collect()
}

/// The progress token the SDK gave the tools/call of `tool`.
#[track_caller]
pub fn token_of(doc: &Value, tool: &str) -> Value {
    let sent = doc["sent"].as_array().into_iter().flatten();
    let call = sent.rev().find(|m| m["method"] == "tools/call" && m["params"]["name"] == tool);
    call.map(|m| m["params"]["_meta"]["progressToken"].clone())
        .filter(|t| !t.is_null())
        .unwrap_or_else(|| panic!("no tools/call of {tool} with a progress token:\n{doc:#}"))
}

/// The raw progress notification with `token` and `params`.
pub fn progress(token: &Value, params: &Value) -> Value {
    let mut params = params.clone();
    params["progressToken"] = token.clone();
    json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
}

/// "Progress (M1)" through the face: the step got exactly `expected`
/// (params without the token), in order, on its own stream before its
/// response, none after; the SDK's onprogress handler got them too (on
/// HTTP+SSE the SDK 1.x can drop the last ones, which come in one chunk
/// with the response: it runs a notification handler a microtask after a
/// response, see client-http.mjs).
#[track_caller]
pub fn assert_progress(doc: &Value, kind: Kind, name: &str, expected: &[Value]) {
    let s = &doc["steps"][name];
    assert_json(&format!("the progress of {name}"), &s["progress"], &json!(expected));
    assert_json(&format!("progress of {name} after its response"), &s["progressAfterResponse"], &json!([]));
    let taken = s["onprogress"].as_array().cloned().unwrap_or_default();
    match kind {
        Kind::Streamable => assert_json(&format!("onprogress of {name}"), &json!(taken), &json!(expected)),
        Kind::Sse => assert_eq!(taken[..], expected[..taken.len().min(expected.len())], "onprogress of {name}"),
    }
}

/// The steps of client-http.mjs that the client cancels: "Cancellation
/// (M1)", a canceled request gets no response.
const CANCELED: [&str; 1] = ["tools/call wait"];

/// What every session of client-http.mjs shows, whatever its upstream
/// (docs/decisions.md, "The HTTP face"): initialize at the revision the
/// client asked for, a session id of 64 hex digits, the end of the session
/// without an error, every step answered (but a canceled one) with no
/// progress after its response, and exactly the HTTP exchanges of its
/// messages.
#[track_caller]
pub fn assert_session(doc: &Value, kind: Kind) {
    assert_eq!(doc["initialize"]["ok"], true, "initialize failed:\n{doc:#}");
    let sent = doc["sent"].as_array().into_iter().flatten();
    let asked = sent.filter(|m| m["method"] == "initialize").map(|m| &m["params"]["protocolVersion"]).next();
    assert_eq!(asked, Some(&doc["initialize"]["protocolVersion"]), "{doc:#}");
    let id = doc["sessionId"].as_str().unwrap_or_default();
    assert!(id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()), "the session id {id:?}");
    assert_json("the end of the session", &doc["ended"], &json!({"ok": true}));
    assert_json("the errors of the transport", &doc["transportErrors"], &json!([]));
    // "The end of a session": its GET stream closes, and a GET after it
    // gets 404 (the SDK opens it again after 1 s when the DELETE, which
    // waits for the upstream to stop, takes that long).
    let reopened = json!({"method": "GET", "path": "/mcp", "status": 404, "contentType": "application/json"});
    for late in doc["afterEnd"]["http"].as_array().into_iter().flatten() {
        assert_json("an exchange after the end", late, &reopened);
    }
    for error in doc["afterEnd"]["errors"].as_array().into_iter().flatten() {
        assert!(error.as_str().is_some_and(|e| e.contains("Not Found")), "an error after the end: {error}");
    }
    for (name, s) in doc["steps"].as_object().into_iter().flatten() {
        let canceled = CANCELED.contains(&name.as_str());
        assert_eq!(s["answered"], !canceled, "the step {name} got a response or none: {s:#}");
        assert_json(&format!("progress of {name} after its response"), &s["progressAfterResponse"], &json!([]));
    }
    assert_exchanges(doc, kind);
}

/// "Responses": the HTTP exchanges are exactly those of the messages the
/// client sent. /mcp: `initialize` gets JSON, every other request an SSE
/// stream, a notification or a response 202; one GET (the session's
/// stream) and the DELETE at the end, 200. /sse: the GET of the stream,
/// and 202 for each POST (every answer comes on the stream). The order of
/// the answers of the GET and the POSTs is the network's: the lists are
/// compared sorted; the first exchange opens the session.
#[track_caller]
fn assert_exchanges(doc: &Value, kind: Kind) {
    let exchange = |method: &str, path: &str, status: u16, media: Option<&str>| json!({"method": method, "path": path, "status": status, "contentType": media});
    let sse = Some("text/event-stream");
    let sent = doc["sent"].as_array().cloned().unwrap_or_default();
    let mut expected = Vec::new();
    match kind {
        Kind::Streamable => {
            for m in &sent {
                expected.push(match (m.get("method"), m.get("id")) {
                    (Some(method), Some(_)) if method == "initialize" => {
                        exchange("POST", "/mcp", 200, Some("application/json"))
                    }
                    (Some(_), Some(_)) => exchange("POST", "/mcp", 200, sse),
                    _ => exchange("POST", "/mcp", 202, None),
                });
            }
            expected.push(exchange("GET", "/mcp", 200, sse));
            expected.push(exchange("DELETE", "/mcp", 200, None));
        }
        Kind::Sse => {
            expected.push(exchange("GET", "/sse", 200, sse));
            expected.extend(sent.iter().map(|_| exchange("POST", "/messages", 202, None)));
        }
    }
    let actual = doc["http"].as_array().cloned().unwrap_or_default();
    let first = match kind {
        Kind::Streamable => exchange("POST", "/mcp", 200, Some("application/json")),
        Kind::Sse => exchange("GET", "/sse", 200, sse),
    };
    assert_json("the first HTTP exchange", actual.first().unwrap_or(&Value::Null), &first);
    if kind == Kind::Streamable {
        assert_json("the last HTTP exchange", actual.last().unwrap_or(&Value::Null), &expected[expected.len() - 1]);
    }
    let sorted = |mut list: Vec<Value>| {
        list.sort_by_key(|v| v.to_string());
        Value::Array(list)
    };
    assert_json("the HTTP exchanges (sorted)", &sorted(actual), &sorted(expected));
}

/// What the Python client's session shows (http_client.py): the revision,
/// the tools, `add`, and its HTTP exchanges in order (without the GET of
/// the session's stream, which it may open or not before its end): the
/// initialize without a session id gets JSON and the id, which every
/// later request carries; 202 for `notifications/initialized`; an SSE
/// stream for tools/list and tools/call; the DELETE at the end.
/// Its notifications are a prefix of the list changes of `gap` (they come
/// on the GET stream, the end can come first).
#[track_caller]
pub fn assert_python_session(doc: &Value, server_info: Value, tools: &[&str], add: Value, gap: &[&str]) {
    assert_eq!(doc["protocolVersion"], "2025-11-25", "{doc:#}");
    let came = doc["notifications"].as_array().cloned().unwrap_or_default();
    let changes: Vec<Value> =
        gap.iter().map(|l| json!({"method": format!("notifications/{l}/list_changed"), "params": {}})).collect();
    assert!(came.len() <= changes.len() && came[..] == changes[..came.len()], "notifications {came:?}");
    assert_json("serverInfo", &doc["serverInfo"], &server_info);
    assert_json("tools", &doc["tools"], &json!(tools));
    assert_json("tools/call add", &doc["add"], &add);
    let http: Vec<Value> =
        doc["http"].as_array().into_iter().flatten().filter(|x| x["method"] != "GET").cloned().collect();
    let session = http.get(1).map(|x| x["session"].clone()).unwrap_or_default();
    let id = session.as_str().unwrap_or_default();
    assert!(id.len() == 64 && id.bytes().all(|b| b.is_ascii_hexdigit()), "the session id {session}");
    let exchange = |method: &str, status: u16, media: Option<&str>, session: &Value| json!({"method": method, "path": "/mcp", "status": status, "contentType": media, "session": session});
    let sse = Some("text/event-stream");
    assert_json(
        "the HTTP exchanges but the GET",
        &json!(http),
        &json!([
            exchange("POST", 200, Some("application/json"), &Value::Null),
            exchange("POST", 202, None, &session),
            exchange("POST", 200, sse, &session),
            exchange("POST", 200, sse, &session),
            exchange("DELETE", 200, None, &session),
        ]),
    );
}
