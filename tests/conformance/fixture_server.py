"""The 2026-07-28 stdio server behind the bridge for the server face of the
conformance suite (scripts/conformance), written with PyPI `mcp==2.3.0` (the
venv of scripts/install-peers).

The suite (@modelcontextprotocol/conformance, `server --requirements
2025-11-25`) is a 2025-11-25 client. It reaches this server through
supergateway (HTTP -> stdio) and the bridge (2025-11-25 -> 2026-07-28):

    conformance --HTTP--> supergateway --stdio--> mcp-bridge-vscode --stdio--> this file

Every name, text and schema below is the one that the description of a
scenario of the suite asks for (the scenario names are in the comments). The
tools that need the client ask for it the 2026-07-28 way: the first round
returns an InputRequiredResult with input requests, and the bridge turns each
one into the client's sampling/createMessage or elicitation/create; the retry
carries the answers in inputResponses. No request state is needed: every tool
asks one question and reads its answer by key.

Run it alone with `.cache/peers/py/bin/python tests/conformance/fixture_server.py`.
"""

from __future__ import annotations

import base64
import json
import struct
import warnings
import zlib
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp_types import (
    CallToolResult,
    Completion,
    EmbeddedResource,
    ImageContent,
    InputRequiredResult,
    PromptReference,
    TextContent,
    TextResourceContents,
)

# ctx.log is deprecated in 2026-07-28 (SEP-2577), but the bridge still carries
# log messages to a 2025-11-25 client, and tools-call-with-logging asks for them.
warnings.filterwarnings("ignore", message=".*logging capability is deprecated.*")


