#!/usr/bin/env python3
"""Real-tool conformance: the tools themselves judge what devint writes.

For every tool in conformance/tools.toml that a package registry carries, this installs the
pinned release (cached between runs), then, in a sandbox HOME with a real `devint serve`:

1. detection: `devint status` finds the tool and reads its version from the real
   `--version` output, although the runtime's PATH holds no interpreter (the executable's
   own folder must be put first on PATH, as for an nvm or pipx install);
2. for the recommended and the strict profile of a policy that asks for everything
   (gateway, proxy, hook, a denied MCP server, deny rules): plan, apply, verify, then
   the tool's own offline judge must accept the file and show each effect the plan wrote;
   the same judge must reject the file broken on purpose; after `devint remove` the file
   is byte-identical to what the user had, and the judge still loads it;
3. the claims: every mechanism `devint tools` reports as supported for the tool was shown
   by the judge.

Standard library only (Python 3.11+: tomllib). Prints one line per check and a summary;
exits 1 when a check fails. Nothing here touches the real HOME: every tool runs with the
sandbox's.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The values the conformance policy asks for; judges' expectations name them as {gateway},
# {proxy}, {hook}, {blocked_mcp}, {allowed_mcp}. The hook is a script in each sandbox that
# logs what the tool gave it.
VALUES = {
    # Ports free when the run starts: runs side by side never share a gateway or a proxy.
    "gateway": f"http://127.0.0.1:{free_port()}/devint-gateway",
    "proxy": f"http://127.0.0.1:{free_port()}",
    "hook": "devint-conformance-hook",
    "blocked_mcp": "devint-blocked",
    "allowed_mcp": "devint-allowed",
}

HOOK_SCRIPT = r"""#!/bin/sh
# The conformance policy's pre-tool hook: logs one line per call, allows it.
printf 'HOOK-RAN %s\n' "$(tr -d '\n' | head -c 2000)" >> "$(dirname "$0")/hook.log"
exit 0
"""


def policy(hook: Path, extra_deny: list[str]) -> str:
    """The conformance policy: everything a profile can ask of a tool, with the tool's
    `extra_deny` rules after the common ones (a tool whose settings express only narrowed
    forms, e.g. a web fetch by domain, is judged on one of those)."""
    deny = ", ".join(json.dumps(r) for r in ["shell:curl", "web_fetch", *extra_deny])
    return f"""display_name = "Conformance"
