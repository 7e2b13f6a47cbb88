//! The attacks on the face: a session's `clientInfo`, a 2026-07-28
//! request's `_meta` clientInfo, and the words of a client by URL.

use super::*;

/// `mcp-bridge-vscode --listen 127.0.0.1:0 <options> -- <upstream>` in its
/// own process group, which its drop kills.
struct Listening {
    child: Child,
    port: u16,
    stderr: Arc<Mutex<String>>,
    _thread: JoinHandle<()>,
}

const READY: &str = "mcp-bridge-vscode: listening on http://";

impl Listening {
    #[track_caller]
    fn start(options: &[&str], upstream: &[String], env: &[(&str, &str)]) -> Listening {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
        cmd.args(["--listen", "127.0.0.1:0"]).args(options).arg("--").args(upstream).envs(env.iter().copied());
        Listening::launch(cmd)
    }

    /// In front of a server at `url`, as on the user's own machine (no
    /// variable of a remote host), with `env`.
    #[track_caller]
    fn start_url(options: &[&str], url: &str, env: &[(&str, &str)]) -> Listening {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
        cmd.args(["--listen", "127.0.0.1:0"]).args(options).arg(url);
        for var in REMOTE_VARS {
            cmd.env_remove(var);
        }
        cmd.envs(env.iter().copied());
        Listening::launch(cmd)
    }

    #[track_caller]
    fn launch(mut cmd: Command) -> Listening {
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).process_group(0);
        let mut child = cmd.spawn().expect("the bridge binary starts");
        let mut pipe = child.stderr.take().expect("stderr is piped");
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        let thread = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if let Ok(mut text) = sink.lock() {
                    text.push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }
        });
        let mut face = Listening { child, port: 0, stderr, _thread: thread };
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let text = face.stderr_text();
            let line = text.lines().find(|l| l.starts_with(READY) && l.contains("/mcp "));
            if let Some(line) = line {
                let address = line[READY.len()..].split('/').next().unwrap_or_default();
                face.port = address.rsplit(':').next().and_then(|p| p.parse().ok()).expect("a port");
                return face;
            }
            if let Ok(Some(status)) = face.child.try_wait() {
                panic!("the face ended ({status}): {text}");
            }
            assert!(Instant::now() < deadline, "no ready line: {text}");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    fn stderr_text(&self) -> String {
        self.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    }

    fn send(&self, request: Req) -> Reply {
        send(self.port, &request.header("Host", &format!("127.0.0.1:{}", self.port)))
    }

    /// A Streamable HTTP session initialized as `name`: its id.
    #[track_caller]
    fn session(&self, name: &str) -> String {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize_as(json!(name))});
        let reply = self.send(Req::post(&init));
        assert_eq!(reply.status, 200, "{reply}");
        let id = reply.header("mcp-session-id").expect("a session id").to_owned();
        let ack = self.send(
            Req::post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
                .session(&id)
                .header("MCP-Protocol-Version", "2025-11-25"),
        );
        assert_eq!(ack.status, 202, "{ack}");
        id
    }

    /// The response of a request of a session (its SSE stream or JSON).
    #[track_caller]
    fn answer(&self, session: &str, message: &Value) -> Value {
        let reply = self.send(Req::post(message).session(session).header("MCP-Protocol-Version", "2025-11-25"));
        body_of(reply)
    }

    /// A 2026-07-28 request without a session, whose `_meta` has
    /// `client_info` (none when null).
    #[track_caller]
    fn modern(&self, id: Value, method: &str, mut params: Value, client_info: Value) -> (u16, Value) {
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        if !client_info.is_null() {
            meta["io.modelcontextprotocol/clientInfo"] = client_info;
        }
        params["_meta"] = meta;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut req = Req::post(&message).header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", method);
        if let Some(name) = message["params"]["name"].as_str() {
            req = req.header("Mcp-Name", name);
        }
        let reply = self.send(req);
        let status = reply.status;
        (status, body_of(reply))
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("the stderr of the face:\n{}", self.stderr_text());
        }
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).stderr(Stdio::null()).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[track_caller]
fn body_of(reply: Reply) -> Value {
    match reply.header("content-type") {
        Some(kind) if kind.starts_with("text/event-stream") => reply.events().any_message(),
        _ => reply.json(),
    }
}

fn stall(id: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "stall", "arguments": {}}})
}

