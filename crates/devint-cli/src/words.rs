//! The words a person reads for each spec §4 token, and how times are written.
//!
//! This module owns the human side's vocabulary: every wire token the command shows a
//! person goes through one function here, so the same token always reads the same way and
//! the JSON output (which keeps the wire tokens, `docs/cli.md`) never sees these words. It
//! must never change what a token means: a word may explain, never upgrade (a client
//! renders the state the runtime computed, ADR 0030 §4.2 rule 4).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use devint::verbs::{
    AdapterCeiling, ApplyMutation, CapabilityName, Compatibility, Evidence, ExercisedOutcome,
    HostAttestedOutcome, Level, Phase, PolicyState, Privilege, Profile, ReadBackOutcome,
    SettingsScope, StatusState, StepOutcome, Support, UserInput, VerdictKind, VerificationOutcome,
};

/// A rung of the protection ladder.
pub fn level(l: Level) -> &'static str {
    match l {
        Level::NotInstalled => "not installed",
        Level::DetectedNotIntegrated => "detected, not integrated",
        Level::PartiallyIntegrated => "partially integrated",
        Level::Integrated => "integrated",
        Level::GatewayProtected => "gateway protected",
        Level::HostEnforced => "host enforced",
    }
}

/// Why a tool stands on `l` and not higher, in one clause (empty when nothing needs saying).
pub fn level_meaning(l: Level) -> &'static str {
    match l {
        Level::NotInstalled => "the tool is not on this host",
        Level::DetectedNotIntegrated => "devint has installed nothing for it",
        Level::PartiallyIntegrated => "installed, but no fresh verification has read it back yet",
        Level::Integrated => "installed and read back by a fresh verification",
        Level::GatewayProtected => "a gateway observed protected traffic",
        Level::HostEnforced => "the host enforces it",
    }
}

/// Where the lifecycle stands.
pub fn phase(p: Phase) -> &'static str {
    match p {
        Phase::NotInstalled => "not installed",
        Phase::DetectedNotIntegrated => "nothing installed",
        Phase::Planned => "planned",
        Phase::Installed => "installed",
        Phase::PartiallyInstalled => "partly installed",
        Phase::RemovalPending => "removal pending",
    }
}

/// A condition overriding the ladder (`None` for `ladder`: nothing overrides).
pub fn condition(s: StatusState) -> Option<&'static str> {
    match s {
        StatusState::Ladder => None,
        StatusState::Drifted => Some("drifted"),
        StatusState::Degraded => Some("degraded"),
        StatusState::Incompatible => Some("incompatible"),
    }
}

/// How far an adapter can integrate its tool at best.
pub fn ceiling(c: AdapterCeiling) -> &'static str {
    match c {
        AdapterCeiling::L0Discover => "discovery only (L0)",
        AdapterCeiling::L1Observe => "observe (L1)",
        AdapterCeiling::L2Enforce => "enforce (L2)",
        AdapterCeiling::L3Native => "native (L3)",
    }
}

/// Whether the installed version suits the adapter.
pub fn compatibility(c: Compatibility) -> &'static str {
    match c {
        Compatibility::Compatible => "compatible",
        Compatibility::Unknown => "unknown",
        Compatibility::Incompatible => "incompatible",
    }
}

/// Whether a capability is available.
pub fn support(s: Support) -> &'static str {
    match s {
        Support::Supported => "supported",
        Support::Unsupported => "not supported",
        Support::RequiresVersion => "needs a newer version",
        Support::Absent => "not declared",
    }
}

/// An integration capability.
pub fn capability(c: CapabilityName) -> &'static str {
    match c {
        CapabilityName::Discovery => "discovery",
        CapabilityName::ManagedSettings => "managed settings",
        CapabilityName::ManagedLaunch => "managed launch",
        CapabilityName::ModelPathInterception => "model path interception",
        CapabilityName::ModelGatewayBaseUrl => "model gateway URL",
        CapabilityName::HttpProxy => "HTTP proxy",
        CapabilityName::Hooks => "hooks",
        CapabilityName::McpDiscovery => "MCP discovery",
        CapabilityName::McpGovernance => "MCP governance",
        CapabilityName::ToolActionApproval => "tool action approval",
        CapabilityName::NativeIdeUi => "native IDE UI",
        CapabilityName::HostEnforcement => "host enforcement",
    }
}

/// A mechanism named by evidence or events: a capability's words when it is one, else the
/// token with its separators as spaces.
pub fn mechanism(token: &str) -> String {
    match CapabilityName::parse(token) {
        Ok(c) => capability(c).to_owned(),
        Err(_) => spaced(token),
    }
}

/// Who a step runs as.
pub fn privilege(p: Privilege) -> &'static str {
    match p {
        Privilege::User => "you",
        Privilege::PrivilegedHost => "administrator",
    }
}

