#!/usr/bin/env python3
"""A scripted 2026-07-28 stdio upstream for edge cases a real server cannot produce.

Standard library only. Options:
  --discover MODE   ok (default) | error | exit | stall | legacy-error
  --record PATH     append every line received to PATH (to check what the bridge sent)
  --server-info JSON   the _meta serverInfo of the discover result ("none" leaves it out)
  --capabilities JSON  the capabilities of the discover result
  --tools-list JSON    the result of every tools/list
  --linger             keep running after the end of stdin (the bridge must kill it)
  --pid-file PATH      write the process id to PATH at the start (to check that it ended)
  --stderr TEXT        write TEXT to stderr at the start
  --deaf               after the discover answer, never read stdin again (the pipe to the
                       upstream fills up: a stall that also blocks the bridge's writes)
  --discover-delay-ms N  handle server/discover N ms after it arrived (the fake reads nothing
                       meanwhile): the bridge stays in the state initializing that long
  --answer METHOD=JSON  (repeatable) answer each request of METHOD with this result, as it
                       is (a result that is not an object, say)
  --delay METHOD=MS    (repeatable) answer each request of METHOD MS ms late, in a thread (the
                       fake keeps reading); only for the methods answered by the generic answer
                       below or by --tools-list (lists, completion/complete, resources/read,
                       prompts/get of a prompt other than "script"), never tools/call

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
  line          writes arguments.line verbatim as one line, with each "ID" replaced by the
                JSON of the request's id (malformed responses), then arguments.then_answer
                (default false) decides whether a real answer follows
  twice         answers twice with the same id (text blocks "first" and "second")
  raw           answers with the text arguments.text, verbatim, as the JSON text of the
                result (numbers such as 1e400 or -0 that Python would change keep their text)
  log           sends notifications/message with arguments.level and data, then answers
  stray         sends notifications that belong to no request, then answers
  late          waits arguments.ms, then answers (to test timeouts and cancellation)
  pause         stops reading stdin for arguments.ms (the pipe and the bridge's queue fill up
                meanwhile), then answers a text block "paused" and reads on
  flood         sends arguments.count notifications of each kind in arguments.kinds
                (default ["progress", "log", "stray"]), interleaved: "progress" with the
                round's token (progress i+1, total count), "log" notifications/message at
                arguments.level (default "info") with data i, "stray" one notification that
                belongs to no request (progress for an unknown token, notifications/cancelled,
                a list change, an unknown method, in turn) and, every 100th, a request of the
                server; then answers a text block "flooded <count>".
                With arguments.until_cancel true, the flood runs in a thread and stops at the
                notifications/cancelled for its id (count is then only a cap), then answers
                "flooded <n>" anyway with the number n sent (a response after a cancel); the
                fake reads its next line only after that answer went out, so the answer of any
                later request comes after it
  gather        holds the request until arguments.count gather requests are held (default 2),
                then answers all of them in the REVERSE order of their arrival (the last one
                first); each result has a text block "gather <arguments.tag>"
  after-cancel  does not answer until a notifications/cancelled for its id arrives, then
                answers anyway with a text block "answered after the cancel" (a late response)
  at-eof        does not answer until the end of stdin; then answers it with a text block
                "answered at the end of the input" before the fake exits (an upstream that
                answers the requests in flight during the bridge's shutdown grace)
  close         closes arguments.pipes ("stdout", "stdin" or "both") without answering and keeps
                running: with stdout closed it still reads (and records) stdin and answers nothing
                more, then ends at the end of stdin as usual (or lingers with --linger); with
                stdin closed it sleeps until it is killed (at most 60 s)
  exit-after    sends arguments.progress progress notifications (with the token, when the
                request has one) and a log message, then exits with code 3 without answering:
                an exit in the middle of a request that already started to report
  script        multi round-trip: answers arguments.steps[i], where i is the int of the
                requestState received (0 without one); an input_required step without a
                requestState gets requestState str(i+1); the step "echo" answers a text block
                with the inputResponses received; the step "reject" answers -32602.
                More steps: "stall" never answers the round; "exit" exits at once with code 3
                without answering; {"answer_error": ERROR} answers with the JSON-RPC error
                object ERROR; {"verbatim": RESULT} answers RESULT as it is (also a result that is
                not an object); {"after_ms": N, "then": STEP} does STEP (any step) N ms later, in
                a thread (the fake keeps reading meanwhile)
prompts/get of the prompt "script" behaves as the tool "script".
Every other method answers {"resultType":"complete","method":<method>}.
A notifications/cancelled answers the after-cancel request with its requestId, if any, and
stops the until_cancel flood with its requestId, if any; every other notification is ignored.

The faults on command (crates/mcp-bridge-vscode/tests/it/faults/):
  exit before answering discover   --discover exit
  exit in the middle of a request  the tools exit and exit-after
  a partial line, then the exit    the tool partial
  invalid JSON                     the tool invalid-json
  a line over the limit            the tool huge (with the bridge's --max-line-bytes)
  a response with an unknown id    the tool unknown-id
  stall forever                    the tool stall, --discover stall, --deaf
  a flood of notifications         the tool flood
  answers out of order             the tool gather
  a response after a cancellation  the tool after-cancel
"""
import argparse
import json
import os
import sys
import threading
import time

