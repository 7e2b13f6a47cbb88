#!/usr/bin/env python3
"""A scripted stdio MCP server for scripts/e2e-vscode that speaks only revision 2026-07-28.

Standard library only. It answers `initialize` with -32601 (the method is gone in 2026-07-28),
`server/discover` with its capabilities and serverInfo, and every other request only when the
request carries the 2026-07-28 `_meta` (protocol version, client information and capabilities);
a request without it gets -32602. So VS Code cannot use it directly, and the bridge can.

It has TOOL_COUNT tools, BROKEN of them with array schemas that JSON Schema draft-07 refuses
(`items` that is null, 0 or "": VS Code validates each inputSchema against draft-07 and leaves
such a tool out) and one with `items: false` after `prefixItems`; the bridge repairs all of
them (rule R6). One prompt, `summarize`.

  --legacy   the control: answer `initialize` as a 2025-11-25 server with the same tools,
             unrepaired, and serve requests without the 2026-07-28 `_meta`. VS Code then shows
             the schema errors that the bridge's repairs avoid, which proves that VS Code
             still checks the schemas in this run.
"""
import json
import sys

VERSION = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
NAME = "e2e-modern"

legacy = "--legacy" in sys.argv[1:]

# The schemas that need the bridge: draft-07 refuses the first three outright.
BROKEN = [
    ("tag_null_items", {"type": "object", "properties": {"tags": {"type": "array", "items": None}}}),
    ("tag_zero_items", {"type": "object", "properties": {"tags": {"type": "array", "items": 0}}}),
    ("tag_empty_items", {"type": "object", "properties": {"tags": {"type": "array", "items": ""}}}),
]
# Valid for draft-07, but an array without items stops the Copilot extension: repaired too.
REPAIRED_VALID = [
    ("tag_no_items", {"type": "object", "properties": {"tags": {"type": "array"}}}),
    ("pair_false_items", {"type": "object", "properties": {"pair": {
        "type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": False}}}),
]
TOOL_COUNT = 16


def tools():
    out = []
    for name, schema in BROKEN + REPAIRED_VALID:
        out.append({"name": name, "description": f"A tool whose schema needs the bridge ({name}).", "inputSchema": schema})
    for i in range(TOOL_COUNT - len(out)):
        out.append({
            "name": f"plain_{i + 1:02d}",
            "description": f"A plain tool number {i + 1}; it echoes its text.",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        })
    return out


def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def result(id_, res):
    if not legacy:
        res = dict(res, resultType="complete")
    send({"jsonrpc": "2.0", "id": id_, "result": res})


def error(id_, code, message):
    send({"jsonrpc": "2.0", "id": id_, "error": {"code": code, "message": message}})


def handle(msg):
    method = msg.get("method")
    id_ = msg.get("id")
    params = msg.get("params") or {}
    if id_ is None:
        return  # notifications: nothing to do
    if method == "initialize":
        if not legacy:
            error(id_, -32601, "Method not found: initialize")
            return
        result(id_, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}, "prompts": {}},
                     "serverInfo": {"name": NAME + "-legacy", "version": "1.0.0"}})
        return
    if method == "ping" and legacy:
        result(id_, {})
        return
    if method == "server/discover" and not legacy:
        result(id_, {"supportedVersions": [VERSION], "capabilities": {"tools": {}, "prompts": {}},
                     "_meta": {"io.modelcontextprotocol/serverInfo": {"name": NAME, "version": "1.0.0"}}})
        return
    if not legacy and (params.get("_meta") or {}).get(META_VERSION) != VERSION:
        error(id_, -32602, f"this server speaks only {VERSION}: the request has no _meta {META_VERSION}")
        return
    if method == "tools/list":
        result(id_, {"tools": tools()})
    elif method == "tools/call":
        text = (params.get("arguments") or {}).get("text", "")
        result(id_, {"content": [{"type": "text", "text": f"{params.get('name')}: {text}"}]})
    elif method == "prompts/list":
        result(id_, {"prompts": [{"name": "summarize", "description": "Summarize a text",
                                  "arguments": [{"name": "text", "required": True}]}]})
    elif method == "prompts/get":
        text = (params.get("arguments") or {}).get("text", "")
        result(id_, {"messages": [{"role": "user", "content": {"type": "text", "text": f"Summarize: {text}"}}]})
    else:
        error(id_, -32601, f"Method not found: {method}")


for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if isinstance(msg, dict):
        handle(msg)
