// Real MCP clients against mcp-bridge-vscode (issue 37, "Every MCP client").
// scripts/clients installs the clients (scripts/install-clients) and runs this
// file on the Node 24 of .cache/clients, by default inside a network namespace
// of its own with only the loopback (no network but 127.0.0.1):
//
//   node run.mjs --bridge <mcp-bridge-vscode> --cache <.cache/clients> [--only <id>,...] [--isolation <what>]
//
// Each client is installed from npm at the version pinned in package.json, gets
// a private HOME (and XDG folders, CODEX_HOME) under a fresh temporary folder,
// and is configured the way its own documentation says, with the bundled demo
// server (6 tools: add, tag_items, list_primes, slow_count, ask_name, add_tool)
// in one of its forms:
//
//   (a)         bridged, with --     mcp-bridge-vscode -- mcp-bridge-vscode demo-server
//   (b)         bridged, without --  mcp-bridge-vscode mcp-bridge-vscode demo-server
//   (c)         embedded             mcp-bridge-vscode demo-server
//   (c-legacy)  embedded, discover refused (for a client that asks 2026-07-28 first)
//                                    mcp-bridge-vscode demo-server --refuse-discover
//   (d)         by URL               http://127.0.0.1:PORT/mcp, Streamable HTTP, of the face
//                                    mcp-bridge-vscode --listen 127.0.0.1:0 -- mcp-bridge-vscode demo-server
//   (e)         by URL, SSE          http://127.0.0.1:PORT/sse, HTTP+SSE (the 2024-11-05
//                                    transport) of the same face, for a client that offers it
//
// For (d) and (e) the driver starts the face, a fresh one for each client ×
// configuration, reads PORT from its one stderr line ("listening on
// http://127.0.0.1:PORT/mcp (Streamable HTTP) and ..."), configures the client
// with the URL as its documentation says for a remote server, runs the checks,
// then stops the face with SIGTERM.
//
// For every client × form it checks, each as one line (PASS, FAIL, or SKIP with
// the reason):
//
//   config  what the client stored (for the forms given through its `mcp add`):
//           the command line, or for (d) and (e) the URL and the transport
//   health  its own status command shows the server connected
//   tools   the server's 6 tools are listed (by the client, or offered by it to the model)
//   add     add(2, 3) gives 5
//   face    (d) and (e): after SIGTERM the face exits 0 within 15 s and nothing of its
//           process group is left (the demo server of each session); for (e) a session
//           of HTTP+SSE began (the face logs each session: the transport the client
//           took). At /mcp none is asked: a client of 2026-07-28 takes the face's
//           stateless path, which begins no session.
//
// The clients, their versions, how each is configured and checked, and the
// revision each asks in `initialize`. That is measured through relay.mjs in
// front of the bridge, and for (d) and (e) through http-relay.mjs, a logging
// HTTP relay in front of a face of its own (every request, its status, and
// each message of its JSON or SSE body, in logs/*-http-relay.txt); every run
// measures it again (an INFO line, not a check): the probe runs the client's
// status command and, for a chat client, one chat too (Gemini CLI and Qwen
// Code connect with another clientInfo for `mcp list` than for a chat). When
// a chat client's server is missing, an INFO "why" line gives the client's own
// reason (from --debug) where it prints one.
//
//   baseline   this driver itself, by hand over stdin (not a product): initialize
//              (2025-11-25), tools/list, tools/call; forms a, b, c. By URL with
//              fetch: (d) POST initialize (JSON and its Mcp-Session-Id), the
//              initialized notification (202), tools/list and tools/call (SSE
//              streams), DELETE; (e) GET /sse, its endpoint event, each message
//              POSTed there (202), initialize with 2024-11-05, the responses on the
//              stream. A failure here is the bridge's, whatever the clients say.
//   inspector  MCP Inspector CLI (@modelcontextprotocol/inspector 1.0.3), asks
//              2025-11-25. `mcp-inspector --cli <command> <args> --method tools/list`
//              and `--method tools/call --tool-name add --tool-arg a=2 --tool-arg b=3`,
//              the server on its command line or in its config file (`--config
//              mcp.json --server demo`, {"mcpServers": {...}}). Forms b and c only: it
//              splits its own command line at the first `--` and puts the config
//              file's args on that command line too, so (a) cannot reach it either
//              way (SKIP). It runs from a folder whose parent has no package.json:
//              1.0.3 reads "../package.json" relative to the working folder to pick
//              the path of its own package.json, and fails when one is there.
//              By URL: `mcp-inspector --cli <url> --transport http|sse --method ...`,
//              or mcp.json with {"type": "streamable-http"|"sse", "url": ...}.
//   mcporter   mcporter 0.12.3, asks 2025-11-25. `mcporter config add demo --command
//              <command> -- <args>` (./config/mcporter.json; `-- --` for (a)), then
//              `mcporter list` (health), `mcporter list demo --json` (tools),
//              `mcporter call demo.add a=2 b=3 --output json` (add). By URL: `mcporter
//              config add demo <url>` (d; stored as baseUrl), `... --transport sse` (e;
//              it POSTs initialize to /sse first, gets 405, then takes the SSE stream).
//   codex      Codex CLI (@openai/codex 0.169.1), asks 2025-06-18 (and takes the
//              bridge's 2025-11-25). `codex mcp add demo -- <command> <args>` for a
//              and b, ~/.codex/config.toml ([mcp_servers.demo]) for c; then `codex
//              app-server` over JSON-RPC, no model: mcpServerStatus/list (health:
//              the server's serverInfo and no toolsError; tools), thread/start and
//              mcpServer/tool/call (add). By URL (d): `codex mcp add demo --url <url>`,
//              or config.toml `url = "..."`. No (e): Codex has no SSE transport
//              (`--url` is "URL for a streamable HTTP MCP server"; SKIP).
//   claude     Claude Code (@anthropic-ai/claude-code 2.1.332): sends server/discover
//              (2026-07-28) first and, on -32601, initialize with 2025-11-25. To the
//              embedded demo server (c) it speaks 2026-07-28 (the bridge is not on that
//              path), so (c-legacy) adds --refuse-discover to take the embedded legacy
//              path. `claude mcp add demo -- <command> <args>` (local scope), then
//              `claude mcp list` (health) and one chat turn, `claude -p ...
//              --allowedTools mcp__demo__add`, against the stand-in Anthropic API
//              (ANTHROPIC_BASE_URL, a dummy ANTHROPIC_API_KEY; ENABLE_TOOL_SEARCH=false
//              so that the MCP tools are declared to the model, not deferred).
//              By URL: `claude mcp add --transport http|sse demo <url>`. At /mcp it
//              sends server/discover, which the face answers: it speaks 2026-07-28
//              there (the face's stateless path); over SSE, initialize with 2025-11-25.
//   opencode   opencode (opencode-ai 1.18.33), asks 2025-11-25. ./opencode.json
//              ("mcp": {"demo": {"type": "local", "command": [...]}}; its `mcp add` is
//              interactive), then `opencode mcp list` (health) and `opencode run
//              --auto ...` against the stand-in Anthropic API (provider.anthropic.
//              options.baseURL). By URL: "type": "remote", "url": ... for (d) and (e);
//              a remote server is tried with Streamable HTTP first, then SSE, so at
//              /sse it takes SSE after the face's 405.
//   cline      Cline CLI (cline 3.0.65), asks 2024-11-05 (and takes the bridge's
//              2025-11-25). `cline mcp add demo --yes -- <command> <args>`
//              (~/.cline/data/settings/cline_mcp_settings.json); `cline auth openai -k
//              ... -b <stand-in>/v1 -m stand-in`, then one chat turn, `cline --json
//              "..."`, against the stand-in OpenAI API. No health check: 3.0.65 has no
//              status command for MCP servers (`cline config` needs a terminal).
//              By URL: `cline mcp add demo <url> --transport http|sse --yes` (stored
//              as transport {"type": "streamableHttp"|"sse", "url"}); there it asks
//              2025-11-25.
//   gemini     Gemini CLI (@google/gemini-cli 0.61.0), asks 2025-06-18 and refuses
//              any other answer ("Server's protocol version is not supported"). In a
//              trusted folder (GEMINI_CLI_TRUST_WORKSPACE=true): `gemini mcp add demo
//              <command> -- <args>` (it eats the first `--`, so (a) takes `-- --`) and,
//              for (a) also, ./.gemini/settings.json by hand; then `gemini mcp list`
//              (health) and one chat turn, `gemini --debug -p ... --approval-mode
//              yolo`, against the stand-in Gemini API (GOOGLE_GEMINI_BASE_URL, a
//              dummy GEMINI_API_KEY, security.auth.selectedType gemini-api-key).
//              By URL: `gemini mcp add --transport http|sse demo <url>` (it stores url
//              and type) and, for (d), ./.gemini/settings.json with httpUrl by hand.
//   qwen       Qwen Code (@qwen-code/qwen-code 0.24.4, a fork of Gemini CLI), asks
//              2025-11-25. `qwen mcp add demo <command> -- <args>` (user settings;
//              `-- --` for (a)), then `qwen mcp list` (health) and one chat turn, `qwen
//              --debug --approval-mode yolo "..."`, against the stand-in OpenAI API
//              (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL; tools.toolSearch.enabled
//              false so that the MCP tools are declared to the model). By URL: `qwen
//              mcp add --transport http|sse demo <url>` (stored as httpUrl, or url).
//
// The stand-in model API (model-api.mjs) runs in this process on 127.0.0.1, a
// fresh one for each chat: it answers the first turn with a call of the add tool
// it was offered, with {"a": 2, "b": 3}, and the turn after the tool result with
// "The sum is <n>." where n is the number in that result. It records the tools
// offered (the tools check) and the result (the add check: the tool was called,
// its result was 5, and the client printed "The sum is 5.").
//
// A client's environment is made from scratch (PATH with Node 24 first, the
// private HOME and XDG folders, LANG, TERM=dumb, NO_COLOR, and its own variables
// above): no variable of the caller, such as a real API key, reaches it.
//
// Every process has a time limit and runs in a process group of its own, which
// is killed after it ends or at its limit; then every process left whose working
// folder is under the temporary folder, or that carries this run's marker in its
// environment, is killed too (by pid), but for the process group of a face while
// its checks run; a face is ended by SIGTERM after them, and its group killed. Each command's output goes to
// <cache>/logs, the report to <cache>/report.md.
// Exit code: 0 when every check passed, 1 otherwise, 2 for bad arguments.

