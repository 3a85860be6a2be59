#!/usr/bin/env bash
# Judge: Claude Code reads ~/.claude/settings.json (and its MCP servers in ~/.claude.json).
#   claude doctor    "Invalid settings" when it refuses the file; "… via HTTPS_PROXY" for the proxy
#   claude mcp list  a server in deniedMcpServers is absent
#   claude -p init   asked for bypassPermissions: "permissionMode":"default" when bypass is disabled;
#                    its --debug-file lists the deny rules it loaded ("Adding N deny rule(s)")
#   end to end       a fake Messages API on the gateway address asks for Bash `curl …`: the request
#                    reaching it proves the gateway; the denial and the hook's log prove the rest
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export NO_COLOR=1 IS_SANDBOX=1 CLAUDE_CODE_MAX_RETRIES=0 NO_PROXY=127.0.0.1,localhost
key=ANTHROPIC_API_KEY=sk-devint-judge-offline

echo "=== claude doctor"
run timeout 60 "$TOOL_BIN" doctor
echo "=== claude mcp list"
run timeout 60 "$TOOL_BIN" mcp list

echo "=== claude -p (asks for bypassPermissions)"
debug="$(mktemp)"
run timeout 60 env "$key" "$TOOL_BIN" -p "devint judge" --output-format stream-json --verbose \
  --no-session-persistence --permission-mode bypassPermissions --debug-file "$debug" \
  | grep -o '"permissionMode":"[A-Za-z]*"\|judge-exit-code: [0-9]*' || true
echo "=== permission rules loaded"
grep -o 'Applying permission update: .*' "$debug" || echo "(none)"
rm -f "$debug"

full || exit 0
echo "=== end to end: the gateway asks for Bash curl"
gateway_start anthropic Bash '{"command": "curl http://127.0.0.1:9/devint-judge", "description": "judge"}'
run timeout 90 env "$key" "$TOOL_BIN" -p "devint judge" --output-format stream-json --verbose \
  --no-session-persistence \
  | grep -o '"message":"Permission to use [^"]*"\|"result":"[^"]*"\|judge-exit-code: [0-9]*' || true
gateway_stop
hook_log
