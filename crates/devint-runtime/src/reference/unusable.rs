//! A settings file devint cannot use as it is: one it cannot read (over the size devint
//! reads, not a regular file, not UTF-8 text, not permitted) or one that does not parse in
//! its format, said in one sentence naming the file (and the line), with the remediation
//! that fixes that very cause — never "make it readable" for a file that is readable but too
//! large.
//!
//! Owns those sentences for every verb that reads a settings file (`plan`, `apply`,
//! `repair`, `remove`), the check `plan` makes before anything is planned, and the one
//! `status` makes of the files of the scopes nothing is installed at (an installed scope's
//! file is read back by `inspect`, in the same words). It must never write a file and never
//! quote a settings value.

use std::path::Path;

use devint::backend::LifecycleError;
use devint_fs::durable::DurableError;
use devint_fs::read::ReadError;

use super::runtime::ReferenceRuntime;
use super::target::Current;
use super::text::refuse;
use crate::adapters::{self, ToolDescriptor};
use crate::edit::{EditError, SettingsDoc, SettingsFormat};
use devint::verbs::SettingsScope;

/// The sentence for the settings file at `path` that does not parse (`e`), naming the file
/// and the line; `None` for an edit error that is not about the file's syntax.
pub fn parse_sentence(e: &EditError, path: &Path) -> Option<String> {
    match e {
        EditError::Parse {
            format,
            line,
            column,
            reason,
        } => Some(format!(
            "{} does not parse as {format} at line {line}, column {column}: {reason}",
            path.display()
        )),
        EditError::UnsupportedConstruct {
            format,
            line,
            column,
            construct,
        } => Some(format!(
            "{} uses {construct} at line {line}, column {column}, which devint does not edit in {format}",
            path.display()
        )),
        EditError::ParserPanicked { format, .. } => Some(format!(
            "{} could not be parsed as {format} (the parser failed on it)",
            path.display()
        )),
        _ => None,
    }
}

/// What fixes a settings file at `path` that does not parse (`e`), then `then`.
fn parse_fix(e: &EditError, path: &Path, then: &str) -> String {
    match e {
        EditError::Parse { line, .. } => format!(
            "fix the syntax of {} at line {line} (or move it aside), then {then}",
            path.display()
        ),
        EditError::UnsupportedConstruct { line, .. } => format!(
            "write what {} says at line {line} without that construct (or move the file aside), then {then}",
            path.display()
        ),
        _ => format!(
            "simplify or fix {} by hand (or move it aside), then {then}",
            path.display()
        ),
    }
}

/// Why `current`, a settings file in `format`, cannot be used (sentence, remediation ending
/// in `then`): it does not parse. `None` when it parses, is absent, or is in a format devint
/// does not edit (reported as unsupported, not as broken).
fn unparsable(current: &Current, format: SettingsFormat, then: &str) -> Option<(String, String)> {
    let text = current.text.as_deref()?;
    let e = current
        .guarded(format, || SettingsDoc::parse(format, text))
        .err()?;
    let sentence = parse_sentence(&e, &current.path)?;
    Some((sentence, parse_fix(&e, &current.path, then)))
}

/// The refusal of a plan against `current`, a settings file in `format` that does not parse:
/// refused before anything is planned, so no consent is ever asked for a plan apply would
/// refuse.
pub fn check_parses(current: &Current, format: SettingsFormat) -> Result<(), LifecycleError> {
    match unparsable(current, format, "plan again") {
        Some((sentence, fix)) => Err(refuse(sentence, fix)),
        None => Ok(()),
    }
}

impl ReferenceRuntime {
    /// Why a settings file of `descriptor` at a scope nothing is installed at (`installed`
    /// lists the scopes that have something) cannot be used — it cannot be read, or does not parse — as a state
    /// reason and remediation; the first such file, in scope order. `None`: every such file
    /// is absent, or usable.
    pub(super) fn unusable_settings(
        &self,
        descriptor: &ToolDescriptor,
        installed: &[SettingsScope],
    ) -> Option<(String, String)> {
        let then = "plan";
        descriptor
            .settings
            .iter()
            .filter(|s| !installed.contains(&s.scope))
            .find_map(|settings| {
                let path = adapters::settings_path(
                    descriptor,
                    settings,
                    &self.config.home,
                    self.config.project_dir.as_deref(),
                )
                .ok()?;
                let path = match settings.base {
                    adapters::PathBase::Absolute => self.config.host_path(&path),
                    _ => path,
                };
                match Current::read(&path) {
                    Err(e) => Some((
                        format!("{} cannot be read: {e}", path.display()),
                        read_fix(&e, then),
                    )),
                    Ok(current) => unparsable(&current, settings.format, then),
                }
            })
    }
}

/// The refusal for a settings file that could not be read (`e`); `then` says what to do
/// once it is fixed (`plan again`, `retry`).
pub fn read_refusal(e: &DurableError, then: &str) -> LifecycleError {
    refuse(e.to_string(), read_fix(e, then))
}

/// What fixes the read failure `e`, then `then`.
fn read_fix(e: &DurableError, then: &str) -> String {
    match e {
        DurableError::Read(ReadError::TooLarge { path, limit, .. }) => format!(
            "make {} smaller than {} (or move it aside), then {then}",
            path.display(),
            size(*limit)
        ),
        DurableError::Read(ReadError::NotRegular { path, .. })
        | DurableError::NotAFile { path } => {
            format!(
                "put the settings file itself at {} (a regular file, not a directory, device or FIFO), then {then}",
                path.display()
            )
        }
        DurableError::Read(ReadError::NotText { path }) => {
            format!("save {} as UTF-8 text, then {then}", path.display())
        }
        _ => format!("make the settings file readable by you, then {then}"),
    }
}

/// A byte count in words: `4 MiB` for whole mebibytes, else bytes.
fn size(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_too_large_is_told_to_shrink_not_to_be_made_readable() {
        let e = DurableError::Read(ReadError::TooLarge {
            path: "/h/.claude/settings.json".into(),
            size: 50 << 20,
            limit: 4 << 20,
            what: "settings file",
        });
        let fix = read_fix(&e, "plan again");
        assert_eq!(
            fix,
            "make /h/.claude/settings.json smaller than 4 MiB (or move it aside), then plan again"
        );
    }
}
