#!/usr/bin/env node
// The HTTP benchmark of mcp-bridge: the same TypeScript SDK 1.32.2 client,
// the same Python `mcp==2.3.0` HTTP upstream
// (tests/peers/python/http_server.py), each way in one run:
//
//   direct          the client over Streamable HTTP to the server itself
//   mcp-remote      the client over stdio to `node proxy.js <url> --protocol auto`
//   npx mcp-remote  the same started as users start it: `npx mcp-remote <url> ...`
//   bridge          the client over stdio to `mcp-bridge-vscode <url>`
//   npx bridge      the same started through the npm package:
//                   `npx mcp-bridge-vscode <url>` (its launcher, then the binary)
//
// It prints, per way, the time from the start to the initialize result, the
// p50 and p99 of a small tools/call, the throughput of 1 MiB results (1 MiB
// each way), the peak RSS of the process the client started (VmHWM), and the
// RSS of its whole process tree (npm, the shell it starts, a launcher, the
// proxy: the sum of each process's peak), then the ratios bridge/mcp-remote
// of the added latency and of the RSS. The npx ways run when --npx-dir (the
// folder of an install of the npm packages) and --remote-dir (the folder
// whose node_modules has mcp-remote) are given; npx finds the package there,
// with the network off. Figures of one run on one machine; compare the
// ratios.
//
// The same again against the TypeScript SDK v2 HTTP peer
// (tests/peers/node/http-server-v2.mjs) when --node-server is given: a second
// server stack, whose answers have another shape (SSE or JSON, one write or
// two) and another speed.
//
// With --auth-server (tests/fake/auth_upstream.py) it also measures the
// start to the initialize result of the bridge with a stored token, beside
// the same start against the same server without a sign-in (the target:
// the store may add at most 5 ms).
//
//   node bench-http.mjs --bridge PATH --python PATH --server PATH --mcp-remote PATH [--node-server PATH] [--auth-server PATH]
//                       [--npx-dir PATH --remote-dir PATH] [--iterations N] [--quick]

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

function option(name, fallback) {
    const i = process.argv.indexOf(name);
    if (i < 0) return fallback;
    return process.argv[i + 1];
}

const quick = process.argv.includes('--quick');
const iterations = Number(option('--iterations', quick ? '50' : '2000'));
const bigRounds = quick ? 2 : 20;
const bridge = option('--bridge');
const python = option('--python');
const server = option('--server');
const remote = option('--mcp-remote');
const nodeServer = option('--node-server');
const authServer = option('--auth-server');
const npxDir = option('--npx-dir');
const remoteDir = option('--remote-dir');
if (!bridge || !python || !server || !remote || !(iterations > 0)) {
    process.stderr.write('usage: bench-http.mjs --bridge PATH --python PATH --server PATH --mcp-remote PATH [--iterations N] [--quick]\n');
    process.exit(2);
}

/** Starts an HTTP peer; resolves with its URL and its process. */
function startServer(command, args) {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the HTTP peer did not start in 30 s')), 30_000);
        createInterface({ input: child.stdout }).on('line', (line) => {
            const m = /^PORT (\d+)$/.exec(line);
            if (m) {
                clearTimeout(timer);
                resolve({ url: `http://127.0.0.1:${m[1]}/mcp`, child });
            }
        });
        child.on('exit', (code) => reject(new Error(`the HTTP peer exited (${code})`)));
    });
}

function peakRss(pid) {
    try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const m = /VmHWM:\s+(\d+) kB/.exec(status);
        return m ? Number(m[1]) * 1024 : null;
    } catch {
        return null;
    }
}

/** The sum of the peak RSS of `pid` and of every process below it. */
function treeRss(pid) {
    const parents = new Map();
    for (const name of readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        try {
            const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
            parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
        } catch {
            // Gone meanwhile.
        }
    }
    let total = 0;
    let level = [pid];
    while (level.length) {
        for (const p of level) total += peakRss(p) ?? 0;
        level = [...parents].filter(([, parent]) => level.includes(parent)).map(([child]) => child);
    }
    return total || null;
}

function percentile(sorted, p) {
    return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
}

/** A raw 2026-07-28 client over fetch: for a modern-only upstream, where
 *  the SDK 1.x client cannot go directly. Each call is one POST with the
 *  metadata headers and `_meta`; the body is JSON or one SSE event. */
