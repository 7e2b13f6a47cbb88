//! The request metadata headers of Streamable HTTP (2026-07-28
//! `basic/transports/streamable-http.md`, "Request Metadata"): `Mcp-Method`,
//! `Mcp-Name`, and the `Mcp-Param-{Name}` headers of tool arguments that the
//! tool's `inputSchema` marks with `x-mcp-header`, with the Base64 sentinel
//! for values that are not plain header text. Pure: no I/O.

use crate::method::Method;
use crate::upstream::outgoing::UpstreamMethod;
use base64::Engine;
use serde_json::{Map, Value};

/// The prefix and suffix of a Base64-encoded header value.
const SENTINEL_PREFIX: &str = "=?base64?";
const SENTINEL_SUFFIX: &str = "?=";
/// The largest integer JavaScript holds exactly (2^53 - 1).
const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// A header value: the text as it is when it is plain header text, else
/// the Base64 sentinel of its UTF-8 bytes. Plain means visible ASCII and
/// spaces, no leading or trailing whitespace, and not of the sentinel's
/// shape (which would be read as encoded).
pub(crate) fn encode_value(text: &str) -> String {
    let visible = text.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let sentinel = text.starts_with(SENTINEL_PREFIX) && text.ends_with(SENTINEL_SUFFIX);
    if visible && !padded && !sentinel {
        text.to_owned()
    } else {
        let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
        format!("{SENTINEL_PREFIX}{encoded}{SENTINEL_SUFFIX}")
    }
}

/// The text of a header value: a Base64 sentinel decoded, any other value
/// as it is; `None` for a sentinel that is not Base64 of UTF-8.
pub(crate) fn decode_value(value: &str) -> Option<String> {
    match value.strip_prefix(SENTINEL_PREFIX).and_then(|v| v.strip_suffix(SENTINEL_SUFFIX)) {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(value.to_owned()),
    }
}

/// The source of `Mcp-Name`: `params.name` of `tools/call` and
/// `prompts/get`, `params.uri` of `resources/read`.
pub(crate) fn name_of(method: UpstreamMethod, params: Option<&Map<String, Value>>) -> Option<String> {
    let member = match method {
        UpstreamMethod::Forwarded(Method::ToolsCall | Method::PromptsGet) => "name",
        UpstreamMethod::Forwarded(Method::ResourcesRead) => "uri",
        _ => return None,
    };
    params?.get(member)?.as_str().map(encode_value)
}

/// One argument of a tool mirrored into a header: the `x-mcp-header` name
/// and the chain of `properties` keys that leads to the argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParamHeader {
    pub name: String,
    pub path: Vec<String>,
}

/// The `Mcp-Param-*` headers of one tool, from its `inputSchema`; `Err`
/// with the reason when an annotation breaks a constraint of the page, so
/// that the tool is left out of `tools/list`.
pub(crate) fn tool_headers(tool: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    if let Some(schema) = tool.get("inputSchema") {
        walk(schema, &mut Vec::new(), true, &mut found)?;
    }
    for (i, header) in found.iter().enumerate() {
        if found[..i].iter().any(|other| other.name.eq_ignore_ascii_case(&header.name)) {
            return Err(format!("the x-mcp-header name {} is used twice", header.name));
        }
    }
    Ok(found)
}

