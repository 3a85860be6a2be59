#!/usr/bin/env bash
# Judge: Pi reads its providers from ~/.pi/agent/models.json.
#   pi --list-models   "Warning: errors loading models.json" when it refuses the file; the
#                      user's own provider (ollama) is listed when it loads it
#   end to end         pi -p with its built-in anthropic provider: the request reaching a fake
#                      Messages API on the gateway address proves the provider's baseUrl
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 NO_PROXY=127.0.0.1,localhost
key=ANTHROPIC_API_KEY=sk-devint-judge-offline

echo "=== pi --list-models"
run timeout 60 env "$key" "$TOOL_BIN" --offline --list-models

# Whether the tool loads the file is shown by now; what follows only shows effects.
full || exit 0

echo "=== end to end: pi -p with the anthropic provider"
gateway_start anthropic
run timeout 90 env "$key" "$TOOL_BIN" --offline -p --no-session \
  --provider anthropic --model claude-sonnet-4-5 "devint judge"
gateway_stop
