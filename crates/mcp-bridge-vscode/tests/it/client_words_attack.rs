//! Attacks on the client's words (docs/decisions.md, "Each client's
//! words"; docs/clients.md, "Where each client shows the log"): the new
//! inputs that pick them, `clientInfo.name` of `initialize`, the
//! `_meta["io.modelcontextprotocol/clientInfo"]` of a 2026-07-28 request on
//! the face, and `--client NAME`. The rules checked: a text from outside
//! passes `gate::text` before a log line, a message or `data.detail` (here:
//! the name is only compared, never shown); one client's fault (and words)
//! never another's; every read is bounded; nothing panics or hangs.

use crate::support::driver::Driver;
use crate::support::fake::fake_upstream;
use crate::support::message;
use crate::support::process::{run_bounded, Input};
use serde_json::{json, Value};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::process::Command;
use std::time::{Duration, Instant};

pub(crate) const SPEC_LOG: &str = "the Output channel of the server";
pub(crate) const BY_URL_LOG: &str = "the log of the server (ask its operator)";
const GEMINI_LOG: &str = "the debug console of Gemini CLI (gemini --debug)";
const QWEN_LOG: &str = "the debug log of Qwen Code (qwen --debug)";
const CODEX_LOG: &str = "the log of Codex (~/.codex/log/codex-tui.log)";

/// A name with every trick at once: the placeholders of the error table,
/// an ANSI escape, a newline, an RTL override, a NUL, and a marker to look
/// for.
pub(crate) const HOSTILE: &str = "evil-marker{log}{client}{seconds}{name}\u{1b}[31m\n\u{202e}\u{0}\u{7}";

/// The pieces of [`HOSTILE`] that must never come out raw.
pub(crate) fn assert_no_trace_of_hostile_name(label: &str, text: &str) {
    for piece in ["evil-marker", "\u{1b}", "\u{202e}", "\u{7}", "{seconds}", "{name}", "{client}"] {
        assert!(!text.contains(piece), "{label}: {piece:?} in {text:?}");
    }
    assert!(!text.contains("{log}"), "{label}: a placeholder is left in {text:?}");
}

pub(crate) fn initialize_as(name: Value) -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": name, "version": "1"}})
}

pub(crate) fn missing() -> Vec<String> {
    vec!["/nonexistent/mcp-server".to_string()]
}

/// The message of `cause` with `log` in place of the spec's log place.
pub(crate) fn message_for(cause: &str, log: &str) -> String {
    message(cause).replace(SPEC_LOG, log)
}

pub(crate) fn message_of(response: &Value) -> String {
    response["error"]["message"].as_str().unwrap_or_default().to_owned()
}

// --- stdio -----------------------------------------------------------------

/// The rule "a text from outside passes gate::text before a log line, a
/// message or data.detail": a hostile `clientInfo.name` (placeholders,
/// ANSI, newline, RTL, NUL, BEL) is only compared with the table. The
/// message is the spec's exactly, no data.detail names it, and the log at
/// `trace` holds none of it, before and after a known client.
#[test]
fn a_hostile_client_name_is_only_compared_never_shown_in_a_message_or_the_log() {
    let mut bridge = Driver::start_env(&[], &missing(), &[("MCP_BRIDGE_LOG", "trace")]);
    for (id, (name, log)) in
        [(HOSTILE, SPEC_LOG), ("gemini-cli-mcp-client", GEMINI_LOG), (HOSTILE, SPEC_LOG)].into_iter().enumerate()
    {
        let response = bridge.request(json!(id), "initialize", initialize_as(json!(name)));
        assert_eq!(message_of(&response), message_for("spawn_failed", log), "{id}");
        assert_eq!(response["error"]["data"], json!({"cause": "spawn_failed"}), "{id}");
        assert_no_trace_of_hostile_name("the response", &response.to_string());
    }
    bridge.assert_alive();
    assert_no_trace_of_hostile_name("the log", &bridge.stderr_text());
}