/// A settings scope.
pub fn scope(s: SettingsScope) -> &'static str {
    match s {
        SettingsScope::User => "your user settings",
        SettingsScope::Project => "the project's settings",
        SettingsScope::Managed => "the machine's managed settings",
    }
}

/// An integration profile.
pub fn profile(p: Profile) -> &'static str {
    match p {
        Profile::Recommended => "recommended",
        Profile::Strict => "strict",
        Profile::ObserveOnly => "observe only",
    }
}

/// What an integration profile asks of a tool, for `--help`.
pub fn profile_help(p: Profile) -> &'static str {
    match p {
        Profile::Recommended => {
            "route model traffic through the gateway, and install the policy's hooks and deny lists"
        }
        Profile::Strict => "as recommended, and every tool action needs approval",
        Profile::ObserveOnly => "only route traffic through the gateway; enforce nothing",
    }
}

/// One step's outcome.
pub fn step_outcome(o: StepOutcome) -> &'static str {
    match o {
        StepOutcome::Applied => "done",
        StepOutcome::Skipped => "skipped",
        StepOutcome::Failed => "failed",
    }
}

/// What a successful apply did, after "Plan X applied to TOOL" (empty when the runtime
/// did not say: a v4 runtime, or `changed`, where only the receipt is sure to be new).
pub fn applied(m: Option<ApplyMutation>) -> &'static str {
    match m {
        Some(ApplyMutation::Unchanged) => ": nothing needed changing",
        Some(ApplyMutation::Changed | ApplyMutation::Failed | ApplyMutation::Unsupported)
        | None => "",
        Some(ApplyMutation::Unknown(_)) => {
            " (the runtime reported an outcome this devint cannot name)"
        }
        // A mutation this build cannot name says nothing more either.
        Some(_) => "",
    }
}

/// Evidence, in words: what was observed about a mechanism.
pub fn evidence(e: &Evidence) -> String {
    match e {
        Evidence::ReadBack(ReadBackOutcome::Matched) => "read back: matches".into(),
        Evidence::ReadBack(ReadBackOutcome::Mismatched) => "read back: changed since apply".into(),
        Evidence::Exercised(o) => format!(
            "exercised: {}",
            match o {
                ExercisedOutcome::Blocked => "blocked",
                ExercisedOutcome::Redacted => "redacted",
                ExercisedOutcome::ObservedOnly => "observed only",
                ExercisedOutcome::Leaked => "leaked",
                ExercisedOutcome::Inconclusive => "inconclusive",
            }
        ),
        Evidence::HostAttested(o) => format!(
            "host says: {}",
            match o {
                HostAttestedOutcome::Healthy => "healthy",
                HostAttestedOutcome::Unhealthy => "unhealthy",
            }
        ),
        Evidence::Absent(reason) => format!("no evidence: {}", spaced(reason.as_str())),
    }
}

/// A verification's outcome.
pub fn verification(o: VerificationOutcome) -> &'static str {
    match o {
        VerificationOutcome::Passed => "passed",
        VerificationOutcome::PartiallyPassed => "partly passed",
        VerificationOutcome::Failed => "failed",
        VerificationOutcome::Unverifiable => "could not be verified",
    }
}

/// The policy's state.
pub fn policy(p: PolicyState) -> &'static str {
    match p {
        PolicyState::Enforced => "enforced",
        PolicyState::Permissive => "permissive",
        PolicyState::Unconfigured => "not configured",
        PolicyState::LoadFailed => "failed to load",
        PolicyState::Unknown => "unknown",
    }
}

/// A verdict of a scoped event.
pub fn verdict(v: VerdictKind) -> &'static str {
    match v {
        VerdictKind::Allow => "allowed",
        VerdictKind::Deny => "denied",
        VerdictKind::Redacted => "redacted",
        VerdictKind::ApprovalRequired => "needed approval",
    }
}

/// A relayed answer.
pub fn user_input(u: UserInput) -> &'static str {
    match u {
        UserInput::Approve => "approve",
        UserInput::Deny => "deny",
        UserInput::Defer => "defer",
    }
}

