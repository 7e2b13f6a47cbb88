"""A real MCP server of revision 2026-07-28 over Streamable HTTP, written with PyPI `mcp==2.3.0`.

It is the upstream peer of the HTTP integration tests of mcp-bridge
(crates/mcp-bridge-vscode/tests/it/http_peers.rs). tests/peers/node/http-server-v2.mjs
offers the same surface with the TypeScript SDK v2; what it shares with the stdio
peers (server.py, live_server.py, input_server.py) is defined once in surface.py. Keep every name and text below
stable: the tests assert them exactly.

Run it with the venv of scripts/install-peers:

    .cache/peers/py/bin/python tests/peers/python/http_server.py [--path /mcp]

It serves `MCPServer.streamable_http_app()` under uvicorn on 127.0.0.1, on a port the
system picks (port 0), and prints ONE line `PORT <n>` on stdout once it listens; the
MCP endpoint is then http://127.0.0.1:<n><path> (path /mcp by default). It exits when
its stdin closes (the test that started it ended) or on SIGTERM/SIGINT; the open
streams get at most 1 s to end. Nothing else goes to stdout; uvicorn logs only
warnings, to stderr. The SDK's own DNS-rebinding guard is on (Host must be
127.0.0.1:*, localhost:* or [::1]:*).

The surface
-----------
serverInfo     name "peer-python-http", title "Python HTTP peer (mcp 2.3.0)", version "2.3.0-http",
               description "The HTTP peer of mcp-bridge.", websiteUrl "https://example.com/peer",
               icons [HTTPS_ICON, DATA_ICON]   (a remote upstream keeps only the data: one)
instructions   "Test peer of mcp-bridge over HTTP: the Python SDK mcp 2.3.0."
capabilities   tools, prompts, resources (listChanged and subscribe), completions. MCPServer
               declares them from the registrations and its subscriptions/listen handler.

Icons (the constants below)
  HTTPS_ICON  {"src": "https://example.com/icon.png", "mimeType": "image/png"}
  DATA_ICON   {"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png", "sizes": ["16x16"]}

Tools (in this order in tools/list)
  echo         {text: string}            -> text <text>. icons [HTTPS_ICON, DATA_ICON].
  add          {a: integer, b: integer}  -> structuredContent {"sum": a + b}, outputSchema of type
                                            object; content is the SDK's mirror '{\n  "sum": 5\n}'.
                                            icons [HTTPS_ICON] (none is left for a remote upstream).
  slow         {seconds: number, steps?: integer = 2}
                                         -> progress (0, steps, "step 0 of <steps>") at once, then
                                            after each of <steps> equal sleeps (i, steps, "step i of
                                            <steps>"), on the request's SSE stream; then text
                                            "slept <seconds> s". Progress only with _meta.progressToken,
                                            which comes back unchanged (also the integer 0).
  wait         {key: string}             -> one progress (0, 1, "waiting <key>") when the request has
                                            a token, then waits up to 60 s; when the request is
                                            canceled (the client closes its stream) it records <key>
                                            as canceled and sends nothing more. After 60 s: "waited <key>".
  was_cancelled {key: string}            -> waits at most 10 s for the cancellation of the wait <key>,
                                            then text "cancelled <key>" or "not cancelled <key>".
  register     {}                        -> MRTR: asks a form (Resolve(Elicit)) "What is your name?"
                                            {"name": string}; then text "registered <name>",
                                            "declined" or "cancelled".
  add_tool     {name: string}            -> registers a tool <name> (text "I am <name>"), publishes a
                                            tools list change on the listen streams, text "added <name>".
  touch        {uri: string}             -> publishes an update of the resource <uri>, text "touched <uri>".
  chatty       {}                        -> logs "debug line", "info line", "warning line", "error line"
                                            at those levels, logger "chatty" (only those at or above
                                            the logLevel of the request's _meta are sent), text "logged".
  region       {region: string, query: string}
                                         -> inputSchema with "x-mcp-header": "Region" on region; the SDK
                                            itself answers 400 with -32020 HeaderMismatch when the POST
                                            has no Mcp-Param-Region header that matches the body.
                                            Text "<region>: <query>".
  linked       {}                        -> content: a text "two links", then resource links
                                            peer://static/readme with icons [HTTPS_ICON, DATA_ICON] and
                                            live://counter with icons [HTTPS_ICON].
  fail         {code: integer, message: string}
                                         -> a JSON-RPC error {code, message, data: {"peer": "python-http"}}
                                            (HTTP 200: the SDK maps only protocol codes to a status).

Prompts (in this order)
  greet    argument name (required) -> description "Greet someone by name.", messages
                                       [{role: user, content: {type: text, text: "Hello, <name>!"}}].
                                       icons [DATA_ICON]. Completion of "name": NAMES by prefix.
  linked   no argument              -> one user message with a resource link peer://static/readme,
                                       icons [HTTPS_ICON, DATA_ICON].

Resources (in this order)
  peer://static/readme   name "readme", mimeType text/plain, description "The static readme of the peer.",
                         text "This is the static readme of the peer.", icons [HTTPS_ICON].
  live://counter         name "counter", mimeType text/plain, text "counter", icons [DATA_ICON].
                         Subscribe to it and call touch to get notifications/resources/updated.
Resource templates
  peer://colors/{color}  name "color", mimeType text/plain, description "A color by name.",
                         icons [HTTPS_ICON, DATA_ICON]; read: text "The color is <color>."
                         Completion of "color": COLORS by prefix.
An unknown resource gets HTTP 400 with the JSON-RPC error -32602 "Unknown resource: <uri>".

What this server does on the wire (seen with curl, mcp 2.3.0)
-------------------------------------------------------------
* A POST with MCP-Protocol-Version: 2026-07-28 takes the stateless 2026-07-28 path: no
  session, no initialize. A request answers application/json when its handler ends within
  15 s without a notification, else text/event-stream (`event: message` frames with CRLF
  line ends and `: ping` comments every 15 s). A notification POST gets 202 and is dropped:
  a cancel is the close of the request's stream.
* The listen stream (subscriptions/listen) is always SSE; its first frame is
  notifications/subscriptions/acknowledged.
* The SDK checks Mcp-Method, Mcp-Name (Base64 sentinel decoded) and the Mcp-Param-* of
  x-mcp-header tools against the body: a mismatch is 400 with -32020.
* Every result has resultType "complete" and _meta["io.modelcontextprotocol/serverInfo"]; the
  list results and resources/read also have ttlMs 0 and cacheScope "private".
"""