/// The same name in front of a server that starts (the fake, which fails
/// server/discover): the name goes upstream in `clientInfo` as it came
/// (the client's identity), but the bridge's own message and log hold none
/// of it.
#[test]
fn a_hostile_client_name_reaches_no_message_or_log_line_of_a_failed_discover() {
    let mut bridge = Driver::start_env(&[], &fake_upstream(&["--discover", "error"]), &[("MCP_BRIDGE_LOG", "trace")]);
    for (id, (name, log)) in [(HOSTILE, SPEC_LOG), ("codex-mcp-client", CODEX_LOG)].into_iter().enumerate() {
        let response = bridge.request(json!(id), "initialize", initialize_as(json!(name)));
        assert_eq!(response["error"]["data"]["cause"], "discover_failed", "{response}");
        assert_eq!(message_of(&response), message_for("discover_failed", log), "{id}");
        assert_no_trace_of_hostile_name("the response", &response.to_string());
    }
    bridge.assert_alive();
    assert_no_trace_of_hostile_name("the log", &bridge.stderr_text());
}

/// The table is matched exactly (docs/clients.md: "only compared with the
/// table"): a known name with another case, a space, a newline or a NUL
/// around it, or a prefix trick against the `qwen-cli-mcp-client-*` row
/// (no dash, a character before it) is unknown and reads the spec's words;
/// only a name that starts with the whole prefix is Qwen Code's, and its
/// tail (here hostile) is never shown.
#[test]
fn a_near_miss_of_a_known_client_name_reads_the_specs_words_and_a_prefix_tail_is_never_shown() {
    let mut bridge = Driver::start(&[], &missing());
    let qwen_tail = format!("qwen-cli-mcp-client-{HOSTILE}");
    let cases: Vec<(String, &str)> = vec![
        ("gemini-cli-mcp-client ".into(), SPEC_LOG),
        (" gemini-cli-mcp-client".into(), SPEC_LOG),
        ("Gemini-CLI-MCP-Client".into(), SPEC_LOG),
        ("GEMINI-CLI-MCP-CLIENT".into(), SPEC_LOG),
        ("gemini-cli-mcp-client\n".into(), SPEC_LOG),
        ("gemini-cli-mcp-client\u{0}".into(), SPEC_LOG),
        ("codex-mcp-client\u{200b}".into(), SPEC_LOG),
        ("qwen-cli-mcp-client".into(), SPEC_LOG),
        ("xqwen-cli-mcp-client-demo".into(), SPEC_LOG),
        ("QWEN-CLI-MCP-CLIENT-demo".into(), SPEC_LOG),
        ("qwen-cli-mcp-client*".into(), SPEC_LOG),
        ("*".into(), SPEC_LOG),
        ("".into(), SPEC_LOG),
        ("gemini".into(), SPEC_LOG),
        ("vscode".into(), SPEC_LOG),
        (qwen_tail, QWEN_LOG),
        ("qwen-cli-mcp-client-".into(), QWEN_LOG),
        ("gemini-cli-mcp-client".into(), GEMINI_LOG),
    ];
    for (id, (name, log)) in cases.iter().enumerate() {
        let response = bridge.request(json!(id), "initialize", initialize_as(json!(name)));
        assert_eq!(message_of(&response), message_for("spawn_failed", log), "{name:?}");
        assert_no_trace_of_hostile_name("the response", &response.to_string());
    }
    bridge.assert_alive();
}

/// A `clientInfo.name` that is not a string (number, object, array, null,
/// bool, missing) fails initialize with invalid_params exactly as before
/// the feature, and the next, valid initialize gets its own words.
#[test]
fn a_client_name_that_is_not_a_string_is_invalid_params_and_the_next_initialize_has_its_own_words() {
    let mut bridge = Driver::start(&[], &missing());
    let invalid = json!({"code": -32602, "message": message("invalid_params"), "data": {"cause": "invalid_params"}});
    let bad_names = [
        json!(5),
        json!({"name": "gemini-cli-mcp-client"}),
        json!(["gemini-cli-mcp-client"]),
        Value::Null,
        json!(true),
    ];
    for (id, name) in bad_names.into_iter().enumerate() {
        let response = bridge.request(json!(id), "initialize", initialize_as(name.clone()));
        assert_eq!(response["error"], invalid, "{name}");
    }
    let no_name = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"version": "1"}});
    assert_eq!(bridge.request(json!("no-name"), "initialize", no_name)["error"], invalid);
    let info_string =
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": "gemini-cli-mcp-client"});
    assert_eq!(bridge.request(json!("info-string"), "initialize", info_string)["error"], invalid);
    let response = bridge.request(json!("gemini"), "initialize", initialize_as(json!("gemini-cli-mcp-client")));
    assert_eq!(message_of(&response), message_for("spawn_failed", GEMINI_LOG));
    bridge.assert_alive();
}