/// "One client's fault never another's": sessions side by side on one
/// upstream (the face's one child), each named by its own initialize. A
/// known client by URL reads the server's log, an unknown or hostile one
/// the spec's words, whatever the order in which they came, and a
/// 2026-07-28 client naming itself in `_meta` between them changes no
/// session's words. The log holds no piece of the hostile name.
#[test]
fn one_sessions_client_name_never_changes_the_words_of_another_session() {
    let face =
        Listening::start(&["--test-request-timeout-ms", "300"], &fake_upstream(&[]), &[("MCP_BRIDGE_LOG", "trace")]);
    let gemini = face.session("gemini-cli-mcp-client");
    let hostile = face.session(HOSTILE);
    let claude = face.session("claude-code");
    let unknown = face.session("face-attack");
    for round in 0..2 {
        for (session, log) in [(&unknown, SPEC_LOG), (&gemini, BY_URL_LOG), (&hostile, SPEC_LOG), (&claude, BY_URL_LOG)]
        {
            let response = face.answer(session, &stall(json!(round)));
            assert_eq!(response["error"]["data"]["cause"], "timeout", "{response}");
            assert_eq!(message_of(&response), message_for("timeout", log), "round {round}");
            assert_no_trace_of_hostile_name("a session's response", &response.to_string());
            // A modern client that names a known client, then a hostile
            // one, between the sessions' requests.
            for name in ["gemini-cli-mcp-client", HOSTILE] {
                let (status, body) = face.modern(
                    json!("m"),
                    "tools/call",
                    json!({"name": "stall", "arguments": {}}),
                    json!({"name": name, "version": "1"}),
                );
                assert_eq!(status, 200, "{body}");
                let log = if name == HOSTILE { SPEC_LOG } else { BY_URL_LOG };
                assert_eq!(message_of(&body), message_for("timeout", log), "{name:?}");
                assert_no_trace_of_hostile_name("a modern response", &body.to_string());
            }
        }
    }
    assert_no_trace_of_hostile_name("the log of the face", &face.stderr_text());
}

/// A 2026-07-28 request's `_meta` clientInfo of any shape (a hostile name,
/// a number, an object, null, a string in place of the object, a 1 MiB
/// name) is only compared: the face answers the table's error with the
/// spec's words for an unknown one, never a 500, a hang or an echo; only
/// an exact known name reads the server's log.
#[test]
fn a_hostile_meta_client_info_of_a_modern_request_is_only_compared() {
    let face = Listening::start(&[], &missing(), &[("MCP_BRIDGE_LOG", "trace")]);
    let big = "B".repeat(1 << 20);
    let cases = [
        (json!({"name": HOSTILE, "version": "1"}), SPEC_LOG),
        (json!({"name": 5, "version": "1"}), SPEC_LOG),
        (json!({"name": {"name": "claude-code"}, "version": "1"}), SPEC_LOG),
        (json!({"name": ["claude-code"]}), SPEC_LOG),
        (json!({"name": null}), SPEC_LOG),
        (json!("claude-code"), SPEC_LOG),
        (json!(["claude-code"]), SPEC_LOG),
        (json!({"name": "Claude-Code"}), SPEC_LOG),
        (json!({"name": "claude-code "}), SPEC_LOG),
        (json!({"name": big}), SPEC_LOG),
        (json!({"name": format!("qwen-cli-mcp-client-{big}")}), BY_URL_LOG),
        (json!({"name": "claude-code"}), BY_URL_LOG),
    ];
    for (n, (info, log)) in cases.iter().enumerate() {
        let started = Instant::now();
        let (status, body) = face.modern(json!(n), "tools/list", json!({}), info.clone());
        assert!(started.elapsed() < Duration::from_secs(10), "{n}: {:?}", started.elapsed());
        let label = format!("case {n}");
        assert_eq!(status, 200, "{label}: {body}");
        assert_eq!(body["error"]["data"], json!({"cause": "spawn_failed"}), "{label}");
        assert_eq!(message_of(&body), message_for("spawn_failed", log), "{label}");
        assert!(body.to_string().len() < 1024, "{label}: {} bytes", body.to_string().len());
        assert_no_trace_of_hostile_name(&label, &body.to_string());
    }
    let log = face.stderr_text();
    assert!(log.len() < 256 * 1024, "the log holds {} bytes", log.len());
    assert_no_trace_of_hostile_name("the log of the face", &log);
}

