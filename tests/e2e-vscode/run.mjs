// The VS Code end-to-end run of mcp-bridge-vscode. scripts/e2e-vscode
// installs what it needs and runs this file on Node 24:
//
//   node run.mjs --bridge <mcp-bridge-vscode> --cache <.cache/e2e-vscode> --python <python3>
//                [--readme-shots <folder>] [--user-ns <name> --remote-ip <address>]
//
// It starts code-server (VS Code 1.139.1) on 127.0.0.1 without authentication,
// with no extension gallery, a fresh user-data folder and a workspace whose
// .vscode/mcp.json lists the servers below; it drives the workbench in headless
// Chromium with playwright-core, and a test extension (./extension) calls tools
// through VS Code's own MCP client (vscode.lm.invokeTool). Each check names the
// rule it checks; every wait is bounded. The servers:
//
//   modern-direct    modern_upstream.py, which speaks only 2026-07-28, started directly
//   schema-control   the same tools served as a 2025-11-25 server, unrepaired (the control
//                    that shows VS Code still refuses the schemas the bridge repairs)
//   modern-bridged   mcp-bridge-vscode -- python3 modern_upstream.py
//   demo-bridged     mcp-bridge-vscode -- mcp-bridge-vscode demo-server
//   remote-bridged   mcp-bridge-vscode <URL> of tests/fake/auth_upstream.py on 127.0.0.1,
//                    a Streamable HTTP server with its own OAuth authorization server
//   demo-http        "type": "http", the URL (/mcp) of the HTTP face that the run starts
//                    before code-server (mcp-bridge-vscode --listen 127.0.0.1:0 --
//                    mcp-bridge-vscode demo-server): VS Code connects to it by URL, as to a
//                    remote server; the tools are listed, calls work, Stop ends the face's
//                    session (DELETE); the demo server, which its sessions share, stays
//   demo-sse         "type": "sse", the same face's /sse (HTTP+SSE of 2024-11-05): the same
//                    checks; Stop closes the session's stream
//                    At the end SIGTERM ends the face with exit 0 (the check "http-face").
//                    Its stderr goes to <cache>/run/face.stderr.
//
// With --user-ns and --remote-ip it is the remote-host run instead:
// scripts/e2e-vscode starts it inside the network namespace of a "remote host",
// which a veth pair joins to the "user's machine", the namespace --user-ns;
// --remote-ip is the remote host's address on that pair. code-server, the
// bridges and the fake server run on the remote host (code-server listens on
// the veth address, the fake on every address of the host, and the bridges
// reach it on 127.0.0.1), and Chromium runs on the user's machine, as in a
// browser-based window (code-server, Codespaces). Its servers:
//
//   remote-browser   mcp-bridge-vscode --sign-in browser <URL> of auth_upstream.py --device:
//                    the loopback redirect forced; its start URL on 127.0.0.1 of the remote
//                    host does not open in the user's browser, and the sign-in times out
//   remote-device    mcp-bridge-vscode <URL> (--sign-in auto): the device grant, the first
//                    sign-in from the URL of the Output channel, a later one (a step-up)
//                    through VS Code's URL elicitation, both approved in the user's browser;
//                    the verification URL is https on the remote host's address (a
//                    self-signed certificate made by openssl, which the browser accepts)
//
// Everything goes to <cache>/run (the remote-host run: <cache>/run-remote): screenshots, each server's Output channel (read
// through the workbench: VS Code keeps them in the browser), report.md (the result of
// each check; for a failure what VS Code showed, the screenshot and the Output
// channel). It ends only the process groups it started (their ids are in
// <cache>/run/pgids, which scripts/e2e-vscode also reads on its way out).
// Exit code: 0 when every check passed, 1 otherwise, 2 for bad arguments.

import { chromium } from "playwright-core";
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");

// --- arguments -------------------------------------------------------------------

function parseArgs(argv) {
    const out = { readmeShots: null };
    for (let i = 0; i < argv.length; i++) {
        const [k, v] = [argv[i], argv[i + 1]];
        if (k === "--bridge") (out.bridge = path.resolve(v)), i++;
        else if (k === "--cache") (out.cache = path.resolve(v)), i++;
        else if (k === "--python") (out.python = v), i++;
        else if (k === "--readme-shots") (out.readmeShots = path.resolve(v)), i++;
        else if (k === "--user-ns") (out.userNs = v), i++;
        else if (k === "--remote-ip") (out.remoteIp = v), i++;
        else {
            console.error(`run.mjs: unknown argument ${k}`);
            process.exit(2);
        }
    }
    if (!out.bridge || !out.cache || !out.python || !out.userNs !== !out.remoteIp) {
        console.error("usage: run.mjs --bridge <mcp-bridge-vscode> --cache <dir> --python <python3> [--readme-shots <dir>] [--user-ns <name> --remote-ip <address>]");
        process.exit(2);
    }
    return out;
}

const opts = parseArgs(process.argv.slice(2));
// The remote-host run: VS Code on a remote host, the browser on the user's machine.
const remoteHost = Boolean(opts.userNs);
const runDir = path.join(opts.cache, remoteHost ? "run-remote" : "run");
const node24 = process.execPath;
const codeServer = path.join(opts.cache, "vscode/node_modules/code-server/out/node/entry.js");
// One id per run: the marker in the environment of every MCP server process,
// so that the process checks see only this run's processes.
const runId = crypto.randomBytes(6).toString("hex");
const MARK = "MCP_BRIDGE_E2E_SERVER";

// --- time bounds ----------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class Timeout extends Error {}
// A definite failure inside a wait: no use waiting longer.
class Fail extends Error {}

// Resolves with fn's value, or rejects after ms with what was awaited.
function bounded(what, ms, promise) {
    let timer;
    const limit = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Timeout(`${what}: no result in ${ms} ms`)), ms);
    });
    return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

// Polls fn until it returns a truthy value, at most ms. The error tells the last
// value seen, so a failure report says what VS Code showed instead.
async function until(what, ms, fn, every = 250) {
    const end = Date.now() + ms;
    let last;
    for (;;) {
        try {
            last = await fn();
            if (last) return last;
        } catch (e) {
            if (e instanceof Fail) throw e;
            last = `error: ${e.message}`;
        }
        if (Date.now() > end) {
            const shown = typeof last === "string" ? last : JSON.stringify(last);
            throw new Timeout(`${what}: not seen in ${ms} ms (last seen: ${String(shown).slice(0, 600)})`);
        }
        await sleep(every);
    }
}

// --- process groups we start ------------------------------------------------------

const groups = [];
const pgidFile = path.join(runDir, "pgids");

function remember(pid, name) {
    groups.push({ pid, name });
    fs.appendFileSync(pgidFile, `${pid} ${name}\n`);
}

// Starts a command as the leader of a new process group.
function startGroup(name, command, args, options = {}) {
    const child = spawn(command, args, { detached: true, stdio: ["pipe", "pipe", "pipe"], ...options });
    remember(child.pid, name);
    return child;
}

function groupAlive(pid) {
    try {
        process.kill(-pid, 0);
        return true;
    } catch {
        return false;
    }
}

let ended = false;
async function endGroups() {
    if (ended) return;
    ended = true;
    for (const g of groups) {
        try {
            process.kill(-g.pid, "SIGTERM");
        } catch {}
    }
    const end = Date.now() + 5000;
    while (Date.now() < end && groups.some((g) => groupAlive(g.pid))) await sleep(100);
    for (const g of groups) {
        if (groupAlive(g.pid)) {
            try {
                process.kill(-g.pid, "SIGKILL");
            } catch {}
        }
    }
}

// On a signal the run stops: its processes end, the checks still to come are
// skipped, and the exit code is 1.
let interrupted = null;
let current = null; // the check that runs
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, async () => {
        if (interrupted) return;
        interrupted = signal;
        console.error(`run.mjs: ${signal}, ending the processes it started`);
        // The report says which check the signal stopped (the time limit of
        // scripts/e2e-vscode sends SIGTERM).
        if (current) results.push({ ...current, status: "failed", error: `stopped by ${signal} after ${Date.now() - current.start} ms` });
        try {
            writeReport();
        } catch {}
        await endGroups();
        process.exit(1);
    });
}

// The pids of this run's MCP server processes (the bridge and its upstream,
// or a direct server), by the marker in their environment.
function serverPids(key) {
    const want = `${MARK}=${runId}:${key}`;
    const pids = [];
    for (const entry of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        let env;
        try {
            env = fs.readFileSync(`/proc/${entry}/environ`, "latin1");
        } catch {
            continue; // gone meanwhile, or not ours
        }
        if (env.split("\0").includes(want)) pids.push(Number(entry));
    }
    return pids.sort((a, b) => a - b);
}

function pidAlive(pid) {
    try {
        process.kill(pid, 0);
        // A zombie still answers kill 0; its state says it is gone.
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "latin1");
        return !/^\d+ \(.*\) Z/.test(stat);
    } catch {
        return false;
    }
}

// --- results and the report ------------------------------------------------------

const results = []; // { server, name, rule, status, ms, error, shot, output, shown }
const failedServers = new Set();
let shotCount = 0;

function log(line) {
    process.stdout.write(`e2e-vscode: ${line}\n`);
}

// --- the folders of the run ----------------------------------------------------------

fs.rmSync(runDir, { recursive: true, force: true });
fs.mkdirSync(runDir, { recursive: true });
const dirs = {
    userData: path.join(runDir, "user-data"),
    extensions: path.join(runDir, "extensions"),
    workspace: path.join(runDir, "workspace"),
    config: path.join(runDir, "config"), // XDG_CONFIG_HOME of the bridges: a fresh token store
    shots: path.join(runDir, "screenshots"),
    outputs: path.join(runDir, "output"),
    // HOME of code-server and Chromium: what they keep in a home (logs, a
    // device id, crash reports) stays in the run.
    home: path.join(runDir, "home"),
};
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
fs.writeFileSync(pgidFile, "");

const control = path.join(runDir, "control-port");
const authSecret = `E2E${crypto.randomBytes(8).toString("hex")}`;

