// A real MCP server of revision 2026-07-28 over Streamable HTTP, written with npm
// `@modelcontextprotocol/server@2.4.0` (TypeScript SDK v2: createMcpHandler) behind
// `node:http` with `@modelcontextprotocol/node@2.1.2` (toNodeHandler). It is the second,
// independent upstream peer of the HTTP integration tests of mcp-bridge
// (crates/mcp-bridge-vscode/tests/it/http_peers.rs); tests/peers/python/http_server.py
// offers the same surface with the Python SDK. Keep every name and text stable: the
// tests assert them exactly. What it shares with the stdio peers (server-v2.mjs,
// input-server-v2.mjs) is defined once in surface.mjs.
//
//     node tests/peers/node/http-server-v2.mjs [--path /mcp]
//
// It listens on 127.0.0.1 on a port the system picks (port 0) and prints ONE line
// `PORT <n>` on stdout once it listens; the MCP endpoint is http://127.0.0.1:<n><path>
// (/mcp by default; every other path gets 404). It exits when its stdin closes or on
// SIGTERM/SIGINT (open streams are cut). Only 2026-07-28 traffic is served
// (legacy: 'reject'). The Host header must name localhost, 127.0.0.1 or [::1]
// (localhostHostValidation).
//
// The surface
// -----------
// serverInfo    name "peer-ts-v2-http", title "TypeScript v2 HTTP peer (@modelcontextprotocol/server 2.4.0)",
//               version "2.4.0-http", description "The HTTP peer of mcp-bridge.",
//               websiteUrl "https://example.com/peer", icons [HTTPS_ICON, DATA_ICON]
// instructions  "Test peer of mcp-bridge over HTTP: the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0)."
// capabilities  tools, prompts, resources (listChanged and subscribe: declared here, since
//               createMcpHandler honors resourceSubscriptions only then), completions, logging.
//
// Icons
//   HTTPS_ICON  {"src": "https://example.com/icon.png", "mimeType": "image/png"}
//   DATA_ICON   {"src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png", "sizes": ["16x16"]}
//
// Every HTTP request gets a fresh McpServer from build() (createMcpHandler's model);
// the state that lives across requests is module-level: the added tools, the
// canceled waits.
//
// Tools (in this order in tools/list; added tools come last)
//   echo          {text: string}            -> text <text>. icons [HTTPS_ICON, DATA_ICON].
//   add           {a: integer, b: integer}  -> structuredContent {"sum": a + b}, content [] (the bridge
//                                              adds the text mirror), outputSchema of type object.
//                                              icons [HTTPS_ICON].
//   slow          {seconds: number, steps?: integer = 2}
//                                           -> progress (0, steps, "step 0 of <steps>") at once, then after
//                                              each of <steps> equal sleeps (i, steps, "step i of <steps>"),
//                                              on the request's SSE stream; then text "slept <seconds> s".
//   wait          {key: string}             -> one progress (0, 1, "waiting <key>") when the request has a
//                                              token, then waits up to 60 s; when the client closes the
//                                              stream (the request's abort signal) it records <key> as
//                                              canceled. After 60 s: "waited <key>".
//   was_cancelled {key: string}             -> waits at most 10 s for the cancellation of the wait <key>,
//                                              then text "cancelled <key>" or "not cancelled <key>".
//   register      {}                        -> MRTR: inputRequired.elicit "What is your name?" {"name": string};
//                                              then text "registered <name>", "declined" or "cancelled".
//   add_tool      {name: string}            -> registers a tool <name> (text "I am <name>") for every later
//                                              request, publishes a tools list change, text "added <name>".
//   touch         {uri: string}             -> publishes an update of <uri>, text "touched <uri>".
//   chatty        {}                        -> logs "debug line", "info line", "warning line", "error line"
//                                              at those levels, logger "chatty" (the SDK sends only those
//                                              at or above the request's logLevel), text "logged".
//   region        {region: string, query: string}
//                                           -> inputSchema with "x-mcp-header": "Region" on region.
//                                              Text "<region>: <query>".
//   linked        {}                        -> content: text "two links", then resource links
//                                              peer://static/readme icons [HTTPS_ICON, DATA_ICON] and
//                                              live://counter icons [HTTPS_ICON].
//   fail          {code: integer, message: string}
//                                           -> McpServer turns the throw into a RESULT:
//                                              {content: [{type: text, text: <message>}], isError: true}.
// Prompts
//   greet    argument name (required)  -> description "Greet someone by name.", messages
//                                         [{role: user, content: {type: text, text: "Hello, <name>!"}}].
//                                         icons [DATA_ICON]. Completion of "name": NAMES by prefix.
//   linked   no argument              -> one user message with a resource link peer://static/readme,
//                                         icons [HTTPS_ICON, DATA_ICON].
// Resources
//   peer://static/readme   name "readme", mimeType text/plain, description "The static readme of the peer.",
//                          text "This is the static readme of the peer.", icons [HTTPS_ICON].
//   live://counter         name "counter", mimeType text/plain, text "counter", icons [DATA_ICON].
// Resource templates
//   peer://colors/{color}  name "color", mimeType text/plain, description "A color by name.",
//                          icons [HTTPS_ICON, DATA_ICON]; read: text "The color is <color>."
//                          Completion of "color": COLORS by prefix.

import http from 'node:http';
import { McpServer, createMcpHandler, fromJsonSchema } from '@modelcontextprotocol/server';
import { localhostHostValidation, toNodeHandler } from '@modelcontextprotocol/node';
import * as z from 'zod';
import {
    offerAdd,
    offerColor,
    offerEcho,
    offerFail,
    offerGreet,
    offerReadme,
    offerRegister,
    offerSlow,
    progress,
    sleep,
    text
} from './surface.mjs';

