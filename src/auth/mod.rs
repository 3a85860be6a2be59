//! Layer 2 of the two-layer authentication: capability tokens, their scope, the enrolment
//! book, and resolution of one request's token into a [`Grant`] or an [`AuthDenial`]
//! (spec §6, §7; ADR 0030 §5.3).
//!
//! This module owns:
//! - [`TokenSecret`]: 32 bytes from the OS CSPRNG, zeroized on drop, not `Debug`,
//!   `Display`, `Clone` or serialisable, read only through
//!   [`TokenSecret::expose_secret_hex`]. Its text form is exactly 64 lowercase hex characters.
//! - [`TokenId`]: a separate random id (`tok_` + 32 hex), never derived from the secret.
//! - [`Scope`]: tools (or all) × verbs; `list_tools` is the only verb exempt from the tool
//!   check; an empty set on either side grants nothing (not even `list_tools`).
//! - [`EnrolmentBook`] (plain data and resolution), [`LiveBook`] (shared in memory, the
//!   type the loom model checks), [`BookFile`] (the `0600` file, atomic and durable
//!   writes, `flock` for writers) and [`SharedBook`] (the server's copy, reloaded when the
//!   file changes so revocation is immediate).
//! - [`fuzz_harness`]: the invariant checks the `enrolment_book` fuzz target and its
//!   corpus replay run against [`BookFile::load`].
//! - The client's token file: [`write_token_file`], [`read_token_file`], [`token_file_path`].
//!
//! It must never: store or log a secret (only its SHA-256 digest is kept, compared in
//! constant time); turn an unreadable book into an empty book or an allow; read the clock
//! (time is an argument) or the environment; open a socket.

mod book;
mod book_file;
pub mod fuzz_harness;
mod grant;
mod ids;
mod live;
pub(crate) mod private_fs;
mod scope;
mod secret;
mod shared;
mod sync;
mod token_file;

pub use book::{EnrolmentBook, EnrolmentError, EnrolmentRecord};
pub use book_file::{
    BookFile, BookFileError, BookFingerprint, BookLock, BOOK_FORMAT_VERSION, BOOK_MAX_BYTES,
};
pub use grant::{AuthDenial, Grant};
pub use ids::{ClientName, InvalidClientName, InvalidTokenId, TokenId, CLIENT_NAME_MAX};
pub use live::LiveBook;
pub use scope::{Scope, ToolScope};
pub use secret::{
    EntropyError, MalformedToken, TokenDigest, TokenSecret, SECRET_HEX_LEN, SECRET_LEN,
};
pub use shared::{ResolveError, SharedBook};
pub use token_file::{
    read_token_file, token_file_path, write_token_file, TokenFileError, DEFAULT_TOKEN_FILE_NAME,
    TOKEN_FILE_ENV,
};