// --- set-up ---------------------------------------------------------------------------

// The port of the auth server, once it listens, and on the remote host the
// port of its https pages for the user's machine.
let authPort, authPublicPort;

// A self-signed certificate for the remote host's address: the verification
// URL of the device grant must be https (the bridge's URL rule of a sign-in),
// and the user's browser takes the test certificate (ignoreHTTPSErrors).
function publicCertificate() {
    const cert = path.join(runDir, "public-cert.pem");
    const key = path.join(runDir, "public-key.pem");
    const made = spawnSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=mcp-bridge e2e", "-addext", `subjectAltName=IP:${opts.remoteIp}`],
        { encoding: "utf8", timeout: 30000 });
    if (made.status !== 0) throw new Error(`openssl could not make the test certificate: ${made.error || made.stderr}`);
    return ["--public-tls-cert", cert, "--public-tls-key", key];
}

async function setUp() {
    // The auth server: its own process group; it exits when its stdin closes.
    // On the remote host it listens on every address of the host and offers the
    // device grant, whose verification URL names the host's veth address (where
    // the user's machine reaches it); the bridges reach it on 127.0.0.1.
    const hostArgs = remoteHost ? ["--device", "--bind", "0.0.0.0", "--public-host", opts.remoteIp, ...publicCertificate()] : [];
    const auth = startGroup("auth_upstream.py", opts.python, [
        path.join(root, "tests/fake/auth_upstream.py"),
        "--step-up", "mcp:write",
        "--secret", authSecret,
        "--record", path.join(runDir, "auth-record.jsonl"),
        ...hostArgs,
    ]);
    auth.stderr.pipe(fs.createWriteStream(path.join(runDir, "auth_upstream.stderr")));
    const publicPort = remoteHost ? firstMatch(auth.stdout, /PUBLIC_PORT (\d+)/) : null;
    authPort = await bounded("the auth server's port", 15000, firstMatch(auth.stdout, /^PORT (\d+)/m));
    if (publicPort) authPublicPort = await bounded("the auth server's public port", 15000, publicPort);
    const remoteUrl = `http://127.0.0.1:${authPort}/mcp`;
    log(`remote server at ${remoteUrl}`);

    // The local run: the HTTP face in front of the demo server, for the server
    // of "type": "http" (a URL that VS Code connects to itself).
    const faceUrl = remoteHost ? null : await startFace();
    writeWorkspace(remoteUrl, faceUrl);
    writeSettings();
    installExtension();

    const env = {
        ...homeEnv(),
        // No gallery: nothing reaches the network, nothing installs by itself.
        EXTENSIONS_GALLERY: "{}",
        MCP_BRIDGE_E2E_CONTROL: control,
    };
    const cs = startGroup("code-server", node24, [
        codeServer,
        "--config", path.join(runDir, "code-server.yaml"),
        // On the remote host: its veth address, which the user's machine reaches.
        "--bind-addr", `${remoteHost ? opts.remoteIp : "127.0.0.1"}:0`,
        "--auth", "none",
        "--disable-telemetry",
        "--disable-update-check",
        "--disable-workspace-trust",
        "--user-data-dir", dirs.userData,
        "--extensions-dir", dirs.extensions,
        dirs.workspace,
    ], { env, stdio: ["ignore", "pipe", "pipe"] });
    const csLog = fs.createWriteStream(path.join(runDir, "code-server.log"));
    cs.stderr.pipe(csLog);
    const origin = await bounded("code-server's address", 30000, firstMatch(cs.stdout, /HTTP server listening on (http:\/\/[0-9.]+:\d+)/, csLog));
    log(`code-server at ${origin}`);

    const browserArgs = [
        "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run",
    ];
    if (remoteHost) {
        // Plain http on an address other than localhost is no secure context,
        // and VS Code's web workbench needs one (the clipboard that reads the
        // Output channels, service workers). A real remote code-server is
        // served over https for that reason; this flag stands for its certificate.
        browserArgs.push(`--unsafely-treat-insecure-origin-as-secure=${origin}`);
    }
    browserServer = await bounded("starting Chromium", 30000, chromium.launchServer({
        // On the user's machine: Chromium through `ip netns exec`, which execs it
        // (same process, its pipes to Playwright kept).
        executablePath: remoteHost ? userMachineChromium() : "/usr/bin/chromium",
        headless: true,
        args: browserArgs,
        env: homeEnv(),
        // Playwright gives Chromium a new empty profile folder of its own.
    }));
    // Playwright starts Chromium as the leader of a process group of its own.
    remember(browserServer.process().pid, "chromium");
    if (remoteHost) {
        // Each side in its own namespace, or the run proves nothing.
        expectEqual("the network namespace of Chromium", namespaceOf(browserServer.process().pid), opts.userNs);
        expectEqual("the network namespace of code-server", namespaceOf(cs.pid), remoteNs());
    }
    browser = await bounded("connecting to Chromium", 15000, chromium.connect(browserServer.wsEndpoint()));
    context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ignoreHTTPSErrors: remoteHost });
    // The Output channel is read with VS Code's own copy command.
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    page = await context.newPage();
    page.setDefaultTimeout(15000);

    // logLevel debug: VS Code then writes every message it sends and receives to
    // the server's Output channel ([editor -> server], [server -> editor]).
    const payload = encodeURIComponent(JSON.stringify([["logLevel", "debug"]]));
    await page.goto(`${origin}/?folder=${encodeURIComponent(dirs.workspace)}&payload=${payload}`, { timeout: 60000 });
    await page.waitForSelector(".monaco-workbench .part.editor", { timeout: 60000 });
    await until("the test extension's control port", 60000, () => fs.existsSync(control));
    await openMcpJson();
}

// The HTTP face: `mcp-bridge-vscode --listen 127.0.0.1:0 -- mcp-bridge-vscode
// demo-server`, a process group of its own started before code-server. Its
// stderr goes to <run>/face.stderr; face.exit is set when it ends. Resolves
// with its Streamable HTTP URL, read from its one line on stderr.
const face = { child: null, exit: null, stderr: "" };
async function startFace() {
    const child = startGroup("face", opts.bridge, ["--listen", "127.0.0.1:0", "--", opts.bridge, "demo-server"], {
        env: { ...homeEnv(), [MARK]: `${runId}:face`, XDG_CONFIG_HOME: dirs.config },
        stdio: ["ignore", "ignore", "pipe"],
    });
    face.child = child;
    face.exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve((face.exit = { code, signal }))));
    const file = fs.createWriteStream(path.join(runDir, "face.stderr"));
    child.stderr.on("data", (d) => {
        face.stderr += d;
        file.write(d);
    });
    const url = await bounded("the face's address", 15000, firstMatch(child.stderr, /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp) \(Streamable HTTP\)/));
    log(`the HTTP face at ${url}`);
    return url;
}

// The remote-host run: a script that runs Chromium on the user's machine.
function userMachineChromium() {
    const file = path.join(runDir, "chromium-on-the-users-machine");
    fs.writeFileSync(file, `#!/bin/sh\nexec ip netns exec '${opts.userNs}' /usr/bin/chromium "$@"\n`, { mode: 0o755 });
    return file;
}

// The name of the network namespace (under /run/netns) that a process is in,
// else "none of /run/netns".
function namespaceOf(pid) {
    const ns = fs.statSync(`/proc/${pid}/ns/net`);
    for (const name of fs.readdirSync("/run/netns")) {
        const named = fs.statSync(path.join("/run/netns", name));
        if (named.ino === ns.ino && named.dev === ns.dev) return name;
    }
    return "none of /run/netns";
}

// The namespace of this run: the remote host, where scripts/e2e-vscode starts it.
function remoteNs() {
    const ns = namespaceOf(process.pid);
    if (ns === "none of /run/netns" || ns === opts.userNs) throw new Error(`run.mjs runs in ${ns}, not on a remote host of its own (scripts/e2e-vscode starts it in one)`);
    return ns;
}

function homeEnv() {
    const h = dirs.home;
    return { ...process.env, HOME: h, XDG_CONFIG_HOME: `${h}/.config`, XDG_DATA_HOME: `${h}/.local/share`, XDG_CACHE_HOME: `${h}/.cache` };
}

function firstMatch(stream, re, copy) {
    return new Promise((resolve, reject) => {
        let text = "";
        stream.on("data", (chunk) => {
            if (copy) copy.write(chunk);
            text += chunk;
            const m = text.match(re);
            if (m) resolve(m[1]);
        });
        stream.on("end", () => reject(new Error(`the stream ended before ${re}: ${text.slice(-500)}`)));
    });
}

// mcp.json names the commands under test through links in the workspace's
// bin/ (VS Code takes PATH from a login shell, so a PATH of ours would not
// reach it); the scripted server is in the workspace folder, where VS Code
// starts the servers.
// The servers of mcp.json, in order.
let serverKeys = [];
// The sign-in limit of remote-browser: room for the user's browser to fail and
// for the check that the listener answers on the remote host.
const BROWSER_SIGN_IN_S = 20;

