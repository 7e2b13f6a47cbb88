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

// The redirect listener under other local connections.
mod device;
mod gates;
mod listener;
mod remote_host;

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

// --- The tests -------------------------------------------------------------

/// "Sign-in during initialize (M4)" and the flow of `basic/authorization/`:
/// the initialize result comes after the sign-in, whose requests come in
/// the page's order: the request without a token and its 401, the
/// protected resource metadata of the challenge, the authorization server
/// metadata, a dynamic registration as a native client with its loopback
/// redirect URI, the authorization request with PKCE S256, state, resource
/// and the scope of the challenge, the token request with the verifier and
/// the resource, then the retry with the bearer token. A later tools/call
/// goes with that token.
#[test]
fn the_sign_in_during_initialize_follows_the_flow_of_the_page() {
    let dir = TempDir::new("flow");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    let start = start_url(&mut driver, 1);
    // Nothing answers initialize before the browser comes.
    assert_eq!(driver.take_new(Duration::from_millis(300)), Vec::<Value>::new());
    let end = follow(&start);
    assert_eq!(end.status, 200, "the last page of the sign-in: {end:?}");
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    driver.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        call,
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "scope mcp:read"}]}})
    );

    let (base, resource) = (fake.base(), fake.url());
    let redirect_uri = format!("http://127.0.0.1:{}/callback", port_of(&start));
    let (access, refresh) = ("SeCrEt-access-2", "SeCrEt-refresh-3");
    assert_eq!(
        fake.records(),
        vec![
            json!({"method": "POST", "path": "/mcp", "rpc": "server/discover", "bearer": false, "token": null, "status": 401}),
            json!({"method": "GET", "path": "/.well-known/oauth-protected-resource/mcp", "query": []}),
            json!({"method": "GET", "path": "/.well-known/oauth-authorization-server", "query": []}),
            json!({"method": "POST", "path": "/register",
                "keys": ["application_type", "client_name", "grant_types", "redirect_uris", "response_types", "token_endpoint_auth_method"],
                "application_type": "native", "redirect_uris": [redirect_uri]}),
            json!({"method": "GET", "path": "/authorize",
                "query": ["client_id", "code_challenge", "code_challenge_method", "redirect_uri", "resource", "response_type", "scope", "state"],
                "values": {"response_type": "code", "client_id": "client-1", "redirect_uri": redirect_uri,
                    "scope": "mcp:read", "resource": resource, "code_challenge_method": "S256"}}),
            json!({"method": "POST", "path": "/token",
                "keys": ["client_id", "code", "code_verifier", "grant_type", "redirect_uri", "resource"],
                "grant_type": "authorization_code", "resource": resource, "refresh_token": null, "status": 200,
                "issued": {"access_token": access, "refresh_token": refresh}}),
            json!({"method": "POST", "path": "/mcp", "rpc": "server/discover", "bearer": true, "token": access, "status": 200}),
            json!({"method": "POST", "path": "/mcp", "rpc": "tools/call", "bearer": true, "token": access, "status": 200}),
        ],
        "the requests of the sign-in at {base}"
    );
}

/// "Sign-in during initialize (M4)": a sign-in starts only when the store
/// has no access token valid for more than a minute. A second process
/// with the same store initializes with the stored token: no sign-in
/// line, no metadata, registration, authorization or token request.
#[test]
fn a_stored_token_is_used_at_the_next_start_without_a_sign_in() {
    let dir = TempDir::new("reuse");
    let fake = Fake::start(dir.path(), &[]);
    {
        let mut first = bridge(dir.path(), &fake.url(), &[], &[]);
        assert_eq!(initialize_signing_in(&mut first), initialize_result());
    }
    let from = fake.records().len();
    let mut second = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut second);
    assert_eq!(second.response(&json!(INIT)), initialize_result());
    let call = second.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
    assert!(!second.stderr_text().contains(SIGN_IN_LINE), "a sign-in line:\n{}", second.stderr_text());
    let token = Some("SeCrEt-access-2");
    assert_eq!(since(&fake, from), vec![mcp("server/discover", token, 200), mcp("tools/call", token, 200)]);
}

/// The token store (BRIEF, "The command"; the spec's rule that no URL path
/// or query, which can hold a key, goes anywhere but the request): one
/// file of mode 0600 in a folder of mode 0700, whose name says nothing of
/// the server, and whose text has neither the query nor the path of the
/// server's URL.
#[test]
fn the_store_is_a_private_file_without_the_host_path_or_query_of_the_server() {
    let dir = TempDir::new("store");
    let path = format!("/tenant-PaTh{}/mcp", std::process::id());
    let fake = Fake::start_at(dir.path(), &path, &[]);
    let key = format!("QuErY-{}", std::process::id());
    let url = format!("{}?key={key}", fake.url());
    let mut driver = bridge(dir.path(), &url, &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());

    use std::os::unix::fs::PermissionsExt;
    let store = store_dir(dir.path());
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777).unwrap_or(0);
    assert_eq!(mode(&store), 0o700, "the folder of the store");
    let names: Vec<String> = std::fs::read_dir(&store)
        .expect("the store is there")
        .map(|e| e.expect("an entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "one file per server: {names:?}");
    let name = &names[0];
    let digest = name.strip_suffix(".json").unwrap_or("");
    assert!(
        digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_hexdigit()) && !name.contains("127.0.0.1"),
        "the name of the file: {name}"
    );
    let file = store.join(name);
    assert_eq!(mode(&file), 0o600, "the file of the store");
    let text = std::fs::read_to_string(&file).expect("the file reads");
    let record: Value = serde_json::from_str(&text).expect("the store is JSON");
    assert_eq!(record["grants"][fake.base()]["access_token"], "SeCrEt-access-2", "{text}");
    assert!(!text.contains(&key) && !text.contains("key="), "the query is in the store:\n{text}");
    assert!(!text.contains("PaTh"), "the path of the server URL is in the store:\n{text}");
}

