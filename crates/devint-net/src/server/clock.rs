//! The shell's one clock read: wall-clock unix seconds, passed into the sans-IO core.

use std::time::SystemTime;

use devint::time::UnixSecs;

/// The wall clock now (the epoch if the clock is before it).
pub fn unix_now() -> UnixSecs {
    UnixSecs::from_system_time(SystemTime::now())
}