function modernClient(url) {
    let id = 0;
    const meta = {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench-http', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {}
    };
    const post = async (method, params) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: { ...params, _meta: meta } });
        const headers = {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            'MCP-Protocol-Version': '2026-07-28',
            'Mcp-Method': method
        };
        if (params.name) headers['Mcp-Name'] = params.name;
        const response = await fetch(url, { method: 'POST', headers, body });
        const text = await response.text();
        const json = response.headers.get('content-type')?.startsWith('text/event-stream')
            ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5))).find((m) => m.id === id)
            : JSON.parse(text);
        if (!json?.result) throw new Error(`${method}: ${text.slice(0, 200)}`);
        return json.result;
    };
    return {
        connect: () => post('server/discover', {}),
        callTool: (params) => post('tools/call', params),
        close: async () => {}
    };
}

/** npx as a user runs it, from `cwd`, with npm's network off. */
function npx(cwd, args) {
    const env = { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' };
    return new StdioClientTransport({ command: 'npx', args, cwd, env, stderr: 'ignore' });
}

function transportOf(name, url) {
    const remoteArgs = [url, '--protocol', 'auto', '--allow-http'];
    switch (name) {
        case 'direct':
            return new StreamableHTTPClientTransport(new URL(url));
        case 'mcp-remote':
            return new StdioClientTransport({ command: process.execPath, args: [remote, ...remoteArgs], stderr: 'ignore' });
        case 'npx mcp-remote':
            return npx(remoteDir, ['mcp-remote', ...remoteArgs]);
        case 'bridge':
            return new StdioClientTransport({ command: bridge, args: [url], stderr: 'ignore' });
        case 'npx bridge':
            return npx(npxDir, ['mcp-bridge-vscode', url]);
        default:
            throw new Error(`no way ${name}`);
    }
}

async function measure(name, url, modern) {
    if (name === 'direct' && modern) return timed(name, modernClient(url), null);
    const transport = transportOf(name, url);
    const client = new Client({ name: 'bench-http', version: '1.0.0' }, { capabilities: {} });
    return timed(name, { connect: () => client.connect(transport), callTool: (p, s, o) => client.callTool(p, s, o), close: () => client.close() }, transport);
}

async function timed(name, client, transport) {
    const started = process.hrtime.bigint();
    await client.connect();
    const startup = Number(process.hrtime.bigint() - started) / 1e6;
    const small = { name: 'echo', arguments: { text: 'x' } };
    for (let i = 0; i < Math.min(100, iterations); i++) await client.callTool(small);
    const samples = [];
    for (let i = 0; i < iterations; i++) {
        const t = process.hrtime.bigint();
        const result = await client.callTool(small);
        samples.push(Number(process.hrtime.bigint() - t) / 1e3);
        if (result.content?.[0]?.text !== 'x') throw new Error(`${name}: unexpected result ${JSON.stringify(result)}`);
    }
    samples.sort((a, b) => a - b);
    const text = 'y'.repeat(1 << 20);
    const big = [];
    for (let i = 0; i < bigRounds; i++) {
        const t = process.hrtime.bigint();
        const result = await client.callTool({ name: 'echo', arguments: { text } }, undefined, { timeout: 120_000 });
        big.push(Number(process.hrtime.bigint() - t) / 1e6);
        if (result.content?.[0]?.text?.length !== text.length) throw new Error(`${name}: the 1 MiB result is not whole`);
    }
    big.sort((a, b) => a - b);
    const pid = transport?.pid ?? null;
    const rss = pid ? peakRss(pid) : null;
    const tree = pid ? treeRss(pid) : null;
    await client.close();
    return {
        name,
        startupMs: startup,
        p50: percentile(samples, 0.5),
        p99: percentile(samples, 0.99),
        mbps: (2 * text.length) / 1e6 / (percentile(big, 0.5) / 1e3),
        rss,
        tree
    };
}

async function run(label, command, args, modern) {
    const { url, child } = await startServer(command, args);
    try {
        const rows = [];
        const ways = npxDir && remoteDir ? ['direct', 'mcp-remote', 'npx mcp-remote', 'bridge', 'npx bridge'] : ['direct', 'mcp-remote', 'bridge'];
        for (const name of ways) rows.push(await measure(name, url, modern));
        report(label, rows);
    } finally {
        child.stdin.end();
        child.kill();
    }
}

function report(label, rows) {
    const way = (name) => rows.find((r) => r.name === name);
    const [direct, mcpRemote, ours] = [way('direct'), way('mcp-remote'), way('bridge')];
    const fmt = (n, d = 0) => (n === null || n === undefined || Number.isNaN(n) ? '—' : n.toFixed(d));
    const mib = (bytes) => fmt(bytes && bytes / (1 << 20), 1);
    console.log(`\nHTTP benchmark, ${label} upstream: ${iterations} small tools/call per way, ${bigRounds} rounds of 1 MiB each way`);
    console.log('way             start (ms)  p50 (µs)  p99 (µs)  added p50 (µs)  1 MiB (MB/s)  peak RSS (MiB)  tree RSS (MiB)');
    for (const r of rows) {
        const added = r.name === 'direct' ? null : r.p50 - direct.p50;
        console.log(
            `${r.name.padEnd(15)} ${fmt(r.startupMs, 1).padStart(10)}  ${fmt(r.p50).padStart(8)}  ${fmt(r.p99).padStart(8)}  ${fmt(added).padStart(14)}  ${fmt(r.mbps, 1).padStart(12)}  ${mib(r.rss).padStart(14)}  ${mib(r.tree).padStart(14)}`
        );
    }
    const addedRemote = mcpRemote.p50 - direct.p50;
    const addedOurs = ours.p50 - direct.p50;
    console.log(`ratio bridge/mcp-remote: added p50 ${fmt(addedOurs / addedRemote, 3)} (target <= 0.2), peak RSS ${fmt(ours.rss && mcpRemote.rss ? ours.rss / mcpRemote.rss : null, 3)} (target <= 0.1)`);
    console.log(`ratio bridge/direct: 1 MiB throughput ${fmt(ours.mbps / direct.mbps, 3)}, mcp-remote/direct ${fmt(mcpRemote.mbps / direct.mbps, 3)}`);
    const [npxRemote, npxOurs] = [way('npx mcp-remote'), way('npx bridge')];
    if (npxRemote && npxOurs) {
        console.log(
            `through npx: the bridge starts in ${fmt(npxOurs.startupMs, 1)} ms (${fmt(npxOurs.startupMs - ours.startupMs, 1)} ms for npm and the launcher), ` +
                `adds ${fmt(npxOurs.p50 - ours.p50)} µs to the p50 of the bare bridge, and its tree takes ${mib(npxOurs.tree)} MiB ` +
                `(mcp-remote's ${mib(npxRemote.tree)} MiB: ${fmt(npxOurs.tree / npxRemote.tree, 3)})`
        );
    }
}

await run('Python mcp 2.3.0', python, [server], false);
// Modern-only: "direct" is a raw 2026-07-28 client over fetch.
if (nodeServer) await run('TypeScript SDK v2 2.4.0', process.execPath, [nodeServer], true);

/** One start of the bridge to its initialize result, in ms; `onLine` sees
 *  each stderr line (the sign-in line of the first start). */
async function startOnce(url, config, onLine) {
    const transport = new StdioClientTransport({
        command: bridge,
        args: ['--no-browser', url],
        env: { ...process.env, XDG_CONFIG_HOME: config, SANDBOX_RUNTIME: '0', MCP_BRIDGE_TOKEN_STORE: 'file' },
        stderr: 'pipe'
    });
    if (onLine) transport.stderr?.on('data', (chunk) => String(chunk).split('\n').forEach(onLine));
    const client = new Client({ name: 'bench-http', version: '1.0.0' }, { capabilities: {} });
    const started = process.hrtime.bigint();
    await client.connect(transport);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    await client.close();
    return ms;
}

/** Follows the redirects of a sign-in start URL between loopback hosts. */
async function signInHeadless(startUrl) {
    let url = startUrl;
    for (let hops = 0; hops < 10; hops++) {
        const response = await fetch(url, { redirect: 'manual' });
        const next = response.headers.get('location');
        if (!next) return;
        url = new URL(next, url).toString();
        if (!['127.0.0.1', 'localhost'].includes(new URL(url).hostname)) throw new Error('a redirect off loopback');
    }
}

async function signInStart() {
    const rounds = quick ? 3 : 20;
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const open = await startServer(python, [authServer, '--open']);
    const guarded = await startServer(python, [authServer]);
    const config = mkdtempSync(join(tmpdir(), 'mcp-bridge-bench-'));
    try {
        const plain = [];
        for (let i = 0; i < rounds; i++) plain.push(await startOnce(open.url, mkdtempSync(join(config, 'open-')), null));
        let pending = null;
        await startOnce(guarded.url, config, (line) => {
            const m = /sign-in: open (\S+)/.exec(line);
            if (m && !pending) pending = signInHeadless(m[1]);
        });
        await pending;
        const stored = [];
        for (let i = 0; i < rounds; i++) stored.push(await startOnce(guarded.url, config, null));
        const [a, b] = [median(plain), median(stored)];
        console.log(`\nstart to the initialize result, ${rounds} starts each, median: without a sign-in ${a.toFixed(1)} ms, with a stored token ${b.toFixed(1)} ms, the store adds ${(b - a).toFixed(1)} ms (target < 5 ms)`);
    } finally {
        for (const s of [open, guarded]) {
            s.child.stdin.end();
            s.child.kill();
        }
        rmSync(config, { recursive: true, force: true });
    }
}

if (authServer) await signInStart();

