// A real MCP server of revision 2026-07-28 over stdio, written with npm
// `@modelcontextprotocol/server@2.4.0` (TypeScript SDK v2). It is the second,
// independent upstream peer of the integration tests of mcp-bridge
// (crates/mcp-bridge-vscode/tests/it/peers.rs); tests/peers/python/server.py offers
// the same surface with the Python SDK. Keep every name and text stable: the
// tests assert them exactly. What it shares with the other peers of the SDK v2 is
// defined once in surface.mjs.
//
//     node tests/peers/node/server-v2.mjs            # 2026-07-28 only (legacy: 'reject')
//     node tests/peers/node/server-v2.mjs --legacy   # also serves a 2025-era opening
//
// The surface
// -----------
// serverInfo    name "peer-ts-v2", title "TypeScript v2 peer (@modelcontextprotocol/server 2.4.0)",
//               version "4.5.6"
// instructions  "Test peer of mcp-bridge: the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0)."
// capabilities  tools, prompts, resources (listChanged, NO subscribe), completions: McpServer
//               declares them from the registrations.
//
// Tools (in this order in tools/list)
//   echo     {text: string}            -> content [{type: text, text: <text>}].
//   add      {a: integer, b: integer}  -> structuredContent {"sum": a + b}, content [] (NO text
//                                         block: the bridge adds the text mirror '{"sum":5}'),
//                                         outputSchema of type object.
//   squares  {count: integer}          -> structuredContent [1, 4, ..., count^2], content [],
//                                         outputSchema {"type":"array","items":{"type":"integer"}}.
//                                         On the wire the SDK itself adds {type: text, text: "[1,4,9]"}:
//                                         its 2026-07-28 codec mirrors a NON-object structuredContent
//                                         when there is no text block (appendTextFallbackForNonObject),
//                                         but not an object one (see add).
//   tags     {tags: array}             -> inputSchema has an array WITHOUT items (rule R6);
//                                         content [{type: text, text: "tags: a, b"}].
//   slow     {seconds: number, steps?: integer = 2}
//                                      -> progress (0, steps, "step 0 of <steps>") at once, then
//                                         after each of <steps> equal sleeps (i, steps, "step i of
//                                         <steps>"); then content [{type: text, text: "slept <seconds> s"}].
//                                         Only with _meta.progressToken, which it sends back unchanged.
//                                         notifications/cancelled aborts it: no response.
//   fail     {code: integer, message: string}
//                                      -> McpServer turns every error of a tool into a RESULT:
//                                         {content: [{type: text, text: <message>}], isError: true}.
//                                         (Only -32042 escapes as a JSON-RPC error.) Unlike Python.
// Prompts
//   greet    argument name (required)  -> description "Greet someone by name.",
//                                         messages [{role: user, content: {type: text, text: "Hello, <name>!"}}]
//            completion of "name": the names of NAMES that start with the value.
// Resources
//   peer://static/readme   name "readme", mimeType text/plain, description "The static readme of the peer.",
//                          text "This is the static readme of the peer."
// Resource templates
//   peer://colors/{color}  name "color", mimeType text/plain, description "A color by name.",
//                          read: text "The color is <color>."
//            completion of "color": the colors of COLORS that start with the value.
// Completions give {values, total, hasMore: false}.
//
// What this server does on the wire (seen with raw JSON lines, server 2.4.0)
// --------------------------------------------------------------------------
// * Responses are written as {"result":...,"jsonrpc":"2.0","id":N}: the id comes LAST.
//   Errors are {"jsonrpc":"2.0","id":N,"error":{...}}. Requests run concurrently, so
//   responses can come out of order.
// * server/discover result:
//   {"supportedVersions":["2026-07-28"],"capabilities":{"tools":{"listChanged":true},"completions":{},
//    "prompts":{"listChanged":true},"resources":{"listChanged":true}},"instructions":"...",
//    "resultType":"complete","ttlMs":0,"cacheScope":"private",
//    "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"peer-ts-v2","version":"4.5.6","title":"..."}}}
//   serverInfo is in _meta["io.modelcontextprotocol/serverInfo"] (member order name, version, title).
// * EVERY result has "resultType":"complete" and the serverInfo _meta. The list results and
//   resources/read also have "ttlMs":0,"cacheScope":"private"; tools/call, prompts/get and
//   completion/complete do not. tools/call results have no isError unless it is true.
// * zod schemas come out as JSON Schema 2020-12 with "$schema" and, for integers,
//   "minimum":-9007199254740991,"maximum":9007199254740991; output schemas get
//   "additionalProperties":false.
// * A request without the modern _meta gets -32602 "Request is missing the required _meta envelope
//   for protocol revision 2026-07-28 (io.modelcontextprotocol/protocolVersion,
//   io.modelcontextprotocol/clientCapabilities)". ping gets -32601 "Method not found" (no data).
// * With legacy: 'reject', initialize gets -32022 "Unsupported protocol version: 2025-11-25"
//   with data {"supported":["2026-07-28"],"requested":"2025-11-25"}.
// * Progress: notifications/progress with the client's progressToken unchanged (0 stays 0).
// * At the end of stdin, the requests in flight are aborted and get no response.

import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';
import { offerAdd, offerColor, offerEcho, offerFail, offerGreet, offerReadme, offerSlow } from './surface.mjs';

function build() {
    const server = new McpServer(
        { name: 'peer-ts-v2', version: '4.5.6', title: 'TypeScript v2 peer (@modelcontextprotocol/server 2.4.0)' },
        { instructions: 'Test peer of mcp-bridge: the TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0).' }
    );

    offerEcho(server);
    offerAdd(server);

    server.registerTool(
        'squares',
        {
            description: 'The squares of 1 to count, as an array.',
            inputSchema: z.object({ count: z.number().int() }),
            outputSchema: fromJsonSchema({ type: 'array', items: { type: 'integer' } })
        },
        async ({ count }) => ({
            content: [],
            structuredContent: Array.from({ length: count }, (_, i) => (i + 1) * (i + 1))
        })
    );

    server.registerTool(
        'tags',
        {
            description: 'Join tags.',
            // Rule R6: an array schema without items, as a raw JSON Schema.
            inputSchema: fromJsonSchema({ type: 'object', properties: { tags: { type: 'array' } }, required: ['tags'] })
        },
        async ({ tags }) => ({ content: [{ type: 'text', text: `tags: ${tags.join(', ')}` }] })
    );

    offerSlow(server);
    offerFail(server);
    offerGreet(server);
    offerReadme(server);
    offerColor(server);

    return server;
}

serveStdio(() => build(), { legacy: process.argv.includes('--legacy') ? 'serve' : 'reject' });
