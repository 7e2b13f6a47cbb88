#!/usr/bin/env node
// The conformance run of mcp-bridge-vscode: the official MCP conformance suite
// (npm @modelcontextprotocol/conformance 0.2.0-alpha.12) on both faces of the
// bridge. Started by scripts/conformance, with the Node 22 of
// scripts/install-conformance:
//
//   node run.mjs --bridge <mcp-bridge-vscode> --python <python of mcp==2.3.0>
//                [--face server|client|both] [--revisions <rev,...>]
//                [--only <regex>] [--out <dir>] [--markdown <file>]
//
// The server face (VS Code's side): the bridge's own HTTP face is the server
// under test, and the suite the client. For each revision of the clients
// that the face serves (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26; or
// those of --revisions), the run starts
// `<bridge> --listen 127.0.0.1:0 -- <python> fixture_server.py` (a face of its
// own, the port read from its line on stderr, checked in /proc/net to listen on
// loopback only) and runs the suite's server mode against
// http://127.0.0.1:PORT/mcp: `--requirements REV` where the installed suite has
// that requirement set (0.2.0-alpha.12: 2025-11-25, the scored scenarios and
// the not-scored ones), else `--spec-version REV` (its scenarios of that
// revision, as `conformance list --server --spec-version REV` names them; a
// revision the suite does not know is skipped with a line that says so). The
// suite's server mode initializes with the 2025-11-25 of its SDK in every
// scenario but server-session-lifecycle (which sends REV itself); REV chooses
// the scenarios and the schema its wire-schema-valid check holds each message
// of the face to. The suite has no scenario of HTTP+SSE (/sse, 2024-11-05).
// The face also serves clients of 2026-07-28, whose requests it relays
// upstream as they came; the run takes that revision too, with the suite's
// requirement set of it (`--requirements 2026-07-28`: 37 scored scenarios and
// 13 not scored; the suite sends stateless requests with the revision's _meta
// and never initializes). The fixture has the tools, prompts and resources of
// every one of them but the tasks-* scenarios, which are expected failures
// (neither the fixture's SDK nor the face has the tasks extension).
// After each revision the face gets SIGTERM and must exit 0 within
// LIMITS.faceStop, leaving no process behind (else the run fails).
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
// client to give up: the suite's allowClientError); else failed, or
// expected-fail when expected-failures.json names it (with its reason; a
// server entry `<scenario>@<revision>` names one revision only). A listed
// scenario that passes is a failure (the list must stay true). Prints one line
// per scenario, `<scenario>: <verdict>` (under a line per revision of the
// server face), then `N passed, N failed`; exits 1 on any unexpected result, 2
// for bad arguments. The suite's own results (checks.json per scenario) and
// the logs stay in --out (default .cache/conformance/run).
//
// Every process it starts gets MCP_BRIDGE_CONFORMANCE_RUN=<a mark of this run>
// in its environment; at the end (also on a failure, a time limit or a signal)
// every process left with the mark is killed.
// Every wait has a time limit.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(import.meta.url);
const suiteDir = path.dirname(require.resolve('@modelcontextprotocol/conformance/package.json'));
const suiteBin = path.join(suiteDir, 'dist/index.js');
const YAML = createRequire(path.join(suiteDir, 'package.json'))('yaml');
const node = process.execPath;

// The revisions of the server face that a run takes by default (--revisions
// chooses others), newest first: the 2026-07-28 clients that the face relays,
// then those of the clients that it translates for.
const SERVER_REVISIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];
const CLIENT_REVISION = '2026-07-28';
const LIMITS = {
    faceReady: 20_000,
    faceStop: 10_000, // SIGTERM ends every session and its upstream
    list: 20_000,
    serverRun: 300_000, // the scenarios of one revision; about 20 s
    serverScenario: 90_000,
    clientScenario: 75_000, // the suite gives the driver 30 s
    kill: 3_000
};
const CLIENT_WORKERS = 2;

// --- arguments ---------------------------------------------------------------

