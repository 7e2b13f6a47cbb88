#!/usr/bin/env node
// The npm packages as a VS Code user runs them (scripts/test-npm): the bridge
// started with `npx mcp-bridge-vscode` from an offline install of the
// tarballs, beside the same binary started directly. Every rule below must
// hold; each prints `ok <rule>`, and the first that fails ends the run with
// exit code 1.
//
//   node tests/npm/npx.mjs --dir INSTALL --python PY --server SERVER_PY --fake FAKE_PY --client CLIENT_MJS
//
// INSTALL is the folder of the install (node_modules/mcp-bridge-vscode and
// the platform package), SERVER_PY the Python peer (tests/peers/python/
// server.py), FAKE_PY the scripted upstream (tests/fake/upstream.py),
// CLIENT_MJS the TypeScript SDK 1.x driver (tests/peers/node/client.mjs).
// The `node` that runs this script is the one npx and the launcher run on.
//
// The launcher replaces itself with the binary where Node has
// process.execve (>= 22.15); else it is the binary's parent. Either way the
// binary's stdin and stdout must be the pipes of the client: no Node
// process relays the bytes.

import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

function option(name) {
    const i = process.argv.indexOf(name);
    if (i < 0 || !process.argv[i + 1]) {
        process.stderr.write(`npx.mjs: ${name} is missing\n`);
        process.exit(2);
    }
    return process.argv[i + 1];
}

const dir = option('--dir');
const python = option('--python');
const server = option('--server');
const fake = option('--fake');
const clientDriver = option('--client');
const platform = JSON.parse(readFileSync(join(dir, 'node_modules/mcp-bridge-vscode/platforms.json'), 'utf8')).find(
    (p) => p.os === process.platform && p.cpu === process.arch
);
const bare = realpathSync(join(dir, 'node_modules', platform.package, 'bin', platform.binary));
const launcher = join(dir, 'node_modules', '.bin', 'mcp-bridge-vscode');
const execs = typeof process.execve === 'function';
// npx from the folder of the install, never the network.
const env = { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' };

const WAIT_MS = 20_000;
const ways = {
    npx: (args) => ['npx', ['--offline', 'mcp-bridge-vscode', ...args]],
    bare: (args) => [bare, args]
};

function check(rule, condition, detail) {
    if (!condition) {
        process.stderr.write(`FAILED ${rule}\n${detail ?? ''}\n`);
        process.exit(1);
    }
    console.log(`ok ${rule}`);
}

/** A started process with its output collected and a bounded wait for its end. */
function start(command, args) {
    const child = spawn(command, args, { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    // A process may end before it reads its stdin (`--version`): the write
    // then fails with EPIPE, which is no failure of a rule.
    child.stdin.on('error', () => {});
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    const ended = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
    return {
        child,
        stdout: () => Buffer.concat(out),
        stderr: () => Buffer.concat(err).toString(),
        /** The end of the process, at most `ms` from now (then killed). */
        async end(ms = WAIT_MS) {
            const timer = setTimeout(() => child.kill('SIGKILL'), ms);
            const status = await ended;
            clearTimeout(timer);
            return { ...status, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() };
        },
        /** Waits until stdout has `n` lines, at most WAIT_MS. */
        async lines(n) {
            const deadline = Date.now() + WAIT_MS;
            while (Buffer.concat(out).toString().split('\n').length <= n) {
                if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ${n} lines: ${Buffer.concat(out)}\n${Buffer.concat(err)}`);
                await new Promise((r) => setTimeout(r, 10));
            }
        }
    };
}

async function run(way, args, input = '') {
    const [command, argv] = ways[way](args);
    const p = start(command, argv);
    if (input) p.child.stdin.end(input);
    else p.child.stdin.end();
    return p.end();
}

/** Sends each line after the answer to the one before; the answers are the
 *  only output, so the bytes do not depend on timing. */
async function session(way, args, requests, closeStdin) {
    const [command, argv] = ways[way](args);
    const p = start(command, argv);
    for (let i = 0; i < requests.length; i++) {
        p.child.stdin.write(JSON.stringify(requests[i]) + '\n');
        await p.lines(i + 1);
    }
    if (closeStdin) p.child.stdin.end();
    return p.end();
}

function same(rule, way, a, b) {
    check(rule, isDeepStrictEqual(a, b), `${way}: ${JSON.stringify(a)}\nbare: ${JSON.stringify(b)}`);
}

/** Every process below `pid`, with its parent, name and executable. */
function tree(pid) {
    const all = [];
    for (const name of readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        try {
            const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
            const close = stat.lastIndexOf(')');
            const ppid = Number(stat.slice(close + 2).split(' ')[1]);
            const comm = stat.slice(stat.indexOf('(') + 1, close);
            let exe = null;
            try {
                exe = readlinkSync(`/proc/${name}/exe`);
            } catch {
                // A process that ended meanwhile.
            }
            const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${name}/status`, 'utf8'))?.[1] ?? 0);
            all.push({ pid: Number(name), ppid, comm, exe, rssKiB: rss });
        } catch {
            // Gone.
        }
    }
    const below = [];
    let level = [pid];
    while (level.length) {
        const next = all.filter((p) => level.includes(p.ppid));
        below.push(...next);
        level = next.map((p) => p.pid);
    }
    return below;
}

function fd(pid, n) {
    return readlinkSync(`/proc/${pid}/fd/${n}`);
}

async function waitGone(pid, ms) {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
        try {
            readFileSync(`/proc/${pid}/stat`);
        } catch {
            return true;
        }
        await new Promise((r) => setTimeout(r, 20));
    }
    return false;
}