/// Two initializes in a row, the first failing: the words follow the
/// second, both ways (known then unknown, unknown then known), and a
/// known name never sticks to a later unknown client.
#[test]
fn the_words_follow_the_latest_initialize_and_a_known_name_never_sticks() {
    let mut bridge = Driver::start(&[], &fake_upstream(&["--discover", "error"]));
    for (id, (name, log)) in [
        ("gemini-cli-mcp-client", GEMINI_LOG),
        ("my-client", SPEC_LOG),
        ("codex-mcp-client", CODEX_LOG),
        (HOSTILE, SPEC_LOG),
        ("qwen-cli-mcp-client-x", QWEN_LOG),
        ("Visual Studio Code", SPEC_LOG),
    ]
    .into_iter()
    .enumerate()
    {
        let response = bridge.request(json!(id), "initialize", initialize_as(json!(name)));
        assert_eq!(message_of(&response), message_for("discover_failed", log), "{name:?}");
    }
}

/// An initialize that comes while another is in flight is refused
/// (already_initialized) and must not change the words of the one in
/// flight: the first client's error names its own log.
#[test]
fn a_second_initialize_in_flight_does_not_change_the_words_of_the_first() {
    let fake = fake_upstream(&["--discover", "error", "--discover-delay-ms", "800"]);
    let mut bridge = Driver::start(&[], &fake);
    bridge.send_request(json!("first"), "initialize", initialize_as(json!("gemini-cli-mcp-client")));
    std::thread::sleep(Duration::from_millis(150));
    let second = bridge.call(json!("second"), "initialize", initialize_as(json!("codex-mcp-client")));
    assert_eq!(second["error"]["data"]["cause"], "already_initialized", "{second}");
    let first = bridge.response(&json!("first"));
    assert_eq!(message_of(&first), message_for("discover_failed", GEMINI_LOG), "{first}");
    // And the connection's next initialize (now the first is over) is a
    // client of its own.
    let third = bridge.request(json!("third"), "initialize", initialize_as(json!("my-client")));
    assert_eq!(message_of(&third), message_for("discover_failed", SPEC_LOG), "{third}");
}

/// After `ready` the words are the initialize's for every later message:
/// a second initialize (already_initialized) with another client, and a
/// request whose `_meta` names another client the 2026-07-28 way, change
/// nothing on stdio.
#[test]
fn after_ready_neither_a_second_initialize_nor_a_meta_client_info_changes_the_words() {
    let mut bridge = Driver::start(&["--test-request-timeout-ms", "300"], &fake_upstream(&[]));
    let init = bridge.request(json!("init"), "initialize", initialize_as(json!("gemini-cli-mcp-client")));
    assert!(init.get("result").is_some(), "{init}");
    bridge.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let stall = |id: &str, meta: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "stall", "arguments": {}, "_meta": meta}});
    bridge.send(&stall("s1", json!({})));
    let first = bridge.response(&json!("s1"));
    assert_eq!(first["error"]["data"]["cause"], "timeout", "{first}");
    assert_eq!(message_of(&first), message_for("timeout", GEMINI_LOG));

    let again = bridge.call(json!("again"), "initialize", initialize_as(json!("codex-mcp-client")));
    assert_eq!(again["error"]["data"]["cause"], "already_initialized", "{again}");
    let meta = json!({"io.modelcontextprotocol/clientInfo": {"name": "codex-mcp-client", "version": "1"}});
    bridge.send(&stall("s2", meta));
    let second = bridge.response(&json!("s2"));
    assert_eq!(message_of(&second), message_for("timeout", GEMINI_LOG), "{second}");
    let hostile = json!({"io.modelcontextprotocol/clientInfo": {"name": HOSTILE, "version": "1"}});
    bridge.send(&stall("s3", hostile));
    let third = bridge.response(&json!("s3"));
    assert_eq!(message_of(&third), message_for("timeout", GEMINI_LOG), "{third}");
    assert_no_trace_of_hostile_name("the response", &third.to_string());
}

