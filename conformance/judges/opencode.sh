#!/usr/bin/env bash
# Judge: OpenCode reads ~/.config/opencode/opencode.jsonc (the file it creates itself; the
# global files load config.json, opencode.json, then opencode.jsonc, the later one winning).
#   opencode debug config        the merged config (provider.anthropic.options.baseURL, permission);
#                                "Error: Config file at … is not valid JSON(C)" when it refuses the file
#   opencode debug agent build   the build agent's permission rules in the order OpenCode
#                                weighs them (the last match wins) and the tools it offers
#   opencode mcp list            the MCP servers it starts (a denied server's tools are still
#                                listed here: the permission rule keeps them from the model)
#   end to end                   a fake Messages API on the gateway address asks for bash `curl …`:
#                                the request reaching it proves the gateway, the tools it was
#                                offered show which MCP servers' tools reach the model (named
#                                <server>_<tool>), and OpenCode's refusal proves the deny rule
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export NO_COLOR=1 NO_PROXY=127.0.0.1,localhost OPENCODE_DISABLE_MODELS_FETCH=1 \
  OPENCODE_DISABLE_AUTOUPDATE=1 ANTHROPIC_API_KEY=sk-devint-judge-offline

echo "=== opencode debug config"
run timeout 60 "$TOOL_BIN" debug config
echo "=== opencode debug agent build (permission rules in order: the last match wins)"
run timeout 60 "$TOOL_BIN" debug agent build
echo "=== opencode mcp list"
run timeout 60 "$TOOL_BIN" mcp list

# Whether the tool loads the file is shown by now; what follows only shows effects.
full || exit 0

echo "=== end to end: the gateway asks for bash curl"
gateway_start anthropic bash '{"command": "curl -s http://127.0.0.1:9/devint-judge", "description": "judge"}'
run timeout 90 "$TOOL_BIN" run --format json --model anthropic/claude-sonnet-4-5 "devint judge" \
  | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        event = json.loads(line)
    except ValueError:
        print(line.rstrip())
        continue
    part = event.get("part") or {}
    if part.get("type") == "tool":
        state = part.get("state") or {}
        print("TOOL", part.get("tool"), json.dumps(state.get("input")), state.get("status"),
              str(state.get("output") or state.get("error"))[:300].replace("\n", " "))
    elif event.get("type") == "error":
        print("ERROR", json.dumps(event)[:300])'
gateway_stop