function usage(text) {
    process.stderr.write(
        `run.mjs: ${text}\nusage: node run.mjs --bridge <mcp-bridge-vscode> --python <python> ` +
            '[--face server|client|both] [--revisions <rev,...>] [--only <regex>] [--out <dir>] [--markdown <file>]\n'
    );
    process.exit(2);
}
const opts = { face: 'both', revisions: SERVER_REVISIONS, out: path.join(root, '.cache/conformance/run') };
for (let i = 2; i < process.argv.length; i++) {
    const key = process.argv[i];
    const value = process.argv[++i];
    if (value === undefined) usage(`${key} needs a value`);
    if (key === '--bridge') opts.bridge = path.resolve(value);
    else if (key === '--python') opts.python = path.resolve(value);
    else if (key === '--face') opts.face = value;
    else if (key === '--revisions') opts.revisions = value.split(',').filter(Boolean);
    else if (key === '--only') opts.only = new RegExp(value);
    else if (key === '--out') opts.out = path.resolve(value);
    else if (key === '--markdown') opts.markdown = path.resolve(value);
    else usage(`unknown argument ${key}`);
}
if (!['server', 'client', 'both'].includes(opts.face)) usage(`--face ${opts.face}: server, client or both`);
for (const r of opts.revisions) if (!SERVER_REVISIONS.includes(r)) usage(`--revisions: ${r} is none of ${SERVER_REVISIONS.join(', ')}`);
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

// --- the face -------------------------------------------------------------------

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

// The one line of the face on stderr once it listens.
const READY = /^mcp-bridge-vscode: listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp \(Streamable HTTP\) and http:\/\/127\.0\.0\.1:\1\/sse \(HTTP\+SSE\)$/m;

/**
 * `<bridge> --listen 127.0.0.1:0 -- <python> fixture_server.py`, its stderr in
 * `<label>.log`; resolves when its line names the port and the port listens on
 * loopback only. stop() sends SIGTERM and tells how it ended.
 */
async function startFace(label) {
    const log = path.join(opts.out, `${label}.log`);
    const fixture = path.join(here, 'fixture_server.py');
    const child = start(opts.bridge, ['--listen', '127.0.0.1:0', '--', opts.python, fixture], { log });
    let stopped = null;
    const stop = () => {
        stopped ??= (async () => {
            if (child.exitCode === null && child.signalCode === null) {
                try {
                    process.kill(child.pid, 'SIGTERM');
                } catch {
                    // gone
                }
            }
            const end = await bounded(child, LIMITS.faceStop);
            // Its sessions' fixtures are its children: none may be left.
            const left = marked().filter((pid) => pid !== child.pid);
            return { ...end, left };
        })();
        return stopped;
    };
    const deadline = Date.now() + LIMITS.faceReady;
    let port = null;
    for (;;) {
        let text = '';
        try {
            text = fs.readFileSync(log, 'utf8');
        } catch {
            // not yet
        }
        const m = READY.exec(text);
        if (m) {
            port = Number(m[1]);
            break;
        }
        if (child.exitCode !== null || child.signalCode !== null) {
            await stop();
            const how = child.exitCode ?? child.signalCode;
            throw new Error(`the face (${label}) exited with ${how} before it said that it listens; its log: ${log}`);
        }
        if (Date.now() > deadline) {
            await stop();
            throw new Error(`the face (${label}) did not say that it listens within ${LIMITS.faceReady} ms; its log: ${log}`);
        }
        await sleep(50);
    }
    const addresses = listeners(port);
    if (addresses.length === 0 || addresses.some((a) => !LOOPBACK_HEX.has(a))) {
        await stop();
        const where = addresses.join(', ') || 'nothing';
        throw new Error(`the face (${label}) listens on ${where} for port ${port}, not on loopback only`);
    }
    return { url: `http://127.0.0.1:${port}/mcp`, stop, log };
}

// --- the suite's results -------------------------------------------------------

function requirementsFile(revision) {
    return path.join(suiteDir, 'requirements', `${revision}.yaml`);
}

