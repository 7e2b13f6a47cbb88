// A 2026-07-28 stdio server written with @modelcontextprotocol/server 2.4.0
// (TypeScript SDK v2) whose tool `register` asks a form through a multi
// round-trip request (inputRequired.elicit). The same surface as
// tests/peers/python/input_server.py for the form: text "registered <name>",
// "declined" or "cancelled". `register` is defined in surface.mjs, as
// http-server-v2.mjs serves it too.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { offerRegister } from './surface.mjs';

function build() {
  const server = new McpServer({ name: 'peer-ts-v2-input', version: '1.0.0' });
  offerRegister(server);
  return server;
}
serveStdio(() => build(), { legacy: 'reject' });
