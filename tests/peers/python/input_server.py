"""A 2026-07-28 stdio server written with PyPI `mcp==2.3.0` whose tools ask for
input through multi round-trip requests (`Resolve` with `Elicit`, `Sample`,
`ListRoots`). The peer of crates/mcp-bridge-vscode/tests/it/input_peers.rs. `register`
is defined in surface.py, as http_server.py serves it too.

Tools
  register   asks a form {"name": string} -> text "registered <name>", or
             "declined" / "cancelled" for the other answers.
  summarize  asks the client's model (sampling) -> text "model said: <text>".
  roots      asks the client's roots -> text with the root URIs joined by ", ".
"""
from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import ListRoots, Resolve, Sample
from mcp_types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from surface import offer_register

mcp = MCPServer("peer-python-input", version="1.0.0")


def ask_model() -> Sample:
    question = SamplingMessage(role="user", content=TextContent(type="text", text="Say hi"))
    return Sample([question], max_tokens=20)


def ask_roots() -> ListRoots:
    return ListRoots()


offer_register(mcp)


@mcp.tool(description="Ask the client's model.")
def summarize(reply: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
    content = reply.content
    text = content.text if isinstance(content, TextContent) else "?"
    return f"model said: {text}"


@mcp.tool(description="List the client's roots.")
def roots(listed: Annotated[ListRootsResult, Resolve(ask_roots)]) -> str:
    return ", ".join(str(root.uri) for root in listed.roots)


if __name__ == "__main__":
    mcp.run()