const HTTPS_ICON = { src: 'https://example.com/icon.png', mimeType: 'image/png' };
const DATA_ICON = { src: 'data:image/png;base64,iVBORw0KGgo=', mimeType: 'image/png', sizes: ['16x16'] };

const args = process.argv.slice(2);
const path = args[0] === '--path' && args[1] ? args[1] : '/mcp';

/** The tools added by add_tool, by name, for every later request. */
const addedTools = [];
/** The keys of the waits that were canceled, and the waiters of was_cancelled. */
const cancelled = new Set();
const cancelWaiters = new Map();

function markCancelled(key) {
    cancelled.add(key);
    for (const resolve of cancelWaiters.get(key) ?? []) resolve();
    cancelWaiters.delete(key);
}

function whenCancelled(key, ms) {
    if (cancelled.has(key)) return Promise.resolve();
    return new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        const waiters = cancelWaiters.get(key) ?? [];
        waiters.push(() => {
            clearTimeout(timer);
            resolve();
        });
        cancelWaiters.set(key, waiters);
    });
}

let handler;

function build() {
    const server = new McpServer(
        {
            name: 'peer-ts-v2-http',
            version: '2.4.0-http',
            title: 'TypeScript v2 HTTP peer (@modelcontextprotocol/server 2.4.0)',
            description: 'The HTTP peer of mcp-bridge.',
            websiteUrl: 'https://example.com/peer',
            icons: [HTTPS_ICON, DATA_ICON]
        },
        {
            instructions: 'Test peer of mcp-bridge over HTTP: the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0).',
            capabilities: { resources: { listChanged: true, subscribe: true }, logging: {} }
        }
    );

    offerEcho(server, [HTTPS_ICON, DATA_ICON]);
    offerAdd(server, [HTTPS_ICON]);
    offerSlow(server);

    server.registerTool(
        'wait',
        { description: 'Wait until canceled, and remember the cancellation.', inputSchema: z.object({ key: z.string() }) },
        async ({ key }, ctx) => {
            await progress(ctx, 0, 1, `waiting ${key}`);
            try {
                await sleep(60_000, ctx.mcpReq.signal);
            } catch (error) {
                markCancelled(key);
                throw error;
            }
            return text(`waited ${key}`);
        }
    );

    server.registerTool(
        'was_cancelled',
        { description: 'Tell whether the wait of a key was canceled.', inputSchema: z.object({ key: z.string() }) },
        async ({ key }) => {
            await whenCancelled(key, 10_000);
            return text(cancelled.has(key) ? `cancelled ${key}` : `not cancelled ${key}`);
        }
    );

    offerRegister(server);

    server.registerTool(
        'add_tool',
        { description: 'Register a new tool and announce the change.', inputSchema: z.object({ name: z.string() }) },
        async ({ name }) => {
            if (!addedTools.includes(name)) addedTools.push(name);
            handler.notify.toolsChanged();
            return text(`added ${name}`);
        }
    );

    server.registerTool(
        'touch',
        { description: 'Announce an update of a resource.', inputSchema: z.object({ uri: z.string() }) },
        async ({ uri }) => {
            handler.notify.resourceUpdated(uri);
            return text(`touched ${uri}`);
        }
    );

    server.registerTool('chatty', { description: 'Log at four levels.', inputSchema: z.object({}) }, async (_args, ctx) => {
        for (const level of ['debug', 'info', 'warning', 'error']) await ctx.mcpReq.log(level, `${level} line`, 'chatty');
        return text('logged');
    });

    server.registerTool(
        'region',
        {
            description: 'Run a query in a region.',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, query: { type: 'string' } },
                required: ['region', 'query']
            })
        },
        async ({ region, query }) => text(`${region}: ${query}`)
    );

    server.registerTool('linked', { description: 'Two resource links with icons.', inputSchema: z.object({}) }, async () => ({
        content: [
            { type: 'text', text: 'two links' },
            { type: 'resource_link', uri: 'peer://static/readme', name: 'readme', icons: [HTTPS_ICON, DATA_ICON] },
            { type: 'resource_link', uri: 'live://counter', name: 'counter', icons: [HTTPS_ICON] }
        ]
    }));

    offerFail(server);

    for (const name of addedTools) {
        server.registerTool(name, { description: `The added tool ${name}.`, inputSchema: z.object({}) }, async () => text(`I am ${name}`));
    }

    offerGreet(server, [DATA_ICON]);

    server.registerPrompt('linked', { description: 'A message with a resource link.' }, async () => ({
        messages: [
            {
                role: 'user',
                content: { type: 'resource_link', uri: 'peer://static/readme', name: 'readme', icons: [HTTPS_ICON, DATA_ICON] }
            }
        ]
    }));

    offerReadme(server, [HTTPS_ICON]);

    server.registerResource('counter', 'live://counter', { mimeType: 'text/plain', icons: [DATA_ICON] }, async (uri) => ({
        contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'counter' }]
    }));

    offerColor(server, [HTTPS_ICON, DATA_ICON]);

    return server;
}

handler = createMcpHandler(() => build(), { legacy: 'reject' });
const serve = toNodeHandler(handler);
const validateHost = localhostHostValidation();

const httpServer = http.createServer((req, res) => {
    if (!validateHost(req, res)) return;
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname !== path) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
    }
    void serve(req, res);
});

function stop() {
    void handler.close();
    httpServer.closeAllConnections();
    httpServer.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
}

httpServer.listen(0, '127.0.0.1', () => {
    process.stdout.write(`PORT ${httpServer.address().port}\n`);
});
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
