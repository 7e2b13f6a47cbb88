//! The demo server on an in-memory pipe, as a raw client of revision
//! 2026-07-28 sees it.

use super::serve_with;
use super::server::{ITEM_TEMPLATE, README, README_URI};
use mcp_bridge::embed::Discover;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf};

/// A raw client of revision 2026-07-28 on an in-memory pipe.
struct Wire {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    write: WriteHalf<DuplexStream>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

impl Wire {
    fn start() -> Self {
        let (client, server) = tokio::io::duplex(1 << 16);
        let (server_read, server_write) = tokio::io::split(server);
        let server = tokio::spawn(serve_with(server_read, server_write, Discover::Answer));
        let (read, write) = tokio::io::split(client);
        Wire { lines: BufReader::new(read).lines(), write, server }
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.write.write_all(&line).await.expect("the server reads");
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
            .await
            .expect("a line within 10 s")
            .expect("the server writes")
            .expect("the server's output is open");
        eprintln!("<- {line}");
        serde_json::from_str(&line).expect("a JSON line")
    }

    /// Sends a request with the inline `_meta` of 2026-07-28 and returns
    /// the whole answer.
    async fn request(&mut self, id: u64, method: &str, mut params: Value) -> Value {
        params["_meta"] = meta();
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        self.recv().await
    }
}

#[tokio::test(start_paused = true)]
async fn discover_answers_with_the_server_and_2026_07_28() {
    let mut wire = Wire::start();
    let discover = wire.request(1, "server/discover", json!({})).await;
    let result = &discover["result"];
    assert_eq!(result["resultType"], "complete", "{discover}");
    assert!(result["supportedVersions"].as_array().unwrap().contains(&json!("2026-07-28")), "{discover}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "mcp-bridge-demo", "title": "mcp-bridge demo server", "version": env!("CARGO_PKG_VERSION")})
    );
    assert_eq!(
        result["capabilities"],
        json!({"completions": {}, "prompts": {}, "resources": {}, "tools": {"listChanged": true}})
    );
    assert!(result["instructions"].as_str().unwrap().starts_with("A demo server of revision 2026-07-28"));
    // A request without the inline `_meta` is refused by rmcp.
    wire.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})).await;
    let refused = wire.recv().await;
    assert_eq!(refused["id"], 2);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
}

#[tokio::test(start_paused = true)]
async fn the_tools_keep_the_schemas_that_the_bridge_repairs() {
    let mut wire = Wire::start();
    let list = wire.request(1, "tools/list", json!({})).await;
    let result = &list["result"];
    assert_eq!(
        (&result["resultType"], &result["ttlMs"], &result["cacheScope"]),
        (&json!("complete"), &json!(0), &json!("private"))
    );
    let tools = result["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["add", "tag_items", "list_primes", "slow_count", "ask_name", "add_tool"]);
    let tag = &tools[1]["inputSchema"];
    assert_eq!(tag["properties"]["tags"], json!({"type": "array", "description": "Tags, without an items schema"}));
    assert_eq!(tag["properties"]["labels"]["anyOf"][0], json!({"type": "array"}));
    assert_eq!(tag["$defs"]["pair"]["items"], false);
    assert_eq!(tag["$defs"]["pair"]["prefixItems"].as_array().map(Vec::len), Some(2));
    assert_eq!(tools[0]["outputSchema"]["type"], "object");
    assert_eq!(tools[2]["outputSchema"], json!({"type": "array", "items": {"type": "integer"}}));
}

#[tokio::test(start_paused = true)]
async fn the_structured_results_have_no_text_and_the_primes_are_an_array() {
    let mut wire = Wire::start();
    let add = wire.request(1, "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3.5}})).await;
    assert_eq!(
        add["result"],
        json!({"resultType": "complete", "content": [], "structuredContent": {"sum": 5.5}, "isError": false})
    );
    let sums = [(json!(2), json!(3), "5"), (json!(2.5), json!(2.5), "5"), (json!(-2), json!(0.25), "-1.75")];
    for (id, (a, b, sum)) in (11..).zip(sums) {
        let add = wire.request(id, "tools/call", json!({"name": "add", "arguments": {"a": a, "b": b}})).await;
        let text = add["result"]["structuredContent"]["sum"].to_string();
        assert_eq!(text, sum, "a whole sum is written without .0: {a} + {b}");
    }
    let primes = wire.request(2, "tools/call", json!({"name": "list_primes", "arguments": {"limit": 12}})).await;
    assert_eq!(primes["result"]["structuredContent"], json!([2, 3, 5, 7, 11]));
    assert_eq!(primes["result"]["content"], json!([]));
    let bad = wire.request(3, "tools/call", json!({"name": "add", "arguments": {"a": 2}})).await;
    assert_eq!(bad["result"]["isError"], true, "{bad}");
    assert_eq!(bad["result"]["content"], json!([{"type": "text", "text": "`b` is required"}]));
    let tagged = wire.request(4, "tools/call", json!({"name": "tag_items", "arguments": {"tags": ["x"]}})).await;
    assert_eq!(tagged["result"]["content"], json!([{"type": "text", "text": "tagged with [\"x\"]"}]));
    let unknown = wire.request(5, "tools/call", json!({"name": "nope", "arguments": {}})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[tokio::test(start_paused = true)]
async fn slow_count_reports_each_step_with_the_progress_token() {
    let mut wire = Wire::start();
    let mut params = json!({"name": "slow_count", "arguments": {"steps": 3, "delay_ms": 10}});
    params["_meta"] = meta();
    params["_meta"]["progressToken"] = json!("p");
    wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})).await;
    for step in 1..=3 {
        let progress = wire.recv().await;
        assert_eq!(progress["method"], "notifications/progress", "{progress}");
        assert_eq!(
            progress["params"],
            json!({"progressToken": "p", "progress": f64::from(step), "total": 3.0, "message": format!("step {step} of 3")})
        );
    }
    let done = wire.recv().await;
    assert_eq!(done["id"], 1);
    assert_eq!(done["result"]["content"], json!([{"type": "text", "text": "counted to 3"}]));
    // Without a token, no progress: the answer comes first.
    let quiet =
        wire.request(2, "tools/call", json!({"name": "slow_count", "arguments": {"steps": 2, "delay_ms": 0}})).await;
    assert_eq!(quiet["result"]["content"], json!([{"type": "text", "text": "counted to 2"}]));
}

#[tokio::test(start_paused = true)]
async fn slow_count_stops_when_cancelled_and_gets_no_answer() {
    let start = tokio::time::Instant::now();
    let mut wire = Wire::start();
    let mut params = json!({"name": "slow_count", "arguments": {"steps": 3, "delay_ms": 60_000}});
    params["_meta"] = meta();
    params["_meta"]["progressToken"] = json!(7);
    wire.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})).await;
    wire.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "test"}}),
    )
    .await;
    let list = wire.request(2, "tools/list", json!({})).await;
    assert_eq!(list["id"], 2, "the cancelled call gets no answer and no progress: {list}");
    // The end of the input ends the server; rmcp would wait up to 5 s
    // for a handler still running.
    let Wire { mut lines, mut write, server } = wire;
    write.shutdown().await.expect("the input ends");
    let rest = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await.expect("the output ends");
    assert_eq!(rest.expect("the server writes"), None, "nothing more after the end of the input");
    server.await.expect("the server task").expect("the server ends well");
    assert!(start.elapsed() < Duration::from_secs(5), "the cancelled call stopped at once");
}

