#!/usr/bin/env node
// A driver of a 2025-11-25 client: npm `@modelcontextprotocol/sdk@1.32.2`
// Client + StdioClientTransport, VS Code's stand-in in the integration tests of
// mcp-bridge (crates/mcp-bridge-vscode/tests/it/peers.rs).
//
//     node tests/peers/node/client.mjs <scenario> [--timeout-ms N] -- <command> [args...]
//
// It spawns <command> (the bridge with its arguments and its upstream) with the
// environment of this process, runs the scenario, closes the connection (the end
// of stdin), and prints ONE JSON document on stdout:
//
//   {
//     "scenario": "basic",
//     "initialize": {"ok": true, "protocolVersion", "serverVersion", "serverCapabilities",
//                    "instructions", "wire": <the raw initialize result>}
//                 | {"ok": false, "error": {code, message, data}, "sdkError": "..."},
//     "steps": {"<step name>": {"ok": true, "answered": true, "result": <as the SDK parsed it>, "wire": <raw result>}
//                            | {"ok": false, "answered": <did the bridge send a response>, "error": {code, message, data},
//                               "sdkError": "...", "wire": <raw result, when the SDK refused one, or null>}},
//     "notifications": [<every notification from the bridge, raw, in order>],
//     "clientRequests": [<every request from the bridge (elicitation, sampling, roots), raw>],
//     "received": [<every message from the bridge, raw, in order>],
//     "sent": [<every message of the client to the bridge, in order>],
//     "bridgeExit": {"code": <int|null>, "signal": <string|null>} | null,
//     "driverError": null | "<text>"
//   }
//
// "wire" is the exact JSON that the bridge wrote for the request of the step, so a
// test can check the translation rules member by member; "result" shows that the
// SDK (like VS Code) accepted it. An error is the raw error object of the bridge
// when it sent one (the SDK's McpError prefixes the message with "MCP error <code>: ";
// that text is in "sdkError"). The exit code of this driver is 0 when it printed
// the document, also when a step failed; 2 for bad arguments.
//
// Scenarios: see SCENARIOS below. Add one as `name: async (t) => { ... }` with
// t.step(name, method, fn) for each request; t.client is the SDK Client, t.answers
// the answers of the client handlers.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
    CallToolResultSchema,
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ListRootsRequestSchema,
    McpError
} from '@modelcontextprotocol/sdk/types.js';

const STEP_TIMEOUT_MS = 20_000;

function usage(text) {
    process.stderr.write(`client.mjs: ${text}\nusage: node client.mjs <scenario> [--timeout-ms N] -- <command> [args...]\n`);
    process.exit(2);
}

/** Wraps the stdio transport to record every message in both directions. */
class RecordingTransport {
    constructor(inner) {
        this.inner = inner;
        this.sent = [];
        this.received = [];
        this.exit = null;
        this.exited = new Promise((resolve) => (this._resolveExit = resolve));
        inner.onmessage = (message, extra) => {
            this.received.push(message);
            this.onmessage?.(message, extra);
        };
        inner.onclose = () => this.onclose?.();
        inner.onerror = (error) => this.onerror?.(error);
    }
    async start() {
        await this.inner.start();
        // The SDK keeps the child private; its exit status is what the tests need.
        const child = this.inner._process;
        if (child) {
            child.once('exit', (code, signal) => {
                this.exit = { code, signal };
                this._resolveExit();
            });
        } else {
            this._resolveExit();
        }
    }
    async send(message, options) {
        this.sent.push(message);
        return this.inner.send(message, options);
    }
    async close() {
        return this.inner.close();
    }
    setProtocolVersion(version) {
        this.inner.setProtocolVersion?.(version);
    }
    get sessionId() {
        return this.inner.sessionId;
    }
    /** The raw response to the last request of `method` sent at or after index `from`. */
    responseTo(method, from) {
        const requests = this.sent.slice(from).filter((m) => m.method === method && m.id !== undefined);
        const request = requests.at(-1);
        if (!request) return null;
        return this.received.find((m) => m.id === request.id && (m.result !== undefined || m.error !== undefined)) ?? null;
    }
}

