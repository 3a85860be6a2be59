//! The runtime's configuration files: what `devint serve` takes as flags (gateway URL, plan
//! lifetime, upgrade behaviour, project directory, log level), kept in TOML so that a
//! runtime a service manager starts, with no flags, is configured too.
//!
//! Two files are read, a later one overriding an earlier one key by key: the machine's
//! (`/etc/devint/config.toml`; `AA_DEVINT_SYSTEM_CONFIG_DIR` names another directory) and
//! the user's (`$XDG_CONFIG_HOME/devint/config.toml`, else `~/.config/devint/config.toml`).
//! Flags and environment variables override both (the order is [`crate::serve`]'s).
//!
//! This module owns the keys, the check of each value, reading the files and `devint config
//! get|set|unset|show`. A malformed file, an unknown key or a refused value is an error
//! naming the file, the line and the key, never a silent default: a misspelt key ignored
//! would be a runtime that quietly plans nothing. Edits go through `toml_edit` (comments
//! and layout survive) and are written atomically through `devint_fs`. It must never echo
//! a refused value: a URL may carry a password.

use std::path::{Path, PathBuf};
use std::time::Duration;

use devint_fs::mode::{Existing, Mode, Modes};
use devint_fs::read::{Follow, Limit};
use devint_runtime::reference::PolicyUrl;
use serde_json::json;

use crate::exit::{CliError, Exit};
use crate::output::Out;
use crate::upgrade::OnUpgrade;

/// The environment variable naming the directory of the machine's configuration file
/// (default `/etc/devint`).
pub const SYSTEM_CONFIG_DIR_ENV: &str = "AA_DEVINT_SYSTEM_CONFIG_DIR";

/// The machine's configuration directory when [`SYSTEM_CONFIG_DIR_ENV`] is not set.
const SYSTEM_CONFIG_DIR: &str = "/etc/devint";

/// The file name in either directory.
const FILE_NAME: &str = "config.toml";

/// The most devint reads of a configuration file (real ones are a few lines).
const LIMIT: Limit = Limit {
    bytes: 64 * 1024,
    what: "configuration file",
};

/// The command that sets a gateway URL: what every "no gateway URL" warning tells.
pub const SET_GATEWAY: &str = "devint config set gateway_url https://…";

/// What a runtime without a gateway URL means, and the command that gives it one: the
/// serve banner's, `devint status`'s and `devint config show`'s warning.
pub fn no_gateway() -> String {
    format!(
        "no gateway URL is configured, so plans route no model traffic (a plan has no gateway \
         step); set one with `{SET_GATEWAY}`, then `devint restart`"
    )
}

/// A key of the configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    /// `serve --gateway-url`.
    GatewayUrl,
    /// `serve --plan-ttl`.
    PlanTtl,
    /// `serve --on-upgrade`.
    OnUpgrade,
    /// `serve --project-dir`.
    ProjectDir,
    /// The runtime's log level (`serve -v`/`-q`; `RUST_LOG` overrides).
    LogLevel,
}

impl Key {
    /// Every key, in the order `config show` lists them.
    pub const ALL: [Key; 5] = [
        Key::GatewayUrl,
        Key::PlanTtl,
        Key::OnUpgrade,
        Key::ProjectDir,
        Key::LogLevel,
    ];

