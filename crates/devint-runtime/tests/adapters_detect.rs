//! Detection against a sandboxed HOME and fake tool binaries on a temporary PATH.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

#[cfg(feature = "test-support")]
use devint_runtime::adapters::own_dirs;
use devint_runtime::adapters::{find, Compatibility, Detected, Detector, ToolDescriptor};

/// Writing a script while another test thread forks can leave the file busy at exec
/// (ETXTBSY); the fake-binary tests take turns.
static SERIAL: Mutex<()> = Mutex::new(());

struct Sandbox {
    _root: tempfile::TempDir,
    home: PathBuf,
    bin: PathBuf,
}

impl Sandbox {
    fn new() -> Self {
        let root = tempfile::Builder::new()
            .tempdir_in("/tmp")
            .expect("tempdir");
        let home = root.path().join("user");
        let bin = root.path().join("bin");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        Sandbox {
            _root: root,
            home,
            bin,
        }
    }

    fn fake(&self, name: &str, body: &str) {
        let path = self.bin.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn path_env(&self) -> String {
        format!("/nonexistent:{}:/usr/bin:/bin", self.bin.display())
    }

    /// A detector on this sandbox: its PATH, its HOME, absolute install directories under
    /// its root (so the host's /usr/local/bin or /opt/homebrew/bin never count).
    fn detector(&self) -> Detector {
        self.detector_on(&self.path_env())
    }

    fn detector_on(&self, path_env: &str) -> Detector {
        Detector::new(path_env, &self.home).with_root(self._root.path())
    }
}

/// Detection of `tool` with a fresh detector on `path_env` in the sandbox.
fn detect(tool: &'static ToolDescriptor, path_env: &str, sb: &Sandbox) -> Detected {
    sb.detector_on(path_env).detect(tool)
}

fn claude() -> &'static devint_runtime::adapters::ToolDescriptor {
    find("claude-code").unwrap()
}

#[test]
fn present_binary_in_range_is_compatible() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("claude", "echo '1.0.72 (Claude Code)'");
    let d = detect(claude(), &sb.path_env(), &sb);
    assert!(d.present);
    assert_eq!(d.version, Some(semver::Version::new(1, 0, 72)));
    assert_eq!(d.compatibility, Compatibility::Compatible);
    assert_eq!(d.location.as_deref(), Some(sb.bin.join("claude").as_path()));
}

#[test]
fn absent_binary_is_not_detected() {
    let sb = Sandbox::new();
    let d = detect(claude(), &sb.path_env(), &sb);
    assert!(!d.present);
    assert_eq!(d.version, None);
    assert_eq!(d.compatibility, Compatibility::Unknown);
}

#[test]
fn a_binary_without_the_execute_bit_is_not_detected() {
    let sb = Sandbox::new();
    std::fs::write(sb.bin.join("claude"), "#!/bin/sh\necho 1.0.0\n").unwrap();
    std::fs::set_permissions(
        sb.bin.join("claude"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    assert!(!detect(claude(), &sb.path_env(), &sb).present);
}

#[test]
fn the_path_parameter_is_used_not_the_process_environment() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("claude", "echo 1.2.3");
    assert!(!detect(claude(), "/nonexistent", &sb).present);
    assert!(detect(claude(), &sb.path_env(), &sb).present);
}

#[test]
fn version_too_old_is_incompatible() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("claude", "echo '0.2.9 (Claude Code)'");
    let d = detect(claude(), &sb.path_env(), &sb);
    assert!(d.present);
    assert_eq!(d.version, Some(semver::Version::new(0, 2, 9)));
    assert_eq!(d.compatibility, Compatibility::Incompatible);
}

#[test]
fn unparsable_version_is_unknown() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("claude", "echo 'claude development build 7'");
    let d = detect(claude(), &sb.path_env(), &sb);
    assert!(d.present);
    assert_eq!(d.version, None);
    assert_eq!(d.compatibility, Compatibility::Unknown);
}

#[test]
fn version_printed_on_stderr_is_read() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("codex", "echo 'codex-cli 0.63.0' >&2");
    let d = detect(find("codex").unwrap(), &sb.path_env(), &sb);
    assert_eq!(d.version, Some(semver::Version::new(0, 63, 0)));
    assert_eq!(d.compatibility, Compatibility::Compatible);
}

