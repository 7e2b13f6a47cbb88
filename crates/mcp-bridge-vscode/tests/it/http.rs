//! The Streamable HTTP upstream (`mcp-bridge-vscode [OPTIONS] <URL>`) against
//! the scripted upstream tests/fake/http_upstream.py, with the real binary.
//!
//! The rules are those of ../shared/spec/bridge-translation-rules.txt (the
//! behaviour spec: "Icons of a remote upstream server (M4)", "Forwarded
//! requests (M1)" with `--max-response-bytes`, "New streams after a loss",
//! "The order of events and responses", the "Error table" and the paragraphs
//! after it) and of ../shared/spec/2026-07-28/basic/transports/streamable-http.md
//! (the page). The fake records every request it gets with its headers
//! (`--record`), so each test compares what the bridge sent, and the exact
//! JSON it wrote to the client. Every wait is bounded: the driver waits 20 s
//! a step, the record 10 s.
//!
//! The URL of every test has a path and a query that stand for keys
//! (`PATH_SECRET`, `QUERY_SECRET`): no message, detail or log line may hold
//! them.

use crate::support::driver::*;
use crate::support::process::{run_bounded, Input};
use crate::support::served::Served;
use crate::support::tls::{pki, Pki};
use crate::support::{assert_json, bridge_error, message};
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The path and the query of every URL: they stand for keys.
const PATH_SECRET: &str = "path-secret-7f3a";
const QUERY_SECRET: &str = "query-secret-91b2";
/// The value of the `--header-env` variable of the tests.
const HEADER_SECRET: &str = "header-secret-c0ffee";

/// The longest wait for the record of the fake.
const RECORD_WAIT: Duration = Duration::from_secs(10);
/// The longest a bridge may take to exit once it should.
const EXIT: Duration = Duration::from_secs(10);

/// The listen timings of the tests: back-off 20 ms, at most 80 ms, stable
/// after 10 s, acknowledgment within 5 s.
const LISTEN_MS: &str = "20,80,10000,5000";

// --- The fake and the bridge --------------------------------------------------------

/// A fresh folder for the files of one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-bridge-http-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// tests/fake/http_upstream.py, with its record.
struct Fake {
    served: Served,
    record: PathBuf,
    scheme: &'static str,
}

impl Fake {
    fn start(name: &str, options: &[&str]) -> Fake {
        Fake::start_in(&folder(name), options)
    }

    fn start_in(dir: &Path, options: &[&str]) -> Fake {
        let record = dir.join("record.jsonl");
        let mut cmd = Command::new("python3");
        cmd.arg(crate::support::repo_root().join("tests/fake/http_upstream.py"))
            .arg("--record")
            .arg(&record)
            .args(options);
        let scheme = if options.contains(&"--tls-cert") { "https" } else { "http" };
        Fake { served: Served::start(cmd, true), record, scheme }
    }

    /// The URL of the MCP endpoint, with the secret path and query.
    fn url(&self) -> String {
        self.url_at("127.0.0.1")
    }

    fn url_at(&self, host: &str) -> String {
        format!("{}://{host}:{}/mcp/{PATH_SECRET}?key={QUERY_SECRET}", self.scheme, self.served.port)
    }