    /// Its name in the file.
    pub fn name(self) -> &'static str {
        match self {
            Key::GatewayUrl => "gateway_url",
            Key::PlanTtl => "plan_ttl",
            Key::OnUpgrade => "on_upgrade",
            Key::ProjectDir => "project_dir",
            Key::LogLevel => "log_level",
        }
    }

    /// What overrides it, in words.
    fn overridden_by(self) -> &'static str {
        match self {
            Key::GatewayUrl => "--gateway-url, AA_DEVINT_GATEWAY_URL",
            Key::PlanTtl => "--plan-ttl",
            Key::OnUpgrade => "--on-upgrade",
            Key::ProjectDir => "--project-dir",
            Key::LogLevel => "-v, -q, RUST_LOG",
        }
    }

    /// Its value when no file sets it.
    fn default_words(self) -> &'static str {
        match self {
            Key::GatewayUrl => "none: plans route no model traffic",
            Key::PlanTtl => "15m",
            Key::OnUpgrade => "reexec",
            Key::ProjectDir => "none: --scope project is refused",
            Key::LogLevel => "info",
        }
    }

    /// The key named `name`, or a refusal listing every key.
    pub fn parse(name: &str) -> Result<Key, String> {
        Key::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                let names = Key::ALL.map(Key::name);
                let hint = crate::suggest::closest(&name.replace('-', "_"), names)
                    .map(|k| format!(" (did you mean {k}?)"))
                    .unwrap_or_default();
                format!(
                    "unknown key `{}`{hint}; the keys are {}",
                    name.escape_default(),
                    names.join(", ")
                )
            })
    }

    /// Check `text` as this key's value (never echoing it).
    fn check(self, text: &str) -> Result<Value, String> {
        match self {
            Key::GatewayUrl => PolicyUrl::parse(text)
                .map(Value::Url)
                .map_err(|e| format!("the gateway URL {e}")),
            Key::PlanTtl => {
                crate::args::parse_plan_ttl(text).map(|d| Value::Span(d, text.trim().to_owned()))
            }
            Key::OnUpgrade => <OnUpgrade as clap::ValueEnum>::from_str(text, false)
                .map(Value::OnUpgrade)
                .map_err(|_| "on_upgrade is reexec or exit".to_owned()),
            Key::ProjectDir => {
                let path = PathBuf::from(text);
                if path.is_absolute() {
                    Ok(Value::Path(path))
                } else {
                    Err("project_dir must be an absolute path".to_owned())
                }
            }
            Key::LogLevel => LogLevel::parse(text).map(Value::Level),
        }
    }
}

/// The runtime's log level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    /// Errors only.
    Error,
    /// Warnings and errors.
    Warn,
    /// What the runtime does (its default).
    Info,
    /// Detail for a bug report.
    Debug,
    /// Everything.
    Trace,
}

impl LogLevel {
    const ALL: [LogLevel; 5] = [
        LogLevel::Error,
        LogLevel::Warn,
        LogLevel::Info,
        LogLevel::Debug,
        LogLevel::Trace,
    ];

    /// Its name (also a `tracing` filter directive).
    pub fn name(self) -> &'static str {
        match self {
            LogLevel::Error => "error",
            LogLevel::Warn => "warn",
            LogLevel::Info => "info",
            LogLevel::Debug => "debug",
            LogLevel::Trace => "trace",
        }
    }

    fn parse(text: &str) -> Result<LogLevel, String> {
        LogLevel::ALL
            .into_iter()
            .find(|l| l.name() == text)
            .ok_or_else(|| {
                format!(
                    "log_level is one of {}",
                    LogLevel::ALL.map(LogLevel::name).join(", ")
                )
            })
    }
}

/// A checked value.
#[derive(Debug, Clone)]
enum Value {
    Url(PolicyUrl),
    /// A duration and how the file spelled it.
    Span(Duration, String),
    OnUpgrade(OnUpgrade),
    Path(PathBuf),
    Level(LogLevel),
}

impl Value {
    /// How `config get` and `config show` print it.
    fn shown(&self) -> String {
        match self {
            Value::Url(u) => u.as_str().to_owned(),
            Value::Span(_, text) => text.clone(),
            Value::OnUpgrade(o) => <OnUpgrade as clap::ValueEnum>::to_possible_value(o)
                .map(|v| v.get_name().to_owned())
                .unwrap_or_default(),
            Value::Path(p) => p.display().to_string(),
            Value::Level(l) => l.name().to_owned(),
        }
    }
}

/// A value and the file it came from.
#[derive(Debug, Clone)]
pub struct Sourced<T> {
    /// The value.
    pub value: T,
    /// The file that set it.
    pub file: PathBuf,
}

/// What the configuration files say, checked; a key no file sets is `None`.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `gateway_url`.
    pub gateway_url: Option<Sourced<PolicyUrl>>,
    /// `plan_ttl`.
    pub plan_ttl: Option<Sourced<Duration>>,
    /// `on_upgrade`.
    pub on_upgrade: Option<Sourced<OnUpgrade>>,
    /// `project_dir`.
    pub project_dir: Option<Sourced<PathBuf>>,
    /// `log_level`.
    pub log_level: Option<Sourced<LogLevel>>,
    /// Each key set, as shown, and its file (for `config show` and `get`).
    shown: Vec<(Key, String, PathBuf)>,
    /// The files read, in order, and whether each exists.
    files: Vec<(PathBuf, bool)>,
}

