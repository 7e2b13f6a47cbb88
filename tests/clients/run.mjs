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
//
// For every client × form it checks, each as one line (PASS, FAIL, or SKIP with
// the reason):
//
//   config  what the client stored (for the forms given through its `mcp add`)
//   health  its own status command shows the server connected
//   tools   the server's 6 tools are listed (by the client, or offered by it to the model)
//   add     add(2, 3) gives 5
//
// The clients, their versions, how each is configured and checked, and the
// revision each asks in `initialize`. That is measured through relay.mjs in
// front of the bridge, and every run measures it again (an INFO line, not a
// check): the probe runs the client's status command and, for a chat client,
// one chat too (Gemini CLI and Qwen Code connect with another clientInfo for
// `mcp list` than for a chat). When a chat client's server is missing, an INFO
// "why" line gives the client's own reason (from --debug) where it prints one.
//
//   baseline   this driver itself, by hand over stdin (not a product): initialize
//              (2025-11-25), tools/list, tools/call; forms a, b, c. A failure here
//              is the bridge's, whatever the clients say.
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
//   mcporter   mcporter 0.12.3, asks 2025-11-25. `mcporter config add demo --command
//              <command> -- <args>` (./config/mcporter.json; `-- --` for (a)), then
//              `mcporter list` (health), `mcporter list demo --json` (tools),
//              `mcporter call demo.add a=2 b=3 --output json` (add).
//   codex      Codex CLI (@openai/codex 0.169.1), asks 2025-06-18 (and takes the
//              bridge's 2025-11-25). `codex mcp add demo -- <command> <args>` for a
//              and b, ~/.codex/config.toml ([mcp_servers.demo]) for c; then `codex
//              app-server` over JSON-RPC, no model: mcpServerStatus/list (health:
//              the server's serverInfo and no toolsError; tools), thread/start and
//              mcpServer/tool/call (add).
//   claude     Claude Code (@anthropic-ai/claude-code 2.1.332): sends server/discover
//              (2026-07-28) first and, on -32601, initialize with 2025-11-25. To the
//              embedded demo server (c) it speaks 2026-07-28 (the bridge is not on that
//              path), so (c-legacy) adds --refuse-discover to take the embedded legacy
//              path. `claude mcp add demo -- <command> <args>` (local scope), then
//              `claude mcp list` (health) and one chat turn, `claude -p ...
//              --allowedTools mcp__demo__add`, against the stand-in Anthropic API
//              (ANTHROPIC_BASE_URL, a dummy ANTHROPIC_API_KEY; ENABLE_TOOL_SEARCH=false
//              so that the MCP tools are declared to the model, not deferred).
//   opencode   opencode (opencode-ai 1.18.33), asks 2025-11-25. ./opencode.json
//              ("mcp": {"demo": {"type": "local", "command": [...]}}; its `mcp add` is
//              interactive), then `opencode mcp list` (health) and `opencode run
//              --auto ...` against the stand-in Anthropic API (provider.anthropic.
//              options.baseURL).
//   cline      Cline CLI (cline 3.0.65), asks 2024-11-05 (and takes the bridge's
//              2025-11-25). `cline mcp add demo --yes -- <command> <args>`
//              (~/.cline/data/settings/cline_mcp_settings.json); `cline auth openai -k
//              ... -b <stand-in>/v1 -m stand-in`, then one chat turn, `cline --json
//              "..."`, against the stand-in OpenAI API. No health check: 3.0.65 has no
//              status command for MCP servers (`cline config` needs a terminal).
//   gemini     Gemini CLI (@google/gemini-cli 0.61.0), asks 2025-06-18 and refuses
//              any other answer ("Server's protocol version is not supported"). In a
//              trusted folder (GEMINI_CLI_TRUST_WORKSPACE=true): `gemini mcp add demo
//              <command> -- <args>` (it eats the first `--`, so (a) takes `-- --`) and,
//              for (a) also, ./.gemini/settings.json by hand; then `gemini mcp list`
//              (health) and one chat turn, `gemini --debug -p ... --approval-mode
//              yolo`, against the stand-in Gemini API (GOOGLE_GEMINI_BASE_URL, a
//              dummy GEMINI_API_KEY, security.auth.selectedType gemini-api-key).
//   qwen       Qwen Code (@qwen-code/qwen-code 0.24.4, a fork of Gemini CLI), asks
//              2025-11-25. `qwen mcp add demo <command> -- <args>` (user settings;
//              `-- --` for (a)), then `qwen mcp list` (health) and one chat turn, `qwen
//              --debug --approval-mode yolo "..."`, against the stand-in OpenAI API
//              (OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL; tools.toolSearch.enabled
//              false so that the MCP tools are declared to the model).
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
// environment, is killed too (by pid). Each command's output goes to
// <cache>/logs, the report to <cache>/report.md.
// Exit code: 0 when every check passed, 1 otherwise, 2 for bad arguments.

