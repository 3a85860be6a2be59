#!/usr/bin/env node
// A host that has never seen Rust: drives devint through `devint sidecar`.
//
// Node.js, no dependencies. It builds a sandbox the way `devint demo` does (a private /tmp
// directory with a temporary HOME holding a Claude Code settings file, a fake `claude` on a
// private PATH, a state directory, a short socket path), starts the real runtime
// (`devint serve`), enrols a client (`devint enrol`, which writes the token to a 0600 file),
// then speaks devint.sidecar.v1 (NDJSON JSON-RPC 2.0) to `devint sidecar` over its stdio:
//
//   initialize -> runtime/discover -> session/open -> tools/list -> lifecycle/plan
//   -> lifecycle/apply -> lifecycle/status -> lifecycle/remove (preview, then execute)
//   -> session/close -> end of input (the sidecar exits 0)
//
// and checks that the settings file is byte-identical at the end. The token never crosses
// stdio: the sidecar reads it from the token file. Exit 0 on success, 1 on any failure.
//
//   node examples/sidecar_host.mjs --devint target/debug/devint [--trace FILE] [--keep]
//
// See docs/sidecar-protocol.md for the protocol.

import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import fs from "node:fs";
import path from "node:path";

const SETTINGS = `{
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
`;
const FAKE_CLAUDE = '#!/bin/sh\necho "2.0.14 (Claude Code)"\n';
const GATEWAY = "http://127.0.0.1:4000"; // nothing listens there: only the settings are written
const TOOL = "claude-code";

class HostError extends Error {}

function check(condition, what) {
  if (!condition) throw new HostError(what);
}

function say(text) {
  console.log(`[node host] ${text}`);
}

function parseArgs(argv) {
  const args = { devint: process.env.DEVINT_BIN || "devint", trace: null, keep: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--devint") args.devint = argv[++i];
    else if (argv[i] === "--trace") args.trace = argv[++i];
    else if (argv[i] === "--keep") args.keep = true;
    else throw new HostError(`unknown argument ${argv[i]} (use --devint PATH, --trace FILE, --keep)`);
  }
  return args;
}

/** A private directory tree; nothing outside it is read or written. */
class Sandbox {
  constructor() {
    this.root = fs.mkdtempSync("/tmp/dvjs");
    fs.chmodSync(this.root, 0o700);
    this.home = path.join(this.root, "home");
    this.bin = path.join(this.root, "bin");
    this.settings = path.join(this.home, ".claude", "settings.json");
    this.socket = path.join(this.root, "run", "devint.sock");
    this.state = path.join(this.root, "state");
    this.tokenFile = path.join(this.root, "client", "devint.token");
    fs.mkdirSync(path.dirname(this.settings), { recursive: true, mode: 0o700 });
    fs.mkdirSync(this.bin);
    fs.writeFileSync(this.settings, SETTINGS);
    fs.writeFileSync(path.join(this.bin, "claude"), FAKE_CLAUDE, { mode: 0o755 });
  }

  env() {
    return {
      HOME: this.home,
      PATH: this.bin,
      AA_DEVINT_SOCKET: this.socket,
      AA_DEVINT_STATE_DIR: this.state,
      AA_DEVINT_GATEWAY_URL: GATEWAY,
      NO_COLOR: "1",
    };
  }