impl Settings {
    fn put(&mut self, key: Key, value: Value, file: &Path) {
        let file = file.to_path_buf();
        self.shown.retain(|(k, _, _)| *k != key);
        self.shown.push((key, value.shown(), file.clone()));
        match value {
            Value::Url(value) => self.gateway_url = Some(Sourced { value, file }),
            Value::Span(value, _) => self.plan_ttl = Some(Sourced { value, file }),
            Value::OnUpgrade(value) => self.on_upgrade = Some(Sourced { value, file }),
            Value::Path(value) => self.project_dir = Some(Sourced { value, file }),
            Value::Level(value) => self.log_level = Some(Sourced { value, file }),
        }
    }

    /// What `key` is set to, as shown, and by which file.
    fn get(&self, key: Key) -> Option<(&str, &Path)> {
        self.shown
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, v, f)| (v.as_str(), f.as_path()))
    }
}

/// Where the configuration files are.
#[derive(Debug, Clone)]
pub struct ConfigFiles {
    /// The machine's file.
    pub system: PathBuf,
    /// The user's file, if HOME (or XDG_CONFIG_HOME) says where it is.
    pub user: Option<PathBuf>,
}

impl ConfigFiles {
    /// The files this process reads, from the environment.
    pub fn locate() -> ConfigFiles {
        let absolute = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty() && Path::new(v).is_absolute())
                .map(PathBuf::from)
        };
        let system = absolute(SYSTEM_CONFIG_DIR_ENV)
            .unwrap_or_else(|| PathBuf::from(SYSTEM_CONFIG_DIR))
            .join(FILE_NAME);
        let user = absolute("XDG_CONFIG_HOME")
            .or_else(|| absolute("HOME").map(|h| h.join(".config")))
            .map(|c| c.join("devint").join(FILE_NAME));
        ConfigFiles { system, user }
    }

    /// The user's file, or why there is none.
    pub fn user(&self) -> Result<&Path, CliError> {
        self.user.as_deref().ok_or_else(|| {
            CliError::usage("cannot locate your configuration file: HOME is not set")
                .fix("set HOME (or XDG_CONFIG_HOME)")
        })
    }

    /// Read and check both files (the user's overriding the machine's).
    pub fn load(&self) -> Result<Settings, CliError> {
        let mut settings = Settings::default();
        for file in std::iter::once(&self.system).chain(&self.user) {
            let text = read(file)?;
            settings.files.push((file.clone(), text.is_some()));
            if let Some(text) = text {
                for (key, value) in parse(file, &text)? {
                    settings.put(key, value, file);
                }
            }
        }
        Ok(settings)
    }
}

/// The text of `file`, `None` when there is none.
fn read(file: &Path) -> Result<Option<String>, CliError> {
    devint_fs::read::read_text(file, Follow::Symlinks, LIMIT)
        .map_err(|e| CliError::usage(format!("cannot read the configuration file: {e}")))
}

/// The 1-based line of byte `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// Every key of `text` checked: a malformed document, an unknown key, a value that is not a
/// string or is refused is an error naming `file`, the line and the key.
fn parse(file: &Path, text: &str) -> Result<Vec<(Key, Value)>, CliError> {
    let fix = format!(
        "edit {} (or `devint config set KEY VALUE`, `devint config unset KEY`); `devint config show` reads it again",
        file.display()
    );
    let doc = toml_edit::Document::parse(text.to_owned()).map_err(|e| {
        let line = e.span().map_or(1, |s| line_of(text, s.start));
        CliError::usage(format!(
            "{} is not valid TOML: line {line}: {}",
            file.display(),
            e.message()
        ))
        .fix(fix.clone())
    })?;
    let mut values = Vec::new();
    for (key, item) in doc.as_table().get_values() {
        // A dotted key (`a.b = 1`) names a table: never one of ours.
        let name = key.iter().map(|k| k.get()).collect::<Vec<_>>().join(".");
        let line = key
            .first()
            .and_then(|k| k.span())
            .map_or(1, |s| line_of(text, s.start));
        let at = |why: String| {
            CliError::usage(format!("{} line {line}: {why}", file.display())).fix(fix.clone())
        };
        let k = Key::parse(&name).map_err(at)?;
        let given = item
            .as_str()
            .ok_or_else(|| at(format!("{name} must be a string (in quotes)")))?;
        values.push((
            k,
            k.check(given).map_err(|why| at(format!("{name}: {why}")))?,
        ));
    }
    for (name, item) in doc.as_table().iter() {
        if item.is_table() || item.is_array_of_tables() {
            let line = doc
                .as_table()
                .get_key_value(name)
                .and_then(|(k, _)| k.span())
                .map_or(1, |s| line_of(text, s.start));
            return Err(CliError::usage(format!(
                "{} line {line}: unknown table `[{}]`; the keys are {}, at the top of the file",
                file.display(),
                name.escape_default(),
                Key::ALL.map(Key::name).join(", ")
            ))
            .fix(fix));
        }
    }
    Ok(values)
}

