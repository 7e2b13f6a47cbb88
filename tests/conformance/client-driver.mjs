#!/usr/bin/env node
// The client under test of the client face of the conformance run
// (scripts/conformance): the suite's client mode runs
//
//     <node> tests/conformance/client-driver.mjs <scenario URL>
//
// against each of its mock 2026-07-28 servers, with MCP_CONFORMANCE_SCENARIO
// (and, for some scenarios, MCP_CONFORMANCE_CONTEXT) in the environment. This
// driver starts `$MCP_BRIDGE_BIN <scenario URL>` (the real mcp-bridge-vscode,
// whose upstream is then the mock server over Streamable HTTP) and, through the
// bridge's stdio side, with the 2025-11-25 client of npm
// @modelcontextprotocol/sdk 1.32.2 (VS Code's stand-in), does what the scenario
// asks: initialize, list, call the tools with the arguments the scenario names,
// answer the bridge's questions. The bridge is the client the suite checks;
// this driver only plays VS Code.
//
// The client declares what VS Code declares: sampling, elicitation (form and
// url) and roots. Its answers:
//   elicitation/create (form)  accept, with a value for each property of the
//                              requestedSchema (its default, else the first choice,
//                              else a value of its type)
//   elicitation/create (url)   accept, and fetch the URL headlessly (below)
//   sampling/createMessage     a text answer of the assistant
//   roots/list                 no roots
//
// Sign-in (the auth/* scenarios): the bridge runs with --no-browser and a token
// store of its own (XDG_CONFIG_HOME in a new temporary folder, removed at the
// end), so each scenario starts signed out and nothing reaches the user's
// store. A sign-in URL, from the sign-in line on the bridge's stderr
// (`sign-in: open http://127.0.0.1:<port>/start/...`) or from a URL
// elicitation, is fetched as a browser would open it, without one: GET, and
// follow each redirect by hand while it stays on a loopback host (localhost,
// 127.0.0.0/8, [::1]) over http or https; a redirect anywhere else stops the
// walk. The suite's authorization servers and the bridge's redirect listener
// are all on loopback. As the suite's own example client does, the bridge gets
// the client ID metadata document URL of the suite (--client-metadata-url), and
// for auth/pre-registration the client ID of MCP_CONFORMANCE_CONTEXT with the
// issuer that the server's protected resource metadata names, and its secret
// through --client-secret-env.
//
// Environment: MCP_BRIDGE_BIN (required), MCP_BRIDGE_DRIVER_REPORT (optional: a
// file that gets {scenario, ok, error, steps, bridgeExit} as JSON; bridgeExit is
// {code, signal, ms}: how the bridge ended after the end of its input), MCP_BRIDGE_DRIVER_TIMEOUT_MS
// (the watchdog, 25000 by default: below the suite's 30 s per scenario).
// The bridge's stderr is copied to this process's stderr (the suite keeps it in
// stderr.txt). Exit 0 when every step of the scenario was answered as expected,
// 1 otherwise.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
    CreateMessageRequestSchema,
    ElicitRequestSchema,
    ListRootsRequestSchema
} from '@modelcontextprotocol/sdk/types.js';

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const bridge = process.env.MCP_BRIDGE_BIN;
const reportPath = process.env.MCP_BRIDGE_DRIVER_REPORT;
const watchdogMs = Number(process.env.MCP_BRIDGE_DRIVER_TIMEOUT_MS ?? 25_000);
const context = (() => {
    try {
        return JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
    } catch {
        return {};
    }
})();

const steps = [];
function log(text) {
    process.stderr.write(`client-driver: ${text}\n`);
}
function step(name, detail) {
    steps.push(detail === undefined ? name : `${name}: ${detail}`);
    log(detail === undefined ? name : `${name}: ${detail}`);
}