/// Walks a schema. `reachable` says whether the schema is reached from the
/// root by `properties` keys alone: only there may an annotation stand.
/// Values of `const`, `default`, `enum` and `examples` are data, not
/// schemas, and are not walked.
fn walk(schema: &Value, path: &mut Vec<String>, reachable: bool, found: &mut Vec<ParamHeader>) -> Result<(), String> {
    match schema {
        Value::Object(object) => {
            if let Some(name) = object.get("x-mcp-header") {
                found.push(annotation(name, object, path, reachable)?);
            }
            for (key, value) in object {
                match key.as_str() {
                    "x-mcp-header" | "const" | "default" | "enum" | "examples" => {}
                    "properties" => match value {
                        Value::Object(properties) => {
                            for (property, sub) in properties {
                                path.push(property.clone());
                                let result = walk(sub, path, reachable, found);
                                path.pop();
                                result?;
                            }
                        }
                        other => walk(other, path, false, found)?,
                    },
                    _ => walk(value, path, false, found)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|item| walk(item, path, false, found)),
        _ => Ok(()),
    }
}

/// Checks one annotation against the constraints of the page.
fn annotation(
    name: &Value,
    schema: &Map<String, Value>,
    path: &[String],
    reachable: bool,
) -> Result<ParamHeader, String> {
    let Some(name) = name.as_str() else {
        return Err("an x-mcp-header value is not a string".into());
    };
    if !is_field_name(name) {
        return Err(format!("the x-mcp-header value {name:?} is not an HTTP field-name token"));
    }
    if !reachable || path.is_empty() {
        return Err(format!("the x-mcp-header {name} is not on a property reached through properties alone"));
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => {}
        _ => return Err(format!("the x-mcp-header {name} is on a property that is not a string, integer or boolean")),
    }
    Ok(ParamHeader { name: name.to_owned(), path: path.to_vec() })
}

/// An HTTP field name: a `token` of RFC 9110, section 5.6.2.
pub(crate) fn is_field_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(is_tchar)
}

/// `tchar` of RFC 9110, section 5.6.2.
fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The `Mcp-Param-{Name}` headers of a `tools/call`: the value at each
/// annotated path of the arguments, as header text; no header for a value
/// that is absent, `null`, or of another type than the page allows.
pub(crate) fn param_values(arguments: Option<&Value>, headers: &[ParamHeader]) -> Vec<(String, String)> {
    headers
        .iter()
        .filter_map(|header| {
            let mut value = arguments?;
            for key in &header.path {
                value = value.get(key)?;
            }
            let text = match value {
                Value::String(s) => encode_value(s),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => integer_text(n)?,
                _ => return None,
            };
            Some((format!("Mcp-Param-{}", header.name), text))
        })
        .collect()
}

/// The decimal text of a number with an integer value in the safe range
/// of JavaScript, however it is written (`42`, `42.0`, `1e2`, `-0.0`):
/// the page compares integers numerically, so a value written another way
/// still gets its header, as `42`, `100` and `0`.
fn integer_text(number: &serde_json::Number) -> Option<String> {
    if let Some(integer) = number.as_i64() {
        return (integer.unsigned_abs() <= MAX_SAFE_INTEGER.unsigned_abs()).then(|| integer.to_string());
    }
    let float = number.as_f64()?;
    // Below 2^53 a whole f64 converts to i64 exactly.
    let whole = float.is_finite() && float.fract() == 0.0 && float.abs() <= MAX_SAFE_INTEGER as f64;
    whole.then(|| (float as i64).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The encoding examples of the page, row by row.
    #[test]
    fn a_value_decodes_back_to_its_text() {
        for text in ["get_weather", " padded ", "héllo", "=?base64?x?="] {
            assert_eq!(decode_value(&encode_value(text)).as_deref(), Some(text), "{text}");
        }
        assert_eq!(decode_value("=?base64?!!?="), None);
    }

    #[test]
    fn values_are_plain_or_the_base64_sentinel_as_the_page_shows() {
        for (value, header) in [
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
            ("tab\there", "=?base64?dGFiCWhlcmU=?="),
            ("", ""),
        ] {
            assert_eq!(encode_value(value), header, "{value:?}");
        }
    }

    #[test]
    fn mcp_name_comes_from_the_name_or_the_uri() {
        let forwarded = UpstreamMethod::Forwarded;
        let name = |method, params: Value| name_of(method, params.as_object());
        assert_eq!(name(forwarded(Method::ToolsCall), json!({"name": "get_weather"})).as_deref(), Some("get_weather"));
        assert_eq!(name(forwarded(Method::PromptsGet), json!({"name": "é"})).as_deref(), Some("=?base64?w6k=?="));
        assert_eq!(
            name(forwarded(Method::ResourcesRead), json!({"uri": "file:///projects/myapp/config.json"})).as_deref(),
            Some("file:///projects/myapp/config.json")
        );
        assert_eq!(name(forwarded(Method::ToolsList), json!({"name": "x"})), None);
        assert_eq!(name(UpstreamMethod::Discover, json!({"name": "x"})), None);
        assert_eq!(name(forwarded(Method::ToolsCall), json!({"name": 5})), None);
    }

    fn tool(properties: Value) -> Value {
        json!({"name": "t", "inputSchema": {"type": "object", "properties": properties}})
    }

    #[test]
    fn annotated_arguments_become_headers_with_their_path() {
        let t = tool(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "Count"}}},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "plain": {"type": "string"}
        }));
        let headers = tool_headers(&t).unwrap_or_default();
        assert_eq!(
            headers,
            vec![
                ParamHeader { name: "Region".into(), path: vec!["region".into()] },
                ParamHeader { name: "Count".into(), path: vec!["opts".into(), "n".into()] },
                ParamHeader { name: "Flag".into(), path: vec!["flag".into()] },
            ]
        );
        let arguments = json!({"region": "us-west1", "opts": {"n": 42}, "flag": false, "plain": "x"});
        assert_eq!(
            param_values(Some(&arguments), &headers),
            vec![
                ("Mcp-Param-Region".into(), "us-west1".into()),
                ("Mcp-Param-Count".into(), "42".into()),
                ("Mcp-Param-Flag".into(), "false".into()),
            ]
        );
        let partial = json!({"region": null, "opts": {}});
        assert_eq!(param_values(Some(&partial), &headers), vec![]);
        let unsafe_int = json!({"opts": {"n": 9_007_199_254_740_992_i64}});
        assert_eq!(param_values(Some(&unsafe_int), &headers), vec![]);
    }

    /// "Integer values are compared numerically": an integer written as
    /// `42.0`, `1e2` or `-0.0` gets its header with the decimal text; a
    /// number that is not whole, or outside the safe range, gets none.
    #[test]
    fn an_integer_written_another_way_gets_its_decimal_text() {
        let headers = vec![ParamHeader { name: "Count".into(), path: vec!["n".into()] }];
        let header = |text: &str| {
            let arguments: Value = serde_json::from_str(&format!("{{\"n\": {text}}}")).unwrap_or_default();
            param_values(Some(&arguments), &headers).first().map(|(_, v)| v.clone())
        };
        for (written, sent) in [
            ("42", Some("42")),
            ("42.0", Some("42")),
            ("1e2", Some("100")),
            ("-0.0", Some("0")),
            ("-7", Some("-7")),
            ("9007199254740991.0", Some("9007199254740991")),
            ("-9223372036854775808", None),
            ("42.5", None),
            ("1e400", None),
            ("9007199254740992.0", None),
        ] {
            assert_eq!(header(written).as_deref(), sent, "{written}");
        }
    }

    #[test]
    fn an_annotation_that_breaks_a_constraint_rejects_the_tool() {
        for (schema, reason) in [
            (tool(json!({"a": {"type": "string", "x-mcp-header": ""}})), "token"),
            (tool(json!({"a": {"type": "string", "x-mcp-header": "Bad Name"}})), "token"),
            (tool(json!({"a": {"type": "string", "x-mcp-header": "A\r\nB"}})), "token"),
            (tool(json!({"a": {"type": "string", "x-mcp-header": 5}})), "not a string"),
            (tool(json!({"a": {"type": "number", "x-mcp-header": "A"}})), "not a string, integer"),
            (tool(json!({"a": {"type": "object", "x-mcp-header": "A"}})), "not a string, integer"),
            (tool(json!({"a": {"x-mcp-header": "A"}})), "not a string, integer"),
            (
                tool(
                    json!({"a": {"type": "string", "x-mcp-header": "Dup"}, "b": {"type": "string", "x-mcp-header": "dup"}}),
                ),
                "used twice",
            ),
            (
                tool(json!({"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}})),
                "properties alone",
            ),
            (tool(json!({"a": {"anyOf": [{"type": "string", "x-mcp-header": "A"}]}})), "properties alone"),
            (
                json!({"name": "t", "inputSchema": {"type": "object", "$defs": {"d": {"type": "string", "x-mcp-header": "A"}}}}),
                "properties alone",
            ),
            (json!({"name": "t", "inputSchema": {"type": "string", "x-mcp-header": "A"}}), "properties alone"),
        ] {
            match tool_headers(&schema) {
                Err(text) => assert!(text.contains(reason), "{schema}: {text}"),
                Ok(headers) => panic!("{schema} was accepted: {headers:?}"),
            }
        }
    }

    #[test]
    fn an_annotation_inside_data_keywords_is_data() {
        let t = tool(
            json!({"a": {"type": "object", "default": {"x-mcp-header": "A"}, "examples": [{"x-mcp-header": "B"}]}}),
        );
        assert_eq!(tool_headers(&t), Ok(vec![]));
    }
}