    /// Every line of the record.
    fn entries(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.record).unwrap_or_default();
        text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
    }

    /// The POSTs that reached the MCP endpoint, in order.
    fn posts(&self) -> Vec<Value> {
        self.entries().into_iter().filter(|e| e["listener"] == "main" && e["method"] == "POST").collect()
    }

    /// Every request that reached the other origin.
    fn other_requests(&self) -> Vec<Value> {
        self.entries().into_iter().filter(|e| e["listener"] == "other").collect()
    }

    /// The POSTs whose JSON-RPC method is `method`.
    fn posts_of(&self, method: &str) -> Vec<Value> {
        self.posts().into_iter().filter(|p| p["body"]["method"] == method).collect()
    }

    /// Waits until the record satisfies `done`, at most [`RECORD_WAIT`].
    #[track_caller]
    fn wait(&self, what: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let entries = self.entries();
            if done(&entries) {
                return entries;
            }
            assert!(start.elapsed() < RECORD_WAIT, "{what}: not in the record in {RECORD_WAIT:?}:\n{entries:#?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The POST of the call of `tool` (the last one).
    #[track_caller]
    fn call_of(&self, tool: &str) -> Value {
        let calls: Vec<Value> =
            self.posts_of("tools/call").into_iter().filter(|p| p["body"]["params"]["name"] == tool).collect();
        calls.last().cloned().unwrap_or_else(|| panic!("no POST of tools/call {tool}: {:#?}", self.posts()))
    }

    /// Waits for the record of the fake's side of a closed stream of `id`.
    #[track_caller]
    fn wait_disconnect(&self, id: &Value) {
        self.wait(&format!("the disconnect of the request {id}"), |entries| {
            entries.iter().any(|e| e["event"] == "disconnect" && &e["id"] == id)
        });
    }

    /// The POST of `notifications/cancelled` for `id`, waiting for it at most
    /// [`RECORD_WAIT`]; `None` when none came.
    fn find_cancel(&self, id: &Value) -> Option<Value> {
        let start = Instant::now();
        loop {
            let cancel = self
                .posts()
                .into_iter()
                .find(|p| p["body"]["method"] == "notifications/cancelled" && &p["body"]["params"]["requestId"] == id);
            if cancel.is_some() || start.elapsed() > RECORD_WAIT {
                return cancel;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the POST of `notifications/cancelled` for `id` and returns it.
    #[track_caller]
    fn wait_cancel(&self, id: &Value) -> Value {
        let is_cancel =
            |e: &Value| e["body"]["method"] == "notifications/cancelled" && &e["body"]["params"]["requestId"] == id;
        let entries = self.wait(&format!("notifications/cancelled of {id}"), |entries| entries.iter().any(is_cancel));
        entries.into_iter().find(is_cancel).unwrap_or_default()
    }
}

/// The environment of every bridge of these tests: a token store of its own
/// (a fresh `XDG_CONFIG_HOME`, never the user's) and no VS Code sandbox.
fn isolated(cmd: &mut Command) -> &mut Command {
    let config = std::env::temp_dir().join(format!("mcp-bridge-http-{}-config", std::process::id()));
    std::fs::create_dir_all(&config).expect("a config folder");
    // A proxy of the machine would stand between the bridge and the fakes;
    // the proxy test sets its own.
    for var in
        ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy"]
    {
        cmd.env_remove(var);
    }
    cmd.env("XDG_CONFIG_HOME", config).env("SANDBOX_RUNTIME", "0")
}

/// Starts the bridge for `url` with `options` and `env`.
fn bridge_env(url: &str, options: &[&str], env: &[(&str, &str)]) -> Driver {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    isolated(&mut cmd).args(options).arg(url).envs(env.iter().copied());
    Driver::spawn(cmd)
}

fn bridge(url: &str, options: &[&str]) -> Driver {
    bridge_env(url, options, &[])
}

/// A fake with `fake_options`, and an initialized bridge in front of it.
fn session(name: &str, fake_options: &[&str], options: &[&str]) -> (Fake, Driver) {
    let fake = Fake::start(name, fake_options);
    let mut driver = bridge(&fake.url(), options);
    driver.initialize();
    (fake, driver)
}

/// Closes the input and checks the end: exit 0, no panic.
#[track_caller]
fn finish(mut driver: Driver) -> Ended {
    driver.close_stdin();
    let ended = driver.wait_exit(EXIT);
    assert_no_panic(&ended);
    assert_eq!(ended.status.code(), Some(0), "the exit at the end of stdin; stderr:\n{}", ended.stderr);
    ended
}

fn call(id: Value, tool: &str, arguments: Value) -> Value {
    call_tool(id, tool, arguments)
}

fn text(id: Value, text: &str) -> Value {
    ok(id, json!({"content": [{"type": "text", "text": text}]}))
}

fn transport_failed(detail: &str) -> Value {
    bridge_error(-32603, &message("transport_failed"), "transport_failed", Some(detail))
}

fn invalid_response(detail: &str) -> Value {
    bridge_error(-32603, &message("invalid_response"), "invalid_response", Some(detail))
}

/// The JSON-RPC error that the fake's `jsonrpc` bodies hold.
fn refused(status: u16) -> Value {
    json!({"code": -32001, "message": format!("refused with HTTP status {status}"), "data": {"status": status}})
}

/// Sends `message` and asserts the whole response to its id.
#[track_caller]
fn exchange(driver: &mut Driver, message: Value, expected: Value) {
    let id = message["id"].clone();
    driver.send(&message);
    let response = driver.response(&id);
    assert_json(&format!("the response to {message}"), &response, &expected);
}

/// The headers of the page ("Request Metadata", "Sending Messages") of a
/// recorded POST: lower-case names, in a JSON object. A header sent twice
/// fails the test.
fn page_headers(post: &Value) -> Value {
    let mut out = Map::new();
    for pair in post["headers"].as_array().into_iter().flatten() {
        let name = pair[0].as_str().unwrap_or_default().to_ascii_lowercase();
        let of_the_page = ["content-type", "accept", "mcp-protocol-version", "mcp-method", "mcp-name"];
        if of_the_page.contains(&name.as_str()) || name.starts_with("mcp-param-") {
            assert!(out.insert(name.clone(), pair[1].clone()).is_none(), "the header {name} twice: {post:#}");
        }
    }
    Value::Object(out)
}

/// The headers of the page for `method`, with `Mcp-Name` when given.
fn expected_headers(method: &str, name: Option<&str>) -> Value {
    let mut headers = json!({
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    });
    if let Some(name) = name {
        headers["mcp-name"] = json!(name);
    }
    headers
}

/// The value of the header `name` (any case) of a recorded request, if any.
fn header(request: &Value, name: &str) -> Option<String> {
    request["headers"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|pair| pair[0].as_str().is_some_and(|n| n.eq_ignore_ascii_case(name)))
        .and_then(|pair| pair[1].as_str().map(str::to_owned))
}

/// Asserts that `text` holds none of the secrets of the tests.
#[track_caller]
fn assert_no_secret(what: &str, text: &str) {
    for secret in [PATH_SECRET, QUERY_SECRET, HEADER_SECRET] {
        assert!(!text.contains(secret), "{what} holds the secret {secret:?}:\n{text}");
    }
}

// --- initialize and the headers of each message ----------------------------------------

/// "The initialize result" from the discover result of an upstream at a URL;
/// "Sending Messages": one POST per message with Content-Type and Accept;
/// "Request Metadata": MCP-Protocol-Version and Mcp-Method, no Mcp-Name for
/// server/discover; the body carries the 2026-07-28 _meta.
#[test]
fn initialize_posts_server_discover_with_the_headers_of_the_page() {
    let fake = Fake::start("initialize", &[]);
    let mut driver = bridge(&fake.url(), &[]);
    let response = driver.initialize_with(json!({}));
    assert_json(
        "the initialize result",
        &response,
        &ok(
            json!("init"),
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "prompts": {}, "resources": {}, "completions": {}, "logging": {}},
                "serverInfo": {"name": "fake-http-upstream", "version": "0.0.1"},
                "instructions": "fake http instructions"
            }),
        ),
    );
    let discover = fake.posts_of("server/discover");
    assert_eq!(discover.len(), 1, "one server/discover: {discover:#?}");
    let discover = &discover[0];
    assert_json("the headers of server/discover", &page_headers(discover), &expected_headers("server/discover", None));
    assert_eq!(discover["path"], format!("/mcp/{PATH_SECRET}?key={QUERY_SECRET}"), "the URL as given");
    let meta = &discover["body"]["params"]["_meta"];
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{discover:#}");
    assert_json(
        "the clientInfo of the client",
        &meta["io.modelcontextprotocol/clientInfo"],
        &json!({"name": "harness", "version": "1.0"}),
    );
    // No session and no resumption: the 2026-07-28 page has neither.
    for name in ["mcp-session-id", "last-event-id"] {
        assert_eq!(header(discover, name), None, "{discover:#}");
    }
    finish(driver);
}

/// "serverInfo without upstream information": the fallback name is `--name`;
/// a URL has no command whose file name could name it, so without `--name`
/// it is the profile's name ("It is also the server name when no other
/// name exists"), never the host or the path of the URL; with the version
/// of the bridge.
#[test]
fn without_server_info_the_name_is_the_name_option_else_the_profiles_name() {
    let fake = Fake::start("fallback-name", &["--server-info", "none"]);
    for (options, name) in [(vec![], "mcp-bridge-vscode"), (vec!["--name", "My Server"], "My Server")] {
        let mut driver = bridge(&fake.url(), &options);
        let response = driver.initialize_with(json!({}));
        assert_json(
            "serverInfo",
            &response["result"]["serverInfo"],
            &json!({"name": name, "version": env!("CARGO_PKG_VERSION")}),
        );
        finish(driver);
    }
}

/// "Request Metadata", "Standard Request Headers": every request has
/// Mcp-Method; tools/call, prompts/get and resources/read also Mcp-Name
/// (params.name or params.uri); no other method has it. The results pass
/// the result rules (resultType removed).
#[test]
fn each_forwarded_method_posts_its_mcp_method_and_mcp_name() {
    let (fake, mut driver) = session("headers", &[], &[]);
    let requests = [
        ("tools/list", json!({}), None),
        ("prompts/list", json!({}), None),
        ("resources/list", json!({}), None),
        ("resources/templates/list", json!({}), None),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "A"}}),
            None,
        ),
        ("prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}}), Some("greet")),
        ("resources/read", json!({"uri": "peer://static/readme"}), Some("peer://static/readme")),
    ];
    for (i, (method, params, _)) in requests.iter().enumerate() {
        exchange(&mut driver, request(json!(i), method, params.clone()), ok(json!(i), json!({"method": method})));
    }
    exchange(
        &mut driver,
        call(json!("call"), "echo", json!({"text": "hi"})),
        ok(
            json!("call"),
            json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {"text": "hi"}}}),
        ),
    );
    for (method, _, name) in requests {
        let posts = fake.posts_of(method);
        assert_eq!(posts.len(), 1, "{method}: {posts:#?}");
        assert_json(&format!("the headers of {method}"), &page_headers(&posts[0]), &expected_headers(method, name));
    }
    assert_json(
        "the headers of tools/call",
        &page_headers(&fake.call_of("echo")),
        &expected_headers("tools/call", Some("echo")),
    );
    finish(driver);
}

/// "Value Encoding": an Mcp-Name that is not plain ASCII (0x20-0x7E), that
/// has leading or trailing whitespace, or that matches the sentinel pattern
/// goes as `=?base64?{Base64 of the UTF-8}?=`; a plain name goes as it is.
#[test]
fn mcp_name_takes_the_base64_sentinel_when_the_value_is_not_plain_ascii() {
    let (fake, mut driver) = session("base64", &[], &[]);
    let tools = [
        ("get_weather", "get_weather"),
        ("with space inside", "with space inside"),
        ("héllo wörld", "=?base64?aMOpbGxvIHfDtnJsZA==?="),
        (" padded ", "=?base64?IHBhZGRlZCA=?="),
        ("trail ", "=?base64?dHJhaWwg?="),
        ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
        ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
        ("a\tb", "=?base64?YQli?="),
    ];
    for (i, (tool, _)) in tools.iter().enumerate() {
        // The fake knows none of these tools: its error passes unchanged.
        exchange(
            &mut driver,
            call(json!(i), tool, json!({})),
            err(json!(i), json!({"code": -32602, "message": format!("unknown tool {tool}")})),
        );
    }
    for (tool, sent) in tools {
        assert_eq!(header(&fake.call_of(tool), "Mcp-Name").as_deref(), Some(sent), "the Mcp-Name of {tool:?}");
    }
    exchange(
        &mut driver,
        request(json!("read"), "resources/read", json!({"uri": "file:///tmp/café.txt"})),
        ok(json!("read"), json!({"method": "resources/read"})),
    );
    exchange(
        &mut driver,
        request(json!("get"), "prompts/get", json!({"name": "grüß"})),
        ok(json!("get"), json!({"method": "prompts/get"})),
    );
    let name_of = |method: &str| header(&fake.posts_of(method)[0], "Mcp-Name");
    assert_eq!(name_of("resources/read").as_deref(), Some("=?base64?ZmlsZTovLy90bXAvY2Fmw6kudHh0?="));
    assert_eq!(name_of("prompts/get").as_deref(), Some("=?base64?Z3LDvMOf?="));
    finish(driver);
}

/// The tools/list of the x-mcp-header tests: `query` with annotated
/// parameters of each primitive type, one nested under `properties`.
fn annotated_tools() -> Value {
    json!({"tools": [
        {"name": "query", "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "greeting": {"type": "string", "x-mcp-header": "Greeting"},
            "meta": {"type": "object", "properties": {"tenant": {"type": "string", "x-mcp-header": "Tenant"}}},
            "text": {"type": "string"}
        }}},
        {"name": "plain", "inputSchema": {"type": "object", "properties": {"region": {"type": "string"}}}}
    ]})
}

