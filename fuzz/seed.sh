#!/usr/bin/env bash
# Builds the seed corpora fuzz/corpus/<target>/ from the wire examples of
# the spec (../shared/spec/2026-07-28/examples, beside the repository), the
# challenges of its authorization page, requests and responses written
# here after the RFCs, and the test fixtures (crates/mcp-bridge/tests/fixtures). Each seed is
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
exec python3 - "$examples" "$fixtures" "$here/corpus" "$shared/spec/2026-07-28" <<'PY'
import json, pathlib, shutil, sys, hashlib

examples, fixtures, corpus, shared_spec = map(pathlib.Path, sys.argv[1:5])
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

# raw_path: method, quirks, then the result as an upstream response line.
for kind, method in RESULTS.items():
    for i, p in enumerate(each(kind)):
        response = {"jsonrpc": "2.0", "id": i + 1, "result": load(p)}
        put("raw_path", bytes([method, 3]) + compact(response))
        put("raw_path", bytes([method, 7]) + json.dumps(response, indent=1).encode())

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

# challenge: raw header values (first byte even), one per line: the
# page's examples, several schemes, a token68 before Bearer.
pages = shared_spec / "basic" / "authorization" / "index.md"
text = pages.read_text()
challenges = []
for block in text.split("WWW-Authenticate: ")[1:]:
    lines = [block.split("\n")[0]]
    for line in block.split("\n")[1:]:
        if not line.startswith(" "):
            break
        lines.append(line.strip())
    challenges.append(" ".join(lines))
challenges += ['Basic realm="r", Bearer scope="files:read"', 'Negotiate YWJj==, Bearer error="invalid_token"',
               'DPoP algs="ES256", Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource"',
               'Bearer realm="example", error="insufficient_scope", scope="a b", error_description="x \\"y\\""']
for c in challenges:
    put("challenge", bytes([0]) + c.encode())
put("challenge", bytes([0]) + "\n".join(challenges[:2]).encode())
for mode in [3, 7, 9]:
    put("challenge", bytes([mode, 4, 1, 0, 9, 1, 8, 5, 2, 12, 3, 1]) + b"abc:/x")

# redirect_request: a limit (2 bytes), no sizes or three, then what a
# browser sends to the listener.
requests = [
    b"GET /start/AbC-123_x HTTP/1.1\r\nHost: 127.0.0.1:49152\r\nUser-Agent: Mozilla/5.0\r\nAccept: text/html\r\n\r\n",
    b"GET /callback?code=SplxlOBeZQQYbYS6WxSbIA&state=af0ifjsldkj&iss=https%3A%2F%2Fauth.example.com HTTP/1.1\r\nHost: 127.0.0.1:49152\r\n\r\n",
    b"GET /callback?error=access_denied&state=s HTTP/1.0\n\n",
    b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"POST /callback HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
    b"GET /callback?code=a&code=b&state=x&state=y HTTP/1.1\r\n\r\n",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
]
for r in requests:
    put("redirect_request", bytes([0, 8, 0]) + r)
    put("redirect_request", bytes([0, 1, 3, 1, 7, 64]) + r)
put("redirect_request", bytes([40, 0, 0]) + requests[0])

# redirect_gate: each byte a request (0 start, 1 callback, 2 callback
# without state, 3 another path).
for seq in [[0, 1], [0, 0], [1, 0, 1], [0, 5, 9, 1, 1], [3, 0, 2, 13, 1, 0], [0, 0, 0, 1]]:
    put("redirect_gate", bytes(seq))

# metadata: raw documents (first byte even) with an issuer and a server.
documents = [
    {"issuer": "https://auth.example.com", "authorization_endpoint": "https://auth.example.com/authorize",
     "token_endpoint": "https://auth.example.com/token", "registration_endpoint": "https://auth.example.com/register",
     "code_challenge_methods_supported": ["S256"], "response_types_supported": ["code"],
     "authorization_response_iss_parameter_supported": True, "token_endpoint_auth_methods_supported": ["none", "client_secret_basic"]},
    {"issuer": "https://auth.example.com", "authorization_endpoint": "http://auth.example.com/authorize",
     "token_endpoint": "https://auth.example.com/token", "code_challenge_methods_supported": ["plain"]},
    {"issuer": "http://127.0.0.1:9", "authorization_endpoint": "http://127.0.0.1:9/authorize",
     "token_endpoint": "http://localhost:9/token", "code_challenge_methods_supported": ["S256"], "client_id_metadata_document_supported": True},
]
for d in documents:
    for issuer in [0, 2]:
        put("metadata", bytes([0, issuer, 0]) + compact(d))
