#!/usr/bin/env node
// The conformance run of mcp-bridge-vscode: the official MCP conformance suite
// (npm @modelcontextprotocol/conformance 0.2.0-alpha.12) on both faces of the
// bridge. Started by scripts/conformance, with the Node 22 of
// scripts/install-conformance:
//
//   node run.mjs --bridge <mcp-bridge-vscode> --python <python of mcp==2.3.0>
//                [--face server|client|both] [--only <regex>] [--out <dir>]
//                [--markdown <file>]
//
// The server face (VS Code's side): the suite is a 2025-11-25 client and the
// bridge the server under test. The suite speaks HTTP only, so supergateway
// 4.0.0 (--stateful, one bridge per session, bound to 127.0.0.1 by
// loopback.cjs) stands in front of `<bridge> -- <python> fixture_server.py`,
// and the suite runs `server --requirements 2025-11-25` against it. A scenario
// listed with withoutBridge in expected-failures.json also runs against the
// same fixture behind supergateway WITHOUT the bridge: its failure is expected
// only when it fails there too.
//
// The client face (the upstream's side): the suite's mock 2026-07-28 servers
// and the bridge as the client under test. For each client scenario of the
// requirement set 2026-07-28 (the scored ones and the not-scored ones), the
// suite runs client-driver.mjs, which starts `<bridge> <scenario URL>` and
// plays VS Code on its stdio side.
//
// Verdict of a scenario: passed when no check failed or warned (a warning
// counts, as in the suite's single-scenario mode) and the driver did what the
// scenario asks (its error exit counts, except where the scenario expects the
// client to give up: the suite's allowClientError); else failed, or expected-fail when expected-failures.json
// names it (with its reason). A listed scenario that passes is a failure (the
// list must stay true). Prints one line per scenario, `<scenario>: <verdict>`,
// then `N passed, N failed`; exits 1 on any unexpected result, 2 for bad
// arguments. The suite's own results (checks.json per scenario) and the logs
// stay in --out (default .cache/conformance/run).
//
// Every process it starts gets MCP_BRIDGE_CONFORMANCE_RUN=<a mark of this run>
// in its environment; at the end (also on a failure, a time limit or a signal)
// the gateways are stopped and every process left with the mark is killed.
// Every wait has a time limit.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(import.meta.url);
const suiteDir = path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json'));
const suiteBin = path.join(suiteDir, 'dist/index.js');
const gatewayBin = path.join(path.dirname(require.resolve('supergateway/package.json')), 'dist/index.js');
const YAML = createRequire(path.join(suiteDir, 'package.json'))('yaml');
const node = process.execPath;

const SERVER_REVISION = '2025-11-25';
const CLIENT_REVISION = '2026-07-28';
const LIMITS = {
    gatewayReady: 20_000,
    gatewayStop: 10_000,
    serverRun: 300_000, // the whole requirement set; about 20 s
    serverScenario: 90_000,
    clientScenario: 75_000, // the suite gives the driver 30 s
    kill: 3_000
};
const CLIENT_WORKERS = 2;

// --- arguments ---------------------------------------------------------------

function usage(text) {
    process.stderr.write(
        `run.mjs: ${text}\nusage: node run.mjs --bridge <mcp-bridge-vscode> --python <python> ` +
            '[--face server|client|both] [--only <regex>] [--out <dir>] [--markdown <file>]\n'
    );
    process.exit(2);
}
const opts = { face: 'both', out: path.join(root, '.cache/conformance/run') };
for (let i = 2; i < process.argv.length; i++) {
    const key = process.argv[i];
    const value = process.argv[++i];
    if (value === undefined) usage(`${key} needs a value`);
    if (key === '--bridge') opts.bridge = path.resolve(value);
    else if (key === '--python') opts.python = path.resolve(value);
    else if (key === '--face') opts.face = value;
    else if (key === '--only') opts.only = new RegExp(value);
    else if (key === '--out') opts.out = path.resolve(value);
    else if (key === '--markdown') opts.markdown = path.resolve(value);
    else usage(`unknown argument ${key}`);
}
if (!['server', 'client', 'both'].includes(opts.face)) usage(`--face ${opts.face}: server, client or both`);
if (!opts.bridge) usage('--bridge is required');
for (const [what, file] of [['--bridge', opts.bridge], ['--python', opts.python]]) {
    if (file === undefined) continue;
    try {
        fs.accessSync(file, fs.constants.X_OK);
    } catch {
        usage(`${what} ${file} is not an executable file`);
    }
}
if (opts.face !== 'client' && !opts.python) usage('--python is required for the server face');
// The suite splits --command on spaces.
for (const p of [node, here]) if (/\s/.test(p)) usage(`the path ${p} has a space; the suite cannot run it`);