from __future__ import annotations

import argparse
import logging
import socket
import sys
import threading
import warnings

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp_types import Icon, ResourceLink, TextContent
from surface import (
    offer_add,
    offer_add_tool,
    offer_chatty,
    offer_color,
    offer_completions,
    offer_counter,
    offer_echo,
    offer_fail,
    offer_greet,
    offer_readme,
    offer_register,
    offer_slow,
    offer_touch,
)

warnings.simplefilter("ignore")  # Context.log is deprecated at 2026-07-28; the bridge still maps it.

HTTPS_ICON = Icon(src="https://example.com/icon.png", mime_type="image/png")
DATA_ICON = Icon(src="data:image/png;base64,iVBORw0KGgo=", mime_type="image/png", sizes=["16x16"])

mcp = MCPServer(
    "peer-python-http",
    title="Python HTTP peer (mcp 2.3.0)",
    version="2.3.0-http",
    description="The HTTP peer of mcp-bridge.",
    website_url="https://example.com/peer",
    icons=[HTTPS_ICON, DATA_ICON],
    instructions="Test peer of mcp-bridge over HTTP: the Python SDK mcp 2.3.0.",
    log_level="WARNING",
)

# The waits canceled so far, and an event per key for was_cancelled.
cancelled: set[str] = set()
cancel_events: dict[str, anyio.Event] = {}


