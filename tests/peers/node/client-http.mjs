#!/usr/bin/env node
// A client of the HTTP face of mcp-bridge (`mcp-bridge-vscode --listen`): npm
// `@modelcontextprotocol/sdk@1.32.2` Client over StreamableHTTPClientTransport (/mcp)
// or SSEClientTransport (/sse, HTTP+SSE), as a client that cannot start a process
// uses the bridge. The process tests of the face use it
// (crates/mcp-bridge-vscode/tests/it/face_peers.rs).
//
//     node tests/peers/node/client-http.mjs <url> <streamable|sse> <scenario>
//          [--timeout-ms N] [--name NAME] [--pair DIR:ME:OTHER] [--protocol-version V]
//
// It declares elicitation (form), sampling and roots, with handlers that answer
// every question the same way: a form with {"action": "accept", "content": {"name": NAME}}
// (NAME is --name, "Ada" by default), sampling with the text "hi from the model"
// (model "test-model"), roots with one root file:///work/project ("project"). It runs
// the scenario, ends the session (streamable: DELETE, then close; sse: the close of
// its stream), and prints ONE JSON document on stdout:
//
//   {
//     "transport": "streamable" | "sse",
//     "scenario": "<scenario>",
//     "sessionId": <the Mcp-Session-Id of /mcp, or the sessionId of the endpoint of /sse> | null,
//     "initialize": {"ok": true, "protocolVersion", "serverVersion", "serverCapabilities",
//                    "instructions", "wire": <the raw initialize result>}
//                 | {"ok": false, "error": {code, message, data}, "sdkError": "..."},
//     "steps": {"<step name>": {"ok": true, "answered": true, "result": <as the SDK parsed it>,
//                               "wire": <raw result>, <progress>}
//                            | {"ok": false, "answered": <did the bridge send a response>,
//                               "error": {code, message, data}, "sdkError": "...",
//                               "wire": <raw result when the SDK refused one, else null>, <progress>}},
//         <progress> is "progress": [<params of each raw notifications/progress with the step's
//         token that came before its response, without the token, in order>],
//         "progressAfterResponse": [<the same, after the response>], and "onprogress": [<what the
//         SDK's onprogress handler got>]. The SDK 1.x runs a notification handler a microtask
//         after the message and a response at once, so it drops a progress that comes in the
//         same chunk as the response (HTTP+SSE): "onprogress" can miss the last ones.
//     "questions": [{"method", "params"}, ...],    the requests the handlers answered, in order
//     "notifications": [<every notification from the bridge, raw, in order>],
//     "received": [<every message from the bridge, raw, in order>],
//     "sent": [<every message of the client to the bridge, in order>],
//     "http": [{"method", "path", "status", "contentType"}, ...],  every HTTP exchange, in the
//                 order of their answers (path without the query; contentType without
//                 parameters, or null)
//     "ended": {"ok": true} | {"ok": false, "error": "..."},  the end of the session (DELETE on /mcp)
//     "transportErrors": ["...", ...],              what the transport reported through onerror
//     "afterEnd": {"http": [...], "errors": [...]},  the exchanges (but the DELETE) and the errors
//                 once the end of the session began: the face closes the session's GET stream
//                 before it answers the DELETE, and the SDK opens it again after 1 s (a 404)
//                 when the DELETE takes that long
//     "driverError": null | "<text>"
//   }
//
// "wire" is the exact JSON the bridge wrote for the request of the step; "result" shows that
// the SDK accepted it. An error is the bridge's raw error object when it sent one. The SDK
// 1.x refuses a CallToolResult whose structuredContent is not an object: no scenario calls
// such a tool. Each step that causes a notification waits for it, at most 5 s, then goes on
// (the document shows what came). A watchdog (--timeout-ms, 60 s by default) prints the
// document with driverError and exits. The exit code is 0 when the document was printed,
// also when a step failed; 2 for bad arguments.
//
// --pair DIR:ME:OTHER runs two clients at once on one face: after initialize this one
// writes DIR/ME.ready and waits (at most 20 s) for DIR/OTHER.ready; after its scenario it
// writes DIR/ME.done and waits for DIR/OTHER.done before it ends its session. So both
// sessions are open during both scenarios.
//
// --protocol-version V makes the client one of an older revision: its initialize asks for V
// (the SDK asks for its latest, 2025-11-25, and takes any revision it supports).
//
// Scenarios: see SCENARIOS below; the names of the steps are keys of "steps": keep them
// stable, the tests read them.