// --- processes ---------------------------------------------------------------

const MARK = `${process.pid}-${Date.now()}`;
const baseEnv = { ...process.env, MCP_BRIDGE_CONFORMANCE_RUN: MARK };
const live = new Set();

function say(text) {
    process.stdout.write(`${text}\n`);
}
function note(text) {
    process.stderr.write(`conformance: ${text}\n`);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a process in its own process group, its output into `log`. */
function start(command, args, { log, env = baseEnv, stdin = 'ignore' }) {
    fs.mkdirSync(path.dirname(log), { recursive: true });
    const fd = fs.openSync(log, 'a');
    const child = spawn(command, args, { detached: true, stdio: [stdin, fd, fd], env });
    fs.closeSync(fd);
    live.add(child);
    child.exited = new Promise((resolve) =>
        child.once('exit', (code, signal) => {
            live.delete(child);
            resolve({ code, signal });
        })
    );
    child.once('error', (error) => note(`cannot start ${command}: ${error.message}`));
    return child;
}

function killGroup(child, signal) {
    try {
        process.kill(-child.pid, signal);
    } catch {
        // the group is gone
    }
}

/** Waits for `child` at most `ms`; then SIGTERM and SIGKILL its group. */
async function bounded(child, ms) {
    const timer = sleep(ms).then(() => 'timeout');
    const first = await Promise.race([child.exited, timer]);
    if (first !== 'timeout') return { ...first, timedOut: false };
    killGroup(child, 'SIGTERM');
    const second = await Promise.race([child.exited, sleep(LIMITS.kill).then(() => 'timeout')]);
    if (second === 'timeout') killGroup(child, 'SIGKILL');
    const end = await Promise.race([child.exited, sleep(LIMITS.kill).then(() => ({ code: null, signal: 'SIGKILL' }))]);
    return { ...end, timedOut: true };
}

/** The processes that carry the mark of this run (started by it, at any depth). */
function marked() {
    const found = [];
    for (const entry of fs.readdirSync('/proc')) {
        if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
        try {
            const environ = fs.readFileSync(`/proc/${entry}/environ`, 'latin1');
            if (environ.split('\0').includes(`MCP_BRIDGE_CONFORMANCE_RUN=${MARK}`)) found.push(Number(entry));
        } catch {
            // gone, or not ours to read
        }
    }
    return found;
}

function sweep() {
    for (const child of live) killGroup(child, 'SIGKILL');
    const left = marked();
    for (const pid of left) {
        try {
            process.kill(pid, 'SIGKILL');
        } catch {
            // gone
        }
    }
    return left.length;
}

process.on('exit', () => sweep());
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
        note(`${signal}: stopping`);
        sweep();
        process.exit(130);
    });
}

// --- supergateway on loopback --------------------------------------------------

function freePort() {
    return new Promise((resolve, reject) => {
        const server = net.createServer();
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
            const { port } = server.address();
            server.close(() => resolve(port));
        });
    });
}

function connects(port) {
    return new Promise((resolve) => {
        const socket = net.connect({ port, host: '127.0.0.1' });
        const done = (ok) => {
            socket.destroy();
            resolve(ok);
        };
        socket.once('connect', () => done(true));
        socket.once('error', () => done(false));
        socket.setTimeout(1_000, () => done(false));
    });
}

/** The local addresses of the listening TCP sockets on `port` (/proc/net). */
function listeners(port) {
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    const found = [];
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
        let text = '';
        try {
            text = fs.readFileSync(table, 'utf8');
        } catch {
            continue;
        }
        for (const line of text.split('\n').slice(1)) {
            const [, local, , state] = line.trim().split(/\s+/);
            if (state === '0A' && local?.endsWith(`:${hexPort}`)) found.push(local.split(':')[0]);
        }
    }
    return found;
}
const LOOPBACK_HEX = new Set([
    '0100007F', // 127.0.0.1
    '00000000000000000000000001000000', // ::1
    '0000000000000000FFFF00000100007F' // ::ffff:127.0.0.1
]);

