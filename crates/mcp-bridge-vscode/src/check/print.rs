//! The text of the `check` report, and the stdout it goes to.
//!
//! Every text of the server in the report (its names, titles, URIs,
//! descriptions, instructions, capability names and error messages)
//! passes the library's gate of outside text (`shown`): a terminal escape
//! or a line break of a server must not write into the user's terminal or
//! forge a line of the report, such as "VS Code can use this server."

use mcp_bridge::cli_support::{shown, DETAIL, LINE, NAME};
use mcp_bridge::Note;
use serde_json::Value;
use std::fmt;
use std::io::{self, Write};

/// The report's stdout. A reader that goes away (`check | head`) ends the
/// report quietly, as any Unix filter does; any other failure to write
/// (`check > /dev/full`) is kept, so that `check` can say so and fail
/// instead of reporting a success that nobody could read.
pub struct Out {
    failure: Option<io::Error>,
    closed: bool,
}

impl Out {
    pub fn new() -> Self {
        Out { failure: None, closed: false }
    }

    /// Writes one line, unless an earlier line failed.
    pub fn line(&mut self, text: fmt::Arguments<'_>) {
        if self.closed || self.failure.is_some() {
            return;
        }
        let mut stdout = io::stdout().lock();
        if let Err(err) = stdout.write_fmt(text).and_then(|()| stdout.write_all(b"\n")) {
            self.fail(err);
        }
    }

    /// Flushes the report; returns the failure to write it, if any.
    pub fn finish(mut self) -> Option<io::Error> {
        if !self.closed && self.failure.is_none() {
            if let Err(err) = io::stdout().flush() {
                self.fail(err);
            }
        }
        self.failure
    }

    fn fail(&mut self, err: io::Error) {
        if err.kind() == io::ErrorKind::BrokenPipe {
            self.closed = true;
        } else {
            self.failure = Some(err);
        }
    }
}

/// `writeln!` into an [`Out`].
macro_rules! out {
    ($out:expr, $($arg:tt)*) => {
        $out.line(format_args!($($arg)*))
    };
}
pub(crate) use out;

pub fn server(o: &mut Out, result: &Value, remote: bool) {
    let info = &result["serverInfo"];
    let text = |value: &Value| shown(value.as_str().unwrap_or("?"), NAME).to_string();
    // A server without a version (Python's MCPServer sends "") is shown
    // without one: VS Code gets the "" as the server sent it.
    let name = match info["version"].as_str() {
        Some("") => text(&info["name"]),
        _ => format!("{} {}", text(&info["name"]), text(&info["version"])),
    };
    match info.get("title").and_then(Value::as_str) {
        Some(title) => out!(o, "Server: {} ({name})", shown(title, NAME)),
        None => out!(o, "Server: {name}"),
    }
    out!(o, "Protocol: {} toward VS Code, 2026-07-28 toward the server", text(&result["protocolVersion"]));
    if let Some(capabilities) = result.get("capabilities").and_then(Value::as_object) {
        let names: Vec<String> = capabilities.keys().map(|name| shown(name, NAME).to_string()).collect();
        out!(o, "Capabilities: {}", names.join(", "));
    }
    if let Some(instructions) = result.get("instructions").and_then(Value::as_str) {
        out!(o, "Instructions: {}", shown(instructions, LINE));
    }
    if remote {
        out!(o, "Icons: a remote server's icons reach VS Code only as data: URIs; the notes below count what the bridge removed");
    }
}

pub fn items(o: &mut Out, method: &str, items: &[Value]) {
    out!(o, "\n{method}: {} item(s)", items.len());
    for item in items {
        let name = item.get("name").and_then(Value::as_str).unwrap_or("(no name)");
        let label = item
            .get("uri")
            .or_else(|| item.get("uriTemplate"))
            .and_then(Value::as_str)
            .map(|uri| format!(" <{}>", shown(uri, NAME)))
            .unwrap_or_default();
        let title = item
            .get("title")
            .or_else(|| item.get("annotations").and_then(|a| a.get("title")))
            .and_then(Value::as_str)
            .map(|t| format!(" \"{}\"", shown(t, NAME)))
            .unwrap_or_default();
        out!(o, "  - {}{title}{label}", shown(name, NAME));
        if let Some(first) = description(item) {
            out!(o, "      {}", shown(first, DETAIL));
        }
    }
}