/// The exit code "is also 2 ... for a token store that does not open": with
/// the config folder a file, the bridge exits with 2 before it reads stdin
/// (the test keeps stdin open), names the problem, and `logout` exits 2 too.
#[test]
fn a_token_store_that_does_not_open_exits_2_before_reading_stdin() {
    let dir = TempDir::new("store-fails");
    let config = dir.path().join("not-a-folder");
    std::fs::write(&config, b"a file where the config folder should be").expect("a file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .arg("http://127.0.0.1:9/mcp")
        .env("XDG_CONFIG_HOME", &config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the bridge starts");
    let status = exit_of(&mut child, "the bridge with a token store that does not open");
    let mut err = String::new();
    let _ = child.stderr.take().map(|mut s| s.read_to_string(&mut err));
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.starts_with("mcp-bridge-vscode: cannot make the token store "), "{err}");
    let (status, err) = logout(&config, "http://127.0.0.1:9/mcp");
    assert_eq!(status.code(), Some(2), "{err}");
}

/// `logout <URL>` (BRIEF, "The command") forgets the tokens and the
/// registration of the server and exits with 0, also when there is
/// nothing to forget; the next start signs in again, with a new
/// registration.
#[test]
fn logout_forgets_the_server_and_the_next_start_signs_in_again() {
    let dir = TempDir::new("logout");
    let fake = Fake::start(dir.path(), &[]);
    let url = format!("{}?key=LoGoUt", fake.url());
    {
        let mut driver = bridge(dir.path(), &url, &[], &[]);
        assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    }
    let store = store_dir(dir.path());
    let files = || std::fs::read_dir(&store).map(|d| d.count()).unwrap_or(0);
    assert_eq!(files(), 1);

    let (status, stderr) = logout(dir.path(), &url);
    assert_eq!((status.code(), stderr.as_str()), (Some(0), "mcp-bridge-vscode: forgot the sign-in of the server\n"));
    assert_eq!(files(), 0, "the record of the server is gone");
    let (status, stderr) = logout(dir.path(), &url);
    assert_eq!((status.code(), stderr.as_str()), (Some(0), "mcp-bridge-vscode: the server had no sign-in\n"));

    let from = fake.records().len();
    let mut driver = bridge(dir.path(), &url, &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let again = since(&fake, from);
    assert_eq!(again[0], mcp("server/discover", None, 401), "{again:?}");
    assert_eq!((only(&again, "/register").len(), only(&again, "/authorize").len()), (1, 1), "{again:?}");
    assert_eq!(files(), 1);
}

/// Refresh (2026-07-28 "Refresh Tokens"): a token that is still valid is
/// not refreshed before every request, and one that expired while the
/// bridge was idle (a laptop that slept) is refreshed once before the next
/// request, which then goes with the new token, without a 401 or a
/// sign-in. Each refresh presents the refresh token of the last answer
/// (rotation), and the store keeps the last one, so that the next process
/// refreshes with it.
#[test]
fn an_expired_token_is_refreshed_once_before_the_next_request_and_the_rotated_refresh_token_is_kept() {
    let dir = TempDir::new("refresh");
    let fake = Fake::start(dir.path(), &["--expires-in", "2"]);
    let resource = fake.url();
    let metadata = json!({"method": "GET", "path": "/.well-known/oauth-authorization-server", "query": []});
    let token = |presented: &str, access: &str, rotated: &str| {
        json!({"method": "POST", "path": "/token", "keys": ["client_id", "grant_type", "refresh_token", "resource"],
            "grant_type": "refresh_token", "resource": resource, "refresh_token": presented, "status": 200,
            "issued": {"access_token": access, "refresh_token": rotated}})
    };
    // Each refresh reads the metadata of the issuer again, then asks.
    let refresh = |presented: &str, access: &str, rotated: &str| [metadata.clone(), token(presented, access, rotated)];
    {
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
        assert_eq!(initialize_signing_in(&mut driver), initialize_result());
        let list = driver.call(json!(2), "tools/list", json!({}));
        assert_eq!(list["result"]["tools"][0]["name"], "whoami", "{list}");
        let records = fake.records();
        let first = records.iter().position(|r| r["path"] == "/token").expect("a token request");
        assert_eq!(records[first]["issued"]["refresh_token"], "SeCrEt-refresh-3", "{records:?}");
        assert_eq!(
            records[first + 1..].to_vec(),
            [mcp("server/discover", Some("SeCrEt-access-2"), 200), mcp("tools/list", Some("SeCrEt-access-2"), 200)],
            "a valid token goes without a refresh"
        );
        // The bridge is idle until the token expired.
        std::thread::sleep(Duration::from_secs(3));
        let from = fake.records().len();
        let call = driver.call(json!(3), "tools/call", json!({"name": "whoami", "arguments": {}}));
        assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
        assert_eq!(
            since(&fake, from),
            [
                refresh("SeCrEt-refresh-3", "SeCrEt-access-4", "SeCrEt-refresh-5").to_vec(),
                vec![mcp("tools/call", Some("SeCrEt-access-4"), 200)],
            ]
            .concat()
        );
    }
    std::thread::sleep(Duration::from_secs(3));
    let from = fake.records().len();
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    assert_eq!(
        since(&fake, from),
        [
            refresh("SeCrEt-refresh-5", "SeCrEt-access-6", "SeCrEt-refresh-7").to_vec(),
            vec![mcp("server/discover", Some("SeCrEt-access-6"), 200)],
        ]
        .concat(),
        "the next process refreshes with the last refresh token"
    );
    assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
}

/// Error table, `sign_in_denied`: a redirect with error=access_denied
/// fails initialize with the message of the table and no detail; the
/// bridge asks for no token.
#[test]
fn a_denied_sign_in_fails_initialize_with_sign_in_denied() {
    let (response, fake, _dir) = sign_in_with("deny", &["--deny"]);
    assert_eq!(response, err(json!(INIT), bridge_error(-32603, &message("sign_in_denied"), "sign_in_denied", None)));
    assert_eq!(fake.requests_to("/token"), Vec::<Value>::new());
}

/// Error table, `sign_in_error`: a redirect with another error gives its
/// error code in data.detail.
#[test]
fn an_error_of_the_redirect_fails_initialize_with_sign_in_error_and_its_code() {
    let (response, fake, _dir) = sign_in_with("error", &["--error", "server_error"]);
    assert_eq!(
        response,
        err(json!(INIT), bridge_error(-32603, &message("sign_in_error"), "sign_in_error", Some("server_error")))
    );
    assert_eq!(fake.requests_to("/token"), Vec::<Value>::new());
}

/// "Authorization Response Validation" (RFC 9207): an iss that is not the
/// recorded issuer is rejected before the code goes to any token
/// endpoint: `sign_in_failed` with the detail of the check, and no token
/// request.
#[test]
fn a_wrong_iss_fails_the_sign_in_before_any_token_request() {
    let (response, fake, _dir) = sign_in_with("iss", &["--iss", "wrong"]);
    let detail = "redirect: the iss of the response is not the authorization server";
    assert_eq!(
        response,
        err(json!(INIT), bridge_error(-32603, &message("sign_in_failed"), "sign_in_failed", Some(detail)))
    );
    assert_eq!(fake.requests_to("/token"), Vec::<Value>::new());
    assert_eq!(fake.requests_to("/authorize").len(), 1);
}

/// Error table, `registration_unavailable`, and the paragraph after it: an
/// authorization server without any registration the bridge can use
/// fails initialize, and the message names the redirect URI with the port
/// filled in. No sign-in line: the browser has nothing to open.
#[test]
fn no_registration_fails_with_registration_unavailable_naming_the_redirect_uri() {
    let dir = TempDir::new("noreg");
    let fake = Fake::start(dir.path(), &["--no-registration"]);
    let port = free_port().to_string();
    let mut driver = bridge(dir.path(), &fake.url(), &["--redirect-port", &port], &[]);
    let message =
        message_with("registration_unavailable", &[("redirect_uri", &format!("http://127.0.0.1:{port}/callback"))]);
    assert_eq!(
        initialize_without_browser(&mut driver),
        err(json!(INIT), bridge_error(-32603, &message, "registration_unavailable", None))
    );
    assert_eq!((fake.requests_to("/register"), fake.requests_to("/authorize")), (vec![], vec![]));
    assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
}

/// Error table, `registration_failed`: a refused dynamic registration has
/// the HTTP status and the error code in data.detail, and the message
/// names the redirect URI that the registration asked for.
#[test]
fn a_refused_registration_fails_with_registration_failed_and_its_status_and_code() {
    let dir = TempDir::new("regfail");
    let fake = Fake::start(dir.path(), &["--registration-status", "400"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    let response = initialize_without_browser(&mut driver);
    let register = fake.requests_to("/register");
    assert_eq!(register.len(), 1, "{register:?}");
    let redirect_uri = register[0]["redirect_uris"][0].as_str().unwrap_or_default().to_owned();
    assert!(
        redirect_uri.starts_with("http://127.0.0.1:") && redirect_uri.ends_with("/callback"),
        "the redirect URI of the registration: {redirect_uri}"
    );
    let message = message_with("registration_failed", &[("redirect_uri", &redirect_uri)]);
    let detail = "HTTP status 400, invalid_redirect_uri";
    assert_eq!(response, err(json!(INIT), bridge_error(-32603, &message, "registration_failed", Some(detail))));
    assert_eq!(fake.requests_to("/authorize"), Vec::<Value>::new());
}

/// Error table, `redirect_port_unavailable`: a --redirect-port that
/// another program uses fails the sign-in with that port in the message,
/// never a walk to another port.
#[test]
fn a_redirect_port_in_use_fails_with_redirect_port_unavailable_naming_it() {
    let dir = TempDir::new("port");
    let fake = Fake::start(dir.path(), &[]);
    let taken = TcpListener::bind("127.0.0.1:0").expect("a listener");
    let port = taken.local_addr().expect("its address").port();
    let mut driver = bridge(dir.path(), &fake.url(), &["--redirect-port", &port.to_string()], &[]);
    assert_eq!(
        initialize_without_browser(&mut driver),
        err(
            json!(INIT),
            bridge_error(
                -32603,
                &message_with("redirect_port_unavailable", &[("port", &port.to_string())]),
                "redirect_port_unavailable",
                None
            )
        )
    );
    assert_eq!((fake.requests_to("/register"), fake.requests_to("/authorize")), (vec![], vec![]));
    assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
    drop(taken);
}

/// Error table, `sign_in_start_reused` (M6): the one-time start URL sends
/// the browser on once; a second GET before the redirect stops the
/// sign-in, with the message of the table and no detail.
#[test]
fn a_second_get_of_the_start_url_stops_the_sign_in() {
    let dir = TempDir::new("reused");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    let start = start_url(&mut driver, 1);
    let first = get(&start);
    let authorize = format!("{}/authorize?", fake.base());
    assert!(
        first.status == 302 && first.location.as_deref().is_some_and(|l| l.starts_with(&authorize)),
        "the first GET goes on to the authorization URL: {first:?}"
    );
    let second = get(&start);
    assert!(second.status >= 400 && second.location.is_none(), "the second GET goes nowhere: {second:?}");
    assert_eq!(
        driver.response(&json!(INIT)),
        err(json!(INIT), bridge_error(-32603, &message("sign_in_start_reused"), "sign_in_start_reused", None))
    );
    assert_eq!((fake.requests_to("/authorize"), fake.requests_to("/token")), (vec![], vec![]));
}

/// "Sign-in during initialize (M4)" and the error table, `sign_in_timeout`:
/// without a redirect in the time limit, initialize fails with the
/// seconds of --sign-in-timeout and the name of the executable in place
/// of the placeholders. The sign-in line was there.
#[test]
fn a_sign_in_without_a_redirect_stops_at_its_time_limit() {
    let dir = TempDir::new("timeout");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &["--sign-in-timeout", "1", "--discover-timeout", "1"], &[]);
    let started = Instant::now();
    send_initialize(&mut driver);
    start_url(&mut driver, 1);
    let response = driver.response(&json!(INIT));
    let elapsed = started.elapsed();
    let message = message_with("sign_in_timeout", &[("seconds", "1"), ("name", "mcp-bridge-vscode")]);
    assert_eq!(response, err(json!(INIT), bridge_error(-32603, &message, "sign_in_timeout", None)));
    assert!(elapsed >= Duration::from_secs(1), "the error came before the limit: {elapsed:?}");
    assert_eq!((fake.requests_to("/authorize"), fake.requests_to("/token")), (vec![], vec![]));
}

/// "Sign-in during initialize (M4)" and the error table, `sandbox`: with
/// SANDBOX_RUNTIME=1 a necessary sign-in fails initialize at once: no
/// sign-in line, nothing asked of the authorization server.
#[test]
fn in_the_sandbox_a_necessary_sign_in_fails_at_once() {
    let dir = TempDir::new("sandbox");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[("SANDBOX_RUNTIME", "1")]);
    assert_eq!(
        initialize_without_browser(&mut driver),
        err(json!(INIT), bridge_error(-32603, &message("sandbox"), "sandbox", None))
    );
    assert_eq!(fake.records(), vec![mcp("server/discover", None, 401)]);
    assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
}

/// "Step-Up Authorization Flow": an insufficient_scope 403 during
/// initialize (here of server/discover) signs in again with the union of
/// the scopes asked before and the challenge's; the registration is
/// reused, and the request is retried with the new token.
#[test]
fn a_step_up_during_initialize_signs_in_again_with_the_union_of_the_scopes() {
    let dir = TempDir::new("stepup-init");
    let fake = Fake::start(dir.path(), &["--step-up", "mcp:write", "--step-up-method", "server/discover"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    follow(&start_url(&mut driver, 1));
    let end = follow(&start_url(&mut driver, 2));
    assert_eq!(end.status, 200, "the last page of the second sign-in: {end:?}");
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    let scopes: Vec<Value> = fake.requests_to("/authorize").iter().map(|r| r["values"]["scope"].clone()).collect();
    assert_eq!(scopes, vec![json!("mcp:read"), json!("mcp:read mcp:write")]);
    assert_eq!(fake.requests_to("/register").len(), 1, "the registration is reused");
    let discovers: Vec<Value> = only(&fake.records(), "/mcp");
    assert_eq!(
        discovers,
        vec![
            mcp("server/discover", None, 401),
            mcp("server/discover", Some("SeCrEt-access-2"), 403),
            mcp("server/discover", Some("SeCrEt-access-5"), 200),
        ]
    );
    driver.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read mcp:write", "{call}");
}

/// Error table, `reauthorization_required`: after initialize the bridge
/// does not open a sign-in by itself; an insufficient_scope 403 of a
/// tools/call, from a client that declared no URL elicitation, fails that
/// call with the detail no_consent, and no new sign-in starts.
#[test]
fn a_step_up_after_initialize_without_consent_fails_with_reauthorization_required() {
    let dir = TempDir::new("stepup-later");
    let fake = Fake::start(dir.path(), &["--step-up", "mcp:write"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let from = fake.records().len();
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        call,
        err(
            json!(2),
            bridge_error(-32603, &message("reauthorization_required"), "reauthorization_required", Some("no_consent"))
        )
    );
    assert_eq!(since(&fake, from), vec![mcp("tools/call", Some("SeCrEt-access-2"), 403)]);
    assert_eq!(driver.stderr_text().matches(SIGN_IN_LINE).count(), 1, "{}", driver.stderr_text());
}

/// Initializes as a client that declares `elicitation.url` (through the
/// first sign-in), then calls the tool that needs a step-up; returns the
/// question of the later sign-in.
#[track_caller]
fn step_up_question(driver: &mut Driver) -> Value {
    driver.send_request(
        json!(INIT),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"url": {}}}, "clientInfo": {"name": "auth-test", "version": "1.0"}}),
    );
    assert_eq!(follow(&start_url(driver, 1)).status, 200);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    driver.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    driver.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "whoami", "arguments": {}}}),
    );
    let question = driver.recv();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    question
}

