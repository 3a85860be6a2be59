//! [`UnixSecs`]: a point in time, in whole seconds since the Unix epoch — the unit of every
//! `*_unix_secs` field on the wire (spec §3), of token issue and expiry times (spec §7) and
//! of audit records (spec §10).
//!
//! This module owns the type and its arithmetic and nothing else. It must never read the
//! clock: the core is sans-IO, so `now` is always an argument; the shells convert the one
//! clock read they make with [`UnixSecs::from_system_time`]. A `UnixSecs` serialises as the
//! bare number, so every JSON form (the CLI's output, the book file, the audit log) reads
//! exactly as it did when these were plain integers.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A point in time: whole seconds since the Unix epoch (1970-01-01T00:00:00Z).
///
/// A distinct type so that a time cannot be passed where a request id, a count, a limit or
/// a DI-API version is expected (they are all bare integers on the wire).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(transparent)]
pub struct UnixSecs(u64);

impl UnixSecs {
    /// The epoch itself; on the wire, an unset time (`0`).
    pub const EPOCH: UnixSecs = UnixSecs(0);

    /// The time `secs` seconds after the epoch (a wire value, a stored value, a test's clock).
    pub const fn new(secs: u64) -> UnixSecs {
        UnixSecs(secs)
    }

    /// The number of seconds since the epoch, as the wire carries it.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Convert a clock reading; a time before the epoch reads as the epoch.
    pub fn from_system_time(time: SystemTime) -> UnixSecs {
        UnixSecs(
            time.duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        )
    }

    /// The same instant as a [`SystemTime`].
    pub fn to_system_time(self) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(self.0)
    }

    /// `self + duration` in whole seconds, saturating at the largest representable time.
    pub const fn saturating_add(self, duration: Duration) -> UnixSecs {
        UnixSecs(self.0.saturating_add(duration.as_secs()))
    }

    /// `self - duration` in whole seconds, saturating at the epoch.
    pub const fn saturating_sub(self, duration: Duration) -> UnixSecs {
        UnixSecs(self.0.saturating_sub(duration.as_secs()))
    }

    /// How long after `earlier` this is; zero if it is not after it.
    pub const fn duration_since(self, earlier: UnixSecs) -> Duration {
        Duration::from_secs(self.0.saturating_sub(earlier.0))
    }
}

/// `time + duration`, saturating (see [`UnixSecs::saturating_add`]).
impl std::ops::Add<Duration> for UnixSecs {
    type Output = UnixSecs;
    fn add(self, duration: Duration) -> UnixSecs {
        self.saturating_add(duration)
    }
}

/// `time - duration`, saturating at the epoch (see [`UnixSecs::saturating_sub`]).
impl std::ops::Sub<Duration> for UnixSecs {
    type Output = UnixSecs;
    fn sub(self, duration: Duration) -> UnixSecs {
        self.saturating_sub(duration)
    }
}

impl std::ops::AddAssign<Duration> for UnixSecs {
    fn add_assign(&mut self, duration: Duration) {
        *self = self.saturating_add(duration);
    }
}

impl std::ops::SubAssign<Duration> for UnixSecs {
    fn sub_assign(&mut self, duration: Duration) {
        *self = self.saturating_sub(duration);
    }
}

impl std::fmt::Display for UnixSecs {
    /// The bare number of seconds, as JSON and the wire carry it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_as_the_bare_number() {
        let t = UnixSecs::new(1_732_000_000);
        assert_eq!(serde_json::to_string(&t).unwrap(), "1732000000");
        assert_eq!(serde_json::from_str::<UnixSecs>("1732000000").unwrap(), t);
        assert_eq!(t.to_string(), "1732000000");
    }

    #[test]
    fn arithmetic_saturates_instead_of_wrapping() {
        let max = UnixSecs::new(u64::MAX);
        assert_eq!(max.saturating_add(Duration::from_secs(10)), max);
        assert_eq!(
            UnixSecs::EPOCH.saturating_sub(Duration::from_secs(10)),
            UnixSecs::EPOCH
        );
        assert_eq!(
            UnixSecs::new(5).duration_since(UnixSecs::new(9)),
            Duration::ZERO
        );
        assert_eq!(
            UnixSecs::new(9).duration_since(UnixSecs::new(5)),
            Duration::from_secs(4)
        );
        let mut t = UnixSecs::new(10);
        t += Duration::from_secs(5);
        assert_eq!(t, UnixSecs::new(15));
        t -= Duration::from_secs(20);
        assert_eq!(t, UnixSecs::EPOCH);
        assert_eq!(max + Duration::from_secs(1), max);
    }

    #[test]
    fn converts_to_and_from_system_time() {
        let t = UnixSecs::new(1_700_000_123);
        assert_eq!(UnixSecs::from_system_time(t.to_system_time()), t);
        let before_epoch = UNIX_EPOCH - Duration::from_secs(1);
        assert_eq!(UnixSecs::from_system_time(before_epoch), UnixSecs::EPOCH);
    }
}