function writeWorkspace(remoteUrl, faceUrl) {
    const ws = dirs.workspace;
    fs.mkdirSync(path.join(ws, ".vscode"), { recursive: true });
    fs.mkdirSync(path.join(ws, "bin"));
    fs.symlinkSync(opts.bridge, path.join(ws, "bin/mcp-bridge-vscode"));
    fs.symlinkSync(opts.python, path.join(ws, "bin/python3"));
    fs.symlinkSync(path.join(here, "modern_upstream.py"), path.join(ws, "modern_upstream.py"));
    const env = (key) => ({ [MARK]: `${runId}:${key}`, XDG_CONFIG_HOME: dirs.config });
    const bridge = "${workspaceFolder}/bin/mcp-bridge-vscode";
    const python = "${workspaceFolder}/bin/python3";
    const servers = remoteHost ? {
        // The loopback redirect, forced: nothing on the user's machine reaches it.
        "remote-browser": { type: "stdio", command: bridge, args: ["--sign-in", "browser", "--sign-in-timeout", String(BROWSER_SIGN_IN_S), remoteUrl], env: env("remote-browser") },
        // As users write it: --sign-in auto, and no --no-browser (on a remote host
        // the bridge must not try to open a browser by itself).
        "remote-device": { type: "stdio", command: bridge, args: [remoteUrl], env: env("remote-device") },
    } : {
        "modern-direct": { type: "stdio", command: python, args: ["modern_upstream.py"], env: env("modern-direct") },
        "schema-control": { type: "stdio", command: python, args: ["modern_upstream.py", "--legacy"], env: env("schema-control") },
        "modern-bridged": { type: "stdio", command: bridge, args: ["--", python, "modern_upstream.py"], env: env("modern-bridged") },
        "demo-bridged": { type: "stdio", command: bridge, args: ["--", bridge, "demo-server"], env: env("demo-bridged") },
        // --no-browser: the bridge logs its start URL, which the run opens as a person would.
        "remote-bridged": { type: "stdio", command: bridge, args: ["--no-browser", remoteUrl], env: env("remote-bridged") },
        // By URL, as a user adds a remote server: the face the run started.
        "demo-http": { type: "http", url: faceUrl },
        "demo-sse": { type: "sse", url: faceUrl && faceUrl.replace(/\/mcp$/, "/sse") },
    };
    serverKeys = Object.keys(servers);
    // One server a line: every CodeLens fits on the screen.
    const lines = Object.entries(servers).map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
    fs.writeFileSync(path.join(ws, ".vscode/mcp.json"), `{\n  "servers": {\n${lines.join(",\n")}\n  }\n}\n`);
}

function writeSettings() {
    const settings = {
        "security.workspace.trust.enabled": false,
        // The run starts each server itself, from the workbench.
        "chat.mcp.autostart": "never",
        "chat.mcp.discovery.enabled": false,
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "workbench.welcomePage.walkthroughs.openOnInstall": false,
        "editor.minimap.enabled": false,
        "window.commandCenter": false,
    };
    fs.mkdirSync(path.join(dirs.userData, "User"), { recursive: true });
    fs.writeFileSync(path.join(dirs.userData, "User/settings.json"), JSON.stringify(settings, null, 2));
    fs.writeFileSync(path.join(runDir, "code-server.yaml"), "");
}

function installExtension() {
    const vsix = path.join(runDir, "mcp-bridge-e2e.vsix");
    const made = spawnSync(opts.python, [path.join(here, "vsix.py"), path.join(here, "extension"), vsix], { encoding: "utf8", timeout: 30000 });
    if (made.status !== 0) throw new Error(`vsix.py failed: ${made.stderr}`);
    const inst = spawnSync(node24, [codeServer, "--config", path.join(runDir, "code-server.yaml"),
        "--user-data-dir", dirs.userData, "--extensions-dir", dirs.extensions, "--install-extension", vsix],
        { encoding: "utf8", timeout: 60000, env: { ...homeEnv(), EXTENSIONS_GALLERY: "{}" } });
    if (inst.status !== 0 || !/successfully installed/.test(inst.stdout)) {
        throw new Error(`installing the test extension failed: ${inst.stdout}\n${inst.stderr}`);
    }
}

// --- the workbench ------------------------------------------------------------------------

const quickRow = (prefix) => page.locator(`.quick-input-widget .monaco-list-row[aria-label^=${JSON.stringify(prefix)}]`).first();

async function closeQuickInput() {
    if (await page.locator(".quick-input-widget").isVisible()) await page.keyboard.press("Escape");
    await until("the quick input to close", 5000, async () => !(await page.locator(".quick-input-widget").isVisible()));
}

// Runs a command of the palette by its exact title. The palette closes
// when the focus moves (seen once in CI: just after the Output view had it,
// the palette went inert, then hidden, before the keys). Then it opens once
// more, and the log says so; a dialog that took the focus fails the check
// with its text instead.
async function palette(title) {
    const input = page.locator(".quick-input-widget .quick-input-box input");
    for (let attempt = 1; ; attempt++) {
        await closeQuickInput();
        await page.keyboard.press("F1");
        await input.waitFor({ state: "visible" });
        try {
            await input.fill(`>${title}`, { timeout: 5000 });
            break;
        } catch (e) {
            const dialogs = await visibleDialogs().catch(() => []);
            if (dialogs.length > 0) throw new Error(`a dialog took the focus from the palette: ${dialogs.join(" | ")}`);
            if (attempt === 2) throw e;
            log(`the palette closed before "${title}" could be typed in it; opening it again`);
        }
    }
    const row = page.locator(`.quick-input-widget .monaco-list-row[aria-label=${JSON.stringify(title)}], .quick-input-widget .monaco-list-row[aria-label^=${JSON.stringify(title + ",")}]`).first();
    await row.waitFor({ state: "visible" });
    await row.click();
}

// An action of "MCP: List Servers" on one server (Start Server, Stop Server,
// Restart Server, Show Output).
async function serverAction(key, action) {
    await palette("MCP: List Servers");
    await quickRow(`${key},`).click();
    await quickRow(action).click();
}

async function openMcpJson() {
    const tab = page.locator(".tabs-container .tab", { hasText: "mcp.json" });
    if (await tab.count()) {
        await tab.first().click();
    } else {
        await closeQuickInput();
        await page.keyboard.press("Control+P");
        const input = page.locator(".quick-input-widget .quick-input-box input");
        await input.waitFor({ state: "visible" });
        await input.fill(".vscode/mcp.json");
        await page.locator(".quick-input-widget .monaco-list-row", { hasText: "mcp.json" }).first().waitFor();
        await page.keyboard.press("Enter");
    }
    await until("mcp.json in the editor with its CodeLens", 20000, async () => (await lensStates())[serverKeys[0]]);
}

// What the CodeLens above each server of mcp.json says: "Running | Stop |
// Restart | 16 tools | 1 prompts | More...", parsed, by server key. A lens
// stands above the line of its server.
async function lensStates() {
    const raw = await page.evaluate(() => {
        const editors = [...document.querySelectorAll(".editor-group-container .monaco-editor")].filter((e) => e.querySelector(".codelens-decoration"));
        if (editors.length === 0) return null;
        const ed = editors[0];
        const lines = [...ed.querySelectorAll(".view-lines .view-line")].map((e) => ({ top: parseFloat(e.style.top), text: e.textContent }));
        lines.sort((a, b) => a.top - b.top);
        return [...ed.querySelectorAll(".codelens-decoration")].map((e) => {
            const top = parseFloat(e.style.top);
            const line = lines.find((l) => l.top > top);
            return { text: e.textContent.trim(), line: line ? line.text : "" };
        });
    });
    const out = {};
    for (const lens of raw || []) {
        const key = (lens.line.match(/^\s*"([^"]+)"\s*:/) || [])[1];
        if (!key) continue;
        const parts = lens.text.split("|").map((s) => s.trim());
        const num = (re) => {
            const m = lens.text.match(re);
            return m ? Number(m[1]) : null;
        };
        out[key] = { text: lens.text, state: parts[0], tools: num(/(\d+) tools?\b/), prompts: num(/(\d+) prompts?\b/) };
    }
    return out;
}

async function lensOf(key) {
    await openMcpJson();
    return (await lensStates())[key];
}

// Waits until the lens of a server satisfies accept; the error tells what it
// said last.
async function settledLens(key, ms, accept) {
    let last = "no CodeLens";
    try {
        return await until(`the CodeLens of ${key}`, ms, async () => {
            const lens = await lensOf(key);
            if (lens) last = lens.text;
            return lens && accept(lens) && lens;
        });
    } catch (e) {
        if (e instanceof Timeout) throw new Timeout(`the CodeLens of ${key} says "${last}" after ${ms} ms`);
        throw e;
    }
}

// The text of a server's Output channel, through the workbench: the channel is
// shown, its editor focused, then select all and copy (VS Code's own commands).
async function shownChannel() {
    return page.evaluate(() => {
        const select = document.querySelector(".part.panel select.monaco-select-box");
        return select && select.selectedIndex >= 0 ? select.options[select.selectedIndex].text : null;
    });
}

async function readOutput(key) {
    const visible = await page.locator(".output-view .monaco-editor .view-lines").isVisible().catch(() => false);
    if (!visible || (await shownChannel()) !== `MCP: ${key}`) {
        await serverAction(key, "Show Output");
        await until(`the Output channel of ${key} on the screen`, 10000, async () =>
            (await page.locator(".output-view .monaco-editor .view-lines").isVisible()) && (await shownChannel()) === `MCP: ${key}`);
    }
    await closeQuickInput();
    // The keys go where the focus is: a quick input or a dialog that closes
    // gives it back to the editor that had it, sometimes after the click
    // (seen: Ctrl+A and Ctrl+C copied mcp.json). So the copy counts only
    // when the Output view held the focus before and after the keys.
    const focus = () => page.evaluate(() => {
        const el = document.activeElement;
        if (el && el.closest(".output-view")) return null;
        return el ? `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} in .${[...(el.parentElement || el).classList].join(".")}` : "nothing";
    });
    const inOutput = async () => {
        const elsewhere = await focus();
        if (elsewhere) throw new Error(`the focus is on ${elsewhere}, not the Output view`);
        return true;
    };
    return until(`the Output channel of ${key} on the clipboard`, 10000, async () => {
        await page.evaluate(() => navigator.clipboard.writeText(""));
        // The editor's frame, not its lines: the lines of a long channel
        // reach below the window, where a click hits nothing.
        const box = await page.locator(".output-view .monaco-editor").first().boundingBox();
        if (!box) throw new Error("the Output view is not on the screen");
        const bottom = Math.min(box.y + box.height, page.viewportSize().height);
        const at = { x: box.x + box.width / 2, y: Math.max(box.y + 5, bottom - 20) };
        await page.mouse.click(at.x, at.y);
        const hit = await page.evaluate(({ x, y }) => {
            const e = document.elementFromPoint(x, y);
            return e ? `${e.tagName.toLowerCase()}.${[...e.classList].join(".")}` : "nothing";
        }, at);
        try {
            await inOutput();
        } catch (e) {
            throw new Error(`${e.message}; the click at (${Math.round(at.x)}, ${Math.round(at.y)}) hit ${hit}`);
        }
        await page.keyboard.press("Control+A");
        await page.keyboard.press("Control+C");
        const text = await until("the copy on the clipboard", 5000, () => page.evaluate(() => navigator.clipboard.readText()), 100);
        return (await inOutput()) && text;
    }, 250);
}