#[test]
fn hanging_binary_is_cut_at_the_timeout_with_its_whole_process_group() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    // The script starts a child that holds the pipe and would outlive it by an hour: the
    // whole group must die at the timeout (without the cut this test hangs).
    let child_pid = sb.home.join("child.pid");
    sb.fake(
        "claude",
        &format!(
            "sleep 3600 & echo $! > {}; wait; echo 1.0.0",
            child_pid.display()
        ),
    );
    let d = sb
        .detector()
        .with_timeout(Duration::from_millis(300))
        .detect(claude());
    assert!(d.present);
    assert_eq!(d.version, None);
    assert_eq!(d.compatibility, Compatibility::Unknown);
    let pid = std::fs::read_to_string(&child_pid).unwrap();
    let proc_dir = PathBuf::from(format!("/proc/{}", pid.trim()));
    // Killed with the group: gone once its new parent reaps it.
    let gone = (0..200).any(|_| {
        let state = std::fs::read_to_string(proc_dir.join("stat")).unwrap_or_default();
        if state.is_empty() || state.split_whitespace().nth(2) == Some("Z") {
            return true;
        }
        std::thread::sleep(Duration::from_millis(25));
        false
    });
    assert!(gone, "the version command's child survived the timeout");
}

#[test]
fn version_command_sees_only_the_given_path_and_home() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    // Prints 9.9.9 only if an unexpected variable leaked into its environment.
    sb.fake(
        "claude",
        "if [ -n \"$CARGO\" ]; then echo 9.9.9; else echo \"1.1.1 $HOME\"; fi",
    );
    let d = detect(claude(), &sb.path_env(), &sb);
    assert_eq!(d.version, Some(semver::Version::new(1, 1, 1)));
}

fn install_extension(home: &Path, dir: &str) {
    std::fs::create_dir_all(home.join(".vscode/extensions").join(dir)).unwrap();
}

#[test]
fn editor_extension_is_detected_by_install_directory_with_the_highest_version() {
    let sb = Sandbox::new();
    let copilot = find("github-copilot").unwrap();
    assert!(!detect(copilot, &sb.path_env(), &sb).present);
    install_extension(&sb.home, "github.copilot-chat-0.31.2");
    install_extension(&sb.home, "github.copilot-chat-0.32.4");
    install_extension(&sb.home, "github.copilot-1.300.0");
    let d = detect(copilot, &sb.path_env(), &sb);
    assert!(d.present);
    assert_eq!(d.version, Some(semver::Version::new(0, 32, 4)));
    assert_eq!(d.compatibility, Compatibility::Compatible);
}

#[test]
fn old_editor_extension_is_incompatible() {
    let sb = Sandbox::new();
    install_extension(&sb.home, "saoudrizwan.claude-dev-2.1.0");
    let d = detect(find("cline").unwrap(), &sb.path_env(), &sb);
    assert!(d.present);
    assert_eq!(d.compatibility, Compatibility::Incompatible);
}

/// Writes an executable script at `path` (parents created), replacing any file there with
/// a new inode (write beside, then rename: what a package manager does).
fn install_script(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let tmp = path.with_extension("new");
    std::fs::write(&tmp, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::rename(&tmp, path).unwrap();
}

/// A script that records each run in `log` and prints `version`.
fn counting(log: &Path, version: &str) -> String {
    format!(
        "echo probed >> {}; echo '{version} (Claude Code)'",
        log.display()
    )
}

fn probes(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .count()
}

#[test]
fn a_tool_only_in_its_documented_install_directory_is_found_under_a_minimal_path() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let local = sb.home.join(".local/bin/claude");
    install_script(&local, "echo '2.0.14 (Claude Code)'");
    // A service manager's PATH: none of the sandbox's directories.
    let d = detect(claude(), "/nonexistent:/also-missing", &sb);
    assert!(d.present);
    assert_eq!(d.location.as_deref(), Some(local.as_path()));
    assert_eq!(d.version, Some(semver::Version::new(2, 0, 14)));
    assert_eq!(d.compatibility, Compatibility::Compatible);
}

#[test]
fn path_comes_before_the_install_directories() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    install_script(&sb.home.join(".local/bin/claude"), "echo 2.0.0");
    sb.fake("claude", "echo 1.5.0");
    let d = detect(claude(), &sb.path_env(), &sb);
    assert_eq!(d.location.as_deref(), Some(sb.bin.join("claude").as_path()));
    assert_eq!(d.version, Some(semver::Version::new(1, 5, 0)));
}

