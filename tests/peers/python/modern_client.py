"""Check a peer server WITHOUT the bridge, with the 2026-07-28 client of PyPI `mcp==2.3.0`.

    .cache/peers/py/bin/python tests/peers/python/modern_client.py -- <command> [args...]

It connects with mode="auto", so the client sends
server/discover and must get a 2026-07-28 answer (protocolVersion "2026-07-28"
proves it did not fall back to initialize). Then it calls the `basic` surface of
tests/peers (echo, add, prompts, resources, completion) and prints ONE JSON
document: {"protocolVersion", "serverInfo", "instructions", "steps": {name: value | {"error": text}}}.
The self-check tests of crates/mcp-bridge-vscode/tests/peers.rs use it, so that a
failure of a bridge test can be told apart from a broken peer.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import PromptReference, ResourceTemplateReference


def dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


async def main(command: list[str]) -> None:
    out: dict[str, Any] = {"steps": {}}
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with Client(params, mode="auto", read_timeout_seconds=20, cache=None) as client:
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
    print(json.dumps(out))


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--" not in argv or argv.index("--") == len(argv) - 1:
        sys.exit("usage: modern_client.py -- <command> [args...]")
    anyio.run(main, argv[argv.index("--") + 1 :])
