"""The modern path of the embedded bridge, with the 2026-07-28 client of PyPI `mcp==2.3.0`.

    .cache/peers/py/bin/python tests/peers/python/embed_client.py -- <command> [args...]

Runs the demo server (`mcp-bridge-vscode demo-server`) as a child with mode="auto",
so the client sends server/discover first and then requests with `_meta`: the modern
path, rmcp's own server, with no rule of the bridge. Steps: tools/list, add, ask_name
(the form answered with {"name": "Ada"} by the elicitation callback), slow_count with
its progress, a cancelled slow_count (progress every 50 ms, the call cancelled after
300 ms, which sends notifications/cancelled, then 700 ms of quiet; an add after it
shows that the server still serves), and add_tool under a listen stream (the event
must come after the call and before its result, with no second event in the 200 ms
after the result, and the list after it has `extra`).
Prints ONE JSON document:
  protocolVersion  the negotiated revision
  connectedBy      "server/discover" or "initialize": the handshake the SDK's auto mode took
  discover         supportedVersions, capabilities and serverInfo of the server/discover result
  steps            {name: result | {"error": text}}
  asked            the params of each input request the elicitation callback got
  progress         [value, total, message] of each progress callback of slow_count
  cancelled        the call was still running when its scope was cancelled
  cancel           {"progressBefore": progress callbacks before the cancel,
                    "seenBefore": the cancelled call's progress notifications (message_handler)
                                  before the cancel,
                    "lateProgress": progress notifications (message_handler) in
                    [cancel + 100 ms, cancel + 700 ms],
                    "lateResponses": responses the SDK dropped as unknown or late}
  order            every event of the listen stream, with the markers "call add_tool"
                   (just before the call) and "result add_tool"
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_types import ElicitResult, ProgressNotification


class Dropped(logging.Handler):
    """Keeps what the dispatcher logs when a response has no request waiting for it."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.texts: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if text.startswith("dropping response"):
            self.texts.append(text)


def dump(value: Any) -> Any:
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    return value


async def main(server: StdioServerParameters) -> None:
    out: dict[str, Any] = {"steps": {}}
    asked: list[Any] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(dump(params))
        return ElicitResult(action="accept", content={"name": "Ada"})

    # Every progress notification of the server, with the time it came.
    seen: list[tuple[float, Any]] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, ProgressNotification):
            seen.append((time.monotonic(), dump(message.params)))

    dropped = Dropped()
    dispatcher_log = logging.getLogger("mcp.shared.jsonrpc_dispatcher")
    dispatcher_log.setLevel(logging.DEBUG)
    dispatcher_log.addHandler(dropped)

    async with Client(
        server,
        mode="auto",
        read_timeout_seconds=20,
        cache=None,
        elicitation_callback=on_elicit,
        message_handler=on_message,
    ) as client:
        out["protocolVersion"] = client.protocol_version
        session = client.session
        if session.discover_result is not None and session.initialize_result is None:
            out["connectedBy"] = "server/discover"
            found = dump(session.discover_result)
            out["discover"] = {
                "supportedVersions": found.get("supportedVersions"),
                "capabilities": found.get("capabilities"),
                "serverInfo": found.get("_meta", {}).get("io.modelcontextprotocol/serverInfo"),
            }
        elif session.initialize_result is not None:
            out["connectedBy"] = "initialize"

        async def step(name: str, fn: Any) -> None:
            try:
                out["steps"][name] = dump(await fn())
            except Exception as exc:  # noqa: BLE001 - the report names it
                out["steps"][name] = {"error": f"{type(exc).__name__}: {exc}"}

        await step("tools/list", lambda: client.list_tools())
        await step("add", lambda: client.call_tool("add", {"a": 2, "b": 3}))
        await step("ask_name", lambda: client.call_tool("ask_name", {}))
        out["asked"] = asked

        progress: list[Any] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            progress.append([value, total, message])

        await step(
            "slow_count",
            lambda: client.call_tool("slow_count", {"steps": 2, "delay_ms": 10}, progress_callback=on_progress),
        )
        out["progress"] = progress

        before: list[Any] = []

        async def on_progress_before(value: float, total: float | None, message: str | None) -> None:
            before.append(value)

        cancelled = True
        with anyio.move_on_after(0.3):
            await client.call_tool(
                "slow_count", {"steps": 1000, "delay_ms": 50}, progress_callback=on_progress_before
            )
            cancelled = False
        cancelled_at = time.monotonic()
        out["cancelled"] = cancelled
        await anyio.sleep(0.7)
        out["cancel"] = {
            "progressBefore": len(before),
            # The same progress through message_handler: the channel of lateProgress works.
            "seenBefore": len([p for at, p in seen if at < cancelled_at and p.get("total") == 1000]),
            "lateProgress": [params for at, params in seen if at >= cancelled_at + 0.1],
            "lateResponses": list(dropped.texts),
        }
        await step("add after the cancel", lambda: client.call_tool("add", {"a": 1, "b": 1}))

        order: list[str] = []
        async with client.listen(tools_list_changed=True) as sub:

            async def events() -> None:
                async for event in sub:
                    order.append(f"event {type(event).__name__}")

            async with anyio.create_task_group() as group:
                group.start_soon(events)
                # The stream is acknowledged: any event it gives at once comes before the call.
                await anyio.sleep(0.2)
                order.append("call add_tool")
                await step("add_tool", lambda: client.call_tool("add_tool", {}))
                order.append("result add_tool")
                with anyio.move_on_after(5):
                    while not any(item.startswith("event") for item in order):
                        await anyio.sleep(0.01)
                # A late or second event would come in this time.
                await anyio.sleep(0.2)
                group.cancel_scope.cancel()
        out["order"] = order
        await step("tools/list after add_tool", lambda: client.list_tools())
    print(json.dumps(out))


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--" in argv and argv.index("--") < len(argv) - 1:
        command = argv[argv.index("--") + 1 :]
        anyio.run(main, StdioServerParameters(command=command[0], args=command[1:]))
    else:
        sys.exit("usage: embed_client.py -- <command> [args...]")
