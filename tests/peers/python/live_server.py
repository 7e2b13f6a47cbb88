"""A real MCP server of revision 2026-07-28 over stdio, written with PyPI `mcp==2.3.0`,
whose tools change what the client sees: the upstream peer of the live-update tests
of mcp-bridge (crates/mcp-bridge-vscode/tests/live_peers.rs). Keep the names and texts
stable: the tests assert them.

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

from mcp.server.mcpserver import Context, MCPServer

warnings.simplefilter("ignore")  # Context.log is deprecated at 2026-07-28; the bridge still maps it.

mcp = MCPServer("peer-python-live", version="1.0.0", log_level="WARNING")


@mcp.tool(description="Register a new tool and announce the change.", structured_output=False)
async def add_tool(name: str, ctx: Context) -> str:
    def added() -> str:
        return f"I am {name}"

    mcp.add_tool(added, name=name, description=f"The added tool {name}.", structured_output=False)
    await ctx.notify_tools_changed()
    return f"added {name}"


@mcp.tool(description="Announce an update of a resource.", structured_output=False)
async def touch(uri: str, ctx: Context) -> str:
    await ctx.notify_resource_updated(uri)
    return f"touched {uri}"


@mcp.tool(description="Log at four levels.", structured_output=False)
async def chatty(ctx: Context) -> str:
    for level in ["debug", "info", "warning", "error"]:
        await ctx.log(level, f"{level} line", logger_name="chatty")
    return "logged"


@mcp.resource("live://counter", name="counter", mime_type="text/plain")
def counter() -> str:
    return "counter"


if __name__ == "__main__":
    mcp.run()
