"""The 2026-07-28 stdio server behind the bridge for the server face of the
conformance suite (scripts/conformance), written with PyPI `mcp==2.3.0` (the
venv of scripts/install-peers).

The suite's server mode is the client; the bridge's HTTP face is the server
under test, with this file as its upstream:

    conformance --HTTP--> mcp-bridge-vscode --listen --stdio--> this file

At the revisions of the initialize handshake (2025-11-25, 2025-06-18,
2025-03-26) the face translates each session to 2026-07-28; a 2026-07-28
client's requests (`server --requirements 2026-07-28`) it relays as they came,
with the client's own `_meta`, over one connection to this file.

Every name, text and schema below is the one that the description or the code
of a scenario of the suite asks for (the scenario names are in the comments).
The tools that need the client ask for it the 2026-07-28 way: the first round
returns an InputRequiredResult with input requests (the face turns each one
into a 2025 client's sampling/createMessage, elicitation/create or roots/list,
or relays it to a 2026-07-28 client as it is); the retry carries the answers
in inputResponses, and the requestState that this file minted (the SDK seals
it, and rejects a tampered one with -32602). A tool that needs a capability
that the request's client did not declare answers -32021 with the capability
in data.requiredCapabilities.

Run it alone with `.cache/peers/py/bin/python tests/conformance/fixture_server.py`.
"""

from __future__ import annotations

import base64
import json
import struct
import warnings
import zlib
from typing import Annotated, Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.shared.exceptions import MCPError
from mcp_types import (
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    CallToolResult,
    ClientCapabilities,
    Completion,
    ElicitationCapability,
    EmbeddedResource,
    ImageContent,
    InputRequiredResult,
    MissingRequiredClientCapabilityErrorData,
    PromptReference,
    SamplingCapability,
    TextContent,
    TextResourceContents,
)
from pydantic import Field

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


# --- tools: the diagnostic tools of server-stateless (2026-07-28, SEP-2575)


def _require(ctx: Context, capability: str) -> None:
    """-32021 unless the request's client declared `capability` (sampling or
    elicitation), with the ClientCapabilities object that names it."""
    declared = ctx.client_capabilities
    if declared is not None and getattr(declared, capability, None) is not None:
        return
    required = {
        "sampling": ClientCapabilities(sampling=SamplingCapability()),
        "elicitation": ClientCapabilities(elicitation=ElicitationCapability()),
    }[capability]
    data = MissingRequiredClientCapabilityErrorData(required_capabilities=required)
    raise MCPError(
        code=MISSING_REQUIRED_CLIENT_CAPABILITY,
        message=f"This tool needs the client's {capability} capability, which the request did not declare",
        data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
    )


@mcp.tool(
    description="Asks the client to sample: needs the sampling capability, else -32021 (SEP-2575)",
    structured_output=False,
)
def test_missing_capability(ctx: Context) -> CallToolResult | InputRequiredResult:
    _require(ctx, "sampling")
    answer = _answer(ctx, "sampling")
    if answer is None:
        return _ask(
            "sampling",
            "sampling/createMessage",
            {"messages": [{"role": "user", "content": {"type": "text", "text": "Say hello"}}], "maxTokens": 20},
        )
    return _text("Sampling answered")


@mcp.tool(
    description="Reports progress and asks the client a question on its response stream, as an "
    "InputRequiredResult and never as a request of its own (SEP-2575)",
    structured_output=False,
)
async def test_streaming_elicitation(ctx: Context) -> CallToolResult | InputRequiredResult:
    _require(ctx, "elicitation")
    answer = _answer(ctx, "confirm")
    if answer is None:
        # Sent only when the request carries a progress token.
        await ctx.report_progress(1, 2, "Asking the client")
        return _ask(
            "confirm",
            "elicitation/create",
            {
                "mode": "form",
                "message": "Continue?",
                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
            },
        )
    return _text(_elicitation_text("Streaming elicitation answered", answer))


@mcp.tool(
    description="Logs at every level; on 2026-07-28 a message goes out only to a request whose _meta "
    "names a log level (SEP-2575)",
    structured_output=False,
)
async def test_logging_tool(ctx: Context) -> CallToolResult:
    for level in ("debug", "info", "warning", "error"):
        await ctx.log(level, f"test_logging_tool: a {level} message")
    return _text("Logging tool executed")