/// A sentence of the runtime's with each capability token in it (`model_gateway_base_url`,
/// a whole lowercase word) read as words (`model gateway URL`); everything else, key names
/// and paths included, unchanged.
pub fn prose(sentence: &str) -> String {
    let is_token_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_';
    let mut out = String::with_capacity(sentence.len());
    let mut rest = sentence;
    while let Some(start) = rest.find(is_token_char) {
        let (before, from) = rest.split_at(start);
        out.push_str(before);
        let end = from.find(|c| !is_token_char(c)).unwrap_or(from.len());
        let (word, after) = from.split_at(end);
        // Part of a longer name (`env.http_proxy`, `ANTHROPIC_BASE_URL`, `hooks.json`): left
        // as it is; a sentence's own full stop or comma does not join.
        let name_char = |c: char| c.is_ascii_alphanumeric() || "._-/~".contains(c);
        let joined_before = before.chars().next_back().is_some_and(name_char);
        let mut next = after.chars();
        let joined_after = match next.next() {
            Some('.') => next.next().is_some_and(|c| c.is_ascii_alphanumeric()),
            Some(c) => name_char(c),
            None => false,
        };
        let whole = !joined_before && !joined_after;
        match CapabilityName::parse(word) {
            Ok(c) if whole => out.push_str(capability(c)),
            _ => out.push_str(word),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `snake_case` or `kebab-case` as words.
pub fn spaced(token: &str) -> String {
    token.replace(['_', '-'], " ")
}

/// A unix time as RFC 3339 in UTC, to the second (`2026-11-29T20:46:59Z`).
pub fn time(unix_secs: u64) -> String {
    let at = UNIX_EPOCH + Duration::from_secs(unix_secs.min(MAX_SHOWN_UNIX_SECS));
    humantime::format_rfc3339_seconds(at).to_string()
}

/// The last instant [`time`] writes (9999-12-31T23:59:59Z); later ones are shown as it.
const MAX_SHOWN_UNIX_SECS: u64 = 253_402_300_799;

/// How long ago (or ahead) `unix_secs` is from now, roughly: `3 minutes ago`, `in 29 days`.
pub fn relative(unix_secs: u64) -> String {
    let now = now_unix_secs();
    let (span, ahead) = if unix_secs >= now {
        (unix_secs - now, true)
    } else {
        (now - unix_secs, false)
    };
    if span < 5 {
        return "just now".into();
    }
    let rough = rough_span(span);
    if ahead {
        format!("in {rough}")
    } else {
        format!("{rough} ago")
    }
}

/// A span in its largest unit, rounded: `45 seconds`, `3 minutes`, `2 hours`, `30 days`.
pub fn rough_span(secs: u64) -> String {
    let rounded = |unit: u64| secs.saturating_add(unit / 2) / unit;
    let (n, unit) = match secs {
        s if s < 120 => (s, "second"),
        s if s < 2 * 3600 => (rounded(60), "minute"),
        s if s < 2 * 86_400 => (rounded(3600), "hour"),
        s if s < 2 * 365 * 86_400 => (rounded(86_400), "day"),
        _ => (rounded(365 * 86_400), "year"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// An expiry as `TIME (in 30 days)`, or `TIME (expired)` once `now` reached it.
pub fn expiry(expires_at: u64, now: u64) -> String {
    if now >= expires_at {
        format!("{} (expired)", time(expires_at))
    } else {
        format!("{} ({})", time(expires_at), relative(expires_at))
    }
}

/// The current time in unix seconds (0 if the clock is before 1970).
pub fn now_unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_level_has_words_and_none_is_its_wire_token_with_underscores() {
        for l in Level::ALL {
            assert!(!level(*l).contains('_'), "{l}");
            assert!(!level_meaning(*l).is_empty());
        }
        for c in CapabilityName::ALL {
            assert!(!capability(*c).contains('_'), "{c}");
        }
    }

    #[test]
    fn times_are_rfc3339_utc() {
        assert_eq!(time(0), "1970-01-01T00:00:00Z");
        assert_eq!(time(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(time(u64::MAX), "9999-12-31T23:59:59Z");
    }

    #[test]
    fn spans_use_their_largest_whole_unit() {
        assert_eq!(rough_span(1), "1 second");
        assert_eq!(rough_span(90), "90 seconds");
        assert_eq!(rough_span(3 * 3600), "3 hours");
        assert_eq!(rough_span(30 * 86_400), "30 days");
        assert_eq!(rough_span(30 * 86_400 - 3), "30 days");
        assert_eq!(rough_span(3 * 365 * 86_400), "3 years");
    }

    #[test]
    fn a_sentence_reads_its_capability_tokens_as_words_and_leaves_names_alone() {
        assert_eq!(
            prose("Set env.ANTHROPIC_BASE_URL in ~/.claude/settings.json (model_gateway_base_url)"),
            "Set env.ANTHROPIC_BASE_URL in ~/.claude/settings.json (model gateway URL)"
        );
        assert_eq!(
            prose("Restore the original http_proxy settings in ~/.codex/config.toml"),
            "Restore the original HTTP proxy settings in ~/.codex/config.toml"
        );
        assert_eq!(
            prose("env.http_proxy and /x/hooks"),
            "env.http_proxy and /x/hooks"
        );
        assert_eq!(
            prose("héllo hooks, mcp_governance."),
            "héllo hooks, MCP governance."
        );
    }

    #[test]
    fn mechanisms_read_as_capabilities_when_they_are_one() {
        assert_eq!(mechanism("model_gateway_base_url"), "model gateway URL");
        assert_eq!(mechanism("gateway_probe"), "gateway probe");
    }
}
