//! `devint service install|uninstall|status`: run the runtime under the user's service
//! manager, a systemd user socket + service unit ([`units::systemd`]: socket activation,
//! readiness) or a launchd agent ([`units::launchd`]).
//!
//! Where the files go follows the manager's own rules, so tests redirect them with HOME and
//! XDG_CONFIG_HOME: `$XDG_CONFIG_HOME/systemd/user` (else `~/.config/systemd/user`), and
//! `~/Library/LaunchAgents`. The manager is `systemctl --user` / `launchctl` found on PATH;
//! when it is absent the files are written and the commands that enable them are printed.
//! This module must never overwrite or remove a file that `devint service install` did not
//! write (it carries [`units::MARKER`]), and never runs the manager for `--print`.

pub mod units;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::config::{ConfigFiles, Key};
use crate::exit::{CliError, Exit};
use crate::output::Out;
use crate::state::StateDir;
pub use units::LAUNCHD_LABEL;
use units::{Spec, Unit, MARKER, SERVICE_UNIT, SOCKET_UNIT};

/// Which service manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Manager {
    /// A systemd user instance (Linux): socket + service unit.
    Systemd,
    /// launchd (macOS): a LaunchAgent.
    Launchd,
}

impl Manager {
    /// This system's manager.
    pub fn native() -> Manager {
        if cfg!(target_os = "macos") {
            Manager::Launchd
        } else {
            Manager::Systemd
        }
    }

    fn token(self) -> &'static str {
        match self {
            Manager::Systemd => "systemd",
            Manager::Launchd => "launchd",
        }
    }

    fn program(self) -> &'static str {
        match self {
            Manager::Systemd => "systemctl",
            Manager::Launchd => "launchctl",
        }
    }
}

/// `devint service …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ServiceAction {
    /// Write the service files (and enable them where the manager is on PATH).
    #[command(
        after_help = "Examples:\n  devint service install --gateway-url https://gateway.example.com\n  devint service install --print\n\nThe service's runtime reads its settings from the configuration file (`devint config show`)."
    )]
    Install {
        /// Print the files instead of writing them (changes nothing, runs nothing).
        #[arg(long)]
        print: bool,
        /// Also set the gateway URL the service's runtime routes model traffic to, in your
        /// configuration file (as `devint config set gateway_url URL`).
        #[arg(long, value_name = "URL")]
        gateway_url: Option<String>,
        /// The service manager (default: this system's).
        #[command(flatten)]
        manager: ManagerChoice,
    },
    /// Disable the service and remove the files `service install` wrote.
    #[command(after_help = "Example:\n  devint service uninstall")]
    Uninstall {
        /// The service manager (default: this system's).
        #[command(flatten)]
        manager: ManagerChoice,
    },
    /// Where the service files are, whether they are current, and what the manager says.
    #[command(after_help = "Example:\n  devint service status")]
    Status {
        /// The service manager (default: this system's).
        #[command(flatten)]
        manager: ManagerChoice,
    },
}

/// `--manager`.
#[derive(Debug, Clone, clap::Args)]
pub struct ManagerChoice {
    /// The service manager whose files to render or manage (default: this system's).
    #[arg(long, value_enum, value_name = "MANAGER")]
    pub manager: Option<Manager>,
}

impl ManagerChoice {
    fn get(&self) -> Manager {
        self.manager.unwrap_or_else(Manager::native)
    }
}

impl ServiceAction {
    /// The command's name in JSON output and messages.
    pub fn name(&self) -> &'static str {
        match self {
            ServiceAction::Install { .. } => "service install",
            ServiceAction::Uninstall { .. } => "service uninstall",
            ServiceAction::Status { .. } => "service status",
        }
    }
}

fn home() -> Result<PathBuf, CliError> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| CliError::usage("HOME is not set; the service files live under it"))
}

/// Where `manager` reads the user's service files.
fn unit_dir(manager: Manager) -> Result<PathBuf, CliError> {
    Ok(match manager {
        Manager::Systemd => match std::env::var_os("XDG_CONFIG_HOME")
            .filter(|x| !x.is_empty() && Path::new(x).is_absolute())
        {
            Some(config) => PathBuf::from(config),
            None => home()?.join(".config"),
        }
        .join("systemd/user"),
        Manager::Launchd => home()?.join("Library/LaunchAgents"),
    })
}

