// draft
import { McpServer, ResourceTemplate, completable } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

function build() {
  const server = new McpServer({ name: 'peer-ts-v2', version: '2.4.0-peer', title: 'TypeScript v2 peer' }, { instructions: 'TS v2 peer.' });
  server.registerTool('echo', { description: 'Echo', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('add', { description: 'Add', inputSchema: z.object({ a: z.number().int(), b: z.number().int() }), outputSchema: z.object({ sum: z.number().int() }) },
    async ({ a, b }) => ({ content: [], structuredContent: { sum: a + b } }));
  server.registerPrompt('greet', { description: 'Greet', argsSchema: z.object({ name: completable(z.string(), v => ['Ada', 'Alan', 'Grace'].filter(n => n.startsWith(v))) }) },
    async ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${name}!` } }] }));
  server.registerResource('readme', 'peer://static/readme', { mimeType: 'text/plain', description: 'd' }, async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Static text' }] }));
  server.registerResource('color', new ResourceTemplate('peer://colors/{color}', { list: undefined, complete: { color: v => ['red', 'green', 'blue'].filter(c => c.startsWith(v)) } }), { mimeType: 'text/plain' },
    async (uri, { color }) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: `color ${color}` }] }));
  return server;
}
serveStdio(() => build(), { legacy: 'reject' });
