#!/usr/bin/env bash
# Judge: GitHub Copilot CLI reads ~/.copilot/settings.json (and its MCP servers in
# ~/.copilot/mcp-config.json).
#   copilot config --list --json  the settings as it read them; "settings.json is not valid JSON"
#                                 when it refuses the file. One value it cannot read empties the
#                                 whole list without a word, so every key devint wrote must come
#                                 back here (each capability's expectation names its key)
#   copilot mcp list              a server in disabledMcpServers is listed "(local, disabled)"
#   end to end                    its own-model route (COPILOT_PROVIDER_BASE_URL, an environment
#                                 variable: not a settings key) points at a fake Messages API on
#                                 the gateway address, which asks for bash `curl … example.com`:
#                                 the hook's log and the URL rule's denial prove the rest
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset COPILOT_HOME GH_TOKEN GITHUB_TOKEN COPILOT_GITHUB_TOKEN HTTPS_PROXY HTTP_PROXY https_proxy http_proxy
export COPILOT_AUTO_UPDATE=false NO_PROXY=127.0.0.1,localhost

echo "=== copilot config --list --json"
run timeout 60 "$TOOL_BIN" config --list --json
echo "=== copilot mcp list"
run timeout 60 "$TOOL_BIN" mcp list

full || exit 0
echo "=== end to end: the model asks for bash curl https://example.com/…"
gateway_start anthropic bash '{"command": "curl --version https://example.com/devint-judge", "description": "judge"}'
run timeout 120 env COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL="$GATEWAY" COPILOT_PROVIDER_TYPE=anthropic \
  COPILOT_PROVIDER_API_KEY=sk-devint-judge-offline COPILOT_MODEL=claude-sonnet-4.6 \
  "$TOOL_BIN" -p "devint judge" --output-format json --allow-all-tools \
  | grep -o '"type":"tool.execution_complete".*"\(error\|result\)":{"[a-z]*":"[^"]*"\|"type":"session.error".*"message":"[^"]*"\|judge-exit-code: [0-9]*' || true
gateway_stop
hook_log
