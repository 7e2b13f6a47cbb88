// A 2026-07-28 stdio server written with @modelcontextprotocol/server 2.4.0
// (TypeScript SDK v2) whose tool `register` asks a form through a multi
// round-trip request (inputRequired.elicit). The same surface as
// tests/peers/python/input_server.py for the form: text "registered <name>",
// "declined" or "cancelled".
import { McpServer, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

function build() {
  const server = new McpServer({ name: 'peer-ts-v2-input', version: '1.0.0' });
  const nameSchema = z.object({ name: z.string() });
  server.registerTool('register', { description: 'Register a user by name, asked with a form.', inputSchema: z.object({}) }, async (_args, ctx) => {
    const answer = ctx.mcpReq.inputResponses?.name;
    if (answer?.action === 'accept') {
      return { content: [{ type: 'text', text: `registered ${answer.content?.name}` }] };
    }
    if (answer?.action === 'decline') return { content: [{ type: 'text', text: 'declined' }] };
    if (answer?.action === 'cancel') return { content: [{ type: 'text', text: 'cancelled' }] };
    return inputRequired({ inputRequests: { name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: nameSchema }) } });
  });
  return server;
}
serveStdio(() => build(), { legacy: 'reject' });
