#!/usr/bin/env python3
"""A fake model API on the policy's gateway address, for the judges' end-to-end runs.

usage: fake_model.py KIND GATEWAY_URL LOG [TOOL ARGS_JSON]

KIND is the wire format the tool speaks to its gateway: `anthropic` (Messages, SSE),
`openai-responses` (Responses, SSE), `openai-chat` (Chat Completions, SSE), `augment` (the
Augment service a logged-in Auggie talks to: `get-models`, `agents/list-remote-tools`, and
`chat-stream` answering newline-delimited JSON whose nodes carry the tool call). Every request is
logged as `GATEWAY-HIT <method> <path>` in LOG: a request here proves the tool sends its model
traffic to the gateway devint configured. When TOOL is given and the request offers a tool of
that name, the first answer asks for it with ARGS_JSON (e.g. a `curl` command, to see the
tool's deny rules and the policy's hook act); after the tool's result it answers with text.
A request carrying a tool's result back logs it as `GATEWAY-TOOL-RESULT <text>` (what the
tool answered the call: its output, or the denial its rules gave); the tools a request offers
are logged as `GATEWAY-OFFERED <name>,<name>,…` (what the tool lets its model call).
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
    for t in (req.get("tools") or []) + (req.get("tool_definitions") or []):
        if isinstance(t, dict):
            names.append(t.get("name") or (t.get("function") or {}).get("name") or "")
    return names


def tool_result(req: dict) -> str | None:
    """The text of the last tool result a request carries back, in any of the wire formats."""
    found = None
    for message in req.get("messages", []) or []:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool":
            found = message.get("content")
        elif isinstance(message.get("content"), list):
            for part in message["content"]:
                if isinstance(part, dict) and part.get("type") == "tool_result":
                    found = part.get("content")
    for item in req.get("input", []) or []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            found = item.get("output")
    for node in req.get("nodes", []) or []:
        if isinstance(node, dict) and isinstance(node.get("tool_result_node"), dict):
            found = node["tool_result_node"].get("content")
    if isinstance(found, list):
        found = " ".join(p.get("text", "") for p in found if isinstance(p, dict))
    return None if found is None else " ".join(str(found).split())[:2000]


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
            log(f"GATEWAY-OFFERED {','.join(offered(req))}")
        text = raw.decode("utf8", "replace")
        answered = any(k in text for k in ("tool_result", "function_call_output", '"role": "tool"', '"role":"tool"'))
        result = tool_result(req)
        if result is not None:
            log(f"GATEWAY-TOOL-RESULT {result}")
        call = TOOL is not None and not answered and TOOL in offered(req)
        if KIND == "augment":
            return self.augment(req, call)
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

    def augment(self, req: dict, call: bool) -> None:
        """The Augment service's answers: one model and the account's feature flags (hooks
        on: Auggie runs hooks only for an account whose organisation enables them), no
        remote tools, and a chat turn as one line of JSON (a tool-use node, type 5, or the
        closing text)."""
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        path = urlsplit(self.path).path
        if path.endswith("/get-models"):
            body = {"default_model": "judge", "languages": [], "feature_flags": {"enable_hooks": True}, "models": [
                {"name": "judge", "suggested_prefix_char_count": 0, "suggested_suffix_char_count": 0}]}
        elif path.endswith("/agents/list-remote-tools"):
            body = {"tools": []}
        elif path.endswith("/chat-stream") and call:
            body = {"text": "", "nodes": [{"id": 1, "type": 5, "content": "", "tool_use": {
                "tool_use_id": "toolu_judge", "tool_name": TOOL, "input_json": json.dumps(ARGS)}}]}
        elif path.endswith("/chat-stream"):
            body = {"text": "devint-judge-done", "nodes": []}
        else:
            body = {}
        self.wfile.write((json.dumps(body) + "\n").encode())

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
