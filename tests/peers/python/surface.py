"""The tools, prompts and resources that more than one Python peer serves, each defined once.

server.py (stdio), http_server.py (Streamable HTTP), live_server.py and input_server.py
import this file and offer the ones they serve, in their own order and with their own
icons: the docstring of each peer describes its whole surface. Keep every name and text
stable: the tests assert them exactly, and the HTTP peer must answer as its stdio twins do.
"""

from __future__ import annotations

from typing import Annotated

import anyio
from mcp.server.elicitation import AcceptedElicitation, DeclinedElicitation, ElicitationResult
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.exceptions import MCPError
from mcp_types import Completion, Icon, PromptReference, ResourceTemplateReference
from pydantic import BaseModel

NAMES = ["Ada", "Alan", "Grace"]
COLORS = ["red", "green", "blue"]


def offer_echo(mcp: MCPServer, icons: list[Icon] | None = None) -> None:
    @mcp.tool(description="Echo the text back.", structured_output=False, icons=icons)
    def echo(text: str) -> str:
        return text


class Sum(BaseModel):
    sum: int


def offer_add(mcp: MCPServer, icons: list[Icon] | None = None) -> None:
    @mcp.tool(description="Add two integers.", icons=icons)
    def add(a: int, b: int) -> Sum:
        return Sum(sum=a + b)


def offer_slow(mcp: MCPServer) -> None:
    @mcp.tool(description="Sleep for a while and report progress.", structured_output=False)
    async def slow(seconds: float, ctx: Context, steps: int = 2) -> str:
        steps = max(steps, 1)
        await ctx.report_progress(0, steps, f"step 0 of {steps}")
        for i in range(1, steps + 1):
            await anyio.sleep(seconds / steps)
            await ctx.report_progress(i, steps, f"step {i} of {steps}")
        return f"slept {seconds:g} s"


def offer_fail(mcp: MCPServer, peer: str) -> None:
    """`fail`, whose error has the data {"peer": <peer>}."""

    @mcp.tool(description="Fail with the given code and message.", structured_output=False)
    def fail(code: int, message: str) -> str:
        raise MCPError(code=code, message=message, data={"peer": peer})


class Name(BaseModel):
    name: str


def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


# The SDK keys an input request by the module and the name of its resolver: the key stays
# "__main__:ask_name", as when each peer defined the resolver in its own file.
ask_name.__module__ = "__main__"


def offer_register(mcp: MCPServer, structured_output: bool | None = None) -> None:
    """`register`; `structured_output` as the SDK takes it (None: from the return type)."""

    @mcp.tool(description="Register a user by name, asked with a form.", structured_output=structured_output)
    def register(answer: Annotated[ElicitationResult[Name], Resolve(ask_name)]) -> str:
        if isinstance(answer, AcceptedElicitation):
            return f"registered {answer.data.name}"
        if isinstance(answer, DeclinedElicitation):
            return "declined"
        return "cancelled"


def offer_add_tool(mcp: MCPServer) -> None:
    @mcp.tool(description="Register a new tool and announce the change.", structured_output=False)
    async def add_tool(name: str, ctx: Context) -> str:
        def added() -> str:
            return f"I am {name}"

        mcp.add_tool(added, name=name, description=f"The added tool {name}.", structured_output=False)
        await ctx.notify_tools_changed()
        return f"added {name}"


def offer_touch(mcp: MCPServer) -> None:
    @mcp.tool(description="Announce an update of a resource.", structured_output=False)
    async def touch(uri: str, ctx: Context) -> str:
        await ctx.notify_resource_updated(uri)
        return f"touched {uri}"


def offer_chatty(mcp: MCPServer) -> None:
    """`chatty`; Context.log is deprecated at 2026-07-28, thus its peers ignore the warnings."""

    @mcp.tool(description="Log at four levels.", structured_output=False)
    async def chatty(ctx: Context) -> str:
        for level in ["debug", "info", "warning", "error"]:
            await ctx.log(level, f"{level} line", logger_name="chatty")
        return "logged"


def offer_greet(mcp: MCPServer, icons: list[Icon] | None = None) -> None:
    @mcp.prompt(description="Greet someone by name.", icons=icons)
    def greet(name: str) -> str:
        return f"Hello, {name}!"


def offer_readme(mcp: MCPServer, icons: list[Icon] | None = None) -> None:
    @mcp.resource(
        "peer://static/readme",
        name="readme",
        description="The static readme of the peer.",
        mime_type="text/plain",
        icons=icons,
    )
    def readme() -> str:
        return "This is the static readme of the peer."


def offer_counter(mcp: MCPServer, icons: list[Icon] | None = None) -> None:
    @mcp.resource("live://counter", name="counter", mime_type="text/plain", icons=icons)
    def counter() -> str:
        return "counter"


def offer_color(mcp: MCPServer, icons: list[Icon] | None = None) -> None:
    @mcp.resource(
        "peer://colors/{color}",
        name="color",
        description="A color by name.",
        mime_type="text/plain",
        icons=icons,
    )
    def color(color: str) -> str:
        return f"The color is {color}."


def offer_completions(mcp: MCPServer) -> None:
    """The completions of greet's "name" (NAMES) and of color's "color" (COLORS), by prefix."""

    @mcp.completion()
    async def complete(ref, argument, context):
        if isinstance(ref, PromptReference) and ref.name == "greet" and argument.name == "name":
            values = [n for n in NAMES if n.startswith(argument.value)]
        elif (
            isinstance(ref, ResourceTemplateReference)
            and ref.uri == "peer://colors/{color}"
            and argument.name == "color"
        ):
            values = [c for c in COLORS if c.startswith(argument.value)]
        else:
            values = []
        return Completion(values=values, total=len(values), has_more=False)
