"""Check a peer server WITHOUT the bridge, with the 2026-07-28 client of PyPI `mcp==2.3.0`.

    .cache/peers/py/bin/python tests/peers/python/modern_client.py -- <command> [args...]
    .cache/peers/py/bin/python tests/peers/python/modern_client.py --url <url>

With --url it speaks Streamable HTTP to the server at <url> (the SDK's own
2026-07-28 HTTP client, which sends the Mcp-Method, Mcp-Name and Mcp-Param-*
headers itself) instead of starting a command, and it also checks the HTTP
surface of tests/peers/python/http_server.py and tests/peers/node/http-server-v2.mjs:
"tools/call region" (the x-mcp-header tool), "tools/call slow" with its progress in
"progress", "tools/call register" (a form answered with {"name": "Ada"}) and
"tools/call chatty" at the log level warning, with the log messages in "logs".

It connects with mode="auto", so the client sends
server/discover and must get a 2026-07-28 answer (protocolVersion "2026-07-28"
proves it did not fall back to initialize). Then it calls the `basic` surface of
tests/peers (echo, add, prompts, resources, completion) and prints ONE JSON
document: {"protocolVersion", "serverInfo", "instructions", "steps": {name: value | {"error": text}}}.
The self-check tests of crates/mcp-bridge-vscode/tests/it/peers.rs use it, so that a
failure of a bridge test can be told apart from a broken peer.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import ElicitResult, PromptReference, ResourceTemplateReference


def dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


async def main(server: StdioServerParameters | str) -> None:
    out: dict[str, Any] = {"steps": {}}
    http = isinstance(server, str)
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(dump(params))

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"name": "Ada"})

    extra: dict[str, Any] = {}
    if http:
        extra = {"logging_callback": on_log, "log_level": "warning", "elicitation_callback": on_elicit}
    async with Client(server, mode="auto", read_timeout_seconds=20, cache=None, **extra) as client:
        out["protocolVersion"] = client.protocol_version
        out["serverInfo"] = dump(client.server_info)
        out["instructions"] = client.instructions

        async def step(name: str, fn: Any) -> None:
            try:
                out["steps"][name] = dump(await fn())
            except Exception as exc:  # noqa: BLE001 - the report names it
                out["steps"][name] = {"error": f"{type(exc).__name__}: {exc}"}

        await step("tools/list", lambda: client.list_tools())
        await step("tools/call echo", lambda: client.call_tool("echo", {"text": "hello peer"}))
        await step("tools/call add", lambda: client.call_tool("add", {"a": 2, "b": 3}))
        await step("prompts/get greet", lambda: client.get_prompt("greet", {"name": "Ada"}))
        await step("resources/read readme", lambda: client.read_resource("peer://static/readme"))
        await step("resources/read color", lambda: client.read_resource("peer://colors/blue"))
        await step(
            "completion/complete prompt",
            lambda: client.complete(PromptReference(type="ref/prompt", name="greet"), {"name": "name", "value": "A"}),
        )
        await step(
            "completion/complete template",
            lambda: client.complete(
                ResourceTemplateReference(type="ref/resource", uri="peer://colors/{color}"),
                {"name": "color", "value": "g"},
            ),
        )
        if http:
            progress: list[Any] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append([value, total, message])

            await step("tools/call region", lambda: client.call_tool("region", {"region": "eu-west1", "query": "q"}))
            await step(
                "tools/call slow",
                lambda: client.call_tool("slow", {"seconds": 0.2, "steps": 2}, progress_callback=on_progress),
            )
            await step("tools/call register", lambda: client.call_tool("register", {}))
            await step("tools/call chatty", lambda: client.call_tool("chatty", {}))
            out["progress"] = progress
            out["logs"] = logs
    print(json.dumps(out))


if __name__ == "__main__":
    argv = sys.argv[1:]
    if len(argv) == 2 and argv[0] == "--url":
        anyio.run(main, argv[1])
    elif "--" in argv and argv.index("--") < len(argv) - 1:
        command = argv[argv.index("--") + 1 :]
        anyio.run(main, StdioServerParameters(command=command[0], args=command[1:]))
    else:
        sys.exit("usage: modern_client.py -- <command> [args...] | --url <url>")