/// The `notifications/initialized` row ("it also lets a later sign-in ask
/// the client with a URL elicitation, when the client declared
/// elicitation.url") and the step-up of "Scope Challenge Handling": after
/// initialize, an `insufficient_scope` 403 asks the client to open the
/// one-time start URL; the user accepts, the sign-in asks for the union of
/// the scopes, the call is retried once and answered, and the URL step is
/// completed before the response.
#[test]
fn a_step_up_after_initialize_asks_the_client_with_a_url_elicitation() {
    let dir = TempDir::new("stepup-elicit");
    let fake = Fake::start(dir.path(), &["--step-up", "mcp:write"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    let question = step_up_question(&mut driver);
    let url = question["params"]["url"].as_str().unwrap_or("").to_owned();
    assert!(url.starts_with("http://127.0.0.1:") && url.contains("/start/"), "{question}");
    assert_eq!(
        question["params"],
        json!({"mode": "url", "message": "The upstream server needs a new sign-in. Open the URL to sign in, then return here.", "url": url, "elicitationId": "elicitation-1"})
    );
    assert_eq!(driver.stderr_text().matches(SIGN_IN_LINE).count(), 1, "no second sign-in line: the client opens it");
    driver.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept"}}));
    assert_eq!(follow(&url).status, 200);
    assert_eq!(
        driver.recv(),
        json!({"jsonrpc": "2.0", "method": "notifications/elicitation/complete", "params": {"elicitationId": "elicitation-1"}})
    );
    assert_eq!(
        driver.recv(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "scope mcp:read mcp:write"}]}})
    );
    let scopes: Vec<Value> = fake.requests_to("/authorize").iter().map(|r| r["values"]["scope"].clone()).collect();
    assert_eq!(scopes, vec![json!("mcp:read"), json!("mcp:read mcp:write")]);
}

