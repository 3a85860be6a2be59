#!/usr/bin/env bash
# Judge: Mistral Vibe reads ~/.vibe/config.toml (its MCP servers are in it too). It has no
# command that prints its settings; a headless turn (`vibe -p … --output-dir D`) writes
# D/export.json, whose "config" is the configuration it resolved, and exits 1 with "Cannot
# load the Vibe config" when it refuses the file. Each turn's model is a fake Chat
# Completions API on the gateway address:
#   1. it asks for bash `curl …` in a turn launched with --auto-approve (which, unless
#      enable_auto_approve = false forbids it, skips every denylist): the request reaching it
#      proves the gateway (Vibe's mistral provider), and the tool's answer, Vibe's denial,
#      proves the denylist held;
#   2. it asks search_tool_functions for the MCP tools: the seed's two servers each offer
#      judge_echo, and only the server devint did not deny may be found.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset VIBE_HOME XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME HTTPS_PROXY HTTP_PROXY
export MISTRAL_API_KEY=sk-devint-judge-offline
judge_helpers
out="$HOME/.devint-judge/out"

# One headless turn ("$@": more flags); prints its output, exit code and the configuration it
# resolved.
turn() {
  rm -rf "$out"
  run timeout 150 "$TOOL_BIN" -p "devint judge" --output-dir "$out" --time-limit 90 "$@"
  python3 - "$out/export.json" <<'PY'
import json, sys
try:
    export = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    sys.exit(print("(no export.json)"))
config = export.get("config") or {}
print("outcome:", export.get("outcome"))
print("providers:", json.dumps([{"name": p.get("name"), "api_base": p.get("api_base")} for p in config.get("providers", [])]))
for key in ("disabled_tools", "enable_auto_approve", "default_agent"):
    print(f"{key}:", json.dumps(config.get(key)))
print("tools.bash:", json.dumps((config.get("tools") or {}).get("bash")))
PY
}

if ! full; then
  echo "=== vibe -p (loads the settings)"
  gateway_start openai-chat
  turn
  gateway_stop
  exit 0
fi
echo "=== vibe -p --auto-approve: the model asks for bash curl"
gateway_start openai-chat bash '{"command": "curl --version https://example.com/devint-judge"}'
turn --auto-approve
gateway_stop
echo "=== vibe -p: the model searches for the MCP servers' tools"
gateway_start openai-chat search_tool_functions '{"mode": "best_match", "query": "judge echo"}'
turn
gateway_stop
