#!/usr/bin/env python3
"""A scripted 2026-07-28 Streamable HTTP upstream for what a real server will not do.

The peer of crates/mcp-bridge-vscode/tests/it/http/. Standard library only: a
ThreadingHTTPServer speaking HTTP/1.1 on 127.0.0.1 (keep-alive, Content-Length for
JSON bodies, chunked transfer for SSE streams), one thread per connection.

    python3 tests/fake/http_upstream.py [OPTIONS]

It prints two lines on stdout once both listeners listen:
    PORT <n>     the MCP endpoint: http(s)://127.0.0.1:<n>/<any path>, every path and query
                 is served alike (so a test can put a secret into the URL)
    OTHER <m>    a second listener on another port: another origin, the target of the
                 redirects. It answers every POST with a JSON-RPC result whose text is
                 "other origin", and records every request with "listener": "other", so a
                 test sees whether the bridge followed a redirect and with which headers.
It exits when its stdin closes, or on SIGTERM/SIGINT.

Options
  --record PATH        append one JSON line per request to PATH, at its arrival, before the
                       answer: {"t": <monotonic s>, "listener": "main"|"other", "method": "POST",
                       "path": "<path and query>", "headers": [[name, value], ...] (as received,
                       in order, names as sent), "body": <the parsed JSON body, or {"raw": text}>}
                       and one line per event the fake saw on a connection:
                       {"t", "event": "disconnect", "id": <JSON-RPC id>} when the client closed
                       the connection of a request that was still open (a cancel, a time limit);
                       {"t", "event": "tls-error", "error": <text>} for a failed TLS handshake.
  --mode json|sse      how requests are answered by default (json): one application/json body,
                       or a text/event-stream with one `event: message` frame (LF line ends)
  --server-info JSON   the _meta serverInfo of the discover result (default
                       {"name":"fake-http-upstream","version":"0.0.1"}; "none" leaves it out)
  --capabilities JSON  the capabilities of the discover result (default
                       {"tools":{},"prompts":{},"resources":{},"completions":{},"logging":{}}: no
                       list change and no subscribe, so the bridge opens no listen stream)
  --result METHOD=JSON (repeatable) the result of every request of METHOD (any method but
                       server/discover, tools/call and subscriptions/listen), as given
  --status METHOD=CODE[:KIND]
                       (repeatable) every request or notification of METHOD gets the HTTP status
                       CODE with a body of KIND (default empty):
                         empty     no body (Content-Length: 0)
                         text      text/plain "upstream says no"
                         html      text/html "<html><body>upstream says no</body></html>"
                         json      application/json {"error": "not json-rpc"} (JSON, not JSON-RPC)
                         jsonrpc   application/json, the JSON-RPC error of the request's id (null for
                                   a notification): {"code": -32001, "message": "refused with HTTP
                                   status CODE", "data": {"status": CODE}}
                         redirect  Location: the same path and query on the OTHER listener
  --delay METHOD=MS    (repeatable) answer each request of METHOD MS ms late (the connection is
                       watched meanwhile: a client that closes it is recorded as a disconnect)
  --notification-status CODE
                       the status of an accepted notification POST (default 202, empty body)
  --listen SPECS       the behaviour of the n-th subscriptions/listen request, a comma-separated
                       list; past its end, the last one applies (default "ack"):
                         ack             200 text/event-stream, the acknowledgment (the filter as
                                         asked, _meta subscriptionId = the request's id) at once,
                                         then the events of the tool emit, until the client closes
                         ack-close:MS    acknowledge, then MS ms later end the stream cleanly (the
                                         last chunk) without a response
                         ack-abort:MS    acknowledge, then MS ms later close the connection (no last
                                         chunk: the stream breaks)
                         ack-result:MS   acknowledge, then MS ms later a result event ends the stream
                         silent          200 text/event-stream, then nothing until the client closes
                         status:CODE[:KIND]
                                         the HTTP status CODE, the body as for --status
  --port N             the port of the MCP endpoint (default 0: one the system picks), so
                       that a test can start the fake again where it was
  --tls-cert PATH      serve HTTPS on the main listener with this PEM certificate chain
  --tls-key PATH       and this PEM private key (both needed; the OTHER listener stays HTTP)

tools/call by tool name (params.arguments is `a`):
  echo      result: a text block "echo" and structuredContent {"arguments": a}
  result    answers a.result as the result, unchanged
  status    the HTTP status a.code with a body of kind a.body (default empty), as for --status
  body      the HTTP status a.status (default 200), Content-Type a.content_type (default
            application/json) and the body a.text, with each {{id}} replaced by the JSON of
            the request's id (a body that is not JSON, or not JSON-RPC)
  slow      answers a text block "slow" after a.ms ms (default 1000); with a.sse true, it opens an
            SSE stream at once (a `: waiting` comment) and sends the result event then. The
            connection is watched: a client that closes it first is recorded as a disconnect
  wait      opens an SSE stream, sends one progress (0, 1, "waiting") when the request has a
            progressToken (else a `: waiting` comment), then holds the stream until the client
            closes it (recorded as a disconnect) or a.ms ms (default 30000) passed; then the
            result "waited"
  sse       an SSE stream written from a.frames, a list of texts joined in order, with these
            placeholders replaced:
              {{result}}    the JSON of the response {"jsonrpc":"2.0","id":<id>,"result":
                            {"content":[{"type":"text","text":"sse ok"}]}}
              {{progress}}  the JSON of the next notifications/progress (progress k = 1, 2, ..., total
                            = the number of {{progress}}, message "step k", the request's
                            progressToken, else its id)
              {{log}}       the JSON of a notifications/message (level "info", logger "fake-http",
                            data "log k")
              {{id}}        the JSON of the request's id
            Each frame is its own chunk (write and flush); with a.split N the joined text is
            written in pieces of N bytes instead (an event split anywhere, also inside a CRLF or a
            UTF-8 sequence). a.gap_ms (default 0) waits between two writes. a.end: "close"
            (default) ends the stream with the last chunk, "abort" closes the connection
            without it (a connection closed mid-stream), "hold" keeps it open until the client
            closes it
  big       a response larger than a.bytes (default 1 MiB), as a.as:
              json          Content-Length of the whole body, a body with a text of a.bytes bytes
              chunked-json  the same body, chunked, without a Content-Length
              event         an SSE stream whose one event has a data line of a.bytes bytes
            With a.finish false the fake writes only the first a.bytes bytes (the JSON body, or
            the event without its blank line), then holds the connection until the client closes
            it: a bridge that waits for the whole message never answers. With a.finish "abort"
            it writes those bytes and closes the connection (a body that breaks off)
  sized     a JSON response of exactly a.bytes bytes of body (a text block of "x" padding)
  progress  an SSE stream: a.count (default 3) progress notifications (progress k, total count,
            message "step k") and one log message (level a.level or "info", logger "fake-http",
            data "hello"), then the result "done"
  redirect  307 with Location: the same path and query on the OTHER listener (another origin)
  redirect-same
            307 with a relative Location: /moved<the path and query> on this listener (the same
            origin); the POST there answers the text "moved here"
  emit      writes a.events (each {"method", "params"}) on every open acknowledged listen stream,
            each event with the stream's subscriptionId in params._meta, then answers "emitted"
  any other name: the JSON-RPC error {"code": -32602, "message": "unknown tool <name>"}
Every other method answers {"resultType": "complete", "method": <method>}, or its --result.
A notification POST (no id) gets --notification-status, or its --status.
"""
import argparse
import json
import os
import queue
import select
import signal
import socket
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

