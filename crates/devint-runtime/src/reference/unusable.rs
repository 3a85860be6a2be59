//! A settings file devint cannot use as it is: one it cannot read (over the size devint
//! reads, not a regular file, not UTF-8 text, not permitted), said in one sentence naming
//! the file, with the remediation that fixes that very cause — never "make it readable" for
//! a file that is readable but too large.
//!
//! Owns those sentences for every verb that reads a settings file (`plan`, `apply`,
//! `repair`, `remove`). It must never write a file and never quote a settings value.

use devint::backend::LifecycleError;
use devint_fs::durable::DurableError;
use devint_fs::read::ReadError;

use super::text::refuse;

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
    if bytes >= MIB && bytes % MIB == 0 {
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
