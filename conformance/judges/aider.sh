#!/usr/bin/env bash
# Judge: Aider reads ~/.aider.conf.yml with configargparse (every key a long option).
#   aider --verbose --exit   each key it read from each file, and the options it resolved;
#                            "aider: error: …" (exit 2) when it refuses the file
#   end to end               aider --message with an OpenAI-compatible model, then an Anthropic
#                            one: requests reaching a fake API on the gateway address prove
#                            openai-api-base and set-env's ANTHROPIC_API_BASE; its fetches through
#                            a fake proxy prove set-env's HTTPS_PROXY; a URL in the message that
#                            it does not offer to fetch proves detect-urls: false
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset OPENAI_BASE_URL OPENAI_API_BASE ANTHROPIC_API_BASE ANTHROPIC_BASE_URL HTTPS_PROXY HTTP_PROXY
export NO_PROXY=127.0.0.1,localhost COLUMNS=400
# --yes-always answers Aider's own questions (it would fetch a URL it offers to); with
# --disable-playwright it never tries to install a browser to do so.
offline=(--no-git --no-check-update --no-analytics --no-show-model-warnings --no-show-release-notes
  --no-pretty --yes-always --disable-playwright)

echo "=== aider --verbose --exit"
run timeout 60 "$TOOL_BIN" --verbose --exit "${offline[@]}" \
  --model openai/devint-judge --openai-api-key sk-devint-judge-offline

# Whether the tool loads the file is shown by now; what follows only shows effects.
full || exit 0

proxy_start
echo "=== end to end: an OpenAI-compatible model, a URL in the message"
gateway_start openai-chat
run timeout 90 "$TOOL_BIN" "${offline[@]}" --model openai/devint-judge \
  --openai-api-key sk-devint-judge-offline --message "devint judge: see http://127.0.0.1:9/devint-judge"
gateway_stop
echo "=== end to end: an Anthropic model"
gateway_start anthropic
run timeout 90 env ANTHROPIC_API_KEY=sk-devint-judge-offline "$TOOL_BIN" "${offline[@]}" \
  --model anthropic/claude-sonnet-4-5 --message "devint judge"
gateway_stop
echo "=== what went through the proxy"
proxy_stop