@mcp.tool(
    description="Tells the subscriptions/listen streams that the tool list changed (toolsListChanged)",
    structured_output=False,
)
async def test_trigger_tool_change(ctx: Context) -> CallToolResult:
    await ctx.notify_tools_changed()
    return _text("Tool list change announced")


@mcp.tool(
    description="Tells the subscriptions/listen streams that the prompt list changed (promptsListChanged)",
    structured_output=False,
)
async def test_trigger_prompt_change(ctx: Context) -> CallToolResult:
    await ctx.notify_prompts_changed()
    return _text("Prompt list change announced")


# --- tools: InputRequiredResult (the input-required-result-* scenarios, SEP-2322)
# Round 1 asks; the retry answers, by the keys of round 1. A retry that lacks an
# answer is asked again (input-required-result-missing-input-response).

NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
OK_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def _elicit(message: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"method": "elicitation/create", "params": {"mode": "form", "message": message, "requestedSchema": schema}}


def _sample(text: str, max_tokens: int) -> dict[str, Any]:
    return {
        "method": "sampling/createMessage",
        "params": {"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": max_tokens},
    }


ROOTS_REQUEST = {"method": "roots/list", "params": {}}


def _input_required(requests: dict[str, Any], state: str | None = None) -> InputRequiredResult:
    wire: dict[str, Any] = {"resultType": "input_required", "inputRequests": requests}
    if state is not None:
        wire["requestState"] = state
    return InputRequiredResult.model_validate(wire)


def _accepted(answer: Any) -> dict[str, Any]:
    """The content of an accepted elicitation; nothing for a declined one."""
    if getattr(answer, "action", None) != "accept":
        return {}
    return getattr(answer, "content", None) or {}


def _sampled_text(answer: Any) -> str:
    return getattr(getattr(answer, "content", None), "text", None) or "(no text)"


def _roots(answer: Any) -> list[str]:
    return [str(root.uri) for root in getattr(answer, "roots", None) or []]


@mcp.tool(description="Asks the user's name with an elicitation input request (SEP-2322)", structured_output=False)
def test_input_required_result_elicitation(ctx: Context) -> CallToolResult | InputRequiredResult:
    answer = _answer(ctx, "user_name")
    if answer is None:
        return _input_required({"user_name": _elicit("What is your name?", NAME_SCHEMA)})
    return _text(f"Hello, {_accepted(answer).get('name', 'stranger')}!")


@mcp.tool(description="Asks the client to sample with a sampling input request (SEP-2322)", structured_output=False)
def test_input_required_result_sampling(ctx: Context) -> CallToolResult | InputRequiredResult:
    answer = _answer(ctx, "capital_question")
    if answer is None:
        return _input_required({"capital_question": _sample("What is the capital of France?", 100)})
    return _text(f"Sampling response: {_sampled_text(answer)}")


@mcp.tool(description="Asks the client's roots with a roots/list input request (SEP-2322)", structured_output=False)
def test_input_required_result_list_roots(ctx: Context) -> CallToolResult | InputRequiredResult:
    answer = _answer(ctx, "client_roots")
    if answer is None:
        return _input_required({"client_roots": ROOTS_REQUEST})
    return _text(f"Client roots: {', '.join(_roots(answer)) or '(none)'}")


REQUEST_STATE = "request-state:confirm:v1"


@mcp.tool(description="Round-trips a requestState with its input request (SEP-2322)", structured_output=False)
def test_input_required_result_request_state(ctx: Context) -> CallToolResult | InputRequiredResult:
    answer = _answer(ctx, "confirm")
    if answer is None or ctx.request_state != REQUEST_STATE:
        return _input_required({"confirm": _elicit("Please confirm", OK_SCHEMA)}, REQUEST_STATE)
    return _text(f"state-ok: the requestState came back, confirmed={_accepted(answer).get('ok')}")