/// JSON as written: numbers keep their text (`1e2`, `-0.0`).
fn written(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// "Custom Headers from Tool Parameters": after a tools/list, a tools/call
/// mirrors each annotated argument into `Mcp-Param-{name}` (string as is,
/// integer in decimal however it is written, boolean lower case, non-ASCII
/// with the sentinel), a
/// nested `properties` path too; a null or missing value gives no header;
/// a tool without annotations gets none.
#[test]
fn mcp_param_headers_follow_the_x_mcp_header_annotations_of_the_last_tools_list() {
    let tools = annotated_tools().to_string();
    let (fake, mut driver) = session("mcp-param", &["--result", &format!("tools/list={tools}")], &[]);
    exchange(&mut driver, request(json!("list"), "tools/list", json!({})), ok(json!("list"), annotated_tools()));
    let calls = [
        (
            "query",
            json!({"region": "us-west1", "count": 42, "flag": true, "greeting": "Hello, 世界", "meta": {"tenant": "acme"}, "text": "SELECT 1"}),
            json!({"mcp-param-region": "us-west1", "mcp-param-count": "42", "mcp-param-flag": "true",
                   "mcp-param-greeting": "=?base64?SGVsbG8sIOS4lueVjA==?=", "mcp-param-tenant": "acme"}),
        ),
        (
            "query",
            json!({"region": null, "count": -7, "flag": false, "meta": {}}),
            json!({"mcp-param-count": "-7", "mcp-param-flag": "false"}),
        ),
        ("query", json!({"region": " padded "}), json!({"mcp-param-region": "=?base64?IHBhZGRlZCA=?="})),
        // "Integer values are compared numerically": the decimal text of an
        // integer however it is written.
        ("query", written(r#"{"count": 42.0}"#), json!({"mcp-param-count": "42"})),
        ("query", written(r#"{"count": 1e2}"#), json!({"mcp-param-count": "100"})),
        ("query", written(r#"{"count": -0.0}"#), json!({"mcp-param-count": "0"})),
        ("query", written(r#"{"count": 42.5}"#), json!({})),
        ("query", json!({}), json!({})),
        ("plain", json!({"region": "us-west1"}), json!({})),
    ];
    for (i, (tool, arguments, _)) in calls.iter().enumerate() {
        exchange(
            &mut driver,
            call(json!(i), tool, arguments.clone()),
            err(json!(i), json!({"code": -32602, "message": format!("unknown tool {tool}")})),
        );
    }
    let posts = fake.posts_of("tools/call");
    assert_eq!(posts.len(), calls.len(), "{posts:#?}");
    for ((tool, arguments, params), post) in calls.iter().zip(&posts) {
        let mut expected = expected_headers("tools/call", Some(tool));
        for (name, value) in params.as_object().into_iter().flatten() {
            expected[name] = value.clone();
        }
        assert_json(&format!("the headers of {tool} {arguments}"), &page_headers(post), &expected);
    }
    finish(driver);
}

/// "Schema Extension": a tool whose x-mcp-header breaks a constraint (empty,
/// not a token, a number type, not reachable through `properties` alone,
/// not unique without case) is left out of tools/list, with a warning line
/// that names the tool; the valid tools stay as they came.
#[test]
fn a_tool_with_an_invalid_x_mcp_header_is_left_out_of_tools_list_with_a_warning() {
    let schema = |properties: Value| json!({"type": "object", "properties": properties});
    let good =
        json!({"name": "good", "inputSchema": schema(json!({"region": {"type": "string", "x-mcp-header": "Region"}}))});
    let bad = [
        ("empty_name", schema(json!({"a": {"type": "string", "x-mcp-header": ""}}))),
        ("not_a_token", schema(json!({"a": {"type": "string", "x-mcp-header": "Re gion"}}))),
        ("number_type", schema(json!({"a": {"type": "number", "x-mcp-header": "Amount"}}))),
        ("object_type", schema(json!({"a": {"type": "object", "x-mcp-header": "Whole"}}))),
        ("under_items", schema(json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}))),
        ("under_any_of", schema(json!({"a": {"anyOf": [{"type": "string", "x-mcp-header": "Choice"}]}}))),
        (
            "twice",
            schema(
                json!({"a": {"type": "string", "x-mcp-header": "Region"}, "b": {"type": "string", "x-mcp-header": "region"}}),
            ),
        ),
    ];
    let mut tools = vec![good.clone()];
    tools.extend(bad.iter().map(|(name, input)| json!({"name": name, "inputSchema": input})));
    let list = json!({"tools": tools}).to_string();
    let (fake, mut driver) = session("x-mcp-header-invalid", &["--result", &format!("tools/list={list}")], &[]);
    exchange(&mut driver, request(json!(1), "tools/list", json!({})), ok(json!(1), json!({"tools": [good]})));
    for (name, _) in bad {
        driver.wait_stderr(name, 1);
        let line = driver.stderr_text().lines().find(|l| l.contains(name)).map(str::to_owned).unwrap_or_default();
        assert!(line.contains(" WARN "), "the line of the tool {name} is a warning: {line}");
    }
    // The good tool keeps its header.
    exchange(
        &mut driver,
        call(json!(2), "good", json!({"region": "eu"})),
        err(json!(2), json!({"code": -32602, "message": "unknown tool good"})),
    );
    assert_eq!(header(&fake.call_of("good"), "Mcp-Param-Region").as_deref(), Some("eu"));
    finish(driver);
}

// --- statuses ---------------------------------------------------------------------------

/// The statuses of the tests: each row of the tables of the page and of the
/// behaviour spec.
const STATUSES: [u16; 9] = [400, 401, 403, 404, 408, 429, 500, 501, 503];

/// The answer to a request that got `status`, whatever its body, when the
/// status is a challenge: a 401 after initialize asks for a later sign-in,
/// and these clients declare no `elicitation.url`, so the bridge cannot ask
/// them to open its URL (notifications/initialized, "From M4"; the Error
/// table, reauthorization_required: "data.detail has declined, no_consent or
/// cooldown").
fn challenged(status: u16) -> Option<Value> {
    (status == 401).then(|| {
        bridge_error(-32603, &message("reauthorization_required"), "reauthorization_required", Some("no_consent"))
    })
}

/// "After a failed request to an upstream server at a URL, data.detail also
/// has the HTTP status": a status that is not a success, without a JSON-RPC
/// error in its body (none, text, HTML, JSON that is not JSON-RPC), fails
/// that request with transport_failed and `HTTP status <n>`; a 401 is a
/// challenge (see `challenged`); the connection goes on.
#[test]
fn each_error_status_without_a_json_rpc_error_fails_only_its_request_with_transport_failed() {
    let (_fake, mut driver) = session("status-plain", &[], &[]);
    let mut n = 0;
    for status in STATUSES {
        for body in ["empty", "text", "html", "json"] {
            n += 1;
            exchange(
                &mut driver,
                call(json!(n), "status", json!({"code": status, "body": body})),
                err(json!(n), challenged(status).unwrap_or_else(|| transport_failed(&format!("HTTP status {status}")))),
            );
        }
    }
    exchange(
        &mut driver,
        call(json!("after"), "echo", json!({})),
        ok(
            json!("after"),
            json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {}}}),
        ),
    );
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// "An error of the upstream server goes to the client with its code, its
/// message and its data": the JSON-RPC error in the body of an error status
/// ("modern servers also use 400 ... with a JSON-RPC error") is the answer;
/// a 401 is a challenge, whatever its body.
#[test]
fn each_error_status_with_a_json_rpc_error_body_gives_that_error_unchanged() {
    let (_fake, mut driver) = session("status-jsonrpc", &[], &[]);
    for status in STATUSES {
        exchange(
            &mut driver,
            call(json!(status), "status", json!({"code": status, "body": "jsonrpc"})),
            err(json!(status), challenged(status).unwrap_or_else(|| refused(status))),
        );
    }
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// A status per method (the fake's `--status`): each method fails alone,
/// with the status or with the error of its body; the others answer.
#[test]
fn a_status_of_one_method_fails_that_method_only() {
    let (_fake, mut driver) = session(
        "status-method",
        &["--status", "tools/list=500", "--status", "prompts/get=404:jsonrpc", "--status", "resources/read=429:text"],
        &[],
    );
    exchange(
        &mut driver,
        request(json!(1), "tools/list", json!({})),
        err(json!(1), transport_failed("HTTP status 500")),
    );
    exchange(&mut driver, request(json!(2), "prompts/get", json!({"name": "p"})), err(json!(2), refused(404)));
    exchange(
        &mut driver,
        request(json!(3), "resources/read", json!({"uri": "x://1"})),
        err(json!(3), transport_failed("HTTP status 429")),
    );
    exchange(
        &mut driver,
        request(json!(4), "prompts/list", json!({})),
        ok(json!(4), json!({"method": "prompts/list"})),
    );
    finish(driver);
}

/// Steps of the first initialize: a failure of server/discover fails
/// initialize and the bridge stays open. An error status without a JSON-RPC
/// error gives transport_failed with the status; a JSON-RPC error gives
/// discover_failed with the upstream code and message, and the HTTP status
/// in `data.detail` ("After a failed request to an upstream server at a
/// URL, data.detail also has the HTTP status"); a refused connection
/// gives transport_failed.
#[test]
fn a_failed_server_discover_over_http_fails_initialize_and_the_bridge_stays_open() {
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
    for (name, options, expected) in [
        ("discover-503", vec!["--status", "server/discover=503"], transport_failed("HTTP status 503")),
        (
            "discover-404-jsonrpc",
            vec!["--status", "server/discover=404:jsonrpc"],
            json!({"code": -32001, "message": &message("discover_failed"), "data": {"cause": "discover_failed", "detail": "refused with HTTP status 404, HTTP status 404"}}),
        ),
    ] {
        let fake = Fake::start(name, &options);
        let mut driver = bridge(&fake.url(), &[]);
        exchange(&mut driver, request(json!(1), "initialize", params.clone()), err(json!(1), expected.clone()));
        driver.assert_alive_amid("ping");
        // A second initialize is a new first one: it posts server/discover again.
        exchange(&mut driver, request(json!(2), "initialize", params.clone()), err(json!(2), expected));
        assert_eq!(fake.posts_of("server/discover").len(), 2, "{name}");
        finish(driver);
    }
    // Nothing listens on the port of a fake that stopped.
    let port = {
        let fake = Fake::start("discover-refused", &[]);
        fake.served.port
    };
    let mut driver = bridge(&format!("http://127.0.0.1:{port}/mcp/{PATH_SECRET}?key={QUERY_SECRET}"), &[]);
    exchange(
        &mut driver,
        request(json!(1), "initialize", params),
        err(json!(1), transport_failed("cannot connect to the upstream server")),
    );
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// "Bounded OAuth" and the connect limit of the HTTP client: a server that
/// accepts the TCP connection and then stays silent (here the TLS
/// handshake never completes) fails the request with `transport_failed`
/// after the connect limit of 10 s, not at the request's own limit (here
/// the discover limit of 60 s, which would give `discover_failed`).
#[test]
fn a_server_that_accepts_and_stays_silent_fails_at_the_connect_limit() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a listener that never answers");
    let port = silent.local_addr().expect("its address").port();
    let mut driver = bridge(&format!("https://127.0.0.1:{port}/mcp"), &["--discover-timeout", "60"]);
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
    driver.send_request(json!(1), "initialize", params);
    let response = driver.response(&json!(1));
    assert_eq!(response, err(json!(1), transport_failed("cannot connect to the upstream server")));
    drop(silent);
    finish(driver);
}

// --- bodies and sizes ------------------------------------------------------------------

/// Error table, invalid_response: a success whose body is not a JSON-RPC
/// response to the request, or whose type is neither JSON nor an event
/// stream, fails the request; the connection goes on.
#[test]
fn a_success_body_that_is_not_a_json_rpc_response_gives_invalid_response() {
    let (_fake, mut driver) = session("bodies", &[], &[]);
    let cases = [
        (json!({"text": "{\"hello\": \"world\"}"}), invalid_response("the body holds no response to the request")),
        (json!({"text": "not json at all"}), invalid_response("the body holds no response to the request")),
        (json!({"text": "{\"jsonrpc\":\"2.0\",\"id\":{{id}},\"result\":{nope}}"}), invalid_response("parse_error")),
        (
            json!({"text": "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}"}),
            invalid_response("the body holds no response to the request"),
        ),
        (json!({"text": "<html></html>", "content_type": "text/html"}), invalid_response("HTTP status 200")),
    ];
    for (i, (arguments, expected)) in cases.into_iter().enumerate() {
        exchange(&mut driver, call(json!(i), "body", arguments), err(json!(i), expected));
    }
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// "Forwarded requests (M1)", the limits: `--max-response-bytes` limits one
/// JSON response, "A larger message fails its request at once": a body of
/// exactly the limit passes, one byte more fails; a body over the limit
/// fails while the server still holds its connection (with a Content-Length
/// and chunked); the next requests are served.
#[test]
fn a_json_body_over_max_response_bytes_fails_at_once() {
    let (fake, mut driver) = session("json-limit", &[], &["--max-response-bytes", "4096"]);
    let sized = |id: i64, bytes: usize| call(json!(id), "sized", json!({"bytes": bytes}));
    driver.send(&sized(1, 4096));
    let response = driver.response(&json!(1));
    let x = "x".repeat(padding(&fake.call_of("sized"), 4096));
    assert_json("a body of 4096 bytes", &response, &text(json!(1), &x));
    exchange(&mut driver, sized(2, 4097), err(json!(2), invalid_response("limit: 4096 bytes")));
    for (id, shape) in [(3, "json"), (4, "chunked-json")] {
        let start = Instant::now();
        exchange(
            &mut driver,
            call(json!(id), "big", json!({"bytes": 8192, "as": shape, "finish": false})),
            err(json!(id), invalid_response("limit: 4096 bytes")),
        );
        assert!(start.elapsed() < Duration::from_secs(10), "{shape}: not at once ({:?})", start.elapsed());
    }
    exchange(
        &mut driver,
        call(json!(5), "big", json!({"bytes": 8192, "as": "json"})),
        err(json!(5), invalid_response("limit: 4096 bytes")),
    );
    driver.assert_alive_amid("ping");
    driver.send(&sized(6, 300));
    let response = driver.response(&json!(6));
    let x = "x".repeat(padding(&fake.call_of("sized"), 300));
    assert_json("a body of 300 bytes", &response, &text(json!(6), &x));
    finish(driver);
}

/// `--max-response-bytes` also limits "one event of a stream": an event over
/// the limit fails its request at once, also while the server holds the
/// stream without the end of the event; a stream of many small events
/// whose sum is over the limit passes.
#[test]
fn an_sse_event_over_max_response_bytes_fails_at_once() {
    let (_fake, mut driver) = session("event-limit", &[], &["--max-response-bytes", "4096"]);
    for (id, finish) in [(1, json!(false)), (2, json!(true))] {
        let start = Instant::now();
        exchange(
            &mut driver,
            call(json!(id), "big", json!({"bytes": 8192, "as": "event", "finish": finish})),
            err(json!(id), invalid_response("limit: 4096 bytes")),
        );
        assert!(start.elapsed() < Duration::from_secs(10), "not at once ({:?})", start.elapsed());
    }
    // 60 progress events of about 150 bytes each: 9 KB in all.
    driver.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "progress", "arguments": {"count": 60}, "_meta": {"progressToken": "p"}}}));
    let response = driver.response(&json!(3));
    assert_json("many small events", &response, &text(json!(3), "done"));
    finish(driver);
}

/// The length of the padding of the fake's `sized` answer of `bytes` bytes
/// to the recorded POST `post` (the upstream id is in the body).
fn padding(post: &Value, bytes: usize) -> usize {
    let skeleton =
        json!({"jsonrpc": "2.0", "id": post["body"]["id"], "result": {"content": [{"type": "text", "text": ""}]}});
    // The fake writes JSON with Python's separators ", " and ": ".
    let python = skeleton.to_string().replace(",\"", ", \"").replace("\":", "\": ");
    bytes - python.len()
}

/// The default of `--max-response-bytes` is 64 MiB: a body of 3 MiB passes.
#[test]
fn the_default_response_limit_takes_a_body_of_3_mib() {
    let (fake, mut driver) = session("default-limit", &[], &[]);
    driver.send(&call(json!(1), "sized", json!({"bytes": 3 * 1024 * 1024})));
    let response = driver.response(&json!(1));
    let length = response["result"]["content"][0]["text"].as_str().map(str::len);
    let expected = padding(&fake.call_of("sized"), 3 * 1024 * 1024);
    assert_eq!(length, Some(expected), "{}", response.to_string().chars().take(300).collect::<String>());
    finish(driver);
}

// --- SSE framing ------------------------------------------------------------------------

/// "Receiving Messages" and the SSE format: whatever the framing (LF, CRLF
/// or CR line ends, comments, `retry:`, `id:` and `event:` fields, data over
/// two lines, no space after the colon, an event without data, an event
/// split across writes anywhere, also inside a CRLF), the progress of the
/// request's stream reaches the client with its token ("Progress (M1)"),
/// then the result.
#[test]
fn every_sse_framing_gives_the_progress_and_then_the_result() {
    let (_fake, mut driver) = session("framing", &[], &[]);
    let lf = json!(["event: message\ndata: {{progress}}\n\n", "event: message\ndata: {{result}}\n\n"]);
    let crlf = json!(["event: message\r\ndata: {{progress}}\r\n\r\n", "event: message\r\ndata: {{result}}\r\n\r\n"]);
    let cases = [
        ("lf", lf.clone(), json!({})),
        ("crlf", crlf.clone(), json!({})),
        ("cr", json!(["data: {{progress}}\r\r", "data: {{result}}\r\r"]), json!({})),
        (
            "comments and retry",
            json!([
                ": hello\n\n",
                "retry: 1000\n\n",
                "data: {{progress}}\n\n",
                ": ping\r\n\r\n",
                "retry: 10\ndata: {{result}}\n\n"
            ]),
            json!({}),
        ),
        (
            "id and event fields",
            json!(["id: 41\nevent: message\ndata: {{progress}}\n\n", "event: message\nid: 42\ndata: {{result}}\n\n"]),
            json!({}),
        ),
        ("no space after the colon", json!(["data:{{progress}}\n\n", "data:{{result}}\n\n"]), json!({})),
        (
            "an event without data",
            json!(["event: ping\n\n", "id: 1\n\n", "data: {{progress}}\n\n", "data: {{result}}\n\n"]),
            json!({}),
        ),
        ("lf in pieces of 1 byte", lf.clone(), json!({"split": 1})),
        ("crlf in pieces of 1 byte", crlf.clone(), json!({"split": 1})),
        ("crlf in pieces of 7 bytes", crlf, json!({"split": 7, "gap_ms": 2})),
        ("lf in pieces of 50 bytes", lf, json!({"split": 50, "gap_ms": 5})),
    ];
    for (i, (name, frames, extra)) in cases.into_iter().enumerate() {
        let mut arguments = json!({"frames": frames});
        for (key, value) in extra.as_object().into_iter().flatten() {
            arguments[key] = value.clone();
        }
        driver.send(&json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "sse", "arguments": arguments, "_meta": {"progressToken": format!("t{i}")}}}));
        assert_json(
            &format!("{name}: the progress"),
            &driver.recv(),
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": format!("t{i}"), "progress": 1, "total": 1, "message": "step 1"}}),
        );
        assert_json(&format!("{name}: the result"), &driver.recv(), &text(json!(i), "sse ok"));
    }
    // Data over two lines is one message, the lines joined with a line feed.
    let two_lines = "data: {\"jsonrpc\": \"2.0\",\ndata: \"id\": {{id}}, \"result\": {\"content\": []}}\n\n";
    exchange(
        &mut driver,
        call(json!("two"), "sse", json!({"frames": [two_lines]})),
        ok(json!("two"), json!({"content": []})),
    );
    finish(driver);
}