/** supergateway --stateful in front of the shell command `stdio`, on loopback. */
async function startGateway(stdio, label) {
    const port = await freePort();
    const log = path.join(opts.out, `${label}.log`);
    const child = start(
        node,
        [
            '--require',
            path.join(here, 'loopback.cjs'),
            gatewayBin,
            '--stdio',
            stdio,
            '--outputTransport',
            'streamableHttp',
            '--stateful',
            '--port',
            String(port)
        ],
        // supergateway stops when its stdin closes: this pipe ends with this run.
        { log, stdin: 'pipe' }
    );
    const stop = async () => {
        child.stdin.end();
        const end = await bounded(child, LIMITS.gatewayStop);
        if (end.timedOut) note(`${label}: supergateway did not stop in ${LIMITS.gatewayStop} ms; killed`);
    };
    const deadline = Date.now() + LIMITS.gatewayReady;
    while (!(await connects(port))) {
        if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
            await stop();
            throw new Error(`supergateway (${label}) did not listen on 127.0.0.1:${port}; its log: ${log}`);
        }
        await sleep(100);
    }
    const addresses = listeners(port);
    if (addresses.length === 0 || addresses.some((a) => !LOOPBACK_HEX.has(a))) {
        await stop();
        throw new Error(`supergateway (${label}) listens on ${addresses.join(', ') || 'nothing'} for port ${port}, not on loopback only`);
    }
    return { url: `http://127.0.0.1:${port}/mcp`, stop, log };
}

const quote = (p) => `'${p.replaceAll("'", "'\\''")}'`;

// --- the suite's results -------------------------------------------------------

function requirements(revision) {
    return YAML.parse(fs.readFileSync(path.join(suiteDir, 'requirements', `${revision}.yaml`), 'utf8'));
}

/** [{name, notScored}] of one leg of a requirement set, in its order. */
function scenariosOf(revision, leg) {
    const set = requirements(revision);
    const list = (set[leg] ?? []).map((name) => ({ name, notScored: null }));
    for (const entry of set.not_scored ?? []) {
        if (entry.leg === leg) list.push({ name: entry.scenario, notScored: entry.reason });
    }
    return list.filter((s) => !opts.only || opts.only.test(s.name));
}

function readJson(file) {
    try {
        return JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch {
        return null;
    }
}

/** Every checks.json under `dir`, by the folder the suite made for it. */
function checkFiles(dir) {
    const found = [];
    const walk = (d) => {
        for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
            const p = path.join(d, entry.name);
            if (entry.isDirectory()) walk(p);
            else if (entry.name === 'checks.json') found.push(p);
        }
    };
    if (fs.existsSync(dir)) walk(dir);
    return found;
}

/** The server scenarios' checks in `dir`: the suite names each folder server-<scenario>-<time>. */
function serverResults(dir) {
    const results = new Map();
    for (const file of checkFiles(dir)) {
        const m = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(path.basename(path.dirname(file)));
        if (m) results.set(m[1], readJson(file));
    }
    return results;
}

function judge(checks, driver) {
    if (!Array.isArray(checks)) return { ok: false, why: 'the suite wrote no checks for it (it did not run to its end)' };
    const failed = checks.filter((c) => c.status === 'FAILURE');
    const warned = checks.filter((c) => c.status === 'WARNING');
    const show = (c) => `${c.id}: ${(c.errorMessage ?? c.description ?? '').split('\n')[0]}`;
    const more = (list) => (list.length > 1 ? ` (and ${list.length - 1} more)` : '');
    if (failed.length > 0) return { ok: false, why: `check ${show(failed[0])}${more(failed)}` };
    if (warned.length > 0) return { ok: false, why: `warning ${show(warned[0])}${more(warned)}` };
    if (driver?.counts) {
        return { ok: false, why: `the driver failed: ${driver.error ?? 'it wrote no report'}` };
    }
    return { ok: true, why: `${checks.filter((c) => c.status === 'SUCCESS').length} checks passed` };
}

const expected = readJson(path.join(here, 'expected-failures.json'));
function expectation(face, name) {
    const list = expected[face] ?? {};
    if (list[name]) return list[name];
    const prefix = Object.keys(list).find((k) => k.endsWith('/*') && name.startsWith(k.slice(0, -1)));
    return prefix ? list[prefix] : null;
}

// --- verdicts --------------------------------------------------------------------

const rows = []; // {face, name, verdict, text}
let passed = 0;
let failed = 0;
let expectedFails = 0;

