//! The initialize over HTTP and the headers of each message: "Sending
//! Messages", "Request Metadata", "Value Encoding" and "Custom Headers from
//! Tool Parameters" of the Streamable HTTP page.

use super::*;

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
pub(super) fn annotated_tools() -> Value {
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