let finished = false;
let transport;
let bridgeExit = null;
let bridgeChild = null; // the bridge's process: the SDK forgets it when it closes
let store = null;
async function finish(ok, error) {
    if (finished) return;
    finished = true;
    if (error) log(`error: ${error}`);
    // The end of the bridge's stdin ends the bridge (exit 0); the SDK sends
    // SIGTERM when it has not exited 2 s later. How it ended goes to the report.
    const child = bridgeChild;
    const exited = !child
        ? null
        : child.exitCode !== null || child.signalCode !== null
          ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
          : new Promise((resolve) => {
                child.once('exit', (code, signal) => resolve({ code, signal }));
                setTimeout(() => {
                    // The SDK gives up after SIGKILL; this process exits next.
                    child.kill('SIGKILL');
                    resolve({ code: null, signal: null, stillRunning: true });
                }, 6_000).unref();
            });
    const closing = Date.now();
    try {
        await transport?.close();
    } catch {
        // closing is best effort: the process exits next
    }
    if (exited) {
        bridgeExit = { ...(await exited), ms: Date.now() - closing };
        log(`the bridge ended ${JSON.stringify(bridgeExit)} after the end of its input`);
    }
    if (store) rmSync(store, { recursive: true, force: true });
    if (reportPath) {
        try {
            writeFileSync(reportPath, JSON.stringify({ scenario, ok, error: error ?? null, steps, bridgeExit }, null, 2));
        } catch (e) {
            log(`cannot write the report ${reportPath}: ${e.message}`);
        }
    }
    process.exit(ok ? 0 : 1);
}

if (!url || !bridge) {
    log('usage: MCP_BRIDGE_BIN=<mcp-bridge-vscode> node client-driver.mjs <server URL>');
    process.exit(2);
}
setTimeout(() => finish(false, `the scenario did not end in ${watchdogMs} ms`), watchdogMs).unref();

// --- sign-in URLs, fetched headlessly ---------------------------------------

function isLoopback(u) {
    const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** GETs `start` and follows its redirects while they stay on loopback hosts. */
async function fetchSignIn(start) {
    let target = new URL(start);
    for (let hop = 0; hop < 10; hop++) {
        if (!['http:', 'https:'].includes(target.protocol) || !isLoopback(target)) {
            step('sign-in', `stopped before a URL that is not on a loopback host: ${target.origin}`);
            return;
        }
        const response = await fetch(target, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
        const location = response.headers.get('location');
        await response.arrayBuffer().catch(() => undefined);
        if (response.status >= 300 && response.status < 400 && location) {
            target = new URL(location, target);
            continue;
        }
        step('sign-in', `${target.origin}${target.pathname} answered ${response.status} after ${hop} redirect(s)`);
        return;
    }
    step('sign-in', 'more than 10 redirects');
}

const fetched = new Set();
function signIn(link) {
    if (fetched.has(link)) return;
    fetched.add(link);
    fetchSignIn(link).catch((e) => step('sign-in', `failed: ${e.message}`));
}

// --- the client (VS Code's stand-in) ----------------------------------------

/** A value for one property of a form schema, as a user who accepts would give. */
function valueFor(schema) {
    if (schema === null || typeof schema !== 'object') return 'test';
    if ('default' in schema) return schema.default;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
    const titled = schema.oneOf ?? schema.anyOf;
    if (Array.isArray(titled) && titled.length > 0 && 'const' in titled[0]) return titled[0].const;
    switch (schema.type) {
        case 'boolean':
            return true;
        case 'integer':
            return Math.max(1, schema.minimum ?? 1);
        case 'number':
            return Math.max(1, schema.minimum ?? 1);
        case 'array': {
            const one = valueFor(schema.items ?? {});
            return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => one);
        }
        default:
            return schema.format === 'email' ? 'test@example.com' : 'test';
    }
}

function formAnswer(requestedSchema) {
    const content = {};
    for (const [name, property] of Object.entries(requestedSchema?.properties ?? {})) {
        content[name] = valueFor(property);
    }
    return content;
}

/** Arguments for a tool from its inputSchema: each required property. */
function argumentsFor(inputSchema) {
    const args = {};
    for (const name of inputSchema?.required ?? []) {
        args[name] = valueFor(inputSchema.properties?.[name] ?? {});
    }
    return args;
}

// A scenario can look at a question before it is answered (see the MRTR one).
let beforeAnswer = async () => {};

const client = new Client(
    { name: 'mcp-bridge-conformance-driver', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } } }
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params;
    await beforeAnswer(request);
    if (params.mode === 'url') {
        step('elicitation/create (url)', 'accept');
        signIn(params.url);
        return { action: 'accept' };
    }
    const content = formAnswer(params.requestedSchema);
    step('elicitation/create (form)', `accept ${JSON.stringify(content)}`);
    return { action: 'accept', content };
});
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    await beforeAnswer(request);
    step('sampling/createMessage', 'answered');
    return {
        role: 'assistant',
        content: { type: 'text', text: 'This is a test response from the client' },
        model: 'test-model',
        stopReason: 'endTurn'
    };
});
client.setRequestHandler(ListRootsRequestSchema, async () => {
    step('roots/list', 'no roots');
    return { roots: [] };
});