#[test]
fn an_absolute_install_directory_is_searched_under_the_detectors_root() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let brew = sb._root.path().join("opt/homebrew/bin/codex");
    install_script(&brew, "echo 'codex-cli 0.63.0'");
    let d = detect(find("codex").unwrap(), "/nonexistent", &sb);
    assert_eq!(d.location.as_deref(), Some(brew.as_path()));
    assert_eq!(d.version, Some(semver::Version::new(0, 63, 0)));
}

#[test]
fn an_nvm_install_is_found_in_the_newest_node_version_first() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let node = sb.home.join(".nvm/versions/node");
    install_script(&node.join("v9.11.2/bin/gemini"), "echo 0.3.0");
    install_script(&node.join("v20.10.0/bin/gemini"), "echo 0.9.1");
    let d = detect(find("gemini-cli").unwrap(), "/nonexistent", &sb);
    assert_eq!(
        d.location.as_deref(),
        Some(node.join("v20.10.0/bin/gemini").as_path())
    );
    assert_eq!(d.version, Some(semver::Version::new(0, 9, 1)));
}

#[test]
fn a_configured_tool_without_its_binary_says_so_and_where_detection_looked() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.home.join(".claude")).unwrap();
    let detector = sb.detector_on("/usr/bin:/bin");
    let d = detector.detect(claude());
    assert!(!d.present);
    assert_eq!(
        d.configured.as_deref(),
        Some(sb.home.join(".claude").as_path())
    );
    let said = d.absence.unwrap();
    assert!(
        said.starts_with(
            "Claude Code is configured (~/.claude exists) but its binary claude was not found; \
             looked on PATH (/usr/bin:/bin) and in ~/.local/bin, ~/.claude/local, ~/.npm-global/bin"
        ),
        "{said}"
    );
}

#[test]
fn an_unconfigured_missing_tool_says_where_detection_looked() {
    let sb = Sandbox::new();
    let detector = sb.detector_on("/usr/bin");
    let d = detector.detect(find("aider").unwrap());
    assert!(!d.present);
    assert_eq!(d.configured, None);
    let said = d.absence.unwrap();
    let root = sb._root.path().display();
    assert_eq!(
        *said,
        *format!(
            "Aider (aider) was not found; looked on PATH (/usr/bin) and in ~/.local/bin, \
             {root}/opt/homebrew/bin, {root}/usr/local/bin, {root}/home/linuxbrew/.linuxbrew/bin"
        )
    );
    // A found tool has nothing to explain.
    let copilot = find("github-copilot").unwrap();
    assert_eq!(
        detector.detect(copilot).absence.as_deref(),
        Some("GitHub Copilot (VS Code) was not found; looked in ~/.vscode/extensions for github.copilot-chat-<version>")
    );
    install_extension(&sb.home, "github.copilot-chat-0.32.4");
    assert_eq!(detector.detect(copilot).absence, None);
}

#[test]
fn list_tools_explains_an_undetected_tool_in_its_discovery_reason() {
    let sb = Sandbox::new();
    let listings = sb.detector_on("/nonexistent").list_tools();
    let claude = listings
        .iter()
        .find(|l| l.tool_id == "claude-code")
        .unwrap();
    let discovery = &claude.capabilities[0];
    assert_eq!(
        discovery.capability,
        devint_runtime::adapters::Capability::Discovery
    );
    assert!(
        discovery
            .reason
            .starts_with("Claude Code (claude) was not found; looked on PATH"),
        "{}",
        discovery.reason
    );
}

#[test]
fn the_version_is_probed_once_while_the_binary_is_unchanged() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let log = sb.home.join("probes.log");
    let binary = sb.home.join(".local/bin/claude");
    install_script(&binary, &counting(&log, "2.0.1"));
    let detector = sb.detector_on("/nonexistent");
    for _ in 0..5 {
        assert_eq!(
            detector.detect(claude()).version,
            Some(semver::Version::new(2, 0, 1))
        );
    }
    assert_eq!(probes(&log), 1, "an unchanged binary was probed again");
    let listings = detector.list_tools();
    assert!(listings
        .iter()
        .any(|l| l.tool_id == "claude-code" && l.detected.present));
    assert_eq!(
        probes(&log),
        1,
        "list_tools probed an unchanged binary again"
    );
}