args = argparse.ArgumentParser()
args.add_argument("--discover", default="ok")
args.add_argument("--record")
args.add_argument("--server-info", default='{"name":"fake-upstream","version":"0.0.1"}')
args.add_argument("--linger", action="store_true", help="keep running after the end of stdin")
args.add_argument("--stderr", help="write this text to stderr at the start")
args.add_argument("--pid-file", help="write the process id to this file at the start")
args.add_argument("--deaf", action="store_true", help="stop reading stdin after the discover answer")
args.add_argument("--tools-list", help="the result of tools/list, as JSON")
args.add_argument("--discover-delay-ms", type=int, default=0, help="handle server/discover this late")
args.add_argument("--delay", action="append", default=[], metavar="METHOD=MS",
                  help="answer each request of METHOD MS ms late (generic answers and --tools-list)")
args.add_argument("--answer", action="append", default=[], metavar="METHOD=JSON",
                  help="answer each request of METHOD with this result")
args.add_argument("--capabilities", default='{"tools":{},"prompts":{},"resources":{},"completions":{},"logging":{}}')
opts = args.parse_args()
# --delay: the delay of each method's answer, in seconds.
delays = {}
for spec in opts.delay:
    method, _, ms = spec.rpartition("=")
    delays[method] = int(ms) / 1000
# --answer: the result of each method, as given.
answers = {}
for spec in opts.answer:
    method, _, text = spec.partition("=")
    answers[method] = json.loads(text)

out_lock = threading.Lock()
record = open(opts.record, "a", buffering=1) if opts.record else None


# The tool close closed stdout: nothing more is written.
stdout_closed = False


def write_raw(text):
    with out_lock:
        if stdout_closed:
            return
        sys.stdout.write(text)
        sys.stdout.flush()


def send(msg):
    write_raw(json.dumps(msg) + "\n")


def result(id_, res):
    send({"jsonrpc": "2.0", "id": id_, "result": res})


# The gather requests held so far: (id, tag) in the order of arrival.
gathered = []
# The after-cancel requests waiting for their notifications/cancelled, by id.
awaiting_cancel = {}
# The at-eof requests, answered at the end of stdin.
awaiting_eof = []
# The until_cancel floods running, by the JSON of their id: (stop event, thread).
flooding = {}


def text_result(id_, text):
    result(id_, {"resultType": "complete", "content": [{"type": "text", "text": text}]})


STRAY = [
    {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 424242, "progress": 1}},
    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
    {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
    {"jsonrpc": "2.0", "method": "notifications/whatever", "params": {"x": 1}},
]


def flood(id_, a, token, stop=None):
    count = int(a.get("count", 100))
    kinds = a.get("kinds", ["progress", "log", "stray"])
    for i in range(count):
        if stop is not None and stop.is_set():
            count = i
            break
        if "progress" in kinds and token is not None:
            send({"jsonrpc": "2.0", "method": "notifications/progress",
                  "params": {"progressToken": token, "progress": i + 1, "total": count}})
        if "log" in kinds:
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": a.get("level", "info"), "logger": "flood", "data": i}})
        if "stray" in kinds:
            send(STRAY[i % len(STRAY)])
            if i % 100 == 99:
                send({"jsonrpc": "2.0", "id": "server-%d" % i, "method": "sampling/createMessage", "params": {}})
    text_result(id_, "flooded %d" % count)


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