import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { startHttpRelay } from "./http-relay.mjs";
import { startModelApi, summarize } from "./model-api.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

// --- arguments -----------------------------------------------------------------------

function usage(msg) {
    if (msg) console.error(`run.mjs: ${msg}`);
    console.error("usage: node run.mjs --bridge <mcp-bridge-vscode> --cache <.cache/clients> [--only <id>,...] [--isolation <what>] [--budget <seconds>]");
    process.exit(2);
}

function parseArgs(argv) {
    const out = { only: null, isolation: "none", budget: 840 };
    for (let i = 0; i < argv.length; i++) {
        const [k, v] = [argv[i], argv[i + 1]];
        if (v === undefined) usage(`${k} needs a value`);
        if (k === "--bridge") out.bridge = path.resolve(v);
        else if (k === "--cache") out.cache = path.resolve(v);
        else if (k === "--only") out.only = v.split(",").map((s) => s.trim()).filter(Boolean);
        else if (k === "--isolation") out.isolation = v;
        else if (k === "--budget") {
            out.budget = Number(v);
            if (!(out.budget > 0)) usage("--budget takes a number of seconds");
        }
        else usage(`unknown argument ${k}`);
        i++;
    }
    if (!out.bridge || !out.cache) usage();
    try {
        fs.accessSync(out.bridge, fs.constants.X_OK);
    } catch {
        usage(`${out.bridge} is not an executable file`);
    }
    return out;
}

const opts = parseArgs(process.argv.slice(2));
const B = opts.bridge;
const node24 = process.execPath;
const bin = (name) => path.join(opts.cache, "cli/node_modules/.bin", name);
const pins = JSON.parse(fs.readFileSync(path.join(here, "package.json"), "utf8")).dependencies;
const runId = crypto.randomBytes(6).toString("hex");
const MARK = "MCP_BRIDGE_CLIENTS_RUN";
const TOOLS = ["add", "tag_items", "list_primes", "slow_count", "ask_name", "add_tool"];
const PROMPT = "Use the add tool of the MCP server demo to add 2 and 3.";

// The HTTP face in front of the demo server, for the forms by URL: one per
// client × form, started before the client is configured and stopped (SIGTERM)
// after its checks.
const FACE = ["--listen", "127.0.0.1:0", "--", B, "demo-server"];
const FORMS = {
    a: { args: ["--", B, "demo-server"], what: "bridged, with --" },
    b: { args: [B, "demo-server"], what: "bridged, without --" },
    c: { args: ["demo-server"], what: "embedded" },
    "c-legacy": { args: ["demo-server", "--refuse-discover"], what: "embedded, discover refused" },
    d: { face: FACE, path: "/mcp", transport: "http", what: "by URL, Streamable HTTP" },
    e: { face: FACE, path: "/sse", transport: "sse", what: "by URL, HTTP+SSE (2024-11-05)" },
};

// The whole run's time limit: every process's own limit is cut to what is left
// of it, and what does not start before it is reported as not run, so that the
// report is written in time.
const deadline = Date.now() + opts.budget * 1000;

const tmpRoot = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "mcp-bridge-clients-")));
const logDir = path.join(opts.cache, "logs");
const reportFile = path.join(opts.cache, "report.md");
// A report that is there is this run's: the last one goes first.
fs.rmSync(reportFile, { force: true });
fs.rmSync(logDir, { recursive: true, force: true });
fs.mkdirSync(logDir, { recursive: true });

// --- processes --------------------------------------------------------------------------

const live = new Set();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const stripAnsi = (s) => s.replace(/\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g, "").replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, "").replace(/\r/g, "");

function killGroup(pid, signal = "SIGKILL") {
    try {
        process.kill(-pid, signal);
    } catch {
        /* gone */
    }
}

// Kills (by pid) every process this run left: its working folder is under the
// temporary folder, or its environment carries the marker of this run.
// The process groups of the faces that run: a face (and the demo servers of
// its sessions) outlives the client commands of its checks.
const keepGroups = new Set();
function groupOf(pid) {
    try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    } catch {
        return null;
    }
}

function sweep() {
    const killed = [];
    for (const entry of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        const pid = Number(entry);
        if (pid === process.pid) continue;
        if (keepGroups.size && keepGroups.has(groupOf(pid))) continue;
        let ours = false;
        try {
            const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
            ours = cwd === tmpRoot || cwd.startsWith(`${tmpRoot}/`);
        } catch {
            /* gone, or not ours to read */
        }
        if (!ours) {
            try {
                ours = fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`${MARK}=${runId}`);
            } catch {
                /* gone */
            }
        }
        if (ours) {
            let cmd = "";
            try {
                cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim();
            } catch {
                /* gone */
            }
            try {
                process.kill(pid, "SIGKILL");
                killed.push(`${pid} ${cmd.slice(0, 160)}`);
            } catch {
                /* gone */
            }
        }
    }
    return killed;
}

let logSeq = 0;
function writeLog(ctx, label, text) {
    const name = `${String(++logSeq).padStart(3, "0")}-${ctx.id}-${label}`.replace(/[^A-Za-z0-9._-]+/g, "_");
    const file = path.join(logDir, `${name}.txt`);
    fs.writeFileSync(file, text);
    return path.relative(opts.cache, file);
}

const shellQuote = (s) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`);
const cmdline = (cmd, args) => [cmd, ...args].map(shellQuote).join(" ");
// The command line as a user reads it: the paths of this machine shortened.
const shortLine = (cmd, args) =>
    cmdline(cmd, args)
        .replaceAll(B, "mcp-bridge-vscode")
        .replaceAll(path.join(opts.cache, "cli/node_modules/.bin") + "/", "")
        .replaceAll(node24, "node");

// Runs one command to its end, bounded: { code, signal, out (stdout and stderr
// interleaved, without colours), stdout, timedOut, ms, log }.
function run(ctx, label, cmd, args, { timeout = 60_000, env = {}, cwd = ctx.work } = {}) {
    const started = Date.now();
    timeout = Math.max(1000, Math.min(timeout, deadline - started));
    return new Promise((resolve) => {
        let out = "";
        let stdout = "";
        let timedOut = false;
        let child;
        try {
            child = spawn(cmd, args, {
                cwd,
                env: { ...ctx.env, ...env },
                detached: true,
                stdio: ["ignore", "pipe", "pipe"],
            });
        } catch (e) {
            resolve({ code: null, signal: null, out: `cannot start ${cmd}: ${e.message}`, stdout: "", timedOut: false, ms: 0, log: null });
            return;
        }
        live.add(child.pid);
        child.stdout.on("data", (d) => {
            out += d;
            stdout += d;
        });
        child.stderr.on("data", (d) => (out += d));
        const timer = setTimeout(() => {
            timedOut = true;
            killGroup(child.pid);
        }, timeout);
        let finished = false;
        const finish = async (code, signal, err) => {
            if (finished) return;
            finished = true;
            clearTimeout(timer);
            // The pipes close when the last holder ends: give them a moment, then
            // end the group and whatever else this run left.
            await Promise.race([new Promise((r) => child.once("close", r)), sleep(500)]);
            killGroup(child.pid);
            live.delete(child.pid);
            await sleep(50);
            const left = sweep();
            const ms = Date.now() - started;
            if (err) out += `\ncannot start ${cmd}: ${err.message}`;
            out = stripAnsi(out);
            const text = [
                `$ ${cmdline(cmd, args)}`,
                `cwd: ${cwd}`,
                `exit: ${timedOut ? `killed after the limit of ${timeout} ms` : (signal ?? code)}, ${ms} ms`,
                left.length ? `processes left behind and killed:\n  ${left.join("\n  ")}` : "",
                "",
                out,
            ].join("\n");
            resolve({ code, signal, out, stdout: stripAnsi(stdout), timedOut, ms, left, log: writeLog(ctx, label, text) });
        };
        child.on("exit", (code, signal) => finish(code, signal));
        child.on("error", (e) => finish(null, null, e));
    });
}

// A JSON-RPC session over a process's stdio (codex app-server, the baseline):
// request(method, params, ms) resolves with the response message; close() ends
// the process and resolves with { out (its stderr and the lines it wrote), log }.
function session(ctx, label, cmd, args, { timeout = 90_000, env = {} } = {}) {
    const started = Date.now();
    timeout = Math.max(1000, Math.min(timeout, deadline - started));
    const child = spawn(cmd, args, { cwd: ctx.work, env: { ...ctx.env, ...env }, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    live.add(child.pid);
    let transcript = "";
    let stderr = "";
    const waiters = new Map();
    const notes = [];
    let exited = null;
    child.stdin.on("error", () => {});
    child.stderr.on("data", (d) => (stderr += d));
    readline.createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
        transcript += `< ${line}\n`;
        let m;
        try {
            m = JSON.parse(line);
        } catch {
            return;
        }
        if (m.id != null && !m.method && waiters.has(m.id)) {
            waiters.get(m.id)(m);
            waiters.delete(m.id);
        } else notes.push(m);
    });
    const exitP = new Promise((r) =>
        child.on("exit", (code, signal) => {
            exited = signal ?? code;
            for (const w of waiters.values()) w({ error: { message: `the process exited (${exited})` } });
            waiters.clear();
            r();
        }),
    );
    child.on("error", (e) => {
        exited = `cannot start: ${e.message}`;
        for (const w of waiters.values()) w({ error: { message: exited } });
        waiters.clear();
    });
    const hardTimer = setTimeout(() => killGroup(child.pid), timeout);
    let id = 0;
    const write = (msg) => {
        transcript += `> ${JSON.stringify(msg)}\n`;
        if (exited === null) child.stdin.write(`${JSON.stringify(msg)}\n`);
    };
    return {
        notes,
        request(method, params, ms = 30_000) {
            const myId = ++id;
            return new Promise((resolve) => {
                if (exited !== null) return resolve({ error: { message: `the process exited (${exited})` } });
                const t = setTimeout(() => {
                    waiters.delete(myId);
                    resolve({ error: { message: `no answer to ${method} in ${ms} ms` } });
                }, ms);
                waiters.set(myId, (m) => {
                    clearTimeout(t);
                    resolve(m);
                });
                write({ jsonrpc: "2.0", id: myId, method, params });
            });
        },
        notify(method, params) {
            write(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
        },
        async close() {
            try {
                child.stdin.end();
            } catch {
                /* closed */
            }
            await Promise.race([exitP, sleep(3000)]);
            clearTimeout(hardTimer);
            killGroup(child.pid);
            live.delete(child.pid);
            await sleep(50);
            const left = sweep();
            const out = stripAnsi(stderr);
            const text = [
                `$ ${cmdline(cmd, args)}`,
                `cwd: ${ctx.work}`,
                `exit: ${exited ?? "killed"}, ${Date.now() - started} ms`,
                left.length ? `processes left behind and killed:\n  ${left.join("\n  ")}` : "",
                "",
                "--- stdio (> to the process, < from it)",
                transcript,
                "--- stderr",
                out,
            ].join("\n");
            return { out, exited, log: writeLog(ctx, label, text) };
        },
    };
}

// --- the HTTP face (the forms by URL) ------------------------------------------------------

function groupPids(pgid) {
    const pids = [];
    for (const entry of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(entry) || groupOf(Number(entry)) !== pgid) continue;
        try {
            if (/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${entry}/stat`, "latin1"))) continue;
        } catch {
            continue;
        }
        pids.push(Number(entry));
    }
    return pids;
}

