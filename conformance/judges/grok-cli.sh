#!/usr/bin/env bash
# Judge: Grok CLI reads ~/.grok/user-settings.json ("settingsVersion": 2 in the seed: an older
# file is migrated and rewritten on load). It has no command that prints its settings; a
# headless turn (`grok -p`) sends its model request to the baseURL it read, here a fake Chat
# Completions API on the gateway address. A file it cannot parse it reports as "Failed to load
# user settings" and falls back to its defaults (api.x.ai, unreachable offline).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset GROK_BASE_URL GROK_API_KEY GROK_MODEL
export NO_COLOR=1 NO_PROXY=127.0.0.1,localhost

echo "=== grok -p (one headless turn)"
gateway_start openai-chat
run timeout 60 "$TOOL_BIN" -p "devint judge"
gateway_stop