// The messages that VS Code logged in an Output channel at level debug, in order:
// { dir: "out" (editor -> server) | "in", msg, index, time }.
function messages(output) {
    const out = [];
    output.split("\n").forEach((line, index) => {
        const m = line.match(/^(\S+ \S+) \[debug\] \[(editor -> server|server -> editor)\] (.*)$/);
        if (!m) return;
        try {
            // time: ms, from the time stamp of the line (to compare two lines).
            out.push({ dir: m[2] === "editor -> server" ? "out" : "in", msg: JSON.parse(m[3]), index, time: Date.parse(m[1].replace(" ", "T")) });
        } catch {}
    });
    return out;
}

async function visibleDialogs() {
    return page.$$eval(".monaco-dialog-box", (els) => els.map((e) => e.innerText.replace(/\s+/g, " ").trim()));
}

async function visibleToasts() {
    return page.$$eval(".notifications-toasts .notification-toast", (els) => els.map((e) => e.innerText.replace(/\s+/g, " ").trim()));
}

// A toast slides in: a screenshot waits until it stands still.
async function settledToast(toast) {
    await until("the notification to stand still", 5000, () =>
        toast.evaluate((el) => el.getAnimations({ subtree: true }).length === 0 && getComputedStyle(el).opacity === "1"));
}

async function clearNotifications() {
    await palette("Notifications: Clear All Notifications");
    await until("no notification on the screen", 5000, async () => (await visibleToasts()).length === 0);
}

// The README's screenshots show the workbench without the Output panel.
async function hidePanel() {
    const hide = page.locator('.part.panel .action-label[aria-label^="Hide Panel"], .part.panel .action-label[aria-label^="Close Panel"]');
    if (await page.locator(".part.panel").isVisible()) await hide.first().click();
    await until("the panel to close", 5000, async () => !(await page.locator(".part.panel").isVisible()));
}

// Closes a tab of a sign-in and makes the workbench the active tab again: else
// the keys of the next read of an Output channel can go to the editor that had
// the focus before (seen once: Ctrl+A and Ctrl+C copied mcp.json).
async function closeTab(tab) {
    await tab.close();
    await page.bringToFront();
}

async function shot(name) {
    const file = path.join(dirs.shots, `${String(++shotCount).padStart(2, "0")}-${name}.png`);
    await page.screenshot({ path: file });
    return file;
}

// --- the test extension ---------------------------------------------------------------------

async function ext(route, body, ms) {
    const port = fs.readFileSync(control, "utf8").trim();
    const res = await fetch(`http://127.0.0.1:${port}${route}`, {
        method: "POST",
        body: JSON.stringify(body || {}),
        signal: AbortSignal.timeout(ms),
    });
    return res.json();
}

async function mcpTools() {
    const answer = await ext("/tools", {}, 10000);
    if (!answer.ok) throw new Error(`the test extension: ${answer.error}`);
    return answer.tools.map((t) => t.name);
}

// VS Code names a tool mcp_<a name made from serverInfo.name>_<tool>: the one
// tool whose name ends with _<tool> and starts with the server's prefix.
async function toolName(prefix, tool) {
    const names = (await mcpTools()).filter((n) => n === `${prefix}${tool}`);
    if (names.length !== 1) throw new Error(`VS Code has no tool ${prefix}${tool} (its MCP tools: ${(await mcpTools()).join(", ")})`);
    return names[0];
}

async function prefixOf(tool, excluding = []) {
    const names = (await mcpTools()).filter((n) => n.endsWith(`_${tool}`) && !excluding.some((x) => n.startsWith(x)));
    if (names.length !== 1) throw new Error(`expected one MCP tool named *_${tool}, VS Code has: ${names.join(", ") || "none"}`);
    return names[0].slice(0, -tool.length);
}

let callIds = 0;
// Starts a tool call through VS Code; answers VS Code's "Run <tool>?" dialog
// when the tool is not read-only (confirm: the text of the dialog's title).
function invoke(name, input, { confirm = null, ms = 30000 } = {}) {
    const id = `call-${++callIds}`;
    const done = ext("/invoke", { id, name, input }, ms);
    const confirmed = confirm
        ? until(`VS Code's dialog "${confirm}"`, 15000, async () => (await visibleDialogs()).find((d) => confirm.test(d))).then(async () => {
              await page.locator(".monaco-dialog-box .monaco-button", { hasText: /^Yes$/ }).click();
          })
        : Promise.resolve();
    return { id, done, confirmed };
}

async function call(name, input, options) {
    const c = invoke(name, input, options);
    await c.confirmed;
    return c.done;
}

function textsOf(answer) {
    if (!answer.ok) throw new Error(`the call failed in VS Code: ${answer.error}`);
    return answer.parts.map((p) => `${p.type}:${p.value}`);
}

function expectEqual(what, got, want) {
    const [g, w] = [JSON.stringify(got), JSON.stringify(want)];
    if (g !== w) throw new Error(`${what}: got ${g}, want ${w}`);
}

// --- checks -------------------------------------------------------------------------------

async function check(server, name, rule, ms, fn) {
    const r = { server, name, rule, status: "passed" };
    if (interrupted) return;
    if (failedServers.has(server)) {
        r.status = "skipped";
        r.error = `an earlier check of ${server} failed`;
        results.push(r);
        log(`SKIP ${server}: ${name}`);
        return;
    }
    const start = Date.now();
    current = { ...r, start };
    try {
        await bounded(`${server}: ${name}`, ms, fn());
        r.ms = Date.now() - start;
        log(`ok   ${server}: ${name} (${r.ms} ms)`);
    } catch (e) {
        if (interrupted) return;
        r.ms = Date.now() - start;
        r.status = "failed";
        r.error = e.message || String(e);
        failedServers.add(server);
        log(`FAIL ${server}: ${name}: ${r.error}`);
        try {
            await bounded("capturing the failure", 30000, captureFailure(r, server));
        } catch (c) {
            r.error += `\n(capturing what VS Code showed failed: ${c.message})`;
        }
        // A dialog or quick input left open would break the next server's checks.
        try {
            for (let i = 0; i < 3; i++) await page.keyboard.press("Escape");
            const cancel = page.locator(".monaco-dialog-box .monaco-button", { hasText: /^Cancel$/ });
            if (await cancel.count()) await cancel.first().click();
        } catch {}
    }
    current = null;
    results.push(r);
}

async function captureFailure(r, server) {
    if (!page) return;
    r.shot = await shot(`FAILED-${(server || "setup").replace(/[^a-z0-9-]/gi, "")}`);
    r.shown = {
        dialogs: await visibleDialogs().catch(() => []),
        notifications: await visibleToasts().catch(() => []),
        quickInput: await page.locator(".quick-input-widget").isVisible().then((v) => (v ? page.locator(".quick-input-widget").innerText() : null)).catch(() => null),
    };
    for (let i = 0; i < 3; i++) await page.keyboard.press("Escape");
    r.shown.lenses = await lensStates().catch(() => ({}));
    // Only a server of mcp.json has an Output channel ("all", "http-face" have none).
    if (server && serverKeys.includes(server)) {
        const text = await readOutput(server);
        r.output = path.join(dirs.outputs, `${server}.FAILED.log`);
        fs.writeFileSync(r.output, text);
    }
}

async function saveOutputs() {
    if (!page) return;
    for (const key of serverKeys) {
        try {
            const text = await bounded(`the Output channel of ${key}`, 20000, readOutput(key));
            fs.writeFileSync(path.join(dirs.outputs, `${key}.log`), text);
        } catch (e) {
            log(`the Output channel of ${key} could not be read: ${e.message}`);
        }
    }
}

function writeReport() {
    const passed = results.filter((r) => r.status === "passed").length;
    const failed = results.filter((r) => r.status === "failed");
    const skipped = results.filter((r) => r.status === "skipped").length;
    const lines = [`# VS Code end-to-end run`, ``, `${passed} passed, ${failed.length} failed, ${skipped} skipped.`, ``,
        `| server | check | rule | result |`, `| --- | --- | --- | --- |`];
    for (const r of results) {
        lines.push(`| ${r.server} | ${r.name} | ${r.rule} | ${r.status}${r.ms !== undefined ? ` (${r.ms} ms)` : ""} |`);
    }
    for (const r of failed) {
        lines.push("", `## FAILED: ${r.server}: ${r.name}`, "", `Rule: ${r.rule}`, "", "```", r.error, "```");
        if (r.shown) {
            lines.push("", "What VS Code showed:", "");
            for (const [k, v] of Object.entries(r.shown.lenses || {})) lines.push(`- CodeLens of ${k}: ${v.text}`);
            for (const d of r.shown.dialogs || []) lines.push(`- dialog: ${d}`);
            for (const n of r.shown.notifications || []) lines.push(`- notification: ${n}`);
            if (r.shown.quickInput) lines.push(`- quick input: ${r.shown.quickInput.replace(/\s+/g, " ")}`);
        }
        if (r.shot) lines.push(`- screenshot: ${r.shot}`);
        if (r.output) {
            lines.push(`- Output channel: ${r.output} (its last lines below)`, "", "```");
            lines.push(...fs.readFileSync(r.output, "utf8").split("\n").slice(-40).map((l) => l.slice(0, 400)));
            lines.push("```");
        }
    }
    lines.push("", `Screenshots: ${dirs.shots}`, `Output channels: ${dirs.outputs}`, "");
    const report = lines.join("\n");
    fs.writeFileSync(path.join(runDir, "report.md"), report);
    if (failed.length) process.stdout.write(`\n${report}\n`);
    log(`${passed} passed, ${failed.length} failed, ${skipped} skipped; report: ${path.join(runDir, "report.md")}`);
}

