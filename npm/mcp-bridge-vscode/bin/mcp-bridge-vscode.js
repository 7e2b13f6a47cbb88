#!/usr/bin/env node
// The launcher of the npm package: finds the prebuilt binary of this
// platform (the optional dependency that npm installed for it, as esbuild
// and Biome do) and runs it with this process's arguments.
//
// No Node process may stand on the data path between VS Code and the
// bridge. Where Node can replace itself with the binary (process.execve,
// Node >= 22.15 on Linux and macOS), the launcher does, and is gone. Else it
// starts the binary with the same stdin, stdout and stderr (inherited file
// descriptors: the bytes never pass through Node), forwards termination
// signals to it, and ends as it ended: with its exit code, or killed by
// the same signal.
'use strict';

const { spawn } = require('node:child_process');
const os = require('node:os');
const path = require('node:path');
const platforms = require('../platforms.json');

/** Ends the launcher with a message, as the bridge's own errors look. */
function fail(message) {
    process.stderr.write(`mcp-bridge-vscode: ${message}\n`);
    process.exit(1);
}

/** The C library of Linux: the Linux packages carry binaries for glibc. */
function isMusl() {
    if (process.platform !== 'linux') return false;
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null;
    return Boolean(report && !report.header?.glibcVersionRuntime);
}

function binary() {
    const platform = platforms.find((p) => p.os === process.platform && p.cpu === process.arch);
    const elsewhere = 'build it with `cargo install --locked mcp-bridge-vscode` and use it as the command';
    if (!platform || isMusl()) {
        const libc = isMusl() ? ' (musl)' : '';
        fail(`no prebuilt binary for ${process.platform} ${process.arch}${libc}; ${elsewhere}`);
    }
    try {
        return require.resolve(`${platform.package}/bin/${platform.binary}`);
    } catch {
        // Name the package and its version: npm leaves it out with
        // --omit=optional, and an install of the main tarball alone has
        // no registry to fetch it from.
        const version = ownVersion();
        fail(
            `the package ${platform.package}@${version}, with the binary for ${process.platform} ${process.arch}, ` +
                'is not installed. npm installs it with mcp-bridge-vscode unless optional dependencies are left out ' +
                '(--omit=optional, --no-optional); from tarballs, install both: ' +
                `npm install mcp-bridge-vscode-${version}.tgz ${platform.package}-${version}.tgz`
        );
    }
}

/** The version of this package, which every platform package shares. */
function ownVersion() {
    try {
        return require('../package.json').version;
    } catch {
        return 'latest';
    }
}

const file = binary();
const args = process.argv.slice(2);

if (typeof process.execve === 'function' && process.platform !== 'win32') {
    try {
        process.execve(file, [path.basename(file), ...args], process.env);
    } catch (err) {
        // Not replaced: start the binary as a child below.
        if (err.code === 'ENOENT' || err.code === 'EACCES') fail(`cannot start ${file}: ${err.message}`);
    }
}

const child = spawn(file, args, { stdio: 'inherit', windowsHide: true });
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];
for (const signal of forwarded) process.on(signal, () => child.kill(signal));
child.on('error', (err) => fail(`cannot start ${file}: ${err.message}`));
child.on('exit', (code, signal) => {
    if (signal) {
        // Die of the same signal, so the parent sees what it would see of
        // the binary itself.
        for (const s of forwarded) process.removeAllListeners(s);
        // A signal that Node ignores (SIGPIPE) leaves the launcher alive:
        // then it exits with the shell's code for it.
        process.exitCode = 128 + (os.constants.signals[signal] ?? 0);
        process.kill(process.pid, signal);
        return;
    }
    process.exit(code ?? 1);
});
