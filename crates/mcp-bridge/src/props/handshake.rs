//! Properties of the handshake (behaviour spec, "The capabilities for the
//! upstream server", "The initialize result"): the client's capabilities
//! on their way up, the discover result on its way down as the initialize
//! result.

use super::translate::profile;
use super::{ensure, text, Checked};
use crate::dialect::Dialect;
use crate::translate::capabilities::{client_capabilities, TASKS_EXTENSION};
use crate::translate::discover::{initialize_result, SERVER_INFO_KEY};
use crate::{MetaPassthrough, Quirks, Revision};
use serde_json::{Map, Value};
use std::sync::OnceLock;

/// The 2026-07-28 `ClientCapabilities` schema (`schema.json` of the spec),
/// with `JSONObject` in place.
const CLIENT_CAPABILITIES_SCHEMA: &str = r##"{
  "$defs": {"JSONObject": {"type": "object"}},
  "type": "object",
  "properties": {
    "elicitation": {"type": "object", "properties": {"form": {"$ref": "#/$defs/JSONObject"}, "url": {"$ref": "#/$defs/JSONObject"}}},
    "experimental": {"type": "object", "additionalProperties": {"$ref": "#/$defs/JSONObject"}},
    "extensions": {"type": "object", "additionalProperties": {"$ref": "#/$defs/JSONObject"}},
    "roots": {"type": "object", "properties": {}},
    "sampling": {"type": "object", "properties": {"context": {"$ref": "#/$defs/JSONObject"}, "tools": {"$ref": "#/$defs/JSONObject"}}}
  }
}"##;

fn capabilities_validator() -> Result<&'static jsonschema::Validator, String> {
    static VALIDATOR: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    VALIDATOR
        .get_or_init(|| {
            let schema: Value = serde_json::from_str(CLIENT_CAPABILITIES_SCHEMA).ok()?;
            jsonschema::validator_for(&schema).ok()
        })
        .as_ref()
        .ok_or_else(|| "the ClientCapabilities schema does not compile".to_owned())
}

