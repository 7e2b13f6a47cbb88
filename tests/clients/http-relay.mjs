// A logging HTTP relay for tests/clients/run.mjs, the HTTP counterpart of
// relay.mjs: in front of the bridge's HTTP face (--listen) it passes every
// request and response through as it is, streams included, and appends to a
// log file what went by:
//
//   = POST /mcp (mcp-protocol-version: 2025-06-18, mcp-session-id: 1a2b…)
//   > {"jsonrpc":"2.0","id":1,"method":"initialize",...}     a message from the client
//   = → 200 application/json (POST /mcp)
//   < {"jsonrpc":"2.0","id":1,"result":{...}}                 a message to the client
//   = GET /sse
//   = → 200 text/event-stream (GET /sse)
//   < event: endpoint /messages?sessionId=…
//
// Messages are taken from JSON bodies (a batch gives one line a message) and
// from the data of SSE events. readRelay of run.mjs reads the ">" and "<"
// lines as it reads those of relay.mjs. The Host of each request becomes the
// face's (the face takes only its own), and an Origin of the relay's becomes
// the face's; nothing else changes.
//
//   const relay = await startHttpRelay("http://127.0.0.1:<face port>", "<log file>");
//   relay.url             http://127.0.0.1:<relay port>
//   await relay.close()

import fs from "node:fs";
import http from "node:http";

export async function startHttpRelay(target, logFile) {
    const face = new URL(target);
    const note = (line) => fs.appendFileSync(logFile, `${line}\n`);
    const messages = (dir, text) => {
        let value;
        try {
            value = JSON.parse(text);
        } catch {
            if (text.trim()) note(`${dir}? ${text.slice(0, 2000)}`);
            return;
        }
        for (const m of Array.isArray(value) ? value : [value]) note(`${dir} ${JSON.stringify(m)}`);
    };
    // An SSE body, parsed as it streams: each event's data, in order.
    const sseReader = () => {
        let buffer = "";
        let event = "message";
        let data = [];
        return (chunk) => {
            buffer += chunk;
            let i;
            while ((i = buffer.search(/\r?\n/)) >= 0) {
                const line = buffer.slice(0, i);
                buffer = buffer.slice(i + (buffer[i] === "\r" ? 2 : 1));
                if (line === "") {
                    if (data.length) {
                        const text = data.join("\n");
                        if (event === "message") messages("<", text);
                        else note(`< event: ${event} ${text}`);
                    }
                    event = "message";
                    data = [];
                } else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
                else if (line.startsWith("event:")) event = line.slice(6).trim();
            }
        };
    };
    const sockets = new Set();
    const server = http.createServer((req, res) => {
        const own = `http://127.0.0.1:${server.address().port}`;
        const headers = { ...req.headers, host: face.host };
        if (headers.origin === own) headers.origin = face.origin;
        const shown = ["mcp-protocol-version", "mcp-session-id", "last-event-id", "accept"]
            .filter((h) => req.headers[h])
            .map((h) => `${h}: ${h === "mcp-session-id" ? `${req.headers[h].slice(0, 8)}…` : req.headers[h]}`);
        const head = `= ${req.method} ${req.url}${shown.length ? ` (${shown.join(", ")})` : ""}`;
        const body = [];
        req.on("data", (c) => body.push(c));
        req.on("end", () => {
            const sent = Buffer.concat(body);
            // The request first: an answer on another stream can come before this one's status.
            note(head);
            if (sent.length) messages(">", sent.toString("utf8"));
            const up = http.request({ host: face.hostname, port: face.port, method: req.method, path: req.url, headers }, (answer) => {
                const type = answer.headers["content-type"] ?? "";
                note(`= → ${answer.statusCode}${type ? ` ${type}` : ""} (${req.method} ${req.url.slice(0, 40)})`);
                res.writeHead(answer.statusCode, answer.rawHeaders);
                res.flushHeaders();
                const sse = type.startsWith("text/event-stream") ? sseReader() : null;
                const chunks = [];
                answer.on("data", (c) => {
                    if (sse) sse(c.toString("utf8"));
                    else chunks.push(c);
                    res.write(c);
                });
                answer.on("end", () => {
                    if (!sse && chunks.length) {
                        const text = Buffer.concat(chunks).toString("utf8");
                        if (type.includes("json")) messages("<", text);
                        else note(`< (${type || "no type"}) ${text.slice(0, 500)}`);
                    }
                    if (sse) note(`= the stream of ${req.method} ${req.url.slice(0, 40)} ended`);
                    res.end();
                });
                answer.on("error", () => res.destroy());
            });
            up.on("error", (e) => {
                note(`= → the face did not answer ${req.method} ${req.url.slice(0, 40)}: ${e.message}`);
                if (!res.headersSent) res.writeHead(502).end();
                else res.destroy();
            });
            // The client went away: so does the request to the face.
            res.on("close", () => up.destroy());
            up.end(sent);
        });
    });
    server.on("connection", (s) => {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
    });
    await new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, "127.0.0.1", resolve);
    });
    return {
        url: `http://127.0.0.1:${server.address().port}`,
        close: () =>
            new Promise((resolve) => {
                for (const s of sockets) s.destroy();
                server.close(() => resolve());
            }),
    };
}
