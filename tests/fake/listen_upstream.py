#!/usr/bin/env python3
"""A scripted 2026-07-28 stdio upstream for the listen-stream tests of mcp-bridge
(crates/mcp-bridge-vscode/tests/it/listen.rs): it opens, acknowledges, ends and fails
`subscriptions/listen` streams on command, in ways a real server does not.

Standard library only. Options:
  --capabilities JSON  the capabilities of the discover result
                       (default: tools.listChanged and resources.subscribe)
  --streams JSON       the behaviour of the n-th subscriptions/listen request, a list of
                       strings; past its end, the last one applies (default ["ack"]):
      ack              acknowledge at once (the filter as asked), then keep the stream open
      ack-update       acknowledge, then at once one notifications/resources/updated for
                       each URI of the filter
      ack-twice        acknowledge, and again 100 ms later (a later acknowledgment)
      ack-result:MS    acknowledge, then end the stream with a result after MS ms
      ack-error:MS     acknowledge, then end the stream with a JSON-RPC error after MS ms
      silent           never acknowledge, never answer
      result           answer with a result at once, without an acknowledgment
      error            answer with the error {-32603, "listen refused"} at once
  --record PATH        append one JSON line per message, both ways, in order:
                       {"t": <monotonic seconds>, "dir": "in"|"out", "msg": <message>}

tools/call by tool name:
  emit      writes arguments.events on every open acknowledged stream (each event
            {"method", "params"} gets the stream's subscriptionId in params._meta, unless
            it has "raw": true, which writes it as given), then answers "emitted".
  ping-ish  any other name: answers {"content": [{"type": "text", "text": <name>}]}.
notifications/cancelled for a stream closes it without a response.
Every other request answers {"resultType": "complete"}.
"""
import argparse
import json
import sys
import threading
import time

args = argparse.ArgumentParser()
args.add_argument("--capabilities", default='{"tools":{"listChanged":true},"resources":{"subscribe":true}}')
args.add_argument("--streams", default='["ack"]')
args.add_argument("--record")
opts = args.parse_args()

script = json.loads(opts.streams)
lock = threading.Lock()
record = open(opts.record, "a", buffering=1) if opts.record else None
# The open, acknowledged streams: id -> filter.
streams = {}
opened = 0


def log(direction, msg):
    if record:
        record.write(json.dumps({"t": time.monotonic(), "dir": direction, "msg": msg}) + "\n")


def send(msg):
    with lock:
        log("out", msg)
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()


def stream_meta(sid):
    return {"io.modelcontextprotocol/subscriptionId": sid}


def acknowledge(sid, notifications):
    send({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
          "params": {"_meta": stream_meta(sid), "notifications": notifications}})


def later(ms, action):
    timer = threading.Timer(ms / 1000, action)
    timer.daemon = True
    timer.start()


def end(sid, outcome):
    with lock:
        if streams.pop(sid, None) is None:
            return
    if outcome == "result":
        send({"jsonrpc": "2.0", "id": sid, "result": {"resultType": "complete", "_meta": stream_meta(sid)}})
    else:
        send({"jsonrpc": "2.0", "id": sid, "error": {"code": -32603, "message": "listen ended"}})


def listen(msg):
    global opened
    sid = msg["id"]
    notifications = msg.get("params", {}).get("notifications", {})
    behaviour = script[min(opened, len(script) - 1)]
    opened += 1
    kind, _, arg = behaviour.partition(":")
    if kind == "silent":
        return
    if kind == "result":
        send({"jsonrpc": "2.0", "id": sid, "result": {"resultType": "complete"}})
        return
    if kind == "error":
        send({"jsonrpc": "2.0", "id": sid, "error": {"code": -32603, "message": "listen refused"}})
        return
    with lock:
        streams[sid] = notifications
    acknowledge(sid, notifications)
    if kind == "ack-update":
        for uri in notifications.get("resourceSubscriptions", []):
            send({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                  "params": {"uri": uri, "_meta": stream_meta(sid)}})
    elif kind == "ack-twice":
        later(100, lambda: acknowledge(sid, notifications))
    elif kind == "ack-result":
        later(int(arg), lambda: end(sid, "result"))
    elif kind == "ack-error":
        later(int(arg), lambda: end(sid, "error"))


def emit(msg):
    events = msg["params"].get("arguments", {}).get("events", [])
    with lock:
        ids = list(streams)
    for event in events:
        if event.get("raw"):
            send({"jsonrpc": "2.0", "method": event["method"], "params": event.get("params")})
            continue
        for sid in ids:
            params = json.loads(json.dumps(event.get("params", {})))
            params.setdefault("_meta", {}).update(stream_meta(sid))
            send({"jsonrpc": "2.0", "method": event["method"], "params": params})
    send({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": "emitted"}]}})


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    with lock:
        log("in", msg)
    method = msg.get("method")
    if method == "notifications/cancelled":
        with lock:
            streams.pop(msg.get("params", {}).get("requestId"), None)
        continue
    if "id" not in msg or method is None:
        continue
    if method == "server/discover":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": json.loads(opts.capabilities),
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "listen-upstream", "version": "0.0.1"}}}})
    elif method == "subscriptions/listen":
        listen(msg)
    elif method == "tools/call" and msg["params"].get("name") == "emit":
        emit(msg)
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": msg["params"].get("name")}]}})
    else:
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"resultType": "complete"}})