for resource in ["https://mcp.example.com/mcp", "https://mcp.example.com", "https://mcp.example.com/mcp/extra", "/mcp", "../x"]:
    put("metadata", bytes([2, 0, 0]) + resource.encode())
for built in [bytes([1, 0, 0, 1, 4, 5, 0, 1, 9]), bytes([1, 1, 1, 2, 8, 9, 10, 255, 33])]:
    put("metadata", built)

# registration: the status (2 bytes), then a body of RFC 7591 (first byte
# even) or built (odd).
responses = [
    (201, {"client_id": "s6BhdRkqt3", "client_secret": "cf136dc3c1fc93f31185e5885805d",
           "client_id_issued_at": 2893256800, "client_secret_expires_at": 2893276800,
           "redirect_uris": ["http://127.0.0.1:49152/callback"], "token_endpoint_auth_method": "client_secret_basic"}),
    (201, {"client_id": "client-1", "redirect_uris": ["http://127.0.0.1:49152/callback"]}),
    (400, {"error": "invalid_redirect_uri", "error_description": "The redirection URI is not valid."}),
    (400, {"error": "invalid_client_metadata"}),
    (200, {"client_id": 7}),
    (500, None),
]
for status, body in responses:
    put("registration", bytes([(status - 100) % 256, (status - 100) // 256, 0]) + (compact(body) if body is not None else b"oops"))
put("registration", bytes([101, 0, 31, 0, 1, 2, 7]))

# sse_limit: the limit, the count and sizes of the reads, then a stream of
# events with each kind of line end.
events = [compact(m) for m in messages[:3]]
for end in [b"\n", b"\r\n", b"\r"]:
    stream = b"".join(b": ping" + end + b"event: message" + end + b"data: " + e + end + end for e in events)
    put("sse_limit", bytes([200, 0]) + stream)
    put("sse_limit", bytes([64, 3, 1, 2, 5]) + stream)
put("sse_limit", bytes([16, 1, 3]) + b"data: 1\r\n\r\ndata: 12345\r\n\r\n")

# mcp_headers: [tool, arguments] (first byte even), the page's example
# and tools of the examples.
example = {"name": "execute_sql", "inputSchema": {"type": "object", "properties": {
    "region": {"type": "string", "description": "The region to execute the query in", "x-mcp-header": "Region"},
    "query": {"type": "string", "description": "The SQL query to execute"}}, "required": ["region", "query"]}}
put("mcp_headers", bytes([0]) + compact([example, {"region": "us-west1", "query": "SELECT * FROM users"}]))
put("mcp_headers", bytes([0]) + compact([example, {"region": "Hello, 世界", "query": "x"}]))
nested = {"name": "t", "inputSchema": {"type": "object", "properties": {
    "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "Count"},
                                                 "flag": {"type": "boolean", "x-mcp-header": "Flag"}}},
    "bad": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}}}
put("mcp_headers", bytes([0]) + compact([nested, {"opts": {"n": 42, "flag": True}}]))
for t in [t for p in each("ListToolsResult") for t in load(p).get("tools", [])][:4]:
    put("mcp_headers", bytes([0]) + compact([t, {}]))
put("mcp_headers", bytes([1, 3, 0, 8, 0, 2, 1, 9, 2, 1]) + b"us-west1")

# listen_events: a method (low three bits, bit 3 clear) and its params;
# or (bit 3 set, lists in bits 4 to 6) steps for the board.
for kind, method in [("ToolListChangedNotification", 0), ("PromptListChangedNotification", 1),
                     ("ResourceListChangedNotification", 2), ("ResourceUpdatedNotification", 3)]:
    for p in each(kind):
        params = load(p).get("params", {})
        put("listen_events", bytes([method]) + compact(params))
        meta = dict(params.get("_meta", {}), **{"io.modelcontextprotocol/subscriptionId": 3})
        put("listen_events", bytes([method]) + compact(dict(params, _meta=meta)))
put("listen_events", bytes([8 | 16 | 64, 0, 9, 2, 4, 12, 6, 1, 3, 19, 20, 7, 0, 2]))
put("listen_events", bytes([8 | 32, 1, 0, 11, 3, 2, 14, 4, 5, 6, 2]))

for folder in sorted(corpus.iterdir()):
    print(f"{folder.name}: {len(list(folder.iterdir()))} seeds")
PY