/// "an SSE stream that ends before its response": the request fails with
/// transport_failed, after the progress it had; a stream that ends cleanly
/// and one whose connection closes mid-stream alike.
#[test]
fn an_sse_stream_that_ends_before_its_response_fails_with_transport_failed() {
    let (_fake, mut driver) = session("stream-ends", &[], &[]);
    for (i, end) in ["close", "abort"].into_iter().enumerate() {
        driver.send(&json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "sse", "arguments": {"frames": ["data: {{progress}}\n\n"], "end": end}, "_meta": {"progressToken": 0}}}));
        assert_json(
            &format!("{end}: the progress"),
            &driver.recv(),
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": 1, "total": 1, "message": "step 1"}}),
        );
        assert_json(
            &format!("{end}: the error"),
            &driver.recv(),
            &err(json!(i), transport_failed("the stream ended before its response")),
        );
    }
    // A JSON body that breaks off.
    exchange(
        &mut driver,
        call(json!("json"), "big", json!({"bytes": 100, "as": "json", "finish": "abort"})),
        err(json!("json"), transport_failed("the body broke off")),
    );
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// Each request has its own stream: a connection closed mid-stream fails
/// only its request; a request in flight beside it and the later ones are
/// answered.
#[test]
fn a_connection_closed_mid_stream_fails_only_that_request() {
    let (_fake, mut driver) = session("mid-stream", &[], &[]);
    driver.send(&call(json!("beside"), "slow", json!({"ms": 1500, "sse": true})));
    exchange(
        &mut driver,
        call(json!("broken"), "sse", json!({"frames": ["data: {{log}}\n\n", ": more to come\n"], "end": "abort"})),
        err(json!("broken"), transport_failed("the stream ended before its response")),
    );
    let at = driver.seen.iter().position(|m| is_response(m) && m["id"] == "broken").unwrap_or(0);
    assert_json(
        "the log message before the break",
        &driver.seen[at.saturating_sub(1)],
        &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "fake-http", "data": "log 1"}}),
    );
    exchange(
        &mut driver,
        call(json!("after"), "echo", json!({})),
        ok(
            json!("after"),
            json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {}}}),
        ),
    );
    assert_json("the request beside", &driver.response(&json!("beside")), &text(json!("beside"), "slow"));
    assert_answered_once(&driver.seen, &[json!("beside"), json!("broken"), json!("after")]);
    finish(driver);
}

