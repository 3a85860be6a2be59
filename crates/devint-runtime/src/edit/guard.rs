//! The panic guard around every third-party parser the runtime feeds a user's file to
//! (`toml_edit`, `toml`, `jsonc-parser`, `serde_json`, `yaml-edit`, `saphyr-parser`).
//!
//! Owns turning a parser's panic into a typed error naming the file, so a parser bug costs
//! one refused request — never a lock, a thread or the runtime. It must never swallow a
//! panic silently (the error says a parser failed and which file), and never be used around
//! code that holds a lock or leaves state half-changed: the guarded closures only parse or
//! edit a document the caller owns and throws away on error.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use super::{EditError, SettingsFormat};

/// A parser panicked on a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the parser failed on {} (a bug in the parser, caught); the file was left untouched — simplify or fix it by hand, then retry", path.display())]
pub struct ParserPanicked {
    /// The file being parsed.
    pub path: PathBuf,
}

/// Runs `parse` on the contents of `path`; a panic inside it becomes [`ParserPanicked`].
pub fn parse<T>(path: &Path, parse: impl FnOnce() -> T) -> Result<T, ParserPanicked> {
    // The closure only reads input and builds a value the caller discards on error, so no
    // broken invariant can be observed after an unwind.
    catch_unwind(AssertUnwindSafe(parse)).map_err(|_| ParserPanicked {
        path: path.to_owned(),
    })
}

/// Runs an edit-module operation on a `format` document (from `file`, when known); a panic
/// inside the editors' parsers becomes [`EditError::ParserPanicked`].
pub fn edit<T>(
    format: SettingsFormat,
    file: Option<&Path>,
    op: impl FnOnce() -> Result<T, EditError>,
) -> Result<T, EditError> {
    catch_unwind(AssertUnwindSafe(op)).unwrap_or_else(|_| {
        Err(EditError::ParserPanicked {
            format,
            file: file.map(Path::to_owned),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parser_panic_is_a_typed_error_naming_the_file() {
        let file = Path::new("/home/u/.codex/config.toml");
        let err = edit::<()>(SettingsFormat::Toml, Some(file), || {
            panic!("all items have spans")
        })
        .unwrap_err();
        assert_eq!(
            err,
            EditError::ParserPanicked {
                format: SettingsFormat::Toml,
                file: Some(file.to_owned()),
            }
        );
        assert!(
            err.to_string().contains("/home/u/.codex/config.toml"),
            "{err}"
        );
        let err = parse(file, || -> u8 { panic!("boom") }).unwrap_err();
        assert!(err.to_string().contains("config.toml"), "{err}");
        assert_eq!(parse(file, || 7).unwrap(), 7);
    }
}
