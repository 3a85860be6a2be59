#!/usr/bin/env bash
# Judge: Kilo Code CLI reads ~/.config/kilo/kilo.jsonc (the file it creates itself; the global
# files load config.json, kilo.json, kilo.jsonc, then the legacy opencode.json(c), a later one
# winning). The seed holds ~/.config/kilo/.bash-permission-migrated, as a user's home does once
# Kilo has started: otherwise its first start writes "permission": {"bash": "allow"} into a
# settings file that sets no permission.bash.
#   kilo debug config        the merged settings (the gateway's baseURL, every permission rule,
#                            with where each came from); exit 1 with "--- Errors ---" or
#                            "Configuration is invalid" when it refuses the file
#   kilo debug agent code    the default agent's permission rules in the order Kilo weighs
#                            them (the last match wins)
#   end to end               a fake Messages API on the gateway address asks for bash `curl …`:
#                            the request reaching it proves the gateway, the tools it is offered
#                            show which MCP servers' tools Kilo kept, Kilo's answer the deny rule
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME KILO_CONFIG KILO_CONFIG_DIR KILO_CONFIG_CONTENT
export NO_COLOR=1 NO_PROXY=127.0.0.1,localhost KILO_DISABLE_AUTOUPDATE=1 ANTHROPIC_API_KEY=sk-devint-judge-offline
judge_helpers

echo "=== kilo debug config"
run timeout 60 "$TOOL_BIN" debug config
full || exit 0
echo "=== kilo debug agent code (permission rules in order: the last match wins)"
run timeout 60 "$TOOL_BIN" debug agent code \
  | python3 -c '
import json, sys
text = sys.stdin.read()
try:
    agent = json.loads(text[text.index("{"):text.rindex("}") + 1])
except ValueError:
    sys.exit(print(text))
for rule in agent.get("permission", []):
    print("RULE", json.dumps(rule, sort_keys=True))
print("TOOLS", json.dumps(agent.get("tools"), sort_keys=True))'

echo "=== end to end: the model asks for bash curl"
gateway_start anthropic bash '{"command": "curl --version https://example.com/devint-judge", "description": "judge"}'
run timeout 120 "$TOOL_BIN" run --format json --model anthropic/claude-sonnet-4-5 "devint judge" \
  | grep -o '"type":"error".*\|judge-exit-code: [0-9]*' || true
gateway_stop
