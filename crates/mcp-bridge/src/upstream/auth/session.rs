//! The sign-in of one upstream server: the bearer token of each request,
//! its refresh, and a new sign-in when the server refuses the token.

use super::ask::Asker;
use super::challenge::Challenge;
use super::discovery::{self, ServerMetadata};
use super::options::{AuthOptions, SignInMode};
use super::place::Place;
use super::record::{canonical_resource, now_secs, Grant, Record};
use super::store::{self, Locked};
use super::token::{Token, REFRESH_AHEAD_SECS};
use super::{device, fetch, redirect, register, shared, signin};
use crate::jsonrpc::{fail, BridgeError, Cause};
use crate::upstream::later_sign_in::ConsentFn;
use reqwest::Url;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The first port of the range from which a redirect port is chosen.
const PORT_RANGE: std::ops::RangeInclusive<u16> = 49152..=65000;

/// The sign-in of one upstream server. Shared by the transport and the
/// [`SignIn`](super::SignIn) handle.
pub(crate) struct Auth {
    options: AuthOptions,
    resource: String,
    http: fetch::Fetcher,
    /// The record of the store, changed by one sign-in or refresh at a time.
    record: tokio::sync::Mutex<Record>,
    /// The access token in use, read by every request.
    token: Mutex<Option<Token>>,
    /// A refresh runs beside the requests, which still hold a valid token.
    refreshing: AtomicBool,
    /// A sign-in runs now, or was stopped by the time limit of its request
    /// (then the request's error names `sign_in_timeout`).
    signing_in: AtomicBool,
    /// Whether a sign-in may open the browser: during initialize. A later
    /// sign-in needs the client's consent.
    interactive: AtomicBool,
    /// How a later sign-in asks the client.
    asker: Asker,
    /// Counts the sign-ins: a listen stream refused with 401 or 403 opens
    /// again after the next one.
    sign_ins: tokio::sync::watch::Sender<u64>,
}

impl Auth {
    pub(crate) fn new(options: AuthOptions, server: &Url, make: fetch::MakeClient, consent: ConsentFn) -> Auth {
        let resource = canonical_resource(server);
        let record = options.store.load(&resource);
        let token = record
            .grants
            .values()
            .filter_map(|g| Some(Token { value: g.access_token.clone()?, expires_at: g.expires_at, lifetime: None }))
            .max_by_key(|token| token.expires_at.unwrap_or(u64::MAX));
        let http = fetch::Fetcher::new(make, server, options.request_limit);
        Auth {
            options,
            resource,
            http,
            record: tokio::sync::Mutex::new(record),
            token: Mutex::new(token),
            refreshing: AtomicBool::new(false),
            signing_in: AtomicBool::new(false),
            interactive: AtomicBool::new(true),
            asker: Asker::new(consent),
            sign_ins: tokio::sync::watch::channel(0).0,
        }
    }

    /// Whether the store has an access token valid for more than a minute:
    /// without one, a sign-in can start during `server/discover`.
    pub(super) fn has_valid_token(&self) -> bool {
        crate::sync::lock(&self.token).as_ref().is_some_and(|t| t.valid_for(now_secs(), REFRESH_AHEAD_SECS))
    }

    /// Whether a sign-in runs, or was stopped by the limit of its request;
    /// reading it clears the second case.
    pub(super) fn take_signing_in(&self) -> bool {
        self.signing_in.swap(false, Ordering::AcqRel)
    }

    /// From now on a sign-in needs the consent of the client.
    pub(super) fn end_interactive(&self) {
        self.interactive.store(false, Ordering::Release);
    }

    /// Changes at each completed sign-in.
    pub(super) fn sign_ins(&self) -> tokio::sync::watch::Receiver<u64> {
        self.sign_ins.subscribe()
    }

    /// The token in use, without a refresh (for a notification).
    pub(crate) fn current(&self) -> Option<String> {
        crate::sync::lock(&self.token).as_ref().map(|token| token.value.clone())
    }

