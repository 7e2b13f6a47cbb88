#!/usr/bin/env bash
# Builds the seed corpora fuzz/corpus/<target>/ from the wire examples of
# the spec (../shared/spec/2026-07-28/examples, beside the repository) and
# from the test fixtures (crates/mcp-bridge/tests/fixtures). Each seed is
# the small header of bytes that the target's glue reads first (see
# mcp_bridge::props::*_bytes), then the example. The seeds are committed;
# run this again when the examples or the glue change.
#
#   fuzz/seed.sh [path/to/shared]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
shared="${1:-$here/../../shared}"
examples="$shared/spec/2026-07-28/examples"
fixtures="$here/../crates/mcp-bridge/tests/fixtures"
[ -d "$examples" ] || { echo "seed.sh: no examples at $examples" >&2; exit 1; }
exec python3 - "$examples" "$fixtures" "$here/corpus" <<'PY'
import json, pathlib, shutil, sys, hashlib

examples, fixtures, corpus = map(pathlib.Path, sys.argv[1:4])
shutil.rmtree(corpus, ignore_errors=True)

def load(path):
    return json.loads(path.read_text())

def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()

def put(target, data):
    folder = corpus / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)

def each(kind):
    return sorted((examples / kind).glob("*.json"))

# Methods in the order of props::translate::METHODS.
METHODS = ["tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list",
           "resources/templates/list", "resources/read", "completion/complete", "ping", "x/unknown"]
RESULTS = {"ListToolsResult": 0, "CallToolResult": 1, "ListPromptsResult": 2, "GetPromptResult": 3,
           "ListResourcesResult": 4, "ListResourceTemplatesResult": 5, "ReadResourceResult": 6,
           "CompleteResult": 7, "DiscoverResult": 9}

messages = []
for kind in ["CallToolRequest", "ListToolsRequest", "GetPromptRequest", "CancelledNotification",
             "ProgressNotification", "CallToolResultResponse", "ListToolsResultResponse",
             "ParseError", "InvalidParamsError", "MethodNotFoundError"]:
    messages += [load(p) for p in each(kind)]
lines = [compact(m) for m in messages]