gateway_base_url = "{VALUES['gateway']}"
proxy_url = "{VALUES['proxy']}"
hook_command = "{hook}"
mcp_deny = ["{VALUES['blocked_mcp']}"]
deny = [{deny}]
"""


# The capabilities whose keys devint writes, as plan steps name them.
MECHANISMS = [
    "model_gateway_base_url",
    "http_proxy",
    "hooks",
    "mcp_governance",
    "tool_action_approval",
]

# How a file of each format is broken on purpose: appended text its parser must refuse.
BREAKERS = {
    ".json": "\n{ \"devint-conformance\": oops\n",
    ".jsonc": "\n{ \"devint-conformance\": oops\n",
    ".toml": "\n[devint-conformance\nbroken = = 1\n",
    ".yml": "\ndevint-conformance: [unclosed\n",
    ".yaml": "\ndevint-conformance: [unclosed\n",
}


def log(line: str) -> None:
    print(line, flush=True)


@dataclass
class Tool:
    """One entry of tools.toml."""

    id: str
    entry: dict

    @property
    def installable(self) -> bool:
        return self.entry.get("registry") in ("npm", "pypi")

    @property
    def version(self) -> str:
        return self.entry["version"]

    @property
    def expected_version(self) -> str:
        """The version detection must read (the release's own --version may differ from
        the package version)."""
        return self.entry.get("reports_version", self.version)

    @property
    def settings(self) -> str:
        """The user settings file devint edits, relative to HOME."""
        return self.entry["settings"]


@dataclass
class Result:
    tool: str
    failures: list[str] = field(default_factory=list)
    passes: int = 0
    note: str = ""
    seconds: float = 0.0

    def check(self, ok: bool, what: str, detail: str = "") -> bool:
        if ok:
            self.passes += 1
            log(f"  ok    {what}")
        else:
            self.failures.append(what)
            log(f"  FAIL  {what}")
            if detail:
                for line in detail.strip().splitlines()[-25:]:
                    log(f"        | {line}")
        return ok


# --- installation -----------------------------------------------------------------------


def python_for(requirement: str | None) -> str | None:
    """An interpreter satisfying `requirement` ("3.12", or None for this one)."""
    if requirement is None:
        return sys.executable
    candidates = [shutil.which(f"python{requirement}")]
    pyenv = Path.home() / ".pyenv" / "versions"
    if pyenv.is_dir():
        candidates += sorted(
            (str(p / "bin" / f"python{requirement}") for p in pyenv.glob(f"{requirement}*")),
            reverse=True,
        )
    # A candidate must run: a pyenv shim exists for every version pyenv has, but answers only
    # for the one its configuration selects.
    for c in candidates:
        if c and Path(c).exists() and subprocess.run(
            [c, "-c", "pass"], capture_output=True, timeout=60,
        ).returncode == 0:
            return c
    return None


def install(tool: Tool, cache: Path) -> tuple[Path | None, str]:
    """The installed release's directory (cached), or why it cannot be installed here."""
    e = tool.entry
    target = cache / e["registry"] / f"{tool.id}@{tool.version}"
    done = target / ".installed"
    if done.exists():
        return target, ""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    started = time.monotonic()
    if e["registry"] == "npm":
        cmd = [
            "npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
            "--prefix", str(target), f"{e['package']}@{tool.version}",
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
        if proc.returncode != 0:
            shutil.rmtree(target)
            return None, f"npm install failed: {proc.stderr.strip()[-400:]}"
    elif e["registry"] == "pypi" and e.get("requirement_fixes"):
        return install_fixed_requirements(tool, target, started)
    else:
        python = python_for(e.get("python"))
        if python is None:
            shutil.rmtree(target)
            return None, f"needs Python {e['python']}, and no python{e['python']} is on this machine"
        subprocess.run([python, "-m", "venv", str(target)], check=True, timeout=300)
        pip = [str(target / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check"]
        for pre in e.get("pip_first", []):
            proc = subprocess.run(pip + [pre], capture_output=True, text=True, timeout=1800)
            if proc.returncode != 0:
                shutil.rmtree(target)
                return None, f"pip install {pre} failed: {proc.stderr.strip()[-400:]}"
        extra = ["--no-deps"] if e.get("pip_no_deps") else []
        proc = subprocess.run(
            pip + extra + [f"{e['package']}=={tool.version}"],
            capture_output=True, text=True, timeout=1800,
        )
        if proc.returncode != 0:
            shutil.rmtree(target)
            return None, f"pip install failed: {proc.stderr.strip()[-400:]}"
    done.write_text(f"{time.monotonic() - started:.0f}s\n")
    return target, ""


def install_fixed_requirements(tool: Tool, target: Path, started: float) -> tuple[Path | None, str]:
    """A Python release whose own requirement pins cannot be installed as published (a pin
    the index does not have): its requirements with `requirement_fixes` applied, then the
    package itself without dependencies."""
    e = tool.entry
    python = python_for(e.get("python"))
    if python is None:
        shutil.rmtree(target)
        return None, f"needs Python {e['python']}, and no python{e['python']} is on this machine"
    subprocess.run([python, "-m", "venv", str(target)], check=True, timeout=300)
    pip = [str(target / "bin" / "pip"), "--disable-pip-version-check"]
    wheels = target / "wheel"
    proc = subprocess.run(pip + ["download", "--no-deps", "--quiet", "-d", str(wheels),
                                 f"{e['package']}=={tool.version}"], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        shutil.rmtree(target)
        return None, f"pip download failed: {proc.stderr.strip()[-400:]}"
    import zipfile
    wheel = next(wheels.glob("*.whl"))
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        lines = z.read(meta).decode().splitlines()
    requirements = [
        l.split(":", 1)[1].strip() for l in lines
        if l.startswith("Requires-Dist:") and "extra ==" not in l
    ]
    fixes = e["requirement_fixes"]
    requirements = [fixes.get(r, r) for r in requirements]
    (target / "requirements.txt").write_text("\n".join(requirements) + "\n")
    for args in (["-r", str(target / "requirements.txt")], ["--no-deps", str(wheel)]):
        proc = subprocess.run(pip + ["install", "--quiet"] + args, capture_output=True, text=True, timeout=1800)
        if proc.returncode != 0:
            shutil.rmtree(target)
            return None, f"pip install failed: {proc.stderr.strip()[-400:]}"
    (target / ".installed").write_text(f"{time.monotonic() - started:.0f}s\n")
    return target, ""


def node_for(tool: Tool, cache: Path) -> str:
    """The node the tool runs with: the machine's, or the major version `node` names,
    installed from the npm registry into the cache."""
    major = tool.entry.get("node")
    if major is None:
        node = shutil.which("node")
        assert node, "node is needed for npm tools"
        return node
    prefix = cache / "npm" / f"node@{major}"
    node = prefix / "node_modules" / ".bin" / "node"
    (cache / "npm").mkdir(parents=True, exist_ok=True)
    # Tools judged side by side may share one node: the first installs it, the others wait.
    with open(cache / "npm" / f"node@{major}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (prefix / ".installed").exists():
            prefix.mkdir(parents=True, exist_ok=True)
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix",
                            str(prefix), f"node@{major}"], check=True, capture_output=True, timeout=900)
            (prefix / ".installed").write_text("ok\n")
    return str(node.resolve())


def tool_bin(tool: Tool, installed: Path) -> Path:
    bin_name = tool.entry["bin"]
    if tool.entry["registry"] == "npm":
        return installed / "node_modules" / ".bin" / bin_name
    return installed / "bin" / bin_name


def lay_out(tool: Tool, installed: Path, home: Path, node: str | None) -> Path:
    """Puts the tool where users' installers put it, in a folder the runtime's PATH does
    not hold: npm tools under nvm's layout (with their interpreter beside them), Python
    tools as pipx links them. Returns the directory the tool's executable is in."""
    real = tool_bin(tool, installed)
    if tool.entry["registry"] == "npm":
        assert node
        version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout.strip()
        bindir = home / ".nvm" / "versions" / "node" / version / "bin"
        bindir.mkdir(parents=True, exist_ok=True)
        (bindir / "node").symlink_to(node)
    else:
        bindir = home / ".local" / "bin"
        bindir.mkdir(parents=True, exist_ok=True)
    (bindir / tool.entry["bin"]).symlink_to(real)
    return bindir


# --- the runtime ------------------------------------------------------------------------


class Runtime:
    """A `devint serve` in the sandbox, and the `devint` commands that talk to it."""

    def __init__(self, devint: Path, sandbox: Path, home: Path, bindir: Path, extra_deny: list[str]):
        self.devint = devint
        self.home = home
        self.state = sandbox / "state"
        self.socket = sandbox / "run" / "devint.sock"
        self.socket.parent.mkdir(mode=0o700)
        self.bindir = bindir
        self.env = {
            "HOME": str(home),
            # No interpreter on the runtime's PATH: detection must find the tool in its
            # install folder and run it with that folder first on PATH.
            "PATH": "/nonexistent",
            "AA_DEVINT_SOCKET": str(self.socket),
            "AA_DEVINT_STATE_DIR": str(self.state),
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
        }
        log_file = open(sandbox / "serve.log", "w")
        self.proc = subprocess.Popen(
            [str(devint), "serve", "--gateway-url", VALUES["gateway"]],
            env=self.env, stdout=log_file, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.socket.exists():
                try:
                    with socket.socket(socket.AF_UNIX) as s:
                        s.connect(str(self.socket))
                    break
                except OSError:
                    pass
            if self.proc.poll() is not None:
                raise RuntimeError((sandbox / "serve.log").read_text())
            time.sleep(0.1)
        else:
            raise RuntimeError("devint serve did not start in 30 s")
        # Each level private, as the runtime makes its own: `enrol` refuses a state directory
        # others can read, and the runtime may not have made it yet.
        profiles = self.state / "devint" / "runtime" / "profiles"
        for level in (self.state, self.state / "devint", profiles.parent, profiles):
            level.mkdir(mode=0o700, exist_ok=True)
        self.hook = sandbox / "bin" / VALUES["hook"]
        self.hook.parent.mkdir()
        self.hook.write_text(HOOK_SCRIPT)
        self.hook.chmod(0o755)
        (profiles / "conformance.toml").write_text(policy(self.hook, extra_deny))
        self.run("enrol", "--client", "cli", "--all-tools", "--verbs", "full", "--yes")

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [str(self.devint), *args], env=self.env, capture_output=True, text=True, timeout=120,
        )
        if check and proc.returncode != 0:
            raise RuntimeError(f"devint {' '.join(args)} exited {proc.returncode}: {proc.stdout}{proc.stderr}")
        return proc

    def json(self, *args: str) -> dict:
        return json.loads(self.run(*args, "--output", "json").stdout)

    def result(self, *args: str) -> dict:
        """The `result` of a command's JSON document."""
        return self.json(*args)["result"]

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)


# --- the judge --------------------------------------------------------------------------


@dataclass
class Verdict:
    code: int
    output: str


def judge(tool: Tool, home: Path, project: Path, bindir: Path, depth: str = "full") -> Verdict:
    """Runs the tool's judge: `full` shows every effect (end-to-end runs included); `load`
    only asks whether the tool loads the file, for the broken-file and after-removal checks."""
    script = HERE / "judges" / f"{tool.id}.sh"
    env = {
        "JUDGE_DEPTH": depth,
        "HOME": str(home),
        "GATEWAY": VALUES["gateway"],
        "PROXY": VALUES["proxy"],
        "HOOK_LOG": str(home.parent / "bin" / "hook.log"),
        "PATH": f"{bindir}:/usr/local/bin:/usr/bin:/bin",
        "TOOL_BIN": str(bindir / tool.entry["bin"]),
        "PROJECT_DIR": str(project),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "TERM": "dumb",
        "CI": "true",
    }
    try:
        proc = subprocess.run(
            ["bash", str(script)], env=env, cwd=project, capture_output=True, text=True,
            timeout=tool.entry.get("judge_timeout", 120), stdin=subprocess.DEVNULL,
        )
        return Verdict(proc.returncode, proc.stdout + proc.stderr)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return Verdict(124, out + "\n(judge timed out)")


def filled(pattern: str) -> str:
    """An expectation with the policy's values put in (as literal text)."""
    out = pattern
    for name, value in VALUES.items():
        out = out.replace("{" + name + "}", re.escape(value))
    return out


def shows(expectation: str | list[str], output: str) -> bool:
    """Whether the judge's output meets an expectation: every pattern matches, and every
    pattern with a leading "!" does not."""
    patterns = [expectation] if isinstance(expectation, str) else expectation
    for p in patterns:
        negated = p.startswith("!")
        found = re.search(filled(p[1:] if negated else p), output, re.MULTILINE) is not None
        if found == negated:
            return False
    return True


def accepted(tool: Tool, verdict: Verdict) -> bool:
    reject = tool.entry.get("rejects")
    if verdict.code not in tool.entry.get("accept_codes", [0]):
        return False
    return not (reject and re.search(reject, verdict.output, re.MULTILINE))


def rejected(tool: Tool, verdict: Verdict, profile: str) -> bool:
    """Whether the judge refused the broken file: a refusing exit code or message, or, for a
    tool that ignores a file it cannot read without a word (`rejects_silently`), every effect
    the profile showed gone (or, when `rejects_silently` names capabilities, theirs: a tool
    that still reads part of a broken file)."""
    reject = tool.entry.get("rejects")
    if verdict.code not in tool.entry.get("accept_codes", [0]):
        return True
    if reject and re.search(reject, verdict.output, re.MULTILINE):
        return True
    silently = tool.entry.get("rejects_silently")
    if silently:
        shown = tool.entry.get("shows", {}).get(profile, {})
        expectations = list(shown.values()) if silently is True else [shown[c] for c in silently if c in shown]
        return bool(expectations) and not any(shows(e, verdict.output) for e in expectations)
    return False


# --- one tool ---------------------------------------------------------------------------


def seed_home(tool: Tool, home: Path) -> None:
    """Copies the tool's seed (the user's own files, before devint) into HOME."""
    seed = HERE / "seeds" / tool.id
    if seed.is_dir():
        shutil.copytree(seed, home, dirs_exist_ok=True, symlinks=False)


def read_bytes(path: Path) -> bytes | None:
    return path.read_bytes() if path.exists() else None


def conform(tool: Tool, devint: Path, installed: Path, node: str | None, result: Result, keep: bool) -> None:
    # Not under /tmp: some tools refuse to set up helpers there (Codex warns on every run).
    work = Path(os.environ.get("DEVINT_CONFORMANCE_WORK", str(Path.home() / ".cache" / "devint-conformance" / "work")))
    work.mkdir(parents=True, exist_ok=True)
    sandbox = Path(tempfile.mkdtemp(prefix=f"{tool.id}-", dir=work))
    home = sandbox / "home"
    project = sandbox / "project"
    home.mkdir()
    project.mkdir()
    seed_home(tool, home)
    bindir = lay_out(tool, installed, home, node)
    settings = home / tool.settings
    before = read_bytes(settings)
    runtime = None
    try:
        runtime = Runtime(devint, sandbox, home, bindir, tool.entry.get("extra_deny", []))
        listing = tool_listing(runtime, tool.id)
        result.check(
            listing.get("detected") is True and listing.get("detected_version") == tool.expected_version,
            f"detection reads version {tool.expected_version} from the real --version (runtime PATH without the interpreter)",
            json.dumps({k: v for k, v in listing.items() if k != "capabilities"}),
        )
        claims = {
            c["capability"]
            for c in listing.get("capabilities", [])
            if c.get("support") == "supported" and c["capability"] in MECHANISMS
        }
        shown: set[str] = set()
        for profile in ("recommended", "strict"):
            shown |= one_profile(tool, runtime, profile, home, project, bindir, settings, before, result)
        for capability in claims:
            result.check(
                capability in shown or capability in tool.entry.get("unobservable", {}),
                f"`devint tools` says {capability} is supported, and the judge showed it",
                f"supported: {sorted(claims)}; shown: {sorted(shown)}",
            )
    except Exception as e:  # noqa: BLE001 - one tool's failure is reported, the rest go on
        result.check(False, f"the scenario ran to the end ({type(e).__name__})", str(e))
    finally:
        if runtime:
            runtime.stop()
        if not keep:
            shutil.rmtree(sandbox, ignore_errors=True)
        else:
            result.note = f"sandbox kept at {sandbox}"


def tool_listing(runtime: Runtime, tool_id: str) -> dict:
    """What `devint tools` reports for the tool."""
    for t in runtime.json("tools")["result"]["tools"]:
        if t.get("tool_id") == tool_id:
            return t
    raise RuntimeError(f"`devint tools` does not list {tool_id}")


def one_profile(
    tool: Tool, runtime: Runtime, profile: str, home: Path, project: Path, bindir: Path,
    settings: Path, before: bytes | None, result: Result,
) -> set[str]:
    """Plan, apply, verify, judge, break, remove for one profile; the capabilities the
    judge was seen to show."""
    log(f"  -- {profile}")
    plan_view = runtime.result(
        "plan", tool.id, "--scope", "user", "--profile", profile, "--policy", "conformance",
    )
    # A step's id is the capability it realises.
    written = {s["id"] for s in plan_view["steps"]}
    for line in plan_view.get("warnings", []):
        log(f"  plan  {line}")
    for u in plan_view.get("unsupported", []):
        log(f"  plan  unsupported {u['capability']}: {u['reason']}")
    runtime.run("apply", tool.id, "--plan", plan_view["plan_id"], "--yes")
    verify = runtime.run("verify", tool.id, check=False)
    result.check(verify.returncode == 0, f"{profile}: devint verify passes", verify.stdout + verify.stderr)
    verdict = judge(tool, home, project, bindir)
    result.check(accepted(tool, verdict), f"{profile}: the judge accepts devint's file", verdict.output)
    shown: set[str] = set()
    expectations = tool.entry.get("shows", {}).get(profile, {})
    for capability in MECHANISMS:
        if capability not in written:
            continue
        pattern = expectations.get(capability)
        if pattern is None:
            if capability in tool.entry.get("unobservable", {}):
                log(f"  note  {profile}: {capability} written; not observable offline: {tool.entry['unobservable'][capability]}")
                continue
            result.check(False, f"{profile}: {capability} was written, and the judge has an expectation for it")
            continue
        if result.check(
            shows(pattern, verdict.output),
            f"{profile}: the judge shows {capability}",
            verdict.output,
        ):
            shown.add(capability)
    # The same judge must refuse a broken file, or it proves nothing.
    good = settings.read_bytes()
    breaker = BREAKERS[settings.suffix if settings.suffix in BREAKERS else ".json"]
    settings.write_bytes(good + breaker.encode())
    broken = judge(tool, home, project, bindir, "load" if not tool.entry.get("rejects_silently") else "full")
    settings.write_bytes(good)
    result.check(rejected(tool, broken, profile), f"{profile}: the judge rejects a broken file", broken.output)
    runtime.run("remove", tool.id, "--yes")
    after = read_bytes(settings)
    result.check(after == before, f"{profile}: after remove the file is byte-identical to the user's",
                 f"before: {before!r:.300}\nafter:  {after!r:.300}")
    again = judge(tool, home, project, bindir, "load")
    result.check(accepted(tool, again), f"{profile}: after remove the tool still loads its settings", again.output)
    return shown


def judge_one(tool: Tool, devint: Path, cache: Path, keep: bool) -> tuple[Result | None, str]:
    """Installs and judges one tool: its result, or why it was not run."""
    log(f"== {tool.id} {tool.version} ({tool.entry['registry']} {tool.entry['package']})")
    started = time.monotonic()
    installed, why = install(tool, cache)
    if installed is None:
        log(f"  skip  cannot be installed here: {why}")
        return None, why
    result = Result(tool.id)
    node = node_for(tool, cache) if tool.entry["registry"] == "npm" else None
    conform(tool, devint, installed, node, result, keep)
    result.seconds = time.monotonic() - started
    return result, ""


def judge_side_by_side(tools: list[Tool], args: argparse.Namespace) -> list[tuple[Tool, Result | None, str]]:
    """Judges the tools `args.jobs` at a time, each in its own run of this script (its own
    gateway and proxy ports, its own sandbox); each tool's lines are printed together when
    it is done."""
    pending = list(tools)
    running: list[tuple[Tool, subprocess.Popen, Path]] = []
    outcomes: dict[str, tuple[Result | None, str]] = {}
    reports = Path(tempfile.mkdtemp(prefix="devint-conformance-reports-"))
    try:
        while pending or running:
            while pending and len(running) < args.jobs:
                tool = pending.pop(0)
                report = reports / f"{tool.id}.json"
                cmd = [sys.executable, __file__, "--devint", args.devint, "--cache", args.cache,
                       "--tools", tool.id, "--jobs", "1", "--report", str(report)]
                if args.keep:
                    cmd.append("--keep")
                proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                running.append((tool, proc, report))
            time.sleep(0.2)
            for entry in [r for r in running if r[1].poll() is not None]:
                tool, proc, report = entry
                running.remove(entry)
                out = proc.stdout.read() if proc.stdout else ""
                # Only the tool's own lines: its worker's summary is the parent's to print.
                print(out.split("\n== summary")[0].rstrip("\n"), flush=True)
                outcomes[tool.id] = read_report(report, proc.returncode)
    finally:
        shutil.rmtree(reports, ignore_errors=True)
    return [(t, *outcomes[t.id]) for t in tools]


def read_report(report: Path, code: int) -> tuple[Result | None, str]:
    """A worker's outcome, from the report it wrote (a worker that died wrote none)."""
    if not report.exists():
        result = Result(report.stem)
        result.failures.append(f"the worker for {report.stem} exited {code} without a report")
        return result, ""
    data = json.loads(report.read_text())
    if data.get("skipped"):
        return None, data["skipped"]
    result = Result(data["tool"], data["failures"], data["passes"], data["note"], data["seconds"])
    return result, ""


def write_report(path: Path, tool: Tool, result: Result | None, why: str) -> None:
    if result is None:
        data: dict = {"tool": tool.id, "skipped": why}
    else:
        data = {"tool": result.tool, "failures": result.failures, "passes": result.passes,
                "note": result.note, "seconds": result.seconds}
    path.write_text(json.dumps(data))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devint", default=str(ROOT / "target" / "release" / "devint"))
    parser.add_argument("--tools", help="comma-separated tool ids (default: all)")
    parser.add_argument("--cache", default=os.environ.get(
        "DEVINT_CONFORMANCE_CACHE", str(Path.home() / ".cache" / "devint-conformance")))
    parser.add_argument("--keep", action="store_true", help="keep each sandbox")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("DEVINT_CONFORMANCE_JOBS", "2")),
                        help="tools judged side by side (default 2, or DEVINT_CONFORMANCE_JOBS)")
    parser.add_argument("--report", help=argparse.SUPPRESS)
    args = parser.parse_args()
    pins = tomllib.loads((HERE / "tools.toml").read_text())
    tools = [Tool(k, v) for k, v in pins.items() if isinstance(v, dict)]
    if args.tools:
        wanted = set(args.tools.split(","))
        tools = [t for t in tools if t.id in wanted]
    devint = Path(args.devint).resolve()
    args.devint = str(devint)
    cache = Path(args.cache)
    skipped = [(t.id, t.entry.get("not_installable", "no registry")) for t in tools if not t.installable]
    installable = [t for t in tools if t.installable]
    if args.jobs > 1 and len(installable) > 1:
        outcomes = judge_side_by_side(installable, args)
    else:
        outcomes = [(t, *judge_one(t, devint, cache, args.keep)) for t in installable]
    if args.report:
        tool, result, why = outcomes[0]
        write_report(Path(args.report), tool, result, why)
    results = [r for _, r, _ in outcomes if r is not None]
    skipped = [(t.id, why) for t, r, why in outcomes if r is None] + skipped
    log("\n== summary")
    for r in results:
        state = "PASS" if not r.failures else f"FAIL ({len(r.failures)})"
        log(f"  {r.tool:<22} {state:<10} {r.passes} checks passed in {r.seconds:.0f} s {r.note}")
    for tool_id, why in skipped:
        log(f"  {tool_id:<22} {'not run':<10} {why}")
    failed = [r for r in results if r.failures]
    log(f"conformance: {len(results) - len(failed)} of {len(results)} installable tools pass; "
        f"{len(skipped)} not run here")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
