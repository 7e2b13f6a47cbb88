//! What a listen stream gives the client (behaviour spec, "Listen stream
//! (M3)", "The events for the client" and "Events after a gap"): pure
//! functions over `serde_json::Value`.

use crate::jsonrpc::{self, ClientNotification};
use crate::upstream::SUBSCRIPTION_ID_KEY;
use serde_json::{json, Map, Value};

/// The four notifications that reach the client; the upstream server
/// sends them with the same methods.
const EVENTS: [ClientNotification; 4] = [
    ClientNotification::ToolsListChanged,
    ClientNotification::PromptsListChanged,
    ClientNotification::ResourcesListChanged,
    ClientNotification::ResourcesUpdated,
];

/// Their methods, for the properties.
#[cfg(feature = "props")]
pub(crate) const EVENT_METHODS: [&str; 4] =
    [EVENTS[0].as_str(), EVENTS[1].as_str(), EVENTS[2].as_str(), EVENTS[3].as_str()];

/// The lists whose changes the initialize result declares.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Lists {
    pub tools: bool,
    pub prompts: bool,
    pub resources: bool,
}

impl Lists {
    /// The lists with `listChanged: true` in the capabilities of the
    /// initialize result.
    pub(crate) fn declared(capabilities: &Map<String, Value>) -> Lists {
        let declares =
            |kind: &str| capabilities.get(kind).and_then(|c| c.get("listChanged")) == Some(&Value::Bool(true));
        Lists { tools: declares("tools"), prompts: declares("prompts"), resources: declares("resources") }
    }

    /// Whether any list is declared.
    pub(crate) fn any(self) -> bool {
        self.tools || self.prompts || self.resources
    }

    /// The declared lists with the filter key and the method of each.
    fn each(self) -> impl Iterator<Item = (&'static str, ClientNotification)> {
        [
            (self.tools, "toolsListChanged", ClientNotification::ToolsListChanged),
            (self.prompts, "promptsListChanged", ClientNotification::PromptsListChanged),
            (self.resources, "resourcesListChanged", ClientNotification::ResourcesListChanged),
        ]
        .into_iter()
        .filter(|(declared, _, _)| *declared)
        .map(|(_, key, method)| (key, method))
    }
}

/// Whether the initialize result declares `resources.subscribe`.
pub(crate) fn declares_subscribe(capabilities: &Map<String, Value>) -> bool {
    capabilities.get("resources").and_then(|r| r.get("subscribe")) == Some(&Value::Bool(true))
}

/// The `notifications` filter of a stream: the declared lists, and
/// `resourceSubscriptions` when there is a URI (an empty list subscribes
/// to nothing, and the filter omits it).
pub(crate) fn filter(lists: Lists, uris: &[String]) -> Value {
    let mut filter = Map::new();
    for (key, _) in lists.each() {
        filter.insert(key.into(), Value::Bool(true));
    }
    if !uris.is_empty() {
        filter.insert("resourceSubscriptions".into(), json!(uris));
    }
    Value::Object(filter)
}

/// The events after a gap: one list change for each declared list, then
/// one `notifications/resources/updated` for each subscribed URI.
pub(crate) fn gap_events(lists: Lists, uris: &[String]) -> Vec<Value> {
    let changes = lists.each().map(|(_, method)| jsonrpc::notification(method.as_str(), json!({})));
    let updated = ClientNotification::ResourcesUpdated.as_str();
    let updates = uris.iter().map(|uri| jsonrpc::notification(updated, json!({ "uri": uri })));
    changes.chain(updates).collect()
}

/// The notification for the client of one event of the active stream, or
/// `None` when the client must not get it: another method, or an update
/// without a string `uri`. The event loses its subscription id, and a
/// `_meta` that is then empty or is not an object; every other member
/// stays.
pub(crate) fn for_client(method: &str, params: Value) -> Option<Value> {
    // The one place where the method of an event is read.
    let event = EVENTS.into_iter().find(|event| event.as_str() == method)?;
    let mut params = match params {
        Value::Object(params) => params,
        _ => Map::new(),
    };
    if event == ClientNotification::ResourcesUpdated && !params.get("uri").is_some_and(Value::is_string) {
        return None;
    }
    match params.get_mut("_meta") {
        Some(Value::Object(meta)) => {
            meta.shift_remove(SUBSCRIPTION_ID_KEY);
            if meta.is_empty() {
                params.shift_remove("_meta");
            }
        }
        // A `_meta` is an object in both revisions: the client gets the
        // event without one that is not.
        Some(_) => {
            params.shift_remove("_meta");
        }
        None => {}
    }
    Some(jsonrpc::notification(event.as_str(), Value::Object(params)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uris(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_lists_are_those_with_list_changed_true() {
        let caps = json!({"tools": {"listChanged": true}, "prompts": {"listChanged": false}, "resources": {"listChanged": "yes", "subscribe": true}});
        let caps = caps.as_object().cloned().unwrap_or_default();
        assert_eq!(Lists::declared(&caps), Lists { tools: true, prompts: false, resources: false });
        assert!(declares_subscribe(&caps));
        assert!(!declares_subscribe(&Map::new()));
    }

    #[test]
    fn the_filter_has_the_declared_lists_and_the_subscribed_uris() {
        let all = Lists { tools: true, prompts: true, resources: true };
        assert_eq!(
            filter(all, &uris(&["a://1", "b://2"])),
            json!({"toolsListChanged": true, "promptsListChanged": true, "resourcesListChanged": true, "resourceSubscriptions": ["a://1", "b://2"]})
        );
        assert_eq!(filter(Lists { prompts: true, ..Lists::default() }, &[]), json!({"promptsListChanged": true}));
        assert_eq!(filter(Lists::default(), &[]), json!({}));
    }

    #[test]
    fn a_gap_gives_one_change_per_declared_list_and_one_update_per_uri() {
        let got = gap_events(Lists { tools: true, prompts: false, resources: true }, &uris(&["a://1", "b://2"]));
        let expected = [
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}}),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "a://1"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "b://2"}}),
        ];
        assert_eq!(got, expected);
        assert!(gap_events(Lists::default(), &[]).is_empty());
    }

    #[test]
    fn events_lose_the_subscription_id_and_an_empty_meta_and_keep_the_rest() {
        let cases = [
            (
                "notifications/tools/list_changed",
                json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 3}}),
                Some(json!({})),
            ),
            (
                "notifications/prompts/list_changed",
                json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 3, "x.y/z": 1}, "extra": true}),
                Some(json!({"_meta": {"x.y/z": 1}, "extra": true})),
            ),
            (
                "notifications/resources/updated",
                json!({"uri": "file:///a", "_meta": {"io.modelcontextprotocol/subscriptionId": 3}, "title": "t"}),
                Some(json!({"uri": "file:///a", "title": "t"})),
            ),
            ("notifications/resources/list_changed", json!(null), Some(json!({}))),
            ("notifications/tools/list_changed", json!({"_meta": 5, "extra": 1}), Some(json!({"extra": 1}))),
            ("notifications/resources/updated", json!({"uri": 5}), None),
            ("notifications/resources/updated", json!({"_meta": {}}), None),
            ("notifications/cancelled", json!({"requestId": 1}), None),
            ("notifications/message", json!({"level": "info", "data": 1}), None),
            ("notifications/subscriptions/acknowledged", json!({}), None),
        ];
        for (method, params, expected) in cases {
            let got = for_client(method, params.clone());
            let expected = expected.map(|p| json!({"jsonrpc": "2.0", "method": method, "params": p}));
            assert_eq!(got, expected, "{method} {params}");
        }
    }
}