function copyReadmeShot(file, name) {
    if (!opts.readmeShots || !file) return;
    fs.mkdirSync(opts.readmeShots, { recursive: true });
    fs.copyFileSync(file, path.join(opts.readmeShots, name));
}

// --- the checks, server by server -------------------------------------------------------------

// VS Code writes an Output channel through a buffer, so a line shows up a
// little after its event: each check waits (bounded) until the channel has
// what it needs, then judges. found(text, msgs) returns the value to judge.
async function outputUntil(key, what, ms, found) {
    return until(`${what} in the Output channel of ${key}`, ms, async () => {
        const text = await readOutput(key);
        return found(text, messages(text));
    }, 400);
}

// The last tools/call of VS Code for a tool with these arguments, and its answer.
function callIn(msgs, name, args) {
    const sent = msgs.filter((m) => m.dir === "out" && m.msg.method === "tools/call" && m.msg.params.name === name
        && JSON.stringify(m.msg.params.arguments) === JSON.stringify(args)).at(-1);
    if (!sent) return null;
    const answer = msgs.find((m) => m.dir === "in" && m.index > sent.index && m.msg.id === sent.msg.id && ("result" in m.msg || "error" in m.msg));
    return { sent, answer, token: sent.msg.params._meta && sent.msg.params._meta.progressToken };
}

// Starts a server and waits for the end of its start: the lens says Running as
// soon as the process runs, and gives the tool count once the initialize and
// the lists are done, or it says Error.
async function startAndSettle(key, ms = 30000) {
    await serverAction(key, "Start Server");
    return settledLens(key, ms, (l) => l.state === "Error" || (l.state === "Running" && l.tools !== null));
}

async function runChecks() {
    const control = await directChecks();
    await bridgedModernChecks(control);
    // Before the demo's resource and prompt pickers: they start every server
    // that is not running yet, the remote one too.
    await remoteChecks();
    // Before demo-bridged too: VS Code gives the three servers of the demo
    // (one serverInfo) prefixes of the same stem, told apart by the order in
    // which their tools come.
    await urlChecks();
    await demoChecks();
    await stopAllChecks();
    await faceStopCheck();
}

async function directChecks() {
    await check("modern-direct", "started directly, VS Code shows the error of initialize", "VS Code (2025-11-25) cannot use a server of 2026-07-28 alone: initialize is gone", 45000, async () => {
        const lens = await startAndSettle("modern-direct");
        if (lens.state !== "Error") throw new Error(`the CodeLens says "${lens.text}", not Error`);
        await outputUntil("modern-direct", "the error of initialize", 15000, (text) => text.includes("Error: MPC -32601: Method not found: initialize"));
    });

    let controlPrefix = null;
    await check("schema-control", "the unrepaired schemas are refused by VS Code (control)", "control for R6: VS Code checks each inputSchema against JSON Schema draft-07 in this run", 45000, async () => {
        const lens = await startAndSettle("schema-control");
        if (lens.state !== "Running") throw new Error(`the CodeLens says "${lens.text}"`);
        // Without this line the bridged check below could pass with no check of
        // the schemas at all.
        await outputUntil("schema-control", "VS Code's schema error", 15000, (text) => text.includes("3 tools have invalid JSON schemas and will be omitted"));
        await settledLens("schema-control", 10000, (l) => l.tools === 13);
        controlPrefix = await prefixOf("plain_01");
        await serverAction("schema-control", "Stop Server");
        await settledLens("schema-control", 15000, (l) => l.state === "Start");
    });
    return controlPrefix;
}

async function bridgedModernChecks(controlPrefix) {
    const key = "modern-bridged";
    let prefix;
    await check(key, "through the bridge: Running with 16 tools and 1 prompt", "Lifecycle: initialize becomes server/discover; the initialize result carries the server's capabilities", 45000, async () => {
        const lens = await startAndSettle(key);
        if (lens.state !== "Running") throw new Error(`the CodeLens says "${lens.text}"`);
        await settledLens(key, 10000, (l) => l.tools === 16 && l.prompts === 1);
        // The tools of the stopped control stay in VS Code's list too.
        prefix = await prefixOf("plain_01", controlPrefix ? [controlPrefix] : []);
        const mine = (await mcpTools()).filter((n) => n.startsWith(prefix));
        expectEqual("the tools VS Code gives extensions", mine.length, 16);
    });
    await check(key, "the repaired schemas are accepted: no schema error in the Output channel", "R6, the items rule for array schemas (each repair logged with its tool and JSON pointer)", 30000, async () => {
        const repairs = [["tag_null_items", "/properties/tags"], ["tag_zero_items", "/properties/tags"], ["tag_empty_items", "/properties/tags"], ["tag_no_items", "/properties/tags"], ["pair_false_items", "/properties/pair"]];
        const lineOf = (tool, pointer) => new RegExp(`\\[server stderr\\] .*tool '${tool}', inputSchema '${pointer}': an array schema`);
        // The control showed VS Code's error a moment after "Discovered 16 tools";
        // here the same moment passes, with a call's line after it.
        const text = await outputUntil(key, "the bridge's repair lines", 15000, (t) => t.includes("Discovered 16 tools") && repairs.every(([tool, p]) => lineOf(tool, p).test(t)) && t);
        void text;
        const answer = await call(await toolName(prefix, "plain_02"), { text: "after the list" }, { confirm: /Run .?plain_02/ });
        expectEqual("the result", textsOf(answer), ["text:plain_02: after the list"]);
        const after = await outputUntil(key, "the call's result", 15000, (t, msgs) => {
            const c = callIn(msgs, "plain_02", { text: "after the list" });
            return c && c.answer && t;
        });
        const refused = after.split("\n").find((l) => /invalid JSON schemas/.test(l));
        if (refused) throw new Error(`VS Code refused a schema: ${refused}`);
    });
    await check(key, "a call reaches the 2026-07-28 server with its _meta", "Requests: forwarded with the 2026-07-28 _meta (the server refuses a request without it)", 30000, async () => {
        const answer = await call(await toolName(prefix, "plain_01"), { text: "hello" }, { confirm: /Run .?plain_01/ });
        expectEqual("the result", textsOf(answer), ["text:plain_01: hello"]);
    });
}

// The prefix of demo-bridged's tools (demo-http has the same serverInfo).
let demoPrefix = null;

