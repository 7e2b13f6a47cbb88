//! What the redirect listener answers to each request, and when the
//! sign-in ends: the one-time start URL (M6) and the redirect URI. Pure:
//! the connections of the listener take their turns at one `Gate` under a
//! lock, in the order their heads were read.
//!
//! Why a local process cannot complete the sign-in with its own code: the
//! `state` that the redirect must carry is only in the `Location` of the
//! start URL's answer (the browser opens the start URL, never the
//! authorization URL). A process that learns the start URL and GETs it
//! first gets the state, but then the browser's GET is the second one and
//! stops the sign-in (`sign_in_start_reused`); a callback before any GET of
//! the start URL, or with another state, is refused and the wait goes on.
//! Every connection is read on its own, so a process cannot hold the
//! browser's request back behind its own to win that race. What is left is
//! a process that completes the whole flow before the browser's first
//! request arrives; the listener cannot tell it from the browser, which is
//! why the message of `sign_in_start_reused` advises `--no-browser` on
//! shared hosts.

use crate::jsonrpc::{BridgeError, Cause};

/// The path of the redirect URI.
pub(crate) const CALLBACK_PATH: &str = "/callback";

/// The answer of the authorization server, from the query of the redirect.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Redirect {
    pub code: Option<String>,
    pub state: Option<String>,
    pub iss: Option<String>,
    pub error: Option<String>,
}

/// The query of the redirect, decoded (`application/x-www-form-urlencoded`);
/// the last of a repeated name wins.
pub(crate) fn parse_redirect(query: &str) -> Redirect {
    let mut redirect = Redirect::default();
    for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
        let slot = match name.as_ref() {
            "code" => &mut redirect.code,
            "state" => &mut redirect.state,
            "iss" => &mut redirect.iss,
            "error" => &mut redirect.error,
            _ => continue,
        };
        *slot = Some(value.into_owned());
    }
    redirect
}

/// The routes of one sign-in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Route<'a> {
    /// `/start/<nonce>`.
    pub start_path: &'a str,
    /// Where the start URL sends the browser.
    pub auth_url: &'a str,
    /// The `state` of the authorization request.
    pub state: &'a str,
}

/// One page of the listener.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Page<'a> {
    pub status: &'static str,
    pub location: Option<&'a str>,
    pub text: &'static str,
}

impl Page<'_> {
    const fn plain(status: &'static str, text: &'static str) -> Page<'static> {
        Page { status, location: None, text }
    }
}

/// How the sign-in ends, when a request ends it.
pub(crate) type Outcome = Result<Redirect, BridgeError>;

const NOT_FOUND: Page<'static> = Page::plain("404 Not Found", "Not found.");
const REUSED: Page<'static> = Page::plain("410 Gone", "This sign-in link was used already.");
const OVER: Page<'static> = Page::plain("410 Gone", "This sign-in is over.");
const NOT_THIS: Page<'static> = Page::plain("400 Bad Request", "This is not the sign-in that the bridge waits for.");
const RECEIVED: Page<'static> =
    Page::plain("200 OK", "The bridge received the answer of the sign-in. You can close this window.");

/// Where the sign-in is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Waiting for the first GET of the start URL.
    #[default]
    Waiting,
    /// The start URL was answered; waiting for the redirect.
    Started,
    /// A request ended the sign-in; nothing else counts.
    Over,
}

impl Gate {
    /// The answer to a `GET` of `target`, and the end of the sign-in when
    /// this request ends it.
    pub(crate) fn decide<'a>(&mut self, target: &str, route: Route<'a>) -> (Page<'a>, Option<Outcome>) {
        let (path, query) = super::head::split_target(target);
        match (*self, path) {
            (Gate::Over, _) => (OVER, None),
            (Gate::Waiting, p) if p == route.start_path => {
                *self = Gate::Started;
                (
                    Page {
                        status: "302 Found",
                        location: Some(route.auth_url),
                        text: "Redirecting to the sign-in page.",
                    },
                    None,
                )
            }
            (Gate::Started, p) if p == route.start_path => {
                *self = Gate::Over;
                tracing::warn!("the start URL of the sign-in got a second request: the sign-in stops");
                (REUSED, Some(Err(BridgeError::new(Cause::SignInStartReused))))
            }
            (gate, CALLBACK_PATH) => {
                let redirect = parse_redirect(query);
                let ours = redirect.state.as_deref().is_some_and(|s| same(s.as_bytes(), route.state.as_bytes()));
                // Before the start URL was answered nobody had the state:
                // such a callback is not the browser's.
                if !ours || gate == Gate::Waiting {
                    tracing::info!("the redirect listener refused a callback that is not of this sign-in");
                    return (NOT_THIS, None);
                }
                *self = Gate::Over;
                (RECEIVED, Some(Ok(redirect)))
            }
            _ => (NOT_FOUND, None),
        }
    }
}

