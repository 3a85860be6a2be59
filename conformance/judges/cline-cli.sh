#!/usr/bin/env bash
# Judge: Cline CLI reads ~/.cline/data/settings/global-settings.json. It has no command that
# prints its settings without a terminal (`cline config` opens its interface), and reads a file
# it cannot parse as no settings without a word (tools.toml: rejects_silently). A prompt run
# (`cline "<prompt>"`, auto-approve on by default) against a fake Chat Completions API on the
# gateway address shows what it read: the tools it offers (a disabledTools entry is never
# offered), and its answer to run_commands `curl …` (with toolAutoApprove false it refuses to
# run it without a terminal to ask in). The model route is the judge's own: `cline auth` writes
# it into providers.json, a file devint does not touch. Each run starts Cline's hub daemon;
# `cline hub stop` ends it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset XDG_CONFIG_HOME XDG_DATA_HOME CLINE_DIR CLINE_DATA_DIR CLINE_GLOBAL_SETTINGS_PATH \
  CLINE_MCP_SETTINGS_PATH CLINE_PROVIDER_SETTINGS_PATH
export NO_COLOR=1 NO_PROXY=127.0.0.1,localhost

run timeout 60 "$TOOL_BIN" auth -p openai -k sk-devint-judge-offline -m devint-judge -b "$GATEWAY" >/dev/null
echo "=== cline \"devint judge\": the model asks for run_commands curl"
gateway_start openai-chat run_commands '{"commands": ["curl --version https://example.com/devint-judge"]}'
run timeout 120 "$TOOL_BIN" --json "devint judge" | grep -o '"type":"run_result".*"finishReason":"[a-z_]*"\|judge-exit-code: [0-9]*'
gateway_stop
run timeout 30 "$TOOL_BIN" hub stop >/dev/null