const cmdOf = (pid) => {
    try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim().replaceAll(B, "mcp-bridge-vscode").slice(0, 160);
    } catch {
        return "";
    }
};

// Starts `mcp-bridge-vscode --listen 127.0.0.1:0 -- mcp-bridge-vscode demo-server`
// in a process group of its own and reads its address from its one stderr line
// (bounded): { pid, base: "http://127.0.0.1:PORT" (absent when it did not say
// where it listens), exit, exited, stderr() }.
async function startFace(ctx, args = FACE) {
    const face = { pid: null, args, base: null, exit: null, started: Date.now() };
    let stderr = "";
    face.stderr = () => stripAnsi(stderr);
    let child;
    try {
        child = spawn(B, args, { cwd: ctx.work, env: ctx.env, detached: true, stdio: ["ignore", "ignore", "pipe"] });
    } catch (e) {
        face.exit = { error: e.message };
        face.exited = Promise.resolve();
        return face;
    }
    face.pid = child.pid;
    live.add(child.pid);
    keepGroups.add(child.pid);
    face.exited = new Promise((resolve) => {
        child.on("exit", (code, signal) => {
            face.exit = { code, signal };
            resolve();
        });
        child.on("error", (e) => {
            face.exit = { error: e.message };
            resolve();
        });
    });
    child.stderr.on("data", (d) => (stderr += d));
    const LINE = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp \(Streamable HTTP\) and http:\/\/127\.0\.0\.1:\d+\/sse \(HTTP\+SSE\)/;
    const end = Date.now() + 15_000;
    while (!LINE.test(stderr) && face.exit === null && Date.now() < end) await sleep(20);
    face.base = LINE.exec(stderr)?.[1] ?? null;
    return face;
}

// Stops a face with SIGTERM and waits (bounded) for its end: { ok, detail, r }.
// ok: it exited 0 in time, nothing of its group is left, and (when a transport
// is named) at least one session of that transport began.
async function stopFace(ctx, face, transport = null) {
    const sent = Date.now();
    if (face.pid && face.exit === null) {
        try {
            process.kill(face.pid, "SIGTERM");
        } catch {
            /* gone */
        }
    }
    const inTime = await Promise.race([face.exited.then(() => true), sleep(15_000).then(() => false)]);
    const ms = Date.now() - sent;
    // The demo servers of its sessions end with it: a moment for the last ones.
    let left = face.pid ? groupPids(face.pid) : [];
    for (const end = Date.now() + 3000; left.length && Date.now() < end; left = groupPids(face.pid)) await sleep(100);
    const leftShown = left.map((pid) => `${pid} ${cmdOf(pid)}`);
    if (face.pid) {
        killGroup(face.pid);
        keepGroups.delete(face.pid);
        live.delete(face.pid);
        await face.exited.then(() => true, () => true);
    }
    const err = face.stderr();
    const streamable = (err.match(/\ba session began\b/g) ?? []).length;
    const legacy = (err.match(/\ba session of HTTP\+SSE began\b/g) ?? []).length;
    const exitShown = !inTime ? `still running ${Math.round(ms / 1000)} s after SIGTERM (killed)` : face.exit?.error ? `cannot start: ${face.exit.error}` : `exit ${face.exit.signal ?? face.exit.code}`;
    const log = writeLog(ctx, "face", [
        `$ ${cmdline(B, face.args)}`,
        `cwd: ${ctx.work}`,
        `SIGTERM after ${sent - face.started} ms; ${exitShown}${inTime ? ` ${ms} ms later` : ""}`,
        leftShown.length ? `processes of its group left after its end (killed):\n  ${leftShown.join("\n  ")}` : "",
        "",
        err,
    ].join("\n"));
    const sessions = `sessions: ${streamable} Streamable HTTP (initialize), ${legacy} HTTP+SSE`;
    // At /mcp a client of 2026-07-28 (Claude Code) takes the face's stateless
    // path, which begins no session: only SSE is asked for a session.
    const want = transport === "sse" ? legacy : 1;
    const ok = inTime && face.exit?.code === 0 && !face.exit?.signal && !left.length && want > 0;
    const detail = [
        `SIGTERM → ${exitShown}${inTime ? ` in ${ms} ms` : ""}`,
        sessions + (want > 0 ? "" : " (none of HTTP+SSE)"),
        left.length ? `left behind: ${leftShown.join("; ")}` : "nothing of it left",
    ].join("; ");
    return { ok, detail, r: { out: err, log } };
}

// The data of each event of an SSE text: [{ event, data }].
function sseEvents(text) {
    const events = [];
    for (const block of text.split(/\r?\n\r?\n/)) {
        let event = "message";
        const data = [];
        for (const line of block.split(/\r?\n/)) {
            if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
            else if (line.startsWith("event:")) event = line.slice(6).trim();
        }
        // An event with empty data carries no message: the priming event of a
        // resumable stream (2025-11-25, SEP-1699) has only an id.
        if (data.length && data.join("\n") !== "") events.push({ event, data: data.join("\n") });
    }
    return events;
}