/// `devint config …`.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ConfigAction {
    /// Print the value a configuration file sets for KEY (nothing when none does).
    #[command(after_help = "Example:\n  devint config get gateway_url")]
    Get {
        /// The key: gateway_url, plan_ttl, on_upgrade, project_dir, log_level.
        #[arg(value_parser = clap::builder::PossibleValuesParser::new(Key::ALL.map(Key::name)))]
        key: String,
    },
    /// Check VALUE and write it for KEY, keeping the file's comments and layout.
    #[command(
        after_help = "Examples:\n  devint config set gateway_url https://gateway.example.com\n  devint config set plan_ttl 30m\n  devint config set log_level debug\n\nThe runtime reads the file when it starts: `devint restart` puts the change in force."
    )]
    Set {
        /// The key: gateway_url, plan_ttl, on_upgrade, project_dir, log_level.
        #[arg(value_parser = clap::builder::PossibleValuesParser::new(Key::ALL.map(Key::name)))]
        key: String,
        /// Its value (a gateway URL is an absolute http:// or https:// URL without
        /// credentials; plan_ttl a duration of at most a day; on_upgrade reexec or exit;
        /// project_dir an absolute path; log_level error, warn, info, debug or trace).
        value: String,
        /// Write the machine's file (/etc/devint/config.toml) instead of yours.
        #[arg(long)]
        system: bool,
    },
    /// Remove KEY from the file, keeping everything else.
    #[command(after_help = "Example:\n  devint config unset plan_ttl")]
    Unset {
        /// The key: gateway_url, plan_ttl, on_upgrade, project_dir, log_level.
        #[arg(value_parser = clap::builder::PossibleValuesParser::new(Key::ALL.map(Key::name)))]
        key: String,
        /// Edit the machine's file (/etc/devint/config.toml) instead of yours.
        #[arg(long)]
        system: bool,
    },
    /// Every key: its value and the file that sets it, or its default; and what overrides it.
    #[command(after_help = "Example:\n  devint config show")]
    Show,
}

impl ConfigAction {
    /// The command's name in JSON output and messages.
    pub fn name(&self) -> &'static str {
        match self {
            ConfigAction::Get { .. } => "config get",
            ConfigAction::Set { .. } => "config set",
            ConfigAction::Unset { .. } => "config unset",
            ConfigAction::Show => "config show",
        }
    }
}

/// Run `devint config ACTION`.
pub fn run(out: &Out, action: &ConfigAction) -> Result<Exit, CliError> {
    let files = ConfigFiles::locate();
    let key = |name: &str| Key::parse(name).map_err(CliError::usage);
    let target = |system: bool| -> Result<PathBuf, CliError> {
        if system {
            Ok(files.system.clone())
        } else {
            files.user().map(Path::to_path_buf)
        }
    };
    match action {
        ConfigAction::Get { key: name } => get(out, &files, key(name)?),
        ConfigAction::Set {
            key: name,
            value,
            system,
        } => {
            let file = target(*system)?;
            let stored = set(&file, key(name)?, value)?;
            let doc = json!({ "file": file.display().to_string(), "key": name, "value": stored });
            out.result("config set", None, &doc, |_| {
                format!(
                    "{name} = {stored:?} in {}\nA running runtime reads it when it starts again: `devint restart`.",
                    file.display()
                )
            })?;
            Ok(Exit::Ok)
        }
        ConfigAction::Unset { key: name, system } => {
            let file = target(*system)?;
            let removed = unset(&file, key(name)?)?;
            let doc =
                json!({ "file": file.display().to_string(), "key": name, "removed": removed });
            out.result("config unset", None, &doc, |_| {
                if removed {
                    format!("removed {name} from {}", file.display())
                } else {
                    format!("{} does not set {name}; nothing to do", file.display())
                }
            })?;
            Ok(Exit::Ok)
        }
        ConfigAction::Show => show(out, &files),
    }
}

