#!/usr/bin/env bash
# Judge: Droid reads ~/.factory/settings.json (JSON with comments).
#   droid doctor --config   "✗ ~/.factory/settings.json — …" when it refuses the file
#   droid exec              with the judge's own runtime settings (--settings: a custom model on a
#                           fake Messages API at the gateway address), the model asks for Execute
#                           `curl …` (a blocked command is refused: "matched blocked-command
#                           rule"), then `ls` (the PreToolUse hook runs), then `touch` with
#                           --auto low ("insufficient permission to proceed" when the highest
#                           autonomy allowed is off)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset FACTORY_API_KEY
export NO_PROXY=127.0.0.1,localhost

echo "=== droid doctor --config"
run timeout 60 "$TOOL_BIN" doctor --config

# Whether the tool loads the file is shown by now; what follows only shows effects.
full || exit 0

runtime="$(mktemp --suffix=.json)"
cat > "$runtime" <<JSON
{"customModels": [{"model": "claude-sonnet-4-5", "displayName": "judge", "baseUrl": "$GATEWAY",
  "apiKey": "sk-devint-judge-offline", "provider": "anthropic"}]}
JSON
# Asks the model for one Execute call ($1: the command), and shows what came of it.
execute() {
  gateway_start anthropic Execute "{\"command\": \"$1\", \"riskLevelReason\": \"devint judge\", \"riskLevel\": \"low\"}"
  run timeout 90 "$TOOL_BIN" exec --settings "$runtime" -m custom:judge-0 --auto low -o stream-json "devint judge" \
    | grep -o '"type":"tool_result".*"isError":[a-z]*\|"message":"[^"]*\(\\"[^"]*\)*"\|judge-exit-code: [0-9]*' || true
  gateway_stop
}
echo "=== droid exec: Execute curl"
execute "curl http://127.0.0.1:9/devint-judge"
echo "=== droid exec: Execute ls"
execute "ls"
echo "=== droid exec: Execute touch (a change)"
execute "touch devint-judge-touched"
rm -f "$runtime"
hook_log
