#!/usr/bin/env bash
# Judge: Auggie reads ~/.augment/settings.json (its MCP servers are in it too). It ignores a
# file it cannot parse without a word (tools.toml: rejects_silently), except its hook loader,
# which reads the file leniently: every effect below but the hook is gone then.
#   auggie tools list      a tool in removedTools is listed "disabled"
#   auggie mcp list        the MCP servers it read
#   end to end             Auggie logged in (AUGMENT_SESSION_AUTH, its own login's environment
#                          variable) to a fake Augment service on the gateway address, which
#                          asks for launch-process `curl …`: the tools it is offered show the
#                          removed ones gone, Auggie's answer the toolPermissions rule, and the
#                          hook's log the hook (the fake account has hooks turned on)
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset XDG_CONFIG_HOME XDG_DATA_HOME XDG_CACHE_HOME XDG_STATE_HOME AUGMENT_SESSION_AUTH AUGMENT_API_URL AUGMENT_API_TOKEN
export NO_COLOR=1 NO_PROXY=127.0.0.1,localhost
judge_helpers

echo "=== auggie tools list"
run timeout 60 "$TOOL_BIN" tools list
echo "=== auggie mcp list"
run timeout 60 "$TOOL_BIN" mcp list
full || exit 0

echo "=== end to end: the model asks for launch-process curl"
gateway_start augment launch-process '{"command": "curl --version https://example.com/devint-judge", "wait": true, "max_wait_seconds": 30}'
run timeout 120 env AUGMENT_SESSION_AUTH="{\"accessToken\":\"devint-judge-offline\",\"tenantURL\":\"$GATEWAY/\",\"scopes\":[\"read\",\"write\"]}" \
  "$TOOL_BIN" --print "devint judge"
gateway_stop
hook_log