/// `reauthorization_required` with `declined`, then `cooldown`: a user who
/// declines the URL of a later sign-in is not asked again at once.
#[test]
fn a_declined_later_sign_in_gives_declined_and_then_cooldown() {
    let dir = TempDir::new("stepup-decline");
    let fake = Fake::start(dir.path(), &["--step-up", "mcp:write"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    let question = step_up_question(&mut driver);
    driver.send(&json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "decline"}}));
    assert_eq!(
        driver.response(&json!(2)),
        err(
            json!(2),
            bridge_error(-32603, &message("reauthorization_required"), "reauthorization_required", Some("declined"))
        )
    );
    let again = driver.call(json!(3), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(
        again,
        err(
            json!(3),
            bridge_error(-32603, &message("reauthorization_required"), "reauthorization_required", Some("cooldown"))
        )
    );
    assert_eq!(fake.requests_to("/authorize").len(), 1, "no sign-in after the decline");
}

/// Error table, `access_refused`: a server that refuses the token of a
/// fresh sign-in again fails the request with the HTTP status in
/// data.detail, after one sign-in only.
#[test]
fn a_refusal_after_the_sign_in_fails_with_access_refused_and_the_status() {
    let (response, fake, _dir) = sign_in_with("refuse", &["--always-refuse"]);
    assert_eq!(
        response,
        err(json!(INIT), bridge_error(-32603, &message("access_refused"), "access_refused", Some("HTTP status 401")))
    );
    assert_eq!(fake.requests_to("/authorize").len(), 1);
    assert_eq!(
        fake.requests_to("/mcp"),
        vec![mcp("server/discover", None, 401), mcp("server/discover", Some("SeCrEt-access-2"), 401)]
    );
}

