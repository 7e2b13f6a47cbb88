//! `mcp-bridge-vscode check`: runs the bridge as VS Code would and prints
//! what VS Code will see of the server, with every repair the bridge made.
//!
//! The bridge runs in this process: `check` is its client over an
//! in-memory pipe, and the front end reports each note of the result rules
//! to `check` as well as to the log.

mod print;

use crate::log::{Stdout, Tail};
use mcp_bridge::{Config, Note, NoteSink};
use print::{out, Out};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};

/// VS Code asks for pages while `nextCursor` is present; `check` stops
/// after this many pages of one list.
const MAX_PAGES: usize = 1000;
/// The longest wait for one answer of the bridge.
const ANSWER_WAIT: Duration = Duration::from_secs(180);
/// How long `check` waits for the initialize result before it says what it
/// waits for: a program that is not an MCP server of revision 2026-07-28
/// (`check -- cat`) never answers, and the discover limit is a minute.
const WAIT_NOTICE: Duration = Duration::from_secs(5);

/// How the check ended.
pub struct Outcome {
    /// VS Code can use the server.
    pub usable: bool,
    /// The report could not be written (a full disk, a closed terminal);
    /// a reader that went away early is no failure.
    pub write_failure: Option<std::io::Error>,
}

/// The capabilities VS Code declares in its initialize.
fn vscode_capabilities() -> Value {
    json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {"form": {}, "url": {}}})
}

/// Runs the check. `tail` holds the last lines of the upstream command's
/// stderr, shown when the server fails; `stdout` the lines of its stdout
/// that are no JSON-RPC message.
pub async fn run(mut config: Config, tail: Tail, stdout: Stdout) -> Outcome {
    let context = Context::of(&config, tail, stdout);
    // The error table sends the reader to VS Code's Output channel; in a
    // terminal the log is on stderr (with, for a command, the tail of its
    // stderr that the report shows).
    config.profile.words.log_place = "the log".to_owned();
    config.profile.follows_client = false;
    let notes: Arc<Mutex<Vec<(String, Note)>>> = Arc::default();
    let sink_notes = notes.clone();
    config.notes = Some(NoteSink::new(move |method: &str, note: &Note| {
        if let Ok(mut notes) = sink_notes.lock() {
            notes.push((method.to_owned(), note.clone()));
        }
    }));
    let (client_end, bridge_end) = tokio::io::duplex(1 << 20);
    let (bridge_read, bridge_write) = tokio::io::split(bridge_end);
    let bridge = tokio::spawn(mcp_bridge::serve(config, bridge_read, bridge_write));
    let (read, write) = tokio::io::split(client_end);
    let mut client = Client { lines: BufReader::new(read).lines(), write, next_id: 0 };
    let mut o = Out::new();
    let usable = report(&mut o, &mut client, &notes, &context).await;
    // A report that ended early has not shown them; from here on the log
    // writes them (a line the server writes as it exits).
    context.show_stdout(&mut o);
    drop(client);
    let _ = bridge.await;
    Outcome { usable, write_failure: o.finish() }
}

/// What the report needs to know of the upstream besides its answers.
struct Context {
    /// A server at a URL: its icons follow the icon rule, and it has no
    /// stderr to show.
    remote: bool,
    /// The time limit of server/discover.
    discover: Duration,
    tail: Tail,
    stdout: Stdout,
}

impl Context {
    fn of(config: &Config, tail: Tail, stdout: Stdout) -> Self {
        let remote = config.upstream.is_remote();
        Context { remote, discover: config.timeouts.discover, tail, stdout }
    }

    /// The lines of the command's stdout that the bridge dropped, if any
    /// and not shown yet. The log of `check` leaves them to the report.
    fn show_stdout(&self, o: &mut Out) {
        if let Some((first, count)) = self.stdout.report() {
            print::stdout_lines(o, &first, count);
        }
    }

    /// After a failure: the server's last lines of stderr, for a command.
    fn show_stderr(&self, o: &mut Out) {
        if !self.remote {
            print::stderr_tail(o, &self.tail.lines());
        }
    }

