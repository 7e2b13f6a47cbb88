//! The sign-in toward an upstream server at a URL, end to end (behaviour
//! spec, "Sign-in during initialize (M4)", the sign-in rows of the error
//! table and the paragraph after it; 2026-07-28 `basic/authorization/`).
//!
//! Each test runs the real binary with `--no-browser` against the scripted
//! protected server of tests/fake/auth_upstream.py (its own authorization
//! server on the same port), with a fresh `XDG_CONFIG_HOME` for the token
//! store. The test plays the browser: it reads the sign-in line of stderr,
//! GETs the start URL and follows the redirects between the two loopback
//! listeners with a small client of its own. Whole messages are compared;
//! every wait is bounded.

mod client_words;
mod device;
mod flow;
mod gates;
mod listener;
mod real_life;
mod remote_host;
mod step_up;

use crate::support::driver::{assert_no_panic, err, Driver, STEP};
use crate::support::served::Served;
use crate::support::{bridge_error, message, message_with};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const SIGN_IN_LINE: &str = "sign-in: open ";
const INIT: &str = "init";

// --- A temporary folder ----------------------------------------------------

/// A fresh folder, removed at the end of the test.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!("mcp-bridge-auth-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("the temporary folder is made");
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// --- The fake protected server -------------------------------------------

/// tests/fake/auth_upstream.py with its options and its `--record` file.
struct Fake {
    served: Served,
    /// The path of its MCP endpoint.
    path: String,
    record: PathBuf,
}

impl Fake {
    fn start(dir: &Path, options: &[&str]) -> Fake {
        Fake::start_at(dir, "/mcp", options)
    }

    /// With the MCP endpoint at `path` (`--mcp-path`).
    fn start_at(dir: &Path, path: &str, options: &[&str]) -> Fake {
        Fake::spawn(Command::new("python3"), dir, path, options)
    }

    /// `python3` of `cmd` (which can run it in another network namespace)
    /// with the fake and its options.
    fn spawn(mut cmd: Command, dir: &Path, path: &str, options: &[&str]) -> Fake {
        let record = dir.join("record.jsonl");
        let script = crate::support::repo_root().join("tests/fake/auth_upstream.py");
        cmd.arg(script).arg("--record").arg(&record).args(["--mcp-path", path]).args(options);
        Fake { served: Served::start(cmd, false), path: path.to_owned(), record }
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.served.port)
    }

    /// The URL of its MCP endpoint (also the canonical resource).
    fn url(&self) -> String {
        format!("{}{}", self.base(), self.path)
    }

    /// The requests it received so far, one JSON object each.
    fn records(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.record).unwrap_or_default();
        text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
    }

    /// The records whose path is `path`.
    fn requests_to(&self, path: &str) -> Vec<Value> {
        self.records().into_iter().filter(|r| r["path"] == path).collect()
    }
}

// --- The bridge ------------------------------------------------------------

/// The folder of the token store under an `XDG_CONFIG_HOME`.
fn store_dir(config: &Path) -> PathBuf {
    config.join("mcp-bridge").join("auth")
}

/// The variables that tell the bridge that it runs on a remote host
/// (`auth::Place`): a test starts from none of them, as on the user's own
/// machine, and sets the one it needs.
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

/// The command of the bridge toward `url` with `--no-browser`, the store
/// under `config`, and `env` (which can set `SANDBOX_RUNTIME`); `prefix`
/// runs it through another program (`ip netns exec <ns>`).
fn bridge_command(prefix: &[&str], config: &Path, url: &str, options: &[&str], env: &[(&str, &str)]) -> Command {
    let options: Vec<&str> = std::iter::once("--no-browser").chain(options.iter().copied()).collect();
    bridge_command_opening(prefix, config, url, &options, env)
}

/// [`bridge_command`] without `--no-browser`: the bridge may open a
/// browser, which `env` can point at a recorder with `BROWSER`.
fn bridge_command_opening(
    prefix: &[&str],
    config: &Path,
    url: &str,
    options: &[&str],
    env: &[(&str, &str)],
) -> Command {
    let binary = env!("CARGO_BIN_EXE_mcp-bridge-vscode");
    let mut cmd = match prefix.split_first() {
        Some((program, rest)) => {
            let mut cmd = Command::new(program);
            cmd.args(rest).arg(binary);
            cmd
        }
        None => Command::new(binary),
    };
    cmd.args(options).arg(url);
    for var in REMOTE_VARS {
        cmd.env_remove(var);
    }
    cmd.env("XDG_CONFIG_HOME", config).env("SANDBOX_RUNTIME", "0").envs(env.iter().copied());
    cmd
}

/// Starts the bridge toward `url` (see [`bridge_command`]).
fn bridge(config: &Path, url: &str, options: &[&str], env: &[(&str, &str)]) -> Driver {
    Driver::spawn(bridge_command(&[], config, url, options, env))
}

fn send_initialize(driver: &mut Driver) {
    driver.send_request(
        json!(INIT),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "auth-test", "version": "1.0"}}),
    );
}

/// The initialize result for the fake.
fn initialize_result() -> Value {
    json!({"jsonrpc": "2.0", "id": INIT, "result": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "auth-fake", "version": "1.0"}
    }})
}

