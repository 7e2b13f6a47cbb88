#!/usr/bin/env python3
"""A scripted protected 2026-07-28 MCP server over HTTP with its own OAuth authorization server.

Standard library only; one process, one port on 127.0.0.1, printing `PORT <n>` on stdout once it
listens; it exits when its stdin closes. The MCP endpoint is /mcp; every request needs a bearer
token of this server, else 401 with a Bearer challenge naming the protected resource metadata.

Routes:
  GET  /.well-known/oauth-protected-resource/mcp   protected resource metadata (RFC 9728)
  GET  /.well-known/oauth-authorization-server     authorization server metadata (RFC 8414)
  POST /register                                   dynamic client registration (RFC 7591)
  GET  /authorize                                  approves at once: 302 to the redirect URI with
                                                   code, state and iss (no login page)
  POST /token                                      authorization_code (PKCE S256 checked, resource
                                                   required) and refresh_token (rotated)
  POST /mcp                                        server/discover, tools/list (one tool `whoami`),
                                                   tools/call whoami (text: the scope of the token),
                                                   202 for notifications

Options:
  --record PATH         append one JSON line per request: method, path, query keys, whether a
                        bearer token came, the form keys of /token and /register. Also:
                        /authorize: "values", the values of response_type, client_id, redirect_uri,
                        scope, resource and code_challenge_method (the ones it has); /token:
                        "refresh_token" (the one presented), "status", and "issued" (the
                        access_token and refresh_token it answered, else null); /mcp: "token" (the
                        bearer token, else null) and "status"
  --iss MODE            right (default) | wrong | absent: the iss of the redirect
  --deny                the redirect carries error=access_denied
  --error CODE          the redirect carries error=CODE
  --no-registration     the metadata has no registration_endpoint (and no client ID metadata)
  --registration-status N   /register answers N with {"error": "invalid_redirect_uri"}
  --expires-in N        the lifetime of the access tokens, in seconds (default 3600)
  --step-up SCOPE       the method of --step-up-method needs SCOPE: a token without it gets 403
                        insufficient_scope with that scope
  --step-up-method M    the method that --step-up guards (default tools/call); server/discover
                        makes the step-up happen during initialize
  --always-refuse       every /mcp request gets 401, also with a valid token
  --open                /mcp needs no token (the same server without a sign-in, for the benchmark)
  --secret TEXT         the prefix of the tokens and codes (so a test can grep the logs for it)
  --mcp-path PATH       the path of the MCP endpoint instead of /mcp (the resource and the
                        protected resource metadata follow it)
  --client-secret       /register also answers a client_secret (the --secret prefix, then
                        "-client-secret"); /token does not check it
  --registration-error TEXT  /register answers --registration-status (default 400) with
                        {"error": TEXT} (a hostile error text)
  --huge ROUTE          ROUTE answers 200 with a JSON body of --huge-bytes bytes, or an endless
                        chunked one when that is 0: resource-metadata, server-metadata, register
                        or token
  --huge-bytes N        the size of the --huge body (default 0: endless)
  --token-error CODE    an authorization_code grant gets 400 with {"error": CODE}
  --authorization-endpoint URL  the authorization_endpoint of the metadata (default: /authorize)
  --verification-uri TEXT           the verification_uri of the device authorization response, as given
  --verification-uri-complete TEXT  its verification_uri_complete, as given
  --user-code TEXT      the user code of the device authorization response, as given
  --overrides-from N    the three options above apply from the N-th device authorization on (default 1)
  --redirect-posts LIST POST to these paths (comma-separated: /token, /device_authorization, /register)
                        answers 307 to /caught on this server's origin; POST /caught records the form
                        keys it got (it must get none)
  --tls-cert PATH       serve HTTPS with this PEM certificate chain
  --tls-key PATH        and this PEM private key (both needed)
  --base-host HOST      the host of the URLs this server gives (metadata, challenge), default 127.0.0.1
  --public-tls-cert PATH  a second listener on --bind serves HTTPS with this PEM certificate chain
  --public-tls-key PATH   and this PEM private key; the verification URIs name it (https, --public-host
                        and its port, printed as `PUBLIC_PORT <n>` after `PORT <n>`): an
                        authorization server whose pages the user's machine reaches over https
  --local ROUTE         one URL of the sign-in points at a second listener, plain HTTP on 127.0.0.1,
                        that records every request ({"listener": "local", ...}) and answers as the
                        main one would: resource-metadata (the challenge's resource_metadata), issuer
                        (authorization_servers), register, device or token (the metadata's endpoint)
  --local-name HOST     the host of the --local listener's URL (default 127.0.0.1): a name that the
                        system resolves to 127.0.0.1; with --tls-cert the local listener serves HTTPS
                        too (a TLS service of the user's machine whose certificate names HOST)
  --hang-refresh        a refresh_token grant gets no answer: the request is held until the
                        client closes the connection (a hanging token endpoint)

  --device              the metadata offers the device grant (RFC 8628): POST /device_authorization
                        gives a device code and a user code; GET /device?user_code=C approves it
                        (with &deny=1 it denies it: the test plays the user); the token endpoint
                        answers the device_code grant with authorization_pending until then
  --device-polls LIST   answers of the first polls, before the user's choice counts, comma-separated:
                        pending, slow_down or error:CODE
  --device-expires-in N the lifetime of a device code, in seconds (default 600): later polls get
                        expired_token
  --device-interval N   the interval of the device authorization response (default 1)
  --no-verification-complete  the device authorization response has no verification_uri_complete
  --registration-grant-types LIST  the grant_types of the registration response, comma-separated
                        (default: those asked for)
  --bind HOST           the address to listen on (default 127.0.0.1)
  --public-host HOST    the host of the verification URI (default 127.0.0.1): the user's machine
                        reaches the fake there when the bridge reaches it on 127.0.0.1

Access tokens expire after --expires-in seconds: /mcp then answers 401 as for an unknown token.
"""
import argparse
import base64
import hashlib
import json
import os
import socket
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

