// A stand-in model API on 127.0.0.1 for the MCP clients that call tools only
// from a chat (tests/clients/run.mjs). It speaks just enough of three APIs:
//
//   Gemini      POST /v1beta/models/<model>:generateContent | :streamGenerateContent[?alt=sse]
//               | :countTokens, GET /v1beta/models            (Gemini CLI: GOOGLE_GEMINI_BASE_URL)
//   Anthropic   POST /v1/messages [stream], /v1/messages/count_tokens, GET /v1/models
//                                                             (Claude Code: ANTHROPIC_BASE_URL;
//                                                              opencode: provider.anthropic.options.baseURL)
//   OpenAI      POST /v1/chat/completions [stream], GET /v1/models
//                                                             (Qwen Code: OPENAI_BASE_URL;
//                                                              Cline: `cline auth openai -b`)
//
// The conversation it plays is one chat turn with one tool call. A request that
// offers a tool named `add` (or `<prefix>_add`, as clients prefix MCP tools:
// `mcp__demo__add`, `mcp_demo_add`, `demo_add`) is the agent's turn: when its last
// message carries no tool result, the answer is a call of that tool with
// {"a": 2, "b": 3}; when it carries one, the answer is the final text
// "The sum is <what the tool said>." Any other request (a client's title, routing,
// summary or quota probes) gets a short text. Every request is recorded with the
// names of the tools it offered and the text of the tool result it carried, so
// that the driver checks what the client listed and what the call returned.
//
// Run alone (`node model-api.mjs [port]`) it prints its URL and logs each request.

import http from "node:http";

const FINAL = "The sum is";

// The name of the client's `add` tool among the offered names, or null.
export function addToolName(names) {
    return names.find((n) => n === "add" || /(^|_)add$/.test(n)) ?? null;
}

function text(v) {
    if (v == null) return "";
    if (typeof v === "string") return v;
    return JSON.stringify(v);
}

// --- one API each: what a request offers and carries, and the answers -------------

const gemini = {
    tools(body) {
        return (body.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    },
    // The tool result of the last user turn, or null.
    toolResult(body) {
        const last = (body.contents ?? []).at(-1);
        const parts = (last?.parts ?? []).filter((p) => p.functionResponse);
        return parts.length ? parts.map((p) => text(p.functionResponse.response)).join("\n") : null;
    },
    call(name) {
        return { functionCall: { name, args: { a: 2, b: 3 } } };
    },
    reply(parts, finishReason = "STOP") {
        return {
            candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }],
            usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
            modelVersion: "stand-in",
        };
    },
};

const anthropic = {
    tools(body) {
        return (body.tools ?? []).map((t) => t.name).filter(Boolean);
    },
    toolResult(body) {
        const last = (body.messages ?? []).at(-1);
        if (!last || last.role !== "user" || !Array.isArray(last.content)) return null;
        const results = last.content.filter((c) => c.type === "tool_result");
        if (!results.length) return null;
        return results
            .map((r) => (Array.isArray(r.content) ? r.content.map((c) => c.text ?? text(c)).join("\n") : text(r.content)))
            .join("\n");
    },
};

const openai = {
    tools(body) {
        return (body.tools ?? []).map((t) => t.function?.name ?? t.name).filter(Boolean);
    },
    toolResult(body) {
        const msgs = body.messages ?? [];
        const tail = [];
        for (let i = msgs.length - 1; i >= 0 && msgs[i].role === "tool"; i--) tail.unshift(msgs[i]);
        if (!tail.length) return null;
        return tail
            .map((m) => (Array.isArray(m.content) ? m.content.map((c) => c.text ?? text(c)).join("\n") : text(m.content)))
            .join("\n");
    },
};

// What to answer: {call: name} or {text}.
function decide(names, result) {
    const add = addToolName(names);
    if (!add) return { text: "OK." };
    if (result == null) return { call: add };
    const m = /-?\d+(\.\d+)?/.exec(result.replace(/"[^"]*"\s*:/g, ""));
    return { text: `${FINAL} ${m ? m[0] : "unknown"}.` };
}

function sse(res, events) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "close" });
    for (const [event, data] of events) {
        if (event) res.write(`event: ${event}\n`);
        res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
    }
    res.end();
}

function json(res, status, body) {
    const s = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(s) });
    res.end(s);
}

let seq = 0;

function answerGemini(req, res, url, body, record) {
    const m = /\/models\/([^/:]+):(\w+)$/.exec(url.pathname);
    if (req.method === "GET") return json(res, 200, { models: [{ name: "models/gemini-2.5-flash", supportedGenerationMethods: ["generateContent"] }] });
    if (!m) return json(res, 404, { error: { code: 404, message: `stand-in: no ${url.pathname}`, status: "NOT_FOUND" } });
    const [, , op] = m;
    if (op === "countTokens") return json(res, 200, { totalTokens: 10 });
    const names = gemini.tools(body);
    const result = gemini.toolResult(body);
    const d = decide(names, result);
    Object.assign(record, { tools: names, toolResult: result, answer: d });
    const reply = d.call ? gemini.reply([gemini.call(d.call)]) : gemini.reply([{ text: d.text }]);
    if (op === "streamGenerateContent") {
        if (url.searchParams.get("alt") === "sse") return sse(res, [[null, reply]]);
        return json(res, 200, [reply]);
    }
    return json(res, 200, reply);
}

