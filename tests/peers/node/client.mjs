// VS Code's stand-in: a 2025-11-25 client written with the TypeScript SDK
// @modelcontextprotocol/sdk 1.32.2 (Client + StdioClientTransport).
//
//   node client.mjs <scenario> <command> [args...]
//
// It spawns the command (the bridge with its upstream), runs one scenario
// and prints ONE JSON document on stdout with everything it received, so
// that the Rust tests can assert exact values. Errors are recorded as
// {code, message, data}; the process exits 0 unless the driver itself broke.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [scenario, command, ...args] = process.argv.slice(2);
if (!scenario || !command) {
  console.error('usage: node client.mjs <scenario> <command> [args...]');
  process.exit(2);
}

const error = (e) => ({ code: e?.code ?? null, message: e?.message ?? String(e), data: e?.data ?? null, name: e?.name ?? null });

async function attempt(fn) {
  try {
    return { ok: await fn() };
  } catch (e) {
    return { error: error(e) };
  }
}

const scenarios = {
  // Every forwarded method once, with the names of the peer servers.
  async basic(client, out) {
    out.tools = await attempt(() => client.listTools());
    out.echo = await attempt(() => client.callTool({ name: 'echo', arguments: { text: 'hi there' } }));
    out.add = await attempt(() => client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }));
    out.prompts = await attempt(() => client.listPrompts());
    out.prompt = await attempt(() => client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }));
    out.resources = await attempt(() => client.listResources());
    out.readme = await attempt(() => client.readResource({ uri: 'peer://static/readme' }));
    out.templates = await attempt(() => client.listResourceTemplates());
    out.color = await attempt(() => client.readResource({ uri: 'peer://colors/red' }));
    out.completePrompt = await attempt(() =>
      client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } }));
    out.completeTemplate = await attempt(() =>
      client.complete({ ref: { type: 'ref/resource', uri: 'peer://colors/{color}' }, argument: { name: 'color', value: 'r' } }));
  },
  // Structured results and progress.
  async results(client, out) {
    out.squares = await attempt(() => client.callTool({ name: 'squares', arguments: { count: 4 } }));
    out.tags = await attempt(() => client.callTool({ name: 'tags', arguments: { tags: ['a', 'b'] } }));
    const progress = [];
    out.slow = await attempt(() => client.callTool({ name: 'slow', arguments: { seconds: 0.3, steps: 3 } }, undefined, {
      onprogress: (p) => progress.push(p),
    }));
    out.progress = progress;
    out.fail = await attempt(() => client.callTool({ name: 'fail', arguments: { code: -32001, message: 'nope' } }));
  },
  // The stop button: the request is aborted, and the connection goes on.
  async cancel(client, out) {
    const controller = new AbortController();
    const started = Date.now();
    const slow = attempt(() => client.callTool({ name: 'slow', arguments: { seconds: 30, steps: 30 } }, undefined, {
      signal: controller.signal,
    }));
    setTimeout(() => controller.abort('user pressed stop'), 500);
    out.slow = await slow;
    out.abortedAfterMs = Date.now() - started;
    out.echo = await attempt(() => client.callTool({ name: 'echo', arguments: { text: 'still here' } }));
  },
};

const run = scenarios[scenario];
if (!run) {
  console.error(`unknown scenario ${scenario}`);
  process.exit(2);
}

const transport = new StdioClientTransport({ command, args, stderr: 'inherit' });
const client = new Client({ name: 'peer-client', version: '1.32.2' }, { capabilities: { roots: { listChanged: true } } });
const out = { scenario };
try {
  out.connect = await attempt(() => client.connect(transport));
  if (!out.connect.error) {
    out.serverVersion = client.getServerVersion() ?? null;
    out.serverCapabilities = client.getServerCapabilities() ?? null;
    out.instructions = client.getInstructions() ?? null;
    await run(client, out);
  }
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(out) + '\n');