/// The paragraph after the error table and the rule of the log ("never a
/// secret"): no token, code, client secret or query of the server URL
/// reaches stdout or stderr, over a sign-in, a tools/list and a tools/call
/// at the debug level. The fake's records show that each of them was
/// used.
#[test]
fn no_token_code_client_secret_or_query_reaches_stdout_or_stderr() {
    let dir = TempDir::new("secrets");
    let secret = format!("SeCrEt{}x", std::process::id());
    let key = format!("KeY{}x", std::process::id());
    let fake = Fake::start(dir.path(), &["--secret", &secret, "--client-secret"]);
    let url = format!("{}?key={key}", fake.url());
    let mut driver = bridge(dir.path(), &url, &[], &[("MCP_BRIDGE_LOG", "debug")]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let list = driver.call(json!(2), "tools/list", json!({}));
    assert_eq!(list["result"]["tools"][0]["name"], "whoami", "{list}");
    let call = driver.call(json!(3), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
    let used = fake.requests_to("/mcp");
    assert!(
        used.len() == 4 && used[1..].iter().all(|r| r["token"].as_str().is_some_and(|t| t.starts_with(&secret))),
        "the tokens of the fake went to the server: {used:?}"
    );
    // Every line of the run so far: the bridge does not exit at the end of
    // its input yet (see the last test), so the run is read here, after
    // the last response, when each log line of the work is written.
    let stderr = driver.stderr_text();
    for line in driver.seen.iter().map(Value::to_string) {
        assert!(!line.contains(&secret) && !line.contains(&key), "a secret on stdout: {line}");
    }
    for line in stderr.lines() {
        assert!(!line.contains(&secret) && !line.contains(&key), "a secret on stderr: {line}");
    }
    assert!(stderr.contains(SIGN_IN_LINE), "the log was captured:\n{stderr}");
}

/// "The exit code of mcp-bridge-vscode is 0 at the end of stdin", for an
/// upstream server at a URL after a sign-in too.
#[test]
fn the_bridge_exits_with_0_at_the_end_of_stdin_after_a_sign_in() {
    let dir = TempDir::new("exit");
    let fake = Fake::start(dir.path(), &[]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    driver.close_stdin();
    let ended = driver.wait_exit(STEP);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(0), "stderr:\n{}", ended.stderr);
}

// --- In real life: slow, hostile and short-lived ---------------------------

/// Error table, `sign_in_failed` ("the step and the HTTP status of a failed
/// token request"): a token request refused with an OAuth error names the
/// step, the error code and the HTTP status.
#[test]
fn a_refused_token_request_names_its_step_code_and_http_status() {
    let (response, fake, _dir) = sign_in_with("token-error", &["--token-error", "invalid_grant"]);
    let detail = "token request: invalid_grant, HTTP status 400";
    assert_eq!(
        response,
        err(json!(INIT), bridge_error(-32603, &message("sign_in_failed"), "sign_in_failed", Some(detail)))
    );
    assert_eq!(fake.requests_to("/token").len(), 1);
}

/// Error table, `sign_in_invalid_url`: "The authorization URL failed a
/// check of the bridge". An authorization endpoint that is neither https
/// nor on a loopback host is never opened: no sign-in line, no request to
/// it, and the error has the message of the table without a detail.
#[test]
fn an_authorization_endpoint_that_fails_the_check_gives_sign_in_invalid_url() {
    for endpoint in ["file:///etc/passwd", "http://auth.example.com/authorize"] {
        let dir = TempDir::new("bad-authorize");
        let fake = Fake::start(dir.path(), &["--authorization-endpoint", endpoint]);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
        assert_eq!(
            initialize_without_browser(&mut driver),
            err(json!(INIT), bridge_error(-32603, &message("sign_in_invalid_url"), "sign_in_invalid_url", None)),
            "{endpoint}"
        );
        assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
        assert_eq!(fake.requests_to("/register"), Vec::<Value>::new(), "{endpoint}");
    }
}

/// "Nothing leaks from the URL": the error text of a refused registration
/// reaches `data.detail` through the gate of outside text: its control
/// characters (a terminal escape, line breaks) written as escapes, and cut
/// after 200 of its characters, marked with `…`.
#[test]
fn a_hostile_registration_error_is_cleaned_and_cut_in_the_detail() {
    let dir = TempDir::new("hostile-registration");
    let hostile = format!("\u{1b}[31mbad\r\nline{}", "x".repeat(500));
    let fake = Fake::start(dir.path(), &["--registration-error", &hostile]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    let response = initialize_without_browser(&mut driver);
    let register = fake.requests_to("/register");
    let redirect_uri = register[0]["redirect_uris"][0].as_str().unwrap_or_default().to_owned();
    // 14 characters before the x's: ESC [ 3 1 m b a d CR LF l i n e.
    let detail = format!("HTTP status 400, \\x1b[31mbad\\r\\nline{}…", "x".repeat(186));
    let message = message_with("registration_failed", &[("redirect_uri", &redirect_uri)]);
    assert_eq!(response, err(json!(INIT), bridge_error(-32603, &message, "registration_failed", Some(&detail))));
    assert!(!driver.stderr_text().contains('\u{1b}'), "a terminal escape in the log");
}

/// "Nothing leaks from the URL": the user name and password of the server
/// URL reach neither the authorization server (the `resource` of the
/// authorization URL, which the browser keeps, and of the token request)
/// nor the log nor the store; the server gets them only as a Basic header
/// while no bearer token is in use, never beside one.
#[test]
fn the_user_info_of_the_server_url_never_reaches_the_authorization_server_the_log_or_the_store() {
    let dir = TempDir::new("userinfo");
    let fake = Fake::start(dir.path(), &[]);
    let url = fake.url().replacen("http://", "http://mcp-user:Pa55w0rd@", 1);
    let mut driver = bridge(dir.path(), &url, &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let call = driver.call(json!(2), "tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
    let authorize = fake.requests_to("/authorize");
    assert_eq!(authorize[0]["values"]["resource"], fake.url(), "{authorize:?}");
    let tokens = fake.requests_to("/token");
    assert_eq!(tokens[0]["resource"], fake.url(), "{tokens:?}");
    let mcp_requests = fake.requests_to("/mcp");
    let basic: Vec<&Value> = mcp_requests.iter().filter(|r| r.get("basic").is_some()).collect();
    assert_eq!(basic.len(), 1, "only the first request, without a token, is Basic: {mcp_requests:?}");
    assert_eq!(basic[0]["bearer"], false, "{mcp_requests:?}");
    assert!(
        mcp_requests.iter().all(|r| r.get("authorizations").is_none()),
        "two Authorization headers: {mcp_requests:?}"
    );
    for (what, text) in [("the log", driver.stderr_text()), ("the store", store_text(dir.path()))] {
        assert!(!text.contains("Pa55w0rd") && !text.contains("mcp-user"), "the user info in {what}: {text}");
    }
}

/// The text of every file of the token store.
fn store_text(config: &Path) -> String {
    let entries = std::fs::read_dir(store_dir(config)).map(|d| d.filter_map(Result::ok).collect::<Vec<_>>());
    entries.unwrap_or_default().iter().filter_map(|e| std::fs::read_to_string(e.path()).ok()).collect()
}

/// "Bounded OAuth": a metadata, registration or token response is read up
/// to 128 KiB, so an endless body ends the sign-in at once with
/// `sign_in_failed` and the step, and the bridge's memory stays near its
/// idle figure (its peak RSS at most twice the peak before the sign-in).
#[test]
fn endless_oauth_bodies_end_the_sign_in_with_bounded_memory() {
    for (route, detail, browser) in [
        ("resource-metadata", "discovery: the response is larger than 128 KiB", false),
        ("server-metadata", "discovery: the response is larger than 128 KiB", false),
        ("register", "registration: the response is larger than 128 KiB", false),
        ("token", "token request: the response is larger than 128 KiB", true),
    ] {
        let dir = TempDir::new("endless");
        let fake = Fake::start(dir.path(), &["--huge", route]);
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
        driver.assert_alive_amid("p0");
        let idle = peak_rss_kib(driver.pid());
        send_initialize(&mut driver);
        if browser {
            follow(&start_url(&mut driver, 1));
        }
        let response = driver.response(&json!(INIT));
        assert_eq!(
            response,
            err(json!(INIT), bridge_error(-32603, &message("sign_in_failed"), "sign_in_failed", Some(detail))),
            "{route}"
        );
        let peak = peak_rss_kib(driver.pid());
        eprintln!("{route}: peak RSS {peak} KiB, before the sign-in {idle} KiB");
        assert!(idle > 0 && peak <= 2 * idle, "{route}: peak RSS {peak} KiB, before the sign-in {idle} KiB");
    }
}

/// "A refresh never blocks a request that still holds a valid access
/// token; a hung refresh ends within its own limit": with the token
/// endpoint hanging, four requests sent while the token is still valid
/// (but due for a refresh) are answered with it at once, before the
/// refresh's token request gives up after its limit (2 s here) and the
/// refresh ends with that request's error.
#[test]
fn a_hanging_refresh_blocks_no_request_with_a_valid_token_and_ends_within_its_limit() {
    let dir = TempDir::new("hang-refresh");
    let fake = Fake::start(dir.path(), &["--expires-in", "8", "--hang-refresh"]);
    let mut driver = bridge(dir.path(), &fake.url(), &["--test-oauth-timeout-ms", "2000"], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    // A quarter of the token's life is left after 6 s: a refresh is due.
    std::thread::sleep(Duration::from_millis(6500));
    let ids: Vec<Value> = (1..=4).map(|n| json!(n)).collect();
    let sent = Instant::now();
    for id in &ids {
        driver.send_request(id.clone(), "tools/call", json!({"name": "whoami", "arguments": {}}));
    }
    for id in &ids {
        let response = driver.response(id);
        assert_eq!(response["result"]["content"][0]["text"], "scope mcp:read", "{response}");
    }
    const GAVE_UP: &str = "the access token could not be refreshed cause=\"sign_in_failed\"";
    assert!(!driver.stderr_text().contains(GAVE_UP), "the requests waited for the refresh");
    driver.wait_stderr(GAVE_UP, 1);
    // The refresh's bound is twice the request limit; a second of room.
    assert!(sent.elapsed() < Duration::from_secs(5), "the refresh ended after {:?}", sent.elapsed());
    let stderr = driver.stderr_text();
    assert!(stderr.contains("detail=\"refresh request: no response in 2 s\""), "{stderr}");
    // The refresh runs beside the requests: its token request may reach
    // the server after their answers, but before the limit ends it.
    let held = fake.requests_to("/token").into_iter().filter(|r| r.get("held").is_some()).count();
    assert_eq!(held, 1, "one refresh for four requests");
}

/// "Short-lived tokens are refreshed when a fraction of their life is
/// left, not before every request": over 300 calls in 10 s with tokens of
/// 12 s, one refresh (when a quarter of the first token's life is left,
/// after 9 s; the second token would be due after 17 s), and every call is
/// answered with a valid token, never a 401.
#[test]
fn a_short_lived_token_is_refreshed_once_per_life_over_300_calls() {
    let dir = TempDir::new("short-lived");
    let fake = Fake::start(dir.path(), &["--expires-in", "12"]);
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    assert_eq!(initialize_signing_in(&mut driver), initialize_result());
    let start = Instant::now();
    let mut calls = 0;
    while calls < 300 || start.elapsed() < Duration::from_secs(10) {
        calls += 1;
        let response = driver.call(json!(calls), "tools/call", json!({"name": "whoami", "arguments": {}}));
        assert_eq!(response["result"]["content"][0]["text"], "scope mcp:read", "{response}");
        std::thread::sleep(Duration::from_millis(10));
    }
    let refreshes = fake.requests_to("/token").iter().filter(|r| r["grant_type"] == "refresh_token").count();
    eprintln!("{calls} calls in {:?}: {refreshes} refresh with 12 s tokens", start.elapsed());
    assert_eq!(refreshes, 1, "{calls} calls in {:?}", start.elapsed());
    let refused = fake.requests_to("/mcp").iter().filter(|r| r["status"] == 401).count();
    assert_eq!(refused, 1, "only the first request of the sign-in is refused");
}

/// The token store with the OS credential store, for real (README, "Where
/// it is verified"): with a Secret Service (scripts/test runs the tests in
/// one; without it this test fails), the secrets of a sign-in leave the
/// record file for it, the next start uses the stored token without a
/// sign-in, and `logout` leaves nothing in the folder (that it removes the
/// entry too is checked in `store::secret_service`).
#[test]
fn with_a_secret_service_the_tokens_leave_the_file_and_serve_the_next_start() {
    let dir = TempDir::new("keyring");
    let fake = Fake::start(dir.path(), &[]);
    let keyring = [("MCP_BRIDGE_TOKEN_STORE", "keyring")];
    {
        let mut first = bridge(dir.path(), &fake.url(), &[], &keyring);
        assert_eq!(initialize_signing_in(&mut first), initialize_result());
    }
    let store = store_dir(dir.path());
    let files: Vec<PathBuf> =
        std::fs::read_dir(&store).expect("the store").map(|e| e.expect("an entry").path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(&files[0]).expect("the record reads");
    assert!(!text.contains("SeCrEt"), "with a Secret Service a secret is in the file:\n{text}");
    let record: Value = serde_json::from_str(&text).expect("the record is JSON");
    assert_eq!(
        (record["revision"].as_u64(), record["grants"][fake.base()]["registration"].as_str()),
        (Some(1), Some("dynamic"))
    );

    let from = fake.records().len();
    let mut second = bridge(dir.path(), &fake.url(), &[], &keyring);
    send_initialize(&mut second);
    assert_eq!(second.response(&json!(INIT)), initialize_result());
    assert!(!second.stderr_text().contains(SIGN_IN_LINE), "a sign-in line:\n{}", second.stderr_text());
    assert_eq!(since(&fake, from), vec![mcp("server/discover", Some("SeCrEt-access-2"), 200)]);
    drop(second);

    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"))
        .args(["logout", &fake.url()])
        .env("XDG_CONFIG_HOME", dir.path())
        .env("MCP_BRIDGE_TOKEN_STORE", "keyring")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("logout starts");
    assert_eq!(exit_of(&mut child, "logout").code(), Some(0));
    assert_eq!(std::fs::read_dir(&store).map(|d| d.count()).ok(), Some(0), "logout leaves nothing of the server");
}

/// "One token store, many bridges" (two or three VS Code windows on one
/// server): over 20 s of tokens that live 2 s at most, with calls to every
/// bridge at once, only one bridge refreshes each grant (the others take its tokens
/// from the store under the record's lock), so no spent refresh token is
/// ever sent (the server rotates them and refuses a reused one), no new
/// sign-in starts, no call is refused, every call is answered once, and
/// the record in the store is always a whole JSON document.
fn bridges_share_one_grant(count: usize) {
    let dir = TempDir::new(&format!("bridges-{count}"));
    let fake = Fake::start(dir.path(), &["--expires-in", "2"]);
    let mut first = bridge(dir.path(), &fake.url(), &[], &[]);
    assert_eq!(initialize_signing_in(&mut first), initialize_result());
    let mut drivers = vec![first];
    for _ in 1..count {
        let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
        send_initialize(&mut driver);
        assert_eq!(driver.response(&json!(INIT)), initialize_result());
        drivers.push(driver);
    }
    let start = Instant::now();
    let mut round = 0;
    while start.elapsed() < Duration::from_secs(20) {
        round += 1;
        for driver in &mut drivers {
            driver.send_request(json!(round), "tools/call", json!({"name": "whoami", "arguments": {}}));
        }
        for driver in &mut drivers {
            let response = driver.response(&json!(round));
            assert_eq!(response["result"]["content"][0]["text"], "scope mcp:read", "round {round}: {response}");
        }
        let records = std::fs::read_dir(store_dir(dir.path())).map(|d| d.filter_map(Result::ok).collect::<Vec<_>>());
        let records: Vec<PathBuf> = records
            .unwrap_or_default()
            .iter()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        assert_eq!(records.len(), 1, "round {round}: one record: {records:?}");
        let text = std::fs::read_to_string(&records[0]).unwrap_or_default();
        assert!(serde_json::from_str::<Value>(&text).is_ok(), "round {round}: the record is not whole: {text}");
        std::thread::sleep(Duration::from_millis(50));
    }
    let tokens = fake.requests_to("/token");
    let refreshes: Vec<&Value> = tokens.iter().filter(|r| r["grant_type"] == "refresh_token").collect();
    eprintln!("{count} bridges, {round} rounds in {:?}: {} refreshes", start.elapsed(), refreshes.len());
    assert!(refreshes.len() >= 9, "the token lived 2 s at most: {} refreshes", refreshes.len());
    // One chain: each refresh presents the refresh token that the one
    // before it got (the sign-in's for the first), so each life of a token
    // ended with one refresh, never two in parallel, never a spent token.
    let mut issued = tokens[0]["issued"]["refresh_token"].clone();
    for refresh in &refreshes {
        assert_eq!(refresh["status"], 200, "{refresh}");
        assert_eq!(refresh["refresh_token"], issued, "a refresh that is not the next of the chain: {refreshes:#?}");
        issued = refresh["issued"]["refresh_token"].clone();
    }
    assert_eq!(fake.requests_to("/authorize").len(), 1, "one sign-in in all");
    let refused = fake.requests_to("/mcp").iter().filter(|r| r["status"] == 401).count();
    assert_eq!(refused, 1, "only the first request of the sign-in is refused");
}

#[test]
fn two_bridges_on_one_store_refresh_each_grant_once() {
    bridges_share_one_grant(2);
}

#[test]
fn three_bridges_on_one_store_refresh_each_grant_once() {
    bridges_share_one_grant(3);
}