// The baseline by URL: this driver as an MCP client over HTTP, by hand (fetch).
// Streamable HTTP (/mcp): POST initialize (JSON, its Mcp-Session-Id), POST the
// initialized notification (202), POST tools/list and tools/call (each an SSE
// stream that ends with its response). HTTP+SSE (/sse): GET the stream, its
// endpoint event, POST each message there (202), the responses on the stream.
// Returns { init, list, call, r } as the stdio baseline's session does.
async function httpSession(ctx, server) {
    const transcript = [];
    const started = Date.now();
    const say = (line) => transcript.push(line);
    const out = {};
    const limit = () => AbortSignal.timeout(Math.max(1000, Math.min(30_000, deadline - Date.now())));
    const clientInfo = { name: "mcp-bridge-clients", version: "0" };
    let stream = null;
    try {
        if (server.transport === "http") {
            let session = null;
            let version = null;
            const post = async (msg) => {
                const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
                if (session) headers["mcp-session-id"] = session;
                if (version) headers["mcp-protocol-version"] = version;
                say(`> POST ${server.url} ${JSON.stringify(msg)}`);
                const res = await fetch(server.url, { method: "POST", headers, body: JSON.stringify(msg), signal: limit() });
                const type = res.headers.get("content-type") ?? "";
                const text = await res.text();
                say(`< ${res.status} ${type}${res.headers.get("mcp-session-id") ? " (Mcp-Session-Id)" : ""}${text ? `\n${text.trimEnd()}` : ""}`);
                session ??= res.headers.get("mcp-session-id");
                if (msg.id === undefined) return res.status === 202 ? { ok: true } : { error: { message: `HTTP ${res.status} for a notification` } };
                const messages = type.startsWith("text/event-stream") ? sseEvents(text).map((e) => JSON.parse(e.data)) : type.includes("json") ? [JSON.parse(text)] : [];
                return messages.find((m) => m.id === msg.id && !m.method) ?? { error: { message: `HTTP ${res.status} ${type}: no response to ${msg.method}` } };
            };
            out.init = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo } });
            if (out.init.result) {
                version = out.init.result.protocolVersion;
                const n = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
                if (n.error) out.init = { error: { message: `notifications/initialized: ${n.error.message}` } };
            }
            if (out.init.result) {
                out.list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
                out.call = await post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } });
            }
            if (session) {
                const res = await fetch(server.url, { method: "DELETE", headers: { "mcp-session-id": session, "mcp-protocol-version": version }, signal: limit() });
                say(`> DELETE ${server.url}\n< ${res.status}`);
            }
        } else {
            const abort = new AbortController();
            const timer = setTimeout(() => abort.abort(), Math.max(1000, Math.min(60_000, deadline - Date.now())));
            say(`> GET ${server.url}`);
            const res = await fetch(server.url, { headers: { accept: "text/event-stream" }, signal: abort.signal });
            say(`< ${res.status} ${res.headers.get("content-type")}`);
            const waiters = [];
            const seen = [];
            let endpoint = null;
            stream = (async () => {
                let buffer = "";
                const decoder = new TextDecoder();
                for await (const chunk of res.body) {
                    buffer += decoder.decode(chunk, { stream: true });
                    let i;
                    while ((i = buffer.search(/\r?\n\r?\n/)) >= 0) {
                        const block = buffer.slice(0, i);
                        buffer = buffer.slice(i).replace(/^\r?\n\r?\n/, "");
                        for (const e of sseEvents(block)) {
                            say(`< event: ${e.event}\n  ${e.data}`);
                            if (e.event === "endpoint") endpoint = new URL(e.data, server.url).href;
                            else seen.push(JSON.parse(e.data));
                            for (const w of waiters.splice(0)) w();
                        }
                    }
                }
            })().catch((e) => say(`! the stream: ${e.message}`)).finally(() => {
                clearTimeout(timer);
                for (const w of waiters.splice(0)) w();
            });
            stream.abort = () => abort.abort();
            const next = () => new Promise((r) => waiters.push(r));
            const wait = async (pred, what) => {
                const end = Date.now() + 30_000;
                for (;;) {
                    const v = pred();
                    if (v) return v;
                    if (abort.signal.aborted || Date.now() > end) return { error: { message: `no ${what} on the stream` } };
                    await Promise.race([next(), sleep(500)]);
                }
            };
            const got = await wait(() => endpoint, "endpoint event");
            const post = async (msg) => {
                say(`> POST ${endpoint} ${JSON.stringify(msg)}`);
                const r = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(msg), signal: limit() });
                say(`< ${r.status}`);
                if (r.status !== 202 && r.status !== 200) return { error: { message: `HTTP ${r.status} for ${msg.method}` } };
                if (msg.id === undefined) return { ok: true };
                return wait(() => seen.find((m) => m.id === msg.id && !m.method), `response to ${msg.method}`);
            };
            if (got.error) out.init = got;
            else {
                out.init = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo } });
                if (out.init.result) {
                    await post({ jsonrpc: "2.0", method: "notifications/initialized" });
                    out.list = await post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
                    out.call = await post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } });
                }
            }
        }
    } catch (e) {
        say(`! ${e.message}`);
        out.init ??= { error: { message: e.message } };
    } finally {
        if (stream) {
            stream.abort();
            await Promise.race([stream, sleep(2000)]);
        }
    }
    const text = transcript.join("\n");
    const log = writeLog(ctx, "http", `${server.transport === "http" ? "Streamable HTTP" : "HTTP+SSE"} by hand, ${Date.now() - started} ms\n\n${text}\n`);
    out.r = { out: text, log, exited: null };
    return out;
}

// --- results --------------------------------------------------------------------------

const results = [];
const infos = [];
let lastShown = null;
const timings = [];

// What a client printed, for a failure: all of it when short; else its lines
// that name an error, then its last lines (without the start-up noise of
// --debug).
const ERRORISH = /error|fail|refus|not supported|closed|disconnect|denied|cannot|unable|timed? ?out/i;
function tail(out, n = 20) {
    const lines = out
        .split("\n")
        .map((l) => l.trimEnd())
        .filter((l) => l.trim() && !/^\s*\[(STARTUP|DEBUG)\]/.test(l));
    if (lines.length <= n) return lines;
    const last = lines.slice(-(n >> 1));
    const errors = lines.slice(0, -(n >> 1)).filter((l) => ERRORISH.test(l)).slice(-(n >> 1));
    return [...errors, ...(errors.length ? ["..."] : []), ...last];
}

function record(ctx, check, status, detail, r = null) {
    const item = {
        client: ctx.client.id,
        form: ctx.form,
        how: ctx.how,
        check,
        status,
        detail,
        output: status === "FAIL" && r ? tail(r.out) : [],
        log: r?.log ?? null,
    };
    results.push(item);
    const where = `(${ctx.form}) ${ctx.how}`;
    console.log(`${status.padEnd(4)}  ${ctx.client.id.padEnd(9)} ${where.padEnd(46)} ${check.padEnd(6)} ${detail}`);
    if (status === "FAIL") {
        if (item.log && item.log === lastShown) console.log(`      (the same output as above)`);
        else if (item.output.length) {
            console.log(`      the client printed (last lines; all of it in ${item.log}):`);
            for (const l of item.output) console.log(`      | ${l.slice(0, 300)}`);
        } else if (item.log) console.log(`      (nothing printed; ${item.log})`);
        lastShown = item.log;
    }
}
const pass = (ctx, check, detail, r) => record(ctx, check, "PASS", detail, r);
const fail = (ctx, check, detail, r) => record(ctx, check, "FAIL", detail, r);
const exitText = (r) => (r.timedOut ? `killed after its time limit (${Math.round(r.ms / 1000)} s)` : `exit ${r.signal ?? r.code}`);

// The 6 tools of the demo server among names a client gives them (as is, or
// with its prefix: mcp__demo__add, mcp_demo_add, demo_add).
function matchTools(names) {
    const found = TOOLS.map((t) => names.find((n) => n === t || n.endsWith(`_${t}`)) ?? null);
    return { found, ok: found.every(Boolean), missing: TOOLS.filter((_, i) => !found[i]) };
}

function checkToolNames(ctx, names, r, source) {
    const m = matchTools(names);
    if (m.ok) pass(ctx, "tools", `${source}: ${m.found.join(", ")}`, r);
    else fail(ctx, "tools", `${source}: ${names.length ? `${names.length} names, without ${m.missing.join(", ")}` : "none"}`, r);
}

// The number in a tool result: {"sum": 5}, structuredContent, or its text.
function sumOf(result) {
    if (!result) return null;
    if (typeof result.structuredContent?.sum === "number") return result.structuredContent.sum;
    for (const c of result.content ?? []) {
        if (c.type !== "text") continue;
        try {
            const v = JSON.parse(c.text);
            if (typeof v?.sum === "number") return v.sum;
        } catch {
            /* not JSON */
        }
        const m = /-?\d+(\.\d+)?/.exec(c.text);
        if (m) return Number(m[0]);
    }
    if (typeof result.sum === "number") return result.sum;
    return null;
}

function checkSum(ctx, result, r, how) {
    const sum = sumOf(result);
    if (sum === 5 && !result?.isError) pass(ctx, "add", `${how} → ${JSON.stringify(result?.structuredContent ?? result).slice(0, 80)}`, r);
    else fail(ctx, "add", `${how} → ${result ? JSON.stringify(result).slice(0, 200) : "no result"}`, r);
}