/// "Progress (M1)" and "Logging (M3)" over HTTP: "request-scoped
/// notifications ... flow only on the response stream of the request": the
/// progress (token 0 of the client, the upstream's progress, total and
/// message) and the log message come before the result; after
/// logging/setLevel warning, the requests carry the level in their _meta
/// and the bridge drops a message below it.
#[test]
fn progress_with_token_0_and_log_messages_of_the_request_stream_come_before_the_result() {
    let (fake, mut driver) = session("progress", &[], &[]);
    driver.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "progress", "arguments": {"count": 3}, "_meta": {"progressToken": 0}}}));
    for k in 1..=3 {
        assert_json(
            "progress",
            &driver.recv(),
            &json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 0, "progress": k, "total": 3, "message": format!("step {k}")}}),
        );
    }
    assert_json(
        "the log message",
        &driver.recv(),
        &json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "fake-http", "data": "hello"}}),
    );
    assert_json("the result", &driver.recv(), &text(json!(7), "done"));
    exchange(&mut driver, request(json!(8), "logging/setLevel", json!({"level": "warning"})), ok(json!(8), json!({})));
    exchange(&mut driver, call(json!(9), "progress", json!({"count": 1, "level": "info"})), text(json!(9), "done"));
    exchange(&mut driver, call(json!(10), "progress", json!({"count": 1, "level": "error"})), text(json!(10), "done"));
    let without_token: Vec<Value> = driver.seen.iter().rev().take(3).rev().cloned().collect();
    assert_json(
        "after setLevel: no progress without a token, no info message, the error message",
        &Value::Array(without_token),
        &json!([
            text(json!(9), "done"),
            {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "error", "logger": "fake-http", "data": "hello"}},
            text(json!(10), "done")
        ]),
    );
    let levels: Vec<Value> = fake
        .posts_of("tools/call")
        .iter()
        .map(|p| p["body"]["params"]["_meta"]["io.modelcontextprotocol/logLevel"].clone())
        .collect();
    assert_eq!(levels, [Value::Null, json!("warning"), json!("warning")], "the level in the _meta of each call");
    finish(driver);
}

/// "Receiving Messages": the client MUST support both a JSON body and an
/// event stream. A server that answers every request with a stream gives
/// the same results as one that answers with JSON.
#[test]
fn a_server_that_answers_every_request_with_a_stream_gives_the_same_results() {
    let list = annotated_tools().to_string();
    for mode in ["json", "sse"] {
        let (_fake, mut driver) =
            session(&format!("mode-{mode}"), &["--mode", mode, "--result", &format!("tools/list={list}")], &[]);
        exchange(&mut driver, request(json!(1), "tools/list", json!({})), ok(json!(1), annotated_tools()));
        exchange(
            &mut driver,
            request(json!(2), "prompts/list", json!({})),
            ok(json!(2), json!({"method": "prompts/list"})),
        );
        exchange(
            &mut driver,
            call(json!(3), "echo", json!({"a": 1})),
            ok(
                json!(3),
                json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {"a": 1}}}),
            ),
        );
        finish(driver);
    }
}

// --- time limits and cancellation -------------------------------------------------------

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

// --- redirects and --header-env --------------------------------------------------------