    /// The token for the next request. A token that is still valid goes at
    /// once; when a part of its life is left, one refresh starts beside the
    /// requests. Only a request whose token expired (after a sleep, say)
    /// waits for the refresh, at most its time limit.
    pub(crate) async fn bearer(self: &Arc<Self>) -> Option<String> {
        let now = now_secs();
        let token = crate::sync::lock(&self.token).clone()?;
        if !token.valid_for(now, 0) {
            if tokio::time::timeout(self.options.request_limit, self.refresh_when_due()).await.is_err() {
                tracing::info!("the refresh of the access token did not complete in time");
            }
            return self.current();
        }
        if self.due(&token, now) && !self.refreshing.swap(true, Ordering::AcqRel) {
            let auth = self.clone();
            // Each request of the refresh has the request limit, so a hung
            // endpoint ends the refresh with that request's own error; the
            // twofold bound ends a refresh that waits for the record's lock.
            let limit = auth.options.request_limit * 2;
            tokio::spawn(async move {
                if tokio::time::timeout(limit, auth.refresh_when_due()).await.is_err() {
                    tracing::info!("the refresh of the access token did not complete in time");
                }
                auth.refreshing.store(false, Ordering::Release);
            });
        }
        Some(token.value)
    }

    /// Refreshes the token unless another request did meanwhile.
    async fn refresh_when_due(&self) {
        let mut record = self.record.lock().await;
        if !self.renewed(None) {
            if let Err(err) = self.refresh(&mut record, None).await {
                tracing::info!(cause = err.cause.name(), "the access token could not be refreshed");
            }
        }
    }

    /// Whether `token` is due for a refresh at `now`, by its life or by the
    /// margin of the options.
    fn due(&self, token: &Token, now: u64) -> bool {
        token.refresh_due(now, self.options.refresh_ahead.map(|ahead| ahead.as_secs()))
    }

    /// Whether the token in use needs no refresh: it is not the one the
    /// server `refused`, or, without a refusal, it is not due.
    fn renewed(&self, refused: Option<&str>) -> bool {
        match (crate::sync::lock(&self.token).as_ref(), refused) {
            (Some(token), Some(refused)) => token.value != refused,
            (Some(token), None) => !self.due(token, now_secs()),
            (None, _) => false,
        }
    }

    /// The server refused `used` (a 401, or a 403 with
    /// `insufficient_scope`): refresh, or sign in again (with the union of
    /// the scopes for a step-up), so that the caller can retry once.
    pub(crate) async fn challenged(
        self: &Arc<Self>,
        challenge: &Challenge,
        used: Option<&str>,
    ) -> Result<(), BridgeError> {
        {
            let mut record = self.record.lock().await;
            let current = self.current();
            if current.is_some() && current.as_deref() != used {
                // Another request renewed the token meanwhile.
                return Ok(());
            }
            if !challenge.is_insufficient_scope() {
                let refused = used.or(current.as_deref());
                let refreshed =
                    tokio::time::timeout(self.options.request_limit, self.refresh(&mut record, refused)).await;
                if matches!(refreshed, Ok(Ok(()))) {
                    return Ok(());
                }
            }
        }
        if self.options.sandbox {
            return Err(BridgeError::new(Cause::Sandbox));
        }
        // The sign-in runs in a task of its own: a request that goes away
        // does not stop it, and the next one joins it (it waits for the
        // turn, then takes its tokens) instead of opening another browser.
        let task = tokio::spawn(self.clone().sign_in_turn(challenge.clone(), used.map(str::to_owned)));
        match task.await {
            Ok(outcome) => outcome,
            Err(_) => Err(fail(Cause::SignInFailed, "the sign-in stopped")),
        }
    }