/// The files for this devint binary, socket and state directory.
fn render(manager: Manager, socket: &Path, state: &StateDir) -> Result<Vec<Unit>, CliError> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| CliError::internal(format!("cannot tell where this devint binary is: {e}")))?;
    let log = home()?.join("Library/Logs/devint.log");
    let spec = Spec {
        executable: &exe,
        socket,
        state_dir: state.root(),
        log: &log,
    };
    match manager {
        Manager::Systemd => units::systemd(&spec),
        Manager::Launchd => units::launchd(&spec),
    }
}

/// What is at a service file's path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Found {
    Missing,
    /// Ours and the same as what install writes now.
    Current,
    /// Ours but different (another binary, socket or state directory).
    Stale,
    /// Not written by `devint service install`.
    Foreign,
}

fn found(path: &Path, want: &str) -> Found {
    match std::fs::read_to_string(path) {
        Err(_) if !path.exists() => Found::Missing,
        Err(_) => Found::Foreign,
        Ok(text) if text == want => Found::Current,
        Ok(text) if text.lines().take(3).any(|l| l.contains(MARKER)) => Found::Stale,
        Ok(_) => Found::Foreign,
    }
}

fn word(f: Found) -> &'static str {
    match f {
        Found::Missing => "missing",
        Found::Current => "installed",
        Found::Stale => "installed, but from another binary, socket or state directory",
        Found::Foreign => "not written by devint",
    }
}

/// The manager's program on PATH, if any.
fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// The commands that enable (`up`) or disable the files for `manager`.
fn manager_steps(manager: Manager, dir: &Path, up: bool) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
    let uid = rustix::process::getuid().as_raw();
    let plist = dir
        .join(format!("{LAUNCHD_LABEL}.plist"))
        .display()
        .to_string();
    match (manager, up) {
        (Manager::Systemd, true) => vec![
            s(&["systemctl", "--user", "daemon-reload"]),
            s(&["systemctl", "--user", "enable", "--now", SOCKET_UNIT]),
        ],
        (Manager::Systemd, false) => vec![s(&[
            "systemctl",
            "--user",
            "disable",
            "--now",
            SOCKET_UNIT,
            SERVICE_UNIT,
        ])],
        (Manager::Launchd, true) => vec![s(&[
            "launchctl",
            "bootstrap",
            &format!("gui/{uid}"),
            &plist,
        ])],
        (Manager::Launchd, false) => vec![s(&[
            "launchctl",
            "bootout",
            &format!("gui/{uid}/{LAUNCHD_LABEL}"),
        ])],
    }
}

/// Run `steps` with the manager found on PATH; `Ok(false)` when it is absent.
fn run_steps(out: &Out, manager: Manager, steps: &[Vec<String>]) -> Result<bool, CliError> {
    let Some(program) = on_path(manager.program()) else {
        return Ok(false);
    };
    for step in steps {
        let status = Command::new(&program)
            .args(&step[1..])
            .status()
            .map_err(|e| CliError::internal(format!("cannot run {}: {e}", program.display())))?;
        if !status.success() {
            return Err(
                CliError::internal(format!("`{}` failed ({status})", step.join(" "))).fix(
                    "see its message above; the files are in place, so rerun it by hand once fixed",
                ),
            );
        }
        out.note(&format!("ran `{}`", step.join(" ")));
    }
    Ok(true)
}

/// What the manager's answer says, on one line: for systemd each unit's state
/// (`devint.socket active, devint.service inactive`, from `is-active`'s one line per unit);
/// for launchd its first line. When it printed nothing useful (no user bus, no such agent),
/// what it wrote to stderr, so the line is never empty.
fn manager_view(manager: Manager, stdout: &[u8], stderr: &[u8]) -> String {
    let said = String::from_utf8_lossy(stdout);
    let lines: Vec<&str> = said
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let view = match manager {
        Manager::Systemd if lines.len() == 2 => {
            format!("{SOCKET_UNIT} {}, {SERVICE_UNIT} {}", lines[0], lines[1])
        }
        Manager::Launchd => lines.first().map(|l| (*l).to_owned()).unwrap_or_default(),
        Manager::Systemd => lines.join(", "),
    };
    if !view.is_empty() {
        return view;
    }
    let complaint = String::from_utf8_lossy(stderr);
    match complaint.lines().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) => format!("no answer ({line})"),
        None => "no answer".to_owned(),
    }
}