/// The members of `map` that are objects, minus `without`, in order.
fn object_members(map: &Map<String, Value>, without: Option<&str>) -> Value {
    Value::Object(
        map.iter()
            .filter(|(k, v)| v.is_object() && Some(k.as_str()) != without)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

/// The capabilities for the upstream server: valid against the
/// 2026-07-28 schema, only the five known members, each present exactly
/// when the client's is an object, with the content the table gives, and
/// the translation is idempotent.
pub(crate) fn capabilities(client: &Value) -> Checked {
    let out = client_capabilities(client);
    let validator = capabilities_validator()?;
    ensure!(validator.is_valid(&out), "{out} is not valid against the ClientCapabilities schema");
    let Some(output) = out.as_object() else { return Err(format!("{out} is not an object")) };
    let empty = Map::new();
    let input = client.as_object().unwrap_or(&empty);
    for key in output.keys() {
        ensure!(
            ["sampling", "elicitation", "roots", "experimental", "extensions"].contains(&key.as_str()),
            "{key} is not a capability for the upstream server"
        );
    }
    let object = |key: &str| input.get(key).and_then(Value::as_object);
    let expect = |key: &str, want: Option<Value>| -> Checked {
        let got = output.get(key);
        ensure!(got.map(text) == want.as_ref().map(text), "{key}: got {got:?}, the table gives {want:?}");
        Ok(())
    };
    expect(
        "sampling",
        object("sampling").map(|s| {
            let kept = s.iter().filter(|(k, v)| !matches!(k.as_str(), "tools" | "context") || v.is_object());
            Value::Object(kept.map(|(k, v)| (k.clone(), v.clone())).collect())
        }),
    )?;
    expect(
        "elicitation",
        object("elicitation").map(|e| {
            let modes = e.iter().filter(|(k, v)| matches!(k.as_str(), "form" | "url") && v.is_object());
            Value::Object(modes.map(|(k, v)| (k.clone(), v.clone())).collect())
        }),
    )?;
    expect("roots", object("roots").map(|_| Value::Object(Map::new())))?;
    expect("experimental", object("experimental").map(|m| object_members(m, None)))?;
    expect("extensions", object("extensions").map(|m| object_members(m, Some(TASKS_EXTENSION))))?;
    let again = client_capabilities(&out);
    ensure!(text(&again) == text(&out), "the translation is not idempotent: {out} became {again}");
    Ok(())
}

/// Fuzz glue: the input is the client's capabilities.
pub fn capabilities_bytes(data: &[u8]) -> Checked {
    match serde_json::from_slice::<Value>(data) {
        Ok(client) => capabilities(&client),
        Err(_) => Ok(()),
    }
}

const SERVER_CAPABILITIES: [&str; 7] =
    ["tools", "prompts", "resources", "completions", "logging", "experimental", "extensions"];

/// The initialize result: exactly its four members in order; the
/// protocolVersion of the profile; the listed capabilities that are
/// objects, never `tasks` nor the Tasks extension; the server info of the
/// discover result when it is valid with a name, with only its members of
/// the right type, else the fallback; and the instructions when they are a
/// string.
pub(crate) fn initialize(discover: &Value, fallback: &str) -> Checked {
    let profile = profile(Quirks::default(), MetaPassthrough::default());
    let dialect = Dialect::new(&profile, Revision::LATEST, false);
    let (out, _) = initialize_result(discover, &profile, fallback, &dialect);
    let Some(output) = out.as_object() else { return Err(format!("{out} is not an object")) };
    let instructions = discover.get("instructions").filter(|v| v.is_string());
    let mut keys = vec!["protocolVersion", "capabilities", "serverInfo"];
    if instructions.is_some() {
        keys.push("instructions");
    }
    ensure!(
        output.keys().map(String::as_str).eq(keys.iter().copied()),
        "the members are {:?}",
        output.keys().collect::<Vec<_>>()
    );
    ensure!(
        output.get("protocolVersion") == Some(&Value::from("2025-11-25")),
        "the protocolVersion is not the profile's"
    );
    ensure!(output.get("instructions") == instructions, "the instructions are not a copy");

    let Some(Value::Object(caps)) = output.get("capabilities") else {
        return Err("the capabilities are not an object".into());
    };
    let upstream = discover.get("capabilities").and_then(Value::as_object);
    let want: Vec<&str> = SERVER_CAPABILITIES
        .iter()
        .copied()
        .filter(|k| upstream.and_then(|u| u.get(*k)).is_some_and(Value::is_object))
        .collect();
    ensure!(
        caps.keys().map(String::as_str).eq(want.iter().copied()),
        "the capabilities are {:?}, expected {want:?}",
        caps.keys().collect::<Vec<_>>()
    );
    for (key, value) in caps {
        let from = upstream.and_then(|u| u.get(key)).and_then(Value::as_object);
        let expected = match from {
            Some(members) if key == "extensions" => object_members(members, Some(TASKS_EXTENSION)),
            Some(members) => Value::Object(members.clone()),
            None => return Err(format!("the capability {key} came from nowhere")),
        };
        ensure!(text(value) == text(&expected), "the capability {key} is {value}, expected {expected}");
    }

    let Some(Value::Object(info)) = output.get("serverInfo") else {
        return Err("the serverInfo is not an object".into());
    };
    let upstream = discover.get("_meta").and_then(|m| m.get(SERVER_INFO_KEY)).and_then(Value::as_object);
    let valid = upstream.filter(|u| {
        u.get("name").and_then(Value::as_str).is_some_and(|n| !n.is_empty())
            && u.get("version").is_some_and(Value::is_string)
    });
    match valid {
        None => {
            let mut want = Map::new();
            want.insert("name".into(), Value::from(fallback));
            want.insert("version".into(), Value::from(profile.version.as_str()));
            ensure!(*info == want, "the serverInfo is {info:?}, not the fallback");
        }
        Some(upstream) => {
            for (key, value) in info {
                ensure!(upstream.get(key) == Some(value), "the serverInfo member {key} is not the server's");
            }
            for key in ["name", "title", "version", "description", "websiteUrl"] {
                let want = upstream.get(key).filter(|v| v.is_string());
                ensure!(info.get(key) == want, "the serverInfo member {key} is {:?}, expected {want:?}", info.get(key));
            }
            let icons = upstream.get("icons").filter(|v| {
                v.as_array().is_some_and(|list| list.iter().all(|i| i.get("src").is_some_and(Value::is_string)))
            });
            ensure!(info.get("icons") == icons, "the icons are {:?}, expected {icons:?}", info.get("icons"));
        }
    }
    Ok(())
}

/// Fuzz glue: the input is the discover result.
pub fn initialize_bytes(data: &[u8]) -> Checked {
    match serde_json::from_slice::<Value>(data) {
        Ok(discover) => initialize(&discover, "fallback"),
        Err(_) => Ok(()),
    }
}