#[test]
fn a_replaced_binary_is_probed_again() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let log = sb.home.join("probes.log");
    let binary = sb.home.join(".local/bin/claude");
    install_script(&binary, &counting(&log, "2.0.1"));
    let detector = sb.detector_on("/nonexistent");
    assert_eq!(
        detector.detect(claude()).version,
        Some(semver::Version::new(2, 0, 1))
    );
    // An upgrade: a new file (new inode) renamed over the old one.
    install_script(&binary, &counting(&log, "2.0.2"));
    assert_eq!(
        detector.detect(claude()).version,
        Some(semver::Version::new(2, 0, 2))
    );
    assert_eq!(probes(&log), 2);
    // A rewrite in place (same inode, new size and mtime).
    std::fs::write(
        &binary,
        format!("#!/bin/sh\n{}\n", counting(&log, "2.10.3")),
    )
    .unwrap();
    assert_eq!(
        detector.detect(claude()).version,
        Some(semver::Version::new(2, 10, 3))
    );
    assert_eq!(probes(&log), 3);
    assert_eq!(
        detector.detect(claude()).version,
        Some(semver::Version::new(2, 10, 3))
    );
    assert_eq!(probes(&log), 3);
}

#[test]
fn a_repointed_symlink_is_probed_again() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let log = sb.home.join("probes.log");
    let versions = sb.home.join(".local/share/claude/versions");
    install_script(&versions.join("2.0.1"), &counting(&log, "2.0.1"));
    install_script(&versions.join("2.0.2"), &counting(&log, "2.0.2"));
    let link = sb.home.join(".local/bin/claude");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(versions.join("2.0.1"), &link).unwrap();
    let detector = sb.detector_on("/nonexistent");
    assert_eq!(
        detector.detect(claude()).version,
        Some(semver::Version::new(2, 0, 1))
    );
    // The native installer's update: the link now names the new version.
    let tmp = link.with_extension("new");
    std::os::unix::fs::symlink(versions.join("2.0.2"), &tmp).unwrap();
    std::fs::rename(&tmp, &link).unwrap();
    assert_eq!(
        detector.detect(claude()).version,
        Some(semver::Version::new(2, 0, 2))
    );
    assert_eq!(probes(&log), 2);
}

#[test]
fn a_result_older_than_the_maximum_age_is_probed_again() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let log = sb.home.join("probes.log");
    install_script(&sb.home.join(".local/bin/claude"), &counting(&log, "2.0.1"));
    let detector = sb.detector_on("/nonexistent").with_max_age(Duration::ZERO);
    detector.detect(claude());
    detector.detect(claude());
    assert_eq!(probes(&log), 2);
}

#[test]
fn a_removed_binary_is_seen_at_once() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let binary = sb.home.join(".local/bin/claude");
    install_script(&binary, "echo 2.0.1");
    let detector = sb.detector_on("/nonexistent");
    assert!(detector.detect(claude()).present);
    std::fs::remove_file(&binary).unwrap();
    assert!(!detector.detect(claude()).present);
}

#[test]
fn a_listing_is_given_at_once_only_while_its_binary_stands_and_never_for_extensions() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let log = sb.home.join("probes.log");
    let binary = sb.home.join(".local/bin/claude");
    install_script(&binary, &counting(&log, "2.0.1"));
    let detector = sb.detector_on("/nonexistent");
    assert!(
        detector.listing_at_once(claude()).is_none(),
        "never searched"
    );
    let listing = detector.listing(claude());
    let at_once = detector
        .listing_at_once(claude())
        .expect("found, local, just searched");
    assert!(std::sync::Arc::ptr_eq(&listing, &at_once));
    // Replaced: the one `stat` sees it, and nothing is searched or probed at once.
    install_script(&binary, &counting(&log, "2.0.2"));
    assert!(detector.listing_at_once(claude()).is_none());
    assert_eq!(probes(&log), 1, "probed only by the search");
    assert_eq!(
        detector.listing(claude()).detected.version,
        Some(semver::Version::new(2, 0, 2))
    );
    assert!(detector.listing_at_once(claude()).is_some());
    // Asked at once, the next full listing watches the binary's path: a rewrite of the same
    // size whose mtime is set back, which the `stat` cannot tell, is seen.
    detector.listing(claude());
    let before = std::fs::metadata(&binary).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&binary).unwrap();
    std::fs::write(&binary, text.replace("2.0.2", "2.0.3")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&binary)
        .unwrap()
        .set_modified(before)
        .unwrap();
    assert!(detector.listing_at_once(claude()).is_none(), "rewritten");
    assert_eq!(
        detector.listing(claude()).detected.version,
        Some(semver::Version::new(2, 0, 2)),
        "the cache's own `stat` cannot tell, so it stands until the maximum age re-probes it"
    );
    std::fs::remove_file(&binary).unwrap();
    assert!(detector.listing_at_once(claude()).is_none(), "removed");
    // Past the rescan period, the directories must be searched again: not at once.
    let rescanning = sb
        .detector_on("/nonexistent")
        .with_rescan_after(Duration::ZERO);
    install_script(&binary, &counting(&log, "2.0.2"));
    rescanning.listing(claude());
    assert!(rescanning.listing_at_once(claude()).is_none());
    // An extension's answer rests on listing directories: never at once.
    let copilot = find("github-copilot").unwrap();
    install_extension(&sb.home, "github.copilot-chat-0.31.2");
    let detector = sb.detector();
    detector.listing(copilot);
    assert!(detector.listing_at_once(copilot).is_none());
}