function requirements(revision) {
    return YAML.parse(fs.readFileSync(requirementsFile(revision), 'utf8'));
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

/**
 * [{name, notScored}] of the suite's server scenarios of `revision`, as
 * `conformance list --server --spec-version <revision>` names them (what
 * `server --spec-version <revision>` runs); null when the suite does not know
 * the revision.
 */
async function serverScenariosAt(revision) {
    const log = path.join(opts.out, `server-${revision}-list.log`);
    const child = start(node, [suiteBin, 'list', '--server', '--spec-version', revision], { log });
    const end = await bounded(child, LIMITS.list);
    const text = fs.readFileSync(log, 'utf8');
    if (end.timedOut) {
        throw new Error(`conformance list --spec-version ${revision} did not end in ${LIMITS.list} ms (log: ${log})`);
    }
    if (end.code !== 0) {
        if (/Unknown spec version/.test(text)) return null;
        throw new Error(`conformance list --spec-version ${revision} failed (log: ${log})`);
    }
    return [...text.matchAll(/^ {2}- (\S+)/gm)]
        .map((m) => ({ name: m[1], notScored: null }))
        .filter((s) => !opts.only || opts.only.test(s.name));
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
    const more = (list) => {
        if (list.length < 2) return '';
        const ids = list.slice(1, 6).map((c) => c.id);
        return ` (and ${list.length - 1} more: ${ids.join(', ')}${list.length > 6 ? ', ...' : ''})`;
    };
    if (failed.length > 0) return { ok: false, why: `check ${show(failed[0])}${more(failed)}` };
    if (warned.length > 0) return { ok: false, why: `warning ${show(warned[0])}${more(warned)}` };
    if (driver?.counts) {
        return { ok: false, why: `the driver failed: ${driver.error ?? 'it wrote no report'}` };
    }
    return { ok: true, why: `${checks.filter((c) => c.status === 'SUCCESS').length} checks passed` };
}

const expected = readJson(path.join(here, 'expected-failures.json'));
/** The entry of `name` (at `revision`, for the server face: `<name>@<revision>` first). */
function expectation(face, name, revision) {
    const list = expected[face] ?? {};
    if (revision && list[`${name}@${revision}`]) return list[`${name}@${revision}`];
    if (list[name]) return list[name];
    const prefix = Object.keys(list).find((k) => k.endsWith('/*') && name.startsWith(k.slice(0, -1)));
    return prefix ? list[prefix] : null;
}

// --- verdicts --------------------------------------------------------------------

const rows = []; // {face, name, verdict, text}
let passed = 0;
let failed = 0;
let expectedFails = 0;

function record(face, scenario, result, revision) {
    const exp = expectation(face, scenario.name, revision);
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
    } else {
        verdict = 'expected-fail';
        text = `(${exp.reason})`;
        expectedFails++;
    }
    rows.push({ face, revision, name: scenario.name, verdict, reason: exp?.reason, notScored: scenario.notScored, detail: result.why });
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

/** The suite against a face of its own at one revision of the face. */
async function serverRevision(revision) {
    const byRequirements = fs.existsSync(requirementsFile(revision));
    const scenarios = byRequirements ? scenariosOf(revision, 'server') : await serverScenariosAt(revision);
    if (scenarios === null) {
        say(`== the server face at ${revision}: the suite has no scenarios of this revision; skipped`);
        return;
    }
    if (scenarios.length === 0) return;
    const how = byRequirements ? ['--requirements', revision] : ['--spec-version', revision];
    say(`== the server face at ${revision}: the suite (server ${how.join(' ')}) -> mcp-bridge-vscode --listen ` +
        `127.0.0.1:0, /mcp -> fixture_server.py (${scenarios.length} scenarios)`);
    const outDir = path.join(opts.out, 'server', revision);
    const face = await startFace(`server-${revision}-face`);
    let results;
    let end;
    try {
        if (opts.only) {
            results = new Map();
            for (const s of scenarios) {
                const one = await suiteServer(face.url, ['--scenario', s.name, '--spec-version', revision, '--force'],
                    outDir, LIMITS.serverScenario, `server-${revision}-${s.name}`);
                for (const [k, v] of one) results.set(k, v);
            }
        } else {
            results = await suiteServer(face.url, how, outDir, LIMITS.serverRun, `server-${revision}-suite`);
        }
    } finally {
        end = await face.stop();
    }
    for (const s of scenarios) record('server', s, judge(results.get(s.name)), revision);
    // SIGTERM ends every session and its upstream, and the face exits 0.
    const problems = [];
    if (end.timedOut) problems.push(`it did not exit within ${LIMITS.faceStop} ms of SIGTERM (killed)`);
    else if (end.code !== 0) problems.push(`it exited with ${end.code ?? end.signal}`);
    if (end.left.length > 0) problems.push(`${end.left.length} process(es) of its sessions were left (killed)`);
    if (problems.length > 0) {
        say(`the face at ${revision}: failed (SIGTERM: ${problems.join('; ')}; its log: ${face.log})`);
        failed++;
    }
    sweep();
}

async function serverFace() {
    const started = Date.now();
    for (const revision of opts.revisions) await serverRevision(revision);
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
    const tables = [
        ...opts.revisions.map((revision) => ({
            title: `server scenario (${revision})`,
            list: rows.filter((r) => r.face === 'server' && r.revision === revision)
        })),
        { title: `client scenario (${CLIENT_REVISION})`, list: rows.filter((r) => r.face === 'client') }
    ];
    for (const { title, list } of tables) {
        if (list.length === 0) continue;
        lines.push(`| ${title} | result | why |`, '| --- | --- | --- |');
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