import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ListRootsRequestSchema,
    McpError
} from '@modelcontextprotocol/sdk/types.js';

const STEP_TIMEOUT_MS = 20_000;
const NOTIFICATION_WAIT_MS = 5000;
const PAIR_WAIT_MS = 20_000;

function usage(text) {
    process.stderr.write(
        `client-http.mjs: ${text}\n` +
            'usage: node client-http.mjs <url> <streamable|sse> <scenario> [--timeout-ms N] [--name NAME]' +
            ' [--pair DIR:ME:OTHER] [--protocol-version V]\n'
    );
    process.exit(2);
}

/** Wraps an HTTP client transport to record every message in both directions. */
class RecordingTransport {
    constructor(inner) {
        this.inner = inner;
        this.sent = [];
        this.received = [];
        this.errors = [];
        this.ending = false;
        this.endErrors = [];
        inner.onmessage = (message, extra) => {
            this.received.push(message);
            this.onmessage?.(message, extra);
        };
        inner.onclose = () => this.onclose?.();
        inner.onerror = (error) => {
            (this.ending ? this.endErrors : this.errors).push(String(error?.message ?? error));
            this.onerror?.(error);
        };
    }
    async start() {
        await this.inner.start();
    }
    async send(message, options) {
        // --protocol-version: the revision an older client asks for (the SDK asks its latest).
        if (this.revision && message.method === 'initialize') {
            message = { ...message, params: { ...message.params, protocolVersion: this.revision } };
        }
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
    /** The last request of `method` sent at or after index `from` that `match` takes. */
    requestOf(method, from, match = () => true) {
        return this.sent.slice(from).filter((m) => m.method === method && m.id !== undefined && match(m)).at(-1) ?? null;
    }
    /** The raw response to that request. */
    responseTo(method, from, match) {
        const request = this.requestOf(method, from, match);
        if (!request) return null;
        return this.received.find((m) => m.id === request.id && (m.result !== undefined || m.error !== undefined)) ?? null;
    }
    /**
     * The params (without the token) of the raw progress notifications of that request: those
     * before its response, and those after it.
     */
    progressOf(method, from, match) {
        const token = this.requestOf(method, from, match)?.params?._meta?.progressToken;
        const response = this.responseTo(method, from, match);
        const out = { before: [], after: [] };
        if (token === undefined) return out;
        let answered = false;
        for (const m of this.received) {
            if (m === response) answered = true;
            if (m.method === 'notifications/progress' && m.params?.progressToken === token) {
                const { progressToken: _, ...params } = m.params;
                (answered ? out.after : out.before).push(params);
            }
        }
        return out;
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

/** Resolves when `predicate` holds for a received message, or after NOTIFICATION_WAIT_MS. */
function seen(t, predicate) {
    return new Promise((resolve) => {
        const deadline = Date.now() + NOTIFICATION_WAIT_MS;
        const poll = () => {
            if (t.transport.received.some(predicate) || Date.now() > deadline) resolve();
            else setTimeout(poll, 20);
        };
        poll();
    });
}

const count = (t, method) => t.transport.received.filter((m) => m.method === method).length;

/** Waits for `wanted` notifications of `method` in all, at most NOTIFICATION_WAIT_MS. */
function counted(t, method, wanted) {
    return new Promise((resolve) => {
        const deadline = Date.now() + NOTIFICATION_WAIT_MS;
        const poll = () => {
            if (count(t, method) >= wanted || Date.now() > deadline) resolve();
            else setTimeout(poll, 20);
        };
        poll();
    });
}

/** A tools/call with an onprogress handler (the SDK sends a progressToken). */
function callWithProgress(t, name, args) {
    return (onprogress) =>
        t.client.callTool({ name, arguments: args }, undefined, {
            onprogress: (p) => onprogress.push(p),
            timeout: STEP_TIMEOUT_MS
        });
}

/** add_tool, then the list change it causes, the new list and the new tool. */
async function addTool(t, args, extraName) {
    const before = count(t, 'notifications/tools/list_changed');
    await t.step('tools/call add_tool', 'tools/call', () => t.client.callTool({ name: 'add_tool', arguments: args }));
    await counted(t, 'notifications/tools/list_changed', before + 1);
    await t.step('tools/list after add_tool', 'tools/list', () => t.client.listTools());
    await t.step(`tools/call ${extraName}`, 'tools/call', () => t.client.callTool({ name: extraName, arguments: {} }));
}

/** A subscription, the update that touch causes, and the end of the subscription. */
async function subscription(t) {
    await t.step('resources/subscribe', 'resources/subscribe', () => t.client.subscribeResource({ uri: 'live://counter' }));
    await t.step('tools/call touch', 'tools/call', () => t.client.callTool({ name: 'touch', arguments: { uri: 'live://counter' } }));
    await seen(t, (m) => m.method === 'notifications/resources/updated');
    await t.step('resources/unsubscribe', 'resources/unsubscribe', () => t.client.unsubscribeResource({ uri: 'live://counter' }));
}

/** The questions of tests/peers/python/input_server.py and input-server-v2.mjs: each tool listed. */
async function inputTools(t) {
    await t.step('tools/list', 'tools/list', () => t.client.listTools());
    const listed = (t.steps['tools/list']?.result?.tools ?? []).map((tool) => tool.name);
    for (const name of ['register', 'summarize', 'roots']) {
        if (listed.includes(name)) {
            await t.step(`tools/call ${name}`, 'tools/call', () => t.client.callTool({ name, arguments: {} }));
        }
    }
}

const SCENARIOS = {
    /** Only initialize (and the end of the session). */
    initialize: async () => {},

    /**
     * The bundled demo server (`mcp-bridge-vscode demo-server`): the list, a structured
     * result, progress, a form, and a list change. Not list_primes (an array structuredContent).
     */
    demo: async (t) => {
        // The list change after the first acknowledgment of the listen stream.
        await counted(t, 'notifications/tools/list_changed', 1);
        await t.step('tools/list', 'tools/list', () => t.client.listTools());
        await t.step('tools/call add', 'tools/call', () => t.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
        await t.step('tools/call slow_count', 'tools/call', callWithProgress(t, 'slow_count', { steps: 3, delay_ms: 20 }));
        await t.step('tools/call ask_name', 'tools/call', () => t.client.callTool({ name: 'ask_name', arguments: {} }));
        await addTool(t, {}, 'extra');
        await t.step('ping', 'ping', () => t.client.ping());
    },

    /**
     * The demo server, four requests at once: two slow_count with progress, ask_name with its
     * form, and add. Each step's request is the tools/call with its own arguments.
     */
    concurrent: async (t) => {
        await counted(t, 'notifications/tools/list_changed', 1);
        const call = (stepName, name, args) =>
            t.step(stepName, 'tools/call', callWithProgress(t, name, args), (m) =>
                m.params?.name === name && JSON.stringify(m.params?.arguments) === JSON.stringify(args)
            );
        await Promise.all([
            call('tools/call slow_count a', 'slow_count', { steps: 3, delay_ms: 40 }),
            call('tools/call slow_count b', 'slow_count', { steps: 4, delay_ms: 30 }),
            call('tools/call ask_name', 'ask_name', {}),
            call('tools/call add', 'add', { a: 2, b: 3 })
        ]);
    },

    /** tests/peers/python/server.py and tests/peers/node/server-v2.mjs (not squares). */
    basic: async (t) => {
        // The three list changes after the first acknowledgment of the listen stream.
        await counted(t, 'notifications/resources/list_changed', 1);
        await t.step('tools/list', 'tools/list', () => t.client.listTools());
        await t.step('tools/call echo', 'tools/call', () => t.client.callTool({ name: 'echo', arguments: { text: 'hello face' } }));
        await t.step('tools/call add', 'tools/call', () => t.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
        await t.step('tools/call slow', 'tools/call', callWithProgress(t, 'slow', { seconds: 0.2, steps: 3 }));
        await t.step('tools/call fail', 'tools/call', () =>
            t.client.callTool({ name: 'fail', arguments: { code: -32001, message: 'peer failure' } })
        );
        await t.step('prompts/get greet', 'prompts/get', () => t.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }));
        await t.step('resources/read readme', 'resources/read', () => t.client.readResource({ uri: 'peer://static/readme' }));
        await t.step('completion/complete prompt', 'completion/complete', () =>
            t.client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } })
        );
        await t.step('ping', 'ping', () => t.client.ping());
    },