/// "A redirect to another origin is not followed (the request fails with
/// transport_failed and the HTTP status), so the --header-env headers never
/// reach another origin": the other origin gets no request at all.
#[test]
fn a_redirect_to_another_origin_is_not_followed_and_the_header_stays_home() {
    let fake = Fake::start("redirect", &["--status", "prompts/list=308:redirect"]);
    let mut driver = bridge_env(
        &fake.url(),
        &["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY"],
        &[("MCP_BRIDGE_TEST_KEY", HEADER_SECRET)],
    );
    driver.initialize();
    exchange(&mut driver, call(json!(1), "redirect", json!({})), err(json!(1), transport_failed("HTTP status 307")));
    exchange(
        &mut driver,
        request(json!(2), "prompts/list", json!({})),
        err(json!(2), transport_failed("HTTP status 308")),
    );
    exchange(
        &mut driver,
        call(json!(3), "echo", json!({})),
        ok(json!(3), json!({"content": [{"type": "text", "text": "echo"}], "structuredContent": {"arguments": {}}})),
    );
    assert_json("the requests that reached the other origin", &json!(fake.other_requests()), &json!([]));
    for post in fake.posts() {
        assert_eq!(header(&post, "X-Api-Key").as_deref(), Some(HEADER_SECRET), "{post:#}");
    }
    finish(driver);
}

/// The other side of the rule above (the product's choice; the page is
/// silent): a redirect within the origin of the server is followed, the
/// POST goes again with its body and the headers of `--header-env`.
#[test]
fn a_redirect_within_the_origin_is_followed_with_the_body_and_the_headers() {
    let fake = Fake::start("redirect-same", &[]);
    let mut driver = bridge_env(
        &fake.url(),
        &["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY"],
        &[("MCP_BRIDGE_TEST_KEY", HEADER_SECRET)],
    );
    driver.initialize();
    exchange(&mut driver, call(json!(1), "redirect-same", json!({"n": 1})), text(json!(1), "moved here"));
    let posts: Vec<Value> = fake.posts_of("tools/call");
    let paths: Vec<Value> = posts.iter().map(|p| p["path"].clone()).collect();
    let path = format!("/mcp/{PATH_SECRET}?key={QUERY_SECRET}");
    assert_eq!(paths, [json!(path), json!(format!("/moved{path}"))], "the POST and the redirected one");
    assert_json("the body sent again", &posts[1]["body"], &posts[0]["body"]);
    for post in &posts {
        assert_eq!(header(post, "X-Api-Key").as_deref(), Some(HEADER_SECRET), "{post:#}");
        assert_json(
            "the headers of the page",
            &page_headers(post),
            &expected_headers("tools/call", Some("redirect-same")),
        );
    }
    let ended = finish(driver);
    assert_no_secret("the stderr of the bridge", &ended.stderr);
}

/// `--header-env NAME=VAR` (repeatable) sends the header NAME with the value
/// of VAR on every POST: server/discover, the forwarded requests, the
/// The proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY and their
/// lower-case forms): with `HTTP_PROXY` (and with `http_proxy`) every POST
/// to the server goes through the proxy; with the server's host in
/// `NO_PROXY` none does.
#[test]
fn the_proxy_variables_send_the_posts_through_the_proxy_unless_no_proxy_names_the_host() {
    for (vars, through) in [
        (&[("HTTP_PROXY", true)][..], true),
        (&[("http_proxy", true)][..], true),
        (&[("HTTP_PROXY", true), ("NO_PROXY", false)][..], false),
    ] {
        let dir = folder("proxy");
        let fake = Fake::start_in(&dir, &[]);
        let record = dir.join("proxy.jsonl");
        let mut cmd = Command::new("python3");
        cmd.arg(crate::support::repo_root().join("tests/fake/http_proxy.py")).arg("--record").arg(&record);
        let proxy = Served::start(cmd, false);
        let proxy_url = format!("http://127.0.0.1:{}", proxy.port);
        let env: Vec<(&str, &str)> = vars
            .iter()
            .map(|(name, is_proxy)| (*name, if *is_proxy { proxy_url.as_str() } else { "127.0.0.1" }))
            .collect();
        let mut driver = bridge_env(&fake.url(), &[], &env);
        driver.initialize();
        exchange(
            &mut driver,
            request(json!(1), "tools/list", json!({})),
            ok(json!(1), json!({"method": "tools/list"})),
        );
        let _ = finish(driver);
        let seen: Vec<Value> = std::fs::read_to_string(&record)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let origin = format!("http://127.0.0.1:{}", fake.served.port);
        if through {
            assert!(seen.len() >= 2, "{vars:?}: the proxy saw {seen:?}");
            assert!(seen.iter().all(|r| r["origin"] == origin.as_str() && r["method"] == "POST"), "{vars:?}: {seen:?}");
        } else {
            assert_eq!(seen, Vec::<Value>::new(), "{vars:?}: NO_PROXY names the host");
        }
    }
}

/// listen stream and the notifications.
#[test]
fn header_env_sends_each_header_on_every_post() {
    let fake = Fake::start("header-env", &["--capabilities", r#"{"tools":{"listChanged":true}}"#]);
    let mut driver = bridge_env(
        &fake.url(),
        &["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY", "--header-env", "Authorization=MCP_BRIDGE_TEST_AUTH"],
        &[("MCP_BRIDGE_TEST_KEY", HEADER_SECRET), ("MCP_BRIDGE_TEST_AUTH", "Bearer token-5e5e")],
    );
    driver.initialize();
    fake.wait("the listen stream", |e| e.iter().any(|p| p["body"]["method"] == "subscriptions/listen"));
    exchange(&mut driver, request(json!(1), "tools/list", json!({})), ok(json!(1), json!({"method": "tools/list"})));
    driver.send(&call(json!(2), "wait", json!({})));
    let upstream = fake.wait("the wait call", |e| e.iter().any(|p| p["body"]["params"]["name"] == "wait"));
    let upstream = upstream
        .iter()
        .find(|p| p["body"]["params"]["name"] == "wait")
        .map(|p| p["body"]["id"].clone())
        .unwrap_or_default();
    driver.cancel(&json!(2));
    fake.wait_cancel(&upstream);
    let methods: Vec<Value> = fake.posts().iter().map(|p| p["body"]["method"].clone()).collect();
    for method in ["server/discover", "subscriptions/listen", "tools/list", "tools/call", "notifications/cancelled"] {
        assert!(methods.contains(&json!(method)), "no POST of {method}: {methods:?}");
    }
    for post in fake.posts() {
        assert_eq!(header(&post, "X-Api-Key").as_deref(), Some(HEADER_SECRET), "{post:#}");
        assert_eq!(header(&post, "Authorization").as_deref(), Some("Bearer token-5e5e"), "{post:#}");
    }
    let ended = finish(driver);
    assert_no_secret("the stderr of the bridge", &ended.stderr);
}

/// Runs the bridge with `args` and `env` and its stdin held open, to its
/// exit (at most [`EXIT`], else the test fails: a bridge that waits for its
/// input does not refuse); returns (exit code, stdout, stderr).
fn run_with_open_stdin(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    isolated(&mut cmd).args(args).envs(env.iter().copied()).env_remove("MCP_BRIDGE_TEST_UNSET");
    let done = run_bounded(cmd, Input::Open, EXIT);
    (done.status.code(), done.stdout, done.stderr)
}

/// The exit code "is 2 for arguments that are not valid, and for a missing
/// variable of --header-env": found before anything is read from stdin,
/// with a line that names the variable; the upstream gets no request.
#[test]
fn a_missing_header_env_variable_or_a_bad_header_env_exits_2_before_reading_stdin() {
    let fake = Fake::start("header-env-missing", &[]);
    let url = fake.url();
    let (code, stdout, stderr) = run_with_open_stdin(&["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_UNSET", &url], &[]);
    assert_eq!(code, Some(2), "stderr:\n{stderr}");
    assert_eq!(stdout, "", "nothing on stdout");
    assert!(stderr.contains("MCP_BRIDGE_TEST_UNSET"), "the line names the variable:\n{stderr}");
    assert_no_secret("the stderr of the bridge", &stderr);
    for bad in ["X-Api-Key", "=MCP_BRIDGE_TEST_KEY", "X-Api-Key=", "Bad Name=MCP_BRIDGE_TEST_KEY"] {
        let (code, stdout, stderr) =
            run_with_open_stdin(&["--header-env", bad, &url], &[("MCP_BRIDGE_TEST_KEY", HEADER_SECRET)]);
        assert_eq!((code, stdout.as_str()), (Some(2), ""), "--header-env {bad:?}; stderr:\n{stderr}");
        assert_no_secret("the stderr of the bridge", &stderr);
    }
    // A value that cannot be a header value is not valid either, and is never shown.
    let (code, _, stderr) = run_with_open_stdin(
        &["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY", &url],
        &[("MCP_BRIDGE_TEST_KEY", "header-secret-c0ffee\nInjected: 1")],
    );
    assert_eq!(code, Some(2), "stderr:\n{stderr}");
    assert_no_secret("the stderr of the bridge", &stderr);
    assert_json("the requests of the fake", &json!(fake.posts()), &json!([]));
}

/// "mcp-bridge-vscode [OPTIONS] <URL>": a URL that is not http or https, and
/// a URL beside a command, are arguments that are not valid: exit 2.
#[test]
fn a_url_that_is_not_http_or_https_exits_2() {
    for args in [
        vec!["ftp://127.0.0.1/mcp"],
        vec!["not a url"],
        vec!["file:///tmp/mcp"],
        vec!["http://127.0.0.1:9/mcp", "--", "python3", "server.py"],
    ] {
        let (code, stdout, stderr) = run_with_open_stdin(&args, &[]);
        assert_eq!((code, stdout.as_str()), (Some(2), ""), "{args:?}; stderr:\n{stderr}");
    }
}

// --- TLS and --ca-file ---------------------------------------------------------------------

fn tls_fake(name: &str) -> (Fake, Pki) {
    let dir = folder(name);
    let files = pki(&dir, &["127.0.0.1", "localhost"]);
    let (cert, key) = (files.cert.display().to_string(), files.key.display().to_string());
    (Fake::start_in(&dir, &["--tls-cert", &cert, "--tls-key", &key]), files)
}

/// `--ca-file PATH`, "a PEM bundle added to the platform roots": an https
/// upstream whose certificate a test CA signed works at 127.0.0.1 and at
/// localhost with that CA file.
#[test]
fn an_https_upstream_works_with_the_ca_file_of_its_ca() {
    let (fake, files) = tls_fake("tls-ca");
    let ca = files.ca.display().to_string();
    for host in ["127.0.0.1", "localhost"] {
        let mut driver = bridge(&fake.url_at(host), &["--ca-file", &ca]);
        let response = driver.initialize_with(json!({}));
        assert_json(
            &format!("serverInfo at {host}"),
            &response["result"]["serverInfo"],
            &json!({"name": "fake-http-upstream", "version": "0.0.1"}),
        );
        exchange(&mut driver, call(json!(1), "sse", json!({})), text(json!(1), "sse ok"));
        finish(driver);
    }
}

/// Without the CA file the certificate is not trusted: initialize fails
/// with transport_failed (the TLS handshake failed, so there is no status),
/// and the bridge stays open.
#[test]
fn an_https_upstream_without_the_ca_file_fails_with_transport_failed() {
    let (fake, _files) = tls_fake("tls-no-ca");
    let mut driver = bridge(&fake.url(), &[]);
    let params =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}});
    exchange(
        &mut driver,
        request(json!(1), "initialize", params),
        err(json!(1), transport_failed("cannot connect to the upstream server")),
    );
    fake.wait("the failed handshake", |e| e.iter().any(|x| x["event"] == "tls-error"));
    assert_json("the requests of the fake", &json!(fake.posts()), &json!([]));
    driver.assert_alive_amid("ping");
    finish(driver);
}

