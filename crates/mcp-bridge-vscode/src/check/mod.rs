//! `mcp-bridge-vscode check`: runs the bridge as VS Code would and prints
//! what VS Code will see of the server, with every repair the bridge made.
//!
//! The bridge runs in this process: `check` is its client over an
//! in-memory pipe, and the front end reports each note of the result rules
//! to `check` as well as to the log.

use mcp_bridge::frontend::{self, Config, NoteSink};
use mcp_bridge::translate::note::Note;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

/// `println!` that does not panic when stdout is gone (`check | head`):
/// the rest of the report is lost, the check still ends with its exit code.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// VS Code asks for pages while `nextCursor` is present; `check` stops
/// after this many pages of one list.
const MAX_PAGES: usize = 1000;
/// The longest wait for one answer of the bridge.
const ANSWER_WAIT: Duration = Duration::from_secs(180);

/// The capabilities VS Code declares in its initialize.
fn vscode_capabilities() -> Value {
    json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}, "url": {}}})
}

/// Runs the check; returns whether VS Code can use the server.
pub async fn run(mut config: Config) -> bool {
    let notes: Arc<Mutex<Vec<(String, Note)>>> = Arc::default();
    let sink_notes = notes.clone();
    config.notes = Some(NoteSink(Arc::new(move |method: &str, note: &Note| {
        if let Ok(mut notes) = sink_notes.lock() {
            notes.push((method.to_owned(), note.clone()));
        }
    })));
    let (client_end, bridge_end) = tokio::io::duplex(1 << 20);
    let (bridge_read, bridge_write) = tokio::io::split(bridge_end);
    let bridge = tokio::spawn(frontend::serve(config, bridge_read, bridge_write));
    let (read, write) = tokio::io::split(client_end);
    let mut client = Client { lines: BufReader::new(read).lines(), write, next_id: 0 };
    let usable = report(&mut client, &notes).await;
    drop(client);
    let _ = bridge.await;
    usable
}

struct Client {
    lines: Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    write: tokio::io::WriteHalf<DuplexStream>,
    next_id: u64,
}

impl Client {
    async fn send(&mut self, message: &Value) -> Result<(), String> {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.write.write_all(&line).await.map_err(|e| format!("cannot write to the bridge: {e}"))
    }

    /// Sends a request and returns its result or its error.
    async fn request(&mut self, method: &str, params: Value) -> Result<Result<Value, Value>, String> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await?;
        loop {
            let line = tokio::time::timeout(ANSWER_WAIT, self.lines.next_line())
                .await
                .map_err(|_| format!("no answer to {method} in {} s", ANSWER_WAIT.as_secs()))?
                .map_err(|e| format!("cannot read the bridge: {e}"))?
                .ok_or_else(|| "the bridge closed its output".to_string())?;
            let message: Value =
                serde_json::from_str(&line).map_err(|e| format!("the bridge wrote a line that is not JSON: {e}"))?;
            if message.get("id") != Some(&json!(id)) {
                continue;
            }
            if let Some(result) = message.get("result") {
                return Ok(Ok(result.clone()));
            }
            return Ok(Err(message.get("error").cloned().unwrap_or(Value::Null)));
        }
    }
}

/// Initializes, lists everything, and prints the report.
async fn report(client: &mut Client, notes: &Mutex<Vec<(String, Note)>>) -> bool {
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": vscode_capabilities(),
                      "clientInfo": {"name": "Visual Studio Code", "version": "check"}});
    let result = match client.request("initialize", init).await {
        Ok(Ok(result)) => result,
        Ok(Err(error)) => {
            out!("VS Code cannot use this server: initialize failed.");
            print_error(&error);
            return false;
        }
        Err(problem) => {
            out!("VS Code cannot use this server: {problem}");
            return false;
        }
    };
    if client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await.is_err() {
        return false;
    }
    print_server(&result);
    let capabilities = result.get("capabilities").cloned().unwrap_or(Value::Null);
    let mut usable = true;
    let lists = [
        ("tools", "tools/list", "tools"),
        ("prompts", "prompts/list", "prompts"),
        ("resources", "resources/list", "resources"),
        ("resources", "resources/templates/list", "resourceTemplates"),
    ];
    for (capability, method, member) in lists {
        if capabilities.get(capability).is_none() {
            continue;
        }
        match list_all(client, method, member).await {
            Ok(items) => print_items(method, &items),
            Err(problem) => {
                usable = false;
                out!("\n{method}: FAILED: {problem}");
            }
        }
    }
    let notes = notes.lock().map(|n| n.clone()).unwrap_or_default();
    print_notes(&notes);
    out!("\n{}", if usable { "VS Code can use this server." } else { "VS Code cannot use all of this server." });
    usable
}

/// Follows the pages of a list as VS Code does.
async fn list_all(client: &mut Client, method: &str, member: &str) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let result = client.request(method, params).await?.map_err(|e| describe_error(&e))?;
        items.extend(result.get(member).and_then(Value::as_array).cloned().unwrap_or_default());
        cursor = result.get("nextCursor").cloned();
        if cursor.is_none() {
            return Ok(items);
        }
    }
    Err(format!("more than {MAX_PAGES} pages"))
}

fn print_server(result: &Value) {
    let info = &result["serverInfo"];
    let name = info["name"].as_str().unwrap_or("?");
    let version = info["version"].as_str().unwrap_or("?");
    match info.get("title").and_then(Value::as_str) {
        Some(title) => out!("Server: {title} ({name} {version})"),
        None => out!("Server: {name} {version}"),
    }
    out!(
        "Protocol: {} toward VS Code, 2026-07-28 toward the server",
        result["protocolVersion"].as_str().unwrap_or("?")
    );
    if let Some(capabilities) = result.get("capabilities").and_then(Value::as_object) {
        let names: Vec<&str> = capabilities.keys().map(String::as_str).collect();
        out!("Capabilities: {}", names.join(", "));
    }
    if let Some(instructions) = result.get("instructions").and_then(Value::as_str) {
        out!("Instructions: {instructions}");
    }
}

fn print_items(method: &str, items: &[Value]) {
    out!("\n{method}: {} item(s)", items.len());
    for item in items {
        let name = item.get("name").and_then(Value::as_str);
        let label = item
            .get("uri")
            .or_else(|| item.get("uriTemplate"))
            .and_then(Value::as_str)
            .map(|uri| format!(" <{uri}>"))
            .unwrap_or_default();
        let title = item
            .get("title")
            .or_else(|| item.get("annotations").and_then(|a| a.get("title")))
            .and_then(Value::as_str)
            .map(|t| format!(" \"{t}\""))
            .unwrap_or_default();
        out!("  - {}{title}{label}", name.unwrap_or("(no name)"));
        if let Some(description) = item.get("description").and_then(Value::as_str) {
            out!("      {}", description.lines().next().unwrap_or(""));
        }
    }
}

fn print_notes(notes: &[(String, Note)]) {
    if notes.is_empty() {
        out!("\nRepairs: none needed.");
        return;
    }
    out!("\nRepairs and warnings ({}):", notes.len());
    for (method, note) in notes {
        out!("  {:<4} [{method}] {note}", note.level);
    }
}

fn print_error(error: &Value) {
    out!("  {}", describe_error(error));
}

fn describe_error(error: &Value) -> String {
    let code = error.get("code").map(Value::to_string).unwrap_or_default();
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    let mut text = format!("error {code}: {message}");
    if let Some(data) = error.get("data") {
        text.push_str(&format!(" (data: {data})"));
    }
    text
}