    /** tests/peers/python/input_server.py and input-server-v2.mjs: the tools that ask. */
    input: async (t) => {
        // Each input peer declares tools.listChanged: its list change after the first acknowledgment.
        await counted(t, 'notifications/tools/list_changed', 1);
        await inputTools(t);
    },

    /** tests/peers/python/live_server.py: a list change, an update, log messages. */
    live: async (t) => {
        await counted(t, 'notifications/resources/list_changed', 1);
        await addTool(t, { name: 'extra' }, 'extra');
        await t.step('logging/setLevel', 'logging/setLevel', () => t.client.setLoggingLevel('warning'));
        await t.step('tools/call chatty', 'tools/call', () => t.client.callTool({ name: 'chatty', arguments: {} }));
        await subscription(t);
    },

    /**
     * tests/peers/python/http_server.py (the face with a URL upstream): progress, a cancel the
     * server reports, a form, a list change, a resource update.
     */
    http: async (t) => {
        await counted(t, 'notifications/resources/list_changed', 1);
        await t.step('tools/call add', 'tools/call', () => t.client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
        await t.step('tools/call slow', 'tools/call', callWithProgress(t, 'slow', { seconds: 0.2, steps: 3 }));
        // A cancel: the SDK sends notifications/cancelled at the first progress of wait; the
        // server records the cancellation, which was_cancelled reports.
        const controller = new AbortController();
        await t.step('tools/call wait', 'tools/call', () =>
            t.client.callTool({ name: 'wait', arguments: { key: 'k1' } }, undefined, {
                signal: controller.signal,
                onprogress: () => controller.abort('the test cancels'),
                timeout: STEP_TIMEOUT_MS
            })
        );
        await t.step('tools/call was_cancelled', 'tools/call', () => t.client.callTool({ name: 'was_cancelled', arguments: { key: 'k1' } }));
        await t.step('tools/call register', 'tools/call', () => t.client.callTool({ name: 'register', arguments: {} }));
        await addTool(t, { name: 'extra' }, 'extra');
        await subscription(t);
    }
};

/** Waits for a file, at most PAIR_WAIT_MS; false when it did not come. */
function fileCame(path) {
    return new Promise((resolve) => {
        const deadline = Date.now() + PAIR_WAIT_MS;
        const poll = () => {
            if (existsSync(path)) resolve(true);
            else if (Date.now() > deadline) resolve(false);
            else setTimeout(poll, 20);
        };
        poll();
    });
}

async function meet(pair, stage) {
    if (!pair) return;
    writeFileSync(join(pair.dir, `${pair.me}.${stage}`), '');
    if (!(await fileCame(join(pair.dir, `${pair.other}.${stage}`)))) {
        throw new Error(`the other client did not reach ${stage} in ${PAIR_WAIT_MS} ms`);
    }
}

async function main() {
    const [url, kind, scenarioName, ...own] = process.argv.slice(2);
    if (!url || !kind || !scenarioName) usage('missing arguments');
    if (kind !== 'streamable' && kind !== 'sse') usage(`unknown transport ${kind}`);
    const scenario = SCENARIOS[scenarioName];
    if (!scenario) usage(`unknown scenario ${scenarioName}; known: ${Object.keys(SCENARIOS).join(', ')}`);
    let timeoutMs = 60_000;
    let name = 'Ada';
    let pair = null;
    let revision = null;
    for (let i = 0; i < own.length; i++) {
        if (own[i] === '--timeout-ms' && own[i + 1]) timeoutMs = Number(own[++i]);
        else if (own[i] === '--name' && own[i + 1]) name = own[++i];
        else if (own[i] === '--protocol-version' && own[i + 1]) revision = own[++i];
        else if (own[i] === '--pair' && own[i + 1]) {
            // The last two fields: DIR may hold a colon.
            const parts = own[++i].split(':');
            const other = parts.pop();
            const me = parts.pop();
            const dir = parts.join(':');
            if (!dir || !me || !other) usage('--pair takes DIR:ME:OTHER');
            pair = { dir, me, other };
        } else usage(`unknown option ${own[i]}`);
    }

    const out = {
        transport: kind,
        scenario: scenarioName,
        sessionId: null,
        initialize: null,
        steps: {},
        questions: [],
        notifications: [],
        received: [],
        sent: [],
        http: [],
        ended: null,
        transportErrors: [],
        afterEnd: { http: [], errors: [] },
        driverError: null
    };

    // Every HTTP exchange of the transport, in the order of their answers; the POSTs not
    // yet answered, so that the end of the session waits for them (the answer of /sse
    // comes on its stream, possibly before the 202 of its POST).
    const posts = new Set();
    const recordingFetch = async (input, init) => {
        const answered = fetch(input, init);
        if (init?.method === 'POST') {
            const settled = answered.then(
                () => posts.delete(settled),
                () => posts.delete(settled)
            );
            posts.add(settled);
        }
        const response = await answered;
        const target = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
        const type = response.headers.get('content-type');
        const method = init?.method ?? 'GET';
        (transport.ending && method !== 'DELETE' ? out.afterEnd.http : out.http).push({
            method,
            path: target.pathname,
            status: response.status,
            contentType: type === null ? null : type.split(';')[0].trim()
        });
        return response;
    };
    const inner =
        kind === 'streamable'
            ? new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch })
            : new SSEClientTransport(new URL(url), { fetch: recordingFetch });
    const transport = new RecordingTransport(inner);
    transport.revision = revision;
    const client = new Client(
        { name: 'peer-client-http', version: '1.32.2' },
        { capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } } }
    );
    const t = {
        client,
        transport,
        steps: out.steps,
        /** A step; `match` picks its request among those of `method` (for steps at once). */
        async step(stepName, method, fn, match) {
            const from = transport.sent.length;
            const onprogress = [];
            let taken;
            try {
                const result = await fn(onprogress);
                const raw = transport.responseTo(method, from, match);
                taken = { ok: true, answered: raw !== null, result, wire: raw?.result ?? null };
            } catch (error) {
                const raw = transport.responseTo(method, from, match);
                taken = {
                    ok: false,
                    answered: raw !== null,
                    error: errorObject(raw, error),
                    sdkError: String(error?.message ?? error),
                    wire: raw?.result ?? null
                };
            }
            const progress = transport.progressOf(method, from, match);
            out.steps[stepName] = { ...taken, progress: progress.before, progressAfterResponse: progress.after, onprogress };
        }
    };
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
        out.questions.push({ method: request.method, params: request.params });
        return { action: 'accept', content: { name } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        out.questions.push({ method: request.method, params: request.params });
        return { role: 'assistant', content: { type: 'text', text: 'hi from the model' }, model: 'test-model', stopReason: 'endTurn' };
    });
    client.setRequestHandler(ListRootsRequestSchema, async (request) => {
        out.questions.push({ method: request.method, params: request.params });
        return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
    });
    client.fallbackNotificationHandler = async () => {};

    let finished = false;
    const finish = async () => {
        if (finished) return;
        finished = true;
        out.received = transport.received;
        out.sent = transport.sent;
        out.notifications = transport.received.filter((m) => m.method !== undefined && m.id === undefined);
        out.transportErrors = transport.errors;
        out.afterEnd.errors = transport.endErrors;
        process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(0));
    };
    const watchdog = setTimeout(() => {
        out.driverError = `the scenario did not end in ${timeoutMs} ms`;
        void finish();
    }, timeoutMs);

    try {
        await client.connect(transport, { timeout: STEP_TIMEOUT_MS });
        const request = transport.sent.find((s) => s.method === 'initialize');
        const raw = transport.received.find((m) => m.id === request?.id);
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
    out.sessionId =
        kind === 'streamable' ? (inner.sessionId ?? null) : (inner._endpoint?.searchParams.get('sessionId') ?? null);
    if (out.initialize.ok) {
        try {
            await meet(pair, 'ready');
            await scenario(t);
            await meet(pair, 'done');
        } catch (error) {
            out.driverError = `the scenario threw: ${error?.stack ?? error}`;
        }
    }
    await Promise.race([Promise.allSettled([...posts]), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
    transport.ending = true;
    try {
        if (kind === 'streamable' && inner.sessionId !== undefined) await inner.terminateSession();
        await client.close();
        out.ended = { ok: true };
    } catch (error) {
        out.ended = { ok: false, error: String(error?.message ?? error) };
    }
    clearTimeout(watchdog);
    await finish();
}

main().catch((error) => {
    process.stderr.write(`client-http.mjs: ${error?.stack ?? error}\n`);
    process.stdout.write(JSON.stringify({ driverError: String(error?.stack ?? error) }) + '\n');
    process.exit(0);
});