/// "It is also 2 for a --ca-file that the bridge cannot use": a file that
/// does not exist, an empty file, a file that is not PEM, and a PEM file
/// without a certificate, before anything is read from stdin.
#[test]
fn an_unusable_ca_file_exits_2() {
    let dir = folder("ca-unusable");
    let files = pki(&dir, &["127.0.0.1", "localhost"]);
    let empty = dir.join("empty.pem");
    std::fs::write(&empty, "").expect("write");
    let garbage = dir.join("garbage.pem");
    std::fs::write(&garbage, "this is not a certificate\n").expect("write");
    let broken = dir.join("broken.pem");
    std::fs::write(&broken, "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n")
        .expect("write");
    let cases = [
        ("missing", dir.join("missing.pem")),
        ("empty", empty),
        ("not PEM", garbage),
        ("a certificate that is not DER", broken),
        ("a key without a certificate", files.key.clone()),
    ];
    let mut seen = Vec::new();
    for (case, path) in &cases {
        let path = path.display().to_string();
        let (code, stdout, stderr) = run_with_open_stdin(&["--ca-file", &path, "https://127.0.0.1:9/mcp"], &[]);
        assert_eq!(stdout, "", "{case}: nothing on stdout; stderr:\n{stderr}");
        seen.push((*case, code));
    }
    let expected: Vec<(&str, Option<i32>)> = cases.iter().map(|(case, _)| (*case, Some(2))).collect();
    assert_eq!(seen, expected, "the exit code of each --ca-file (None: still waiting for stdin after {EXIT:?})");
}

// --- the listen stream -------------------------------------------------------------------

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

// --- icons ---------------------------------------------------------------------------------

/// "Icons of a remote upstream server (M4)": for an upstream at a URL only
/// the icons with a data: URI (the scheme in any case) stay: in serverInfo,
/// in the items of the four lists, in the resource links of a tools/call
/// result and of the messages of a prompts/get result; an item left without
/// icons loses its icons member; an item without icons stays as it came.
#[test]
fn an_upstream_at_a_url_keeps_only_the_data_icons() {
    let https = json!({"src": "https://example.com/a.png", "mimeType": "image/png"});
    let http = json!({"src": "http://example.com/b.png"});
    let file = json!({"src": "file:///etc/icon.png"});
    let data = json!({"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png", "sizes": ["16x16"]});
    let upper = json!({"src": "DATA:image/svg+xml,%3Csvg%2F%3E"});
    let info = json!({"name": "iconic", "version": "1.0", "icons": [https, data, http, upper, file]});
    let object = json!({"type": "object"});
    let tools = json!({"tools": [
        {"name": "a", "inputSchema": object, "icons": [https, data]},
        {"name": "b", "inputSchema": object, "icons": [https, file]},
        {"name": "c", "inputSchema": object}
    ]});
    let prompts = json!({"prompts": [{"name": "p", "icons": [file, upper]}, {"name": "q", "icons": [http]}]});
    let resources = json!({"resources": [
        {"uri": "x://1", "name": "one", "icons": [data, https]},
        {"uri": "x://2", "name": "two", "icons": []}
    ]});
    let templates = json!({"resourceTemplates": [{"uriTemplate": "x://{id}", "name": "t", "icons": [https, upper]}]});
    let link = |icons: Value| json!({"type": "resource_link", "uri": "x://1", "name": "one", "icons": icons});
    let prompt = json!({"messages": [{"role": "user", "content": link(json!([https, data]))}, {"role": "user", "content": link(json!([http]))}]});
    let options = [
        ("--server-info", info.to_string()),
        ("--result", format!("tools/list={tools}")),
        ("--result", format!("prompts/list={prompts}")),
        ("--result", format!("resources/list={resources}")),
        ("--result", format!("resources/templates/list={templates}")),
        ("--result", format!("prompts/get={prompt}")),
    ];
    let options: Vec<&str> = options.iter().flat_map(|(k, v)| [*k, v.as_str()]).collect();
    let fake = Fake::start("icons", &options);
    let mut driver = bridge(&fake.url(), &[]);
    let response = driver.initialize_with(json!({}));
    assert_json(
        "serverInfo",
        &response["result"]["serverInfo"],
        &json!({"name": "iconic", "version": "1.0", "icons": [data, upper]}),
    );
    let link_without = json!({"type": "resource_link", "uri": "x://1", "name": "one"});
    for (id, method, expected) in [
        (
            1,
            "tools/list",
            json!({"tools": [{"name": "a", "inputSchema": object, "icons": [data]}, {"name": "b", "inputSchema": object}, {"name": "c", "inputSchema": object}]}),
        ),
        (2, "prompts/list", json!({"prompts": [{"name": "p", "icons": [upper]}, {"name": "q"}]})),
        (3, "resources/list", json!({"resources": [{"uri": "x://1", "name": "one", "icons": [data]}, {"uri": "x://2", "name": "two"}]})),
        (4, "resources/templates/list", json!({"resourceTemplates": [{"uriTemplate": "x://{id}", "name": "t", "icons": [upper]}]})),
        (
            5,
            "prompts/get",
            json!({"messages": [{"role": "user", "content": link(json!([data]))}, {"role": "user", "content": link_without.clone()}]}),
        ),
    ]
    .map(|(id, method, expected)| (json!(id), method, expected))
    {
        exchange(&mut driver, request(id.clone(), method, json!({"name": "p"})), ok(id, expected));
    }
    let content = json!([{"type": "text", "text": "links"}, link(json!([https, data])), link(json!([http, file])), link(json!([upper]))]);
    exchange(
        &mut driver,
        call(json!(6), "result", json!({"result": {"content": content}})),
        ok(
            json!(6),
            json!({"content": [{"type": "text", "text": "links"}, link(json!([data])), link_without, link(json!([upper]))]}),
        ),
    );
    finish(driver);
}

