//! Layer 2 of the two-layer authentication: capability tokens, their scope, the enrolment
//! book's logic, and resolution of one request's token into a [`Grant`] or an
//! [`AuthDenial`] (spec §6, §7; ADR 0030 §5.3).
//!
//! This module owns:
//! - [`TokenSecret`]: 32 bytes from the OS CSPRNG, zeroized on drop, not `Debug`,
//!   `Display`, `Clone` or serialisable, read only through
//!   [`TokenSecret::expose_secret_hex`]. Its text form is exactly 64 lowercase hex characters.
//! - [`TokenId`]: a separate random id (`tok_` + 32 hex), never derived from the secret.
//! - [`Scope`]: tools (or all) × verbs; `list_tools` is the only verb exempt from the tool
//!   check; an empty set on either side grants nothing (not even `list_tools`).
//! - [`EnrolmentBook`] (plain data and resolution), [`LiveBook`] (shared in memory, the
//!   type the loom model checks) and the book's file format ([`decode_book`], [`encode_book`]:
//!   no IO). The file itself, its locking and the server's reloading copy live in
//!   `devint-net` (`devint_net::book`).
//! - `fuzz_harness` (feature `fuzzing`): the invariant checks the `enrolment_book` fuzz
//!   target and its corpus replay run against [`codec::decode_book`].
//!
//! It must never: store or log a secret (only its SHA-256 digest is kept, compared in
//! constant time); turn an unreadable book into an empty book or an allow; read the clock
//! (time is an argument) or the environment; touch a file or a socket.

mod book;
mod codec;
#[cfg(feature = "fuzzing")]
pub mod fuzz_harness;
mod grant;
mod ids;
mod live;
mod record;
mod resolve;
mod scope;
mod secret;
mod sync;

pub use book::{EnrolmentBook, EnrolmentError, MAX_TOKEN_LIFETIME};
pub use codec::{decode_book, encode_book, BookDecodeError, BOOK_FORMAT_VERSION, BOOK_MAX_BYTES};
pub use grant::{AuthDenial, Grant};
pub use ids::{ClientName, InvalidClientName, InvalidTokenId, TokenId, CLIENT_NAME_MAX};
pub use live::LiveBook;
pub use record::EnrolmentRecord;
pub use resolve::{BookStorageError, ResolveError, TokenResolver};
pub use scope::{Scope, ToolScope};
pub use secret::{
    EntropyError, MalformedToken, TokenDigest, TokenSecret, SECRET_HEX_LEN, SECRET_LEN,
};