#[tokio::test(start_paused = true)]
async fn the_prompt_the_resources_and_their_completions() {
    let mut wire = Wire::start();
    let prompts = wire.request(1, "prompts/list", json!({})).await;
    assert_eq!(prompts["result"]["prompts"][0]["name"], "greet");
    assert_eq!(prompts["result"]["prompts"][0]["arguments"][0]["name"], "name");
    let greet = wire.request(2, "prompts/get", json!({"name": "greet", "arguments": {"name": "Ada"}})).await;
    assert_eq!(
        greet["result"]["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Say hello to Ada, in one friendly sentence."}}])
    );
    let no_name = wire.request(3, "prompts/get", json!({"name": "greet"})).await;
    assert_eq!(no_name["error"]["code"], -32602, "{no_name}");
    let names = wire
        .request(
            4,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": "a"}}),
        )
        .await;
    assert_eq!(names["result"]["completion"]["values"], json!(["Ada", "Alan"]));
    let ids = wire
        .request(
            5,
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": ITEM_TEMPLATE}, "argument": {"name": "id", "value": ""}}),
        )
        .await;
    assert_eq!(ids["result"]["completion"]["values"], json!(["1", "2", "3"]));
    let resources = wire.request(6, "resources/list", json!({})).await;
    assert_eq!(resources["result"]["resources"][0]["uri"], README_URI);
    let templates = wire.request(7, "resources/templates/list", json!({})).await;
    assert_eq!(templates["result"]["resourceTemplates"][0]["uriTemplate"], ITEM_TEMPLATE);
    let readme = wire.request(8, "resources/read", json!({"uri": README_URI})).await;
    assert_eq!(readme["result"]["contents"][0]["text"], README);
    let item = wire.request(9, "resources/read", json!({"uri": "demo://items/2"})).await;
    assert_eq!(
        item["result"]["contents"],
        json!([{"uri": "demo://items/2", "mimeType": "text/plain", "text": "The second item."}])
    );
    let missing = wire.request(10, "resources/read", json!({"uri": "demo://items/9"})).await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
}

#[tokio::test(start_paused = true)]
async fn an_input_that_ends_at_once_ends_the_server_well() {
    let Wire { lines, write, server } = Wire::start();
    drop((lines, write));
    server.await.expect("the server task").expect("no error");
}