def _png_1x1_red() -> bytes:
    """A 1x1 red RGB PNG, built here (signature, IHDR, IDAT, IEND)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8 bits, RGB
    pixels = zlib.compress(b"\x00\xff\x00\x00")  # filter 0, then R G B
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def _wav_silence() -> bytes:
    """10 ms of 8 kHz 8-bit mono silence as a RIFF WAVE file."""
    samples = b"\x80" * 80
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", len(body)) + body


PNG = _png_1x1_red()
PNG_BASE64 = base64.b64encode(PNG).decode()
WAV_BASE64 = base64.b64encode(_wav_silence()).decode()

mcp = MCPServer(
    "mcp-bridge-conformance-fixture",
    title="Conformance fixture of mcp-bridge (mcp 2.3.0)",
    version="1.0.0",
    instructions="The server behind mcp-bridge-vscode for the server face of the MCP conformance suite.",
    log_level="WARNING",
)


def _text(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)])


def _ask(key: str, method: str, params: dict[str, Any]) -> InputRequiredResult:
    """The first round: one input request, in its wire form."""
    return InputRequiredResult.model_validate(
        {"resultType": "input_required", "inputRequests": {key: {"method": method, "params": params}}}
    )


def _answer(ctx: Context, key: str) -> Any | None:
    responses = ctx.input_responses or {}
    return responses.get(key)


def _elicitation_text(prefix: str, answer: Any) -> str:
    content = getattr(answer, "content", None) or {}
    return f"{prefix}: action={answer.action}, content={json.dumps(content, separators=(',', ':'))}"


# --- tools: content (tools-call-simple-text, -image, -audio, -embedded-resource, -mixed-content)


@mcp.tool(description="Tests simple text content response", structured_output=False)
def test_simple_text() -> CallToolResult:
    return _text("This is a simple text response for testing.")


@mcp.tool(description="Tests image content response", structured_output=False)
def test_image_content() -> CallToolResult:
    return CallToolResult(content=[ImageContent(type="image", data=PNG_BASE64, mime_type="image/png")])


@mcp.tool(description="Tests audio content response", structured_output=False)
def test_audio_content() -> CallToolResult:
    return CallToolResult.model_validate({"content": [{"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"}]})


@mcp.tool(description="Tests embedded resource content response", structured_output=False)
def test_embedded_resource() -> CallToolResult:
    resource = TextResourceContents(
        uri="test://embedded-resource", mime_type="text/plain", text="This is an embedded resource content."
    )
    return CallToolResult(content=[EmbeddedResource(type="resource", resource=resource)])


@mcp.tool(description="Tests response with multiple content types (text, image, resource)", structured_output=False)
def test_multiple_content_types() -> CallToolResult:
    resource = TextResourceContents(
        uri="test://mixed-content-resource",
        mime_type="application/json",
        text=json.dumps({"test": "data", "value": 123}, separators=(",", ":")),
    )
    return CallToolResult(
        content=[
            TextContent(type="text", text="Multiple content types test:"),
            ImageContent(type="image", data=PNG_BASE64, mime_type="image/png"),
            EmbeddedResource(type="resource", resource=resource),
        ]
    )


# --- tools: notifications during a call (tools-call-with-logging, tools-call-with-progress)


@mcp.tool(description="Tests tool that emits log messages during execution", structured_output=False)
async def test_tool_with_logging(ctx: Context) -> CallToolResult:
    await ctx.log("info", "Tool execution started")
    await anyio.sleep(0.05)
    await ctx.log("info", "Tool processing data")
    await anyio.sleep(0.05)
    await ctx.log("info", "Tool execution completed")
    return _text("Tool with logging executed successfully")


@mcp.tool(description="Tests tool that reports progress notifications", structured_output=False)
async def test_tool_with_progress(ctx: Context) -> CallToolResult:
    # The SDK sends progress only when the request carries a progress token.
    await ctx.report_progress(0, 100, "Completed step 0 of 100")
    await anyio.sleep(0.05)
    await ctx.report_progress(50, 100, "Completed step 50 of 100")
    await anyio.sleep(0.05)
    await ctx.report_progress(100, 100, "Completed step 100 of 100")
    return _text("Tool with progress executed successfully")


# --- tools: errors (tools-call-error)


@mcp.tool(description="Tests error response handling", structured_output=False)
def test_error_handling() -> CallToolResult:
    # MCPServer turns a ToolError into a result with isError: true and its text.
    raise ToolError("This tool intentionally returns an error for testing")


# --- tools: a call that the HTTP server should cut (server-sse-polling, not scored)


@mcp.tool(
    description="Tests SSE stream disconnection and client reconnection (SEP-1699): the HTTP server closes "
    "the stream of the call, and the result comes after the client reconnects",
    structured_output=False,
)
async def test_reconnection() -> CallToolResult:
    # Closing the stream is the job of the HTTP server in front (supergateway);
    # a stdio server can only answer a little later.
    await anyio.sleep(0.1)
    return _text("Reconnection test completed successfully.")


# --- tools: input from the client, as 2026-07-28 input requests
# (tools-call-sampling, tools-call-elicitation, elicitation-sep1034-defaults,
# elicitation-sep1330-enums)


@mcp.tool(description="Tests server-initiated sampling (LLM completion request)", structured_output=False)
def test_sampling(prompt: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    answer = _answer(ctx, "sampling")
    if answer is None:
        return _ask(
            "sampling",
            "sampling/createMessage",
            {"messages": [{"role": "user", "content": {"type": "text", "text": prompt}}], "maxTokens": 100},
        )
    content = getattr(answer, "content", None)
    text = getattr(content, "text", None) or "No response"
    return _text(f"LLM response: {text}")


ELICITATION_SCHEMA = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


@mcp.tool(description="Tests server-initiated elicitation (user input request)", structured_output=False)
def test_elicitation(message: str, ctx: Context) -> CallToolResult | InputRequiredResult:
    answer = _answer(ctx, "user")
    if answer is None:
        return _ask(
            "user", "elicitation/create", {"mode": "form", "message": message, "requestedSchema": ELICITATION_SCHEMA}
        )
    return _text(_elicitation_text("User response", answer))


DEFAULTS_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "User name", "default": "John Doe"},
        "age": {"type": "integer", "description": "User age", "default": 30},
        "score": {"type": "number", "description": "User score", "default": 95.5},
        "status": {
            "type": "string",
            "description": "User status",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "description": "Verification status", "default": True},
    },
    "required": [],
}


@mcp.tool(description="Tests elicitation with default values per SEP-1034", structured_output=False)
def test_elicitation_sep1034_defaults(ctx: Context) -> CallToolResult | InputRequiredResult:
    answer = _answer(ctx, "defaults")
    if answer is None:
        return _ask(
            "defaults",
            "elicitation/create",
            {
                "mode": "form",
                "message": "Please review and update the form fields with defaults",
                "requestedSchema": DEFAULTS_SCHEMA,
            },
        )
    return _text(_elicitation_text("Elicitation completed", answer))


ENUMS_SCHEMA = {
    "type": "object",
    "properties": {
        "untitledSingle": {
            "type": "string",
            "description": "Select one option",
            "enum": ["option1", "option2", "option3"],
        },
        "titledSingle": {
            "type": "string",
            "description": "Select one option with titles",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "description": "Select one option (legacy)",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "description": "Select multiple options",
            "minItems": 1,
            "maxItems": 3,
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "description": "Select multiple options with titles",
            "minItems": 1,
            "maxItems": 3,
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
    "required": [],
}


@mcp.tool(description="Tests elicitation with enum schema improvements per SEP-1330", structured_output=False)
def test_elicitation_sep1330_enums(ctx: Context) -> CallToolResult | InputRequiredResult:
    answer = _answer(ctx, "enums")
    if answer is None:
        return _ask(
            "enums",
            "elicitation/create",
            {"mode": "form", "message": "Please select options from the enum fields", "requestedSchema": ENUMS_SCHEMA},
        )
    return _text(_elicitation_text("Elicitation completed", answer))


# --- tools: a JSON Schema 2020-12 input schema, kept as written (json-schema-2020-12, not scored)

JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@mcp.tool(description="Tool with JSON Schema 2020-12 features (SEP-1613)", structured_output=False)
def json_schema_2020_12_tool(
    name: str | None = None,
    address: dict[str, Any] | None = None,
    contactMethod: str | None = None,  # noqa: N803 - the name of the schema
    phone: str | None = None,
    email: str | None = None,
) -> CallToolResult:
    given = {k: v for k, v in locals().items() if v is not None}
    return _text(f"JSON Schema 2020-12 tool called with: {json.dumps(given, separators=(',', ':'))}")


# The advertised schema is the 2020-12 one; pydantic still checks the arguments.
_focal = mcp._tool_manager.get_tool("json_schema_2020_12_tool")  # noqa: SLF001 - no public setter exists
assert _focal is not None
_focal.parameters = JSON_SCHEMA_2020_12


# --- resources (resources-list, resources-read-text, resources-read-binary,
# resources-templates-read, resources-subscribe, resources-unsubscribe)


@mcp.resource(
    "test://static-text",
    name="static-text",
    title="Static Text Resource",
    description="A static text resource for testing",
    mime_type="text/plain",
)
def static_text() -> str:
    return "This is the content of the static text resource."


@mcp.resource(
    "test://static-binary",
    name="static-binary",
    title="Static Binary Resource",
    description="A static binary resource (image) for testing",
    mime_type="image/png",
)
def static_binary() -> bytes:
    return PNG


@mcp.resource(
    "test://template/{id}/data",
    name="template",
    title="Resource Template",
    description="A resource template with parameter substitution",
    mime_type="application/json",
)
def template_data(id: str) -> str:  # noqa: A002 - the name of the template variable
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"}, separators=(",", ":"))


@mcp.resource(
    "test://watched-resource",
    name="watched-resource",
    title="Watched Resource",
    description="A resource that a client can subscribe to",
    mime_type="text/plain",
)
def watched_resource() -> str:
    return "The content of the watched resource."


# --- prompts (prompts-list, prompts-get-simple, -with-args, -embedded-resource, -with-image)


@mcp.prompt(name="test_simple_prompt", title="Simple Test Prompt", description="A simple prompt without arguments")
def test_simple_prompt() -> list[UserMessage]:
    return [UserMessage("This is a simple prompt for testing.")]


@mcp.prompt(
    name="test_prompt_with_arguments", title="Prompt With Arguments", description="A prompt with required arguments"
)
def test_prompt_with_arguments(arg1: str, arg2: str) -> list[UserMessage]:
    return [UserMessage(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")]


@mcp.prompt(
    name="test_prompt_with_embedded_resource",
    title="Prompt With Embedded Resource",
    description="A prompt that includes an embedded resource",
)
def test_prompt_with_embedded_resource(resourceUri: str) -> list[UserMessage]:  # noqa: N803 - the argument name
    resource = TextResourceContents(uri=resourceUri, mime_type="text/plain", text="Embedded resource content for testing.")
    return [
        UserMessage(EmbeddedResource(type="resource", resource=resource)),
        UserMessage("Please process the embedded resource above."),
    ]


@mcp.prompt(name="test_prompt_with_image", title="Prompt With Image", description="A prompt that includes image content")
def test_prompt_with_image() -> list[UserMessage]:
    return [
        UserMessage(ImageContent(type="image", data=PNG_BASE64, mime_type="image/png")),
        UserMessage("Please analyze the image above."),
    ]


# --- completion (completion-complete)

WORDS = ["paris", "park", "party", "test", "testing"]


@mcp.completion()
async def complete(ref, argument, context):
    values: list[str] = []
    if isinstance(ref, PromptReference) and ref.name == "test_prompt_with_arguments":
        values = [w for w in WORDS if w.startswith(argument.value)]
    return Completion(values=values, total=len(values), has_more=False)


if __name__ == "__main__":
    mcp.run()
