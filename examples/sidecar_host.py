#!/usr/bin/env python3
"""A host that has never seen Rust: drives devint through `devint sidecar`.

Python 3 standard library only. It builds a sandbox the way `devint demo` does (a private
/tmp directory with a temporary HOME holding a Claude Code settings file, a fake `claude`
on a private PATH, a state directory, a short socket path), starts the real runtime
(`devint serve`), enrols a client (`devint enrol`, which writes the token to a 0600 file),
then speaks devint.sidecar.v1 (NDJSON JSON-RPC 2.0) to `devint sidecar` over its stdio:

    initialize -> runtime/discover -> session/open -> tools/list -> lifecycle/plan
    -> lifecycle/apply -> lifecycle/status -> lifecycle/remove (preview, then execute)
    -> session/close -> end of input (the sidecar exits 0)

and checks that the settings file is byte-identical at the end. The token never crosses
stdio: the sidecar reads it from the token file. Exit 0 on success, 1 on any failure.

    python3 examples/sidecar_host.py --devint target/debug/devint [--trace FILE] [--keep]

See docs/sidecar-protocol.md for the protocol.
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SETTINGS = """{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "model": "claude-sonnet-4-5",
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Read(~/projects/**)"],
    "deny": ["Read(./.env)", "Read(./secrets/**)"]
  },
  "env": {
    "DISABLE_TELEMETRY": "1"
  },
  "includeCoAuthoredBy": false
}
"""
FAKE_CLAUDE = '#!/bin/sh\necho "2.0.14 (Claude Code)"\n'
GATEWAY = "http://127.0.0.1:4000"  # nothing listens there: only the settings are written
TOOL = "claude-code"


class HostError(Exception):
    """A step of the journey failed."""


class Sandbox:
    """A private directory tree; nothing outside it is read or written."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="dvpy", dir="/tmp")
        os.chmod(self.root, 0o700)
        self.home = os.path.join(self.root, "home")
        self.bin = os.path.join(self.root, "bin")
        self.settings = os.path.join(self.home, ".claude", "settings.json")
        self.socket = os.path.join(self.root, "run", "devint.sock")
        self.state = os.path.join(self.root, "state")
        self.token_file = os.path.join(self.root, "client", "devint.token")
        os.makedirs(os.path.dirname(self.settings), mode=0o700)
        os.makedirs(self.bin)
        with open(self.settings, "w", encoding="utf-8") as f:
            f.write(SETTINGS)
        claude = os.path.join(self.bin, "claude")
        with open(claude, "w", encoding="utf-8") as f:
            f.write(FAKE_CLAUDE)
        os.chmod(claude, 0o755)

    def env(self):
        return {
            "HOME": self.home,
            "PATH": self.bin,
            "AA_DEVINT_SOCKET": self.socket,
            "AA_DEVINT_STATE_DIR": self.state,
            "AA_DEVINT_GATEWAY_URL": GATEWAY,
            "NO_COLOR": "1",
        }

    def remove(self):
        if self.root.startswith("/tmp/dvpy"):
            shutil.rmtree(self.root, ignore_errors=True)


class Sidecar:
    """devint.sidecar.v1 over a child's stdio: requests out, responses and notifications in."""

    def __init__(self, argv, env, trace):
        self.proc = subprocess.Popen(
            argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.next_id = 0
        self.notifications = []
        self.trace = trace

    def _record(self, direction, line):
        if self.trace is not None:
            self.trace.write(json.dumps({"dir": direction, "line": line}) + "\n")

    def call(self, method, params):
        """The result of `method`, or HostError carrying the JSON-RPC error."""
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        self._record("in", line)
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        while True:
            text = self.proc.stdout.readline()
            if not text:
                raise HostError(f"the sidecar ended before answering {method}")
            text = text.rstrip("\n")
            self._record("out", text)
            message = json.loads(text)
            if "id" not in message:
                self.notifications.append(message)
                continue
            if message["id"] != self.next_id:
                raise HostError(f"an answer to request {message['id']} while waiting for {self.next_id}")
            if "error" in message:
                e = message["error"]
                data = e.get("data") or {}
                raise HostError(
                    f"{method} failed: {e['message']} (kind {data.get('kind')}, exit {data.get('exit')}, "
                    f"deny code {data.get('deny_code')}); to fix: {data.get('remediation')}"
                )
            return message["result"]

    def finish(self):
        """Close stdin: the sidecar closes every session and exits 0."""
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        for text in rest.splitlines():
            self._record("out", text)
        code = self.proc.wait(timeout=60)
        if code != 0:
            raise HostError(f"the sidecar exited {code} at the end of its input")


def start_runtime(devint, sandbox, log_path):
    log = open(log_path, "w", encoding="utf-8")
    proc = subprocess.Popen(
        [devint, "serve"], env=sandbox.env(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with open(log_path, encoding="utf-8") as f:
            if "stop with Ctrl-C" in f.read():
                return proc
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    with open(log_path, encoding="utf-8") as f:
        raise HostError(f"devint serve did not start:\n{f.read()}")


def check(condition, what):
    if not condition:
        raise HostError(what)


def journey(devint, sandbox, trace, say):
    original = open(sandbox.settings, "rb").read()
    enrol = subprocess.run(
        [devint, "enrol", "--client", "python-host", "--all-tools", "--verbs", "full",
         "--token-file", sandbox.token_file],
        env=sandbox.env(), capture_output=True, text=True, timeout=60,
    )
    check(enrol.returncode == 0, f"devint enrol failed: {enrol.stderr}")
    say("enrolled client python-host; the token is in a 0600 file the sidecar reads")

    sidecar = Sidecar([devint, "sidecar"], sandbox.env(), trace)
    init = sidecar.call("initialize", {"client_name": "python-host", "client_version": "1.0.0",
                                       "protocols": ["devint.sidecar.v1"]})
    check(init["protocol"] == "devint.sidecar.v1", "the sidecar speaks another protocol")
    say(f"initialize: {init['protocol']}, sidecar {init['sidecar_version']}, "
        f"DI-API {init['di_api']['min_supported']}..{init['di_api']['max_supported']}")

    found = sidecar.call("runtime/discover", {})
    check(found["present"], f"no runtime at {found['socket']}")
    say(f"runtime/discover: {found['socket']} ({found['source']})")

    opened = sidecar.call("session/open", {"client_name": "python-host", "client_version": "1.0.0",
                                           "token_file": sandbox.token_file})
    session = opened["session_id"]
    runtime = opened["runtime"]
    negotiation = opened["negotiation"]
    if negotiation["outcome"] == "degraded":
        say(f"  degraded: {negotiation['degraded_reason']}")
    say(f"session/open: {session}, DI-API v{negotiation['di_api_version']} ({negotiation['outcome']}), "
        f"runtime standing {runtime['standing']}" +
        (f" ({runtime['standing_reason']})" if runtime["standing_reason"] else ""))

    tools = sidecar.call("tools/list", {"session_id": session})
    claude = [t for t in tools["tools"] if t["tool_id"] == TOOL]
    check(claude and claude[0]["detected"], f"{TOOL} is not detected in the sandbox")
    say(f"tools/list: {len(tools['tools'])} tools; {TOOL} detected, version {claude[0]['detected_version']}")

    plan = sidecar.call("lifecycle/plan", {"session_id": session, "tool_id": TOOL, "settings_scope": "user"})
    check(plan["steps"], "the plan has no steps")
    keys = [k for s in plan["steps"] for k in s["managed_keys"]]
    say(f"lifecycle/plan: {len(plan['steps'])} step(s) touching {', '.join(keys)}")

    applied = sidecar.call("lifecycle/apply", {"session_id": session, "tool_id": TOOL, "plan_id": plan["plan_id"]})
    check(applied["plan_id"] == plan["plan_id"], "apply answered for another plan")
    check(applied["outcome"] is None or applied["outcome"]["mutation"] == "changed",
          f"apply did not change the settings: {applied['outcome']}")
    changed = open(sandbox.settings, "rb").read()
    check(changed != original, "the settings file did not change")
    say(f"lifecycle/apply: receipt {applied['receipt_id']}, achieved {applied['achieved_level']}")

    status = sidecar.call("lifecycle/status", {"session_id": session, "tool_id": TOOL})
    check(status["tool_id"] == TOOL and status["observed_at_unix_secs"] > 0, "a status without its time")
    say(f"lifecycle/status: phase {status['phase']}, state {status['state']}, "
        f"achieved {status['achieved_level']} (verified at {status['observed_at_unix_secs']})")

    preview = sidecar.call("lifecycle/remove", {"session_id": session, "tool_id": TOOL})
    removal = sidecar.call("lifecycle/remove", {"session_id": session, "tool_id": TOOL,
                                                "plan_id": preview["plan_id"]})
    check(removal["plan_id"] == preview["plan_id"], "remove executed another plan")
    say(f"lifecycle/remove: previewed and executed {removal['plan_id']}; residual {removal['residual']}")

    closed = sidecar.call("session/close", {"session_id": session})
    check(closed["closed"], "the session did not close")
    sidecar.finish()
    say("session/close, end of input: the sidecar exited 0")

    final = open(sandbox.settings, "rb").read()
    check(final == original, "the settings file is NOT byte-identical to the original")
    say("the settings file is byte-identical to the original")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devint", default=os.environ.get("DEVINT_BIN") or shutil.which("devint"),
                        help="the devint binary (default: $DEVINT_BIN, else devint on PATH)")
    parser.add_argument("--trace", help="write every protocol line, both ways, as JSON lines to FILE")
    parser.add_argument("--keep", action="store_true", help="keep the sandbox directory")
    args = parser.parse_args()
    if not args.devint:
        print("error: no devint binary; pass --devint PATH", file=sys.stderr)
        return 1
    devint = os.path.abspath(args.devint)
    say = lambda text: print(f"[python host] {text}", flush=True)
    sandbox = Sandbox()
    say(f"sandbox {sandbox.root}")
    trace = open(args.trace, "w", encoding="utf-8") if args.trace else None
    runtime = None
    try:
        runtime = start_runtime(devint, sandbox, os.path.join(sandbox.root, "serve.log"))
        say(f"devint serve is running on {sandbox.socket}")
        journey(devint, sandbox, trace, say)
        say("journey complete")
        return 0
    except (HostError, OSError, subprocess.SubprocessError, json.JSONDecodeError, KeyError) as e:
        print(f"[python host] FAILED: {e}", file=sys.stderr, flush=True)
        return 1
    finally:
        if trace is not None:
            trace.close()
        if runtime is not None and runtime.poll() is None:
            runtime.send_signal(signal.SIGTERM)
            try:
                runtime.wait(timeout=30)
            except subprocess.TimeoutExpired:
                runtime.kill()
        if args.keep:
            say(f"sandbox kept at {sandbox.root}")
        else:
            sandbox.remove()


if __name__ == "__main__":
    sys.exit(main())