/// Equality in a time that does not depend on where the texts differ, so
/// that the time of a refusal tells nothing of the state.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |diff, (x, y)| diff | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROUTE: Route<'static> =
        Route { start_path: "/start/n0nce", auth_url: "https://auth.example.com/authorize?state=s1", state: "s1" };

    /// How a request ended the sign-in: the code of the redirect, or the
    /// cause of the error.
    type Ended = Option<Result<Option<String>, Cause>>;

    /// The status of each answer and how the sign-in ends, for requests in
    /// order on one gate.
    fn run(targets: &[&str]) -> Vec<(&'static str, Ended)> {
        let mut gate = Gate::default();
        targets
            .iter()
            .map(|t| {
                let (answer, outcome) = gate.decide(t, ROUTE);
                (answer.status, outcome.map(|o| o.map(|r| r.code).map_err(|e| e.cause)))
            })
            .collect()
    }

    #[test]
    fn the_query_of_the_redirect_is_decoded() {
        assert_eq!(
            parse_redirect("code=a%2Fb&state=s1&iss=https%3A%2F%2Fauth.example.com&x=1"),
            Redirect {
                code: Some("a/b".into()),
                state: Some("s1".into()),
                iss: Some("https://auth.example.com".into()),
                error: None
            }
        );
        assert_eq!(parse_redirect("error=access_denied&state=s").error.as_deref(), Some("access_denied"));
        assert_eq!(parse_redirect("code=1&code=2").code.as_deref(), Some("2"), "the last one wins");
    }

    /// M6: the start URL sends the browser on once; the redirect with the
    /// state of the sign-in ends it.
    #[test]
    fn the_start_url_then_the_redirect_with_the_state_completes_the_sign_in() {
        let mut gate = Gate::default();
        let (answer, outcome) = gate.decide("/start/n0nce", ROUTE);
        assert_eq!(answer.status, "302 Found");
        assert_eq!(answer.location, Some(ROUTE.auth_url));
        assert!(outcome.is_none());
        assert_eq!(
            run(&["/start/n0nce", "/favicon.ico", "/callback?code=c&state=s1", "/callback?code=d&state=s1"]),
            [("302 Found", None), ("404 Not Found", None), ("200 OK", Some(Ok(Some("c".into())))), ("410 Gone", None)]
        );
    }

    /// Error table, `sign_in_start_reused`: a second GET of the start URL
    /// before the redirect stops the sign-in; nothing counts after it.
    #[test]
    fn a_second_get_of_the_start_url_before_the_redirect_stops_the_sign_in() {
        assert_eq!(
            run(&["/start/n0nce", "/start/n0nce?x", "/callback?code=c&state=s1"]),
            [("302 Found", None), ("410 Gone", Some(Err(Cause::SignInStartReused))), ("410 Gone", None)]
        );
    }

    /// A callback with another state, without one, or before the start URL
    /// was answered (nobody had the state then) never ends the sign-in.
    #[test]
    fn a_callback_that_is_not_of_this_sign_in_is_refused_and_the_wait_goes_on() {
        assert_eq!(
            run(&[
                "/callback?code=c&state=s1",
                "/start/n0nce",
                "/callback?code=c&state=s2",
                "/callback?code=c&state=s",
                "/callback?code=c",
                "/callback?code=c&state=s1&state=x",
                "/callback/?code=c&state=s1",
                "/callback?code=ok&state=s1",
            ]),
            [
                ("400 Bad Request", None),
                ("302 Found", None),
                ("400 Bad Request", None),
                ("400 Bad Request", None),
                ("400 Bad Request", None),
                ("400 Bad Request", None),
                ("404 Not Found", None),
                ("200 OK", Some(Ok(Some("ok".into())))),
            ]
        );
    }
}