async function listTools() {
    const { tools } = await client.listTools();
    step('tools/list', tools.map((t) => t.name).join(', ') || '(none)');
    return tools;
}

async function callTool(name, args) {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content ?? []).find((c) => c.type === 'text')?.text;
    step(`tools/call ${name}`, `${result.isError ? 'isError ' : ''}${text ?? '(no text)'}`);
    return result;
}

// --- the scenarios -----------------------------------------------------------

const SCENARIOS = {
    // The suite's mock serves add_numbers {a, b}.
    async tools_call() {
        const tools = await listTools();
        if (tools.length === 0) throw new Error('the bridge listed no tools');
        await callTool(tools[0].name, { a: 2, b: 3 });
    },

    // The checks are on the headers and the _meta of each request of the bridge.
    async 'request-metadata'() {
        await listTools();
    },

    // Each call of a tool of an MRTR flow becomes elicitation/create from the
    // bridge; the unrelated tool is called while the first question waits, so
    // it runs between the first round and the retry of the bridge.
    async 'sep-2322-client-request-state'() {
        await listTools();
        let unrelatedCalled = false;
        beforeAnswer = async (request) => {
            if (!unrelatedCalled && request.params?.message === 'Please confirm to continue') {
                unrelatedCalled = true;
                await callTool('test_mrtr_unrelated', {});
            }
        };
        await callTool('test_mrtr_echo_state', {});
        if (!unrelatedCalled) throw new Error('the bridge asked no question for test_mrtr_echo_state');
        await callTool('test_mrtr_no_state', {});
        await callTool('test_mrtr_no_result_type', {});
    },

    // Every request kind that carries Mcp-Method / Mcp-Name.
    async 'http-standard-headers'() {
        for (const tool of await listTools()) await callTool(tool.name, argumentsFor(tool.inputSchema));
        const { resources } = await client.listResources();
        step('resources/list', resources.map((r) => r.uri).join(', '));
        for (const resource of resources) {
            await client.readResource({ uri: resource.uri });
            step('resources/read', resource.uri);
        }
        const { prompts } = await client.listPrompts();
        step('prompts/list', prompts.map((p) => p.name).join(', '));
        for (const prompt of prompts) {
            await client.getPrompt({ name: prompt.name, arguments: {} });
            step('prompts/get', prompt.name);
        }
    },

    // The calls and their arguments come with the scenario (MCP_CONFORMANCE_CONTEXT).
    async 'http-custom-headers'() {
        await listTools();
        const calls = context.toolCalls ?? [];
        if (calls.length === 0) throw new Error('MCP_CONFORMANCE_CONTEXT has no toolCalls');
        for (const call of calls) await callTool(call.name, call.arguments ?? {});
    },

    // VS Code calls whatever tools/list shows: call each tool the bridge lists.
    // The bridge must have left out the tools with an invalid x-mcp-header.
    async 'http-invalid-tool-headers'() {
        for (const tool of await listTools()) {
            try {
                await callTool(tool.name, argumentsFor(tool.inputSchema));
            } catch (e) {
                step(`tools/call ${tool.name}`, `error ${e.message}`);
            }
        }
    },

    // The mock serves only tools/list; its tool has a network $ref that no one may fetch.
    async 'json-schema-ref-no-deref'() {
        await listTools();
    },

    // Echo the inputSchema the bridge listed, so the mock sees what reached the client.
    async 'json-schema-2020-12-preservation'() {
        const tools = await listTools();
        const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
        if (!focal) throw new Error('the bridge did not list json_schema_2020_12_tool');
        await callTool('json_schema_echo', { schema: focal.inputSchema });
    }
};

