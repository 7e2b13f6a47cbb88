// The test extension of scripts/e2e-vscode. The driver (run.mjs) works the
// workbench through the browser, but VS Code's own MCP client hands tools to
// extensions only (vscode.lm.tools, vscode.lm.invokeTool; no chat model is
// needed for that). So this extension listens on a loopback port and does
// what the driver asks with that API. It does nothing unless the driver set
// MCP_BRIDGE_E2E_CONTROL, the file where it writes its port.
"use strict";
const vscode = require("vscode");
const http = require("http");
const fs = require("fs");

// The cancellation sources of the calls in flight, by the driver's id.
const inflight = new Map();

function partOf(part) {
    if (part instanceof vscode.LanguageModelTextPart) return { type: "text", value: part.value };
    if (typeof vscode.LanguageModelDataPart === "function" && part instanceof vscode.LanguageModelDataPart) {
        return { type: "data", mimeType: part.mimeType, value: Buffer.from(part.data).toString("utf8") };
    }
    return { type: "other", value: String(part && part.constructor && part.constructor.name) };
}

function mcpTools() {
    return vscode.lm.tools
        .filter((t) => (t.tags || []).includes("mcp"))
        .map((t) => ({ name: t.name, description: t.description }));
}

async function invoke(body) {
    const source = new vscode.CancellationTokenSource();
    inflight.set(body.id, source);
    try {
        // No toolInvocationToken: the call is not part of a chat request, so
        // VS Code asks its own confirmation dialog ("Run <tool>?") where the
        // tool is not read-only, and shows input requests as notifications.
        const result = await vscode.lm.invokeTool(body.name, { input: body.input || {}, toolInvocationToken: undefined }, source.token);
        return { ok: true, parts: result.content.map(partOf) };
    } catch (e) {
        return {
            ok: false,
            cancelled: source.token.isCancellationRequested,
            error: String((e && e.message) || e),
            errorName: String((e && e.name) || ""),
        };
    } finally {
        inflight.delete(body.id);
        source.dispose();
    }
}

function readBody(req) {
    return new Promise((resolve, reject) => {
        const chunks = [];
        req.on("data", (c) => chunks.push(c));
        req.on("end", () => {
            try {
                resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {});
            } catch (e) {
                reject(e);
            }
        });
        req.on("error", reject);
    });
}

function activate(context) {
    const file = process.env.MCP_BRIDGE_E2E_CONTROL;
    if (!file) return;
    const server = http.createServer(async (req, res) => {
        let answer;
        try {
            const body = req.method === "POST" ? await readBody(req) : {};
            if (req.url === "/tools") {
                answer = { ok: true, tools: mcpTools() };
            } else if (req.url === "/invoke") {
                answer = await invoke(body);
            } else if (req.url === "/cancel") {
                const source = inflight.get(body.id);
                if (source) source.cancel();
                answer = { ok: true, found: !!source };
            } else {
                res.writeHead(404).end();
                return;
            }
        } catch (e) {
            answer = { ok: false, error: String((e && e.stack) || e) };
        }
        const data = JSON.stringify(answer);
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
        res.end(data);
    });
    server.listen(0, "127.0.0.1", () => {
        // Written whole, then renamed: the driver never reads half a port.
        fs.writeFileSync(file + ".tmp", String(server.address().port));
        fs.renameSync(file + ".tmp", file);
    });
    context.subscriptions.push({ dispose: () => server.close() });
}

function deactivate() {}

module.exports = { activate, deactivate };