function errorObject(raw, error) {
    if (raw?.error) return raw.error;
    if (error instanceof McpError) {
        const prefix = `MCP error ${error.code}: `;
        const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
        return error.data === undefined ? { code: error.code, message } : { code: error.code, message, data: error.data };
    }
    return { code: null, message: String(error?.message ?? error) };
}

// The names of the steps are keys of "steps": keep them stable, the tests read them.
const SCENARIOS = {
    /** Only initialize, for an upstream that fails (server-everything). */
    initialize: async () => {},

    /** Every forwarded method once, against a peer of tests/peers (server.py, server-v2.mjs). */
    basic: async (t) => {
        await t.step('tools/list', 'tools/list', () => t.client.listTools());
        await t.step('tools/call echo', 'tools/call', () => t.client.callTool({ name: 'echo', arguments: { text: 'hello bridge' } }));
        await t.step('tools/call add', 'tools/call', () => t.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
        await t.step('tools/call squares', 'tools/call', () => t.client.callTool({ name: 'squares', arguments: { count: 3 } }));
        await t.step('tools/call tags', 'tools/call', () => t.client.callTool({ name: 'tags', arguments: { tags: ['a', 'b'] } }));
        await t.step('tools/call fail', 'tools/call', () =>
            t.client.callTool({ name: 'fail', arguments: { code: -32001, message: 'peer failure' } })
        );
        await t.step('prompts/list', 'prompts/list', () => t.client.listPrompts());
        await t.step('prompts/get greet', 'prompts/get', () => t.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }));
        await t.step('resources/list', 'resources/list', () => t.client.listResources());
        await t.step('resources/read readme', 'resources/read', () => t.client.readResource({ uri: 'peer://static/readme' }));
        await t.step('resources/templates/list', 'resources/templates/list', () => t.client.listResourceTemplates());
        await t.step('resources/read color', 'resources/read', () => t.client.readResource({ uri: 'peer://colors/blue' }));
        await t.step('completion/complete prompt', 'completion/complete', () =>
            t.client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } })
        );
        await t.step('completion/complete template', 'completion/complete', () =>
            t.client.complete({ ref: { type: 'ref/resource', uri: 'peer://colors/{color}' }, argument: { name: 'color', value: 'g' } })
        );
        await t.step('ping', 'ping', () => t.client.ping());
    },

    /** Progress with the token 0 in every request, as the Copilot harness sends it. */
    progress: async (t) => {
        for (const name of ['slow first', 'slow second']) {
            await t.step(name, 'tools/call', () =>
                t.client.request(
                    { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 0.6, steps: 3 }, _meta: { progressToken: 0 } } },
                    CallToolResultSchema,
                    { timeout: STEP_TIMEOUT_MS }
                )
            );
        }
    },

    /**
     * Live updates against tests/peers/python/live_server.py: a tool that adds a tool, a
     * subscription and an update, and log messages at four levels after logging/setLevel.
     * Each step waits for the notification it causes (up to 5 s) before the next one.
     */
    live: async (t) => {
        const seen = (predicate) =>
            new Promise((resolve) => {
                const deadline = Date.now() + 5000;
                const poll = () => {
                    if (t.transport.received.some(predicate) || Date.now() > deadline) resolve();
                    else setTimeout(poll, 20);
                };
                poll();
            });
        const listChanges = () => t.transport.received.filter((m) => m.method === 'notifications/tools/list_changed').length;
        // The events after the first acknowledgment of the listen stream.
        await seen((m) => m.method === 'notifications/resources/list_changed');
        const before = listChanges();
        await t.step('tools/call add_tool', 'tools/call', () => t.client.callTool({ name: 'add_tool', arguments: { name: 'extra' } }));
        await new Promise((resolve) => {
            const poll = () => (listChanges() > before ? resolve() : setTimeout(poll, 20));
            poll();
            setTimeout(resolve, 5000).unref();
        });
        await t.step('tools/list', 'tools/list', () => t.client.listTools());
        await t.step('tools/call extra', 'tools/call', () => t.client.callTool({ name: 'extra', arguments: {} }));
        await t.step('resources/subscribe', 'resources/subscribe', () => t.client.subscribeResource({ uri: 'live://counter' }));
        await t.step('tools/call touch', 'tools/call', () => t.client.callTool({ name: 'touch', arguments: { uri: 'live://counter' } }));
        await seen((m) => m.method === 'notifications/resources/updated');
        await t.step('logging/setLevel', 'logging/setLevel', () => t.client.setLoggingLevel('warning'));
        await t.step('tools/call chatty', 'tools/call', () => t.client.callTool({ name: 'chatty', arguments: {} }));
        await t.step('resources/unsubscribe', 'resources/unsubscribe', () => t.client.unsubscribeResource({ uri: 'live://counter' }));
        await t.step('tools/call touch again', 'tools/call', () =>
            t.client.callTool({ name: 'touch', arguments: { uri: 'live://counter' } })
        );
        // An update after the unsubscribe would come now: give it a moment to show.
        await new Promise((resolve) => setTimeout(resolve, 300));
    },

    /**
     * The whole surface of the HTTP peers (tests/peers/python/http_server.py,
     * tests/peers/node/http-server-v2.mjs) through a bridge with a URL upstream:
     * every list, the calls (progress with token 0, a cancel the server reports,
     * an MRTR form the client accepts, an x-mcp-header tool), a list change, a
     * resource update after a subscription, and log messages after setLevel.
     * Each step that causes a notification waits for it (up to 5 s).
     */
    http: async (t) => {
        const seen = (predicate) =>
            new Promise((resolve) => {
                const deadline = Date.now() + 5000;
                const poll = () => {
                    if (t.transport.received.some(predicate) || Date.now() > deadline) resolve();
                    else setTimeout(poll, 20);
                };
                poll();
            });
        const count = (method) => t.transport.received.filter((m) => m.method === method).length;
        // The events after the first acknowledgment of the listen stream.
        await seen((m) => m.method === 'notifications/resources/list_changed');
        await t.step('tools/list', 'tools/list', () => t.client.listTools());
        await t.step('prompts/list', 'prompts/list', () => t.client.listPrompts());
        await t.step('resources/list', 'resources/list', () => t.client.listResources());
        await t.step('resources/templates/list', 'resources/templates/list', () => t.client.listResourceTemplates());
        await t.step('tools/call echo', 'tools/call', () => t.client.callTool({ name: 'echo', arguments: { text: 'hello http' } }));
        await t.step('tools/call add', 'tools/call', () => t.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
        await t.step('tools/call region', 'tools/call', () =>
            t.client.callTool({ name: 'region', arguments: { region: 'eu-west1', query: 'SELECT 1' } })
        );
        await t.step('tools/call region non-ascii', 'tools/call', () =>
            t.client.callTool({ name: 'region', arguments: { region: 'köln', query: 'q' } })
        );
        await t.step('tools/call linked', 'tools/call', () => t.client.callTool({ name: 'linked', arguments: {} }));
        await t.step('tools/call fail', 'tools/call', () =>
            t.client.callTool({ name: 'fail', arguments: { code: -32001, message: 'peer failure' } })
        );
        await t.step('prompts/get greet', 'prompts/get', () => t.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }));
        await t.step('prompts/get linked', 'prompts/get', () => t.client.getPrompt({ name: 'linked', arguments: {} }));
        await t.step('resources/read readme', 'resources/read', () => t.client.readResource({ uri: 'peer://static/readme' }));
        await t.step('resources/read color', 'resources/read', () => t.client.readResource({ uri: 'peer://colors/blue' }));
        await t.step('resources/read unknown', 'resources/read', () => t.client.readResource({ uri: 'peer://nope' }));
        await t.step('completion/complete prompt', 'completion/complete', () =>
            t.client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } })
        );
        await t.step('completion/complete template', 'completion/complete', () =>
            t.client.complete({ ref: { type: 'ref/resource', uri: 'peer://colors/{color}' }, argument: { name: 'color', value: 'g' } })
        );
        await t.step('tools/call slow', 'tools/call', () =>
            t.client.request(
                { method: 'tools/call', params: { name: 'slow', arguments: { seconds: 0.3, steps: 3 }, _meta: { progressToken: 0 } } },
                CallToolResultSchema,
                { timeout: STEP_TIMEOUT_MS }
            )
        );
        const controller = new AbortController();
        await t.step('tools/call wait', 'tools/call', () =>
            t.client.callTool({ name: 'wait', arguments: { key: 'k1' } }, undefined, {
                signal: controller.signal,
                onprogress: () => controller.abort('the test cancels'),
                timeout: STEP_TIMEOUT_MS
            })
        );
        await t.step('tools/call was_cancelled', 'tools/call', () => t.client.callTool({ name: 'was_cancelled', arguments: { key: 'k1' } }));
        t.answers.elicitation = { action: 'accept', content: { name: 'Ada' } };
        await t.step('tools/call register', 'tools/call', () => t.client.callTool({ name: 'register', arguments: {} }));
        const before = count('notifications/tools/list_changed');
        await t.step('tools/call add_tool', 'tools/call', () => t.client.callTool({ name: 'add_tool', arguments: { name: 'extra' } }));
        // On a URL, the list change comes on the listen stream: it can come after the result.
        await seen(() => count('notifications/tools/list_changed') > before);
        await t.step('tools/list after add_tool', 'tools/list', () => t.client.listTools());
        await t.step('tools/call extra', 'tools/call', () => t.client.callTool({ name: 'extra', arguments: {} }));
        await t.step('resources/subscribe', 'resources/subscribe', () => t.client.subscribeResource({ uri: 'live://counter' }));
        await t.step('tools/call touch', 'tools/call', () => t.client.callTool({ name: 'touch', arguments: { uri: 'live://counter' } }));
        await seen((m) => m.method === 'notifications/resources/updated');
        await t.step('logging/setLevel', 'logging/setLevel', () => t.client.setLoggingLevel('warning'));
        await t.step('tools/call chatty', 'tools/call', () => t.client.callTool({ name: 'chatty', arguments: {} }));
        await t.step('resources/unsubscribe', 'resources/unsubscribe', () => t.client.unsubscribeResource({ uri: 'live://counter' }));
    },

    /** Cancel a slow call after its first progress; then the bridge still serves. */
    cancel: async (t) => {
        const controller = new AbortController();
        await t.step('slow cancelled', 'tools/call', () =>
            t.client.callTool({ name: 'slow', arguments: { seconds: 30, steps: 30 } }, undefined, {
                signal: controller.signal,
                onprogress: () => controller.abort('the test cancels'),
                timeout: STEP_TIMEOUT_MS
            })
        );
        // A canceled request gets no response: wait a little for a wrong one
        // (it would be in "received").
        await new Promise((resolve) => setTimeout(resolve, 500));
        await t.step('tools/call echo', 'tools/call', () => t.client.callTool({ name: 'echo', arguments: { text: 'still here' } }));
    }
};

