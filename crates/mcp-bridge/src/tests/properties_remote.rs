//! Property tests of the parsers of what a remote server, an authorization
//! server or a local socket sends (the `WWW-Authenticate` challenge, the
//! redirect listener, the metadata and registration checks, the SSE event
//! limit, the `x-mcp-header` walk, the listen events). The properties are
//! those of the fuzz targets `challenge`, `redirect_request`,
//! `redirect_gate`, `metadata`, `registration`, `sse_limit`, `mcp_headers`
//! and `listen_events` (`crate::props::{auth, redirect, http,
//! listen}`); here they run on stable Rust with proptest.

use super::strategies::{json, schema};
use crate::props::{auth, http, listen, redirect};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::json;

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig { cases: n, failure_persistence: None, ..ProptestConfig::default() }
}

fn broken(check: Result<(), String>) -> Result<(), TestCaseError> {
    check.map_err(TestCaseError::fail)
}

/// Bytes from a small alphabet of the given characters and any byte.
fn text_of(alphabet: &'static [u8], most: usize) -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![6 => select(alphabet), 1 => any::<u8>()];
    prop::collection::vec(byte, 0..most)
}

fn sizes() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..40, 0..4)
}

proptest! {
    #![proptest_config(cases(512))]

    /// `challenge`: challenges that follow the grammar give the first
    /// Bearer challenge's parameters, in one header value or several.
    #[test]
    fn the_challenge_is_the_first_bearer_ones(data in prop::collection::vec(any::<u8>(), 0..80)) {
        let mut model = vec![1 + 2 * (data.first().copied().unwrap_or(0) % 5)];
        model.extend_from_slice(&data);
        broken(auth::challenge_bytes(&model))?;
    }

    /// `challenge`: header values of any text.
    #[test]
    fn a_challenge_of_any_text_holds_only_its_own_text(text in text_of(b"Bearer scope=\"\\, error", 120)) {
        let mut raw = vec![0];
        raw.extend_from_slice(&text);
        broken(auth::challenge_bytes(&raw))?;
    }

    /// `redirect_request`: heads of requests, whatever the limit and the
    /// sizes of the reads.
    #[test]
    fn the_head_of_a_request_is_read_within_its_limit(
        input in text_of(b"GET /callback?code=a&state=b HTTP/1.1\r\n", 200),
        limit in 1usize..120,
        chunks in sizes(),
    ) {
        broken(redirect::request(&input, limit, &chunks))?;
    }

    /// `redirect_request`: the query of the redirect.
    #[test]
    fn the_query_of_the_redirect_keeps_the_last_value_of_each_name(
        pairs in prop::collection::vec((select(&["code", "state", "iss", "error", "x"][..]), ".{0,6}"), 0..6),
    ) {
        let pairs: Vec<(String, String)> = pairs.into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
        broken(redirect::query(&pairs))?;
    }

    /// `redirect_gate`: the rule of the one-time start URL.
    #[test]
    fn the_start_url_and_the_state_decide_the_end_of_the_sign_in(steps in prop::collection::vec(any::<u8>(), 0..12)) {
        broken(redirect::gate_bytes(&steps))?;
    }

    /// `metadata`: documents built member by member, and resources.
    #[test]
    fn metadata_passes_exactly_when_it_keeps_every_rule(data in prop::collection::vec(any::<u8>(), 8..16)) {
        let mut built = vec![1];
        built.extend_from_slice(&data);
        broken(auth::metadata_bytes(&built))?;
    }

    /// `metadata`: any JSON as a document.
    #[test]
    fn any_document_passes_or_names_a_rule_it_breaks(document in json()) {
        broken(auth::metadata(&document, "https://auth.example.com"))?;
    }

    /// `registration`: responses of any status with built or any bodies.
    #[test]
    fn a_registration_gives_its_grant_or_its_status_and_code(
        status in 100u16..600,
        body in prop_oneof![
            json(),
            (select(vec![json!("c-1"), json!(""), json!(3)]), select(vec![json!("s"), json!(null)]),
             select(vec![json!("invalid_redirect_uri"), json!("bad\u{1b}[31m"), json!(5)]))
                .prop_map(|(id, secret, error)| json!({"client_id": id, "client_secret": secret, "error": error})),
        ],
    ) {
        broken(auth::registration_response(status, &body))?;
    }

    /// `sse_limit`: streams of short lines with every line end.
    #[test]
    fn the_limit_refuses_the_first_byte_past_an_event_whatever_the_reads(
        input in text_of(b"data: x\n\r", 300),
        max in 0usize..40,
        chunks in sizes(),
    ) {
        broken(http::event_limit(&input, max, &chunks))?;
    }

    /// `mcp_headers`: tools and arguments built from the bytes.
    #[test]
    fn headers_name_annotated_properties_and_provided_values(data in prop::collection::vec(any::<u8>(), 0..60)) {
        let mut built = vec![1];
        built.extend_from_slice(&data);
        broken(http::mcp_headers_bytes(&built))?;
    }

    /// `mcp_headers`: any schema as an `inputSchema`.
    #[test]
    fn any_schema_is_walked_or_refused_for_an_annotation(schema in schema(3), arguments in json()) {
        broken(http::mcp_headers(&json!({"name": "t", "inputSchema": schema}), &arguments))?;
    }

    /// `mcp_headers`: the header value of any text.
    #[test]
    fn a_header_value_decodes_to_its_text(text in ".{0,20}") {
        broken(http::header_value(&text))?;
    }

    /// `listen_events`: what the client gets of an event.
    #[test]
    fn an_event_keeps_every_member_but_the_subscription_id(
        method in select(&["notifications/tools/list_changed", "notifications/resources/updated", "notifications/message"][..]),
        params in prop_oneof![
            json(),
            (json(), json()).prop_map(|(meta, uri)| json!({"uri": uri, "_meta": meta, "x": 1})),
            json().prop_map(|v| json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 1, "k": v}, "uri": "a://b"})),
        ],
    ) {
        broken(listen::event(method, &params))?;
    }

    /// `listen_events`: the board over sequences of steps.
    #[test]
    fn only_the_active_stream_speaks_to_the_client(steps in prop::collection::vec(any::<u8>(), 0..24)) {
        let mut data = vec![8 | 16 | 64];
        data.extend_from_slice(&steps);
        broken(listen::events_bytes(&data))?;
    }
}