    /// One sign-in at a time per server in this process: one that waited
    /// for its turn takes the tokens that the one before it saved. Each
    /// wait is bounded by the sign-in limit.
    async fn sign_in_turn(self: Arc<Self>, challenge: Challenge, used: Option<String>) -> Result<(), BridgeError> {
        let Ok(_turn) = tokio::time::timeout(self.options.sign_in_timeout, shared::turn(&self.resource)).await else {
            return Err(self.timeout_error());
        };
        let mut record = self.record.lock().await;
        let current = self.current();
        if current.is_some() && current != used {
            return Ok(());
        }
        if self.signed_in_meanwhile(&mut record, used.as_deref().or(current.as_deref())).await {
            tracing::info!("took the tokens of a sign-in that ran meanwhile");
            return Ok(());
        }
        let later = !self.interactive.load(Ordering::Acquire);
        if later {
            self.asker.may_ask().await?;
        }
        // Set while the sign-in runs: a request stopped by its own time
        // limit meanwhile reads it, and names the sign-in.
        self.signing_in.store(true, Ordering::Release);
        let outcome =
            tokio::time::timeout(self.options.sign_in_timeout, self.sign_in(&mut record, &challenge, later)).await;
        self.signing_in.store(false, Ordering::Release);
        if later {
            self.asker.done().await;
        }
        match outcome {
            Ok(result) => result,
            Err(_) => Err(self.timeout_error()),
        }
    }

    /// Whether the store now has a valid token other than `refused`: one
    /// that another sign-in of this server saved since this one read it.
    async fn signed_in_meanwhile(&self, record: &mut Record, refused: Option<&str>) -> bool {
        let Ok(locked) = shared::lock(&self.options.store, &self.resource, self.options.request_limit).await else {
            return false;
        };
        let revision = record.revision;
        let caught_up = self.catch_up(record, locked).await.is_ok();
        caught_up && record.revision != revision && self.has_valid_token() && self.renewed(refused)
    }

    /// `sign_in_timeout` with the seconds and the name of the executable.
    pub(super) fn timeout_error(&self) -> BridgeError {
        let mut error = BridgeError::new(Cause::SignInTimeout);
        error.message = error
            .message
            .replace("{seconds}", &self.options.sign_in_timeout.as_secs().to_string())
            .replace("{name}", &self.options.program);
        error
    }

    /// Refreshes the token in use; `refused` is the token that the server
    /// refused, `None` for a token that is due. Bridges on the same server
    /// share the record: under its lock the record is read again first,
    /// and when another bridge refreshed since, its tokens serve, so only
    /// one bridge refreshes a grant. After an `invalid_grant` the record is
    /// read once more (a bridge that rotated the refresh token without the
    /// lock), before the caller falls back to a sign-in.
    async fn refresh(&self, record: &mut Record, refused: Option<&str>) -> Result<(), BridgeError> {
        let locked = shared::lock(&self.options.store, &self.resource, self.options.request_limit).await?;
        let locked = self.catch_up(record, locked).await?;
        if self.renewed(refused) {
            tracing::info!("another bridge refreshed the access token");
            return Ok(());
        }
        let locked = match self.refresh_once(record).await {
            Ok(()) => locked,
            Err(err) if signin::rejected_grant(&err) => {
                let revision = record.revision;
                let locked = self.catch_up(record, locked).await?;
                if self.renewed(refused) {
                    return Ok(());
                }
                if record.revision == revision {
                    return Err(err);
                }
                self.refresh_once(record).await?;
                locked
            }
            Err(err) => return Err(err),
        };
        match shared::write(locked, record.clone()).await {
            Ok(saved) => *record = saved,
            Err(err) => tracing::warn!(error = %err, "the refreshed tokens could not be kept for the next start"),
        }
        tracing::info!("the access token was refreshed");
        Ok(())
    }

    /// Reads the record under its lock; when another bridge saved it since
    /// this one read it, its grants and tokens replace ours.
    async fn catch_up(&self, record: &mut Record, locked: Locked) -> Result<Locked, BridgeError> {
        let (locked, fresh) = shared::read(locked)
            .await
            .ok_or_else(|| fail(Cause::SignInFailed, "the token store: the record cannot be read"))?;
        if fresh.revision != record.revision {
            *record = fresh;
            let grant = record.issuer.as_ref().and_then(|issuer| record.grants.get(issuer));
            if let Some(token) = grant.and_then(|g| Token::of(g, now_secs())) {
                *crate::sync::lock(&self.token) = Some(token);
            }
        }
        Ok(locked)
    }