/// A session's hostile or huge `clientInfo.name` at initialize on the
/// face: the table's error with the spec's words, no echo, and a later
/// known client still reads its own words (the face keeps no name
/// across sessions).
#[test]
fn a_sessions_hostile_or_huge_client_name_is_not_echoed_and_sticks_to_no_later_session() {
    let face = Listening::start(&[], &missing(), &[("MCP_BRIDGE_LOG", "trace")]);
    let big = "C".repeat(1 << 20);
    for (name, log) in [
        (HOSTILE.to_string(), SPEC_LOG),
        (big.clone(), SPEC_LOG),
        ("gemini-cli-mcp-client".to_string(), BY_URL_LOG),
        (format!("{big}gemini-cli-mcp-client"), SPEC_LOG),
        ("face-attack".to_string(), SPEC_LOG),
    ] {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_as(json!(name))});
        let body = body_of(face.send(Req::post(&init)));
        let label = format!("{:?}", &name[..name.len().min(40)]);
        assert_eq!(message_of(&body), message_for("spawn_failed", log), "{label}");
        assert!(body.to_string().len() < 1024, "{label}: {} bytes", body.to_string().len());
        assert_no_trace_of_hostile_name(&label, &body.to_string());
    }
    let log = face.stderr_text();
    assert!(log.len() < 256 * 1024, "the log holds {} bytes", log.len());
    assert_no_trace_of_hostile_name("the log of the face", &log);
}

/// The variables that tell the bridge that it runs on a remote host.
const REMOTE_VARS: [&str; 8] = [
    "VSCODE_IPC_HOOK_CLI",
    "SSH_CONNECTION",
    "SSH_CLIENT",
    "CODESPACES",
    "GITPOD_WORKSPACE_ID",
    "REMOTE_CONTAINERS",
    "REMOTE_CONTAINERS_IPC",
    "WSL_DISTRO_NAME",
];

/// docs/decisions.md, "By URL": a client that reached the bridge by URL
/// did not start it, so the bridge's stderr is not in its logs; by the
/// same token the bridge does not run in *its* sandbox. A face started
/// with `SANDBOX_RUNTIME=1` (say from a sandboxed command of Claude Code)
/// in front of a server that needs a sign-in must not tell a remote
/// Gemini CLI user (legacy session or 2026-07-28 request) that "the bridge
/// runs in the sandbox of Gemini CLI" and to disable the sandbox there:
/// the sandbox is the operator's, on the face's host.
#[test]
fn a_face_never_tells_a_client_by_url_that_the_sandbox_is_its_own() {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("mcp-bridge-words-sandbox-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the temporary folder is made");
    let mut cmd = Command::new("python3");
    cmd.arg(crate::support::repo_root().join("tests/fake/auth_upstream.py"))
        .arg("--record")
        .arg(dir.join("record.jsonl"))
        .args(["--mcp-path", "/mcp"]);
    let fake = crate::support::served::Served::start(cmd, false);
    let url = format!("http://127.0.0.1:{}/mcp", fake.port);
    let config = dir.display().to_string();
    let face = Listening::start_url(
        &["--no-browser"],
        &url,
        &[("XDG_CONFIG_HOME", config.as_str()), ("SANDBOX_RUNTIME", "1")],
    );
    let mut seen = Vec::new();
    for name in ["gemini-cli-mcp-client", "claude-code"] {
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize_as(json!(name))});
        let body = body_of(face.send(Req::post(&init)));
        assert_eq!(body["error"]["data"]["cause"], "sandbox", "{name}: {body}");
        seen.push((format!("session of {name}"), message_of(&body)));
    }
    let (_, body) =
        face.modern(json!(2), "tools/list", json!({}), json!({"name": "gemini-cli-mcp-client", "version": "1"}));
    assert_eq!(body["error"]["data"]["cause"], "sandbox", "{body}");
    seen.push(("2026-07-28 request of gemini-cli-mcp-client".into(), message_of(&body)));
    let _ = std::fs::remove_dir_all(&dir);
    let wrong: Vec<_> = seen
        .iter()
        .filter(|(_, message)| {
            message.contains("the sandbox of Gemini CLI") || message.contains("the sandbox of Claude Code")
        })
        .collect();
    assert!(wrong.is_empty(), "a client by URL is told the face runs in its own sandbox: {wrong:#?}");
    for (who, message) in &seen {
        assert!(message.contains("the bridge runs in the sandbox of its host."), "{who}: {message}");
    }
}