args = argparse.ArgumentParser(description="A scripted 2026-07-28 Streamable HTTP upstream.")
args.add_argument("--record")
args.add_argument("--mode", choices=["json", "sse"], default="json")
args.add_argument("--server-info", default='{"name":"fake-http-upstream","version":"0.0.1"}')
args.add_argument("--capabilities", default='{"tools":{},"prompts":{},"resources":{},"completions":{},"logging":{}}')
args.add_argument("--result", action="append", default=[], metavar="METHOD=JSON")
args.add_argument("--status", action="append", default=[], metavar="METHOD=CODE[:KIND]")
args.add_argument("--delay", action="append", default=[], metavar="METHOD=MS")
args.add_argument("--notification-status", type=int, default=202)
args.add_argument("--listen", default="ack")
args.add_argument("--port", type=int, default=0)
args.add_argument("--tls-cert")
args.add_argument("--tls-key")
opts = args.parse_args()


def pairs(specs):
    """METHOD=VALUE options, split at the first "=" (a JSON value can hold "=")."""
    out = {}
    for spec in specs:
        method, _, value = spec.partition("=")
        out[method] = value
    return out


results = {m: json.loads(v) for m, v in pairs(opts.result).items()}
statuses = pairs(opts.status)
delays = {m: int(v) / 1000 for m, v in pairs(opts.delay).items()}
listen_script = opts.listen.split(",")

