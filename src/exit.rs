//! The exit codes of spec §9 and the one mapping from a `Denied.code` (spec §6) to them.
//!
//! Every surface that reports an outcome as spec §9's numbers — the `devint` command's
//! process exit status, the sidecar's JSON-RPC error `data.exit` — takes them from here, so
//! a denial means the same number everywhere. This module owns the numbers, the deny-code
//! mapping and the snake_case token of each deny code. It must never invent a code outside
//! spec §9, and never map a denial to success.

use crate::wire::pb::DenyCode;

/// The CLI exit codes (spec §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(into = "u8")]
// spec[S9-EXIT-CODES] §9: exactly these codes, 0–11.
pub enum Exit {
    /// 0: success.
    Ok = 0,
    /// 1: internal error.
    Internal = 1,
    /// 2: usage error.
    Usage = 2,
    /// 3: unsupported.
    Unsupported = 3,
    /// 4: incompatible.
    Incompatible = 4,
    /// 5: drifted.
    Drifted = 5,
    /// 6: verification failed.
    VerificationFailed = 6,
    /// 7: runtime not running.
    NotRunning = 7,
    /// 8: denied.
    Denied = 8,
    /// 9: aborted by the user.
    Aborted = 9,
    /// 10: runtime refuted (different build, deleted executable, more than one runtime).
    Refuted = 10,
    /// 11: runtime unverifiable (privileged command refused).
    Unverifiable = 11,
}

impl Exit {
    /// Every code, in numeric order.
    pub const ALL: [Exit; 12] = [
        Exit::Ok,
        Exit::Internal,
        Exit::Usage,
        Exit::Unsupported,
        Exit::Incompatible,
        Exit::Drifted,
        Exit::VerificationFailed,
        Exit::NotRunning,
        Exit::Denied,
        Exit::Aborted,
        Exit::Refuted,
        Exit::Unverifiable,
    ];

    /// The numeric code.
    pub const fn code(self) -> u8 {
        self as u8
    }

    /// The exit code for a `Denied.code` (spec §6 → §9): token denials are 8, a verb the
    /// negotiated version lacks is 4, an unknown tool is 3, everything else (a lifecycle
    /// error, a protocol violation, an unknown verb) is 1. Written without a wildcard arm,
    /// so a new deny code does not compile until it has a number.
    pub const fn for_denial(code: DenyCode) -> Exit {
        match code {
            DenyCode::Unauthenticated | DenyCode::TokenExpired | DenyCode::OutOfScope => {
                Exit::Denied
            }
            DenyCode::UnavailableAtVersion => Exit::Incompatible,
            DenyCode::UnknownTool => Exit::Unsupported,
            DenyCode::LifecycleError
            | DenyCode::UnknownVerb
            | DenyCode::ProtocolViolation
            | DenyCode::Unspecified => Exit::Internal,
        }
    }
}

impl From<Exit> for u8 {
    fn from(exit: Exit) -> u8 {
        exit.code()
    }
}

/// The snake_case token of a deny code (`unauthenticated`, `lifecycle_error`, …), as shown
/// in messages and JSON.
pub const fn deny_token(code: DenyCode) -> &'static str {
    match code {
        DenyCode::Unspecified => "unspecified",
        DenyCode::Unauthenticated => "unauthenticated",
        DenyCode::TokenExpired => "token_expired",
        DenyCode::OutOfScope => "out_of_scope",
        DenyCode::UnknownVerb => "unknown_verb",
        DenyCode::ProtocolViolation => "protocol_violation",
        DenyCode::UnavailableAtVersion => "unavailable_at_version",
        DenyCode::LifecycleError => "lifecycle_error",
        DenyCode::UnknownTool => "unknown_tool",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_exactly_spec_section_9() {
        for (n, exit) in Exit::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(exit.code()), n);
        }
    }

    #[test]
    fn token_denials_exit_8_and_incompatibility_exits_4() {
        for code in [
            DenyCode::Unauthenticated,
            DenyCode::TokenExpired,
            DenyCode::OutOfScope,
        ] {
            assert_eq!(Exit::for_denial(code), Exit::Denied);
        }
        assert_eq!(
            Exit::for_denial(DenyCode::UnavailableAtVersion),
            Exit::Incompatible
        );
        assert_eq!(Exit::for_denial(DenyCode::UnknownTool), Exit::Unsupported);
        assert_eq!(Exit::for_denial(DenyCode::LifecycleError), Exit::Internal);
    }

    #[test]
    fn no_denial_maps_to_success() {
        for n in 0..=8 {
            let code = DenyCode::try_from(n).expect("a deny code");
            assert_ne!(Exit::for_denial(code), Exit::Ok, "{code:?}");
        }
    }

    #[test]
    fn deny_tokens_are_the_snake_case_of_the_wire_names() {
        for n in 0..=8 {
            let code = DenyCode::try_from(n).expect("a deny code");
            let wire = code.as_str_name().trim_start_matches("DENY_CODE_");
            assert_eq!(deny_token(code), wire.to_ascii_lowercase());
        }
    }

    #[test]
    fn an_exit_serialises_as_its_number() {
        assert_eq!(
            serde_json::to_string(&Exit::Unverifiable).expect("json"),
            "11"
        );
    }
}
