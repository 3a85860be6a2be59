#!/usr/bin/env bash
# Judge: cn (Continue's CLI) reads its tool policies from ~/.continue/permissions.yaml.
#   cn -p --verbose   a run without a terminal, with the judge's own model config (--config) on
#                     a fake Chat Completions API at the gateway address, which asks for Bash
#                     `curl …`; cn.log says whether cn loaded the policies ("Loaded permissions
#                     from YAML"; "Failed to load permissions YAML" when it refuses the file,
#                     which it then ignores) and which tools it offered ("Tools prepared"); the
#                     session it saves records a call a policy denied ("Command blocked by
#                     security policy")
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset CONTINUE_GLOBAL_DIR CONTINUE_API_BASE
export NO_PROXY=127.0.0.1,localhost
log="$HOME/.continue/logs/cn.log"
sessions="$HOME/.continue/sessions"
rm -f "$log"
rm -rf "$sessions"
config="$(mktemp --suffix=.yaml)"
cat > "$config" <<YAML
name: devint-judge
version: 1.0.0
schema: v1
models:
  - name: judge
    provider: openai
    model: gpt-4o
    apiBase: $GATEWAY
    apiKey: sk-devint-judge-offline
    roles: [chat]
YAML

echo "=== cn -p: the model asks for Bash curl"
gateway_start openai-chat Bash '{"command": "curl http://127.0.0.1:9/devint-judge"}'
run timeout 90 "$TOOL_BIN" -p "devint judge" --config "$config" --verbose
gateway_stop
rm -f "$config"
echo "=== cn.log: permissions and the tools offered"
grep -o 'Loaded permissions from YAML.*\|Failed to load permissions YAML\|Invalid permissions YAML structure\|Tools prepared.*' "$log" \
  || echo "(no permission lines in cn.log)"
echo "=== the saved session: denied calls"
grep -rho 'Command blocked by security policy\|Permission denied by user' "$sessions" 2>/dev/null | sort | uniq -c \
  || echo "(no denied call)"