#[test]
fn a_newly_installed_extension_is_seen_by_the_same_detector() {
    let sb = Sandbox::new();
    let copilot = find("github-copilot").unwrap();
    let detector = sb.detector();
    assert!(!detector.detect(copilot).present);
    install_extension(&sb.home, "github.copilot-chat-0.31.2");
    assert_eq!(
        detector.detect(copilot).version,
        Some(semver::Version::new(0, 31, 2))
    );
    install_extension(&sb.home, "github.copilot-chat-0.32.4");
    assert_eq!(
        detector.detect(copilot).version,
        Some(semver::Version::new(0, 32, 4))
    );
}

// Install layouts as the managers make them, under a sandboxed HOME and root. A tool is a
// `#!/usr/bin/env node` script whose body is shell; its `node` is `/bin/sh` under that
// name, placed where the layout puts node. The runtime's PATH never holds that folder, so
// `env` finds this `node` only when detection puts the tool's own folders first.

impl Sandbox {
    /// A service manager's PATH on this sandbox: its `/usr/bin`, holding the few host
    /// commands shell shims use (`basename`, `dirname`, `sed`) and no node.
    fn service_path(&self) -> String {
        let system = self._root.path().join("usr/bin");
        for command in ["basename", "dirname", "sed"] {
            let host = ["/usr/bin", "/bin"]
                .iter()
                .map(|dir| Path::new(dir).join(command))
                .find(|p| p.exists())
                .unwrap();
            if !system.join(command).exists() {
                symlink(host, &system.join(command));
            }
        }
        system.display().to_string()
    }
}

fn symlink(target: impl AsRef<Path>, link: &Path) {
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// An interpreter named `name` in `dir`: `/bin/sh`, which runs the fake tool's body.
fn interpreter(dir: &Path, name: &str) {
    symlink("/bin/sh", &dir.join(name));
}

/// An executable file at `path` (parents created): `shebang`, then `body`.
fn script(path: &Path, shebang: &str, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!{shebang}\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// An npm package's command as npm publishes it: a node script printing `output`.
fn node_script(path: &Path, output: &str) {
    script(path, "/usr/bin/env node", &format!("echo '{output}'"));
}

/// `npm install -g` into `prefix` (npm's global layout, which nvm, fnm, asdf and mise
/// share): node in `<prefix>/bin`, the package in `<prefix>/lib/node_modules/<package>`,
/// and `<prefix>/bin/<bin>` a relative link to its entry script. Returns that link.
fn npm_global(prefix: &Path, package: &str, entry: &str, bin: &str, output: &str) -> PathBuf {
    interpreter(&prefix.join("bin"), "node");
    let relative = format!("lib/node_modules/{package}/{entry}");
    node_script(&prefix.join(&relative), output);
    let link = prefix.join("bin").join(bin);
    symlink(format!("../{relative}"), &link);
    link
}

fn gemini_in(prefix: &Path) -> PathBuf {
    npm_global(
        prefix,
        "@google/gemini-cli",
        "bundle/gemini.js",
        "gemini",
        "0.61.0",
    )
}

fn qwen_in(prefix: &Path) -> PathBuf {
    npm_global(
        prefix,
        "@qwen-code/qwen-code",
        "cli-entry.js",
        "qwen",
        "0.24.4",
    )
}

fn codex_in(prefix: &Path) -> PathBuf {
    npm_global(
        prefix,
        "@openai/codex",
        "bin/codex.js",
        "codex",
        "codex-cli 0.171.0",
    )
}

/// Asserts detection found `tool` at `location` with `version`, in its supported range.
fn assert_found(d: &Detected, location: &Path, version: (u64, u64, u64)) {
    assert!(d.present, "not found: {d:?}");
    assert_eq!(d.location.as_deref(), Some(location));
    assert_eq!(
        d.version,
        Some(semver::Version::new(version.0, version.1, version.2)),
        "found at {location:?} without its version"
    );
    assert_eq!(d.compatibility, Compatibility::Compatible);
}

#[test]
fn an_nvm_installed_node_script_gets_its_version_from_the_node_beside_it() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let gemini = gemini_in(&sb.home.join(".nvm/versions/node/v22.11.0"));
    let d = detect(find("gemini-cli").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &gemini, (0, 61, 0));
}

#[test]
fn fnm_installs_are_found_in_each_documented_base_directory() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for base in [
        ".local/share/fnm",
        ".fnm",
        "Library/Application Support/fnm",
    ] {
        let sb = Sandbox::new();
        let versions = sb.home.join(base).join("node-versions");
        qwen_in(&versions.join("v20.18.0/installation"));
        let qwen = qwen_in(&versions.join("v22.11.0/installation"));
        let d = detect(find("qwen-code").unwrap(), &sb.service_path(), &sb);
        assert_found(&d, &qwen, (0, 24, 4));
    }
}