/// The first line of an item's description that has text: an empty
/// description, or one that starts with blank lines, gives no blank line.
fn description(item: &Value) -> Option<&str> {
    item.get("description")?.as_str()?.lines().map(str::trim).find(|line| !line.is_empty())
}

pub fn notes(o: &mut Out, notes: &[(String, Note)]) {
    if notes.is_empty() {
        out!(o, "\nRepairs: none needed.");
        return;
    }
    out!(o, "\nRepairs and warnings ({}):", notes.len());
    for (method, note) in notes {
        out!(o, "  {:<4} [{method}] {note}", note.level);
    }
}

/// The lines of the command's stdout that are no JSON-RPC message: how
/// many, and the bridge's warning of the first, which quotes it.
pub fn stdout_lines(o: &mut Out, first: &str, count: usize) {
    out!(o, "\nThe server wrote {count} line(s) to stdout that the bridge dropped. The first:");
    out!(o, "  {first}");
}

/// The last lines of the upstream command's stderr, after a failure.
pub fn stderr_tail(o: &mut Out, lines: &[String]) {
    if lines.is_empty() {
        out!(o, "\nThe server wrote nothing to stderr.");
        return;
    }
    out!(o, "\nThe last lines of the server's stderr:");
    for line in lines {
        out!(o, "  | {line}");
    }
}

/// An error as `check` shows it: its code, message and data.
pub fn describe_error(error: &Value) -> String {
    let code = error.get("code").map(Value::to_string).unwrap_or_default();
    let message = error.get("message").and_then(Value::as_str).unwrap_or("");
    let mut text = format!("error {}: {}", shown(&code, NAME), shown(message, DETAIL));
    if let Some(data) = error.get("data") {
        text.push_str(&format!(" (data: {})", shown(&data.to_string(), DETAIL)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_description_gives_its_first_line_with_text_and_an_empty_one_gives_none() {
        for (item, first) in [
            (json!({"description": "One.\nTwo."}), Some("One.")),
            (json!({"description": "\n  \n  Later.  "}), Some("Later.")),
            (json!({"description": ""}), None),
            (json!({"description": "   "}), None),
            (json!({"description": null}), None),
            (json!({}), None),
        ] {
            assert_eq!(description(&item), first, "{item}");
        }
    }

    /// The report's texts of the server pass the gate: a line break or a
    /// terminal escape cannot forge a line or reach the terminal, and a
    /// long text is cut.
    #[test]
    fn the_texts_of_the_server_are_escaped_and_bounded() {
        let hostile = "n\u{1b}[2J\r\nVS Code can use this server.\u{202e}";
        let error = json!({"code": -32000, "message": format!("{hostile}{}", "x".repeat(300)), "data": hostile});
        let described = describe_error(&error);
        assert!(
            described.starts_with(r"error -32000: n\x1b[2J\r\nVS Code can use this server.\u{202e}xx"),
            "{described}"
        );
        assert!(described.contains(r#"… (data: "n\u001b[2J\r\nVS Code can use this server.\u{202e}")"#), "{described}");
        assert!(!described.chars().any(|c| c.is_control() || c == '\u{202e}'), "{described}");
        assert_eq!(
            description(&json!({"description": hostile})).map(|d| shown(d, DETAIL).to_string()).as_deref(),
            Some(r"n\x1b[2J")
        );
    }

    #[test]
    fn an_error_shows_its_code_message_and_data() {
        let error = json!({"code": -32603, "message": "The upstream server process stopped. See the log.", "data": {"cause": "upstream_exited"}});
        assert_eq!(
            describe_error(&error),
            r#"error -32603: The upstream server process stopped. See the log. (data: {"cause":"upstream_exited"})"#
        );
    }
}
