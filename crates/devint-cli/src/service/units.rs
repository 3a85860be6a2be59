//! The service files `devint service install` writes, rendered from what the runtime needs:
//! a systemd user socket unit (the socket, `0600` in a `0700` directory, as the secure bind
//! requires) and service unit (`Type=notify`, `serve`'s readiness), or a launchd agent.
//!
//! This module only renders text (pure, testable on any OS); it must never write a file or
//! run a command, and never render a value it cannot quote (a control character in a path
//! is refused).

use std::path::Path;

use crate::exit::CliError;

/// The first line of every file we write: how `uninstall` tells ours from a stranger's.
pub const MARKER: &str = "Written by `devint service install`";

/// The launchd agent's label.
pub const LAUNCHD_LABEL: &str = "dev.devint.runtime";

/// The systemd socket unit's name.
pub const SOCKET_UNIT: &str = "devint.socket";
/// The systemd service unit's name.
pub const SERVICE_UNIT: &str = "devint.service";

/// What the service runs.
#[derive(Debug, Clone)]
pub struct Spec<'a> {
    /// The devint binary.
    pub executable: &'a Path,
    /// The socket.
    pub socket: &'a Path,
    /// The state directory.
    pub state_dir: &'a Path,
    /// Where launchd writes the runtime's output.
    pub log: &'a Path,
}

/// One file to write: its name and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The file name.
    pub name: String,
    /// Its text.
    pub text: String,
}

fn text_of<'p>(what: &str, path: &'p Path) -> Result<&'p str, CliError> {
    let text = path.to_str().ok_or_else(|| {
        CliError::usage(format!(
            "the {what} {} is not UTF-8; a service file cannot name it",
            path.display()
        ))
    })?;
    if text.chars().any(char::is_control) {
        return Err(CliError::usage(format!(
            "the {what} {text:?} holds a control character; a service file cannot name it: \
             choose another path"
        )));
    }
    Ok(text)
}

/// A systemd value: specifiers escaped (`%` → `%%`), double-quoted with `\` and `"`
/// escaped, so a path with spaces stays one word.
fn systemd_quoted(value: &str) -> String {
    let escaped = value
        .replace('%', "%%")
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    format!("\"{escaped}\"")
}

/// A path where systemd takes no quotes (`ListenStream=`): only specifiers escaped, and
/// refused if it holds whitespace.
fn systemd_bare(what: &str, value: &str) -> Result<String, CliError> {
    if value.chars().any(char::is_whitespace) {
        return Err(CliError::usage(format!(
            "the {what} {value:?} holds whitespace, which a systemd socket unit cannot name: \
             choose a socket path without spaces (--socket)"
        )));
    }
    Ok(value.replace('%', "%%"))
}

/// The comment that opens the service unit's sandboxing settings; they run from it to the
/// next blank line.
pub const SANDBOX_HEADER: &str = "# Sandbox: what the runtime may reach.";

/// Directories a private `/tmp` (`PrivateTmp=`) replaces with empty ones of the service's own.
const PRIVATE_TMP_DIRS: [&str; 2] = ["/tmp", "/var/tmp"];

/// `PrivateTmp=yes`, or, when one of `paths` lies in a directory a private `/tmp` would
/// replace (the service could no longer reach it), a comment saying which one and why the
/// setting is left out.
fn private_tmp(paths: &[(&str, &str)]) -> String {
    let hidden = paths.iter().find(|(_, path)| {
        PRIVATE_TMP_DIRS
            .iter()
            .any(|dir| Path::new(path).starts_with(dir))
    });
    match hidden {
        None => "PrivateTmp=yes\n".to_owned(),
        Some((what, path)) => format!(
            "# PrivateTmp= left out: a private /tmp would hide from the service its {what}\n\
             # {path}\n"
        ),
    }
}

