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

mod harness;

use harness::bridge_error;
use harness::driver::{assert_no_panic, Driver, Ended, STEP};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const SIGN_IN_LINE: &str = "sign-in: open ";
const INIT: &str = "init";

const SIGN_IN_FAILED: &str =
    "The sign-in at the authorization server of the upstream server failed. See the Output channel of the server.";
const SIGN_IN_DENIED: &str = "The authorization server refused the access. Restart the server to sign in again.";
const SIGN_IN_ERROR: &str =
    "The authorization server sent an error for the sign-in. See the Output channel of the server.";
const SIGN_IN_START_REUSED: &str = "The start URL of the sign-in received a second request, thus the bridge stopped the sign-in. Another program on the host of the bridge possibly opened the URL. Restart the server to sign in again. When this occurs again on a host that other users share, use --no-browser.";
const ACCESS_REFUSED: &str = "The upstream server refused the access after the sign-in. The account possibly does not have the necessary permissions. See the Output channel of the server.";
const REAUTHORIZATION_REQUIRED: &str = "The upstream server needs a new sign-in, and the client did not open the URL of the sign-in. Restart the server to sign in again.";
const SANDBOX: &str = "The upstream server needs a sign-in, but the bridge runs in the sandbox of VS Code. The sandbox blocks the browser and the redirect port of the sign-in. Disable the sandbox for this server.";

/// The message of `sign_in_timeout` with its placeholders filled.
fn sign_in_timeout_message(seconds: u64, name: &str) -> String {
    format!("The sign-in did not complete in {seconds} s. The URL of the sign-in is in the Output channel of the server. To get more time, set --sign-in-timeout. During initialize, also set --discover-timeout. When the authorization server shows no sign-in page, it possibly does not know the stored client. Then run \"{name} logout <url>\" with the URL of this server, and restart the server.")
}

fn redirect_port_message(port: u16) -> String {
    format!("The bridge cannot listen on the redirect port {port}. Stop the program that uses the port, or set a different port with --redirect-port. Each server with a sign-in needs its own port.")
}

fn registration_unavailable_message(redirect_uri: &str) -> String {
    format!("The authorization server has no client registration that the bridge can use. Register a client with the redirect URI {redirect_uri} at the authorization server. Then give its client ID with --client-id and its issuer with --client-issuer.")
}

fn registration_failed_message(redirect_uri: &str) -> String {
    format!("The authorization server refused the registration of the client. Register a client with the redirect URI {redirect_uri} at the authorization server. Then give its client ID with --client-id and its issuer with --client-issuer.")
}

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
    child: Child,
    stdin: Option<ChildStdin>,
    port: u16,
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
        let record = dir.join("record.jsonl");
        let script = harness::repo_root().join("tests/fake/auth_upstream.py");
        let mut child = Command::new("python3")
            .arg(script)
            .arg("--record")
            .arg(&record)
            .args(["--mcp-path", path])
            .args(options)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs the fake");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx.recv_timeout(STEP).expect("the fake prints its port");
        let port = line.trim().strip_prefix("PORT ").and_then(|p| p.parse().ok());
        let port = port.unwrap_or_else(|| panic!("the first line of the fake is not PORT <n>: {line:?}"));
        Fake { stdin: child.stdin.take(), child, port, path: path.to_owned(), record }
    }

    fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
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

impl Drop for Fake {
    fn drop(&mut self) {
        // The fake exits when its stdin closes.
        self.stdin.take();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// --- The bridge ------------------------------------------------------------

/// The folder of the token store under an `XDG_CONFIG_HOME`.
fn store_dir(config: &Path) -> PathBuf {
    config.join("mcp-bridge").join("auth")
}

/// Starts the bridge toward `url` with `--no-browser`, the store under
/// `config`, and `env` (which can set `SANDBOX_RUNTIME`).
fn bridge(config: &Path, url: &str, options: &[&str], env: &[(&str, &str)]) -> Driver {
    let mut args: Vec<&str> = vec!["--no-browser"];
    args.extend_from_slice(options);
    args.push(url);
    let config = config.to_str().expect("a UTF-8 temporary path");
    let mut vars = vec![("XDG_CONFIG_HOME", config), ("SANDBOX_RUNTIME", "0")];
    vars.extend_from_slice(env);
    Driver::start_env(&args, &[], &vars)
}

fn send_initialize(driver: &mut Driver) {
    driver.request(
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

fn error(id: Value, error: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
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

/// Closes stdin and waits for the exit: the whole stderr.
#[track_caller]
fn end(driver: &mut Driver) -> Ended {
    driver.close_stdin();
    let ended = driver.wait_exit(STEP);
    assert_no_panic(&ended);
    assert!(ended.status.success(), "exit {:?}; stderr:\n{}", ended.status, ended.stderr);
    ended
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
    let deadline = Instant::now() + STEP;
    let status = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("logout did not exit in {STEP:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
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

// --- The tests -------------------------------------------------------------

/// The port of a loopback URL.
fn port_of(url: &str) -> u16 {
    let rest = url.strip_prefix("http://127.0.0.1:").unwrap_or_else(|| panic!("not a loopback URL: {url}"));
    rest.split(|c: char| !c.is_ascii_digit()).next().and_then(|p| p.parse().ok()).expect("a port")
}

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

/// Refresh (2026-07-28 "Refresh Tokens", "Sign-in during initialize"): an
/// access token that expires within a minute is refreshed before the next
/// request, which goes with the new token; each refresh presents the
/// refresh token of the last answer (rotation), and the store keeps the
/// last one, so that the next process refreshes with it.
#[test]
fn a_token_that_expires_within_a_minute_is_refreshed_and_the_rotated_refresh_token_is_kept() {
    let dir = TempDir::new("refresh");
    let fake = Fake::start(dir.path(), &["--expires-in", "30"]);
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
        let call = driver.call(json!(3), "tools/call", json!({"name": "whoami", "arguments": {}}));
        assert_eq!(call["result"]["content"][0]["text"], "scope mcp:read", "{call}");
        let records = fake.records();
        let first = records.iter().position(|r| r["path"] == "/token").expect("a token request");
        assert_eq!(records[first]["issued"]["refresh_token"], "SeCrEt-refresh-3", "{records:?}");
        let expected: Vec<Value> = [
            refresh("SeCrEt-refresh-3", "SeCrEt-access-4", "SeCrEt-refresh-5").to_vec(),
            vec![mcp("server/discover", Some("SeCrEt-access-4"), 200)],
            refresh("SeCrEt-refresh-5", "SeCrEt-access-6", "SeCrEt-refresh-7").to_vec(),
            vec![mcp("tools/list", Some("SeCrEt-access-6"), 200)],
            refresh("SeCrEt-refresh-7", "SeCrEt-access-8", "SeCrEt-refresh-9").to_vec(),
            vec![mcp("tools/call", Some("SeCrEt-access-8"), 200)],
        ]
        .concat();
        assert_eq!(records[first + 1..].to_vec(), expected);
    }
    let from = fake.records().len();
    let mut driver = bridge(dir.path(), &fake.url(), &[], &[]);
    send_initialize(&mut driver);
    assert_eq!(driver.response(&json!(INIT)), initialize_result());
    assert_eq!(
        since(&fake, from),
        [
            refresh("SeCrEt-refresh-9", "SeCrEt-access-10", "SeCrEt-refresh-11").to_vec(),
            vec![mcp("server/discover", Some("SeCrEt-access-10"), 200)],
        ]
        .concat(),
        "the next process refreshes with the last refresh token"
    );
    assert!(!driver.stderr_text().contains(SIGN_IN_LINE), "{}", driver.stderr_text());
}