def script_step(id_, p, i, step):
    """One step of the tool (or prompt) script, for the round i."""
    if step == "echo":
        result(id_, {"resultType": "complete", "content": [{"type": "text", "text": json.dumps(p.get("inputResponses"), sort_keys=True)}]})
    elif step == "reject":
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32602, "message": "state expired", "data": {"reason": "expired"}}})
    elif step == "stall":
        return
    elif step == "exit":
        sys.stdout.flush()
        os._exit(3)
    elif isinstance(step, dict) and "verbatim" in step:
        result(id_, step["verbatim"])
    elif isinstance(step, dict) and "answer_error" in step:
        send({"jsonrpc": "2.0", "id": id_, "error": step["answer_error"]})
    elif isinstance(step, dict) and "after_ms" in step:
        def later():
            time.sleep(int(step["after_ms"]) / 1000)
            script_step(id_, p, i, step.get("then", "echo"))
        threading.Thread(target=later, daemon=True).start()
    else:
        step = dict(step)
        if step.get("resultType") == "input_required" and "requestState" not in step:
            step["requestState"] = str(i + 1)
        result(id_, step)


def answer_late(method, id_, res):
    """The answer of a method, --delay late when the method has one."""
    delay = delays.get(method)
    if delay is None:
        result(id_, res)
        return

    def later():
        time.sleep(delay)
        result(id_, res)
    threading.Thread(target=later, daemon=True).start()


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
    elif name == "line":
        write_raw(a.get("line", "").replace("ID", json.dumps(id_)) + "\n")
        if a.get("then_answer"):
            text_result(id_, "real")
    elif name == "twice":
        text_result(id_, "first")
        text_result(id_, "second")
    elif name == "raw":
        write_raw('{"jsonrpc":"2.0","id":%s,"result":%s}\n' % (json.dumps(id_), a.get("text")))
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
        script_step(id_, p, i, step)
    elif name == "flood" and a.get("until_cancel"):
        stop = threading.Event()
        thread = threading.Thread(target=flood, args=(id_, a, token, stop), daemon=True)
        flooding[json.dumps(id_)] = (stop, thread)
        thread.start()
    elif name == "flood":
        flood(id_, a, token)
    elif name == "gather":
        gathered.append((id_, a.get("tag")))
        if len(gathered) >= int(a.get("count", 2)):
            held = list(reversed(gathered))
            gathered.clear()
            for held_id, tag in held:
                text_result(held_id, "gather %s" % tag)
    elif name == "after-cancel":
        awaiting_cancel[json.dumps(id_)] = id_
    elif name == "at-eof":
        awaiting_eof.append(id_)
    elif name == "close":
        global stdout_closed
        pipes = a.get("pipes", "stdout")
        if pipes in ("stdout", "both"):
            with out_lock:
                stdout_closed = True
                sys.stdout.flush()
                os.close(1)
        if pipes in ("stdin", "both"):
            os.close(0)
            # No input can come: live on until the bridge kills the process.
            time.sleep(60)
            os._exit(0)
    elif name == "exit-after":
        for i in range(int(a.get("progress", 2))):
            if token is not None:
                send({"jsonrpc": "2.0", "method": "notifications/progress",
                      "params": {"progressToken": token, "progress": i + 1}})
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "error", "logger": "fake", "data": "about to exit"}})
        os._exit(3)
    elif name == "pause":
        time.sleep(int(a.get("ms", 1000)) / 1000)
        text_result(id_, "paused")
    elif name == "late":
        def later():
            time.sleep(int(a.get("ms", 1000)) / 1000)
            result(id_, {"resultType": "complete", "content": [{"type": "text", "text": "late"}]})
        threading.Thread(target=later, daemon=True).start()
    else:
        send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32602, "message": f"unknown tool {name}"}})


if opts.pid_file:
    with open(opts.pid_file, "w") as f:
        f.write(str(os.getpid()))

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
    if msg.get("method") == "notifications/cancelled":
        # A late response: the request was canceled, and it is answered anyway.
        key = json.dumps((msg.get("params") or {}).get("requestId"))
        if key in awaiting_cancel:
            text_result(awaiting_cancel.pop(key), "answered after the cancel")
        if key in flooding:
            stop, thread = flooding.pop(key)
            stop.set()
            thread.join()
        continue
    if "id" not in msg or "method" not in msg:
        continue
    method = msg["method"]
    if method == "server/discover":
        if opts.discover_delay_ms:
            time.sleep(opts.discover_delay_ms / 1000)
        discover(msg)
        if opts.deaf:
            while True:
                time.sleep(60)
    elif method == "tools/call" or (method == "prompts/get" and msg.get("params", {}).get("name") == "script"):
        call(msg, line)
    elif method in answers:
        result(msg["id"], answers[method])
    elif method == "tools/list" and opts.tools_list:
        answer_late(method, msg["id"], json.loads(opts.tools_list))
    else:
        answer_late(method, msg["id"], {"resultType": "complete", "method": method, "params": msg.get("params")})

for id_ in awaiting_eof:
    text_result(id_, "answered at the end of the input")

if opts.linger:
    while True:
        time.sleep(60)