  remove() {
    if (this.root.startsWith("/tmp/dvjs")) fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** devint.sidecar.v1 over a child's stdio: requests out, responses and notifications in. */
class Sidecar {
  constructor(devint, env, trace) {
    this.proc = spawn(devint, ["sidecar"], { env, stdio: ["pipe", "pipe", "inherit"] });
    this.trace = trace;
    this.nextId = 0;
    this.waiting = new Map();
    this.notifications = [];
    this.exited = new Promise((resolve) => this.proc.on("exit", (code) => resolve(code)));
    this.ended = false;
    const lines = createInterface({ input: this.proc.stdout });
    lines.on("line", (line) => this.onLine(line));
    lines.on("close", () => {
      this.ended = true;
      for (const [, pending] of this.waiting) pending.reject(new HostError("the sidecar ended before answering"));
      this.waiting.clear();
    });
  }

  record(dir, line) {
    if (this.trace !== null) fs.appendFileSync(this.trace, JSON.stringify({ dir, line }) + "\n");
  }

  onLine(line) {
    this.record("out", line);
    const message = JSON.parse(line);
    if (!("id" in message)) {
      this.notifications.push(message);
      return;
    }
    const pending = this.waiting.get(message.id);
    if (pending === undefined) throw new HostError(`an answer to no request: ${line}`);
    this.waiting.delete(message.id);
    if ("error" in message) {
      const data = message.error.data || {};
      pending.reject(
        new HostError(
          `${pending.method} failed: ${message.error.message} (kind ${data.kind}, exit ${data.exit}, ` +
            `deny code ${data.deny_code}); to fix: ${data.remediation}`,
        ),
      );
    } else {
      pending.resolve(message.result);
    }
  }

  /** The result of `method`; rejects with the JSON-RPC error. */
  call(method, params) {
    if (this.ended) return Promise.reject(new HostError(`the sidecar ended before ${method}`));
    const id = ++this.nextId;
    const line = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    this.record("in", line);
    const answer = new Promise((resolve, reject) => this.waiting.set(id, { method, resolve, reject }));
    this.proc.stdin.write(line + "\n");
    return answer;
  }

  /** Close stdin: the sidecar closes every session and exits 0. */
  async finish() {
    this.proc.stdin.end();
    const code = await this.exited;
    check(code === 0, `the sidecar exited ${code} at the end of its input`);
  }
}

async function startRuntime(devint, sandbox) {
  const log = path.join(sandbox.root, "serve.log");
  const out = fs.openSync(log, "w");
  const proc = spawn(devint, ["serve"], { env: sandbox.env(), stdio: ["ignore", out, out] });
  let exited = null;
  proc.on("exit", (code) => (exited = code));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (fs.readFileSync(log, "utf8").includes("stop with Ctrl-C")) return proc;
    if (exited !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new HostError(`devint serve did not start:\n${fs.readFileSync(log, "utf8")}`);
}

async function journey(devint, sandbox, trace) {
  const original = fs.readFileSync(sandbox.settings);
  const enrol = spawnSync(
    devint,
    ["enrol", "--client", "node-host", "--all-tools", "--verbs", "full", "--token-file", sandbox.tokenFile],
    { env: sandbox.env(), encoding: "utf8", timeout: 60_000 },
  );
  check(enrol.status === 0, `devint enrol failed: ${enrol.stderr}`);
  say("enrolled client node-host; the token is in a 0600 file the sidecar reads");

  const sidecar = new Sidecar(devint, sandbox.env(), trace);
  const init = await sidecar.call("initialize", {
    client_name: "node-host",
    client_version: "1.0.0",
    protocols: ["devint.sidecar.v1"],
  });
  check(init.protocol === "devint.sidecar.v1", "the sidecar speaks another protocol");
  say(`initialize: ${init.protocol}, sidecar ${init.sidecar_version}, DI-API ${init.di_api.min_supported}..${init.di_api.max_supported}`);

  const found = await sidecar.call("runtime/discover", {});
  check(found.present, `no runtime at ${found.socket}`);
  say(`runtime/discover: ${found.socket} (${found.source})`);

  const opened = await sidecar.call("session/open", {
    client_name: "node-host",
    client_version: "1.0.0",
    token_file: sandbox.tokenFile,
  });
  const session = opened.session_id;
  const { runtime, negotiation } = opened;
  if (negotiation.outcome === "degraded") say(`  degraded: ${negotiation.degraded_reason}`);
  say(
    `session/open: ${session}, DI-API v${negotiation.di_api_version} (${negotiation.outcome}), ` +
      `runtime standing ${runtime.standing}${runtime.standing_reason ? ` (${runtime.standing_reason})` : ""}`,
  );

  const tools = await sidecar.call("tools/list", { session_id: session });
  const claude = tools.tools.find((t) => t.tool_id === TOOL);
  check(claude && claude.detected, `${TOOL} is not detected in the sandbox`);
  say(`tools/list: ${tools.tools.length} tools; ${TOOL} detected, version ${claude.detected_version}`);

  const plan = await sidecar.call("lifecycle/plan", { session_id: session, tool_id: TOOL, settings_scope: "user" });
  check(plan.steps.length > 0, "the plan has no steps");
  say(`lifecycle/plan: ${plan.steps.length} step(s) touching ${plan.steps.flatMap((s) => s.managed_keys).join(", ")}`);

  const applied = await sidecar.call("lifecycle/apply", { session_id: session, tool_id: TOOL, plan_id: plan.plan_id });
  check(applied.plan_id === plan.plan_id, "apply answered for another plan");
  check(applied.outcome === null || applied.outcome.mutation === "changed", "apply did not change the settings");
  check(!fs.readFileSync(sandbox.settings).equals(original), "the settings file did not change");
  say(`lifecycle/apply: receipt ${applied.receipt_id}, achieved ${applied.achieved_level}`);

  const status = await sidecar.call("lifecycle/status", { session_id: session, tool_id: TOOL });
  check(status.tool_id === TOOL && status.observed_at_unix_secs > 0, "a status without its time");
  say(`lifecycle/status: phase ${status.phase}, state ${status.state}, achieved ${status.achieved_level} (verified at ${status.observed_at_unix_secs})`);

  const preview = await sidecar.call("lifecycle/remove", { session_id: session, tool_id: TOOL });
  const removal = await sidecar.call("lifecycle/remove", { session_id: session, tool_id: TOOL, plan_id: preview.plan_id });
  check(removal.plan_id === preview.plan_id, "remove executed another plan");
  say(`lifecycle/remove: previewed and executed ${removal.plan_id}; residual [${removal.residual.join(", ")}]`);

  const closed = await sidecar.call("session/close", { session_id: session });
  check(closed.closed === true, "the session did not close");
  await sidecar.finish();
  say("session/close, end of input: the sidecar exited 0");

  check(fs.readFileSync(sandbox.settings).equals(original), "the settings file is NOT byte-identical to the original");
  say("the settings file is byte-identical to the original");
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`error: ${e.message}`);
    return 1;
  }
  const devint = args.devint.includes("/") ? path.resolve(args.devint) : args.devint;
  const sandbox = new Sandbox();
  say(`sandbox ${sandbox.root}`);
  if (args.trace !== null) fs.writeFileSync(args.trace, "");
  let runtime = null;
  try {
    runtime = await startRuntime(devint, sandbox);
    say(`devint serve is running on ${sandbox.socket}`);
    await journey(devint, sandbox, args.trace);
    say("journey complete");
    return 0;
  } catch (e) {
    console.error(`[node host] FAILED: ${e.message}`);
    return 1;
  } finally {
    if (runtime !== null && runtime.exitCode === null) {
      const stopped = new Promise((r) => runtime.on("exit", r));
      runtime.kill("SIGTERM");
      await Promise.race([stopped, new Promise((r) => setTimeout(r, 30_000))]);
    }
    if (args.keep) say(`sandbox kept at ${sandbox.root}`);
    else sandbox.remove();
  }
}

process.exitCode = await main();