#[test]
fn a_volta_shim_runs_with_only_home_set() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let volta = sb.home.join(".volta");
    // The package as `volta install` lays it out, and its pinned node.
    let package = volta.join("tools/image/packages/@openai/codex");
    node_script(
        &package.join("lib/node_modules/@openai/codex/bin/codex.js"),
        "codex-cli 0.171.0",
    );
    symlink(
        "../lib/node_modules/@openai/codex/bin/codex.js",
        &package.join("bin/codex"),
    );
    interpreter(&volta.join("tools/image/node/22.11.0/bin"), "node");
    // volta-shim, reduced to what it does: its data under $VOLTA_HOME (default
    // $HOME/.volta), the package's own command run with the pinned node first on PATH.
    script(
        &volta.join("bin/volta-shim"),
        "/bin/sh",
        "volta=\"${VOLTA_HOME:-$HOME/.volta}\"\n\
         PATH=\"$volta/tools/image/node/22.11.0/bin:$PATH\" \
         exec \"$volta/tools/image/packages/@openai/codex/bin/$(basename \"$0\")\" \"$@\"",
    );
    let shim = volta.join("bin/codex");
    symlink("volta-shim", &shim);
    let d = detect(find("codex").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &shim, (0, 171, 0));
}

/// asdf's shim for `bin`, as asdf writes it: it needs `asdf` on PATH to run anything.
fn asdf_shim(home: &Path, plugin: &str, version: &str, bin: &str) {
    script(
        &home.join(".asdf/shims").join(bin),
        "/usr/bin/env bash",
        &format!("# asdf-plugin: {plugin} {version}\nexec asdf exec \"{bin}\" \"$@\""),
    );
}

#[test]
fn an_asdf_shim_on_path_gives_way_to_the_node_install_it_stands_for() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    asdf_shim(&sb.home, "nodejs", "22.11.0", "gemini");
    let gemini = gemini_in(&sb.home.join(".asdf/installs/nodejs/22.11.0"));
    let path = format!(
        "{}:{}",
        sb.home.join(".asdf/shims").display(),
        sb.service_path()
    );
    let d = detect(find("gemini-cli").unwrap(), &path, &sb);
    assert_found(&d, &gemini, (0, 61, 0));
    // Without the shim on PATH, the install is found all the same.
    let d = detect(find("gemini-cli").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &gemini, (0, 61, 0));
}

/// A Python command as pip writes it into an environment's `bin`, printing `output`: a
/// shebang naming that environment's interpreter, or (for a path a shebang cannot hold)
/// `/bin/sh` re-running the file with it. The interpreter is a fake `python3` that prints
/// what the script's `print('…')` lines say.
fn python_command(bin_dir: &Path, bin: &str, output: &str) -> PathBuf {
    let python = bin_dir.join("python3");
    script(
        &python,
        "/bin/sh",
        "while IFS= read -r line; do\n  \
         case \"$line\" in \"print('\"*\"')\") line=${line#\"print('\"}; \
         echo \"${line%\"')\"}\" ;; esac\n\
         done < \"$1\"",
    );
    let path = bin_dir.join(bin);
    let python = python.to_str().unwrap();
    let program = format!("import sys\nprint('{output}')");
    if python.contains(' ') {
        let body = format!("'''exec' \"{python}\" \"$0\" \"$@\"\n' '''\n{program}");
        script(&path, "/bin/sh", &body);
    } else {
        script(&path, python, &program);
    }
    path
}

