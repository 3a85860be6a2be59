//! The sandbox `devint service install` puts the runtime in: `systemd-analyze security`
//! rates the generated `devint.service` at an exposure of 4.0 or lower, and `devint serve`
//! still does its whole job (plan → apply → remove) under the unit's restrictions, applied
//! here without a service manager. The units are rendered under the sandbox's HOME; the real
//! user's manager, home and `/etc` are never touched.

mod cli_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use cli_support::{write_script, Sandbox, DEVINT};

/// The highest overall exposure (`systemd-analyze security`, 0.0 safest – 10.0) the
/// generated service unit may have.
const MAX_EXPOSURE: f64 = 4.0;

/// The comment that opens the unit's sandboxing settings (they run to the next blank line).
const SANDBOX_HEADER: &str = "# Sandbox: what the runtime may reach.";

/// `name` in /usr/bin or /bin.
fn system_program(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// The systemd units `devint service install --print` renders for sandbox `s`, written
/// into `dir`; returns the service unit's path.
fn render_units(s: &Sandbox, dir: &Path) -> PathBuf {
    let (code, doc) = s.json(&["service", "install", "--print", "--manager", "systemd"]);
    assert_eq!(code, 0, "{doc}");
    std::fs::create_dir_all(dir).unwrap();
    for file in doc["result"]["files"].as_array().unwrap() {
        std::fs::write(
            dir.join(file["name"].as_str().unwrap()),
            file["text"].as_str().unwrap(),
        )
        .unwrap();
    }
    dir.join("devint.service")
}

/// The overall exposure `systemd-analyze security --offline=true --user` gives `unit`.
fn exposure(analyze: &Path, s: &Sandbox, unit: &Path) -> f64 {
    // Offline mode needs a runtime directory and nothing else of a running manager.
    let runtime_dir = s.root().join("xdg-runtime");
    std::fs::create_dir_all(&runtime_dir).unwrap();
    let out = Command::new(analyze)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("XDG_RUNTIME_DIR", &runtime_dir)
        .args(["security", "--user", "--offline=true"])
        .arg(unit)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    let line = said
        .lines()
        .find(|l| l.contains("Overall exposure level for devint.service:"))
        .unwrap_or_else(|| {
            panic!(
                "no overall exposure in: {said}{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let number = line
        .split_once("devint.service:")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .unwrap_or_default();
    number
        .parse()
        .unwrap_or_else(|e| panic!("{number:?} in {line:?}: {e}"))
}

#[test]
fn the_service_units_offline_security_exposure_is_at_most_4() {
    let Some(analyze) = system_program("systemd-analyze") else {
        eprintln!("skipped: systemd-analyze is not installed (Debian: apt-get install systemd)");
        return;
    };
    let s = Sandbox::new();
    let unit = render_units(&s, &s.root().join("units"));
    let hardened = exposure(&analyze, &s, &unit);
    assert!(
        hardened <= MAX_EXPOSURE,
        "devint.service is rated {hardened} (at most {MAX_EXPOSURE} wanted):\n{}",
        std::fs::read_to_string(&unit).unwrap()
    );

    // The measure is real: the same unit without its sandboxing settings is rated above.
    let text = std::fs::read_to_string(&unit).unwrap();
    let start = text
        .find(SANDBOX_HEADER)
        .expect("the unit has a sandbox block");
    let end = start + text[start..].find("\n\n").expect("the block ends");
    let bare_dir = s.root().join("bare");
    std::fs::create_dir_all(&bare_dir).unwrap();
    std::fs::copy(
        unit.with_file_name("devint.socket"),
        bare_dir.join("devint.socket"),
    )
    .unwrap();
    let bare = bare_dir.join("devint.service");
    std::fs::write(&bare, format!("{}{}", &text[..start], &text[end + 1..])).unwrap();
    let unhardened = exposure(&analyze, &s, &bare);
    assert!(
        unhardened > MAX_EXPOSURE,
        "without the sandbox block the unit is rated {unhardened}"
    );
}

/// The restrictions [`restricted`] always applies, as the test reports them.
const REPRODUCED: &str = "NoNewPrivileges=yes (setpriv --no-new-privs), CapabilityBoundingSet= \
    (setpriv --bounding-set=-all --inh-caps=-all), PrivateUsers=yes (a user namespace mapping \
    only the test's own uid; every other owner shows as nobody), PrivateMounts=yes, \
    PrivateNetwork=yes, PrivateIPC=yes, ProtectHostname=yes (unshare --mount --net --ipc \
    --uts), ProtectSystem= and ProtectKernelTunables=yes (every mount read-only except the \
    sandbox, which is stricter than the unit's ProtectSystem=full)";

/// The restrictions the seccomp layer adds, when python3 and libseccomp are at hand.
const REPRODUCED_BY_SECCOMP: &str = "SystemCallFilter=@system-service, \
    SystemCallFilter=~@privileged @resources, SystemCallErrorNumber=EPERM, \
    RestrictAddressFamilies=AF_UNIX, SystemCallArchitectures=native (tests/seccomp/filter.py: \
    libseccomp, with systemd-analyze's own system call lists)";

/// A seccomp filter matching the unit's, when it can be loaded here: the python3 and
/// `systemd-analyze` that build it; otherwise why not.
fn seccomp_layer() -> Result<(PathBuf, PathBuf), String> {
    let (Some(python), Some(analyze)) =
        (system_program("python3"), system_program("systemd-analyze"))
    else {
        return Err("python3 or systemd-analyze is not installed".to_owned());
    };
    let filter = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/seccomp/filter.py");
    let out = Command::new(&python)
        .arg(&filter)
        .arg(&analyze)
        .arg("/bin/true")
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(format!(
            "the seccomp filter cannot be loaded (libseccomp missing?): {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok((python, analyze))
}

/// A script that runs `PROGRAM ARGS…` under the unit's restrictions that util-linux (and,
/// given `seccomp`, libseccomp) can apply without a service manager (see [`REPRODUCED`]).
fn restricted(s: &Sandbox, seccomp: Option<&(PathBuf, PathBuf)>) -> PathBuf {
    let filter = match seccomp {
        Some((python, analyze)) => format!(
            "'{}' '{}' '{}' ",
            python.display(),
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/seccomp/filter.py")
                .display(),
            analyze.display()
        ),
        None => String::new(),
    };
    let inner = s.root().join("restrict.sh");
    write_script(
        &inner,
        &format!(
            "#!/bin/sh\n\
             # $1: the one directory left writable; then the program and its arguments.\n\
             set -e\n\
             writable=$1; shift\n\
             program_path=$PATH; PATH=/usr/bin:/bin\n\
             mount --bind \"$writable\" \"$writable\"\n\
             for m in $(awk '{{print $2}}' /proc/self/mounts | sort -u); do\n\
             \x20 [ \"$m\" = \"$writable\" ] && continue\n\
             \x20 mount -o remount,bind,ro \"$m\"\n\
             done\n\
             PATH=$program_path\n\
             exec /usr/bin/setpriv --no-new-privs --bounding-set=-all --inh-caps=-all -- \
             {filter}\"$@\"\n"
        ),
    );
    let outer = s.root().join("restricted");
    write_script(
        &outer,
        &format!(
            "#!/bin/sh\n\
             exec /usr/bin/unshare --user --map-root-user --mount --propagation private \\\n\
             \x20 --net --ipc --uts -- /bin/sh '{inner}' '{root}' \"$@\"\n",
            inner = inner.display(),
            root = s.root().display(),
        ),
    );
    outer
}

/// A script that runs the devint binary, with its arguments, through [`restricted`].
fn restricted_devint(s: &Sandbox, restricted: &Path) -> PathBuf {
    let script = s.root().join("restricted-devint");
    write_script(
        &script,
        &format!(
            "#!/bin/sh\nexec '{}' '{DEVINT}' \"$@\"\n",
            restricted.display()
        ),
    );
    script
}

/// `devint serve` under the service unit's restrictions still does a whole plan → apply →
/// restart → remove for claude-code: the settings file is changed, then restored byte for
/// byte, and the reload re-executes the runtime in place. When
/// node is installed the stand-in `claude` is a node script, as the real one is, so
/// detection runs a JIT under the same restrictions.
///
/// Reproduced here (the test has no systemd manager to start the unit): see [`REPRODUCED`]
/// and, when python3 and libseccomp are installed, [`REPRODUCED_BY_SECCOMP`].
/// Not reproduced: `PrivateTmp=` (the sandbox itself lives under /tmp), `PrivateDevices=`,
/// `KeyringMode=`, the mounts of `ProtectKernelModules=`/`ProtectKernelLogs=`/
/// `ProtectClock=` and the seccomp rules of `RestrictNamespaces=`, `RestrictRealtime=`,
/// `RestrictSUIDSGID=` and `LockPersonality=` (the system calls they refuse are ones the
/// runtime never makes; systemd's own rules are not reproduced argument by argument).
#[test]
fn serve_under_the_units_restrictions_plans_applies_restarts_and_removes() {
    let (Some(_), Some(_), Some(_)) = (
        system_program("unshare"),
        system_program("setpriv"),
        system_program("mount"),
    ) else {
        eprintln!("skipped: unshare, setpriv or mount (util-linux) is not installed");
        return;
    };
    let mut s = Sandbox::new();
    let seccomp = seccomp_layer();
    let restricted = restricted(&s, seccomp.as_ref().ok());

    // The restrictions hold: outside the sandbox nothing is writable, inside it is.
    let probe = |script: &str, path: &Path| {
        s.std_command(&restricted)
            .args(["/bin/sh", "-c", script])
            .arg(path)
            .output()
            .unwrap()
    };
    let inside = probe("echo x > \"$0\"", &s.root().join("probe"));
    let said = String::from_utf8_lossy(&inside.stderr);
    if !inside.status.success()
        && (said.contains("unshare failed") || said.contains("ermission denied"))
    {
        eprintln!(
            "skipped: cannot make user and mount namespaces here (needs root or unprivileged \
             user namespaces): {said}"
        );
        return;
    }
    assert!(
        inside.status.success(),
        "the sandbox stays writable: {said}"
    );
    let outside = probe(
        "echo x > \"$0\"",
        &PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("devint-probe"),
    );
    assert!(
        String::from_utf8_lossy(&outside.stderr).contains("Read-only file system"),
        "everything outside the sandbox is read-only: {}",
        String::from_utf8_lossy(&outside.stderr)
    );
    eprintln!("reproduced: {REPRODUCED}");
    match &seccomp {
        Ok(_) => {
            // chown is in @privileged: refused, although the caller owns the file.
            let chown = probe("/bin/chown 0 \"$0\"", &s.root().join("probe"));
            assert!(
                String::from_utf8_lossy(&chown.stderr).contains("Operation not permitted"),
                "the system call filter holds: {}",
                String::from_utf8_lossy(&chown.stderr)
            );
            eprintln!("reproduced: {REPRODUCED_BY_SECCOMP}");
        }
        Err(why) => eprintln!("not reproduced: {REPRODUCED_BY_SECCOMP}: {why}"),
    }
    if let Some(node) = system_program("node") {
        write_script(
            &s.bin().join("claude"),
            &format!(
                "#!{}\nconsole.log([2, 0, 14].join('.') + ' (Claude Code)');\n",
                node.display()
            ),
        );
    } else {
        eprintln!("not reproduced: a node-based tool's --version (node is not installed)");
    }

    let settings = s.home().join(".claude/settings.json");
    let before = "{\n  \"model\": \"claude-sonnet-4-5\"\n}\n";
    std::fs::write(&settings, before).unwrap();
    let (socket, state) = (s.socket(), s.state());
    let devint = restricted_devint(&s, &restricted);
    let n = s.serve_program(&devint, &socket, &state, &[]);
    // The runtime itself (the scripts exec'd into it) runs restricted.
    let pid = s.server_pid(n);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    assert!(status.contains("\nNoNewPrivs:\t1\n"), "{status}");
    assert!(status.contains("\nCapBnd:\t0000000000000000\n"), "{status}");
    if seccomp.is_ok() {
        assert!(status.contains("\nSeccomp:\t2\n"), "{status}");
    }
    for ns in ["user", "mnt", "net", "ipc", "uts"] {
        let theirs = std::fs::read_link(format!("/proc/{pid}/ns/{ns}")).unwrap();
        let ours = std::fs::read_link(format!("/proc/self/ns/{ns}")).unwrap();
        assert_ne!(theirs, ours, "the runtime has a {ns} namespace of its own");
    }

    s.enrol("full");
    let (code, doc) = s.json(&["tools"]);
    assert_eq!(code, 0, "{doc}\n{}", s.serve_errors(n));
    assert!(doc.to_string().contains("2.0.14"), "claude detected: {doc}");
    let (code, doc) = s.json(&["plan", "claude-code", "--scope", "user"]);
    assert_eq!(code, 0, "{doc}\n{}", s.serve_errors(n));
    let (code, doc) = s.json(&["apply", "claude-code", "--scope", "user", "--yes"]);
    assert_eq!(code, 0, "{doc}\n{}", s.serve_errors(n));
    assert!(doc["result"]["apply"]["receipt_id"].as_str().is_some());
    assert_ne!(std::fs::read_to_string(&settings).unwrap(), before);
    // A reload (SIGHUP) re-executes the binary in place: execve stays allowed.
    let (code, out, err) = s.run(&["restart"]);
    assert_eq!(code, 0, "{out}{err}\n{}", s.serve_errors(n));
    s.wait_for_output(n, "socket handed over by the previous executable", 1);
    let (code, doc) = s.json(&["remove", "claude-code", "--yes"]);
    assert_eq!(code, 0, "{doc}\n{}", s.serve_errors(n));
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), before);
}

/// Why the unit leaves `MemoryDenyWriteExecute=` out: the runtime runs each tool's
/// `--version` to detect it, and node (Claude Code, Gemini CLI, …) cannot run a script where
/// memory may not be made writable and executable. The kernel's own switch for that rule
/// (`prctl(PR_SET_MDWE)`, Linux 6.3+) stands in for systemd's seccomp rule.
#[test]
fn a_node_tool_cannot_run_where_writable_memory_may_not_become_executable() {
    let (Some(python), Some(node)) = (system_program("python3"), system_program("node")) else {
        eprintln!("skipped: python3 or node is not installed");
        return;
    };
    let under_mdwe = |refuse: bool| {
        Command::new(&python)
            .args([
                "-c",
                "import ctypes, os, sys\n\
                 if sys.argv[1] == '1' and ctypes.CDLL(None).prctl(65, 1, 0, 0, 0) != 0:\n\
                 \x20   sys.exit('PR_SET_MDWE unsupported')\n\
                 os.execv(sys.argv[2], sys.argv[2:])\n",
                if refuse { "1" } else { "0" },
            ])
            .arg(&node)
            .args(["-e", "console.log([1, 2, 3].map((x) => x * 2).join(','))"])
            .output()
            .unwrap()
    };
    let free = under_mdwe(false);
    assert_eq!(String::from_utf8_lossy(&free.stdout), "2,4,6\n");
    let refused = under_mdwe(true);
    if String::from_utf8_lossy(&refused.stderr).contains("PR_SET_MDWE unsupported") {
        eprintln!("skipped: this kernel has no PR_SET_MDWE (Linux 6.3+)");
        return;
    }
    assert!(
        !refused.status.success(),
        "node ran with W^X enforced: {}",
        String::from_utf8_lossy(&refused.stdout)
    );
}