async function demoChecks() {
    const key = "demo-bridged";
    let prefix;
    await check(key, "through the bridge: Running with 6 tools and 1 prompt; the tools picker lists them", "Lifecycle, and the demo server's tools as VS Code lists them", 45000, async () => {
        const lens = await startAndSettle(key);
        if (lens.state !== "Running") throw new Error(`the CodeLens says "${lens.text}"`);
        await settledLens(key, 10000, (l) => l.tools === 6 && l.prompts === 1);
        prefix = demoPrefix = await prefixOf("ask_name", urlPrefixes);
        const mine = (await mcpTools()).filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length)).sort();
        expectEqual("the demo's tools in VS Code", mine, ["add", "add_tool", "ask_name", "list_primes", "slow_count", "tag_items"]);
        // The chat's tools picker, with the demo server's tools shown (a README screenshot).
        await closeQuickInput();
        await clearNotifications();
        await hidePanel();
        await page.locator('.interactive-input-part a.action-label[aria-label^="Configure Tools"]').first().click();
        const server = page.locator('.quick-input-widget .monaco-list-row[aria-label$=", demo-bridged"]');
        await server.waitFor({ state: "visible" });
        const builtIn = page.locator('.quick-input-widget .monaco-list-row[aria-label="Built-In"][aria-expanded="true"] .monaco-tl-twistie');
        if (await builtIn.count()) await builtIn.click();
        if ((await server.getAttribute("aria-expanded")) !== "true") await server.locator(".monaco-tl-twistie").click();
        await until("the demo's tools in the picker", 10000, async () => {
            const labels = await page.$$eval(".quick-input-widget .monaco-list-row", (els) => els.map((e) => e.getAttribute("aria-label") || ""));
            return ["add,", "add_tool,", "ask_name,", "list_primes,", "slow_count,", "tag_items,"].every((t) => labels.some((l) => l.startsWith(t)));
        });
        copyReadmeShot(await shot("demo-running-tools"), "vscode-bridged-server-tools.png");
        await closeQuickInput();
    });

    await check(key, "tool calls give their exact results", "Result rules: the text mirror of structuredContent, structuredContent kept, modern members removed", 40000, async () => {
        const calls = [
            ["add", { a: 2, b: 3 }, ['text:{"sum":5}']],
            ["list_primes", { limit: 20 }, ["text:[2,3,5,7,11,13,17,19]"]],
            ["tag_items", { tags: ["a", "b"] }, ['text:tagged with ["a","b"]']],
        ];
        for (const [tool, input, want] of calls) expectEqual(tool, textsOf(await call(await toolName(prefix, tool), input)), want);
        // What VS Code received: the bridge removed resultType and the caching
        // hints of 2026-07-28, and kept structuredContent as the server sent it.
        const answers = await outputUntil(key, "the three results", 15000, (t, msgs) => {
            const found = calls.map(([tool, input]) => callIn(msgs, tool, input));
            return found.every((c) => c && c.answer) && found.map((c) => c.answer.msg);
        });
        for (const a of answers) {
            const modern = ["resultType", "ttlMs", "cacheScope"].filter((k) => a.result && k in a.result);
            if (modern.length) throw new Error(`VS Code got ${modern.join(", ")} of 2026-07-28: ${JSON.stringify(a).slice(0, 300)}`);
        }
        expectEqual("the structuredContent of list_primes", answers[1].result.structuredContent, [2, 3, 5, 7, 11, 13, 17, 19]);
    });

    await check(key, "slow_count: its progress reaches VS Code with VS Code's token, before the result", "Progress (M1): the client's token, the upstream's progress, total and message, only before the response", 40000, async () => {
        const input = { steps: 3, delay_ms: 150 };
        expectEqual("the result", textsOf(await call(await toolName(prefix, "slow_count"), input)), ["text:counted to 3"]);
        const { c, progress } = await outputUntil(key, "the call and its result", 15000, (t, msgs) => {
            const c = callIn(msgs, "slow_count", input);
            if (!c || !c.answer) return false;
            const progress = msgs.filter((m) => m.dir === "in" && m.msg.method === "notifications/progress" && m.msg.params.progressToken === c.token);
            return { c, progress };
        });
        if (c.token === undefined) throw new Error("VS Code sent no progress token");
        expectEqual("the progress", progress.map((p) => [p.msg.params.progress, p.msg.params.total, p.msg.params.message]), [[1, 3, "step 1 of 3"], [2, 3, "step 2 of 3"], [3, 3, "step 3 of 3"]]);
        if (progress.some((p) => p.index > c.answer.index)) throw new Error("a progress came after the result");
    });

    await check(key, "a cancellation from VS Code: the call ends, no response and no progress after it", "Cancellation (M1): a canceled request gets no response; progress never after a cancellation", 60000, async () => {
        const input = { steps: 200, delay_ms: 250 };
        const pending = invoke(await toolName(prefix, "slow_count"), input);
        const started = await outputUntil(key, "two steps of progress", 20000, (t, msgs) => {
            const c = callIn(msgs, "slow_count", input);
            return c && msgs.filter((m) => m.dir === "in" && m.msg.method === "notifications/progress" && m.msg.params.progressToken === c.token).length >= 2 && c;
        });
        const cancelled = await ext("/cancel", { id: pending.id }, 10000);
        if (!cancelled.found) throw new Error("the call had ended before the cancel");
        const answer = await bounded("the end of the cancelled call", 15000, pending.done);
        if (answer.ok || !answer.cancelled) throw new Error(`the call did not end as cancelled: ${JSON.stringify(answer)}`);
        // The window in which a wrong bridge would still pass on the server's
        // progress (one each 250 ms) or its answer; then a call whose result,
        // once in the Output channel, shows that everything before it is there.
        await sleep(3000);
        expectEqual("the call after the window", textsOf(await call(await toolName(prefix, "add"), { a: 20, b: 22 })), ['text:{"sum":42}']);
        const msgs = await outputUntil(key, "the cancel and the later call", 15000, (t, msgs) => {
            const later = callIn(msgs, "add", { a: 20, b: 22 });
            return later && later.answer && msgs;
        });
        const cancel = msgs.find((m) => m.dir === "out" && m.msg.method === "notifications/cancelled" && m.msg.params.requestId === started.sent.msg.id);
        if (!cancel) throw new Error("VS Code sent no notifications/cancelled for the call");
        const after = msgs.filter((m) => m.dir === "in" && m.index > cancel.index);
        const response = after.find((m) => m.msg.id === started.sent.msg.id);
        if (response) throw new Error(`after the cancel VS Code got a response: ${JSON.stringify(response.msg).slice(0, 300)}`);
        // A progress that the bridge wrote before the cancel reached it crosses
        // the cancel on the way (the browser, the extension host and two pipes
        // lie between them, on a busy machine): such a one comes within
        // CROSSING_MS. A bridge that went on would pass on eight more after that.
        const CROSSING_MS = 1000;
        const progress = after.filter((m) => m.msg.method === "notifications/progress" && m.msg.params.progressToken === started.token);
        const late = progress.filter((m) => m.time - cancel.time > CROSSING_MS);
        if (late.length) {
            throw new Error(`after the cancel VS Code got ${late.length} progress notifications more than ${CROSSING_MS} ms after it: ${JSON.stringify(late[0].msg).slice(0, 300)}`);
        }
        if (progress.length) log(`  ${progress.length} progress crossed the cancel (the last ${progress.at(-1).time - cancel.time} ms after it)`);
    });

    await check(key, "ask_name: the form input request is answered in VS Code's input box", "Input requests (M2): a form becomes elicitation/create; the answer goes back to the server", 60000, async () => {
        await clearNotifications();
        await hidePanel();
        const pending = invoke(await toolName(prefix, "ask_name"), {}, { confirm: /Run Ask name/ });
        await pending.confirmed;
        const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "What is your name?" });
        await toast.waitFor({ state: "visible", timeout: 20000 });
        const source = await toast.innerText();
        if (!source.includes("MCP Server (demo-bridged)")) throw new Error(`the notification does not name the server: ${source}`);
        await settledToast(toast);
        copyReadmeShot(await shot("ask-name-notification"), "vscode-form-input-request.png");
        await toast.locator(".monaco-button", { hasText: "Respond" }).click();
        const title = page.locator(".quick-input-widget .quick-input-title");
        await until('the input box "Name"', 10000, async () => /^Name\b/.test(await title.innerText()));
        await page.locator(".quick-input-widget .quick-input-box input").fill("Ada");
        await page.locator('.quick-input-widget .monaco-list-row[aria-label="➤ Ada"]').waitFor({ state: "visible" });
        await shot("ask-name-input-box");
        await page.keyboard.press("Enter");
        expectEqual("the result", textsOf(await bounded("the call's result", 20000, pending.done)), ["text:Hello, Ada!"]);
        const { ask, reply } = await outputUntil(key, "the form and VS Code's answer", 15000, (t, msgs) => {
            const ask = msgs.filter((m) => m.dir === "in" && m.msg.method === "elicitation/create" && m.msg.params.mode === "form").at(-1);
            const reply = ask && msgs.find((m) => m.dir === "out" && m.msg.id === ask.msg.id && m.index > ask.index);
            return reply && { ask, reply };
        });
        expectEqual("the form's message", ask.msg.params.message, "What is your name?");
        expectEqual("VS Code's answer", reply.msg.result, { action: "accept", content: { name: "Ada" } });
    });

    await check(key, "add_tool: the list change raises the count from 6 to 7", "Live updates: the listen stream's change becomes notifications/tools/list_changed, before the call's result", 60000, async () => {
        expectEqual("the result", textsOf(await call(await toolName(prefix, "add_tool"), {}, { confirm: /Run Add a tool/ })), ["text:added the tool extra"]);
        await settledLens(key, 15000, (l) => l.tools === 7);
        await until("the tool extra in VS Code", 10000, async () => (await mcpTools()).includes(`${prefix}extra`));
        expectEqual("the extra tool", textsOf(await call(`${prefix}extra`, {}, { confirm: /Run Extra/ })), ["text:the extra tool ran"]);
        await outputUntil(key, "the change before the result of add_tool", 15000, (t, msgs) => {
            const c = callIn(msgs, "add_tool", {});
            const changed = msgs.find((m) => m.dir === "in" && m.msg.method === "notifications/tools/list_changed");
            if (!c || !c.answer || !changed) return false;
            if (changed.index > c.answer.index) throw new Fail("notifications/tools/list_changed came after the result of add_tool");
            return true;
        });
    });

    await check(key, "a resource read through VS Code's resource picker", "Requests: resources/list and resources/read pass through, their content unchanged", 40000, async () => {
        await palette("MCP: Browse Resources...");
        await quickRow("readme,").click();
        await page.locator(".tabs-container .tab", { hasText: "readme" }).first().waitFor({ state: "visible" });
        const shown = await until("the resource's text in the editor", 10000, async () => {
            const lines = await page.$$eval(".editor-group-container.active .monaco-editor .view-lines .view-line", (els) =>
                els.map((e) => ({ top: parseFloat(e.style.top), text: e.textContent.replace(/\u00a0/g, " ") })).sort((a, b) => a.top - b.top).map((l) => l.text));
            return lines.length > 1 && lines[0] === "mcp-bridge demo server" && lines;
        });
        const read = await outputUntil(key, "the result of resources/read", 15000, (t, msgs) =>
            msgs.filter((m) => m.dir === "in" && m.msg.result && Array.isArray(m.msg.result.contents)).at(-1));
        // The editor shows the text the server sent, line by line.
        expectEqual("the editor's text", shown.join("\n").trimEnd(), read.msg.result.contents[0].text.trimEnd());
        await openMcpJson();
    });

    await check(key, "a prompt through the chat's / picker, with the completions of its argument", "Requests: completion/complete and prompts/get pass through", 40000, async () => {
        await closeQuickInput();
        // A toast can lie over the chat's input.
        await clearNotifications();
        const input = page.locator(".interactive-input-part .monaco-editor").first();
        await input.click();
        await page.keyboard.press("Control+A");
        await page.keyboard.press("Delete");
        // The suggestions open at the "/"; typed later, the rest filters them.
        await page.keyboard.type("/");
        await page.locator(".suggest-widget.visible").waitFor({ state: "visible" });
        await page.keyboard.type("mcp.demo-bridged.gr", { delay: 30 });
        await page.locator(".suggest-widget .monaco-list-row", { hasText: "mcp.demo-bridged.greet" }).first().click();
        await until("the completions of the argument name", 10000, async () => {
            const labels = await page.$$eval(".quick-input-widget .monaco-list-row", (els) => els.map((e) => (e.getAttribute("aria-label") || "").split(",")[0]));
            return ["Ada", "Alan", "Grace", "Linus"].every((n) => labels.includes(n));
        });
        await quickRow("Grace").click();
        const got = await outputUntil(key, "the result of prompts/get", 15000, (t, msgs) =>
            msgs.filter((m) => m.dir === "in" && m.msg.result && Array.isArray(m.msg.result.messages)).at(-1));
        const want = got.msg.result.messages[0].content.text;
        if (!want.includes("Grace")) throw new Error(`the prompt's text does not name Grace: ${want}`);
        let seen = "";
        await until("the prompt's text in the chat input", 10000, async () => {
            seen = (await input.innerText()).replace(/\s+/g, " ");
            return seen.includes(want);
        }).catch(() => {
            throw new Error(`the chat input has "${seen}", not "${want}"`);
        });
    });

    await check(key, "Restart and Stop from the workbench leave no stray process", "Processes: at the end of its input the bridge ends its upstream; nothing of the server is left", 60000, async () => {
        const before = serverPids(key);
        if (before.length !== 2) throw new Error(`expected the bridge and the demo server as 2 processes, found ${before.length}`);
        await serverAction(key, "Restart Server");
        await settledLens(key, 30000, (l) => l.state === "Running" && l.tools === 6);
        await until("the old processes to end and two new ones", 15000, async () => {
            const now = serverPids(key);
            return before.every((p) => !pidAlive(p)) && now.length === 2 && now.every((p) => !before.includes(p));
        });
        await serverAction(key, "Stop Server");
        await settledLens(key, 15000, (l) => l.state === "Start");
        await until("no process of the server", 15000, () => serverPids(key).filter(pidAlive).length === 0);
    });
}