fn get(out: &Out, files: &ConfigFiles, key: Key) -> Result<Exit, CliError> {
    let settings = files.load()?;
    let found = settings.get(key);
    let doc = json!({
        "key": key.name(),
        "value": found.map(|(v, _)| v),
        "file": found.map(|(_, f)| f.display().to_string()),
    });
    // Unset prints nothing on stdout, so `$(devint config get KEY)` is empty.
    if out.json() || found.is_some() {
        out.result("config get", None, &doc, |_| {
            found.map(|(value, _)| value.to_owned()).unwrap_or_default()
        })?;
    }
    if found.is_none() {
        out.note(&format!(
            "no configuration file sets {}; its default: {}",
            key.name(),
            key.default_words()
        ));
    }
    Ok(Exit::Ok)
}

fn show(out: &Out, files: &ConfigFiles) -> Result<Exit, CliError> {
    let settings = files.load()?;
    let rows: Vec<_> = Key::ALL.into_iter().map(|k| (k, settings.get(k))).collect();
    let doc = json!({
        "files": settings.files.iter().map(|(f, exists)| json!({"path": f.display().to_string(), "exists": exists})).collect::<Vec<_>>(),
        "keys": rows.iter().map(|(k, found)| json!({
            "key": k.name(),
            "value": found.map(|(v, _)| v),
            "file": found.map(|(_, f)| f.display().to_string()),
            "default": k.default_words(),
            "overridden_by": k.overridden_by(),
        })).collect::<Vec<_>>(),
    });
    out.result("config show", None, &doc, |page| {
        let mut text = String::from("files (a later one overrides an earlier one):\n");
        for (f, exists) in &settings.files {
            let state = if *exists { "read" } else { "absent" };
            text.push_str(&format!("  {} ({state})\n", f.display()));
        }
        text.push('\n');
        let mut t = page.table(&["KEY", "VALUE", "FROM", "OVERRIDDEN BY"]);
        for (k, found) in &rows {
            let (value, from) = match found {
                Some((v, f)) => (v.to_string(), f.display().to_string()),
                None => (k.default_words().to_owned(), "default".to_owned()),
            };
            t.row([
                k.name().to_owned(),
                value,
                from,
                k.overridden_by().to_owned(),
            ]);
        }
        text.push_str(&t.render(""));
        if settings.gateway_url.is_none() {
            text.push_str(&format!(
                "\nwarning: unless --gateway-url or AA_DEVINT_GATEWAY_URL is given, {}\n",
                no_gateway()
            ));
        }
        text
    })?;
    Ok(Exit::Ok)
}

/// The modes a configuration file is written with: readable by others (it holds no
/// secret, and a machine's file is read by every user), an existing file's mode kept.
const MODES: Modes = Modes {
    file: Mode::Umasked(0o644),
    existing: Existing::Kept,
    dirs: Mode::Umasked(0o755),
};

/// Check `value` for `key` and write it into `file`, keeping every other line; answers the
/// value as stored (a URL normalised). The file as it is must read back without error,
/// so a broken file is never made worse.
pub fn set(file: &Path, key: Key, value: &str) -> Result<String, CliError> {
    let checked = key.check(value).map_err(|why| {
        CliError::usage(format!("{} not set: {why}", key.name())).fix(format!(
            "`devint config set {} VALUE` with a valid value; nothing was written",
            key.name()
        ))
    })?;
    // The normalised URL, the text otherwise.
    let stored = checked.shown();
    edit(file, |doc| {
        let table = doc.as_table_mut();
        match table.get_mut(key.name()).and_then(|i| i.as_value_mut()) {
            // Replace the value only: the key's comments and spacing stay.
            Some(existing) => {
                let decor = existing.decor().clone();
                *existing = toml_edit::Value::from(stored.clone());
                *existing.decor_mut() = decor;
            }
            None => {
                table.insert(key.name(), toml_edit::value(stored.clone()));
            }
        }
        true
    })?;
    Ok(stored)
}

/// Remove `key` from `file`; whether it was there.
pub fn unset(file: &Path, key: Key) -> Result<bool, CliError> {
    edit(file, |doc| doc.as_table_mut().remove(key.name()).is_some())
}