/// `check` names the icon rule of a server at a URL and counts what it
/// removed from the server information and from each list, instead of
/// "Repairs: none needed." while VS Code would miss the icons.
#[test]
fn check_of_an_upstream_at_a_url_reports_the_icons_that_the_rule_removed() {
    let https = json!({"src": "https://example.com/a.png"});
    let data = json!({"src": "data:image/png;base64,iVBORw0KGgo="});
    let info = json!({"name": "iconic", "version": "1.0", "icons": [https, data]});
    let object = json!({"type": "object"});
    let tools = json!({"tools": [
        {"name": "a", "inputSchema": object, "icons": [https, data, https]},
        {"name": "b", "inputSchema": object, "icons": [https]}
    ]});
    let options = [
        ("--server-info", info.to_string()),
        ("--capabilities", r#"{"tools":{}}"#.to_owned()),
        ("--result", format!("tools/list={tools}")),
    ];
    let options: Vec<&str> = options.iter().flat_map(|(k, v)| [*k, v.as_str()]).collect();
    let fake = Fake::start("icons-check", &options);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    let output = isolated(&mut cmd).arg("check").arg(fake.url()).output().expect("check runs");
    let report = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{report}");
    for expected in [
        "Icons: a remote server's icons reach VS Code only as data: URIs",
        "Repairs and warnings (2):",
        "  info [initialize] the bridge removed 1 icon that is not data: URIs",
        "  info [tools/list] the bridge removed 3 icons that are not data: URIs",
    ] {
        assert!(report.contains(expected), "the report lacks {expected:?}:\n{report}");
    }
    assert!(!report.contains(PATH_SECRET) && !report.contains(QUERY_SECRET), "{report}");
}

/// Issue 15: a result response of an upstream at a URL takes the fast
/// path too, in a JSON body and in an event of a stream: an untouched member
/// reaches the client byte for byte, with the escapes and whitespace of
/// the server (the full path would write `"text"` and `"a/b\u{e9}"`), and
/// the members that a rule names are gone. A resource link in the content
/// keeps a result on the full path, where the icon rule filters it
/// (`an_upstream_at_a_url_keeps_only_the_data_icons`).
#[test]
fn a_result_of_an_upstream_at_a_url_reaches_the_client_byte_for_byte() {
    let fake = Fake::start("fast", &[]);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
    isolated(&mut cmd).arg(fake.url());
    let mut bridge = Driver::spawn(cmd);
    bridge.initialize();
    let block = r#"{"type":"t\u0065xt", "text": "a\/b\u00e9"}"#;
    // `{{id}}` is the fake's place for the request's id.
    let response = format!(r#"{{"jsonrpc":"2.0","id":{{{{id}}}},"result":{{"content":[ {block} ],"ttlMs":1}}}}"#);
    for (id, tool, arguments) in [
        (1, "body", json!({"text": response})),
        (2, "sse", json!({"frames": [format!("event: message\ndata: {response}\n\n")]})),
    ] {
        bridge.send(&call_tool(json!(id), tool, arguments));
        let want = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[ {block} ]}}}}"#);
        assert_eq!(bridge.recv_text(), want, "{tool}");
    }
}

// --- check and the secrets in the logs -------------------------------------------------------

/// `check <URL>` works like `check -- <command>`: it prints what VS Code will
/// see, and it leaves out a tool with an x-mcp-header that is not valid.
#[test]
fn check_with_a_url_reports_the_server_and_its_tools() {
    let tools = json!({"tools": [
        {"name": "tag", "inputSchema": {"type": "object", "properties": {"tags": {"type": "array"}}}},
        {"name": "bad", "inputSchema": {"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}}
    ]});
    let fake = Fake::start("check", &["--result", &format!("tools/list={tools}")]);
    let output = isolated(&mut Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode")))
        .arg("check")
        .arg(fake.url())
        .stdin(Stdio::null())
        .output()
        .expect("check runs");
    let report = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{report}\n{stderr}");
    for expected in [
        "Server: fake-http-upstream 0.0.1",
        "Instructions: fake http instructions",
        "tools/list: 1 item(s)",
        "  - tag",
        "[tools/list] tool 'tag', inputSchema '/properties/tags': an array schema without items got items: {}",
        "VS Code can use this server.",
    ] {
        assert!(report.contains(expected), "the report lacks {expected:?}:\n{report}");
    }
    assert!(
        stderr.lines().any(|l| l.contains(" WARN ") && l.contains("bad")),
        "the warning of the tool bad:\n{stderr}"
    );
    assert_no_secret("the report", &report);
    assert_no_secret("the stderr of check", &stderr);
}

/// "A message or a detail never contains a secret"; "A message never has the
/// URL of the upstream server, because its path or its query can hold a
/// key"; the logs never hold a secret: through failures of every kind
/// (statuses, a JSON-RPC error, a body over the limit, a broken stream, a
/// time limit, a redirect, failing listen streams, a cancel, an unreachable
/// and an untrusted server), neither the whole stderr of the bridge at its
/// default level nor any message it wrote holds the path or the query of
/// the URL, or the value of `--header-env`; at the level debug, the value of
/// `--header-env` is still never written.
#[test]
fn no_message_and_no_log_line_holds_the_path_or_query_of_the_url_or_the_header_value() {
    let key = [("MCP_BRIDGE_TEST_KEY", HEADER_SECRET)];
    let header_env = ["--header-env", "X-Api-Key=MCP_BRIDGE_TEST_KEY"];
    for level in [None, Some("debug")] {
        let fake = Fake::start(
            "secrets",
            &["--capabilities", r#"{"tools":{"listChanged":true}}"#, "--listen", "ack-close:0,status:503,status:401"],
        );
        let mut options = header_env.to_vec();
        options.extend([
            "--max-response-bytes",
            "4096",
            "--test-request-timeout-ms",
            "1000",
            "--test-listen-ms",
            LISTEN_MS,
        ]);
        let env: Vec<(&str, &str)> = key.iter().copied().chain(level.map(|l| ("MCP_BRIDGE_LOG", l))).collect();
        let mut driver = bridge_env(&fake.url(), &options, &env);
        driver.initialize();
        let calls = [
            ("status", json!({"code": 500})),
            ("status", json!({"code": 404, "body": "jsonrpc"})),
            ("big", json!({"bytes": 8192})),
            ("sse", json!({"frames": ["data: {{log}}\n\n"], "end": "abort"})),
            ("slow", json!({"ms": 5000})),
            ("redirect", json!({})),
            ("body", json!({"text": "nope"})),
        ];
        for (i, (tool, arguments)) in calls.iter().enumerate() {
            driver.send(&call(json!(i), tool, arguments.clone()));
            let response = driver.response(&json!(i));
            assert!(response.get("error").is_some(), "{tool} fails: {response}");
        }
        driver.send(&call(json!("cancel"), "wait", json!({})));
        fake.wait("the wait call", |e| e.iter().any(|p| p["body"]["params"]["name"] == "wait"));
        driver.cancel(&json!("cancel"));
        fake.wait("three listen streams", |e| {
            e.iter().filter(|p| p["body"]["method"] == "subscriptions/listen").count() >= 3
        });
        driver.assert_alive_amid("ping");
        let seen = json!(driver.seen).to_string();
        let ended = finish(driver);
        assert_no_secret("the messages of the bridge", &seen);
        match level {
            None => assert_no_secret("the stderr of the bridge", &ended.stderr),
            Some(_) => assert!(!ended.stderr.contains(HEADER_SECRET), "the header value at debug:\n{}", ended.stderr),
        }
    }
    // An upstream that cannot be reached, and one whose certificate is not trusted.
    let port = Fake::start("secrets-gone", &[]).served.port;
    let (tls, _files) = tls_fake("secrets-tls");
    for url in [format!("http://127.0.0.1:{port}/mcp/{PATH_SECRET}?key={QUERY_SECRET}"), tls.url()] {
        let mut driver = bridge_env(&url, &header_env, &key);
        let response = driver.initialize_with(json!({}));
        assert_eq!(response["error"]["data"]["cause"], "transport_failed", "{response}");
        let seen = json!(driver.seen).to_string();
        let ended = finish(driver);
        assert_no_secret("the messages of the bridge", &seen);
        assert_no_secret("the stderr of the bridge", &ended.stderr);
    }
}
