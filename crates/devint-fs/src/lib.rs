//! # devint-fs — the file layer under devint's runtime and its OS shell
//!
//! Owns the few ways devint touches files that both the reference runtime
//! (`devint-runtime`) and the socket layer (`devint-net`: the enrolment book file, the
//! client's token file, the audit log) need:
//!
//! | module | owns |
//! |---|---|
//! | [`private`] | owner-only (`0600`/`0700`) files and directories: the checks, creation, the atomic durable write |
//! | [`durable`] | durable, atomic replacement and removal of one file (temp file, `fsync`, rename, directory `fsync`) |
//! | [`mode`] | the modes a written file and the directories created for it get, as the caller decides per target |
//! | [`lock`] | the cross-process `flock` on one (tool, scope) |
//! | [`read`] | the one safe read: no blocking open (FIFO), regular files only, a size cap per kind |
//! | [`remote`] | the filesystems where a file can change without a local event (network, FUSE) |
//! | [`watch`] | an `inotify` watch on a few paths, through their symlinks, checked without blocking |
//! | `scratch`, `special` (feature `test-support`) | test support: scratch directories; the special files the safe read must refuse |
//!
//! It knows nothing of the protocol, tokens or tools, never spawns a thread or a task, and
//! never follows a symlink it created.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Every type the public API returns or holds can be named by an embedder.
#![deny(unnameable_types)]

pub mod durable;
pub mod lock;
pub mod mode;
pub mod private;
pub mod read;
pub mod remote;
#[cfg(any(test, feature = "test-support"))]
pub mod scratch;
#[cfg(any(test, feature = "test-support"))]
pub mod special;
pub mod watch;
