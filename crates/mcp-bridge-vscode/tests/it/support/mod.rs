//! The support of the integration tests: the driver of the real binary
//! ([`driver`]), the pinned peers ([`peers`]), the servers that listen on a
//! port ([`served`]), the scripted fake upstream, and the error objects of
//! the error table.

pub mod driver;
pub mod peers;
pub mod served;

use serde_json::{json, Value};
use std::path::PathBuf;

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The scripted fake upstream, with its options.
pub fn fake_upstream(options: &[&str]) -> Vec<String> {
    let mut cmd = vec!["python3".to_string(), repo_root().join("tests/fake/upstream.py").display().to_string()];
    cmd.extend(options.iter().map(|s| s.to_string()));
    cmd
}

/// The error object the error table gives for a cause.
pub fn bridge_error(code: i64, message: &str, cause: &str, detail: Option<&str>) -> Value {
    let mut data = json!({"cause": cause});
    if let Some(detail) = detail {
        data["detail"] = json!(detail);
    }
    json!({"code": code, "message": message, "data": data})
}

/// Compares whole JSON values and prints both in full when they differ.
#[track_caller]
pub fn assert_json(label: &str, actual: &Value, expected: &Value) {
    if actual != expected {
        panic!("{label}: the values differ\n--- expected\n{expected:#}\n--- actual\n{actual:#}");
    }
}

pub const NOT_VALID_JSON: &str = "The request is not valid JSON.";
pub const NOT_JSONRPC: &str = "The message is not a valid JSON-RPC 2.0 request.";
pub const NO_METHOD: &str = "The server does not have this method.";
pub const UPSTREAM_STOPPED: &str = "The upstream server process stopped. See the Output channel of the server.";