function parseJson(text) {
    // The JSON value that ends a text which may have lines of other things before it.
    const re = /^[{[]/gm;
    let m;
    while ((m = re.exec(text))) {
        try {
            return JSON.parse(text.slice(m.index));
        } catch {
            /* not from this line */
        }
    }
    return null;
}

// One chat turn against a fresh stand-in model API: { r, records }. before(url),
// when given, points the client at it first (a command of the client's own).
async function chatRun(ctx, label, cmd, args, envOf, { timeout = 120_000, before = null } = {}) {
    const api = await startModelApi();
    let r;
    try {
        if (before) await before(api.url);
        r = await run(ctx, label, cmd, args, { timeout, env: envOf(api.url) });
    } finally {
        await api.close();
    }
    const requests = api.records.map((x) => `${x.method} ${x.path}${x.tools ? ` (${x.tools.length} tools)` : ""}${x.answer ? ` → ${JSON.stringify(x.answer)}` : ""}`);
    fs.appendFileSync(path.join(opts.cache, r.log), `\n--- the stand-in model API saw:\n${requests.join("\n")}\n`);
    return { r, records: api.records };
}

// One chat turn, then the tools and add checks.
async function chat(ctx, cmd, args, envOf, options) {
    const { r, records } = await chatRun(ctx, "chat", cmd, args, envOf, options);
    const s = summarize(records);
    if (s.agentRequests) checkToolNames(ctx, s.offered, r, "offered to the model");
    else {
        const offered = records.find((x) => x.tools?.length)?.tools ?? [];
        fail(
            ctx,
            "tools",
            `no request to the model API offered the server's tools (${records.length} requests${offered.length ? `; offered: ${offered.slice(0, 8).join(", ")}${offered.length > 8 ? ", ..." : ""}` : ""}; ${exitText(r)})`,
            r,
        );
    }
    const printed = /The sum is 5\b/.test(r.out);
    const resultText = s.result == null ? null : s.result.replace(/\s+/g, " ").slice(0, 100);
    if (s.called && resultText != null && /(^|[^\d.])5([^\d.]|$)/.test(s.result) && printed) {
        pass(ctx, "add", `the model called add(2, 3); the tool result ${JSON.stringify(resultText)}; the client printed "The sum is 5."`, r);
    } else if (!s.called) {
        fail(ctx, "add", `the model could not call add: it was not offered (${exitText(r)})`, r);
    } else {
        fail(ctx, "add", `the model called add(2, 3); the tool result ${JSON.stringify(resultText)}; ${printed ? "" : `the client did not print "The sum is 5." (${exitText(r)})`}`, r);
    }
    return r;
}

// --- the revision probe: relay.mjs in front of the server -----------------------------------

// What each connection in a relay log began with: one text per distinct opening
// (server/discover and its answer; initialize, its protocolVersion and clientInfo,
// and the protocolVersion of the answer).
function readRelay(file) {
    let lines = [];
    try {
        lines = fs.readFileSync(file, "utf8").split("\n").filter(Boolean);
    } catch {
        return { texts: [], asks: [] };
    }
    const msgs = lines
        .filter((l) => l[0] === ">" || l[0] === "<")
        .map((l) => {
            try {
                return { dir: l[0], m: JSON.parse(l.slice(2)) };
            } catch {
                return null;
            }
        })
        .filter(Boolean);
    // Over HTTP a refusal is an error without an id, or with a null one
    // (http-relay.mjs logs it after the request it answers).
    const answerOf = (i) => {
        const rest = msgs.slice(i + 1);
        const same = rest.find((x) => x.dir === "<" && x.m.id === msgs[i].m.id && !x.m.method)?.m;
        if (same) return same;
        const next = rest.find((x) => x.dir === ">" || (x.dir === "<" && x.m.id == null && x.m.error));
        return next?.dir === "<" ? next.m : null;
    };
    const texts = [];
    const asks = [];
    let pending = null;
    msgs.forEach((x, i) => {
        if (x.dir !== ">") return;
        if (x.m.method === "server/discover") {
            const a = answerOf(i);
            const who = x.m.params?._meta?.["io.modelcontextprotocol/clientInfo"];
            pending = `server/discover (${x.m.params?._meta?.["io.modelcontextprotocol/protocolVersion"] ?? "?"}) first${who ? ` (clientInfo ${who.name} ${who.version ?? ""})` : ""}, answered with ${a ? (a.error ? `error ${a.error.code}` : "a result") : "nothing"}`;
            if (a && !a.error) {
                asks.push(x.m.params?._meta?.["io.modelcontextprotocol/protocolVersion"]);
                texts.push(pending);
                pending = null;
            }
        } else if (x.m.method === "initialize") {
            const a = answerOf(i);
            const p = x.m.params ?? {};
            asks.push(p.protocolVersion);
            const t = `initialize asks ${p.protocolVersion} (clientInfo ${p.clientInfo?.name} ${p.clientInfo?.version ?? ""}), the bridge answered ${a ? (a.result?.protocolVersion ?? `error ${a.error?.code}${a.error?.data?.cause ? ` (${a.error.data.cause})` : ""}`) : "nothing"}`;
            texts.push(pending ? `${pending}; then ${t}` : t);
            pending = null;
        }
    });
    if (pending) texts.push(pending);
    return { texts: [...new Set(texts)], asks: [...new Set(asks)] };
}

// Runs the client's status command (and its chat, for a client that has one)
// with relay.mjs in front of the server, and says what the client asked.
// A form by URL (d, e) puts the logging HTTP relay (http-relay.mjs) in front of
// a face of its own; its log is kept in logs/.
async function probeRevision(client, formKey = null, how = null) {
    const ctx = makeCtx(client, formKey ?? client.probeForm ?? "a", how ?? client.probeHow, "probe");
    const log = path.join(ctx.dir, "relay.log");
    await client.setup?.(ctx);
    const form = FORMS[ctx.form];
    if (form.face) {
        const face = await startFace(ctx, form.face);
        let relay = null;
        try {
            if (!face.base) throw new Error(`the face did not start: ${face.stderr().slice(0, 200)}`);
            relay = await startHttpRelay(face.base, log);
            const server = { url: `${relay.url}${form.path}`, transport: form.transport };
            await client.configure(ctx, server, ctx.how);
            await client.probe(ctx);
        } finally {
            await relay?.close();
            await stopFace(ctx, face);
            try {
                writeLog(ctx, "http-relay", fs.readFileSync(log, "utf8"));
            } catch {
                /* nothing reached it */
            }
        }
    } else {
        const server = { command: node24, args: [path.join(here, "relay.mjs"), log, B, ...form.args] };
        await client.configure(ctx, server, ctx.how);
        await client.probe(ctx);
    }
    const got = readRelay(log);
    const revision = client.revisionByForm?.[ctx.form] ?? client.revision;
    const agrees = got.asks.length === 1 && got.asks[0] === revision;
    let line = got.texts.length ? got.texts.join(" | ") : "nothing reached the relay";
    if (!agrees) line += ` — the header of run.mjs says ${revision}`;
    infos.push({ kind: "revision", client: client.id, form: ctx.form, asks: got.asks, text: `(${ctx.form}) ${line}` });
    console.log(`INFO  ${client.id.padEnd(9)} ${`(${ctx.form}) revision probe`.padEnd(46)} ${"asks".padEnd(6)} ${line}`);
}

// --- the clients --------------------------------------------------------------------------

let ctxSeq = 0;
function makeCtx(client, form, how, tag = "") {
    const id = `${client.id}-${form}${tag ? `-${tag}` : ""}-${++ctxSeq}`;
    const dir = path.join(tmpRoot, id);
    const home = path.join(dir, "home");
    const work = path.join(dir, "work");
    for (const d of [home, work, path.join(dir, "tmp")]) fs.mkdirSync(d, { recursive: true });
    const env = {
        PATH: `${path.dirname(node24)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
        HOME: home,
        USER: os.userInfo().username,
        LOGNAME: os.userInfo().username,
        SHELL: "/bin/sh",
        LANG: "C.UTF-8",
        TERM: "dumb",
        NO_COLOR: "1",
        TMPDIR: path.join(dir, "tmp"),
        XDG_CONFIG_HOME: path.join(home, ".config"),
        XDG_DATA_HOME: path.join(home, ".local/share"),
        XDG_CACHE_HOME: path.join(home, ".cache"),
        XDG_STATE_HOME: path.join(home, ".local/state"),
        [MARK]: runId,
        ...(client.env ?? {}),
    };
    if (client.env?.CODEX_HOME === "") env.CODEX_HOME = path.join(home, ".codex");
    if (env.CODEX_HOME) fs.mkdirSync(env.CODEX_HOME, { recursive: true });
    return { id, client, form, how, dir, home, work, env };
}

const writeJson = (file, value) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
};
const readJson = (file) => {
    try {
        return JSON.parse(fs.readFileSync(file, "utf8"));
    } catch {
        return null;
    }
};

// `<tool> ... <command> -- <args>`: how a user passes the server's arguments to an
// `mcp add` that eats the first `--`; (a) then needs a second one.
const afterDash = (server) => ["--", ...server.args];

// Checks that an `mcp add` stored the command and arguments that were meant.
// For a server by URL: the URL, and the transport where the client stores one.
function checkStored(ctx, stored, server, r) {
    if (!stored) return fail(ctx, "config", `nothing stored (${exitText(r)})`, r);
    if (server.url) {
        const url = stored.url ?? stored.httpUrl ?? stored.baseUrl ?? stored.serverUrl;
        const type = stored.type ?? stored.transport ?? stored.transportType ?? (stored.httpUrl ? "(httpUrl)" : null);
        const shown = `${JSON.stringify(stored).slice(0, 200)}`;
        const sse = /sse/i.test(String(type ?? ""));
        const typeOk = type == null || (server.transport === "sse" ? sse : !sse);
        if (url === server.url && typeOk) pass(ctx, "config", `stored: ${shown}`, r);
        else fail(ctx, "config", `stored ${shown}, not ${server.url} (${server.transport === "sse" ? "SSE" : "Streamable HTTP"})`, r);
        return;
    }
    const same = stored.command === server.command && JSON.stringify(stored.args ?? []) === JSON.stringify(server.args);
    const shown = shortLine(stored.command, stored.args ?? []);
    if (same) pass(ctx, "config", `stored: ${shown}`, r);
    else fail(ctx, "config", `stored ${shown}, not ${shortLine(server.command, server.args)}`, r);
}

const baseline = {
    id: "baseline",
    name: "this driver, by hand over stdin",
    version: "-",
    revision: "2025-11-25",
    variants: [
        { form: "a", how: "command line" },
        { form: "b", how: "command line" },
        { form: "c", how: "command line" },
        { form: "d", how: "fetch, by hand" },
        { form: "e", how: "fetch, by hand" },
    ],
    async check(ctx, server) {
        let init, list, call, r;
        if (server.url) ({ init, list, call, r } = await httpSession(ctx, server));
        else {
            const s = session(ctx, "session", server.command, server.args, { timeout: 60_000 });
            init = await s.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "mcp-bridge-clients", version: "0" } }, 30_000);
            if (init.result) {
                s.notify("notifications/initialized");
                list = await s.request("tools/list", {}, 30_000);
                call = await s.request("tools/call", { name: "add", arguments: { a: 2, b: 3 } }, 30_000);
            }
            r = await s.close();
        }
        if (init.result) pass(ctx, "health", `initialize: ${init.result.serverInfo?.name} ${init.result.serverInfo?.version}, protocolVersion ${init.result.protocolVersion}`, r);
        else fail(ctx, "health", `initialize: ${JSON.stringify(init.error ?? init).slice(0, 200)}; the bridge: ${r.exited === null ? "running" : `exit ${r.exited}`}`, r);
        if (list?.result) checkToolNames(ctx, (list.result.tools ?? []).map((t) => t.name), r, "tools/list");
        else fail(ctx, "tools", `tools/list: ${JSON.stringify(list?.error ?? "not sent").slice(0, 200)}`, r);
        if (call?.result) checkSum(ctx, call.result, r, "tools/call add {a: 2, b: 3}");
        else fail(ctx, "add", `tools/call: ${JSON.stringify(call?.error ?? "not sent").slice(0, 200)}`, r);
    },
};

const inspector = {
    id: "inspector",
    name: "MCP Inspector CLI",
    pkg: "@modelcontextprotocol/inspector",
    revision: "2025-11-25",
    variants: [
        { form: "b", how: "command line" },
        { form: "c", how: "command line" },
        { form: "b", how: "mcp.json" },
        { form: "c", how: "mcp.json" },
        { form: "d", how: "command line --transport http" },
        { form: "d", how: "mcp.json" },
        { form: "e", how: "command line --transport sse" },
        { form: "e", how: "mcp.json" },
    ],
    skipped: [
        { form: "a", how: "command line", why: "Inspector CLI 1.0.3 splits its own command line at the first -- (the server's -- ends its options: 'Method is required')" },
        { form: "a", how: "mcp.json", why: "Inspector CLI 1.0.3 puts the config file's args on its own command line, where the -- splits it as above (measured: 'Method is required')" },
    ],
    probeForm: "c",
    probeHow: "mcp.json",
    async configure(ctx, server, how) {
        const entry = server.url ? { type: server.transport === "sse" ? "sse" : "streamable-http", url: server.url } : { command: server.command, args: server.args };
        if (how === "mcp.json") {
            ctx.target = ["--config", "mcp.json", "--server", "demo"];
            writeJson(path.join(ctx.work, "mcp.json"), { mcpServers: { demo: entry } });
        } else ctx.target = server.url ? [server.url, "--transport", server.transport] : [server.command, ...server.args];
        return null;
    },
    async check(ctx) {
        let r = await run(ctx, "tools-list", bin("mcp-inspector"), ["--cli", ...ctx.target, "--method", "tools/list"]);
        const list = parseJson(r.stdout);
        if (list?.tools) checkToolNames(ctx, list.tools.map((t) => t.name), r, "--method tools/list");
        else fail(ctx, "tools", `--method tools/list gave no tools (${exitText(r)})`, r);
        r = await run(ctx, "tools-call", bin("mcp-inspector"), ["--cli", ...ctx.target, "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=2", "--tool-arg", "b=3"]);
        const call = parseJson(r.stdout);
        if (call) checkSum(ctx, call, r, "--method tools/call --tool-name add a=2 b=3");
        else fail(ctx, "add", `--method tools/call gave no result (${exitText(r)})`, r);
    },
    async probe(ctx) {
        await run(ctx, "probe", bin("mcp-inspector"), ["--cli", ...ctx.target, "--method", "tools/list"]);
    },
};

const mcporter = {
    id: "mcporter",
    name: "mcporter",
    pkg: "mcporter",
    revision: "2025-11-25",
    variants: [
        { form: "a", how: "config add -- --" },
        { form: "b", how: "config add --" },
        { form: "c", how: "config add --" },
        { form: "d", how: "config add demo <url>" },
        { form: "e", how: "config add demo <url> --transport sse" },
    ],
    probeHow: "config add -- --",
    async configure(ctx, server) {
        const args = server.url
            ? ["config", "add", "demo", server.url, ...(server.transport === "sse" ? ["--transport", "sse"] : [])]
            : ["config", "add", "demo", "--command", server.command, "--", ...server.args];
        const r = await run(ctx, "config-add", bin("mcporter"), args);
        const stored = readJson(path.join(ctx.work, "config/mcporter.json"))?.mcpServers?.demo;
        return { r, stored };
    },
    async check(ctx) {
        let r = await run(ctx, "list", bin("mcporter"), ["list"]);
        const m = /^\s*-\s*demo\s*\((\d+) tools?/m.exec(r.out);
        if (m) pass(ctx, "health", `mcporter list: "demo (${m[1]} tools"`, r);
        else fail(ctx, "health", `mcporter list: ${(/^\s*-\s*demo\b.*$/m.exec(r.out) ?? ["no line for demo"])[0].trim()} (${exitText(r)})`, r);
        r = await run(ctx, "list-json", bin("mcporter"), ["list", "demo", "--json"]);
        const list = parseJson(r.stdout);
        if (list?.tools?.length) checkToolNames(ctx, list.tools.map((t) => t.name), r, "mcporter list demo --json");
        else fail(ctx, "tools", `mcporter list demo --json: ${list ? `status ${list.status}${list.error ? `, ${JSON.stringify(list.error).slice(0, 160)}` : ""}` : "no JSON"} (${exitText(r)})`, r);
        r = await run(ctx, "call", bin("mcporter"), ["call", "demo.add", "a=2", "b=3", "--output", "json"]);
        const call = parseJson(r.stdout);
        if (call && typeof call.sum === "number" && r.code === 0) checkSum(ctx, { structuredContent: call }, r, "mcporter call demo.add a=2 b=3");
        else fail(ctx, "add", `mcporter call demo.add a=2 b=3: ${call ? (call.error ?? JSON.stringify(call).slice(0, 160)) : "no JSON"} (${exitText(r)})`, r);
    },
    async probe(ctx) {
        await run(ctx, "probe", bin("mcporter"), ["list"]);
    },
};

// Reads [mcp_servers.demo] of a config.toml (command and args, as codex writes them).
function readCodexServer(file) {
    let text;
    try {
        text = fs.readFileSync(file, "utf8");
    } catch {
        return null;
    }
    const section = /\[mcp_servers\.demo\]\n([\s\S]*?)(\n\[|$)/.exec(text);
    if (!section) return null;
    const command = /^command\s*=\s*(".*")\s*$/m.exec(section[1]);
    const args = /^args\s*=\s*(\[.*\])\s*$/m.exec(section[1]);
    const url = /^url\s*=\s*(".*")\s*$/m.exec(section[1]);
    try {
        if (url) return { url: JSON.parse(url[1]) };
        return { command: command ? JSON.parse(command[1]) : null, args: args ? JSON.parse(args[1]) : [] };
    } catch {
        return null;
    }
}

const codex = {
    id: "codex",
    name: "Codex CLI",
    pkg: "@openai/codex",
    revision: "2025-06-18",
    env: { CODEX_HOME: "" },
    variants: [
        { form: "a", how: "mcp add -- <cmd> -- ..." },
        { form: "b", how: "mcp add -- <cmd> ..." },
        { form: "c", how: "config.toml" },
        { form: "d", how: "mcp add demo --url <url>" },
        { form: "d", how: "config.toml url" },
    ],
    skipped: [
        { form: "e", how: "-", why: "Codex 0.169.1 has no SSE transport: `codex mcp add --help` offers `--url <URL>  URL for a streamable HTTP MCP server`, and a server of config.toml is stdio (command) or streamable_http (url)" },
    ],
    probeHow: "config.toml",
    async configure(ctx, server, how) {
        const file = path.join(ctx.env.CODEX_HOME, "config.toml");
        if (how.startsWith("config.toml")) {
            fs.writeFileSync(file, server.url ? `[mcp_servers.demo]\nurl = ${JSON.stringify(server.url)}\n` : `[mcp_servers.demo]\ncommand = ${JSON.stringify(server.command)}\nargs = ${JSON.stringify(server.args)}\n`);
            return null;
        }
        const r = await run(ctx, "mcp-add", bin("codex"), server.url ? ["mcp", "add", "demo", "--url", server.url] : ["mcp", "add", "demo", "--", server.command, ...server.args]);
        return { r, stored: readCodexServer(file) };
    },
    async appServer(ctx, label, { call = true } = {}) {
        const s = session(ctx, label, bin("codex"), ["app-server"], { timeout: 90_000 });
        const out = {};
        out.init = await s.request("initialize", { clientInfo: { name: "mcp-bridge-clients", version: "0" } }, 30_000);
        if (out.init.result) {
            s.notify("initialized");
            out.status = await s.request("mcpServerStatus/list", {}, 60_000);
            if (call) {
                out.thread = await s.request("thread/start", { cwd: ctx.work, ephemeral: true }, 30_000);
                const threadId = out.thread.result?.thread?.id;
                if (threadId) out.call = await s.request("mcpServer/tool/call", { server: "demo", threadId, tool: "add", arguments: { a: 2, b: 3 } }, 60_000);
            }
        }
        out.r = await s.close();
        return out;
    },
    async check(ctx) {
        const { init, status, thread, call, r } = await this.appServer(ctx, "app-server");
        if (!init.result) {
            for (const c of ["health", "tools", "add"]) fail(ctx, c, `codex app-server did not initialize: ${JSON.stringify(init.error).slice(0, 160)}`, r);
            return;
        }
        const entry = status?.result?.data?.find((d) => d.name === "demo");
        if (entry?.serverInfo && !entry.toolsError) pass(ctx, "health", `mcpServerStatus/list: serverInfo ${entry.serverInfo.name} ${entry.serverInfo.version}`, r);
        else fail(ctx, "health", `mcpServerStatus/list: ${entry ? `serverInfo ${JSON.stringify(entry.serverInfo)}, toolsError ${JSON.stringify(entry.toolsError)}` : JSON.stringify(status?.error ?? status?.result).slice(0, 200)}`, r);
        if (entry && !entry.toolsError) checkToolNames(ctx, Object.keys(entry.tools ?? {}), r, "mcpServerStatus/list");
        else fail(ctx, "tools", `mcpServerStatus/list: ${entry?.toolsError ?? "no entry for demo"}`, r);
        if (call?.result) checkSum(ctx, call.result, r, "mcpServer/tool/call add {a: 2, b: 3}");
        else fail(ctx, "add", `mcpServer/tool/call: ${JSON.stringify(call?.error ?? thread?.error ?? "not sent").slice(0, 200)}`, r);
    },
    async probe(ctx) {
        await this.appServer(ctx, "probe", { call: false });
    },
};

const claude = {
    id: "claude",
    name: "Claude Code",
    pkg: "@anthropic-ai/claude-code",
    revision: "2025-11-25",
    // At /mcp the face answers its server/discover: it speaks 2026-07-28 there.
    revisionByForm: { d: "2026-07-28" },
    env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1" },
    variants: [
        { form: "a", how: "mcp add demo -- <cmd> -- ..." },
        { form: "b", how: "mcp add demo -- <cmd> ..." },
        { form: "c", how: "mcp add demo -- <cmd> ..." },
        { form: "c-legacy", how: "mcp add demo -- <cmd> ..." },
        { form: "d", how: "mcp add --transport http demo <url>" },
        { form: "e", how: "mcp add --transport sse demo <url>" },
    ],
    probeHow: "mcp add",
    async configure(ctx, server) {
        const args = server.url ? ["mcp", "add", "--transport", server.transport, "demo", server.url] : ["mcp", "add", "demo", "--", server.command, ...server.args];
        const r = await run(ctx, "mcp-add", bin("claude"), args);
        const stored = readJson(path.join(ctx.home, ".claude.json"))?.projects?.[ctx.work]?.mcpServers?.demo;
        return { r, stored };
    },
    async check(ctx) {
        const r = await run(ctx, "mcp-list", bin("claude"), ["mcp", "list"]);
        const line = /^demo: .*$/m.exec(r.out)?.[0] ?? "no line for demo";
        if (/✔ Connected/.test(line)) pass(ctx, "health", `claude mcp list: ${line.replace(/^demo: .* - /, "demo: ")}`, r);
        else fail(ctx, "health", `claude mcp list: ${line.replace(/^demo: .* - /, "demo: ")} (${exitText(r)})`, r);
        await chat(ctx, bin("claude"), this.chatArgs, this.chatEnv);
    },
    chatArgs: ["-p", PROMPT, "--allowedTools", "mcp__demo__add"],
    chatEnv: (url) => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "stand-in", ENABLE_TOOL_SEARCH: "false" }),
    async probe(ctx) {
        await run(ctx, "probe", bin("claude"), ["mcp", "list"]);
        await chatRun(ctx, "probe-chat", bin("claude"), this.chatArgs, this.chatEnv);
    },
};

const opencode = {
    id: "opencode",
    name: "opencode",
    pkg: "opencode-ai",
    revision: "2025-11-25",
    env: {
        OPENCODE_DISABLE_AUTOUPDATE: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
        OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_CLAUDE_CODE: "1",
        OPENCODE_DISABLE_SHARE: "1",
    },
    variants: [
        { form: "a", how: "opencode.json" },
        { form: "b", how: "opencode.json" },
        { form: "c", how: "opencode.json" },
        { form: "d", how: 'opencode.json "type": "remote"' },
        { form: "e", how: 'opencode.json "type": "remote"' },
    ],
    probeHow: "opencode.json",
    async configure(ctx, server) {
        writeJson(path.join(ctx.work, "opencode.json"), {
            $schema: "https://opencode.ai/config.json",
            mcp: { demo: server.url ? { type: "remote", url: server.url, enabled: true } : { type: "local", command: [server.command, ...server.args], enabled: true } },
            provider: { anthropic: { options: { baseURL: "{env:STAND_IN_ANTHROPIC_URL}", apiKey: "stand-in" } } },
            model: "anthropic/claude-sonnet-4-5",
        });
        return null;
    },
    async check(ctx) {
        const r = await run(ctx, "mcp-list", bin("opencode"), ["mcp", "list"], { env: { STAND_IN_ANTHROPIC_URL: "http://127.0.0.1:9/v1" } });
        const lines = r.out.split("\n");
        const i = lines.findIndex((l) => /[✓✗○●]\s+demo\b/.test(l));
        const line = i >= 0 ? lines[i].replace(/^[│●\s]+/, "").trim() : "no line for demo";
        const why = i >= 0 && /failed/.test(line) ? ` — ${(lines[i + 1] ?? "").replace(/^[│\s]+/, "").trim()}` : "";
        if (/✓\s+demo\s+connected/.test(line)) pass(ctx, "health", `opencode mcp list: ${line}`, r);
        else fail(ctx, "health", `opencode mcp list: ${line}${why} (${exitText(r)})`, r);
        await chat(ctx, bin("opencode"), this.chatArgs, this.chatEnv);
    },
    chatArgs: ["run", "--auto", PROMPT],
    chatEnv: (url) => ({ STAND_IN_ANTHROPIC_URL: `${url}/v1` }),
    async probe(ctx) {
        await run(ctx, "probe", bin("opencode"), ["mcp", "list"], { env: { STAND_IN_ANTHROPIC_URL: "http://127.0.0.1:9/v1" } });
        await chatRun(ctx, "probe-chat", bin("opencode"), this.chatArgs, this.chatEnv);
    },
};

// Gemini CLI and Qwen Code: the same `mcp add` and `mcp list`.
function geminiLike({ id, name, pkg, revision, exe, env, settingsFile, userSettings, chatArgs, chatEnv }) {
    return {
        id,
        name,
        pkg,
        revision,
        env,
        variants: [
            { form: "a", how: "mcp add demo <cmd> -- -- ..." },
            ...(id === "gemini" ? [{ form: "a", how: ".gemini/settings.json" }] : []),
            { form: "b", how: "mcp add demo <cmd> -- ..." },
            { form: "c", how: "mcp add demo <cmd> -- ..." },
            { form: "d", how: "mcp add --transport http demo <url>" },
            ...(id === "gemini" ? [{ form: "d", how: ".gemini/settings.json httpUrl" }] : []),
            { form: "e", how: "mcp add --transport sse demo <url>" },
        ],
        probeHow: "mcp add",
        setup(ctx) {
            writeJson(path.join(ctx.home, `.${id}`, "settings.json"), userSettings);
        },
        async configure(ctx, server, how) {
            if (/settings\.json/.test(how)) {
                // By hand: httpUrl, Streamable HTTP (0.61.0 calls it deprecated, in
                // favour of what its `mcp add` writes: url and "type": "http").
                const entry = server.url ? { httpUrl: server.url } : { command: server.command, args: server.args };
                writeJson(path.join(ctx.work, `.${id}`, "settings.json"), { mcpServers: { demo: entry } });
                return null;
            }
            const args = server.url ? ["mcp", "add", "--transport", server.transport, "demo", server.url] : ["mcp", "add", "demo", server.command, ...afterDash(server)];
            const r = await run(ctx, "mcp-add", bin(exe), args);
            const stored = readJson(settingsFile(ctx))?.mcpServers?.demo;
            return { r, stored };
        },
        async check(ctx) {
            const r = await run(ctx, "mcp-list", bin(exe), ["mcp", "list"]);
            const line = /^.*\bdemo: .*$/m.exec(r.out)?.[0]?.trim() ?? "no line for demo";
            const state = line.replace(/^.*\((stdio|http|sse)\) - /, "");
            if (/^✓/.test(line) && /Connected/.test(line)) pass(ctx, "health", `${exe} mcp list: demo ${state}`, r);
            else fail(ctx, "health", `${exe} mcp list: demo ${state} (${exitText(r)})`, r);
            const c = await chat(ctx, bin(exe), chatArgs, chatEnv);
            // Why the server is missing, when it is: the client's own message.
            const why = /\[MCP error\][^\n]*|Server's protocol version is not supported[^\n]*/.exec(c.out);
            if (why) {
                const text = why[0].replace(/\s+_?\w*Error: .*$/, "").slice(0, 200);
                infos.push({ kind: "why", client: id, form: ctx.form, text: `(${ctx.form}) ${ctx.how}: ${text}` });
                console.log(`INFO  ${id.padEnd(9)} ${`(${ctx.form}) ${ctx.how}`.padEnd(46)} ${"why".padEnd(6)} ${text}`);
            }
        },
        async probe(ctx) {
            await run(ctx, "probe", bin(exe), ["mcp", "list"]);
            await chatRun(ctx, "probe-chat", bin(exe), chatArgs, chatEnv);
        },
    };
}

const gemini = geminiLike({
    id: "gemini",
    name: "Gemini CLI",
    pkg: "@google/gemini-cli",
    revision: "2025-06-18",
    exe: "gemini",
    env: { GEMINI_CLI_TRUST_WORKSPACE: "true" },
    settingsFile: (ctx) => path.join(ctx.work, ".gemini/settings.json"),
    userSettings: {
        security: { auth: { selectedType: "gemini-api-key" } },
        general: { enableAutoUpdate: false },
        privacy: { usageStatisticsEnabled: false },
    },
    chatArgs: ["--debug", "-p", PROMPT, "--approval-mode", "yolo", "-m", "gemini-2.5-flash"],
    chatEnv: (url) => ({ GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: "stand-in" }),
});

const qwen = geminiLike({
    id: "qwen",
    name: "Qwen Code",
    pkg: "@qwen-code/qwen-code",
    revision: "2025-11-25",
    exe: "qwen",
    env: { QWEN_CODE_SUPPRESS_YOLO_WARNING: "1" },
    settingsFile: (ctx) => path.join(ctx.home, ".qwen/settings.json"),
    userSettings: {
        security: { auth: { selectedType: "openai" } },
        tools: { toolSearch: { enabled: false } },
        privacy: { usageStatisticsEnabled: false },
    },
    chatArgs: ["--debug", "--approval-mode", "yolo", PROMPT],
    chatEnv: (url) => ({ OPENAI_BASE_URL: `${url}/v1`, OPENAI_API_KEY: "stand-in", OPENAI_MODEL: "stand-in", QWEN_CODE_DEBUG: "1" }),
});

const cline = {
    id: "cline",
    name: "Cline CLI",
    pkg: "cline",
    revision: "2024-11-05",
    // By URL it asks another revision (measured by the probe through http-relay.mjs).
    revisionByForm: { d: "2025-11-25", e: "2025-11-25" },
    variants: [
        { form: "a", how: "mcp add demo --yes -- <cmd> -- ..." },
        { form: "b", how: "mcp add demo --yes -- <cmd> ..." },
        { form: "c", how: "mcp add demo --yes -- <cmd> ..." },
        { form: "d", how: "mcp add demo <url> --transport http --yes" },
        { form: "e", how: "mcp add demo <url> --transport sse --yes" },
    ],
    probeHow: "mcp add",
    async configure(ctx, server) {
        const args = server.url
            ? ["mcp", "add", "demo", server.url, "--transport", server.transport, "--yes"]
            : ["mcp", "add", "demo", "--yes", "--", server.command, ...server.args];
        const r = await run(ctx, "mcp-add", bin("cline"), args);
        const stored = readJson(path.join(ctx.home, ".cline/data/settings/cline_mcp_settings.json"))?.mcpServers?.demo?.transport;
        return { r, stored };
    },
    // Cline has no status command for MCP servers (its `config` needs a terminal):
    // the chat is the check. `cline auth` points it at the stand-in, as a user
    // points it at an OpenAI-compatible endpoint.
    chatOptions(ctx) {
        return {
            before: (url) => run(ctx, "auth", bin("cline"), ["auth", "openai", "-k", "stand-in", "-b", `${url}/v1`, "-m", "stand-in"]),
        };
    },
    async check(ctx) {
        await chat(ctx, bin("cline"), ["--json", PROMPT], () => ({}), this.chatOptions(ctx));
    },
    async probe(ctx) {
        await chatRun(ctx, "probe-chat", bin("cline"), ["--json", PROMPT], () => ({}), this.chatOptions(ctx));
    },
};

const CLIENTS = [baseline, inspector, mcporter, codex, claude, opencode, cline, gemini, qwen];

// --- the run --------------------------------------------------------------------------

function cleanupAndExit(code) {
    for (const pid of live) killGroup(pid);
    sweep();
    fs.rmSync(tmpRoot, { recursive: true, force: true });
    process.exit(code);
}
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, () => {
    console.error(`run.mjs: ${s}: ending the clients`);
    try {
        writeReport(startedAt, Math.round((Date.now() - startedAt) / 1000), bridgeAtStart, `stopped by ${s}: the checks after the last one here did not run`);
    } catch {
        /* no report then */
    }
    cleanupAndExit(1);
});

async function runClient(client) {
    const started = Date.now();
    if (client.pkg) {
        const version = JSON.parse(fs.readFileSync(path.join(opts.cache, "cli/node_modules", client.pkg, "package.json"), "utf8")).version;
        client.version = version;
        if (version !== pins[client.pkg]) console.log(`WARN  ${client.id}: installed ${version}, pinned ${pins[client.pkg]} (run scripts/install-clients)`);
    }
    for (const v of client.variants) {
        const ctx = makeCtx(client, v.form, v.how);
        if (Date.now() > deadline - 5000) {
            fail(ctx, "all", `not run: the run's time limit (--budget ${opts.budget} s) was reached`);
            continue;
        }
        const form = FORMS[v.form];
        let server = { command: B, args: form.args };
        let face = null;
        if (form.face) {
            // A face of its own for each client × form, in front of the demo server.
            face = await startFace(ctx, form.face);
            if (!face.base) {
                const stopped = await stopFace(ctx, face);
                fail(ctx, "all", `the face did not say where it listens in 15 s (${stopped.detail})`, stopped.r);
                continue;
            }
            server = { url: `${face.base}${form.path}`, transport: form.transport };
        }
        try {
            await client.setup?.(ctx);
            const configured = client.configure ? await client.configure(ctx, server, v.how) : null;
            if (configured) checkStored(ctx, configured.stored, server, configured.r);
            await client.check(ctx, server);
        } catch (e) {
            fail(ctx, "error", `the driver failed: ${e.stack ?? e}`);
        } finally {
            if (face) {
                const stopped = await stopFace(ctx, face, form.transport);
                record(ctx, "face", stopped.ok ? "PASS" : "FAIL", stopped.detail, stopped.r);
            }
        }
    }
    for (const s of client.skipped ?? []) {
        const ctx = { client, form: s.form, how: s.how };
        record(ctx, "all", "SKIP", s.why);
    }
    if (client.probe && Date.now() < deadline - 5000) {
        try {
            await probeRevision(client);
        } catch (e) {
            console.log(`INFO  ${client.id}: the revision probe failed: ${e.message}`);
        }
    }
    // By URL too, through the logging HTTP relay: what the client asks there.
    for (const f of ["d", "e"]) {
        const v = client.variants.find((x) => x.form === f);
        if (!client.probe || !v || Date.now() > deadline - 5000) continue;
        try {
            await probeRevision(client, f, v.how);
        } catch (e) {
            console.log(`INFO  ${client.id}: the revision probe (${f}) failed: ${e.message}`);
        }
    }
    timings.push({ client: client.id, s: Math.round((Date.now() - started) / 100) / 10 });
}

function bridgeInfo() {
    const st = fs.statSync(B);
    return `${B} (${(st.size / 1048576).toFixed(0)} MiB, modified ${st.mtime.toISOString()})`;
}

const md = (s) => String(s).replace(/\|/g, "\\|").replace(/\n/g, " ");

function writeReport(startedAt, seconds, bridgeAtStart, stopped = null) {
    const count = (st) => results.filter((r) => r.status === st).length;
    const bridgeNow = bridgeInfo();
    const forms = Object.keys(FORMS);
    const ran = CLIENTS.filter((c) => results.some((r) => r.client === c.id));
    const cell = (c, f) => {
        const rs = results.filter((r) => r.client === c.id && r.form === f);
        if (!rs.length) return "";
        if (rs.every((r) => r.status === "SKIP")) return "skipped";
        const checks = rs.filter((r) => r.status !== "SKIP");
        const ok = checks.filter((r) => r.status === "PASS").length;
        return `${ok === checks.length ? "PASS" : "FAIL"} ${ok}/${checks.length}`;
    };
    const lines = [
        "# MCP clients against mcp-bridge-vscode",
        "",
        `- Run: ${startedAt.toISOString()}, ${seconds} s, Node ${process.version}`,
        `- Bridge: ${bridgeAtStart}${bridgeNow === bridgeAtStart ? "" : ` — CHANGED during the run (now ${bridgeNow}): a build replaced it; the checks after that ran against the new one`}`,
        `- Network: ${opts.isolation}`,
        ...(stopped ? [`- **Incomplete**: ${stopped}`] : []),
        `- Result: ${count("PASS")} passed, ${count("FAIL")} failed, ${count("SKIP")} skipped`,
        "",
        "## Summary (checks passed per client and form)",
        "",
        `| client | ${forms.map((f) => `(${f})`).join(" | ")} |`,
        `| --- | ${forms.map(() => "---").join(" | ")} |`,
        ...ran.map((c) => `| ${c.id} | ${forms.map((f) => cell(c, f)).join(" | ")} |`),
        "",
        `Forms: ${forms.map((f) => `(${f}) ${FORMS[f].what}: \`${FORMS[f].face ? `${shortLine(B, FORMS[f].face)}\`, the client given http://127.0.0.1:PORT${FORMS[f].path}` : `${shortLine(B, FORMS[f].args)}\``}`).join("; ")}. Each face is stopped with SIGTERM after its checks; its check "face" asks exit 0, nothing of it left and, for (e), a session of HTTP+SSE.`,
        "",
        "## Clients",
        "",
        "| client | version | seconds |",
        "| --- | --- | --- |",
        ...CLIENTS.filter((c) => timings.some((t) => t.client === c.id)).map((c) => `| ${c.name} (${c.id}) | ${c.version ?? "-"} | ${timings.find((t) => t.client === c.id).s} |`),
        "",
        "## Checks",
        "",
        "| result | client | form | configured with | check | detail |",
        "| --- | --- | --- | --- | --- | --- |",
        ...results.map((r) => `| ${r.status} | ${r.client} | ${r.form} | ${md(r.how)} | ${r.check} | ${md(r.detail)} |`),
        "",
        "## What each client asks (the revision probe, relay.mjs in front of the server)",
        "",
        ...infos.filter((i) => i.kind === "revision").map((i) => `- ${i.client}: ${md(i.text)}`),
        "",
    ];
    const whys = infos.filter((i) => i.kind === "why");
    if (whys.length) lines.push("## Why a server was missing, as the client said it (--debug)", "", ...whys.map((i) => `- ${i.client}: ${md(i.text)}`), "");
    const failed = results.filter((r) => r.status === "FAIL");
    if (failed.length) {
        lines.push("## Failures", "");
        let shown = null;
        for (const f of failed) {
            lines.push(`### ${f.client} (${f.form}) ${f.how}: ${f.check}`, "", md(f.detail), "", `Log: \`${f.log ?? "-"}\``, "");
            if (f.log && f.log === shown) lines.push("(the same output as above)", "");
            else if (f.output.length) lines.push("```", ...f.output.map((l) => l.slice(0, 300)), "```", "");
            shown = f.log;
        }
    }
    fs.writeFileSync(reportFile, lines.join("\n"));
}