record_lock = threading.Lock()
record_file = open(opts.record, "a", buffering=1) if opts.record else None
other_port = None


def record(entry):
    if record_file is None:
        return
    entry = dict(entry, t=time.monotonic())
    with record_lock:
        record_file.write(json.dumps(entry) + "\n")


# The open, acknowledged listen streams: id (as JSON) -> queue of events to write.
streams_lock = threading.Lock()
streams = {}
listens_seen = 0


def error_body(id_, code):
    return {"jsonrpc": "2.0", "id": id_,
            "error": {"code": -32001, "message": f"refused with HTTP status {code}", "data": {"status": code}}}


def stream_meta(sid):
    return {"io.modelcontextprotocol/subscriptionId": sid}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    listener = "main"

    def log_message(self, format, *args):  # noqa: A002 - the signature of the base class
        pass

    # --- the wire ---------------------------------------------------------------

    def send_body(self, status, content_type, body, extra_headers=None):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        for name, value in (extra_headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def send_json(self, message, status=200):
        self.send_body(status, "application/json", json.dumps(message))

    def start_sse(self, status=200):
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Accel-Buffering", "no")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def chunk(self, data):
        data = data.encode() if isinstance(data, str) else data
        if not data:
            return
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_chunks(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def event(self, message):
        self.chunk("event: message\ndata: " + json.dumps(message) + "\n\n")

    def abort(self):
        """Closes the connection at once, without the last chunk."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def client_closed(self, timeout):
        """True when the client closed the connection within `timeout` seconds."""
        try:
            readable, _, _ = select.select([self.connection], [], [], timeout)
            if not readable:
                return False
            if isinstance(self.connection, ssl.SSLSocket):
                data = self.connection.recv(1)
            else:
                data = self.connection.recv(1, socket.MSG_PEEK)
            return data == b""
        except (OSError, ValueError):
            return True

    def watch(self, id_, seconds):
        """Waits `seconds`; True (and a recorded disconnect) when the client closed first."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            if self.client_closed(min(left, 0.05)):
                record({"event": "disconnect", "id": id_})
                self.close_connection = True
                return True

    def answer(self, msg, res):
        """The result of a request, as JSON or as a one-event SSE stream (--mode)."""
        reply = {"jsonrpc": "2.0", "id": msg["id"], "result": res}
        if opts.mode == "sse":
            self.start_sse()
            self.event(reply)
            self.end_chunks()
        else:
            self.send_json(reply)

    def text(self, msg, text):
        self.answer(msg, {"resultType": "complete", "content": [{"type": "text", "text": text}]})

    def status(self, msg, code, kind):
        id_ = msg.get("id")
        if kind == "empty":
            self.send_body(code, None, b"")
        elif kind == "text":
            self.send_body(code, "text/plain", "upstream says no")
        elif kind == "html":
            self.send_body(code, "text/html", "<html><body>upstream says no</body></html>")
        elif kind == "json":
            self.send_body(code, "application/json", json.dumps({"error": "not json-rpc"}))
        elif kind == "jsonrpc":
            self.send_json(error_body(id_, code), status=code)
        elif kind == "redirect":
            location = f"http://127.0.0.1:{other_port}{self.path}"
            self.send_body(code, "text/plain", "moved", {"Location": location})
        else:
            raise ValueError(f"unknown body kind {kind}")

    # --- requests ------------------------------------------------------------------

    def do_GET(self):  # noqa: N802 - the name of the base class
        self.read_and_record()
        self.send_body(405, "text/plain", "POST only", {"Allow": "POST"})

    def read_and_record(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = {"raw": raw.decode("utf-8", "replace")}
        record({"listener": self.listener, "method": self.command, "path": self.path,
                "headers": [[k, v] for k, v in self.headers.items()], "body": body})
        return body

    def do_POST(self):  # noqa: N802
        msg = self.read_and_record()
        if not isinstance(msg, dict) or "method" not in msg:
            self.send_json({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "not a request"}}, 400)
            return
        method = msg["method"]
        if method in statuses:
            code, _, kind = statuses[method].partition(":")
            self.status(msg, int(code), kind or "empty")
            return
        if "id" not in msg:
            self.send_body(opts.notification_status, None, b"")
            return
        if method in delays and self.watch(msg["id"], delays[method]):
            return
        if method == "server/discover":
            self.discover(msg)
        elif method == "subscriptions/listen":
            self.listen(msg)
        elif method == "tools/call":
            self.call(msg)
        elif method in results:
            self.answer(msg, results[method])
        else:
            self.answer(msg, {"resultType": "complete", "method": method})

    def discover(self, msg):
        res = {"resultType": "complete", "supportedVersions": ["2026-07-28"],
               "capabilities": json.loads(opts.capabilities), "instructions": "fake http instructions",
               "ttlMs": 0, "cacheScope": "private"}
        if opts.server_info != "none":
            res["_meta"] = {"io.modelcontextprotocol/serverInfo": json.loads(opts.server_info)}
        self.answer(msg, res)

    def listen(self, msg):
        global listens_seen
        with streams_lock:
            spec = listen_script[min(listens_seen, len(listen_script) - 1)]
            listens_seen += 1
        kind, _, arg = spec.partition(":")
        sid = msg["id"]
        if kind == "status":
            code, _, body = arg.partition(":")
            self.status(msg, int(code), body or "empty")
            return
        self.start_sse()
        if kind == "silent":
            self.watch(sid, 3600)
            return
        notifications = (msg.get("params") or {}).get("notifications", {})
        events = queue.Queue()
        key = json.dumps(sid)
        with streams_lock:
            streams[key] = events
        try:
            self.event({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                        "params": {"_meta": stream_meta(sid), "notifications": notifications}})
            until = time.monotonic() + (int(arg) / 1000 if arg else 3600)
            while time.monotonic() < until:
                try:
                    self.event(events.get_nowait())
                    continue
                except queue.Empty:
                    pass
                if self.client_closed(min(0.02, max(until - time.monotonic(), 0))):
                    record({"event": "disconnect", "id": sid})
                    self.close_connection = True
                    return
            if kind == "ack-close":
                self.end_chunks()
            elif kind == "ack-abort":
                self.abort()
            elif kind == "ack-result":
                self.event({"jsonrpc": "2.0", "id": sid, "result": {"resultType": "complete"}})
                self.end_chunks()
        finally:
            with streams_lock:
                streams.pop(key, None)

    def call(self, msg):
        p = msg.get("params") or {}
        name = p.get("name")
        a = p.get("arguments") or {}
        id_ = msg["id"]
        token = (p.get("_meta") or {}).get("progressToken")
        if name == "echo":
            self.answer(msg, {"resultType": "complete", "content": [{"type": "text", "text": "echo"}],
                              "structuredContent": {"arguments": a}})
        elif name == "result":
            self.answer(msg, a.get("result"))
        elif name == "status":
            self.status(msg, int(a.get("code", 500)), a.get("body", "empty"))
        elif name == "body":
            text = a.get("text", "").replace("{{id}}", json.dumps(id_))
            self.send_body(int(a.get("status", 200)), a.get("content_type", "application/json"), text)
        elif name == "slow":
            if a.get("sse"):
                self.start_sse()
                self.chunk(": waiting\n\n")
                if self.watch(id_, int(a.get("ms", 1000)) / 1000):
                    return
                self.event({"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": "slow"}]}})
                self.end_chunks()
            else:
                if self.watch(id_, int(a.get("ms", 1000)) / 1000):
                    return
                self.text(msg, "slow")
        elif name == "wait":
            self.start_sse()
            if token is not None:
                self.event({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": token, "progress": 0, "total": 1, "message": "waiting"}})
            else:
                self.chunk(": waiting\n\n")
            if self.watch(id_, int(a.get("ms", 30000)) / 1000):
                return
            self.event({"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": "waited"}]}})
            self.end_chunks()
        elif name == "sse":
            self.sse(msg, a, token)
        elif name == "big":
            self.big(msg, a)
        elif name == "sized":
            size = int(a.get("bytes", 1000))
            reply = {"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": ""}]}}
            pad = size - len(json.dumps(reply))
            if pad < 0:
                raise ValueError(f"a response of {size} bytes is too small")
            reply["result"]["content"][0]["text"] = "x" * pad
            self.send_body(200, "application/json", json.dumps(reply))
        elif name == "progress":
            count = int(a.get("count", 3))
            self.start_sse()
            for k in range(1, count + 1):
                self.event({"jsonrpc": "2.0", "method": "notifications/progress",
                            "params": {"progressToken": token if token is not None else id_, "progress": k,
                                       "total": count, "message": f"step {k}"}})
            self.event({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": a.get("level", "info"), "logger": "fake-http", "data": "hello"}})
            self.event({"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": "done"}]}})
            self.end_chunks()
        elif name == "redirect":
            self.status(msg, 307, "redirect")
        elif name == "redirect-same":
            if self.path.startswith("/moved"):
                self.text(msg, "moved here")
            else:
                self.send_body(307, "text/plain", "moved", {"Location": "/moved" + self.path})
        elif name == "emit":
            with streams_lock:
                open_streams = dict(streams)
            for key, events in open_streams.items():
                sid = json.loads(key)
                for event in a.get("events", []):
                    params = json.loads(json.dumps(event.get("params") or {}))
                    params.setdefault("_meta", {}).update(stream_meta(sid))
                    events.put({"jsonrpc": "2.0", "method": event["method"], "params": params})
            self.text(msg, "emitted")
        else:
            self.send_json({"jsonrpc": "2.0", "id": id_, "error": {"code": -32602, "message": f"unknown tool {name}"}})

    def sse(self, msg, a, token):
        id_ = msg["id"]
        frames = a.get("frames", ["data: {{result}}\n\n"])
        progress_total = sum(frame.count("{{progress}}") for frame in frames)
        counters = {"progress": 0, "log": 0}

        def fill(frame):
            frame = frame.replace("{{id}}", json.dumps(id_))
            frame = frame.replace("{{result}}", json.dumps(
                {"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": "sse ok"}]}}))
            while "{{progress}}" in frame:
                counters["progress"] += 1
                k = counters["progress"]
                note = {"jsonrpc": "2.0", "method": "notifications/progress",
                        "params": {"progressToken": token if token is not None else id_, "progress": k,
                                   "total": progress_total, "message": f"step {k}"}}
                frame = frame.replace("{{progress}}", json.dumps(note), 1)
            while "{{log}}" in frame:
                counters["log"] += 1
                note = {"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "logger": "fake-http", "data": f"log {counters['log']}"}}
                frame = frame.replace("{{log}}", json.dumps(note), 1)
            return frame.encode()

        pieces = [fill(frame) for frame in frames]
        split = int(a.get("split", 0))
        if split > 0:
            joined = b"".join(pieces)
            pieces = [joined[i:i + split] for i in range(0, len(joined), split)]
        gap = int(a.get("gap_ms", 0)) / 1000
        self.start_sse()
        for i, piece in enumerate(pieces):
            if i and gap:
                time.sleep(gap)
            self.chunk(piece)
        end = a.get("end", "close")
        if end == "abort":
            self.abort()
        elif end == "hold":
            self.watch(id_, 3600)
        else:
            self.end_chunks()

    def big(self, msg, a):
        id_ = msg["id"]
        size = int(a.get("bytes", 1024 * 1024))
        shape = a.get("as", "json")
        finish = a.get("finish", True)
        pad = "x" * size
        if shape == "event":
            self.start_sse()
            data = "event: message\ndata: " + json.dumps(
                {"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": pad}]}})
            if finish is True:
                self.chunk(data + "\n\n")
                self.end_chunks()
            else:
                self.chunk(data.encode()[:size])
                self.hold_or_abort(id_, finish)
            return
        body = json.dumps({"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": pad}]}}).encode()
        if shape == "chunked-json":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if finish is True:
                self.chunk(body)
                self.end_chunks()
            else:
                self.chunk(body[:size])
                self.hold_or_abort(id_, finish)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if finish is True:
            self.wfile.write(body)
            self.wfile.flush()
        else:
            self.wfile.write(body[:size])
            self.wfile.flush()
            self.hold_or_abort(id_, finish)

    def hold_or_abort(self, id_, finish):
        """After a partial body: close the connection ("abort"), or hold it until the client does."""
        if finish == "abort":
            self.abort()
        else:
            self.watch(id_, 3600)