    /// Said once when the initialize result is late, on stderr: the
    /// report on stdout stays as it would be.
    fn wait_notice(&self) -> String {
        let (what, limit) = if self.remote {
            (
                "the server at the URL (or a sign-in in the browser)",
                "--discover-timeout, and --sign-in-timeout for a sign-in",
            )
        } else {
            ("the upstream command", "--discover-timeout")
        };
        format!(
            "{}: waiting for {what} to answer server/discover ({limit}: {} s). \
             A server of revision 2026-07-28 answers at once; a program that is not one never does.",
            crate::profile::NAME,
            self.discover.as_secs()
        )
    }
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
        let id = self.start(method, params).await?;
        self.answer(id, method).await
    }

    /// [`Client::request`], with the wait notice on stderr when the answer
    /// takes longer than [`WAIT_NOTICE`]. A line on the command's stdout
    /// that is no JSON-RPC message (a banner) ends the wait when no answer
    /// follows it within [`WAIT_NOTICE`]: such a server would otherwise
    /// keep `check` silent until the discover limit.
    async fn request_noting_delay(
        &mut self,
        method: &str,
        params: Value,
        context: &Context,
    ) -> Result<Result<Value, Value>, String> {
        let id = self.start(method, params).await?;
        let answer = self.answer(id, method);
        tokio::pin!(answer);
        let notice = tokio::time::sleep(WAIT_NOTICE);
        tokio::pin!(notice);
        let mut noticed = false;
        loop {
            tokio::select! {
                answer = &mut answer => return answer,
                () = &mut notice, if !noticed => {
                    noticed = true;
                    eprintln!("{}", context.wait_notice());
                }
                first = context.stdout.first() => {
                    return match tokio::time::timeout(WAIT_NOTICE, &mut answer).await {
                        Ok(answer) => answer,
                        Err(_) => {
                            // The error quotes the line: it shows there.
                            context.stdout.report();
                            Err(format!(
                                "{first}\n  No answer came in {} s after that line, so check stopped waiting.",
                                WAIT_NOTICE.as_secs()
                            ))
                        }
                    };
                }
            }
        }
    }

    /// Sends a request; returns its id.
    async fn start(&mut self, method: &str, params: Value) -> Result<u64, String> {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await?;
        Ok(id)
    }

    /// Reads lines until the answer of request `id`.
    async fn answer(&mut self, id: u64, method: &str) -> Result<Result<Value, Value>, String> {
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
async fn report(o: &mut Out, client: &mut Client, notes: &Mutex<Vec<(String, Note)>>, context: &Context) -> bool {
    let init = json!({"protocolVersion": "2025-11-25", "capabilities": vscode_capabilities(),
                      "clientInfo": {"name": "Visual Studio Code", "version": "check"}});
    let result = match client.request_noting_delay("initialize", init, context).await {
        Ok(Ok(result)) => result,
        Ok(Err(error)) => {
            out!(o, "VS Code cannot use this server: initialize failed.");
            out!(o, "  {}", print::describe_error(&error));
            context.show_stdout(o);
            context.show_stderr(o);
            return false;
        }
        Err(problem) => {
            out!(o, "VS Code cannot use this server: {problem}");
            context.show_stdout(o);
            context.show_stderr(o);
            return false;
        }
    };
    if client.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await.is_err() {
        return false;
    }
    print::server(o, &result, context.remote);
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
            Ok(items) => print::items(o, method, &items),
            Err(problem) => {
                usable = false;
                out!(o, "\n{method}: FAILED: {problem}");
            }
        }
    }
    let notes = notes.lock().map(|n| n.clone()).unwrap_or_default();
    print::notes(o, &notes);
    context.show_stdout(o);
    if !usable {
        context.show_stderr(o);
    }
    out!(o, "\n{}", if usable { "VS Code can use this server." } else { "VS Code cannot use all of this server." });
    usable
}

/// Follows the pages of a list as VS Code does.
async fn list_all(client: &mut Client, method: &str, member: &str) -> Result<Vec<Value>, String> {
    let mut items = Vec::new();
    let mut cursor: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let result = client.request(method, params).await?.map_err(|e| print::describe_error(&e))?;
        items.extend(result.get(member).and_then(Value::as_array).cloned().unwrap_or_default());
        cursor = result.get("nextCursor").cloned();
        if cursor.is_none() {
            return Ok(items);
        }
    }
    Err(format!("more than {MAX_PAGES} pages"))
}