/// Run `devint service ACTION`.
pub fn run(
    out: &Out,
    action: &ServiceAction,
    socket: &Path,
    state: &StateDir,
) -> Result<Exit, CliError> {
    match action {
        ServiceAction::Install {
            print,
            gateway_url,
            manager,
        } => {
            let config = ConfigFiles::locate();
            if let Some(url) = gateway_url {
                configure_gateway(out, &config, url, *print)?;
            }
            install(out, manager.get(), *print, socket, state)?;
            if !*print {
                warn_without_gateway(out, &config);
            }
            Ok(Exit::Ok)
        }
        ServiceAction::Uninstall { manager } => uninstall(out, manager.get()),
        ServiceAction::Status { manager } => status(out, manager.get(), socket, state),
    }
}

/// `install --gateway-url`: checked, then written to the user's configuration file (only
/// checked with `--print`, which writes nothing).
fn configure_gateway(
    out: &Out,
    config: &ConfigFiles,
    url: &str,
    print: bool,
) -> Result<(), CliError> {
    let file = config.user()?;
    if print {
        let url = devint_runtime::reference::PolicyUrl::parse(url)
            .map_err(|e| CliError::usage(format!("the gateway URL given by --gateway-url {e}")))?;
        out.note(&format!(
            "without --print, gateway_url = {:?} would be written to {}",
            url.as_str(),
            file.display()
        ));
        return Ok(());
    }
    let stored = crate::config::set(file, Key::GatewayUrl, url)?;
    out.note(&format!(
        "wrote gateway_url = {stored:?} to {}",
        file.display()
    ));
    Ok(())
}

/// Warn when the service's runtime will have no gateway URL: its manager passes no flag
/// and none of your shell's environment, so only the configuration file counts.
fn warn_without_gateway(out: &Out, config: &ConfigFiles) {
    match config.load() {
        Ok(settings) if settings.gateway_url.is_some() => {}
        Ok(_) => out.warn(&format!(
            "the service's runtime reads no --gateway-url or AA_DEVINT_GATEWAY_URL: {}",
            crate::config::no_gateway()
        )),
        Err(e) => out.warn(&format!(
            "the service's runtime will not start until its configuration file loads: {}",
            e.message
        )),
    }
}

fn install(
    out: &Out,
    manager: Manager,
    print: bool,
    socket: &Path,
    state: &StateDir,
) -> Result<Exit, CliError> {
    let files = render(manager, socket, state)?;
    let dir = unit_dir(manager)?;
    if print {
        let doc = json!({
            "manager": manager.token(),
            "directory": dir.display().to_string(),
            "files": files.iter().map(|u| json!({"name": u.name, "text": u.text})).collect::<Vec<_>>(),
        });
        out.result("service install", None, &doc, |_| {
            files
                .iter()
                .map(|u| format!("# {}\n{}", dir.join(&u.name).display(), u.text))
                .collect::<Vec<_>>()
                .join("\n")
        })?;
        return Ok(Exit::Ok);
    }
    for unit in &files {
        let path = dir.join(&unit.name);
        if found(&path, &unit.text) == Found::Foreign {
            return Err(CliError::usage(format!(
                "{} exists and was not written by `devint service install`; it was left untouched",
                path.display()
            ))
            .fix("move it aside (or remove it) and run `devint service install` again"));
        }
    }
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::internal(format!("cannot create {}: {e}", dir.display())))?;
    for unit in &files {
        let path = dir.join(&unit.name);
        write_atomically(&path, &unit.text)?;
        out.note(&format!("wrote {}", path.display()));
    }
    let steps = manager_steps(manager, &dir, true);
    let enabled = run_steps(out, manager, &steps)?;
    let doc = json!({
        "manager": manager.token(),
        "directory": dir.display().to_string(),
        "files": files.iter().map(|u| dir.join(&u.name).display().to_string()).collect::<Vec<_>>(),
        "enabled": enabled,
        "enable_commands": steps.iter().map(|s| s.join(" ")).collect::<Vec<_>>(),
    });
    out.result("service install", None, &doc, |_| {
        if enabled {
            format!(
                "installed and enabled the devint service ({}); the runtime starts on the first \
                 connection to {}",
                manager.token(),
                socket.display()
            )
        } else {
            format!(
                "installed the devint service files in {}; {} is not on PATH, so they are not \
                 enabled yet: run\n{}",
                dir.display(),
                manager.program(),
                steps
                    .iter()
                    .map(|s| format!("  {}", s.join(" ")))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        }
    })?;
    Ok(Exit::Ok)
}

