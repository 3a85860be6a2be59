//! Limits, timeouts and the embedding switch of the server shell.

use std::time::Duration;

/// How many connections, how long to wait, how much in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most connections open at once, all peers together. At the limit a new connection
    /// evicts the longest-idle one (one still in its handshake first, then one never
    /// authorised, then any idle one); it is refused only when every connection has a
    /// call in flight.
    pub max_connections: usize,
    /// Most connections open at once for one peer uid (at it, one of that uid's idle
    /// connections is evicted the same way).
    pub max_connections_per_uid: usize,
    /// Time a peer has to send `Hello` (spec §5 rule 8: 5 s).
    pub handshake_timeout: Duration,
    /// Time a negotiated connection may stay silent before it is closed.
    pub idle_timeout: Duration,
    /// Time one backend call may take. Past it the call's cancellation is raised: a read is
    /// answered with a deadline denial; a change stops if it has not reached its point of
    /// no return ("not applied"), else runs to completion and its real outcome is answered.
    pub request_deadline: Duration,
    /// Time a change past its deadline is still awaited before the client is told it is
    /// still running (its outcome is audited whenever it ends).
    pub mutation_grace: Duration,
    /// Time one frame write may take (a peer that stops reading is dropped).
    pub write_timeout: Duration,
    /// Requests one connection may have in flight (pipelined) before reading pauses.
    pub max_in_flight: usize,
    /// Time in-flight requests get to finish after shutdown is requested.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 1024,
            max_connections_per_uid: 1024,
            // spec[S5-R8-HANDSHAKE-TIMEOUT] §5 rule 8: 5 s to send Hello.
            handshake_timeout: Duration::from_secs(5),
            idle_timeout: Duration::from_secs(300),
            request_deadline: Duration::from_secs(60),
            mutation_grace: Duration::from_secs(60),
            write_timeout: Duration::from_secs(10),
            max_in_flight: 32,
            shutdown_grace: Duration::from_secs(5),
        }
    }
}

/// The environment variable that switches the surface on in an embedding runtime (spec §1).
pub const ENABLE_ENV: &str = "AA_DEVINT_ENABLED";

/// Whether an embedding runtime should serve the DI-API, from `AA_DEVINT_ENABLED`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServeConfig {
    /// Serve only when true.
    pub enabled: bool,
}

impl ServeConfig {
    /// Read `AA_DEVINT_ENABLED` from the process environment.
    pub fn from_env() -> ServeConfig {
        ServeConfig::from_value(std::env::var(ENABLE_ENV).ok().as_deref())
    }

    /// On only when the value is `1`, `true` or `yes` (any case); off otherwise.
    // spec[S1-ENABLE-SWITCH] §1: `1`, `true` or `yes`, case-insensitive; off otherwise.
    pub fn from_value(value: Option<&str>) -> ServeConfig {
        let enabled = value
            .map(|v| {
                let v = v.trim().to_ascii_lowercase();
                v == "1" || v == "true" || v == "yes"
            })
            .unwrap_or(false);
        ServeConfig { enabled }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enable_switch_accepts_only_1_true_yes_in_any_case() {
        for on in ["1", "true", "TRUE", "Yes", "yes", " true "] {
            assert!(ServeConfig::from_value(Some(on)).enabled, "{on}");
        }
        for off in ["", "0", "no", "on", "enabled", "y", "2", "false"] {
            assert!(!ServeConfig::from_value(Some(off)).enabled, "{off}");
        }
        assert!(!ServeConfig::from_value(None).enabled);
    }
}