/// The systemd user units: `devint.socket` and `devint.service`.
pub fn systemd(spec: &Spec<'_>) -> Result<Vec<Unit>, CliError> {
    let exe = text_of("devint binary", spec.executable)?;
    let socket = text_of("socket path", spec.socket)?;
    let state = text_of("state directory", spec.state_dir)?;
    let socket_unit = format!(
        "# {MARKER}; remove with `devint service uninstall`.\n\
         [Unit]\n\
         Description=devint runtime socket (DI-API)\n\
         Documentation=man:devint(1)\n\
         \n\
         [Socket]\n\
         ListenStream={listen}\n\
         # The secure bind's rules (spec §1): the socket 0600 in a 0700 directory of ours.\n\
         SocketMode=0600\n\
         DirectoryMode=0700\n\
         RemoveOnStop=yes\n\
         \n\
         [Install]\n\
         WantedBy=sockets.target\n",
        listen = systemd_bare("socket path", socket)?,
    );
    let service_unit = format!(
        "# {MARKER}; remove with `devint service uninstall`.\n\
         [Unit]\n\
         Description=devint runtime (DI-API)\n\
         Documentation=man:devint(1)\n\
         Requires={SOCKET_UNIT}\n\
         After={SOCKET_UNIT}\n\
         \n\
         [Service]\n\
         # serve says READY=1 once it serves on the socket passed to it, STOPPING=1 at shutdown.\n\
         Type=notify\n\
         ExecStart={exe} serve\n\
         # Re-executes the binary at its path, keeping the socket (as an upgrade does).\n\
         ExecReload=/bin/kill -HUP $MAINPID\n\
         Environment={socket_env}\n\
         Environment={state_env}\n\
         # A stop (SIGTERM) exits 0 and stays stopped; `serve --on-upgrade exit` exits 75.\n\
         Restart=on-failure\n\
         \n\
         {SANDBOX_HEADER}\n\
         # It needs its socket (passed in), its state directory, the tools' settings files in\n\
         # your home and project folders, and to run the tools to detect them. docs/service.md\n\
         # names each setting and each one left out, with its reason.\n\
         # A user manager applies the namespace settings only inside a user namespace.\n\
         PrivateUsers=yes\n\
         NoNewPrivileges=yes\n\
         CapabilityBoundingSet=\n\
         # /usr, /boot, /efi and /etc read-only; home and project folders stay writable.\n\
         ProtectSystem=full\n\
         {private_tmp}\
         PrivateDevices=yes\n\
         PrivateIPC=yes\n\
         PrivateMounts=yes\n\
         # Unix sockets only (its own, journald's, the manager's): it opens no IP connection.\n\
         PrivateNetwork=yes\n\
         RestrictAddressFamilies=AF_UNIX\n\
         ProtectHostname=yes\n\
         ProtectClock=yes\n\
         ProtectKernelTunables=yes\n\
         ProtectKernelModules=yes\n\
         ProtectKernelLogs=yes\n\
         RestrictNamespaces=yes\n\
         RestrictRealtime=yes\n\
         RestrictSUIDSGID=yes\n\
         LockPersonality=yes\n\
         KeyringMode=private\n\
         SystemCallArchitectures=native\n\
         # execve stays allowed: it runs each tool's --version and re-executes itself.\n\
         SystemCallFilter=@system-service\n\
         SystemCallFilter=~@privileged @resources\n\
         SystemCallErrorNumber=EPERM\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n",
        private_tmp = private_tmp(&[
            ("devint binary", exe),
            ("socket", socket),
            ("state directory", state)
        ]),
        exe = systemd_quoted(exe),
        socket_env = systemd_quoted(&format!("AA_DEVINT_SOCKET={socket}")),
        state_env = systemd_quoted(&format!("AA_DEVINT_STATE_DIR={state}")),
    );
    Ok(vec![
        Unit {
            name: SOCKET_UNIT.to_owned(),
            text: socket_unit,
        },
        Unit {
            name: SERVICE_UNIT.to_owned(),
            text: service_unit,
        },
    ])
}

