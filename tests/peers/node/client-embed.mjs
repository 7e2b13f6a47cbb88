// The legacy path of the embedded bridge, with VS Code's stand-in: a 2025-11-25
// client written with the TypeScript SDK 1.32.2, run against the demo server
// (`mcp-bridge-vscode demo-server`) with no bridge in front of it.
//
//   node client-embed.mjs <command> [args...]
//
// Steps: tools/list, add, ask_name (the elicitation handler answers the form with
// {name: "Ada"}), slow_count with progress, a slow_count cancelled by an
// AbortSignal after 300 ms (a ping after it shows the server still serves),
// add_tool (the list change must come before its result) and tools/list after it.
// Prints ONE JSON document.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
const asked = [];
const order = [];
const client = new Client({ name: 'peer-client', version: '1.32.2' }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked.push(request.params);
  return { action: 'accept', content: { name: 'Ada' } };
});
client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
  order.push('notifications/tools/list_changed');
});

const attempt = async (fn) => {
  try {
    return await fn();
  } catch (e) {
    return { error: { code: e?.code ?? null, message: e?.message ?? String(e) } };
  }
};

const out = { steps: {} };
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
out.capabilities = client.getServerCapabilities();
out.serverInfo = client.getServerVersion();
out.steps['tools/list'] = await attempt(() => client.listTools());
out.steps.add = await attempt(() => client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
out.steps.ask_name = await attempt(() => client.callTool({ name: 'ask_name', arguments: {} }));
out.asked = asked;
const progress = [];
out.steps.slow_count = await attempt(() =>
  client.callTool({ name: 'slow_count', arguments: { steps: 2, delay_ms: 10 } }, undefined, {
    onprogress: (p) => progress.push(p),
  }),
);
out.progress = progress;
const abort = new AbortController();
setTimeout(() => abort.abort(), 300);
out.steps.cancelled = await attempt(() =>
  client.callTool({ name: 'slow_count', arguments: { steps: 1000, delay_ms: 60000 } }, undefined, { signal: abort.signal }),
);
out.steps['ping after the cancel'] = await attempt(() => client.ping());
// The gap's list change of the first listen stream came at the start.
order.length = 0;
out.steps.add_tool = await attempt(() => client.callTool({ name: 'add_tool', arguments: {} }));
order.push('result add_tool');
out.order = order;
out.steps['tools/list after add_tool'] = await attempt(() => client.listTools());
await client.close();
process.stdout.write(JSON.stringify(out) + '\n');