/// Write `text` to `path` through a temporary file and a rename (never a half-written unit).
fn write_atomically(path: &Path, text: &str) -> Result<(), CliError> {
    let tmp = path.with_extension("devint-tmp");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| CliError::internal(format!("cannot write {}: {e}", path.display())))
}

fn names(manager: Manager) -> Vec<String> {
    match manager {
        Manager::Systemd => vec![SOCKET_UNIT.to_owned(), SERVICE_UNIT.to_owned()],
        Manager::Launchd => vec![format!("{LAUNCHD_LABEL}.plist")],
    }
}

fn uninstall(out: &Out, manager: Manager) -> Result<Exit, CliError> {
    let dir = unit_dir(manager)?;
    let paths: Vec<PathBuf> = names(manager).iter().map(|n| dir.join(n)).collect();
    for path in &paths {
        if found(path, "") == Found::Foreign {
            return Err(CliError::usage(format!(
                "{} was not written by `devint service install`; nothing was disabled or removed",
                path.display()
            ))
            .fix("remove it yourself if it is a devint service you wrote by hand"));
        }
    }
    let present: Vec<&PathBuf> = paths.iter().filter(|p| p.exists()).collect();
    let steps = manager_steps(manager, &dir, false);
    let disabled = if present.is_empty() {
        false
    } else {
        run_steps(out, manager, &steps)?
    };
    for path in &present {
        std::fs::remove_file(path)
            .map_err(|e| CliError::internal(format!("cannot remove {}: {e}", path.display())))?;
        out.note(&format!("removed {}", path.display()));
    }
    if disabled && manager == Manager::Systemd {
        run_steps(
            out,
            manager,
            &[vec![
                "systemctl".into(),
                "--user".into(),
                "daemon-reload".into(),
            ]],
        )?;
    }
    let doc = json!({
        "manager": manager.token(),
        "removed": present.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
        "disabled": disabled,
    });
    out.result("service uninstall", None, &doc, |_| {
        if present.is_empty() {
            format!(
                "no devint service files in {}; nothing to do",
                dir.display()
            )
        } else if disabled || on_path(manager.program()).is_some() {
            format!(
                "disabled and removed the devint service ({})",
                manager.token()
            )
        } else {
            format!(
                "removed the devint service files; {} is not on PATH, so nothing was disabled \
                 (if it runs elsewhere: {})",
                manager.program(),
                steps
                    .iter()
                    .map(|s| s.join(" "))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        }
    })?;
    Ok(Exit::Ok)
}

fn status(out: &Out, manager: Manager, socket: &Path, state: &StateDir) -> Result<Exit, CliError> {
    let files = render(manager, socket, state)?;
    let dir = unit_dir(manager)?;
    let rows: Vec<(PathBuf, Found)> = files
        .iter()
        .map(|u| {
            let p = dir.join(&u.name);
            let f = found(&p, &u.text);
            (p, f)
        })
        .collect();
    let manager_says = on_path(manager.program()).map(|program| {
        let args: Vec<String> = match manager {
            Manager::Systemd => ["--user", "is-active", SOCKET_UNIT, SERVICE_UNIT]
                .map(String::from)
                .to_vec(),
            Manager::Launchd => vec![
                "print".into(),
                format!("gui/{}/{LAUNCHD_LABEL}", rustix::process::getuid().as_raw()),
            ],
        };
        match Command::new(program).args(&args).output() {
            Ok(o) => manager_view(manager, &o.stdout, &o.stderr),
            Err(e) => format!("cannot run {}: {e}", manager.program()),
        }
    });
    let doc = json!({
        "manager": manager.token(),
        "files": rows.iter().map(|(p, f)| json!({"path": p.display().to_string(), "state": word(*f)})).collect::<Vec<_>>(),
        "manager_reports": manager_says,
    });
    out.result("service status", None, &doc, |_| {
        let mut text = String::new();
        for (p, f) in &rows {
            text.push_str(&format!("{}: {}\n", p.display(), word(*f)));
        }
        if rows.iter().any(|(_, f)| *f == Found::Stale) {
            text.push_str("run `devint service install` to bring them up to date\n");
        }
        match &manager_says {
            Some(says) => text.push_str(&format!("{}: {says}\n", manager.program())),
            None => text.push_str(&format!("{} is not on PATH\n", manager.program())),
        }
        text
    })?;
    Ok(Exit::Ok)
}
