//! Provenance (spec §8) as the OS sees it: the runtime's self-description captured at start
//! ([`RuntimeProvenance`], including whether the executable at its path is still the
//! running binary), the multiplicity scan ([`scan_runtimes`]), and [`FileStamp`], which
//! tells whether a file changed between two looks.
//!
//! The comparison and the standing rules are the core's (`devint::provenance`). This module
//! must never send a byte while scanning, and never report an executable present that was
//! replaced.

mod runtime;
mod scan;
mod stamp;

pub use runtime::RuntimeProvenance;
pub use scan::{is_runtime_socket_name, scan_runtimes};
pub use stamp::FileStamp;
