#!/usr/bin/env python3
"""A fake model API on the policy's gateway address, for the judges' end-to-end runs.

usage: fake_model.py KIND GATEWAY_URL LOG [TOOL ARGS_JSON]

KIND is the wire format the tool speaks to its gateway: `anthropic` (Messages, SSE),
`openai-responses` (Responses, SSE), `openai-chat` (Chat Completions, SSE). Every request is
logged as `GATEWAY-HIT <method> <path>` in LOG: a request here proves the tool sends its model
traffic to the gateway devint configured; a request that offers tools is followed by
`GATEWAY-TOOLS <name>,<name>…` (which tools, MCP servers' included, the model was offered). When TOOL is given and the request offers a tool of
that name, the first answer asks for it with ARGS_JSON (e.g. a `curl` command, to see the
tool's deny rules and the policy's hook act); after the tool's result it answers with text.
Listens on loopback only; never forwards anything.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

KIND, GATEWAY, LOG = sys.argv[1], sys.argv[2], sys.argv[3]
TOOL = sys.argv[4] if len(sys.argv) > 4 else None
ARGS = json.loads(sys.argv[5]) if len(sys.argv) > 5 else {}


def log(line: str) -> None:
    with open(LOG, "a") as f:
        f.write(line + "\n")


def offered(req: dict) -> list[str]:
    names = []
    for t in req.get("tools", []) or []:
        if isinstance(t, dict):
            names.append(t.get("name") or (t.get("function") or {}).get("name") or "")
    return names


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        log(f"GATEWAY-HIT GET {self.path}")
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"data": [], "models": []}')

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        log(f"GATEWAY-HIT POST {self.path}")
        try:
            req = json.loads(raw)
        except ValueError:
            req = {}
        if offered(req):
            log("GATEWAY-TOOLS " + ",".join(offered(req)))
        text = raw.decode("utf8", "replace")
        answered = any(k in text for k in ("tool_result", "function_call_output", '"role": "tool"', '"role":"tool"'))
        call = TOOL is not None and not answered and TOOL in offered(req)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        {"anthropic": self.anthropic, "openai-responses": self.openai_responses, "openai-chat": self.openai_chat}[KIND](req, call)

    def event(self, name: str | None, data: dict) -> None:
        head = f"event: {name}\n" if name else ""
        self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())

    def anthropic(self, req: dict, call: bool) -> None:
        self.event("message_start", {"type": "message_start", "message": {
            "id": "m", "type": "message", "role": "assistant", "model": req.get("model", "m"),
            "content": [], "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 1}}})
        if call:
            start = {"type": "tool_use", "id": "toolu_judge", "name": TOOL, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(ARGS)}
            stop = "tool_use"
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": "devint-judge-done"}
            stop = "end_turn"
        self.event("content_block_start", {"type": "content_block_start", "index": 0, "content_block": start})
        self.event("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        self.event("content_block_stop", {"type": "content_block_stop", "index": 0})
        self.event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 1}})
        self.event("message_stop", {"type": "message_stop"})

    def openai_responses(self, req: dict, call: bool) -> None:
        self.event("response.created", {"type": "response.created", "response": {"id": "r"}})
        if call:
            item = {"type": "function_call", "id": "fc", "call_id": "call_judge", "name": TOOL,
                    "arguments": json.dumps(ARGS)}
        else:
            item = {"type": "message", "role": "assistant", "id": "m",
                    "content": [{"type": "output_text", "text": "devint-judge-done"}]}
        self.event("response.output_item.done", {"type": "response.output_item.done", "item": item})
        self.event("response.completed", {"type": "response.completed", "response": {
            "id": "r", "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}})

    def openai_chat(self, req: dict, call: bool) -> None:
        if call:
            delta = {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_judge", "type": "function",
                     "function": {"name": TOOL, "arguments": json.dumps(ARGS)}}]}
            finish = "tool_calls"
        else:
            delta = {"role": "assistant", "content": "devint-judge-done"}
            finish = "stop"
        base = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": req.get("model", "m")}
        self.event(None, dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": None}]))
        self.event(None, dict(base, choices=[{"index": 0, "delta": {}, "finish_reason": finish}],
                              usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}))
        self.wfile.write(b"data: [DONE]\n\n")


address = urlsplit(GATEWAY)
server = ThreadingHTTPServer((address.hostname, address.port), Handler)
log("LISTENING")
server.serve_forever()
