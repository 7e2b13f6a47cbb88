#!/usr/bin/env python3
"""A scripted 2026-07-28 stdio upstream for edge cases a real server cannot produce.

Standard library only. Options:
  --discover MODE   ok (default) | error | exit | stall | legacy-error
  --record PATH     append every line received to PATH (to check what the bridge sent)
  --server-info JSON   the _meta serverInfo of the discover result ("none" leaves it out)
  --capabilities JSON  the capabilities of the discover result
  --tools-list JSON    the result of every tools/list
  --linger             keep running after the end of stdin (the bridge must kill it)
  --stderr TEXT        write TEXT to stderr at the start

tools/call behaviour by tool name:
  echo          result: {"content":[...], "structuredContent": {"raw": <the line received>}}
  exit          exits at once without answering (the process stops with code 3)
  stall         never answers
  progress      sends arguments.count progress notifications with the round's token, then answers
  partial       writes half a line, then exits
  invalid-json  writes a line that is not JSON but has the request's id, then goes on
  huge          writes a response longer than arguments.bytes
  unknown-id    writes a response with an unknown id, then the real one
  error         answers with the JSON-RPC error in arguments.error
  result        answers with arguments.result as the result, unchanged
  log           sends notifications/message with arguments.level and data, then answers
  stray         sends notifications that belong to no request, then answers
  late          waits arguments.ms, then answers (to test timeouts and cancellation)
  script        multi round-trip: answers arguments.steps[i], where i is the int of the
                requestState received (0 without one); an input_required step without a
                requestState gets requestState str(i+1); the step "echo" answers a text block
                with the inputResponses received; the step "reject" answers -32602
prompts/get of the prompt "script" behaves as the tool "script".
Every other method answers {"resultType":"complete","method":<method>}.
"""
import argparse
import json
import sys
import threading
import time

args = argparse.ArgumentParser()
args.add_argument("--discover", default="ok")
args.add_argument("--record")
args.add_argument("--server-info", default='{"name":"fake-upstream","version":"0.0.1"}')
args.add_argument("--linger", action="store_true", help="keep running after the end of stdin")
args.add_argument("--stderr", help="write this text to stderr at the start")
args.add_argument("--tools-list", help="the result of tools/list, as JSON")
args.add_argument("--capabilities", default='{"tools":{},"prompts":{},"resources":{},"completions":{},"logging":{}}')
opts = args.parse_args()

out_lock = threading.Lock()
record = open(opts.record, "a", buffering=1) if opts.record else None


def write_raw(text):
    with out_lock:
        sys.stdout.write(text)
        sys.stdout.flush()


def send(msg):
    write_raw(json.dumps(msg) + "\n")


def result(id_, res):
    send({"jsonrpc": "2.0", "id": id_, "result": res})


def discover(msg):
    mode = opts.discover
    if mode == "exit":
        sys.exit(3)
    if mode == "stall":
        return
    if mode == "error":
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32042, "message": "sealed"}})
        return
    if mode == "legacy-error":
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "Method not found"}})
        return
    res = {"resultType": "complete", "supportedVersions": ["2026-07-28"],
           "capabilities": json.loads(opts.capabilities), "instructions": "fake instructions",
           "ttlMs": 1000, "cacheScope": "public"}
    if opts.server_info != "none":
        res["_meta"] = {"io.modelcontextprotocol/serverInfo": json.loads(opts.server_info)}
    result(msg["id"], res)


def call(msg, line):
    p = msg.get("params", {})
    name = p.get("name")
    a = p.get("arguments") or {}
    id_ = msg["id"]
    token = p.get("_meta", {}).get("progressToken")
    if name == "echo":
        result(id_, {"resultType": "complete", "content": [{"type": "text", "text": "echo"}],
                     "structuredContent": {"raw": line}})
    elif name == "exit":
        sys.stdout.flush()
        import os
        os._exit(3)
    elif name == "stall":
        return
    elif name == "progress":
        for i in range(int(a.get("count", 3))):
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": i + 1, "total": a.get("count", 3), "message": f"step {i + 1}"}})
        result(id_, {"resultType": "complete", "content": [{"type": "text", "text": "done"}]})
    elif name == "partial":
        write_raw('{"jsonrpc":"2.0","id":%s,"res' % json.dumps(id_))
        import os
        os._exit(3)
    elif name == "invalid-json":
        write_raw('{"jsonrpc":"2.0","id":%s,"result":{nope}\n' % json.dumps(id_))
    elif name == "huge":
        pad = "x" * int(a.get("bytes", 1000))
        write_raw('{"jsonrpc":"2.0","result":{"content":[{"type":"text","text":"%s"}]},"id":%s}\n' % (pad, json.dumps(id_)))
    elif name == "unknown-id":
        result(987654, {"content": []})
        result(id_, {"resultType": "complete", "content": [{"type": "text", "text": "real"}]})
    elif name == "error":
        send({"jsonrpc": "2.0", "id": id_, "error": a.get("error")})
    elif name == "result":
        result(id_, a.get("result"))
    elif name == "log":
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": a.get("level", "info"), "logger": "fake", "data": a.get("data", "hello"), "_meta": {"x": 1}}})
        result(id_, {"resultType": "complete", "content": []})
    elif name == "stray":
        send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        send({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 424242, "progress": 1}})
        result(id_, {"resultType": "complete", "content": []})
    elif name == "script":
        steps = a.get("steps", [])
        i = int(p.get("requestState") or 0)
        step = steps[i] if i < len(steps) else "echo"
        if step == "echo":
            result(id_, {"resultType": "complete", "content": [{"type": "text", "text": json.dumps(p.get("inputResponses"), sort_keys=True)}]})
        elif step == "reject":
            send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32602, "message": "state expired", "data": {"reason": "expired"}}})
        else:
            step = dict(step)
            if step.get("resultType") == "input_required" and "requestState" not in step:
                step["requestState"] = str(i + 1)
            result(id_, step)
    elif name == "late":
        def later():
            time.sleep(int(a.get("ms", 1000)) / 1000)
            result(id_, {"resultType": "complete", "content": [{"type": "text", "text": "late"}]})
        threading.Thread(target=later, daemon=True).start()
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32602, "message": f"unknown tool {name}"}})


if opts.stderr:
    sys.stderr.write(opts.stderr + "\n")
    sys.stderr.flush()

for line in sys.stdin:
    if record:
        record.write(line)
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg or "method" not in msg:
        continue
    method = msg["method"]
    if method == "server/discover":
        discover(msg)
    elif method == "tools/call" or (method == "prompts/get" and msg.get("params", {}).get("name") == "script"):
        call(msg, line)
    elif method == "tools/list" and opts.tools_list:
        result(msg["id"], json.loads(opts.tools_list))
    else:
        result(msg["id"], {"resultType": "complete", "method": method, "params": msg.get("params")})

if opts.linger:
    while True:
        time.sleep(60)