@mcp.tool(
    description="Asks with three input requests at once: elicitation, sampling and roots/list (SEP-2322)",
    structured_output=False,
)
def test_input_required_result_multiple_inputs(ctx: Context) -> CallToolResult | InputRequiredResult:
    requests = {
        "user_name": _elicit("What is your name?", NAME_SCHEMA),
        "greeting": _sample("Generate a greeting", 50),
        "client_roots": ROOTS_REQUEST,
    }
    responses = ctx.input_responses or {}
    if ctx.request_state != "multiple-inputs:v1" or any(key not in responses for key in requests):
        return _input_required(requests, "multiple-inputs:v1")
    name = _accepted(responses["user_name"]).get("name")
    greeting = _sampled_text(responses["greeting"])
    roots = ", ".join(_roots(responses["client_roots"]))
    return _text(f"name={name}; greeting={greeting}; roots={roots}")


@mcp.tool(description="Asks in two rounds, with a new requestState each round (SEP-2322)", structured_output=False)
def test_input_required_result_multi_round(ctx: Context) -> CallToolResult | InputRequiredResult:
    state = ctx.request_state
    step1 = _answer(ctx, "step1")
    step2 = _answer(ctx, "step2")
    if state and state.startswith("multi-round:2:") and step2 is not None:
        name = state.removeprefix("multi-round:2:")
        return _text(f"Hello, {name}! Your favorite color is {_accepted(step2).get('color')}.")
    if state == "multi-round:1" and step1 is not None:
        name = _accepted(step1).get("name", "stranger")
        schema = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}
        return _input_required(
            {"step2": _elicit("Step 2: What is your favorite color?", schema)}, f"multi-round:2:{name}"
        )
    return _input_required({"step1": _elicit("Step 1: What is your name?", NAME_SCHEMA)}, "multi-round:1")


@mcp.tool(
    description="Asks with a requestState that the SDK seals; a tampered one is refused (SEP-2322)",
    structured_output=False,
)
def test_input_required_result_tampered_state(ctx: Context) -> CallToolResult | InputRequiredResult:
    answer = _answer(ctx, "confirm")
    if answer is None or ctx.request_state != "tampered-state:v1":
        return _input_required({"confirm": _elicit("Please confirm", OK_SCHEMA)}, "tampered-state:v1")
    return _text("The requestState was intact")


@mcp.tool(
    description="Asks only with the input requests of the capabilities that the client declared (SEP-2322)",
    structured_output=False,
)
def test_input_required_result_capabilities(ctx: Context) -> CallToolResult | InputRequiredResult:
    declared = ctx.client_capabilities
    requests: dict[str, Any] = {}
    if declared is not None and declared.sampling is not None:
        requests["greeting"] = _sample("Generate a greeting", 50)
    if declared is not None and declared.elicitation is not None:
        requests["user_name"] = _elicit("What is your name?", NAME_SCHEMA)
    if declared is not None and declared.roots is not None:
        requests["client_roots"] = ROOTS_REQUEST
    responses = ctx.input_responses or {}
    if requests and any(key not in responses for key in requests):
        return _input_required(requests)
    return _text(f"Answered: {', '.join(sorted(requests)) or 'nothing to ask'}")


# --- tools: a parameter mirrored into a header (http-custom-header-server-validation, SEP-2243)


@mcp.tool(
    description="Echoes its region, which the client mirrors into the Mcp-Param-Region header (SEP-2243)",
    structured_output=False,
)
def test_custom_header(
    region: Annotated[str, Field(description="A region", json_schema_extra={"x-mcp-header": "Region"})],
) -> CallToolResult:
    return _text(f"Region: {region}")


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


@mcp.prompt(
    name="test_input_required_result_prompt",
    title="Prompt With Input Required",
    description="A prompt that asks the user for its context first (input-required-result-non-tool-request)",
)
def test_input_required_result_prompt(ctx: Context) -> list[UserMessage] | InputRequiredResult:
    answer = _answer(ctx, "user_context")
    if answer is None:
        schema = {"type": "object", "properties": {"context": {"type": "string"}}, "required": ["context"]}
        return _input_required({"user_context": _elicit("What context should the prompt use?", schema)})
    return [UserMessage(f"Use this context: {_accepted(answer).get('context', '')}")]


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
