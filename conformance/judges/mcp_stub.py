#!/usr/bin/env python3
"""A stdio MCP server for the judges' seeds: it answers `initialize` and offers one tool,
`echo`, so that a tool lists the server's tools (named after the server) to its model, where
the fake model API sees which servers' tools were offered. Reads nothing else, writes only
its answers."""

import json
import sys

for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        version = (message.get("params") or {}).get("protocolVersion", "2024-11-05")
        result = {"protocolVersion": version, "capabilities": {"tools": {}},
                  "serverInfo": {"name": "devint-judge", "version": "0"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "echo", "description": "echo",
                             "inputSchema": {"type": "object", "properties": {}}}]}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