// The local run's servers by URL: VS Code connects to the HTTP face the run
// started (startFace), with the demo server behind it: demo-http at /mcp
// ("type": "http", Streamable HTTP), demo-sse at /sse ("type": "sse", the
// HTTP+SSE transport of 2024-11-05).
const URL_SERVERS = {
    "demo-http": {
        type: "http",
        transport: "Streamable HTTP",
        began: /\ba session began\b/g,
        ended: /\ba session ended at the client's request\b/g,
        end: "DELETE",
    },
    "demo-sse": {
        type: "sse",
        transport: "HTTP+SSE",
        began: /\ba session of HTTP\+SSE began\b/g,
        ended: /\ba session of HTTP\+SSE ended with its stream\b/g,
        end: "the close of its stream",
    },
};
const urlPrefixes = [];

function faceChildren() {
    return serverPids("face").filter((p) => p !== face.child.pid && pidAlive(p));
}

const countOf = (re) => (face.stderr.match(re) || []).length;

// The face's sessions still open, by its log: every session shares the one
// demo server behind it, which outlives them (docs/decisions.md, "One
// upstream for every session").
const openSessions = () => Object.values(URL_SERVERS).reduce((n, s) => n + countOf(s.began) - countOf(s.ended), 0);

async function urlChecks() {
    for (const [key, s] of Object.entries(URL_SERVERS)) {
        let prefix;
        await check(key, `by URL ("type": "${s.type}"): Running with 6 tools and 1 prompt; VS Code gives them to extensions`, `The HTTP face: ${s.transport} at ${s.type === "sse" ? "/sse" : "/mcp"} for a client that connects by URL; a session of its own, with the demo server behind it`, 60000, async () => {
            // Each starts alone (the resource and prompt pickers start every
            // server that is not running).
            for (const k of Object.keys(URL_SERVERS)) {
                const was = await lensOf(k);
                if (was && was.state !== "Start") {
                    await serverAction(k, "Stop Server");
                    await settledLens(k, 15000, (l) => l.state === "Start");
                }
            }
            await until("no session of the face left", 15000, () => openSessions() === 0);
            const sessions = countOf(s.began);
            const lens = await startAndSettle(key);
            if (lens.state !== "Running") throw new Error(`the CodeLens says "${lens.text}"`);
            await settledLens(key, 10000, (l) => l.tools === 6 && l.prompts === 1);
            // The same serverInfo as the other servers of the demo, whose tools
            // VS Code keeps after their Stop: this one's are the ones left.
            prefix = await prefixOf("ask_name", [demoPrefix, ...urlPrefixes].filter(Boolean));
            urlPrefixes.push(prefix);
            const mine = (await mcpTools()).filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length)).sort();
            expectEqual("the demo's tools in VS Code, by URL", mine, ["add", "add_tool", "ask_name", "list_primes", "slow_count", "tag_items"]);
            // What VS Code sent first, and the face's session of the transport.
            const init = await outputUntil(key, "the initialize and its result", 15000, (t, msgs) => {
                const sent = msgs.find((m) => m.dir === "out" && m.msg.method === "initialize");
                const answer = sent && msgs.find((m) => m.dir === "in" && m.msg.id === sent.msg.id && m.msg.result);
                return answer && { sent, answer };
            });
            log(`  ${key}: VS Code asked ${init.sent.msg.params.protocolVersion}, the face answered ${init.answer.msg.result.protocolVersion}`);
            const now = countOf(s.began);
            if (now !== sessions + 1) throw new Error(`the face logged ${now - sessions} new sessions of ${s.transport} at the start, not 1: ${face.stderr.slice(-600)}`);
            if (faceChildren().length !== 1) throw new Error(`${faceChildren().length} demo servers run behind the face, not 1`);
        });

        await check(key, "tool calls by URL give their exact results", `The HTTP face: ${s.type === "sse" ? "every response on the session's one stream" : "a request's SSE stream ends with its response"}; the result rules as over stdio`, 40000, async () => {
            const calls = [
                ["add", { a: 2, b: 3 }, ['text:{"sum":5}']],
                ["list_primes", { limit: 20 }, ["text:[2,3,5,7,11,13,17,19]"]],
            ];
            for (const [tool, input, want] of calls) expectEqual(tool, textsOf(await call(await toolName(prefix, tool), input)), want);
            const answers = await outputUntil(key, "the two results", 15000, (t, msgs) => {
                const found = calls.map(([tool, input]) => callIn(msgs, tool, input));
                return found.every((c) => c && c.answer) && found.map((c) => c.answer.msg);
            });
            for (const a of answers) {
                const modern = ["resultType", "ttlMs", "cacheScope"].filter((k) => a.result && k in a.result);
                if (modern.length) throw new Error(`VS Code got ${modern.join(", ")} of 2026-07-28: ${JSON.stringify(a).slice(0, 300)}`);
            }
        });

        await check(key, "Stop from the workbench ends the face's session; the demo server that every session shares stays", `The HTTP face: ${s.end} ends a session and its work; the shared child serves the next one`, 40000, async () => {
            const before = countOf(s.ended);
            const shared = faceChildren();
            await serverAction(key, "Stop Server");
            await settledLens(key, 15000, (l) => l.state === "Start");
            await until(`the face's log of the end of the session at ${s.end}`, 15000, () => countOf(s.ended) === before + 1);
            expectEqual("the demo server behind the face after the session's end", faceChildren(), shared);
        });
    }
}

// After every other check: SIGTERM ends the face, with exit 0.
async function faceStopCheck() {
    if (!face.child) return;
    await check("http-face", "SIGTERM ends the HTTP face: exit 0, nothing of it left", "The HTTP face: SIGINT or SIGTERM ends every session and exits 0", 30000, async () => {
        process.kill(face.child.pid, "SIGTERM");
        const exit = await bounded("the face's exit after SIGTERM", 15000, face.exited);
        expectEqual("the face's exit", exit, { code: 0, signal: null });
        await until("no process of the face", 5000, () => serverPids("face").filter(pidAlive).length === 0);
    });
}

async function remoteChecks() {
    const key = "remote-bridged";
    let startOrigin, prefix;
    await check(key, "the first sign-in, from the bridge's start URL, then Running", "Sign-in: OAuth 2.1 with PKCE during initialize; the start URL is in the log", 90000, async () => {
        await serverAction(key, "Start Server");
        const url = await outputUntil(key, "the sign-in line", 30000, (text) => {
            const m = text.match(/sign-in: open (http:\/\/127\.0\.0\.1:\d+\/start\/[A-Za-z0-9_-]+)/);
            return m && m[1];
        });
        startOrigin = new URL(url).origin;
        const signIn = await context.newPage();
        try {
            await signIn.goto(url, { timeout: 20000 });
            await until("the bridge's page at the end of the sign-in", 15000, async () => /The bridge received the answer of the sign-in/.test(await signIn.innerText("body")));
        } finally {
            await closeTab(signIn);
        }
        await settledLens(key, 30000, (l) => l.state === "Running" && l.tools === 1);
        prefix = await prefixOf("whoami");
    });

    await check(key, "a later sign-in reaches VS Code as a URL elicitation and completes", "Sign-in after the first initialize asks VS Code to open the URL (elicitation.url), then notifications/elicitation/complete", 90000, async () => {
        // The server wants the scope mcp:write for tools/call (a step-up).
        await clearNotifications();
        await hidePanel();
        const pending = invoke(await toolName(prefix, "whoami"), {}, { confirm: /Run .?whoami/, ms: 80000 });
        await pending.confirmed;
        const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "needs a new sign-in" });
        await toast.waitFor({ state: "visible", timeout: 20000 });
        const text = (await toast.innerText()).replace(/\s+/g, " ");
        if (!text.includes(`This will open ${startOrigin}/start/`)) throw new Error(`the notification does not show the bridge's start URL: ${text}`);
        await settledToast(toast);
        copyReadmeShot(await shot("sign-in-prompt"), "vscode-sign-in-prompt.png");
        const opened = context.waitForEvent("page", { timeout: 15000 });
        await toast.locator(".monaco-button", { hasText: "Open URL" }).click();
        const tab = await opened;
        try {
            await until("the bridge's page at the end of the sign-in", 20000, async () => /The bridge received the answer of the sign-in/.test(await tab.innerText("body").catch(() => "")));
        } finally {
            await closeTab(tab);
        }
        expectEqual("the result", textsOf(await bounded("the call's result", 30000, pending.done)), ["text:scope mcp:read mcp:write"]);
        await outputUntil(key, "the URL elicitation and its completion", 15000, (t, msgs) => {
            const ask = msgs.find((m) => m.dir === "in" && m.msg.method === "elicitation/create" && m.msg.params.mode === "url");
            return ask && msgs.find((m) => m.dir === "in" && m.msg.method === "notifications/elicitation/complete" && m.msg.params.elicitationId === ask.msg.params.elicitationId);
        });
    });

    await check(key, "no token or code of the sign-in in the Output channel", "Logs never hold a secret", 20000, async () => {
        const record = fs.readFileSync(path.join(runDir, "auth-record.jsonl"), "utf8");
        if (!record.includes(`${authSecret}-access`)) throw new Error("the auth server issued no token: the check would prove nothing");
        const text = await readOutput(key);
        if (!/scope mcp:read mcp:write/.test(text)) throw new Error("the Output channel does not reach the last call yet");
        if (text.includes(authSecret)) throw new Error("the Output channel has a token or a code of the authorization server");
    });
}

