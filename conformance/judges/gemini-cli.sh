#!/usr/bin/env bash
# Judge: Gemini CLI reads ~/.gemini/settings.json.
# The project folder is marked trusted (GEMINI_CLI_TRUST_WORKSPACE=true): folder trust is on by
# default, and in a folder Gemini CLI does not trust it skips hooks and MCP servers from every
# settings file, forces the default approval mode and refuses headless runs — a user must trust
# the folder for devint's keys to act, and so must the judge.
#   gemini mcp list          "⛔ <server>: … - Blocked" for a server in mcp.excluded;
#                            "Error in …settings.json" (exit 52) when it refuses the file
#   gemini -d -p '/policies list'  "Hook registry initialized with N hook entries" and the policy
#                            engine's rules ("DENY tool: mcp_<server>_*")
#   end to end               --fake-responses-non-strict replays model turns from a file (nothing
#                            leaves the machine): list_directory (the BeforeTool hook is handed the
#                            call), then write_file (headless, a tool that needs approval is not
#                            offered: "not found" under the default mode, written under auto_edit);
#                            again with --approval-mode yolo, which disableYoloMode refuses
set -uo pipefail
. "$(dirname "$0")/lib.sh"
export NO_COLOR=1 GEMINI_CLI_TRUST_WORKSPACE=true GEMINI_API_KEY=devint-judge-offline
turns="$(mktemp -d)"
export TMPDIR="$turns"
answer() { printf '{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[%s]},"finishReason":"STOP","index":0}]}]}\n' "$1"; }
answer '{"text":"devint-judge-done"}' > "$turns/done.jsonl"
{
  answer '{"functionCall":{"name":"list_directory","args":{"dir_path":"."}}}'
  answer '{"functionCall":{"name":"write_file","args":{"file_path":"devint-judge.txt","content":"judge"}}}'
  answer '{"text":"devint-judge-done"}'
} > "$turns/calls.jsonl"
noise='256-color|Ripgrep|STARTUP|MCP issues detected'

echo "=== gemini mcp list"
run timeout 60 "$TOOL_BIN" mcp list | grep -Ev "$noise"
echo "=== gemini -d -p '/policies list'"
run timeout 60 "$TOOL_BIN" -d --fake-responses-non-strict "$turns/done.jsonl" -m gemini-2.5-flash -p "/policies list" \
  | grep -E '^\*\*Active|^### |^[0-9]+\. \*\*(DENY|ASK_USER)|Hook registry|Error in|Invalid|Warning: [a-z]|judge-exit-code'

# Whether the tool loads the file is shown by now; what follows only shows effects.
full || { rm -rf "$turns"; exit 0; }

for mode in settings yolo; do
  flag=(); [ "$mode" = yolo ] && flag=(--approval-mode yolo)
  : > "$HOOK_LOG"
  echo "=== end to end, approval mode: $mode"
  run timeout 60 "$TOOL_BIN" --fake-responses-non-strict "$turns/calls.jsonl" -m gemini-2.5-flash "${flag[@]}" \
    -o stream-json -p "devint judge" | grep -E '"type":"tool_result"|YOLO mode|Error in|judge-exit-code'
  echo "hook ($mode): $(hook_log)"
  rm -f "$PROJECT_DIR/devint-judge.txt"
done
rm -rf "$turns"
