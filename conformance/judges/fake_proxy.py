#!/usr/bin/env python3
"""A fake HTTP(S) proxy on the policy's proxy address, for judges whose tool takes its proxy
from devint's file.

usage: fake_proxy.py PROXY_URL LOG

Every request is logged as `PROXY-HIT <method> <target>` in LOG (a CONNECT names the host and
port the tool wanted to reach) and refused with 502: a request here proves the tool sends its
traffic through the proxy devint configured. Listens on loopback only; never forwards anything.
"""

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

PROXY, LOG = sys.argv[1], sys.argv[2]


def log(line: str) -> None:
    with open(LOG, "a") as f:
        f.write(line + "\n")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def refuse(self) -> None:
        log(f"PROXY-HIT {self.command} {self.path}")
        self.send_response(502)
        self.send_header("content-length", "0")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True

    do_CONNECT = do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_PATCH = refuse


address = urlsplit(PROXY)
server = ThreadingHTTPServer((address.hostname, address.port), Handler)
log("LISTENING")
server.serve_forever()