// The remote-host run: VS Code, the bridges and the server on the
// remote host, the browser on the user's machine.
async function remoteHostChecks() {
    // The auth server as the bridges reach it, and as the user's machine does.
    const bridgeOrigin = `http://127.0.0.1:${authPort}`;
    const userOrigin = `https://${opts.remoteIp}:${authPublicPort}`;

    await check("remote-browser", "--sign-in browser: the start URL (127.0.0.1 of the remote host) does not open in the user's browser; the sign-in times out", "Remote host: the loopback redirect cannot reach the bridge from the user's machine; the bridge names the port to forward, and the sign-in ends with sign_in_timeout", 90000, async () => {
        const key = "remote-browser";
        await serverAction(key, "Start Server");
        const url = await outputUntil(key, "the sign-in line", 30000, (text) => {
            const m = text.match(/sign-in: open (http:\/\/127\.0\.0\.1:\d+\/start\/[A-Za-z0-9_-]+) in a web browser/);
            return m && m[1];
        });
        const port = new URL(url).port;
        await outputUntil(key, "the bridge's line on the port to forward", 10000, (text) =>
            text.includes(`the bridge runs on a remote host, and the sign-in redirects your browser to port ${port} of it`));
        // The user opens the URL on their machine, where nothing listens on it.
        const tab = await context.newPage();
        let failure = null;
        try {
            await tab.goto(url, { timeout: 15000 });
            const body = await tab.innerText("body").catch((e) => `(unreadable: ${e.message})`);
            throw new Fail(`the user's browser opened the start URL on the remote host's loopback, so the two hosts are not apart: ${body.slice(0, 200)}`);
        } catch (e) {
            if (e instanceof Fail) throw e;
            failure = e.message;
        } finally {
            await closeTab(tab);
        }
        if (!/net::ERR_CONNECTION_REFUSED/.test(failure)) throw new Error(`the user's browser did not get a refused connection: ${failure}`);
        log(`  the user's browser: ${failure.split("\n")[0]}`);
        // The control: on the remote host the listener is there, and its first
        // answer to the start URL is the redirect to the authorization server
        // (the browser never reached it, so this is its first use).
        const res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(5000) });
        const location = res.headers.get("location") || "";
        if (res.status !== 302 || !location.startsWith(`${bridgeOrigin}/authorize?`)) {
            throw new Error(`on the remote host the start URL answered ${res.status} (Location ${location.slice(0, 80)}), not the redirect to ${bridgeOrigin}/authorize`);
        }
        await outputUntil(key, "the sign-in's timeout", (BROWSER_SIGN_IN_S + 15) * 1000, (text) =>
            text.includes(`The sign-in did not complete in ${BROWSER_SIGN_IN_S} s.`));
        // The lens passes through "Start" (stopped) on its way to "Error":
        // only Error ends the wait, and a lens that stays elsewhere fails it
        // with the text it showed last.
        await settledLens(key, 15000, (l) => l.state === "Error");
    });

    const key = "remote-device";
    let prefix;
    await check(key, "--sign-in auto: the device grant; the URL of the Output channel approved in the user's browser, then Running", "Remote host: auto takes the device grant that the server offers; the sign-in line has a URL of the authorization server that the user's machine reaches, and the code", 90000, async () => {
        await serverAction(key, "Start Server");
        const line = await outputUntil(key, "the sign-in line", 30000, (text) => {
            const m = text.match(/sign-in: open (\S+) in a web browser to sign in to the upstream server \(the code is ([^)\s]+)\)/);
            return m && { url: m[1], code: m[2] };
        });
        if (!line.url.startsWith(`${userOrigin}/device?`)) throw new Error(`the sign-in URL ${line.url} is not on ${userOrigin}, the address of the remote host on the user's side`);
        expectEqual("the code in the URL", new URL(line.url).searchParams.get("user_code"), line.code);
        const tab = await context.newPage();
        try {
            await tab.goto(line.url, { timeout: 15000 });
            const body = await tab.innerText("body");
            if (!/"device":\s*"approved"/.test(body)) throw new Error(`the authorization server's page says: ${body.slice(0, 200)}`);
        } finally {
            await closeTab(tab);
        }
        await settledLens(key, 30000, (l) => l.state === "Running" && l.tools === 1);
        prefix = await prefixOf("whoami");
    });

    await check(key, "a later sign-in (a step-up) through VS Code's URL elicitation, approved in the user's browser; the call's result comes", "Remote host: a later device sign-in asks VS Code to open the verification URL (elicitation.url) with the code in the message, then notifications/elicitation/complete", 90000, async () => {
        await clearNotifications();
        await hidePanel();
        // The server wants the scope mcp:write for tools/call.
        const pending = invoke(await toolName(prefix, "whoami"), {}, { confirm: /Run .?whoami/, ms: 80000 });
        await pending.confirmed;
        const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "needs a new sign-in" });
        await toast.waitFor({ state: "visible", timeout: 20000 });
        const text = (await toast.innerText()).replace(/\s+/g, " ");
        const code = (text.match(/enter the code (\S+) if it asks for one/) || [])[1];
        const shown = (text.match(/This will open (\S+)/) || [])[1] || "";
        if (!code) throw new Error(`the notification has no code: ${text}`);
        if (!shown.startsWith(`${userOrigin}/device?user_code=`)) throw new Error(`the notification does not show the verification URL on ${userOrigin}: ${text}`);
        await settledToast(toast);
        copyReadmeShot(await shot("device-sign-in-prompt"), "vscode-device-sign-in-prompt.png");
        await toast.locator(".monaco-button", { hasText: "Open URL" }).click();
        // VS Code opens links to localhost at once and asks first for any other
        // host: the authorization server is not on the user's machine.
        const asked = await until("VS Code's question before it opens the URL", 15000, async () =>
            (await visibleDialogs()).find((d) => d.includes("open the external website?")));
        if (!asked.includes(shown)) throw new Error(`VS Code's question names another URL: ${asked}`);
        await shot("device-open-question");
        const opened = context.waitForEvent("page", { timeout: 15000 });
        await page.locator(".monaco-dialog-box .monaco-button", { hasText: /^Open$/ }).click();
        const tab = await opened;
        try {
            await until("the authorization server's page in the tab VS Code opened", 20000, async () => /"device":\s*"approved"/.test(await tab.innerText("body").catch(() => "")));
            expectEqual("the tab's URL", tab.url().slice(0, shown.length), shown);
        } finally {
            await closeTab(tab);
        }
        expectEqual("the result", textsOf(await bounded("the call's result", 30000, pending.done)), ["text:scope mcp:read mcp:write"]);
        const ask = await outputUntil(key, "the URL elicitation and its completion", 15000, (t, msgs) => {
            const ask = msgs.find((m) => m.dir === "in" && m.msg.method === "elicitation/create" && m.msg.params.mode === "url");
            const done = ask && msgs.find((m) => m.dir === "in" && m.msg.method === "notifications/elicitation/complete" && m.msg.params.elicitationId === ask.msg.params.elicitationId);
            return done && ask;
        });
        expectEqual("the URL of the elicitation", new URL(ask.msg.params.url).searchParams.get("user_code"), code);
        if (!ask.msg.params.message.includes(`enter the code ${code}`)) throw new Error(`the elicitation's message has not the code: ${ask.msg.params.message}`);
    });

    await check("remote-host", "the authorization server saw device sign-ins only, and no token or code is in the Output channels", "Remote host: no authorization request reached the authorization server (the loopback flow never got past the user's browser); logs never hold a secret", 30000, async () => {
        const record = fs.readFileSync(path.join(runDir, "auth-record.jsonl"), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
        const paths = record.map((r) => r.path);
        if (paths.includes("/authorize")) throw new Error("an authorization request reached the authorization server");
        expectEqual("the device authorizations", paths.filter((p) => p === "/device_authorization").length, 2);
        if (!fs.readFileSync(path.join(runDir, "auth-record.jsonl"), "utf8").includes(`${authSecret}-access`)) throw new Error("the auth server issued no token: the check would prove nothing");
        for (const k of serverKeys) {
            if ((await readOutput(k)).includes(authSecret)) throw new Error(`the Output channel of ${k} has a token or a code of the authorization server`);
        }
    });

    await stopAllChecks();
}

async function stopAllChecks() {
    await check("all", "Stop from the workbench on every server leaves no process", "Processes: nothing of a stopped server is left", 90000, async () => {
        const order = remoteHost ? serverKeys : ["modern-bridged", "remote-bridged", "demo-bridged", "demo-http", "demo-sse", "schema-control", "modern-direct"];
        for (const key of order) {
            const lens = await lensOf(key);
            if (lens && /^(Running|Starting)/.test(lens.state)) {
                await serverAction(key, "Stop Server");
                await settledLens(key, 15000, (l) => l.state === "Start" || l.state === "Error");
            }
        }
        await until("no MCP server process of this run", 15000, () =>
            serverKeys.every((k) => serverPids(k).filter(pidAlive).length === 0));
    });
}

// --- the run, after every declaration above -------------------------------------------------

let browserServer, browser, context, page;
let exitCode = 1;
try {
    await setUp();
    await (remoteHost ? remoteHostChecks() : runChecks());
    exitCode = results.some((r) => r.status === "failed") ? 1 : 0;
} catch (e) {
    // A failure outside a check (the set-up): the report says so.
    results.push({ server: "set-up", name: "set-up", rule: "the run starts", status: "failed", error: e.stack || String(e) });
    try {
        await captureFailure(results[results.length - 1], null);
    } catch {}
} finally {
    try {
        await saveOutputs();
    } catch (e) {
        log(`could not save the Output channels: ${e.message}`);
    }
    writeReport();
    try {
        if (browser) await bounded("closing the browser", 10000, browser.close());
        if (browserServer) await bounded("closing Chromium", 10000, browserServer.close());
    } catch {}
    await endGroups();
}
process.exit(exitCode);
