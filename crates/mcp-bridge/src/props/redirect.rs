//! Properties of the redirect listener of a sign-in (behaviour spec, the
//! error table's `sign_in_start_reused`, M6; RFC 9112 for the request
//! line): the head of a request read within its limit whatever the sizes
//! of the reads, the target of a `GET`, the query of the redirect, and the
//! rule of the one-time start URL.

use super::{ensure, Checked};
use crate::jsonrpc::Cause;
use crate::props::bytes::Bytes;
use crate::props::chunked::{ready, Chunked};
use crate::upstream::auth::redirect::gate::{parse_redirect, Gate, Route, CALLBACK_PATH};
use crate::upstream::auth::redirect::head::{parse, read_head, split_target, Refusal};

/// The end of the first blank line, written from RFC 9112 section 2.2
/// (a line ends with LF, optionally after CR), not from the reader.
fn model_end(input: &[u8]) -> Option<usize> {
    (0..input.len()).find_map(|at| {
        let rest = input.get(at..)?;
        if rest.starts_with(b"\n\n") {
            Some(at + 2)
        } else if rest.starts_with(b"\n\r\n") {
            Some(at + 3)
        } else {
            None
        }
    })
}

/// The reader of a head, through reads of the sizes `chunks`, with the
/// limit `limit`: it gives the bytes up to the first blank line when they
/// fit in the limit, else `TooLarge` once the limit is read, else `Ended`;
/// a target of the head is a `GET`'s, visible ASCII, no longer than the
/// limit, and written back it gives the request line.
pub(crate) fn request(input: &[u8], limit: usize, chunks: &[usize]) -> Checked {
    let mut reader = Chunked::new(input, chunks);
    let Some(got) = ready(read_head(&mut reader, limit)) else {
        return Err("the reader of a head waits on a reader that is always ready".into());
    };
    let expected = match model_end(input) {
        Some(end) if end <= limit => Ok(input.get(..end).unwrap_or_default().to_vec()),
        _ if input.len() >= limit => Err(Refusal::TooLarge),
        _ => Err(Refusal::Ended),
    };
    ensure!(got == expected, "limit {limit}, reads {chunks:?}: the head is {got:?}, the model says {expected:?}");
    let Ok(head) = got else { return Ok(()) };
    target_of(&head, limit)?;
    // Any visible target comes back from its request line.
    let target: String = std::iter::once('/')
        .chain(input.iter().filter(|b| (0x21..=0x7e).contains(*b)).map(|&b| char::from(b)))
        .collect();
    let line = format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    ensure!(parse(line.as_bytes()) == Ok(target.as_str()), "the target of {line:?} is {:?}", parse(line.as_bytes()));
    Ok(())
}

/// What `parse` gives for a head, against its first line.
fn target_of(head: &[u8], limit: usize) -> Checked {
    let line = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match parse(head) {
        Ok(target) => {
            ensure!(target.len() <= limit, "a target of {} bytes under the limit {limit}", target.len());
            ensure!(target.starts_with('/'), "the target {target:?} is not in origin-form");
            ensure!(target.bytes().all(|b| (0x21..=0x7e).contains(&b)), "the target {target:?} is not visible ASCII");
            let back = [format!("GET {target} HTTP/1.1"), format!("GET {target} HTTP/1.0")];
            ensure!(back.iter().any(|b| b.as_bytes() == line), "{line:?} is not the request line of {target:?}");
            let (path, query) = split_target(target);
            ensure!(
                !path.contains('?') && (query.is_empty() || target == format!("{path}?{query}")),
                "{target:?} splits into {path:?} and {query:?}"
            );
        }
        Err(Refusal::Method) => {
            let method = line.split(|&b| b == b' ').next().unwrap_or_default();
            ensure!(!method.is_empty() && method != b"GET", "a GET line refused for its method: {line:?}");
        }
        Err(Refusal::Malformed) => {}
        Err(other) => return Err(format!("parse gave {other:?}, which only the reader gives")),
    }
    Ok(())
}

/// The query of the redirect: for pairs written by a form serializer, each
/// of the four names gets the last value written for it, the others none.
pub(crate) fn query(pairs: &[(String, String)]) -> Checked {
    let mut serializer = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in pairs {
        serializer.append_pair(name, value);
    }
    let query = serializer.finish();
    let got = parse_redirect(&query);
    let last = |name: &str| pairs.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.clone());
    for (name, value) in [("code", &got.code), ("state", &got.state), ("iss", &got.iss), ("error", &got.error)] {
        ensure!(*value == last(name), "{query:?}: {name} is {value:?}, not {:?}", last(name));
    }
    Ok(())
}

