#!/usr/bin/env python3
"""A minimal MCP server over stdio for the judges' seeds: it offers one tool, `judge_echo`,
so what a tool offers its model shows which servers' tools it kept. Newline-delimited
JSON-RPC (the MCP stdio transport); answers initialize, tools/list, tools/call and ping.

A seed names it as `sh -c 'exec python3 "$HOME/.devint-judge/fake_mcp.py"'`; `judge_helpers`
(lib.sh) puts it there."""
import json
import sys

for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        result = {"protocolVersion": msg.get("params", {}).get("protocolVersion", "2024-11-05"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "devint-judge", "version": "1.0.0"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "judge_echo", "description": "Echoes its input.",
                             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "judge-echo"}]}
    elif method == "ping":
        result = {}
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "no such method"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