/// Read `file` (checked as [`parse`] checks it), let `change` edit it, and write it back
/// atomically when `change` says it changed something.
fn edit(
    file: &Path,
    change: impl FnOnce(&mut toml_edit::DocumentMut) -> bool,
) -> Result<bool, CliError> {
    let text = read(file)?.unwrap_or_default();
    parse(file, &text)?;
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e: toml_edit::TomlError| {
        CliError::usage(format!(
            "{} is not valid TOML: {}",
            file.display(),
            e.message()
        ))
    })?;
    if !change(&mut doc) {
        return Ok(false);
    }
    devint_fs::durable::write_atomic(file, doc.to_string().as_bytes(), &MODES).map_err(|e| {
        CliError::internal(format!("cannot write the configuration file: {e}")).fix(
            "check the permissions of the file and its directory (the machine's file needs root)",
        )
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Vec<(Key, Value)>, CliError> {
        parse(Path::new("/c/config.toml"), text)
    }

    #[test]
    fn a_malformed_file_is_refused_naming_the_file_and_line() {
        let e = parsed("# ok\ngateway_url = \"http://gw\"\nplan_ttl = \n").unwrap_err();
        assert!(
            e.message
                .contains("/c/config.toml is not valid TOML: line 3"),
            "{}",
            e.message
        );
        assert!(e.remediation.unwrap().contains("edit /c/config.toml"));
    }

    #[test]
    fn an_unknown_key_is_refused_naming_it_and_the_keys() {
        let e = parsed("\n\ngateway-url = \"http://gw\"\n").unwrap_err();
        assert!(
            e.message
                .contains("/c/config.toml line 3: unknown key `gateway-url`"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("did you mean gateway_url"),
            "{}",
            e.message
        );
        assert!(e.message.contains("log_level"), "{}", e.message);
        let e = parsed("[serve]\ngateway_url = \"http://gw\"\n").unwrap_err();
        assert!(e.message.contains("unknown"), "{}", e.message);
    }

    #[test]
    fn a_refused_value_names_the_key_and_never_the_value() {
        let e = parsed("gateway_url = \"https://u:hunter2@gw\"\n").unwrap_err();
        assert!(
            e.message.contains("line 1: gateway_url: the gateway URL"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("hunter2"), "{}", e.message);
        let e = parsed("plan_ttl = 15\n").unwrap_err();
        assert!(e.message.contains("must be a string"), "{}", e.message);
        assert!(parsed("plan_ttl = \"2d\"\n").is_err());
        assert!(parsed("project_dir = \"relative\"\n").is_err());
        assert!(parsed("log_level = \"loud\"\n").is_err());
    }

    #[test]
    fn every_key_reads_back() {
        let values = parsed(
            "gateway_url = \"HTTP://GW:80/\"\nplan_ttl = \"30m\"\non_upgrade = \"exit\"\nproject_dir = \"/p\"\nlog_level = \"debug\"\n",
        )
        .unwrap();
        let shown: Vec<String> = values.iter().map(|(_, v)| v.shown()).collect();
        assert_eq!(shown, ["http://gw", "30m", "exit", "/p", "debug"]);
    }

    #[test]
    fn set_keeps_comments_and_replaces_only_the_value() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("devint/config.toml");
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            "# our gateway\ngateway_url = \"http://old\"  # the team's\n\n# slower reviews\nplan_ttl = \"1h\"\n",
        )
        .unwrap();
        set(&file, Key::GatewayUrl, "https://new.example").unwrap();
        set(&file, Key::LogLevel, "debug").unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "# our gateway\ngateway_url = \"https://new.example\"  # the team's\n\n# slower reviews\nplan_ttl = \"1h\"\nlog_level = \"debug\"\n"
        );
        assert!(unset(&file, Key::PlanTtl).unwrap());
        assert!(!unset(&file, Key::PlanTtl).unwrap());
        assert!(!std::fs::read_to_string(&file).unwrap().contains("plan_ttl"));
    }

    #[test]
    fn set_refuses_a_bad_value_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let e = set(&file, Key::GatewayUrl, "ftp://gw").unwrap_err();
        assert!(e.message.contains("gateway_url not set"), "{}", e.message);
        assert!(!file.exists());
    }

    #[test]
    fn set_refuses_to_edit_a_broken_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        std::fs::write(&file, "gateway_url = \n").unwrap();
        assert!(set(&file, Key::LogLevel, "info").is_err());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "gateway_url = \n");
    }
}
