//! Detection against a sandboxed HOME and fake tool binaries on a temporary PATH.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use devint_runtime::adapters::detect::{compatibility, detect_with_timeout, parse_version};
use devint_runtime::adapters::{detect, find, Compatibility};

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
        let home = root.path().join("home");
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
}

fn claude() -> &'static devint_runtime::adapters::ToolDescriptor {
    find("claude-code").unwrap()
}

#[test]
fn present_binary_in_range_is_compatible() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("claude", "echo '1.0.72 (Claude Code)'");
    let d = detect(claude(), &sb.path_env(), &sb.home);
    assert!(d.present);
    assert_eq!(d.version, Some(semver::Version::new(1, 0, 72)));
    assert_eq!(d.compatibility, Compatibility::Compatible);
    assert_eq!(d.location.as_deref(), Some(sb.bin.join("claude").as_path()));
}

#[test]
fn absent_binary_is_not_detected() {
    let sb = Sandbox::new();
    let d = detect(claude(), &sb.path_env(), &sb.home);
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
    assert!(!detect(claude(), &sb.path_env(), &sb.home).present);
}

#[test]
fn the_path_parameter_is_used_not_the_process_environment() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("claude", "echo 1.2.3");
    assert!(!detect(claude(), "/nonexistent", &sb.home).present);
    assert!(detect(claude(), &sb.path_env(), &sb.home).present);
}

#[test]
fn version_too_old_is_incompatible() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("claude", "echo '0.2.9 (Claude Code)'");
    let d = detect(claude(), &sb.path_env(), &sb.home);
    assert!(d.present);
    assert_eq!(d.version, Some(semver::Version::new(0, 2, 9)));
    assert_eq!(d.compatibility, Compatibility::Incompatible);
}

#[test]
fn unparsable_version_is_unknown() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("claude", "echo 'claude development build 7'");
    let d = detect(claude(), &sb.path_env(), &sb.home);
    assert!(d.present);
    assert_eq!(d.version, None);
    assert_eq!(d.compatibility, Compatibility::Unknown);
}

#[test]
fn version_printed_on_stderr_is_read() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    sb.fake("codex", "echo 'codex-cli 0.63.0' >&2");
    let d = detect(find("codex").unwrap(), &sb.path_env(), &sb.home);
    assert_eq!(d.version, Some(semver::Version::new(0, 63, 0)));
    assert_eq!(d.compatibility, Compatibility::Compatible);
}

#[test]
fn hanging_binary_times_out_as_unknown() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let sb = Sandbox::new();
    // The child sleeps in a subprocess that holds the pipe: the whole group must die.
    sb.fake("claude", "sleep 30; echo 1.0.0");
    let d = detect_with_timeout(
        claude(),
        &sb.path_env(),
        &sb.home,
        Duration::from_millis(300),
    );
    assert!(d.present);
    assert_eq!(d.version, None);
    assert_eq!(d.compatibility, Compatibility::Unknown);
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
    let d = detect(claude(), &sb.path_env(), &sb.home);
    assert_eq!(d.version, Some(semver::Version::new(1, 1, 1)));
}

fn install_extension(home: &Path, dir: &str) {
    std::fs::create_dir_all(home.join(".vscode/extensions").join(dir)).unwrap();
}

#[test]
fn editor_extension_is_detected_by_install_directory_with_the_highest_version() {
    let sb = Sandbox::new();
    let copilot = find("github-copilot").unwrap();
    assert!(!detect(copilot, &sb.path_env(), &sb.home).present);
    install_extension(&sb.home, "github.copilot-chat-0.31.2");
    install_extension(&sb.home, "github.copilot-chat-0.32.4");
    install_extension(&sb.home, "github.copilot-1.300.0");
    let d = detect(copilot, &sb.path_env(), &sb.home);
    assert!(d.present);
    assert_eq!(d.version, Some(semver::Version::new(0, 32, 4)));
    assert_eq!(d.compatibility, Compatibility::Compatible);
}

#[test]
fn old_editor_extension_is_incompatible() {
    let sb = Sandbox::new();
    install_extension(&sb.home, "saoudrizwan.claude-dev-2.1.0");
    let d = detect(find("cline").unwrap(), &sb.path_env(), &sb.home);
    assert!(d.present);
    assert_eq!(d.compatibility, Compatibility::Incompatible);
}

#[test]
fn version_parsing_takes_the_first_full_triple() {
    assert_eq!(
        parse_version("Zed 0.210.4 abc"),
        Some(semver::Version::new(0, 210, 4))
    );
    assert_eq!(
        parse_version("v1.2 then 3.4.5"),
        Some(semver::Version::new(3, 4, 5))
    );
    assert_eq!(
        parse_version("1.7.3\ncommit 1.2.3"),
        Some(semver::Version::new(1, 7, 3))
    );
    assert_eq!(
        parse_version("aider 0.86.1-dev"),
        Some(semver::Version::new(0, 86, 1))
    );
    assert_eq!(parse_version("no version"), None);
    assert_eq!(parse_version("1.2."), None);
    assert_eq!(parse_version("99999999999999999999999.1.1"), None);
}

#[test]
fn compatibility_needs_both_a_version_and_a_readable_range() {
    let v = semver::Version::new(1, 0, 0);
    assert_eq!(
        compatibility(">=1.0.0", Some(&v)),
        Compatibility::Compatible
    );
    assert_eq!(
        compatibility(">=2.0.0", Some(&v)),
        Compatibility::Incompatible
    );
    assert_eq!(compatibility(">=1.0.0", None), Compatibility::Unknown);
    assert_eq!(
        compatibility("not a range", Some(&v)),
        Compatibility::Unknown
    );
}