function answerAnthropic(req, res, url, body, record) {
    if (req.method === "GET") return json(res, 200, { data: [{ id: "claude-sonnet-4-5", type: "model", display_name: "stand-in" }], has_more: false });
    if (url.pathname.endsWith("/count_tokens")) return json(res, 200, { input_tokens: 10 });
    const names = anthropic.tools(body);
    const result = anthropic.toolResult(body);
    const d = decide(names, result);
    Object.assign(record, { tools: names, toolResult: result, answer: d });
    const id = `msg_standin_${++seq}`;
    const model = body.model ?? "stand-in";
    const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const block = d.call
        ? { type: "tool_use", id: `toolu_standin_${seq}`, name: d.call, input: { a: 2, b: 3 } }
        : { type: "text", text: d.text };
    const stop = d.call ? "tool_use" : "end_turn";
    if (!body.stream) {
        return json(res, 200, { id, type: "message", role: "assistant", model, content: [block], stop_reason: stop, stop_sequence: null, usage });
    }
    const start = d.call ? { ...block, input: {} } : { type: "text", text: "" };
    const delta = d.call
        ? { type: "input_json_delta", partial_json: JSON.stringify(block.input) }
        : { type: "text_delta", text: block.text };
    sse(res, [
        ["message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }],
        ["content_block_start", { type: "content_block_start", index: 0, content_block: start }],
        ["content_block_delta", { type: "content_block_delta", index: 0, delta }],
        ["content_block_stop", { type: "content_block_stop", index: 0 }],
        ["message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } }],
        ["message_stop", { type: "message_stop" }],
    ]);
}

function answerOpenai(req, res, url, body, record) {
    if (req.method === "GET") return json(res, 200, { object: "list", data: [{ id: "stand-in", object: "model", owned_by: "stand-in" }] });
    const names = openai.tools(body);
    const result = openai.toolResult(body);
    const d = decide(names, result);
    Object.assign(record, { tools: names, toolResult: result, answer: d });
    const id = `chatcmpl-standin-${++seq}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? "stand-in";
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    const call = d.call && { index: 0, id: `call_standin_${seq}`, type: "function", function: { name: d.call, arguments: JSON.stringify({ a: 2, b: 3 }) } };
    const finish = d.call ? "tool_calls" : "stop";
    if (!body.stream) {
        const message = d.call ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: d.text };
        return json(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    const chunk = (delta, finish_reason = null, extra = {}) => ({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }], ...extra });
    sse(res, [
        [null, chunk(d.call ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: d.text })],
        [null, chunk({}, finish, { usage })],
        [null, "[DONE]"],
    ]);
}

// Starts the stand-in on 127.0.0.1 (port 0: a free one). Returns
// { url, port, records, close() }; records grow as requests come.
export function startModelApi({ port = 0, log = null } = {}) {
    const records = [];
    const server = http.createServer((req, res) => {
        const chunks = [];
        req.on("data", (c) => chunks.push(c));
        req.on("end", () => {
            const url = new URL(req.url, "http://127.0.0.1");
            let body = {};
            try {
                if (chunks.length) body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            } catch {
                body = {};
            }
            const record = { method: req.method, path: url.pathname, api: null };
            records.push(record);
            try {
                if (url.pathname.includes("/models/") && /:\w+$/.test(url.pathname)) {
                    record.api = "gemini";
                    answerGemini(req, res, url, body, record);
                } else if (url.pathname.endsWith("/v1beta/models")) {
                    record.api = "gemini";
                    answerGemini(req, res, url, body, record);
                } else if (url.pathname.endsWith("/messages") || url.pathname.endsWith("/messages/count_tokens")) {
                    record.api = "anthropic";
                    answerAnthropic(req, res, url, body, record);
                } else if (url.pathname.endsWith("/chat/completions")) {
                    record.api = "openai";
                    answerOpenai(req, res, url, body, record);
                } else if (url.pathname.endsWith("/models") && req.headers["anthropic-version"]) {
                    record.api = "anthropic";
                    answerAnthropic(req, res, url, body, record);
                } else if (url.pathname.endsWith("/models")) {
                    record.api = "openai";
                    answerOpenai(req, res, url, body, record);
                } else {
                    json(res, 404, { error: { message: `stand-in model API: nothing at ${req.method} ${url.pathname}` } });
                }
            } catch (e) {
                record.error = String(e?.stack ?? e);
                if (!res.headersSent) json(res, 500, { error: { message: String(e) } });
            }
            if (log) log(`${req.method} ${url.pathname} ${record.tools ? `tools=${record.tools.length} [${record.tools.join(" ")}] ` : ""}${record.answer ? JSON.stringify(record.answer) : ""}`);
        });
    });
    return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => {
            const p = server.address().port;
            resolve({
                port: p,
                url: `http://127.0.0.1:${p}`,
                records,
                close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
            });
        });
    });
}

// The outcome of one chat: the tools the agent's requests offered, whether it
// called add, and the tool result it sent back.
export function summarize(records) {
    const agent = records.filter((r) => r.tools && addToolName(r.tools));
    const offered = agent.length ? agent[0].tools : [];
    const called = agent.some((r) => r.answer?.call);
    const result = agent.map((r) => r.toolResult).find((t) => t != null) ?? null;
    return { requests: records.length, agentRequests: agent.length, offered, called, result };
}

if (import.meta.url === `file://${process.argv[1]}`) {
    const api = await startModelApi({ port: Number(process.argv[2] ?? 0), log: (l) => console.log(l) });
    console.log(`stand-in model API at ${api.url}`);
}