import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { startModelApi, summarize } from "./model-api.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

// --- arguments -----------------------------------------------------------------------

function usage(msg) {
    if (msg) console.error(`run.mjs: ${msg}`);
    console.error("usage: node run.mjs --bridge <mcp-bridge-vscode> --cache <.cache/clients> [--only <id>,...] [--isolation <what>] [--budget <seconds>]");
    process.exit(2);
}

function parseArgs(argv) {
    const out = { only: null, isolation: "none", budget: 540 };
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

const FORMS = {
    a: { args: ["--", B, "demo-server"], what: "bridged, with --" },
    b: { args: [B, "demo-server"], what: "bridged, without --" },
    c: { args: ["demo-server"], what: "embedded" },
    "c-legacy": { args: ["demo-server", "--refuse-discover"], what: "embedded, discover refused" },
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
function sweep() {
    const killed = [];
    for (const entry of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        const pid = Number(entry);
        if (pid === process.pid) continue;
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
    console.log(`${status.padEnd(4)}  ${ctx.client.id.padEnd(9)} ${where.padEnd(34)} ${check.padEnd(6)} ${detail}`);
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
    const answerOf = (i) => msgs.slice(i + 1).find((x) => x.dir === "<" && x.m.id === msgs[i].m.id && !x.m.method)?.m ?? null;
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
                texts.push(pending);
                pending = null;
            }
        } else if (x.m.method === "initialize") {
            const a = answerOf(i);
            const p = x.m.params ?? {};
            asks.push(p.protocolVersion);
            const t = `initialize asks ${p.protocolVersion} (clientInfo ${p.clientInfo?.name} ${p.clientInfo?.version ?? ""}), the bridge answered ${a ? (a.result?.protocolVersion ?? `error ${a.error?.code}`) : "nothing"}`;
            texts.push(pending ? `${pending}; then ${t}` : t);
            pending = null;
        }
    });
    if (pending) texts.push(pending);
    return { texts: [...new Set(texts)], asks: [...new Set(asks)] };
}

