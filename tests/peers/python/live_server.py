"""A real MCP server of revision 2026-07-28 over stdio, written with PyPI `mcp==2.3.0`,
whose tools change what the client sees: the upstream peer of the live-update tests
of mcp-bridge (crates/mcp-bridge-vscode/tests/it/live_peers.rs). Keep the names and texts
stable: the tests assert them. Its tools and resource are defined in surface.py, as
http_server.py serves them too.

Run it with the venv of scripts/install-peers:

    .cache/peers/py/bin/python tests/peers/python/live_server.py

serverInfo     name "peer-python-live", version "1.0.0"
capabilities   tools, prompts, resources with listChanged and subscribe (MCPServer
               derives them from its subscriptions/listen handler at 2026-07-28).

Tools
  add_tool  {name: string}  registers a tool <name> (it answers "I am <name>"), publishes
                            a tools list change, then answers "added <name>".
  touch     {uri: string}   publishes an update of the resource <uri>, then answers
                            "touched <uri>".
  chatty    {}              logs "debug line", "info line", "warning line" and "error line"
                            at those levels with the logger "chatty" (the SDK sends only
                            those at or above the logLevel of the request's _meta), then
                            answers "logged".
Resources
  live://counter            text "counter"
"""

from __future__ import annotations

import warnings

from mcp.server.mcpserver import MCPServer
from surface import offer_add_tool, offer_chatty, offer_counter, offer_touch

warnings.simplefilter("ignore")  # Context.log is deprecated at 2026-07-28; the bridge still maps it.

mcp = MCPServer("peer-python-live", version="1.0.0", log_level="WARNING")

offer_add_tool(mcp)
offer_touch(mcp)
offer_chatty(mcp)
offer_counter(mcp)


if __name__ == "__main__":
    mcp.run()