p = argparse.ArgumentParser()
p.add_argument("--record")
p.add_argument("--iss", default="right")
p.add_argument("--deny", action="store_true")
p.add_argument("--error")
p.add_argument("--no-registration", action="store_true")
p.add_argument("--registration-status", type=int)
p.add_argument("--expires-in", type=int, default=3600)
p.add_argument("--step-up")
p.add_argument("--step-up-method", default="tools/call")
p.add_argument("--always-refuse", action="store_true")
p.add_argument("--open", action="store_true")
p.add_argument("--secret", default="SeCrEt")
p.add_argument("--client-secret", action="store_true")
p.add_argument("--mcp-path", default="/mcp")
p.add_argument("--registration-error")
p.add_argument("--huge")
p.add_argument("--huge-bytes", type=int, default=0)
p.add_argument("--hang-refresh", action="store_true")
p.add_argument("--token-error")
p.add_argument("--device", action="store_true")
p.add_argument("--device-polls", default="")
p.add_argument("--device-expires-in", type=int, default=600)
p.add_argument("--device-interval", type=int, default=1)
p.add_argument("--no-verification-complete", action="store_true")
p.add_argument("--registration-grant-types")
p.add_argument("--bind", default="127.0.0.1")
p.add_argument("--public-host", default="127.0.0.1")
p.add_argument("--authorization-endpoint")
p.add_argument("--verification-uri")
p.add_argument("--verification-uri-complete")
p.add_argument("--user-code")
p.add_argument("--overrides-from", type=int, default=1)
p.add_argument("--redirect-posts", default="")
p.add_argument("--tls-cert")
p.add_argument("--tls-key")
p.add_argument("--base-host", default="127.0.0.1")
p.add_argument("--public-tls-cert")
p.add_argument("--public-tls-key")
p.add_argument("--local")
p.add_argument("--local-name", default="127.0.0.1")
args = p.parse_args()

lock = threading.Lock()
codes = {}    # code -> (challenge, redirect_uri, scope, client_id)
tokens = {}   # access token -> (scope, expiry on the monotonic clock)
refresh = {}  # refresh token -> scope
counter = [0]
asked = [0]  # device authorizations so far
devices = {}  # device code -> {"user_code", "expires", "choice": None | "approve" | "deny", "scope"}
device_polls = [a for a in args.device_polls.split(",") if a]


def new(kind):
    with lock:
        counter[0] += 1
        return f"{args.secret}-{kind}-{counter[0]}"