const startedAt = new Date();
const bridgeAtStart = bridgeInfo();
console.log(`clients: the bridge ${bridgeAtStart}`);
console.log(`clients: network: ${opts.isolation}; private homes under ${tmpRoot}; logs in ${logDir}`);
const unknown = (opts.only ?? []).filter((id) => !CLIENTS.some((c) => c.id === id));
if (unknown.length) {
    console.error(`run.mjs: no client ${unknown.join(", ")} (the clients: ${CLIENTS.map((c) => c.id).join(", ")})`);
    cleanupAndExit(2);
}
for (const client of CLIENTS) {
    if (opts.only && !opts.only.includes(client.id)) continue;
    await runClient(client);
}
const seconds = Math.round((Date.now() - startedAt) / 1000);
try {
    writeReport(startedAt, seconds, bridgeAtStart);
} catch (e) {
    // The clients still end, and the temporary folder goes.
    console.error(`run.mjs: the report could not be written: ${e.stack ?? e}`);
    cleanupAndExit(1);
}
if (bridgeInfo() !== bridgeAtStart) console.log(`clients: WARNING: the bridge changed during the run (now ${bridgeInfo()})`);
const failed = results.filter((r) => r.status === "FAIL").length;
console.log(
    `clients: ${results.filter((r) => r.status === "PASS").length} passed, ${failed} failed, ${results.filter((r) => r.status === "SKIP").length} skipped in ${seconds} s; the report: ${path.join(opts.cache, "report.md")}`,
);
cleanupAndExit(failed ? 1 : 0);