/// The glue of the fuzz target `redirect_request`: a limit (1 to 2048),
/// the count and sizes of the reads, then the bytes of the connection.
/// The pairs of the query come from the same bytes, split at `&` and `=`.
pub fn request_bytes(data: &[u8]) -> Checked {
    let mut bytes = Bytes::new(data);
    let limit = 1 + usize::from(bytes.u16() % 2048);
    let count = usize::from(bytes.byte() % 8);
    let chunks: Vec<usize> = bytes.take(count).iter().map(|&b| usize::from(b).max(1)).collect();
    let input = bytes.rest();
    request(input, limit, &chunks)?;
    let text = String::from_utf8_lossy(input);
    let names = ["code", "state", "iss", "error"];
    let pairs: Vec<(String, String)> = text
        .split('&')
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = name.len().checked_rem(5).and_then(|i| names.get(i)).map_or(name, |n| *n);
            (name.to_owned(), value.to_owned())
        })
        .collect();
    query(&pairs)
}

/// One request of a sequence for the gate.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step {
    /// A GET of the start URL.
    Start,
    /// A GET of the redirect URI, with the sign-in's state or not.
    Callback { state_ok: bool },
    /// Any other path.
    Other,
}

const ROUTE: Route<'static> =
    Route { start_path: "/start/AbC-123", auth_url: "https://auth.example.com/authorize?state=St8", state: "St8" };

/// The rule of the one-time start URL over a sequence of requests: the
/// first GET of the start URL is sent on to the authorization URL (the
/// only answer with a `Location`); a second one before the redirect ends
/// the sign-in with `sign_in_start_reused`; the redirect ends it only with
/// the state, after the start URL, with the query's values; nothing ends
/// it twice, and every request after the end gets `410`.
pub(crate) fn gate(targets: &[(String, Step)]) -> Checked {
    let mut gate = Gate::default();
    let (mut started, mut over) = (false, false);
    for (target, step) in targets {
        let (answer, outcome) = gate.decide(target, ROUTE);
        let expected_end = match (over, step) {
            (true, _) => None,
            (false, Step::Start) if started => Some(Err(Cause::SignInStartReused)),
            (false, Step::Callback { state_ok: true }) if started => Some(Ok(())),
            _ => None,
        };
        let got_end = outcome.as_ref().map(|o| o.as_ref().map(|_| ()).map_err(|e| e.cause));
        ensure!(got_end == expected_end, "{target:?} after {targets:?}: the end is {got_end:?}, not {expected_end:?}");
        if let Some(Ok(redirect)) = &outcome {
            let (_, query) = split_target(target);
            ensure!(*redirect == parse_redirect(query), "the redirect is not the query of {target:?}");
        }
        let first_start = !over && !started && matches!(step, Step::Start);
        ensure!(
            answer.location == first_start.then_some(ROUTE.auth_url),
            "{target:?}: the location {:?}",
            answer.location
        );
        if over {
            ensure!(answer.status == "410 Gone", "{target:?} after the end got {}", answer.status);
        }
        started |= first_start;
        over |= outcome.is_some();
    }
    Ok(())
}

/// The glue of the fuzz target `redirect_gate`: each byte is one request,
/// its low bits the kind (the start URL, a callback with or without the
/// state, another path), the others a variation of the target (a query,
/// another case, a trailing slash, the state among other values).
pub fn gate_bytes(data: &[u8]) -> Checked {
    let targets: Vec<(String, Step)> = data
        .iter()
        .map(|&b| {
            let variant = b >> 2;
            match b & 3 {
                0 => (ROUTE.start_path.to_owned() + ["", "?x=1", "?"][usize::from(variant % 3)], Step::Start),
                1 => {
                    let state = ["St8", "st8", "St8x", "", "St"][usize::from(variant % 5)];
                    let extra = ["", "&code=2", "&state=Other"][usize::from(variant / 5 % 3)];
                    let ok = state == "St8" && extra != "&state=Other";
                    (format!("{CALLBACK_PATH}?code=c{variant}&state={state}{extra}"), Step::Callback { state_ok: ok })
                }
                2 => (format!("{CALLBACK_PATH}?code=c&iss=i{variant}"), Step::Callback { state_ok: false }),
                _ => {
                    let other = ["/start/abc-123", "/start/AbC-123/", "/callback/", "/", "/favicon.ico"];
                    (format!("{}?state=St8", other[usize::from(variant % 5)]), Step::Other)
                }
            }
        })
        .collect();
    gate(&targets)
}