#[test]
fn an_asdf_shim_for_aider_gives_way_to_the_python_install_it_stands_for() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    asdf_shim(&sb.home, "python", "3.12.1", "aider");
    let aider = python_command(
        &sb.home.join(".asdf/installs/python/3.12.1/bin"),
        "aider",
        "aider 0.86.2",
    );
    let path = format!(
        "{}:{}",
        sb.home.join(".asdf/shims").display(),
        sb.service_path()
    );
    let d = detect(find("aider").unwrap(), &path, &sb);
    assert_found(&d, &aider, (0, 86, 2));
}

#[test]
fn mise_shims_on_path_give_way_to_the_installs_they_stand_for() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let mise = sb.home.join(".local/share/mise");
    // mise's shims are links to the mise binary, which picks a version from its config.
    script(
        &sb.home.join(".local/bin/mise"),
        "/bin/sh",
        "echo 'mise ERROR no version set' >&2; exit 1",
    );
    for bin in ["qwen", "aider"] {
        symlink(
            sb.home.join(".local/bin/mise"),
            &mise.join("shims").join(bin),
        );
    }
    let qwen = qwen_in(&mise.join("installs/node/22.11.0"));
    let aider = python_command(
        &mise.join("installs/python/3.12.1/bin"),
        "aider",
        "aider 0.86.2",
    );
    let path = format!("{}:{}", mise.join("shims").display(), sb.service_path());
    assert_found(
        &detect(find("qwen-code").unwrap(), &path, &sb),
        &qwen,
        (0, 24, 4),
    );
    assert_found(
        &detect(find("aider").unwrap(), &path, &sb),
        &aider,
        (0, 86, 2),
    );
}

#[test]
fn a_pnpm_global_command_is_found_with_its_version() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let pnpm = sb.home.join(".local/share/pnpm");
    let entry = "global/5/node_modules/@google/gemini-cli/bundle/gemini.js";
    node_script(&pnpm.join(entry), "0.61.0");
    // `pnpm env use --global` puts node in the pnpm home.
    interpreter(&pnpm, "node");
    // The shell shim pnpm writes for a global package's command.
    let shim = pnpm.join("gemini");
    script(
        &shim,
        "/bin/sh",
        &format!(
            "basedir=$(dirname \"$(echo \"$0\" | sed -e 's,\\\\,/,g')\")\n\
             if [ -x \"$basedir/node\" ]; then\n  \
             exec \"$basedir/node\"  \"$basedir/{entry}\" \"$@\"\n\
             else\n  \
             exec node  \"$basedir/{entry}\" \"$@\"\n\
             fi"
        ),
    );
    let d = detect(find("gemini-cli").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &shim, (0, 61, 0));
}

#[test]
fn an_npm_user_prefix_with_node_beside_the_command_is_found_with_its_version() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    // Node unpacked into ~/.local, so npm's default prefix is ~/.local as well.
    let codex = codex_in(&sb.home.join(".local"));
    let d = detect(find("codex").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &codex, (0, 171, 0));
}

#[test]
fn an_npm_global_prefix_uses_the_node_on_the_runtimes_path() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    // ~/.npm-global holds packages only; node is the system's, on the runtime's PATH.
    let prefix = sb.home.join(".npm-global");
    node_script(
        &prefix.join("lib/node_modules/@openai/codex/bin/codex.js"),
        "codex-cli 0.171.0",
    );
    let codex = prefix.join("bin/codex");
    symlink("../lib/node_modules/@openai/codex/bin/codex.js", &codex);
    let path = sb.service_path();
    interpreter(Path::new(&path), "node");
    let d = detect(find("codex").unwrap(), &path, &sb);
    assert_found(&d, &codex, (0, 171, 0));
}

#[test]
fn pipx_commands_are_found_through_their_link_in_each_pipx_home() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for pipx_home in [".local/share/pipx", ".local/pipx"] {
        let sb = Sandbox::new();
        let venv_bin = sb.home.join(pipx_home).join("venvs/aider-chat/bin");
        let aider = python_command(&venv_bin, "aider", "aider 0.86.2");
        let link = sb.home.join(".local/bin/aider");
        symlink(&aider, &link);
        let d = detect(find("aider").unwrap(), &sb.service_path(), &sb);
        assert_found(&d, &link, (0, 86, 2));
    }
}