fn xml(value: &str) -> String {
    value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The launchd agent: `dev.devint.runtime.plist`.
pub fn launchd(spec: &Spec<'_>) -> Result<Vec<Unit>, CliError> {
    let exe = xml(text_of("devint binary", spec.executable)?);
    let socket = xml(text_of("socket path", spec.socket)?);
    let state = xml(text_of("state directory", spec.state_dir)?);
    let log = xml(text_of("log file", spec.log)?);
    let text = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- {MARKER}; remove with `devint service uninstall`. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>{LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
    <string>{exe}</string>
    <string>serve</string>
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>AA_DEVINT_SOCKET</key>
    <string>{socket}</string>
    <key>AA_DEVINT_STATE_DIR</key>
    <string>{state}</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <!-- Started again after a failure (and after `serve --on-upgrade exit`'s 75), not after a stop. -->
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>StandardOutPath</key>
  <string>{log}</string>
  <key>StandardErrorPath</key>
  <string>{log}</string>
</dict>
</plist>
"#
    );
    Ok(vec![Unit {
        name: format!("{LAUNCHD_LABEL}.plist"),
        text,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec<'a>(exe: &'a Path, socket: &'a Path) -> Spec<'a> {
        Spec {
            executable: exe,
            socket,
            state_dir: Path::new("/h/.aa"),
            log: Path::new("/h/Library/Logs/devint.log"),
        }
    }

    #[test]
    fn a_path_with_spaces_and_specifiers_stays_one_quoted_word() {
        let units = systemd(&spec(
            Path::new("/opt/my tools/100%/devint"),
            Path::new("/h/.aa/run/devint.sock"),
        ))
        .unwrap();
        assert!(units[1]
            .text
            .contains("ExecStart=\"/opt/my tools/100%%/devint\" serve"));
    }

    #[test]
    fn a_socket_path_systemd_cannot_name_is_refused() {
        let e = systemd(&spec(
            Path::new("/bin/devint"),
            Path::new("/h/my run/d.sock"),
        ))
        .unwrap_err();
        assert!(e.message.contains("holds whitespace"), "{}", e.message);
        let e = launchd(&spec(Path::new("/bin/dev\nint"), Path::new("/h/d.sock"))).unwrap_err();
        assert!(e.message.contains("control character"), "{}", e.message);
    }

    #[test]
    fn private_tmp_is_left_out_only_when_the_service_needs_a_path_under_tmp() {
        let at_home = systemd(&spec(
            Path::new("/h/.cargo/bin/devint"),
            Path::new("/h/.aa/run/devint.sock"),
        ))
        .unwrap();
        assert!(at_home[1].text.contains("\nPrivateTmp=yes\n"));
        let in_tmp = systemd(&spec(
            Path::new("/h/.cargo/bin/devint"),
            Path::new("/tmp/run/devint.sock"),
        ))
        .unwrap();
        assert!(!in_tmp[1].text.contains("PrivateTmp=yes"));
        assert!(in_tmp[1]
            .text
            .contains("# PrivateTmp= left out: a private /tmp would hide from the service its socket\n# /tmp/run/devint.sock\n"));
        let var_tmp = private_tmp(&[("devint binary", "/var/tmp/devint")]);
        assert!(var_tmp.starts_with("# PrivateTmp= left out"), "{var_tmp}");
        // A sibling whose name only starts with "tmp" is not hidden.
        assert_eq!(
            private_tmp(&[("socket", "/tmpfoo/d.sock")]),
            "PrivateTmp=yes\n"
        );
    }

    #[test]
    fn launchd_values_are_xml_escaped() {
        let units = launchd(&spec(Path::new("/opt/a&b/devint"), Path::new("/h/d.sock"))).unwrap();
        assert!(units[0]
            .text
            .contains("<string>/opt/a&amp;b/devint</string>"));
    }
}