const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'npx-test', version: '1' } }
};
const peer = ['--', python, server];

console.log(`node ${process.version}: the launcher ${execs ? 'replaces itself (process.execve)' : 'starts the binary as its child'}`);

// --- exit codes and bytes ---------------------------------------------------------------------

for (const [rule, args, code, stream] of [
    ['--version: the same bytes on stdout, exit 0', ['--version'], 0, 'stdout'],
    ['check (the demo server): the same report, exit 0', ['check'], 0, 'stdout'],
    [
        'check of a command that fails: the same report with its stderr, exit 1',
        ['check', '--', python, '-c', "import sys; print('boom', file=sys.stderr); sys.exit(3)"],
        1,
        'stdout'
    ],
    ['an invalid argument: the same message on stderr, nothing on stdout, exit 2', ['--discover-timeout', '0', '--', 'x'], 2, 'stderr']
]) {
    const [viaNpx, direct] = [await run('npx', args), await run('bare', args)];
    check(rule, viaNpx.code === code && direct.code === code, `npx ${viaNpx.code}, bare ${direct.code}: ${viaNpx.stderr}`);
    same(`${rule}: the bytes`, 'npx', viaNpx[stream].toString('base64'), direct[stream].toString('base64'));
    if (stream === 'stderr') same(`${rule}: stdout is empty`, 'npx', viaNpx.stdout.length, 0);
}

const requests = [
    initialize,
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo\u2028"bytes"' } } },
    { jsonrpc: '2.0', id: 'four', method: 'ping' }
];
{
    const [viaNpx, direct] = [await session('npx', peer, requests, true), await session('bare', peer, requests, true)];
    check('a session with the Python peer ends at the end of stdin with exit 0', viaNpx.code === 0 && direct.code === 0, `${viaNpx.code} ${direct.code}\n${viaNpx.stderr}`);
    same('a session with the Python peer: every byte of stdout', 'npx', viaNpx.stdout.toString('base64'), direct.stdout.toString('base64'));
    check('a session with the Python peer: four answers', viaNpx.stdout.toString().trim().split('\n').length === 4, viaNpx.stdout.toString());
}
{
    // The scripted upstream's tool `exit` stops it: exit 1 after the grace,
    // with stdin still open.
    const exitRequests = [initialize, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'exit', arguments: {} } }];
    const upstream = ['--', python, fake];
    const [viaNpx, direct] = [await session('npx', upstream, exitRequests, false), await session('bare', upstream, exitRequests, false)];
    check('the upstream command stops: exit 1 with stdin open', viaNpx.code === 1 && direct.code === 1, `${viaNpx.code} ${direct.code}\n${viaNpx.stderr}`);
    same('the upstream command stops: every byte of stdout', 'npx', viaNpx.stdout.toString('base64'), direct.stdout.toString('base64'));
}

// --- the data path and the process tree ---------------------------------------------------------