/// The start URL of the `n`-th sign-in line (from 1), waiting for it.
#[track_caller]
fn start_url(driver: &mut Driver, n: usize) -> String {
    driver.wait_stderr(SIGN_IN_LINE, n);
    let stderr = driver.stderr_text();
    let (_, rest) = stderr.match_indices(SIGN_IN_LINE).nth(n - 1).map(|(i, _)| stderr.split_at(i)).expect("the line");
    let url = rest[SIGN_IN_LINE.len()..].split_whitespace().next().unwrap_or("").to_owned();
    assert!(url.starts_with("http://127.0.0.1:") && url.contains("/start/"), "the sign-in line: {rest}");
    url
}

/// Initializes through one headless sign-in; returns the response.
#[track_caller]
fn initialize_signing_in(driver: &mut Driver) -> Value {
    send_initialize(driver);
    let end = follow(&start_url(driver, 1));
    assert_eq!(end.status, 200, "the last page of the sign-in: {end:?}");
    let response = driver.response(&json!(INIT));
    driver.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    response
}

/// Waits for a process to exit, at most [`STEP`]; `what` names it in the
/// failure.
#[track_caller]
fn exit_of(child: &mut std::process::Child, what: &str) -> ExitStatus {
    let deadline = Instant::now() + STEP;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} did not exit in {STEP:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs `mcp-bridge-vscode logout <url>` with the store under `config`.
fn logout(config: &Path, url: &str) -> (ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .args(["logout", url])
        .env("XDG_CONFIG_HOME", config)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the bridge starts");
    let status = exit_of(&mut child, "logout");
    let (mut out, mut err) = (String::new(), String::new());
    let _ = child.stdout.take().map(|mut s| s.read_to_string(&mut out));
    let _ = child.stderr.take().map(|mut s| s.read_to_string(&mut err));
    assert_eq!(out, "", "logout writes nothing on stdout");
    (status, err)
}

/// A port that nobody listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

/// The peak resident memory of a process so far (`VmHWM`), in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:")).unwrap_or("");
    line.trim().trim_end_matches("kB").trim().parse().unwrap_or(0)
}

// --- The browser -----------------------------------------------------------

/// One answer of a loopback listener.
#[derive(Debug)]
struct Page {
    status: u16,
    location: Option<String>,
}

/// One GET of an `http://127.0.0.1:<port>/...` URL, with a bounded
/// connect, write and read.
fn get(url: &str) -> Page {
    let rest = url.strip_prefix("http://").unwrap_or_else(|| panic!("not an http URL: {url}"));
    let (host, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let address = host.parse().unwrap_or_else(|e| panic!("{host}: {e}"));
    let limit = Duration::from_secs(5);
    let mut stream = TcpStream::connect_timeout(&address, limit).unwrap_or_else(|e| panic!("connect {host}: {e}"));
    stream.set_read_timeout(Some(limit)).expect("read timeout");
    stream.set_write_timeout(Some(limit)).expect("write timeout");
    let request = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).expect("the request is written");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap_or_else(|e| panic!("the answer of {host}: {e}"));
    let text = String::from_utf8_lossy(&response);
    let head = text.split("\r\n\r\n").next().unwrap_or("");
    let mut lines = head.split("\r\n");
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).unwrap_or(0);
    let location = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.eq_ignore_ascii_case("location"))
        .map(|(_, value)| value.trim().to_owned());
    Page { status, location }
}

/// GETs `url` and follows the redirects, as a browser would: start URL →
/// the fake's /authorize → the bridge's /callback. Returns the last page.
fn follow(url: &str) -> Page {
    let mut url = url.to_owned();
    for _ in 0..5 {
        let page = get(&url);
        match (&page.status, &page.location) {
            (300..=399, Some(location)) => url = location.clone(),
            _ => return page,
        }
    }
    panic!("more than 5 redirects from {url}");
}

// --- The records of the fake and the steps of a test ---------------------

/// The port of a loopback URL.
fn port_of(url: &str) -> u16 {
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("not a loopback URL: {url}"));
    rest.split(|c: char| !c.is_ascii_digit()).next().and_then(|p| p.parse().ok()).expect("a port")
}

/// A record of the fake for a request to the MCP endpoint.
fn mcp(rpc: &str, token: Option<&str>, status: u16) -> Value {
    json!({"method": "POST", "path": "/mcp", "rpc": rpc, "bearer": token.is_some(), "token": token, "status": status})
}

/// The records of the fake from `from` on.
fn since(fake: &Fake, from: usize) -> Vec<Value> {
    fake.records().split_off(from)
}

/// The records of `path` among `records`.
fn only(records: &[Value], path: &str) -> Vec<Value> {
    records.iter().filter(|r| r["path"] == path).cloned().collect()
}

/// Starts the bridge toward a fake with `fake_options`, sends initialize
/// and plays the browser up to the redirect; returns the response to
/// initialize and the fake.
fn sign_in_with(name: &str, fake_options: &[&str]) -> (Value, Fake, TempDir) {
    let dir = TempDir::new(name);
    let fake = Fake::start(dir.path(), fake_options);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    follow(&start_url(&mut driver, 1));
    let response = driver.response(&json!(INIT));
    (response, fake, dir)
}

/// Starts the bridge, sends initialize and returns its response without
/// playing the browser (for the sign-ins that stop before the browser).
fn initialize_without_browser(driver: &mut Driver) -> Value {
    send_initialize(driver);
    driver.response(&json!(INIT))
}
