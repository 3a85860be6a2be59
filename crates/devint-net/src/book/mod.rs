//! The enrolment book on disk and the server's live copy of it (spec §7).
//!
//! This module owns the book *file* ([`BookFile`]: the `0600` file in its `0700`
//! directory, atomic durable writes, the writers' `flock`) and [`SharedBook`] (the
//! server's copy, reloaded when the file changes so revocation is immediate). The format and
//! the resolution logic are the core's (`devint::auth`). It must never turn an unreadable
//! book into an empty one or an allow, and never hold a secret.

mod file;
mod shared;
mod watch;

pub use file::{BookFile, BookFileError, BookLock};
pub use shared::SharedBook;
