#!/usr/bin/env bash
# Judge: Amp reads ~/.config/amp/settings.json ("amp."-prefixed keys, JSON with comments).
#   amp mcp list                  "Invalid JSON in settings file" when it refuses the file; it asks
#                                 the Amp service for the account's MCP servers, through amp.proxy
#                                 (a fake proxy on the proxy address logs the CONNECT)
#   amp permissions test …        what Amp decides for one call, and which rule from which source
#                                 decided it ("Invalid permissions configuration" when it refuses
#                                 the rules): curl and a web page rejected by the user's rules, and
#                                 under a catch-all ask rule even `ls` and a web search ask
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME AMP_SETTINGS_FILE AMP_URL HTTPS_PROXY HTTP_PROXY
export AMP_API_KEY=devint-judge-offline

echo "=== amp mcp list (through the proxy)"
proxy_start
run timeout 60 "$TOOL_BIN" mcp list
proxy_stop

# One decision of Amp's permission rules, as `<tool> <arguments>: <action> by <source> rule <rule>`.
decide() {
  local out
  out="$(cd "$PROJECT_DIR" && timeout 60 "$TOOL_BIN" permissions test "$@" --json </dev/null 2>&1)"
  python3 -c '
import json, sys
text = sys.argv[1]
try:
    d = json.loads(text)
except ValueError:
    print(text.strip()); sys.exit()
if "error" in d and "action" not in d:
    print(d["error"]); sys.exit()
print("decision: %s %s: %s by %s rule %s" % (d.get("tool"), json.dumps(d.get("arguments"), sort_keys=True),
      d.get("action"), d.get("source"), json.dumps(d.get("matchedEntry"), sort_keys=True)))
' "$out"
}
echo "=== amp permissions test"
decide shell_command --command "curl http://127.0.0.1:9/devint-judge"
decide read_web_page --url "https://example.com/devint-judge"
decide shell_command --command "ls"
decide web_search --query "devint judge"