async function main() {
    const argv = process.argv.slice(2);
    const dash = argv.indexOf('--');
    if (dash < 0 || dash === argv.length - 1) usage('missing -- <command>');
    const own = argv.slice(0, dash);
    const [command, ...args] = argv.slice(dash + 1);
    const scenarioName = own[0];
    let timeoutMs = 60_000;
    for (let i = 1; i < own.length; i++) {
        if (own[i] === '--timeout-ms' && own[i + 1]) timeoutMs = Number(own[++i]);
        else usage(`unknown option ${own[i]}`);
    }
    const scenario = SCENARIOS[scenarioName];
    if (!scenario) usage(`unknown scenario ${scenarioName}; known: ${Object.keys(SCENARIOS).join(', ')}`);

    const out = {
        scenario: scenarioName,
        initialize: null,
        steps: {},
        notifications: [],
        clientRequests: [],
        received: [],
        sent: [],
        bridgeExit: null,
        driverError: null
    };

    const transport = new RecordingTransport(
        new StdioClientTransport({ command, args, env: { ...process.env }, stderr: 'inherit' })
    );
    // VS Code declares these capabilities (1.107); the handlers answer as a user who declines.
    const client = new Client(
        { name: 'peer-client-sdk1', version: '1.32.2' },
        { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } } }
    );
    const t = {
        client,
        transport,
        answers: { elicitation: { action: 'decline' }, roots: { roots: [] } },
        async step(name, method, fn) {
            const from = transport.sent.length;
            try {
                const result = await fn();
                const raw = transport.responseTo(method, from);
                out.steps[name] = { ok: true, answered: raw !== null, result, wire: raw?.result ?? null };
            } catch (error) {
                const raw = transport.responseTo(method, from);
                out.steps[name] = {
                    ok: false,
                    answered: raw !== null,
                    error: errorObject(raw, error),
                    sdkError: String(error?.message ?? error),
                    wire: raw?.result ?? null
                };
            }
        }
    };
    client.setRequestHandler(ElicitRequestSchema, async () => t.answers.elicitation);
    client.setRequestHandler(ListRootsRequestSchema, async () => t.answers.roots);
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
        // VS Code refuses a sampling request it cannot serve with -32000.
        throw new McpError(-32000, 'The client refuses sampling in this scenario.');
    });
    client.fallbackNotificationHandler = async () => {};

    const watchdog = setTimeout(() => {
        out.driverError = `the scenario did not end in ${timeoutMs} ms`;
        void finish(out, transport);
    }, timeoutMs);

    try {
        await client.connect(transport, { timeout: STEP_TIMEOUT_MS });
        const raw = transport.received.find((m) => m.id === transport.sent.find((s) => s.method === 'initialize')?.id);
        out.initialize = {
            ok: true,
            protocolVersion: raw?.result?.protocolVersion ?? null,
            serverVersion: client.getServerVersion() ?? null,
            serverCapabilities: client.getServerCapabilities() ?? null,
            instructions: client.getInstructions() ?? null,
            wire: raw?.result ?? null
        };
    } catch (error) {
        const request = transport.sent.find((s) => s.method === 'initialize');
        const raw = request ? transport.received.find((m) => m.id === request.id) : undefined;
        out.initialize = { ok: false, error: errorObject(raw, error), sdkError: String(error?.message ?? error) };
    }
    if (out.initialize.ok) {
        try {
            await scenario(t);
        } catch (error) {
            out.driverError = `the scenario threw: ${error?.stack ?? error}`;
        }
    }
    clearTimeout(watchdog);
    await finish(out, transport, client);
}

async function finish(out, transport, client) {
    // The end of stdin, as VS Code closes a server. The SDK's close() sends
    // SIGTERM 2 s after it; a loaded machine can need more for the bridge to stop
    // its upstream, and the exit status is part of the result: wait up to 15 s.
    const child = transport.inner._process;
    if (child && child.exitCode === null && child.signalCode === null) {
        try {
            child.stdin?.end();
        } catch {
            // Already closed.
        }
        await Promise.race([transport.exited, new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
    }
    if (transport.exit === null) {
        try {
            await (client ? client.close() : transport.close());
        } catch {
            // The bridge may already be gone; its exit status says so.
        }
        await Promise.race([transport.exited, new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    }
    out.bridgeExit = transport.exit;
    out.received = transport.received;
    out.sent = transport.sent;
    out.notifications = transport.received.filter((m) => m.method !== undefined && m.id === undefined);
    out.clientRequests = transport.received.filter((m) => m.method !== undefined && m.id !== undefined);
    process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
}

main().catch((error) => {
    process.stderr.write(`client.mjs: ${error?.stack ?? error}\n`);
    process.stdout.write(JSON.stringify({ driverError: String(error?.stack ?? error) }) + '\n');
    process.exit(0);
});