function record(face, scenario, result, { baseline } = {}) {
    const exp = expectation(face, scenario.name);
    const tag = scenario.notScored ? `not scored: ${scenario.notScored}; ` : '';
    let verdict;
    let text;
    if (result.ok && !exp) {
        verdict = 'passed';
        text = scenario.notScored ? `(${tag.slice(0, -2)})` : '';
        passed++;
    } else if (result.ok) {
        verdict = 'failed';
        text = `(it passes, but expected-failures.json lists it as failing: remove it there; ${result.why})`;
        failed++;
    } else if (!exp) {
        verdict = 'failed';
        text = `(${tag}${result.why})`;
        failed++;
    } else if (exp.withoutBridge && baseline?.ok) {
        verdict = 'failed';
        text = `(${result.why}; it PASSES through supergateway without the bridge, so the bridge is the cause)`;
        failed++;
    } else if (exp.withoutBridge && !baseline) {
        verdict = 'failed';
        text = `(${result.why}; the run without the bridge gave no result)`;
        failed++;
    } else {
        verdict = 'expected-fail';
        text = `(${exp.reason})`;
        expectedFails++;
    }
    rows.push({ face, name: scenario.name, verdict, reason: exp?.reason, notScored: scenario.notScored, detail: result.why });
    say(`${scenario.name}: ${verdict}${text ? ` ${text}` : ''}`);
}

// --- the server face -----------------------------------------------------------

async function suiteServer(url, args, outDir, limit, label) {
    const child = start(node, [suiteBin, 'server', '--url', url, '-o', outDir, ...args], {
        log: path.join(opts.out, `${label}.log`)
    });
    const end = await bounded(child, limit);
    if (end.timedOut) note(`${label}: the suite did not end in ${limit} ms; killed (log: ${label}.log)`);
    return serverResults(outDir);
}