# line_reader: limit (2 bytes), count and sizes of the reads, then JSON lines.
for limit in [40, 200, 300]:
    put("line_reader", bytes([limit % 256, limit // 256, 2, 7, 64]) + b"\n".join(lines[:4]) + b"\n")
put("line_reader", bytes([16, 0, 1, 1]) + b"\r\n\n  \n" + lines[0] + b"\n" + lines[1])

# depth: the limit (1 byte), then the text.
for line in lines[:6]:
    put("depth", bytes([64]) + line)
put("depth", bytes([64]) + b"[" * 65 + b"]" * 65)
put("depth", bytes([3]) + b'{"a":"[[[[","b":[{"c":[1]}]}')

# sniff: lines with an id, whole, cut, and with the id last.
for line in lines:
    put("sniff", line)
    put("sniff", line[: len(line) // 2])
put("sniff", b'{"method":"x","params":{"id":9} bad,"id":"b-3"}')

# decode: option 0 (depth limit 64), then the line; 255: a line too long.
for line in lines:
    put("decode", bytes([0]) + line)
put("decode", bytes([255]) + lines[0] + lines[1])
put("decode", bytes([0]) + b'{"jsonrpc":"2.0","id":12345678901234567890123,"method":"ping"}')

# translate_result: method, quirks (the vscode profile: 3), cursor, result.
for kind, method in RESULTS.items():
    for p in each(kind):
        put("translate_result", bytes([method, 3, 1]) + compact(load(p)))
for p in sorted((fixtures / "results").glob("*.input.json")) + sorted((fixtures / "items").glob("*.input.json")):
    case = load(p)
    if case["method"] in METHODS:
        quirks = {"normalize_array_items": 1, "drop_non_object_output_schema": 2, "strict_legacy_results": 4}
        bits = 3
        for name, bit in quirks.items():
            flag = case.get("profile", {}).get(name)
            if flag is not None:
                bits = (bits | bit) if flag else (bits & ~bit)
        put("translate_result", bytes([METHODS.index(case["method"]), bits, int("cursor" in case)]) + compact(case["result"]))

# fast_path: method, quirks, then the result as an upstream response line.
for kind, method in RESULTS.items():
    for i, p in enumerate(each(kind)):
        response = {"jsonrpc": "2.0", "id": i + 1, "result": load(p)}
        put("fast_path", bytes([method, 3]) + compact(response))
        put("fast_path", bytes([method, 7]) + json.dumps(response, indent=1).encode())

# items: each inputSchema of a tools/list example or fixture.
tools = [t for p in each("ListToolsResult") for t in load(p).get("tools", [])]
tools += [t for p in sorted((fixtures / "items").glob("*.input.json")) for t in load(p)["result"].get("tools", []) if isinstance(t, dict)]
for t in tools:
    if "inputSchema" in t:
        put("items", compact(t["inputSchema"]))
for kind in ["StringSchema", "NumberSchema", "BooleanSchema", "TitledMultiSelectEnumSchema", "UntitledMultiSelectEnumSchema"]:
    for p in each(kind):
        put("items", compact(load(p)))

for p in each("ClientCapabilities"):
    put("capabilities", compact(load(p)))
for p in each("DiscoverResult") + each("ServerCapabilities"):
    put("initialize_result", compact(load(p)))

# forwarded: the vscode passthrough (0), then the params.
for kind in ["CallToolRequestParams", "GetPromptRequestParams", "PaginatedRequestParams", "CompleteRequestParams"]:
    for p in each(kind):
        params = load(p)
        put("forwarded", bytes([0]) + compact(params))
        if isinstance(params, dict):
            meta = dict(params.get("_meta", {}), traceparent="00-x", **{"vscode.conversationId": "c", "vscode.mcp/x": 1})
            put("forwarded", bytes([0]) + compact(dict(params, _meta=meta, task={"ttl": 1})))

# input_round: declared (all: 31, none: 0), then the InputRequiredResult.
rounds = [load(p) for p in each("InputRequiredResult")]
for params_kind, method in [("ElicitRequestURLParams", "elicitation/create"), ("ElicitRequestFormParams", "elicitation/create"),
                            ("CreateMessageRequestParams", "sampling/createMessage")]:
    for p in each(params_kind):
        rounds.append({"resultType": "input_required", "inputRequests": {"k": {"method": method, "params": load(p)}}, "requestState": "s"})
rounds.append({"resultType": "input_required", "inputRequests": {"r": {"method": "roots/list"}}})
for r in rounds:
    for declared in [31, 23, 0]:
        put("input_round", bytes([declared]) + compact(r))

# url: the URLs of the examples and the cases of the URL rule.
urls = [load(p)["url"] for p in each("ElicitRequestURLParams")]
urls += ["http://localhost:8080/cb", "http://127.0.0.1/", "http://[::1]:3000/", "https://user:pw@example.com/",
         "https://example.com\\@evil.com/", "http://user@localhost/", "javascript:alert(1)", "https:///path"]
for u in urls:
    put("url", u.encode())

# answers: pick = 10 + expectation (form, choice form, URL, sampling, roots)
# for a result; 5 + expectation for an error.
for p in each("ElicitResult"):
    for expect in [0, 1, 2]:
        put("answers", bytes([10 + expect]) + compact(load(p)))
for p in each("CreateMessageResult"):
    put("answers", bytes([13]) + compact(load(p)))
for p in each("ListRootsResult"):
    put("answers", bytes([14]) + compact(load(p)))
for p in each("InternalError"):
    put("answers", bytes([8]) + compact(load(p).get("error", load(p))))

for folder in sorted(corpus.iterdir()):
    print(f"{folder.name}: {len(list(folder.iterdir()))} seeds")
PY