// Runs the client's status command (and its chat, for a client that has one)
// with relay.mjs in front of the server, and says what the client asked.
async function probeRevision(client) {
    const ctx = makeCtx(client, client.probeForm ?? "a", client.probeHow, "probe");
    const log = path.join(ctx.dir, "relay.log");
    await client.setup?.(ctx);
    const server = { command: node24, args: [path.join(here, "relay.mjs"), log, B, ...FORMS[ctx.form].args] };
    await client.configure(ctx, server, ctx.how);
    await client.probe(ctx);
    const got = readRelay(log);
    const agrees = got.asks.length === 1 && got.asks[0] === client.revision;
    let line = got.texts.length ? got.texts.join(" | ") : "nothing reached the relay";
    if (!agrees) line += ` — the header of run.mjs says ${client.revision}`;
    infos.push({ kind: "revision", client: client.id, form: ctx.form, asks: got.asks, text: `(${ctx.form}) ${line}` });
    console.log(`INFO  ${client.id.padEnd(9)} ${`(${ctx.form}) revision probe`.padEnd(34)} ${"asks".padEnd(6)} ${line}`);
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
function checkStored(ctx, stored, server, r) {
    if (!stored) return fail(ctx, "config", `nothing stored (${exitText(r)})`, r);
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
    ],
    async check(ctx, server) {
        const s = session(ctx, "session", server.command, server.args, { timeout: 60_000 });
        const init = await s.request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "mcp-bridge-clients", version: "0" } }, 30_000);
        let list = null;
        let call = null;
        if (init.result) {
            s.notify("notifications/initialized");
            list = await s.request("tools/list", {}, 30_000);
            call = await s.request("tools/call", { name: "add", arguments: { a: 2, b: 3 } }, 30_000);
        }
        const r = await s.close();
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
    ],
    skipped: [
        { form: "a", how: "command line", why: "Inspector CLI 1.0.3 splits its own command line at the first -- (the server's -- ends its options: 'Method is required')" },
        { form: "a", how: "mcp.json", why: "Inspector CLI 1.0.3 puts the config file's args on its own command line, where the -- splits it as above (measured: 'Method is required')" },
    ],
    probeForm: "c",
    probeHow: "mcp.json",
    async configure(ctx, server, how) {
        ctx.target = how === "mcp.json" ? ["--config", "mcp.json", "--server", "demo"] : [server.command, ...server.args];
        if (how === "mcp.json") writeJson(path.join(ctx.work, "mcp.json"), { mcpServers: { demo: { command: server.command, args: server.args } } });
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
    ],
    probeHow: "config add -- --",
    async configure(ctx, server) {
        const r = await run(ctx, "config-add", bin("mcporter"), ["config", "add", "demo", "--command", server.command, "--", ...server.args]);
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
    try {
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
    ],
    probeHow: "config.toml",
    async configure(ctx, server, how) {
        const file = path.join(ctx.env.CODEX_HOME, "config.toml");
        if (how === "config.toml") {
            fs.writeFileSync(file, `[mcp_servers.demo]\ncommand = ${JSON.stringify(server.command)}\nargs = ${JSON.stringify(server.args)}\n`);
            return null;
        }
        const r = await run(ctx, "mcp-add", bin("codex"), ["mcp", "add", "demo", "--", server.command, ...server.args]);
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
    env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_TELEMETRY: "1" },
    variants: [
        { form: "a", how: "mcp add demo -- <cmd> -- ..." },
        { form: "b", how: "mcp add demo -- <cmd> ..." },
        { form: "c", how: "mcp add demo -- <cmd> ..." },
        { form: "c-legacy", how: "mcp add demo -- <cmd> ..." },
    ],
    probeHow: "mcp add",
    async configure(ctx, server) {
        const r = await run(ctx, "mcp-add", bin("claude"), ["mcp", "add", "demo", "--", server.command, ...server.args]);
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
    ],
    probeHow: "opencode.json",
    async configure(ctx, server) {
        writeJson(path.join(ctx.work, "opencode.json"), {
            $schema: "https://opencode.ai/config.json",
            mcp: { demo: { type: "local", command: [server.command, ...server.args], enabled: true } },
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
        ],
        probeHow: "mcp add",
        setup(ctx) {
            writeJson(path.join(ctx.home, `.${id}`, "settings.json"), userSettings);
        },
        async configure(ctx, server, how) {
            if (how.endsWith("settings.json")) {
                writeJson(path.join(ctx.work, `.${id}`, "settings.json"), { mcpServers: { demo: { command: server.command, args: server.args } } });
                return null;
            }
            const r = await run(ctx, "mcp-add", bin(exe), ["mcp", "add", "demo", server.command, ...afterDash(server)]);
            const stored = readJson(settingsFile(ctx))?.mcpServers?.demo;
            return { r, stored };
        },
        async check(ctx) {
            const r = await run(ctx, "mcp-list", bin(exe), ["mcp", "list"]);
            const line = /^.*\bdemo: .*$/m.exec(r.out)?.[0]?.trim() ?? "no line for demo";
            const state = line.replace(/^.*\(stdio\) - /, "");
            if (/^✓/.test(line) && /Connected/.test(line)) pass(ctx, "health", `${exe} mcp list: demo ${state}`, r);
            else fail(ctx, "health", `${exe} mcp list: demo ${state} (${exitText(r)})`, r);
            const c = await chat(ctx, bin(exe), chatArgs, chatEnv);
            // Why the server is missing, when it is: the client's own message.
            const why = /\[MCP error\][^\n]*|Server's protocol version is not supported[^\n]*/.exec(c.out);
            if (why) {
                const text = why[0].replace(/\s+_?\w*Error: .*$/, "").slice(0, 200);
                infos.push({ kind: "why", client: id, form: ctx.form, text: `(${ctx.form}) ${ctx.how}: ${text}` });
                console.log(`INFO  ${id.padEnd(9)} ${`(${ctx.form}) ${ctx.how}`.padEnd(34)} ${"why".padEnd(6)} ${text}`);
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
    variants: [
        { form: "a", how: "mcp add demo --yes -- <cmd> -- ..." },
        { form: "b", how: "mcp add demo --yes -- <cmd> ..." },
        { form: "c", how: "mcp add demo --yes -- <cmd> ..." },
    ],
    probeHow: "mcp add",
    async configure(ctx, server) {
        const r = await run(ctx, "mcp-add", bin("cline"), ["mcp", "add", "demo", "--yes", "--", server.command, ...server.args]);
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
        const server = { command: B, args: FORMS[v.form].args };
        try {
            await client.setup?.(ctx);
            const configured = client.configure ? await client.configure(ctx, server, v.how) : null;
            if (configured) checkStored(ctx, configured.stored, server, configured.r);
            await client.check(ctx, server);
        } catch (e) {
            fail(ctx, "error", `the driver failed: ${e.stack ?? e}`);
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
        `Forms: ${forms.map((f) => `(${f}) ${FORMS[f].what}: \`${shortLine(B, FORMS[f].args)}\``).join("; ")}.`,
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
writeReport(startedAt, seconds, bridgeAtStart);
if (bridgeInfo() !== bridgeAtStart) console.log(`clients: WARNING: the bridge changed during the run (now ${bridgeInfo()})`);
const failed = results.filter((r) => r.status === "FAIL").length;
console.log(
    `clients: ${results.filter((r) => r.status === "PASS").length} passed, ${failed} failed, ${results.filter((r) => r.status === "SKIP").length} skipped in ${seconds} s; the report: ${path.join(opts.cache, "report.md")}`,
);
cleanupAndExit(failed ? 1 : 0);