    /// One refresh request with the grant of the record, whose tokens it
    /// changes (the caller saves them).
    async fn refresh_once(&self, record: &mut Record) -> Result<(), BridgeError> {
        let issuer = record.issuer.clone().ok_or_else(|| fail(Cause::SignInFailed, "refresh: no issuer"))?;
        let grant = record.grants.get(&issuer).filter(|g| g.refresh_token.is_some()).cloned();
        let mut grant = grant.ok_or_else(|| fail(Cause::SignInFailed, "refresh: no refresh token"))?;
        let server = discovery::server_metadata(&self.http, &issuer).await?;
        let indicator = record.indicator.clone().unwrap_or_else(|| self.resource.clone());
        let token = signin::refresh(&self.http, &server, &grant, &indicator).await?;
        signin::store_tokens(&mut grant, &token, None);
        *crate::sync::lock(&self.token) = Token::of(&grant, now_secs());
        record.grants.insert(issuer, grant);
        Ok(())
    }

    /// One sign-in. During initialize the browser opens (or the sign-in line
    /// names the URL); a `later` one asks the client to open it, with a URL
    /// elicitation, and stops when the user does not consent. On a remote
    /// host, or with `--sign-in device`, the device grant replaces the
    /// loopback redirect where the authorization server offers it.
    async fn sign_in(&self, record: &mut Record, challenge: &Challenge, later: bool) -> Result<(), BridgeError> {
        let server_url =
            Url::parse(&self.resource).map_err(|_| fail(Cause::SignInFailed, "the server URL is not valid"))?;
        let resource =
            discovery::resource_metadata(&self.http, &server_url, challenge.resource_metadata.as_deref()).await?;
        let issuer = resource.authorization_servers.first().cloned().unwrap_or_default();
        let server: ServerMetadata = discovery::server_metadata(&self.http, &issuer).await?;
        self.check_endpoints(&server).await?;
        let port = self.redirect_port(record);
        let redirect_uri = format!("http://127.0.0.1:{port}{}", redirect::CALLBACK_PATH);
        let offers_device = server.device_authorization_endpoint.is_some();
        let wants_device = match self.options.sign_in {
            SignInMode::Device => true,
            SignInMode::Auto => offers_device && self.options.place != Place::Local,
            SignInMode::Browser => false,
        };
        // The browser flow binds its port before anything is registered: a
        // port in use then stops it before a registration names that port.
        let listener = if wants_device { None } else { Some(redirect::bind(port).await?) };
        let stored = record.grants.get(&issuer);
        let grant =
            register::register(&self.http, &self.options.client, &server, stored, (&redirect_uri, wants_device))
                .await?;
        let scope = scope_for(challenge, &resource.scopes_supported, grant.scope.as_deref());
        let indicator = resource.resource.clone().unwrap_or_else(|| self.resource.clone());
        let device = wants_device && (self.options.sign_in == SignInMode::Device || grant.allows_device());
        let open = self.options.browser && self.options.place == Place::Local;
        let present = if later { signin::Present::Ask(&self.asker) } else { signin::Present::Browser(open) };
        let flow = signin::Flow {
            http: &self.http,
            server: &server,
            grant: &grant,
            resource: &indicator,
            scope: scope.as_deref(),
            present,
        };
        let token = if device {
            device::sign_in(flow, self.timeout_error()).await?
        } else {
            let listener = match listener {
                Some(listener) => listener,
                None => redirect::bind(port).await?,
            };
            if let Place::Remote(remote) = self.options.place {
                tracing::warn!("{}", remote.advice(port, self.options.port_forwarding.as_deref()));
            }
            signin::sign_in(flow, &listener, &redirect_uri).await?
        };
        let mut grant = grant;
        signin::store_tokens(&mut grant, &token, scope.as_deref());
        record.redirect_port = Some(port);
        // Kept only when it differs from the server URL, which the file does
        // not name.
        record.indicator = resource.resource.filter(|r| r.trim_end_matches('/') != self.resource);
        self.keep(record, &issuer, grant).await;
        self.sign_ins.send_modify(|n| *n += 1);
        tracing::info!("the sign-in is complete");
        Ok(())
    }