def cancel_event(key: str) -> anyio.Event:
    if key not in cancel_events:
        cancel_events[key] = anyio.Event()
    return cancel_events[key]


offer_echo(mcp, icons=[HTTPS_ICON, DATA_ICON])
offer_add(mcp, icons=[HTTPS_ICON])
offer_slow(mcp)


@mcp.tool(description="Wait until canceled, and remember the cancellation.", structured_output=False)
async def wait(key: str, ctx: Context) -> str:
    event = cancel_event(key)
    await ctx.report_progress(0, 1, f"waiting {key}")
    try:
        await anyio.sleep(60)
    except anyio.get_cancelled_exc_class():
        cancelled.add(key)
        event.set()
        raise
    return f"waited {key}"


@mcp.tool(description="Tell whether the wait of a key was canceled.", structured_output=False)
async def was_cancelled(key: str) -> str:
    with anyio.move_on_after(10):
        await cancel_event(key).wait()
    return f"cancelled {key}" if key in cancelled else f"not cancelled {key}"


offer_register(mcp, structured_output=False)
offer_add_tool(mcp)
offer_touch(mcp)
offer_chatty(mcp)


@mcp.tool(description="Run a query in a region.", structured_output=False)
def region(region: str, query: str) -> str:
    return f"{region}: {query}"


# The x-mcp-header annotation: pydantic cannot write it, so the advertised schema is set
# here. The SDK reads it back from tools/list to check the Mcp-Param-Region header.
_region = mcp._tool_manager.get_tool("region")  # noqa: SLF001 - no public setter exists
assert _region is not None
_region.parameters = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "query": {"type": "string"},
    },
    "required": ["region", "query"],
}


@mcp.tool(description="Two resource links with icons.", structured_output=False)
def linked() -> list:
    return [
        TextContent(type="text", text="two links"),
        ResourceLink(type="resource_link", uri="peer://static/readme", name="readme", icons=[HTTPS_ICON, DATA_ICON]),
        ResourceLink(type="resource_link", uri="live://counter", name="counter", icons=[HTTPS_ICON]),
    ]


offer_fail(mcp, "python-http")
offer_greet(mcp, icons=[DATA_ICON])


@mcp.prompt(name="linked", description="A message with a resource link.")
def linked_prompt() -> list:
    link = ResourceLink(type="resource_link", uri="peer://static/readme", name="readme", icons=[HTTPS_ICON, DATA_ICON])
    return [UserMessage(link)]


offer_readme(mcp, icons=[HTTPS_ICON])
offer_counter(mcp, icons=[DATA_ICON])
offer_color(mcp, icons=[HTTPS_ICON, DATA_ICON])
offer_completions(mcp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default="/mcp", help="the path of the MCP endpoint (default /mcp)")
    opts = parser.parse_args()

    app = mcp.streamable_http_app(streamable_http_path=opts.path)
    # proto=IPPROTO_TCP, as uvicorn binds its own socket: asyncio turns Nagle's algorithm off
    # (TCP_NODELAY) only for sockets that name the protocol. With proto 0 each answer's head
    # and body went out as two segments, the body held until the client acknowledged the
    # head, which a client on a reused connection delays by 40 ms.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1, lifespan="on")

    def quiet_shutdown() -> None:
        # The open listen streams outlive the grace of 1 s by design: uvicorn's traceback
        # of their cancellation is no fault of the peer.
        logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            # After the lifespan startup (the session manager runs), with the socket listening.
            await super().startup(sockets=sockets)
            if self.started:
                print(f"PORT {sock.getsockname()[1]}", flush=True)

        def handle_exit(self, sig: int, frame: object) -> None:
            quiet_shutdown()
            super().handle_exit(sig, frame)

    server = Server(config)

    def watch_stdin() -> None:
        # The end of stdin (the test ended, or dropped its pipe) stops the server.
        sys.stdin.buffer.read()
        quiet_shutdown()
        server.should_exit = True

    threading.Thread(target=watch_stdin, daemon=True).start()
    server.run(sockets=[sock])


if __name__ == "__main__":
    main()
