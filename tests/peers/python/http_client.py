"""A client of the HTTP face of mcp-bridge (`mcp-bridge-vscode --listen`), written with PyPI `mcp==2.3.0`.

It is the second, independent client of the process tests of the face
(crates/mcp-bridge-vscode/tests/it/face_peers.rs; the first is
tests/peers/node/client-http.mjs). The SDK's `Client` in its legacy mode
(`mode="legacy"`: the initialize handshake of 2025-11-25, as before 2026-07-28)
over its Streamable HTTP transport (`streamable_http_client`), so it speaks to the
face's /mcp as a 2025 client does:

    .cache/peers/py/bin/python tests/peers/python/http_client.py <url>

It initializes, lists the tools, calls `add` with {"a": 2, "b": 3}, ends the
session (the SDK sends DELETE when its transport closes) and prints ONE JSON
document on stdout:

    {
      "protocolVersion": "<the negotiated revision>",
      "serverInfo": {name, version, ...},
      "tools": ["<name>", ...],                    the names of tools/list, in order
      "add": <the CallToolResult of add, as the SDK parsed it (by alias, only the members set)>
           | {"error": "<type>: <text>"},
      "notifications": [<each server notification, by alias; they come on the GET stream,
                         so a list change of the face can come after the end>],
      "http": [{"method", "path", "status", "contentType", "session": <sent Mcp-Session-Id or null>}, ...],
                                                   every HTTP exchange, in order of the answers
      "driverError": null | "<type>: <text>"
    }

Every wait is bounded: a request 20 s, the whole run 60 s (then the document has a
driverError). The exit code is 0 when the document was printed; 2 for bad arguments.
"""

from __future__ import annotations

import json
import sys
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

RUN_LIMIT_S = 60
REQUEST_LIMIT_S = 20


def dump(value: Any) -> Any:
    """A model as it came: by alias, only the members that were set (no defaults of the SDK)."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return value


async def main(url: str) -> None:
    out: dict[str, Any] = {
        "protocolVersion": None,
        "serverInfo": None,
        "tools": None,
        "add": None,
        "notifications": [],
        "http": [],
        "driverError": None,
    }

    async def on_response(response: httpx2.Response) -> None:
        content_type = response.headers.get("content-type")
        out["http"].append(
            {
                "method": response.request.method,
                "path": urlsplit(str(response.request.url)).path,
                "status": response.status_code,
                "contentType": content_type.split(";")[0].strip() if content_type else None,
                "session": response.request.headers.get("mcp-session-id"),
            }
        )

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            return
        out["notifications"].append(dump(message))

    http = create_mcp_http_client()
    http.event_hooks["response"].append(on_response)
    try:
        with anyio.fail_after(RUN_LIMIT_S):
            async with http:
                transport = streamable_http_client(url, http_client=http)
                async with Client(
                    transport,
                    mode="legacy",
                    read_timeout_seconds=REQUEST_LIMIT_S,
                    cache=None,
                    message_handler=on_message,
                ) as client:
                    out["protocolVersion"] = client.protocol_version
                    out["serverInfo"] = dump(client.server_info)
                    listed = await client.list_tools()
                    out["tools"] = [tool.name for tool in listed.tools]
                    try:
                        out["add"] = dump(await client.call_tool("add", {"a": 2, "b": 3}))
                    except Exception as exc:  # noqa: BLE001 - the report names it
                        out["add"] = {"error": f"{type(exc).__name__}: {exc}"}
    except BaseException as exc:  # noqa: BLE001 - the report names it, also a timeout or a group
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        out["driverError"] = f"{type(exc).__name__}: {exc}"
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: http_client.py <url>", file=sys.stderr)
        sys.exit(2)
    anyio.run(main, sys.argv[1])
