"""A 2026-07-28 stdio server written with PyPI `mcp==2.3.0` whose tools ask for
input through multi round-trip requests (`Resolve` with `Elicit`, `Sample`,
`ListRoots`). The peer of crates/mcp-bridge-vscode/tests/input_peers.rs.

Tools
  register   asks a form {"name": string} -> text "registered <name>", or
             "declined" / "cancelled" for the other answers.
  summarize  asks the client's model (sampling) -> text "model said: <text>".
  roots      asks the client's roots -> text with the root URIs joined by ", ".
"""
from __future__ import annotations

from typing import Annotated

from mcp.server.elicitation import AcceptedElicitation, DeclinedElicitation, ElicitationResult
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resolve import Elicit, ListRoots, Resolve, Sample
from mcp_types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

mcp = MCPServer("peer-python-input", version="1.0.0")


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def ask_model() -> Sample:
    question = SamplingMessage(role="user", content=TextContent(type="text", text="Say hi"))
    return Sample([question], max_tokens=20)


def ask_roots() -> ListRoots:
    return ListRoots()


@mcp.tool(description="Register a user by name, asked with a form.")
def register(answer: Annotated[ElicitationResult[Name], Resolve(ask_name)]) -> str:
    if isinstance(answer, AcceptedElicitation):
        return f"registered {answer.data.name}"
    if isinstance(answer, DeclinedElicitation):
        return "declined"
    return "cancelled"


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