def record(entry):
    if args.record:
        with lock, open(args.record, "a") as f:
            f.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        # The head and the body go out in two writes: without this, Nagle's
        # algorithm holds the body for the client's delayed ACK (40 ms).
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def base(self):
        scheme = "https" if args.tls_cert else "http"
        return f"{scheme}://{args.base_host}:{main_port[0]}"

    def at(self, route, path):
        """The URL of a path, on the local listener when --local names the route."""
        if args.local == route:
            scheme = "https" if args.tls_cert and args.local_name != "127.0.0.1" else "http"
            return f"{scheme}://{args.local_name}:{local_port[0]}{path}"
        return self.base() + path

    def send_json(self, status, body, headers=()):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def redirect(self, location):
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def huge(self):
        """A 200 JSON body of --huge-bytes bytes, or an endless one; the client may close it."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        chunk = b"a" * 65536
        try:
            if args.huge_bytes:
                self.send_header("Content-Length", str(args.huge_bytes))
                self.end_headers()
                self.wfile.write(b'{"x":"')
                left = args.huge_bytes - 6
                while left > 0:
                    piece = chunk[:left]
                    self.wfile.write(piece)
                    left -= len(piece)
            else:
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                frame = b"%x\r\n" % len(chunk) + chunk + b"\r\n"
                while True:
                    self.wfile.write(frame)
        except OSError:
            pass
        self.close_connection = True

    def hold(self):
        """No answer: wait until the client closes the connection."""
        try:
            while self.rfile.read(1):
                pass
        except OSError:
            pass
        self.close_connection = True

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query))
        entry = {"method": "GET", "path": url.path, "query": sorted(query)}
        if self.server is local_server[0]:
            entry["listener"] = "local"
        if url.path == "/authorize":
            shown = ("response_type", "client_id", "redirect_uri", "scope", "resource", "code_challenge_method")
            entry["values"] = {k: query[k] for k in shown if k in query}
        record(entry)
        base = self.base()
        if url.path == f"/.well-known/oauth-protected-resource{args.mcp_path}" and args.huge == "resource-metadata":
            return self.huge()
        if url.path == "/.well-known/oauth-authorization-server" and args.huge == "server-metadata":
            return self.huge()
        if url.path == f"/.well-known/oauth-protected-resource{args.mcp_path}":
            issuer = self.at("issuer", "")
            return self.send_json(200, {"resource": f"{base}{args.mcp_path}", "authorization_servers": [issuer], "scopes_supported": ["mcp:read"]})
        if url.path == "/.well-known/oauth-authorization-server":
            meta = {
                "issuer": self.at("issuer", ""),
                "authorization_endpoint": args.authorization_endpoint or f"{base}/authorize",
                "token_endpoint": self.at("token", "/token"),
                "code_challenge_methods_supported": ["S256"],
                "authorization_response_iss_parameter_supported": args.iss != "absent",
                "response_types_supported": ["code"],
            }
            if not args.no_registration:
                meta["registration_endpoint"] = self.at("register", "/register")
            if args.device:
                meta["device_authorization_endpoint"] = self.at("device", "/device_authorization")
            return self.send_json(200, meta)
        if url.path == "/device" and args.device:
            code = query.get("user_code", "")
            with lock:
                found = [d for d in devices.values() if d["user_code"] == code]
                for d in found:
                    d["choice"] = "deny" if query.get("deny") else "approve"
            return self.send_json(200 if found else 404, {"device": "approved" if found else "unknown"})
        if url.path == "/authorize":
            target = query.get("redirect_uri", "")
            params = {"state": query.get("state", "")}
            if args.iss == "right":
                params["iss"] = base
            elif args.iss == "wrong":
                params["iss"] = "http://127.0.0.1:1"
            if args.deny or args.error:
                params["error"] = "access_denied" if args.deny else args.error
            else:
                code = new("code")
                with lock:
                    codes[code] = (query.get("code_challenge"), target, query.get("scope", ""), query.get("client_id"))
                params["code"] = code
            return self.redirect(target + "?" + urllib.parse.urlencode(params))
        self.send_json(404, {"error": "not_found"})

    def do_POST(self):
        url = urllib.parse.urlsplit(self.path)
        raw = self.body()
        if self.server is local_server[0]:
            record({"method": "POST", "path": url.path, "listener": "local"})
        if url.path == "/caught":
            record({"method": "POST", "path": "/caught", "keys": sorted(dict(urllib.parse.parse_qsl(raw.decode(errors="replace"))))})
            return self.send_json(400, {"error": "invalid_request"})
        if url.path in [r for r in args.redirect_posts.split(",") if r]:
            record({"method": "POST", "path": url.path, "redirected": True})
            self.send_response(307)
            self.send_header("Location", f"{self.base()}/caught")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if url.path == "/register":
            doc = json.loads(raw or b"{}")
            entry = {"method": "POST", "path": "/register", "keys": sorted(doc), "application_type": doc.get("application_type"), "redirect_uris": doc.get("redirect_uris")}
            if doc.get("grant_types") != ["authorization_code", "refresh_token"]:
                entry["grant_types"] = doc.get("grant_types")
            record(entry)
            if args.huge == "register":
                return self.huge()
            if args.registration_error is not None:
                return self.send_json(args.registration_status or 400, {"error": args.registration_error})
            if args.registration_status:
                return self.send_json(args.registration_status, {"error": "invalid_redirect_uri"})
            client = {"client_id": "client-1", "redirect_uris": doc.get("redirect_uris"),
                      "grant_types": doc.get("grant_types")}
            if args.registration_grant_types is not None:
                client["grant_types"] = [g for g in args.registration_grant_types.split(",") if g]
            if args.client_secret:
                client["client_secret"] = f"{args.secret}-client-secret"
            return self.send_json(201, client)
        if url.path == "/device_authorization" and args.device:
            form = dict(urllib.parse.parse_qsl(raw.decode()))
            record({"method": "POST", "path": "/device_authorization", "keys": sorted(form),
                    "client_id": form.get("client_id"), "resource": form.get("resource"), "scope": form.get("scope")})
            device_code, user_code = new("device"), "%04d-%04d" % (counter[0], counter[0] * 7 % 10000)
            with lock:
                asked[0] += 1
                override = asked[0] >= args.overrides_from
            if override and args.user_code is not None:
                user_code = args.user_code
            with lock:
                devices[device_code] = {"user_code": user_code, "choice": None, "scope": form.get("scope", ""),
                                        "expires": time.monotonic() + args.device_expires_in}
            if public_port[0]:
                public = f"https://{args.public_host}:{public_port[0]}"
            else:
                public = f"{'https' if args.tls_cert else 'http'}://{args.public_host}:{main_port[0]}"
            body = {"device_code": device_code, "user_code": user_code, "verification_uri": f"{public}/device",
                    "expires_in": args.device_expires_in, "interval": args.device_interval}
            if not args.no_verification_complete:
                body["verification_uri_complete"] = f"{public}/device?user_code={user_code}"
            if override and args.verification_uri is not None:
                body["verification_uri"] = args.verification_uri
            if override and args.verification_uri_complete is not None:
                body["verification_uri_complete"] = args.verification_uri_complete
            return self.send_json(200, body)
        if url.path == "/token":
            form = dict(urllib.parse.parse_qsl(raw.decode()))
            if args.huge == "token":
                record({"method": "POST", "path": "/token", "grant_type": form.get("grant_type"), "huge": True})
                return self.huge()
            if args.hang_refresh and form.get("grant_type") == "refresh_token":
                record({"method": "POST", "path": "/token", "grant_type": "refresh_token", "held": True})
                return self.hold()
            status, body = self.token(form)
            issued = {k: body[k] for k in ("access_token", "refresh_token")} if status == 200 else None
            entry = {"method": "POST", "path": "/token", "keys": sorted(form), "grant_type": form.get("grant_type"),
                     "resource": form.get("resource"), "refresh_token": form.get("refresh_token"),
                     "status": status, "issued": issued}
            if form.get("grant_type") == "urn:ietf:params:oauth:grant-type:device_code":
                entry["t"] = time.monotonic()  # the times of the polls
            record(entry)
            return self.send_json(status, body)
        if url.path == args.mcp_path:
            return self.mcp(raw)
        self.send_json(404, {"error": "not_found"})

    def token(self, form):
        """The status and the body of the answer to a token request."""
        if form.get("grant_type") == "authorization_code" and args.token_error:
            return 400, {"error": args.token_error}
        if form.get("grant_type") == "authorization_code":
            with lock:
                entry = codes.pop(form.get("code", ""), None)
            if entry is None or not form.get("resource"):
                return 400, {"error": "invalid_grant"}
            challenge, redirect_uri, scope, _ = entry
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            if digest != challenge or form.get("redirect_uri") != redirect_uri:
                return 400, {"error": "invalid_grant"}
            return 200, self.issue(scope)
        if form.get("grant_type") == "urn:ietf:params:oauth:grant-type:device_code" and args.device:
            with lock:
                device = devices.get(form.get("device_code", ""))
                scripted = device_polls.pop(0) if device is not None and device_polls else None
            if device is None or not form.get("resource"):
                return 400, {"error": "invalid_grant"}
            if scripted is not None:
                kind, _, code = scripted.partition(":")
                return 400, {"error": {"pending": "authorization_pending", "slow_down": "slow_down"}.get(kind, code)}
            if time.monotonic() >= device["expires"]:
                return 400, {"error": "expired_token"}
            if device["choice"] is None:
                return 400, {"error": "authorization_pending"}
            if device["choice"] == "deny":
                return 400, {"error": "access_denied"}
            with lock:
                devices.pop(form.get("device_code", ""), None)
            return 200, self.issue(device["scope"])
        if form.get("grant_type") == "refresh_token":
            with lock:
                scope = refresh.pop(form.get("refresh_token", ""), None)
            if scope is None:
                return 400, {"error": "invalid_grant"}
            return 200, self.issue(scope)
        return 400, {"error": "unsupported_grant_type"}

    def issue(self, scope):
        access, refresh_token = new("access"), new("refresh")
        with lock:
            tokens[access] = (scope, time.monotonic() + args.expires_in)
            refresh[refresh_token] = scope
        return {"access_token": access, "token_type": "Bearer", "expires_in": args.expires_in, "refresh_token": refresh_token, "scope": scope}

    def mcp(self, raw):
        auth = self.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else None
        msg = json.loads(raw or b"{}")
        entry = {"method": "POST", "path": args.mcp_path, "rpc": msg.get("method"), "bearer": token is not None, "token": token}
        # Only what is unusual is recorded: more than one Authorization header, or a Basic one.
        authorizations = self.headers.get_all("Authorization") or []
        if len(authorizations) > 1:
            entry["authorizations"] = len(authorizations)
        if any(a.startswith("Basic ") for a in authorizations):
            entry["basic"] = True
        base = self.base()
        metadata = self.at("resource-metadata", f"/.well-known/oauth-protected-resource{args.mcp_path}")
        challenge = f'Bearer resource_metadata="{metadata}", scope="mcp:read"'
        with lock:
            scope, expiry = tokens.get(token, (None, 0)) if token else (None, 0)
        if scope is not None and time.monotonic() >= expiry:
            scope = None
        if args.open:
            scope = scope or ""
        if scope is None or args.always_refuse:
            record({**entry, "status": 401})
            return self.send_json(401, {"error": "invalid_token"}, [("WWW-Authenticate", challenge)])
        if "id" not in msg:
            record({**entry, "status": 202})
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        method = msg.get("method")
        if method == args.step_up_method and args.step_up and args.step_up not in scope.split():
            record({**entry, "status": 403})
            header = f'Bearer error="insufficient_scope", scope="{args.step_up}", resource_metadata="{base}/.well-known/oauth-protected-resource{args.mcp_path}"'
            return self.send_json(403, {"error": "insufficient_scope"}, [("WWW-Authenticate", header)])
        if method == "server/discover":
            result = {"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                      "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "auth-fake", "version": "1.0"}}}
        elif method == "tools/list":
            result = {"tools": [{"name": "whoami", "inputSchema": {"type": "object"}}]}
        elif method == "tools/call":
            result = {"content": [{"type": "text", "text": f"scope {scope}"}]}
        else:
            result = {}
        record({**entry, "status": 200})
        self.send_json(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result})

def tls(server, cert, key):
    import ssl
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)


main_port, local_port, public_port, main_server, local_server = [0], [0], [0], [None], [None]
server = ThreadingHTTPServer((args.bind, 0), Handler)
main_server[0], main_port[0] = server, server.server_address[1]
if args.tls_cert:
    tls(server, args.tls_cert, args.tls_key)
servers = [server]
if args.public_tls_cert:
    public = ThreadingHTTPServer((args.bind, 0), Handler)
    tls(public, args.public_tls_cert, args.public_tls_key)
    public_port[0] = public.server_address[1]
    servers.append(public)
if args.local:
    local = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    local_server[0], local_port[0] = local, local.server_address[1]
    if args.tls_cert and args.local_name != "127.0.0.1":
        tls(local, args.tls_cert, args.tls_key)
    servers.append(local)
for s in servers:
    threading.Thread(target=s.serve_forever, daemon=True).start()
print(f"PORT {server.server_address[1]}", flush=True)
if public_port[0]:
    print(f"PUBLIC_PORT {public_port[0]}", flush=True)
sys.stdin.read()
for s in servers:
    s.shutdown()