    /// The endpoints that the sign-in posts to must be where the fetcher
    /// may send a request; checked before the first of them, so that a
    /// refused one ends the sign-in at once (the device grant's polling
    /// would retry a request that cannot go out).
    async fn check_endpoints(&self, server: &ServerMetadata) -> Result<(), BridgeError> {
        let endpoints = [
            ("token_endpoint", Some(&server.token_endpoint)),
            ("registration_endpoint", server.registration_endpoint.as_ref()),
            ("device_authorization_endpoint", server.device_authorization_endpoint.as_ref()),
        ];
        for (name, url) in endpoints {
            let Some(url) = url else { continue };
            if let Err(why) = self.http.reachable(url).await {
                tracing::warn!(endpoint = name, why, "the sign-in does not use an endpoint of the metadata");
                return Err(fail(Cause::SignInFailed, format!("discovery: the {name} is not allowed: {why}")));
            }
        }
        Ok(())
    }

    /// Keeps the grant of a sign-in as the token in use, and in the
    /// record as the store has it now: under the lock, the other parts of
    /// the record stay as another bridge may have saved them since.
    async fn keep(&self, record: &mut Record, issuer: &str, grant: Grant) {
        *crate::sync::lock(&self.token) = Token::of(&grant, now_secs());
        record.issuer = Some(issuer.to_owned());
        record.grants.insert(issuer.to_owned(), grant.clone());
        let saved = async {
            let locked = shared::lock(&self.options.store, &self.resource, store::LOCK_WAIT).await.ok()?;
            let (locked, mut fresh) = shared::read(locked).await?;
            fresh.issuer = record.issuer.clone();
            fresh.redirect_port = record.redirect_port;
            fresh.indicator = record.indicator.clone();
            fresh.grants.insert(issuer.to_owned(), grant);
            shared::write(locked, fresh).await.ok()
        };
        match saved.await {
            Some(saved) => *record = saved,
            None => tracing::warn!("the tokens could not be kept for the next start"),
        }
    }

    /// `--redirect-port`, else the port this server used before, else a
    /// port that no other server of the store keeps and that is free now.
    /// Kept in the record, the port survives restarts (a registration names
    /// its redirect URI), and two servers never share one.
    fn redirect_port(&self, record: &Record) -> u16 {
        if let Some(port) = self.options.redirect_port.or(record.redirect_port) {
            return port;
        }
        let taken = self.options.store.ports_in_use();
        let digest = sha2::Digest::finalize(<sha2::Sha256 as sha2::Digest>::new_with_prefix(self.resource.as_bytes()));
        let span = u32::from(PORT_RANGE.end() - PORT_RANGE.start()) + 1;
        let seed = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]) % span;
        (0..span)
            .map(|i| PORT_RANGE.start() + u16::try_from((seed + i) % span).unwrap_or(0))
            .find(|port| !taken.contains(port) && std::net::TcpListener::bind(("127.0.0.1", *port)).is_ok())
            .unwrap_or(*PORT_RANGE.start())
    }
}

/// The scopes to ask: the challenge's, else the metadata's `scopes_supported`;
/// for a step-up, with the scopes asked before (the union).
fn scope_for(challenge: &Challenge, supported: &Option<Vec<String>>, before: Option<&str>) -> Option<String> {
    let wanted = challenge.scope.clone().or_else(|| supported.as_ref().map(|s| s.join(" ")))?;
    let mut scopes: Vec<&str> = Vec::new();
    let previous = if challenge.is_insufficient_scope() { before.unwrap_or("") } else { "" };
    for scope in previous.split(' ').chain(wanted.split(' ')).filter(|s| !s.is_empty()) {
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Some(scopes.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scope_is_the_challenges_else_the_metadatas_and_a_step_up_keeps_the_old_ones() {
        let challenge = |scope: Option<&str>, error: Option<&str>| Challenge {
            resource_metadata: None,
            scope: scope.map(Into::into),
            error: error.map(Into::into),
        };
        let supported = Some(vec!["a".to_owned(), "b".to_owned()]);
        assert_eq!(
            scope_for(&challenge(Some("files:read"), None), &supported, Some("x")).as_deref(),
            Some("files:read")
        );
        assert_eq!(scope_for(&challenge(None, None), &supported, None).as_deref(), Some("a b"));
        assert_eq!(scope_for(&challenge(None, None), &None, None), None);
        assert_eq!(
            scope_for(&challenge(Some("w r"), Some("insufficient_scope")), &None, Some("r s")).as_deref(),
            Some("r s w")
        );
    }
}
