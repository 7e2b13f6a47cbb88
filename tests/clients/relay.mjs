// A logging relay for the revision probe of tests/clients/run.mjs: a client
// starts it as its MCP server,
//
//   node relay.mjs <log file> <command> [args...]
//
// and it starts <command> with <args>, passes stdin and stdout through line by
// line, and appends each line to <log file> as "> <line>" (from the client) or
// "< <line>" (to the client). Its stderr is the command's. It ends the command
// when its own stdin ends or a signal comes, and exits with the command's code.
// It changes nothing: the probe reads what the client asked in `initialize` (or
// first) and what the server answered.

import { spawn } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";

const [log, command, ...args] = process.argv.slice(2);
if (!log || !command) {
    console.error("usage: node relay.mjs <log file> <command> [args...]");
    process.exit(2);
}
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const note = (dir, line) => fs.appendFileSync(log, `${dir} ${line}\n`);
child.on("error", (e) => {
    note("!", `cannot start ${command}: ${e.message}`);
    process.exit(1);
});
readline
    .createInterface({ input: process.stdin, crlfDelay: Infinity })
    .on("line", (line) => {
        note(">", line);
        child.stdin.write(`${line}\n`);
    })
    .on("close", () => child.stdin.end());
readline.createInterface({ input: child.stdout, crlfDelay: Infinity }).on("line", (line) => {
    note("<", line);
    process.stdout.write(`${line}\n`);
});
child.stdin.on("error", () => {});
child.on("exit", (code, signal) => {
    note("!", `the command exited: ${signal ?? code}`);
    process.exit(code ?? 1);
});
for (const s of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(s, () => child.kill(s));
