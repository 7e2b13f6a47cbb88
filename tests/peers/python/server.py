"""A real MCP server of revision 2026-07-28 over stdio, written with PyPI `mcp==2.3.0`.

It is the upstream peer of the integration tests of mcp-bridge
(crates/mcp-bridge-vscode/tests/it/peers.rs). tests/peers/node/server-v2.mjs offers
the same surface with the TypeScript SDK v2; what it shares with the other Python
peers is defined once in surface.py. Keep every name and text below
stable: the tests assert them exactly.

Run it with the venv of scripts/install-peers:

    .cache/peers/py/bin/python tests/peers/python/server.py

The surface
-----------
serverInfo     name "peer-python", title "Python peer (mcp 2.3.0)", version "1.2.3"
instructions   "Test peer of mcp-bridge: the Python SDK mcp 2.3.0."
capabilities   tools, prompts, resources (listChanged and subscribe), completions.
               MCPServer declares them; this file does not choose them.

Tools (in this order in tools/list)
  echo     {text: string}            -> content [{type: text, text: <text>}], no structuredContent.
  add      {a: integer, b: integer}  -> structuredContent {"sum": a + b}, outputSchema of type object.
                                        content is the SDK's own text mirror, pretty-printed
                                        with indent 2: '{\n  "sum": 5\n}'.
  squares  {count: integer}          -> structuredContent [1, 4, ..., count^2] (an array root),
                                        content [] (no text block), outputSchema
                                        {"type": "array", "items": {"type": "integer"}}.
  tags     {tags: array}             -> inputSchema has an array WITHOUT items (rule R6);
                                        content [{type: text, text: "tags: a, b"}].
  slow     {seconds: number, steps?: integer = 2}
                                     -> progress (0, steps, "step 0 of <steps>") at once, then after
                                        each of <steps> equal sleeps (i, steps, "step i of <steps>");
                                        then content [{type: text, text: "slept <seconds> s"}].
                                        Progress goes only to a request with _meta.progressToken, with
                                        that token unchanged (also the integer 0). Cancel it with
                                        notifications/cancelled: it then sends no response.
  fail     {code: integer, message: string}
                                     -> a JSON-RPC error {code, message, data: {"peer": "python"}}.

Prompts
  greet    argument name (required)  -> description "Greet someone by name.",
                                        messages [{role: user, content: {type: text, text: "Hello, <name>!"}}]
           completion of "name": the names of NAMES that start with the value.

Resources
  peer://static/readme   name "readme", mimeType text/plain, description "The static readme of the peer.",
                         text "This is the static readme of the peer."
Resource templates
  peer://colors/{color}  name "color", mimeType text/plain, description "A color by name.",
                         read: text "The color is <color>."
           completion of "color": the colors of COLORS that start with the value.
Completions give {values, total: len(values), hasMore: false}.

What this server does on the wire (seen with raw JSON lines, mcp 2.3.0)
-----------------------------------------------------------------------
* The first request selects the era of the connection. initialize then gets the
  legacy path; server/discover or any other request with the modern _meta gets the
  2026-07-28 path. After a modern request, initialize gets
  {"code":-32022,"message":"connection is serving the 2026-07-28 protocol; the
  initialize handshake is not accepted","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}.
* server/discover result (members sorted by name, as pydantic writes them):
  {"cacheScope":"private","capabilities":{"completions":{},"prompts":{"listChanged":true},
   "resources":{"listChanged":true,"subscribe":true},"tools":{"listChanged":true}},
   "instructions":"...","resultType":"complete","supportedVersions":["2026-07-28"],"ttlMs":0,
   "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"peer-python","title":"...","version":"1.2.3"}}}
  So serverInfo is in _meta["io.modelcontextprotocol/serverInfo"], not in the result.
* EVERY result has "resultType":"complete" and _meta["io.modelcontextprotocol/serverInfo"].
  The list results and resources/read also have "ttlMs":0 and "cacheScope":"private";
  tools/call, prompts/get and completion/complete do not.
* tools/call results always have "isError" (false or true).
* A request without the modern _meta (for example {"params":{}}) gets -32602
  "params._meta must be an object carrying the required 'io.modelcontextprotocol/protocolVersion'
  and 'io.modelcontextprotocol/clientCapabilities' envelope keys". ping with the modern
  _meta gets -32601 "Method not found" with data "ping".
* Progress: notifications/progress carries the client's progressToken unchanged (0 stays 0),
  with progress, total and message; no _meta. A request without a token gets no progress.
* notifications/cancelled {requestId} stops the request: no response at all.
* An unknown tool is a RESULT, not an error: {"content":[{"text":"Unknown tool: <name>","type":"text"}],
  "isError":true,...}. Bad arguments are also an isError result (pydantic's text).
  An unknown prompt gets -32603 "Internal server error"; an unknown resource gets
  -32602 "Unknown resource: <uri>" with data {"uri": "<uri>"}.
* The requests run concurrently; responses can come out of order.
* At the end of stdin, a request in flight gets {"code":-32000,"message":"Connection closed"}
  (written before the process exits).
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from surface import (
    offer_add,
    offer_color,
    offer_completions,
    offer_echo,
    offer_fail,
    offer_greet,
    offer_readme,
    offer_slow,
)

mcp = MCPServer(
    "peer-python",
    title="Python peer (mcp 2.3.0)",
    version="1.2.3",
    instructions="Test peer of mcp-bridge: the Python SDK mcp 2.3.0.",
    log_level="WARNING",
)

offer_echo(mcp)
offer_add(mcp)


@mcp.tool(description="The squares of 1 to count, as an array.", structured_output=False)
def squares(count: int) -> CallToolResult:
    return CallToolResult(content=[], structured_content=[i * i for i in range(1, count + 1)])


# An array root is not an object schema: the bridge drops it from tools/list
# (quirks.drop_non_object_output_schema). MCPServer reads the field live.
_squares = mcp._tool_manager.get_tool("squares")  # noqa: SLF001 - no public setter exists
assert _squares is not None
_squares.fn_metadata.output_schema = {"type": "array", "items": {"type": "integer"}}
_squares.__dict__.pop("output_schema", None)  # a cached_property on the Tool


@mcp.tool(description="Join tags.", structured_output=False)
def tags(tags: list[str]) -> str:
    return "tags: " + ", ".join(tags)


# Rule R6: an array schema without items. pydantic would write items; the
# advertised schema is replaced, the arguments are still checked by pydantic.
_tags = mcp._tool_manager.get_tool("tags")  # noqa: SLF001
assert _tags is not None
_tags.parameters = {"type": "object", "properties": {"tags": {"type": "array"}}, "required": ["tags"]}

offer_slow(mcp)
offer_fail(mcp, "python")
offer_greet(mcp)
offer_readme(mcp)
offer_color(mcp)
offer_completions(mcp)


if __name__ == "__main__":
    mcp.run()
