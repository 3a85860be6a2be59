#!/bin/bash
# Records the README's journey verbatim: every command as typed, then its output.
# Usage: crates/devint-cli/journey.sh [DEVINT_DIR]   (DEVINT_DIR holds the `devint` binary,
# default target/release). Runs in a throwaway HOME=/tmp/me with a stand-in `claude`; it
# starts its own runtime there and stops it at the end. Paste its output into README.md.
set -u
bin_dir=$(cd "${1:-target/release}" && pwd)
export HOME=/tmp/me PATH="/tmp/me/bin:$bin_dir:/usr/bin:/bin" COLUMNS=100 NO_COLOR=1
unset AA_DEVINT_SOCKET AA_DEVINT_STATE_DIR AA_DEVINT_TOKEN_FILE AA_DEVINT_TOKEN
rm -rf /tmp/me && mkdir -p /tmp/me/.claude /tmp/me/bin
printf '#!/bin/sh\necho "2.0.14 (Claude Code)"\n' > /tmp/me/bin/claude && chmod +x /tmp/me/bin/claude
printf '{\n  "model": "claude-sonnet-4-5",\n  "env": { "DISABLE_TELEMETRY": "1" }\n}\n' > /tmp/me/.claude/settings.json
cd /tmp/me
run() { echo "\$ $*"; eval "$@" 2>&1; }
devint serve --gateway-url http://127.0.0.1:4000 > /tmp/me/serve.out 2> /tmp/me/serve.err &
serve_pid=$!
trap 'kill $serve_pid 2>/dev/null' EXIT
# Ready once it has said everything it says at start (the socket exists a moment earlier).
for _ in $(seq 100); do grep -q 'stop with Ctrl-C' /tmp/me/serve.out 2>/dev/null && break; sleep 0.1; done
echo '$ devint serve --gateway-url http://127.0.0.1:4000 &'
cat /tmp/me/serve.out
run devint enrol --client cli --all-tools --verbs full
run devint status
out=$(devint plan claude-code --scope user 2>&1)
echo '$ devint plan claude-code --scope user'; echo "$out"
id=$(echo "$out" | sed -n 's/^  devint apply claude-code --plan //p')
run devint apply claude-code --plan "$id" --yes
run devint verify claude-code
run devint status
run "sed -i 's|127.0.0.1:4000|127.0.0.1:9999|' ~/.claude/settings.json   # something changes our value"
echo '$ devint status claude-code'; devint status claude-code 2>&1; code=$?; echo '$ echo $?'; echo $code
run devint repair claude-code --yes
run devint remove claude-code --yes
run devint whoami
