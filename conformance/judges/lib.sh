# Shared by the judges: run a tool command offline and report its exit code; serve a fake
# model API on the policy's gateway address and say which requests reached it; show what the
# policy's pre-tool hook saw. Sourced, never run.
#
# Env (set by conformance/run.py): TOOL_BIN, HOME (the sandbox), PROJECT_DIR, GATEWAY (the
# policy's gateway URL), PROXY (the policy's proxy URL), HOOK_LOG (where the conformance hook
# appends what it was given), JUDGE_DEPTH (`full`: show every effect; `load`: only whether the
# tool loads the file).

: "${TOOL_BIN:?}" "${HOME:?}" "${PROJECT_DIR:?}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Seeds name the judges' MCP server as $JUDGES_DIR/fake_mcp.py (in the tool's own form of an
# environment reference).
export JUDGES_DIR="$HERE"

# Runs "$@" in the project with no input, prints its output and then `judge-exit-code: N`.
run() {
  local rc=0
  (cd "$PROJECT_DIR" && "$@" </dev/null 2>&1) || rc=$?
  echo "judge-exit-code: $rc"
}

# Starts a fake model API (conformance/judges/fake_model.py) on the gateway's address: $1 is
# its wire format, $2 and $3 (optional) the tool it asks for and that tool's arguments. Its
# log (GATEWAY-HIT lines) is printed by `gateway_stop`.
gateway_start() {
  GATEWAY_LOG="$(mktemp)"
  python3 "$HERE/fake_model.py" "$1" "$GATEWAY" "$GATEWAY_LOG" "${@:2}" &
  GATEWAY_PID=$!
  for _ in $(seq 1 50); do
    grep -q '^LISTENING' "$GATEWAY_LOG" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "the fake model API did not start"
}

gateway_stop() {
  kill "$GATEWAY_PID" 2>/dev/null || true
  wait "$GATEWAY_PID" 2>/dev/null || true
  grep -v '^LISTENING' "$GATEWAY_LOG" || true
  rm -f "$GATEWAY_LOG"
}

# Starts a fake proxy (conformance/judges/fake_proxy.py) on the policy's proxy address; its
# log (PROXY-HIT lines: what the tool asked it to reach) is printed by `proxy_stop`.
proxy_start() {
  PROXY_LOG="$(mktemp)"
  python3 "$HERE/fake_proxy.py" "$PROXY" "$PROXY_LOG" &
  PROXY_PID=$!
  for _ in $(seq 1 50); do
    grep -q '^LISTENING' "$PROXY_LOG" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "the fake proxy did not start"
}

proxy_stop() {
  kill "$PROXY_PID" 2>/dev/null || true
  wait "$PROXY_PID" 2>/dev/null || true
  grep -v '^LISTENING' "$PROXY_LOG" || true
  rm -f "$PROXY_LOG"
}

# What the policy's pre-tool hook was given, one HOOK-RAN line per call.
hook_log() {
  if [ -s "${HOOK_LOG:-/nonexistent}" ]; then cat "$HOOK_LOG"; else echo "(the hook did not run)"; fi
}

# Puts the judges' helper programs in the sandbox HOME ($HOME/.devint-judge/), where a seed's
# MCP server definitions can name them (`fake_mcp.py`: an MCP server offering `judge_echo`).
judge_helpers() {
  mkdir -p "$HOME/.devint-judge"
  cp "$HERE/fake_mcp.py" "$HOME/.devint-judge/fake_mcp.py"
}

# Whether the judge is to show every effect (end-to-end runs included), not only load the file.
full() { [ "${JUDGE_DEPTH:-full}" = full ]; }