/// "Every read is bounded": a 1 MiB name (and a 1 MiB name behind the
/// Qwen prefix) costs a comparison, not an echo: the response is the
/// table's, short, and the log does not grow with it. A name over
/// --max-line-bytes is refused with the line, and the bridge goes on.
#[test]
fn a_huge_client_name_is_compared_not_echoed_and_a_line_over_the_limit_is_refused() {
    let mut bridge = Driver::start_env(&[], &missing(), &[("MCP_BRIDGE_LOG", "trace")]);
    let big = "A".repeat(1 << 20);
    for (id, (name, log)) in
        [(big.clone(), SPEC_LOG), (format!("qwen-cli-mcp-client-{big}"), QWEN_LOG)].into_iter().enumerate()
    {
        let started = Instant::now();
        let response = bridge.request(json!(id), "initialize", initialize_as(json!(name)));
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
        assert_eq!(message_of(&response), message_for("spawn_failed", log));
        assert!(response.to_string().len() < 1024, "{} bytes", response.to_string().len());
    }
    assert!(bridge.stderr_text().len() < 64 * 1024, "the log holds {} bytes", bridge.stderr_text().len());
    bridge.assert_alive();

    let mut small = Driver::start(&["--max-line-bytes", "4096"], &missing());
    let response = small.request(json!("big"), "initialize", initialize_as(json!(big)));
    assert!(response.get("error").is_some(), "{}", &response.to_string()[..200.min(response.to_string().len())]);
    assert!(response.to_string().len() < 1024, "{} bytes", response.to_string().len());
    let response = small.request(json!("gemini"), "initialize", initialize_as(json!("gemini-cli-mcp-client")));
    assert_eq!(message_of(&response), message_for("spawn_failed", GEMINI_LOG));
}

// --- --client ----------------------------------------------------------------

/// `--client` takes exactly the ids of docs/clients.md: an empty value,
/// another case, a trailing newline or space, a `clientInfo` name, ANSI,
/// an RTL override, invalid UTF-8 are a usage error (exit 2, nothing on
/// stdout), and the refusal shows no raw control character of the value.
#[test]
fn an_odd_client_option_is_exit_2_and_echoes_no_raw_control_character() {
    let values: [&[u8]; 10] = [
        b"",
        b"VSCODE",
        b"vscode\n",
        b"vscode ",
        b"Visual Studio Code",
        b"gemini-cli-mcp-client",
        b"vs\x1b[31mcode",
        b"\x1b]0;owned\x07",
        "vscode\u{202e}".as_bytes(),
        b"\xff\xfe\x1b",
    ];
    for value in values {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-bridge-vscode"));
        cmd.arg("--client").arg(OsStr::from_bytes(value)).args(["--", "/nonexistent/mcp-server"]);
        let done = run_bounded(cmd, Input::Open, Duration::from_secs(30));
        let shown = String::from_utf8_lossy(value);
        assert_eq!((done.status.code(), done.stdout.as_str()), (Some(2), ""), "{shown:?}: {}", done.stderr);
        for raw in ['\u{1b}', '\u{7}', '\u{202e}'] {
            assert!(!done.stderr.contains(raw), "{shown:?}: raw {raw:?} in {:?}", done.stderr);
        }
        assert!(!done.stderr.contains("vscode\n'"), "{shown:?}: a raw newline in {:?}", done.stderr);
        assert!(done.stderr.contains("codex"), "{shown:?}: the known names in {:?}", done.stderr);
    }
}

/// `--client codex` fixes the words whatever the client says, hostile
/// names and known names included.
#[test]
fn the_client_option_fixes_the_words_against_hostile_and_known_names() {
    let mut bridge = Driver::start(&["--client", "codex"], &missing());
    for (id, name) in
        [HOSTILE, "gemini-cli-mcp-client", "qwen-cli-mcp-client-x", "Visual Studio Code"].iter().enumerate()
    {
        let response = bridge.request(json!(id), "initialize", initialize_as(json!(name)));
        assert_eq!(message_of(&response), message_for("spawn_failed", CODEX_LOG), "{name:?}");
    }
}
