//! [`EditError`]: why a settings edit or reversal was refused.
//!
//! Owns the error vocabulary of [`super`]; it must never carry a settings value, only key
//! names, positions and reasons.

use super::{KeyPath, SettingsFormat};

/// Why a settings document could not be parsed, edited or restored. Nothing was written.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EditError {
    /// The document is not valid in its format; the caller must not overwrite it.
    #[error(
        "the {format} settings document does not parse at line {line}, column {column}: \
         {reason}; it was left untouched — fix the file by hand, then retry"
    )]
    Parse {
        /// The format the document was parsed as.
        format: SettingsFormat,
        /// One-based line of the first error.
        line: usize,
        /// One-based column (in characters) of the first error.
        column: usize,
        /// What the parser reported.
        reason: String,
    },
    /// The third-party parser or editor panicked on this document (a bug in it, caught by
    /// [`super::guard`]); nothing was written.
    #[error(
        "the {format} parser failed on {} (a bug in the parser, caught); it was left untouched \
         — simplify or fix the file by hand, then retry",
        file.as_deref().map_or_else(|| "this settings document".to_owned(), |f| f.display().to_string())
    )]
    ParserPanicked {
        /// The format being parsed.
        format: SettingsFormat,
        /// The file, when known.
        file: Option<std::path::PathBuf>,
    },
    /// No format-preserving editor exists for this format (every [`SettingsFormat`] has one
    /// today; kept so callers handle a format added before its editor).
    #[error(
        "{format} settings cannot be edited in place (no format-preserving editor); \
         integrate this tool by another mechanism"
    )]
    UnsupportedFormat {
        /// The unsupported format.
        format: SettingsFormat,
    },
    /// The document is valid but uses a construct the editor does not edit (in YAML:
    /// anchors, aliases, tags, several documents…); the caller must not overwrite it.
    #[error(
        "the {format} settings document uses {construct} at line {line}, column {column}, \
         which devint does not edit; it was left untouched — rewrite that part of the file \
         or integrate this tool by hand"
    )]
    UnsupportedConstruct {
        /// The format the document was parsed as.
        format: SettingsFormat,
        /// One-based line of the construct.
        line: usize,
        /// One-based column (in characters) of the construct.
        column: usize,
        /// What the construct is, e.g. "an anchor (`&name`)".
        construct: &'static str,
    },
    /// A key path with no segment.
    #[error("a settings key path needs at least one segment")]
    EmptyKeyPath,
    /// Text that is not a key path.
    #[error("`{text}` is not a settings key path (use dotted names, quoting odd segments)")]
    BadKeyPath {
        /// The rejected text.
        text: String,
    },
    /// A container on the way to the key holds something other than an object/table.
    #[error(
        "cannot address `{path}`: {blocker} is not an object/table (found: {found}); \
         the file was left untouched — move that value away or choose another key"
    )]
    NotAContainer {
        /// The key we tried to reach.
        path: KeyPath,
        /// Where the non-container sits: `` `env` `` or `the document root`.
        blocker: String,
        /// What was found there.
        found: &'static str,
    },
    /// The value has no representation in the target format (e.g. `null` in TOML).
    #[error("cannot write `{path}` as {format}: {reason}")]
    Unrepresentable {
        /// The key being written.
        path: KeyPath,
        /// The target format.
        format: SettingsFormat,
        /// Why it cannot be represented.
        reason: &'static str,
    },
    /// The editor's output failed our read-back check; we refuse rather than risk the file.
    #[error(
        "editing the {format} document produced text that does not read back as intended \
         ({detail}); nothing was written — the file may hold duplicate keys, otherwise \
         report this file shape as a bug"
    )]
    ReadBackMismatch {
        /// The format.
        format: SettingsFormat,
        /// What did not match.
        detail: &'static str,
    },
    /// Two planned keys repeat or nest inside one another.
    #[error("planned keys `{first}` and `{second}` overlap; plan each key once and never a key inside another")]
    OverlappingKeys {
        /// The earlier key.
        first: KeyPath,
        /// The later key.
        second: KeyPath,
    },
    /// Two reversal records of different formats cannot be composed or applied.
    #[error("the reversal record is for {recorded} settings but the document is {actual}")]
    FormatMismatch {
        /// The format in the record.
        recorded: SettingsFormat,
        /// The format asked for.
        actual: SettingsFormat,
    },
    /// The reversal record's version is not one this build understands.
    #[error("reversal record version {found} is not supported (this build reads {supported})")]
    UnsupportedReversal {
        /// The version found.
        found: u32,
        /// The version this build writes and reads.
        supported: u32,
    },
}