#[test]
fn python_tool_environments_are_searched_when_their_link_is_elsewhere() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for venvs in [
        ".local/share/pipx/venvs",
        ".local/pipx/venvs",
        "Library/Application Support/pipx/venvs",
        ".local/share/uv/tools",
        ".pyenv/versions",
    ] {
        let sb = Sandbox::new();
        let aider = python_command(
            &sb.home.join(venvs).join("aider-chat/bin"),
            "aider",
            "aider 0.86.2",
        );
        let d = detect(find("aider").unwrap(), &sb.service_path(), &sb);
        assert_found(&d, &aider, (0, 86, 2));
    }
}

#[test]
fn a_uv_tool_is_found_through_its_link() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let aider = python_command(
        &sb.home.join(".local/share/uv/tools/aider-chat/bin"),
        "aider",
        "aider 0.86.2",
    );
    let link = sb.home.join(".local/bin/aider");
    symlink(&aider, &link);
    let d = detect(find("aider").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &link, (0, 86, 2));
}

#[test]
fn a_homebrew_node_package_finds_homebrews_node() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    let brew = sb._root.path().join("opt/homebrew");
    // Formulae live in the Cellar, linked into bin; a node package's command goes
    // bin → Cellar/<formula>/<version>/bin → libexec/bin → libexec/lib/node_modules.
    interpreter(&brew.join("Cellar/node/25.2.1/bin"), "node");
    symlink("../Cellar/node/25.2.1/bin/node", &brew.join("bin/node"));
    let keg = brew.join("Cellar/gemini-cli/0.61.0");
    gemini_in(&keg.join("libexec"));
    std::fs::remove_file(keg.join("libexec/bin/node")).unwrap();
    symlink("../libexec/bin/gemini", &keg.join("bin/gemini"));
    let gemini = brew.join("bin/gemini");
    symlink("../Cellar/gemini-cli/0.61.0/bin/gemini", &gemini);
    let d = detect(find("gemini-cli").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &gemini, (0, 61, 0));
}

#[test]
fn a_linked_command_finds_node_in_the_folder_its_link_points_to() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    // nvm's command linked into ~/.local/bin: node is in the folder the link points to.
    let nvm_gemini = gemini_in(&sb.home.join(".nvm/versions/node/v22.11.0"));
    let link = sb.home.join(".local/bin/gemini");
    symlink(&nvm_gemini, &link);
    let d = detect(find("gemini-cli").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &link, (0, 61, 0));
}

#[test]
fn a_command_linked_into_a_package_finds_node_in_the_prefix() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    // A link straight to the package's entry: its folder holds no node; the prefix's
    // bin does.
    let prefix = sb.home.join(".nvm/versions/node/v22.11.0");
    gemini_in(&prefix);
    std::fs::remove_file(prefix.join("bin/gemini")).unwrap();
    let link = sb.home.join(".local/bin/gemini");
    symlink(
        prefix.join("lib/node_modules/@google/gemini-cli/bundle/gemini.js"),
        &link,
    );
    let d = detect(find("gemini-cli").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &link, (0, 61, 0));
}

#[test]
fn a_command_linked_into_a_local_install_finds_node_in_its_bin_folder() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    // `npm install --prefix ~/tools @openai/codex node`: the `node` package puts node in
    // node_modules/.bin.
    let modules = sb.home.join("tools/node_modules");
    interpreter(&modules.join(".bin"), "node");
    let entry = modules.join("@openai/codex/bin/codex.js");
    node_script(&entry, "codex-cli 0.171.0");
    let link = sb.home.join(".local/bin/codex");
    symlink(&entry, &link);
    let d = detect(find("codex").unwrap(), &sb.service_path(), &sb);
    assert_found(&d, &link, (0, 171, 0));
}

#[test]
#[cfg(feature = "test-support")]
fn own_dirs_are_the_found_folder_the_link_folders_and_the_node_prefix() {
    let sb = Sandbox::new();
    let prefix = sb.home.join(".nvm/versions/node/v22.11.0");
    gemini_in(&prefix);
    let link = sb.home.join(".local/bin/gemini");
    symlink(prefix.join("bin/gemini"), &link);
    let real = |p: PathBuf| std::fs::canonicalize(p).unwrap();
    assert_eq!(
        own_dirs(&link),
        vec![
            sb.home.join(".local/bin"),
            real(prefix.join("bin")),
            real(prefix.join("lib/node_modules/@google/gemini-cli/bundle")),
        ]
    );
    // Not a link: its own folder only (a broken link's chain ends where it breaks).
    let plain = sb.home.join("plain/tool");
    script(&plain, "/bin/sh", "true");
    assert_eq!(own_dirs(&plain), vec![sb.home.join("plain")]);
}
