//! "Icons of a remote upstream server (M4)": an upstream at a URL keeps
//! only the icons with a data: URI.

use super::*;

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