async function serverFace() {
    const scenarios = scenariosOf(SERVER_REVISION, 'server');
    if (scenarios.length === 0) return;
    const started = Date.now();
    say(`== the server face: the suite as a ${SERVER_REVISION} client, supergateway 4.0.0 -> mcp-bridge-vscode -> fixture_server.py (${scenarios.length} scenarios)`);
    const fixture = `${quote(opts.python)} ${quote(path.join(here, 'fixture_server.py'))}`;
    let results;
    const gateway = await startGateway(`${quote(opts.bridge)} -- ${fixture}`, 'server-gateway');
    try {
        if (opts.only) {
            results = new Map();
            for (const s of scenarios) {
                const one = await suiteServer(gateway.url, ['--scenario', s.name, '--spec-version', SERVER_REVISION, '--force'],
                    path.join(opts.out, 'server'), LIMITS.serverScenario, `server-${s.name}`);
                for (const [k, v] of one) results.set(k, v);
            }
        } else {
            results = await suiteServer(gateway.url, ['--requirements', SERVER_REVISION], path.join(opts.out, 'server'),
                LIMITS.serverRun, 'server-suite');
        }
    } finally {
        await gateway.stop();
    }

    // The same fixture behind supergateway without the bridge, for the
    // failures that the list puts on supergateway.
    const withoutBridge = scenarios.filter((s) => expectation('server', s.name)?.withoutBridge && !judge(results.get(s.name)).ok);
    const baselines = new Map();
    if (withoutBridge.length > 0) {
        const plain = await startGateway(fixture, 'server-gateway-without-bridge');
        try {
            for (const s of withoutBridge) {
                const one = await suiteServer(plain.url, ['--scenario', s.name, '--spec-version', SERVER_REVISION, '--force'],
                    path.join(opts.out, 'server-without-bridge'), LIMITS.serverScenario, `server-without-bridge-${s.name}`);
                if (one.has(s.name)) baselines.set(s.name, judge(one.get(s.name)));
            }
        } finally {
            await plain.stop();
        }
    }
    const left = sweep();
    if (left > 0) note(`${left} process(es) of the server face were still running after the gateways stopped; killed`);
    for (const s of scenarios) {
        record('server', s, judge(results.get(s.name)), { baseline: baselines.get(s.name) });
    }
    say(`(the server face took ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

// --- the client face -------------------------------------------------------------

async function clientScenario(s) {
    const slug = s.name.replaceAll('/', '_');
    const dir = path.join(opts.out, 'client', slug);
    const report = path.join(opts.out, 'client', `${slug}.driver.json`);
    fs.rmSync(report, { force: true });
    const env = { ...baseEnv, MCP_BRIDGE_BIN: opts.bridge, MCP_BRIDGE_DRIVER_REPORT: report };
    const child = start(
        node,
        [suiteBin, 'client', '--command', `${node} ${path.join(here, 'client-driver.mjs')}`, '--scenario', s.name,
            // --force: the requirement set decides what runs, as with `client --requirements`
            // (the extension scenarios are on no spec timeline).
            '--spec-version', CLIENT_REVISION, '--force', '--timeout', '30000', '-o', dir],
        { log: path.join(opts.out, 'client', `${slug}.log`), env }
    );
    const end = await bounded(child, LIMITS.clientScenario);
    if (end.timedOut) note(`${s.name}: the suite did not end in ${LIMITS.clientScenario} ms; killed`);
    const files = checkFiles(dir);
    const driver = readJson(report);
    // The suite's own rule: an exit of the client with an error counts, except
    // in the scenarios where the client must give up (allowClientError); then
    // the suite does not print this line.
    let suiteLog = '';
    try {
        suiteLog = fs.readFileSync(path.join(opts.out, 'client', `${slug}.log`), 'utf8');
    } catch {
        // no log: no checks either
    }
    const counts = /CLIENT EXITED WITH ERROR|CLIENT TIMED OUT/.test(suiteLog);
    return {
        checks: files.length === 1 ? readJson(files[0]) : null,
        driver: { ...driver, counts, error: driver?.error ?? (counts ? 'it wrote no report' : null) }
    };
}

async function clientFace() {
    const scenarios = scenariosOf(CLIENT_REVISION, 'client');
    if (scenarios.length === 0) return;
    const started = Date.now();
    say(`== the client face: the suite's mock ${CLIENT_REVISION} servers, mcp-bridge-vscode <URL> as the client, driven by client-driver.mjs (${scenarios.length} scenarios)`);
    const results = new Array(scenarios.length);
    let next = 0;
    const worker = async () => {
        while (next < scenarios.length) {
            const i = next++;
            results[i] = await clientScenario(scenarios[i]);
        }
    };
    await Promise.all(Array.from({ length: CLIENT_WORKERS }, worker));
    const left = sweep();
    if (left > 0) note(`${left} process(es) of the client face were still running at its end; killed`);
    const lingering = [];
    scenarios.forEach((s, i) => {
        const { checks, driver } = results[i];
        record('client', s, judge(checks, driver));
        const exit = driver?.bridgeExit;
        if (exit && exit.code !== 0) lingering.push(s.name);
    });
    if (lingering.length > 0) {
        say(`note: after the end of its input the bridge did not exit by itself in ${lingering.length} of ${scenarios.length} scenarios ` +
            `(the driver's SDK ended it with SIGTERM after 2 s; see <out>/client/*.driver.json): ${lingering.join(', ')}`);
    }
    say(`(the client face took ${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

// --- main --------------------------------------------------------------------------

function markdown() {
    const lines = [];
    for (const face of ['server', 'client']) {
        const list = rows.filter((r) => r.face === face);
        if (list.length === 0) continue;
        lines.push(`| ${face} scenario | result | why |`, '| --- | --- | --- |');
        for (const r of list) {
            const why = r.verdict === 'expected-fail' ? r.reason : r.verdict === 'failed' ? r.detail : r.notScored ? `not scored (${r.notScored})` : '';
            lines.push(`| \`${r.name}\` | ${r.verdict} | ${(why ?? '').replaceAll('|', '\\|')} |`);
        }
        lines.push('');
    }
    fs.writeFileSync(opts.markdown, lines.join('\n'));
}

const begun = Date.now();
fs.rmSync(opts.out, { recursive: true, force: true });
fs.mkdirSync(opts.out, { recursive: true });
try {
    if (opts.face !== 'client') await serverFace();
    if (opts.face !== 'server') await clientFace();
} catch (error) {
    say(`conformance: the run broke: ${error.message}`);
    failed++;
}
sweep();
if (opts.markdown) markdown();
say(`(the results and logs are in ${opts.out}; the run took ${((Date.now() - begun) / 1000).toFixed(0)} s)`);
if (expectedFails > 0) say(`${expectedFails} expected-fail (tests/conformance/expected-failures.json gives each reason)`);
say(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