{
    const p = start(...ways.npx(peer));
    p.child.stdin.write(JSON.stringify(initialize) + '\n');
    await p.lines(1);
    const below = tree(p.child.pid);
    const bridge = below.find((q) => q.exe === bare);
    check('npx starts the binary of the platform package', bridge !== undefined, JSON.stringify(below));
    const chain = [];
    for (let q = bridge; q; q = below.find((r) => r.pid === q.ppid)) chain.unshift(q);
    const names = ['npx', ...chain.map((q) => (q.exe === process.execPath ? 'node' : q.comm))];
    const rss = [{ pid: p.child.pid }, ...chain].map((q) => {
        try {
            return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${q.pid}/status`, 'utf8'))?.[1] ?? 0);
        } catch {
            return 0;
        }
    });
    console.log(`  the tree: ${names.join(' -> ')}; RSS ${rss.map((k) => (k / 1024).toFixed(1)).join(' + ')} MiB`);
    check(
        "the binary's stdin and stdout are the client's pipes: no process relays the bytes",
        fd(bridge.pid, 0) === fd(p.child.pid, 0) && fd(bridge.pid, 1) === fd(p.child.pid, 1),
        `npx ${fd(p.child.pid, 0)} ${fd(p.child.pid, 1)}, bridge ${fd(bridge.pid, 0)} ${fd(bridge.pid, 1)}`
    );
    const launcherAlive = chain.some((q) => q.exe === process.execPath && q.pid !== p.child.pid);
    check(
        execs ? 'with process.execve no launcher process is left' : 'without process.execve the launcher waits as the parent',
        launcherAlive === !execs,
        names.join(' -> ')
    );
    p.child.stdin.end();
    const end = await p.end();
    check('the end of stdin ends npx, the launcher and the binary with exit 0', end.code === 0 && (await waitGone(bridge.pid, 5000)), `${end.code}`);
}

// --- termination signals -------------------------------------------------------------------------

for (const signal of ['SIGTERM', 'SIGINT']) {
    const results = {};
    for (const [way, command] of [
        ['launcher', launcher],
        ['bare', bare]
    ]) {
        const p = start(command, peer);
        p.child.stdin.write(JSON.stringify(initialize) + '\n');
        await p.lines(1);
        const bridge = [{ pid: p.child.pid, exe: realpathSync(`/proc/${p.child.pid}/exe`) }, ...tree(p.child.pid)].find((q) => q.exe === bare);
        p.child.kill(signal);
        const end = await p.end();
        results[way] = { code: end.code, signal: end.signal, gone: await waitGone(bridge.pid, 5000) };
    }
    same(`${signal} to the launcher ends it as it ends the binary`, 'launcher', results.launcher, results.bare);
    check(`${signal}: the binary is gone, killed by ${signal}`, results.bare.signal === signal && results.bare.gone, JSON.stringify(results));
}
{
    // npm runs the bin through `sh -c`, which does not pass a signal on; the
    // bridge then ends at the end of its stdin, which a client closes.
    const p = start(...ways.npx(peer));
    p.child.stdin.write(JSON.stringify(initialize) + '\n');
    await p.lines(1);
    const bridge = tree(p.child.pid).find((q) => q.exe === bare);
    p.child.kill('SIGTERM');
    const end = await p.end();
    p.child.stdin.destroy();
    const gone = await waitGone(bridge.pid, 5000);
    console.log(`  SIGTERM to npx: npx ended with ${end.signal ?? `exit ${end.code}`}`);
    check('SIGTERM to npx, then the end of stdin: the binary is gone', gone);
}

// --- a real client: the TypeScript SDK 1.x through npx ---------------------------------------------

async function sdkSession(command) {
    const quiet = { ...env, MCP_BRIDGE_LOG: 'warn' };
    const p = spawn(process.execPath, [clientDriver, 'basic', '--', ...command], { cwd: dir, env: quiet, stdio: ['ignore', 'pipe', 'inherit'] });
    const out = [];
    p.stdout.on('data', (chunk) => out.push(chunk));
    const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
    await new Promise((resolve) => p.on('close', resolve));
    clearTimeout(timer);
    return JSON.parse(Buffer.concat(out).toString());
}
{
    const [viaNpx, direct] = [await sdkSession([...ways.npx(peer).flat()]), await sdkSession([bare, ...peer])];
    check('the SDK client through npx: initialized, no driver error', viaNpx.initialize?.ok === true && viaNpx.driverError === null, JSON.stringify(viaNpx).slice(0, 2000));
    same('the SDK client through npx: the initialize result', 'npx', viaNpx.initialize.wire, direct.initialize.wire);
    same('the SDK client through npx: every step, as the SDK and the wire have it', 'npx', viaNpx.steps, direct.steps);
    check('the SDK client through npx: every step answered', Object.values(viaNpx.steps).every((s) => s.answered), JSON.stringify(viaNpx.steps).slice(0, 2000));
    same('the SDK client through npx: exit 0 at the end of stdin', 'npx', viaNpx.bridgeExit, { code: 0, signal: null });
}
