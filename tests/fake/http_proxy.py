#!/usr/bin/env python3
"""A forward HTTP proxy for the proxy tests of the HTTP upstream (HTTP_PROXY, NO_PROXY).

Standard library only. It listens on 127.0.0.1 (port 0), prints `PORT <n>`, and forwards each
request of absolute form (`POST http://127.0.0.1:<port>/mcp HTTP/1.1`) to its target, with the
body, answering with the target's status, headers and whole body. It exits when stdin closes.

  --record PATH   one JSON line per request: method and the origin of the target (never its
                  path or query), and whether a Proxy-Authorization header came
"""
import argparse
import http.client
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

p = argparse.ArgumentParser()
p.add_argument("--record")
args = p.parse_args()
lock = threading.Lock()

HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "proxy-authorization"}


class Proxy(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def forward(self):
        target = urllib.parse.urlsplit(self.path)
        if args.record:
            with lock, open(args.record, "a") as f:
                f.write(json.dumps({"method": self.command, "origin": f"{target.scheme}://{target.netloc}"}) + "\n")
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        conn = http.client.HTTPConnection(target.hostname, target.port or 80, timeout=30)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        path = target.path + (f"?{target.query}" if target.query else "")
        conn.request(self.command, path or "/", body=body, headers=headers)
        response = conn.getresponse()
        data = response.read()
        self.send_response(response.status)
        for k, v in response.getheaders():
            if k.lower() not in HOP and k.lower() != "content-length":
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        conn.close()

    do_GET = forward
    do_POST = forward


server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(f"PORT {server.server_address[1]}", flush=True)
sys.stdin.read()
server.shutdown()
