//! The support of the integration tests: the driver of the real binary
//! ([`driver`]), the scripted fake upstream ([`fake`]), the pinned peers
//! ([`peers`]), bounded runs of a process ([`process`]), the servers that
//! listen on a port ([`served`]), a test PKI ([`tls`]), the schemas of the
//! revisions ([`schemas`]), and the messages and error objects of the
//! error table.

pub mod driver;
pub mod fake;
pub mod http;
pub mod peers;
pub mod process;
pub mod schemas;
pub mod served;
pub mod tls;

use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::OnceLock;

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The error object the error table gives for a cause.
pub fn bridge_error(code: i64, message: &str, cause: &str, detail: Option<&str>) -> Value {
    let mut data = json!({"cause": cause});
    if let Some(detail) = detail {
        data["detail"] = json!(detail);
    }
    json!({"code": code, "message": message, "data": data})
}

/// The error response of the error table for a cause.
pub fn error_response(id: Value, code: i64, message: &str, cause: &str, detail: Option<&str>) -> Value {
    driver::err(id, bridge_error(code, message, cause, detail))
}

/// Compares whole JSON values and prints both in full when they differ.
#[track_caller]
pub fn assert_json(label: &str, actual: &Value, expected: &Value) {
    if actual != expected {
        panic!("{label}: the values differ\n--- expected\n{expected:#}\n--- actual\n{actual:#}");
    }
}

/// The message of `cause` in the error table, which has no placeholder.
#[track_caller]
pub fn message(cause: &str) -> String {
    message_with(cause, &[])
}

/// The message of `cause` in the error table with its placeholders
/// (`{seconds}`, `{name}`, `{port}`, `{redirect_uri}`) filled: each of
/// `values` must fill one, and none may be left.
#[track_caller]
pub fn message_with(cause: &str, values: &[(&str, &str)]) -> String {
    let mut text = error_table()
        .lines()
        .skip(1)
        .find_map(|row| {
            let mut cells = row.split('\t');
            (cells.next() == Some(cause)).then(|| cells.nth(1)).flatten()
        })
        .unwrap_or_else(|| panic!("the error table has no cause {cause:?}"))
        .to_owned();
    for (name, value) in values {
        let placeholder = format!("{{{name}}}");
        assert!(text.contains(&placeholder), "the message of {cause} has no {placeholder}: {text}");
        text = text.replace(&placeholder, value);
    }
    assert!(!text.contains('{'), "the message of {cause} has a placeholder left: {text}");
    text
}

/// The rows of the spec's error table, crates/mcp-bridge/tests/fixtures/
/// error_table.tsv, which the library's tests check against the spec and
/// the code. A packaged crate finds it in the package of the library
/// beside it (the library's package has its tests).
fn error_table() -> &'static str {
    static TABLE: OnceLock<String> = OnceLock::new();
    TABLE.get_or_init(|| {
        let crates = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let places = [crates.join("mcp-bridge"), crates.join(concat!("mcp-bridge-", env!("CARGO_PKG_VERSION")))]
            .map(|library| library.join("tests/fixtures/error_table.tsv"));
        places
            .iter()
            .find_map(|path| std::fs::read_to_string(path).ok())
            .unwrap_or_else(|| panic!("no error table at {places:?}"))
    })
}
