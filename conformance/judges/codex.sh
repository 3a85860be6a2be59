#!/usr/bin/env bash
# Judge: Codex CLI reads ~/.codex/config.toml (its own TOML; hooks inline under [hooks]).
#   codex mcp list       "Error: failed to load bootstrap configuration" when it refuses the file
#   codex doctor --all   "model … · devint-gateway", "approval policy OnRequest|Never"
#   app-server hooks/list  every hook Codex registered: event, matcher, command, source file, and
#                        "trustStatus": a hook not trusted in Codex's /hooks screen is skipped
#   end to end           a fake Responses API on the gateway address asks for exec_command `curl …`:
#                        the request reaching it proves the gateway. Run once as is (an untrusted
#                        hook is skipped without a word), then with --dangerously-bypass-hook-trust:
#                        that run proves the hook's shape (Codex runs it and hands it the call),
#                        not that it runs unattended — only a person's trust in /hooks does that.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export NO_COLOR=1 NO_PROXY=127.0.0.1,localhost
key=OPENAI_API_KEY=sk-devint-judge-offline

echo "=== codex mcp list"
run timeout 60 "$TOOL_BIN" mcp list

echo "=== codex doctor --all (Configuration, Connectivity)"
(cd "$PROJECT_DIR" && timeout 60 "$TOOL_BIN" doctor --all </dev/null 2>/dev/null) \
  | awk '/^[A-Z][A-Za-z ]*$/ {section=$0} (section=="Configuration" || section=="Connectivity") && !/enabled flags/'

# Whether the tool loads the file is shown by now; what follows only shows effects.
full || exit 0

echo "=== codex app-server: hooks/list"
{
  printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"devint-judge","title":"devint-judge","version":"0"}}}' \
    '{"jsonrpc":"2.0","method":"initialized"}' \
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"hooks/list\",\"params\":{\"cwds\":[\"$PROJECT_DIR\"]}}"
  sleep 4
} | (cd "$PROJECT_DIR" && timeout 20 "$TOOL_BIN" app-server 2>/dev/null) | grep '"id":2' || echo "(no hooks/list answer)"

# --strict-config: Codex refuses a key it does not know (it only warns otherwise).
# Five connection retries, not unbounded ones: a file that names no gateway gives up in ~30 s.
exec_judge() {
  gateway_start openai-responses exec_command '{"cmd": "curl http://127.0.0.1:9/devint-judge"}'
  run timeout 60 env "$key" "$TOOL_BIN" exec --strict-config --skip-git-repo-check \
    --disable unbounded_connection_retries "$@" "devint judge" \
    | grep -E 'provider:|approval:|hook:|rejected|blocked|unknown configuration|devint-judge-done|judge-exit-code' || true
  gateway_stop | tee "$GATEWAY_SEEN"
}
GATEWAY_SEEN="$(mktemp)"
: > "$HOOK_LOG"
echo "=== end to end: the gateway asks for exec_command curl (the hook as Codex holds it)"
exec_judge
echo "untrusted hook: $(hook_log)"
if grep -q GATEWAY-HIT "$GATEWAY_SEEN"; then
  : > "$HOOK_LOG"
  echo "=== end to end again, with --dangerously-bypass-hook-trust (the hook's shape, not its trust)"
  exec_judge --dangerously-bypass-hook-trust
  echo "hook with trust bypassed: $(hook_log)"
fi
rm -f "$GATEWAY_SEEN"