// auth/* and any other scenario: what the suite's example client does after its
// sign-in: list the tools and call test-tool.
async function signedInBasics() {
    await listTools();
    await callTool('test-tool', {});
}

// The client ID metadata document URL of the suite's example client.
const CIMD_CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/** The issuer of the first authorization server of the protected resource metadata of `url`. */
async function issuerOf(serverUrl) {
    const u = new URL(serverUrl);
    const path = u.pathname === '/' ? '' : u.pathname;
    for (const candidate of [`${u.origin}/.well-known/oauth-protected-resource${path}`, `${u.origin}/.well-known/oauth-protected-resource`]) {
        const response = await fetch(candidate, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
        if (response?.ok) {
            const issuer = (await response.json()).authorization_servers?.[0];
            if (issuer) return issuer;
        }
    }
    throw new Error('the protected resource metadata names no authorization server');
}

/** The bridge's options: the sign-in ones for the auth/* scenarios. */
async function bridgeArgs() {
    const args = ['--no-browser'];
    if (scenario.startsWith('auth/')) {
        args.push('--sign-in-timeout', '15', '--discover-timeout', '5', '--client-metadata-url', CIMD_CLIENT_METADATA_URL);
        if (scenario === 'auth/pre-registration' && context.client_id) {
            args.push('--client-id', context.client_id, '--client-issuer', await issuerOf(url));
            // A confidential client: its secret goes through the environment.
            if (context.client_secret) args.push('--client-secret-env', 'MCP_BRIDGE_CONFORMANCE_CLIENT_SECRET');
        }
    }
    return [...args, url];
}

async function main() {
    log(`scenario ${scenario || '(none)'} against ${url}`);
    store = mkdtempSync(join(tmpdir(), 'mcp-bridge-conformance-'));
    const args = await bridgeArgs();
    step('bridge', args.join(' '));
    transport = new StdioClientTransport({
        command: bridge,
        args,
        env: {
            ...process.env,
            XDG_CONFIG_HOME: store,
            ...(context.client_secret && { MCP_BRIDGE_CONFORMANCE_CLIENT_SECRET: context.client_secret })
        },
        stderr: 'pipe'
    });
    const startTransport = transport.start.bind(transport);
    transport.start = async () => {
        await startTransport();
        bridgeChild = transport._process ?? null;
    };
    // Copy the bridge's stderr, and open the sign-in URL of a sign-in line.
    let pending = '';
    transport.stderr?.on('data', (chunk) => {
        process.stderr.write(chunk);
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop();
        for (const line of lines) {
            if (!/sign[- ]in/i.test(line)) continue;
            for (const link of line.match(/https?:\/\/[^\s"'<>]+/g) ?? []) {
                try {
                    if (isLoopback(new URL(link))) signIn(link);
                } catch {
                    // not a URL after all
                }
            }
        }
    });
    await client.connect(transport);
    const info = client.getServerVersion();
    step('initialize', `${info?.name ?? '?'} ${info?.version ?? ''}`.trim());
    await (SCENARIOS[scenario] ?? signedInBasics)();
}

main().then(
    () => finish(true),
    (e) => finish(false, e?.message ?? String(e))
);