class OtherHandler(Handler):
    """The other origin: records each request and answers "other origin"."""

    listener = "other"

    def do_POST(self):  # noqa: N802
        msg = self.read_and_record()
        id_ = msg.get("id") if isinstance(msg, dict) else None
        if id_ is None:
            self.send_body(202, None, b"")
            return
        self.send_json({"jsonrpc": "2.0", "id": id_, "result": {"content": [{"type": "text", "text": "other origin"}]}})


class Server(ThreadingHTTPServer):
    daemon_threads = True
    tls = None

    def finish_request(self, request, client_address):
        # The TLS handshake runs in the connection's thread, never in the accept loop.
        if self.tls is not None:
            try:
                request = self.tls.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError) as error:
                record({"event": "tls-error", "error": str(error)})
                return
        super().finish_request(request, client_address)

    def handle_error(self, request, client_address):
        # A client that went away mid-answer is part of the tests, not a fault of the fake.
        pass


def main():
    global other_port
    if bool(opts.tls_cert) != bool(opts.tls_key):
        sys.exit("--tls-cert and --tls-key go together")
    main_server = Server(("127.0.0.1", opts.port), Handler)
    if opts.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(opts.tls_cert, opts.tls_key)
        main_server.tls = context
    other_server = Server(("127.0.0.1", 0), OtherHandler)
    other_port = other_server.server_address[1]
    for server in (main_server, other_server):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdout.write(f"PORT {main_server.server_address[1]}\nOTHER {other_port}\n")
    sys.stdout.flush()

    def stop(*_):
        if record_file is not None:
            record_file.flush()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The end of stdin (the test ended, or dropped its pipe) stops the fake.
    sys.stdin.buffer.read()
    stop()


if __name__ == "__main__":
    main()
