#!/usr/bin/env bash
# Judge: Qwen Code reads ~/.qwen/settings.json (and writes "$version" back into it on start).
#   qwen mcp reconnect --all   "Skipped - server is excluded in settings (mcp.excluded)"
#                              (`qwen mcp list` does not show the exclusion);
#                              "SyntaxError … settings.json" (exit 1) when it refuses the file
#   qwen /doctor               "Base URL: <url>" of the selected OpenAI-compatible auth
#   qwen /hooks                the hooks it registered, per event
#   qwen '/config <key>'       a key's merged value (only keys that are not booleans: for a
#                              boolean key `/config` toggles it and saves the file)
#   end to end                 a fake Chat Completions API on the gateway address: the request
#                              reaching it proves the gateway; it asks for glob (the
#                              PreToolUse hook is handed the call; the init event says the approval
#                              mode and the tools offered), then, under --approval-mode yolo, for
#                              run_shell_command `curl …` (the permission rules refuse it); last,
#                              without NO_PROXY, a fake proxy on the proxy address sees the
#                              model request go through it
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export NO_COLOR=1 OPENAI_API_KEY=sk-devint-judge-offline QWEN_CODE_SUPPRESS_YOLO_WARNING=1
export TMPDIR="$(mktemp -d)"
quiet() { grep -v '^Ripgrep not available'; }

echo "=== qwen mcp reconnect --all"
run timeout 60 "$TOOL_BIN" mcp reconnect --all | quiet
echo "=== qwen /doctor"
run timeout 60 "$TOOL_BIN" "/doctor" | grep -E 'Base URL|SyntaxError|Error|judge-exit-code'
# Whether the tool loads the file is shown by now; what follows only shows effects.
full || { rm -rf "$TMPDIR"; exit 0; }
echo "=== qwen /hooks"
run timeout 60 "$TOOL_BIN" "/hooks" | quiet
for key in tools.approvalMode permissions.deny mcp.excluded; do
  echo "=== qwen '/config $key'"
  run timeout 60 "$TOOL_BIN" "/config $key" | quiet
done

# The stream's init event (approval mode, tools offered) and each tool result.
stream() {
  python3 -c '
import json, sys
for line in sys.stdin:
    try:
        event = json.loads(line)
    except ValueError:
        print(line.rstrip())
        continue
    if event.get("type") == "system" and event.get("subtype") == "init":
        print("INIT permission_mode=%s tools=%s" % (event.get("permission_mode"), ",".join(event.get("tools") or [])))
    content = (event.get("message") or {}).get("content")
    for block in content if isinstance(content, list) else []:
        if block.get("type") == "tool_use":
            print("TOOL_USE", block.get("name"), json.dumps(block.get("input")))
        if block.get("type") == "tool_result":
            print("TOOL_RESULT", json.dumps(block.get("content"))[:400])'
}

: > "$HOOK_LOG"
echo "=== end to end: the gateway asks for glob"
gateway_start openai-chat glob '{"pattern": "*"}'
run timeout 60 env NO_PROXY=127.0.0.1,localhost "$TOOL_BIN" -m devint-judge -o stream-json "devint judge" | stream
gateway_stop
echo "hook: $(hook_log)"

echo "=== end to end, --approval-mode yolo: the gateway asks for run_shell_command curl"
gateway_start openai-chat run_shell_command '{"command": "curl -s http://127.0.0.1:9/devint-judge", "is_background": false}'
run timeout 60 env NO_PROXY=127.0.0.1,localhost "$TOOL_BIN" -m devint-judge --approval-mode yolo -o stream-json "devint judge" | stream
gateway_stop

echo "=== end to end through the proxy (no NO_PROXY)"
proxy_start
gateway_start openai-chat
run timeout 30 "$TOOL_BIN" -m devint-judge -o stream-json "devint judge" | stream | grep -E 'INIT|judge-exit-code'
gateway_stop
proxy_stop
rm -rf "$TMPDIR"
