// VS Code's stand-in for input requests: a 2025-11-25 client written with the
// TypeScript SDK 1.32.2 whose handlers answer elicitation, sampling and roots.
//
//   node client-input.mjs <accept|decline|cancel|all> <command> [args...]
//
// `all` accepts the form and also calls the sampling and roots tools.
//
// It calls the tools `register`, `summarize` and `roots` and prints ONE JSON
// document: the results, and the requests its handlers received.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [scenario, command, ...args] = process.argv.slice(2);
const action = scenario === 'all' ? 'accept' : scenario;
const received = [];
const client = new Client(
  { name: 'peer-client', version: '1.32.2' },
  { capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } } },
);
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  received.push({ method: request.method, params: request.params });
  return action === 'accept' ? { action, content: { name: 'Ada' } } : { action };
});
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  received.push({ method: request.method, params: request.params });
  return { role: 'assistant', content: { type: 'text', text: 'hi from the model' }, model: 'test-model', stopReason: 'endTurn' };
});
client.setRequestHandler(ListRootsRequestSchema, async (request) => {
  received.push({ method: request.method });
  return { roots: [{ uri: 'file:///work/project', name: 'project' }, { uri: 'https://example.com/not-a-root' }] };
});

const attempt = async (fn) => {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: { code: e?.code ?? null, message: e?.message ?? String(e), data: e?.data ?? null } };
  }
};

const out = {};
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
out.register = await attempt(() => client.callTool({ name: 'register', arguments: {} }));
if (scenario === 'all') {
  out.summarize = await attempt(() => client.callTool({ name: 'summarize', arguments: {} }));
  out.roots = await attempt(() => client.callTool({ name: 'roots', arguments: {} }));
}
out.received = received;
await client.close();
process.stdout.write(JSON.stringify(out) + '\n');
