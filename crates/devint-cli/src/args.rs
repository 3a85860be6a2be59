//! Argument values: how each typed value of the command line is parsed, listed in help and
//! offered by completion.
//!
//! This module owns the clap value parsers: the closed spec §4 vocabularies ([`vocab`],
//! which lists every token with its words in `--help` and completion, and accepts `-` for
//! `_`), tool ids (open, since another runtime may know other tools, completed from this
//! build's adapters), durations and times (`humantime`: `--ttl 1y`, `1h30m`, `--since 2h`,
//! RFC 3339) and ids (the core's types). A refused value exits 2 before any socket is
//! opened, and the message never echoes more than clap does.

use std::ffi::OsStr;
use std::time::Duration;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap_complete::engine::CompletionCandidate;
use devint::verbs::{
    ApprovalId, Level, OutsideVocabulary, PlanId, PolicyProfileId, Profile, SettingsScope, ToolId,
    UserInput,
};

use crate::suggest;
use crate::words;

/// A closed vocabulary as a clap value parser.
#[derive(Clone)]
pub struct Vocab<T: 'static> {
    all: &'static [T],
    token: fn(T) -> &'static str,
    words: fn(T) -> &'static str,
    parse: fn(&str) -> Result<T, OutsideVocabulary>,
}

/// The parser for a vocabulary: its members, their tokens, their words, its parse.
pub fn vocab<T: Copy + Send + Sync + 'static>(
    all: &'static [T],
    token: fn(T) -> &'static str,
    words: fn(T) -> &'static str,
    parse: fn(&str) -> Result<T, OutsideVocabulary>,
) -> Vocab<T> {
    Vocab {
        all,
        token,
        words,
        parse,
    }
}

impl<T: Copy + Send + Sync + 'static> TypedValueParser for Vocab<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let given = value.to_string_lossy();
        (self.parse)(&given.replace('-', "_")).map_err(|_| {
            let tokens = self.all.iter().map(|v| (self.token)(*v));
            invalid_value(
                cmd,
                arg,
                &given,
                tokens.clone().map(str::to_owned).collect(),
                suggest::closest(&given.replace('-', "_"), tokens),
            )
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.all.iter().map(|v| {
            PossibleValue::new((self.token)(*v)).help((self.words)(*v))
        })))
    }
}

/// clap's own "invalid value" error, with the accepted values and a suggestion.
fn invalid_value(
    cmd: &clap::Command,
    arg: Option<&clap::Arg>,
    given: &str,
    valid: Vec<String>,
    suggestion: Option<&str>,
) -> clap::Error {
    let mut err = clap::Error::new(ErrorKind::InvalidValue).with_cmd(cmd);
    if let Some(arg) = arg {
        err.insert(
            ContextKind::InvalidArg,
            ContextValue::String(arg.to_string()),
        );
    }
    err.insert(
        ContextKind::InvalidValue,
        ContextValue::String(given.to_owned()),
    );
    err.insert(ContextKind::ValidValue, ContextValue::Strings(valid));
    if let Some(s) = suggestion {
        err.insert(
            ContextKind::SuggestedValue,
            ContextValue::String(s.to_owned()),
        );
    }
    err
}

/// A value that is not of its kind: clap's "invalid value" error with our sentence.
fn refused(
    cmd: &clap::Command,
    arg: Option<&clap::Arg>,
    given: &OsStr,
    why: impl std::fmt::Display,
) -> clap::Error {
    let arg = arg.map(|a| a.to_string()).unwrap_or_else(|| "value".into());
    let shown = given.to_string_lossy();
    // A hostile or mistaken value is shown only when it is short and printable.
    let shown = if shown.len() <= 64 && shown.chars().all(|c| !c.is_control()) {
        format!("'{shown}'")
    } else {
        format!("of {} bytes", given.len())
    };
    clap::Error::raw(
        ErrorKind::ValueValidation,
        format!("invalid value {shown} for '{arg}': {why}\n"),
    )
    .with_cmd(cmd)
}

/// `--scope`.
pub fn scope() -> Vocab<SettingsScope> {
    vocab(
        SettingsScope::ALL,
        SettingsScope::token,
        words::scope,
        SettingsScope::parse,
    )
}

/// `--profile`.
pub fn profile() -> Vocab<Profile> {
    vocab(
        Profile::ALL,
        Profile::token,
        words::profile_help,
        Profile::parse,
    )
}

/// `--level`.
pub fn level() -> Vocab<Level> {
    vocab(Level::ALL, Level::token, words::level, Level::parse)
}

/// `approve`'s answer.
pub fn user_input() -> Vocab<UserInput> {
    vocab(
        UserInput::ALL,
        UserInput::token,
        words::user_input,
        UserInput::parse,
    )
}

/// The tool ids this build has an adapter for, in the adapters' order.
pub fn known_tools() -> impl Iterator<Item = &'static str> + Clone {
    devint_runtime::adapters::all().iter().map(|t| t.id)
}

/// A tool id: well formed, else refused with the closest known id. An id no adapter of
/// this build knows is still sent (the runtime is the authority on its tools).
#[derive(Clone, Copy)]
pub struct ToolArg;

impl TypedValueParser for ToolArg {
    type Value = ToolId;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<ToolId, clap::Error> {
        let given = value.to_string_lossy();
        ToolId::parse(&given).map_err(|_| {
            refused(
                cmd,
                arg,
                value,
                format!(
                    "a tool id is kebab-case (claude-code, codex, …){}; `devint tools` lists them",
                    suggest::did_you_mean(&given.replace('_', "-"), known_tools())
                ),
            )
        })
    }
}

/// Completion candidates for a tool id: every tool this build has an adapter for.
pub fn tool_candidates() -> Vec<CompletionCandidate> {
    devint_runtime::adapters::all()
        .iter()
        .map(|t| CompletionCandidate::new(t.id).help(Some(t.display_name.into())))
        .collect()
}

/// A parser from a fallible `parse` whose error is displayable.
#[derive(Clone, Copy)]
pub struct Parsed<T: 'static> {
    parse: fn(&str) -> Result<T, String>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Parsed<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let text = value
            .to_str()
            .ok_or_else(|| refused(cmd, arg, value, "it is not UTF-8"))?;
        (self.parse)(text).map_err(|why| refused(cmd, arg, value, why))
    }
}

/// A value parser from `parse`.
pub fn parsed<T: Clone + Send + Sync + 'static>(parse: fn(&str) -> Result<T, String>) -> Parsed<T> {
    Parsed { parse }
}

/// `--policy`: a policy profile id.
pub fn policy_id() -> Parsed<PolicyProfileId> {
    parsed(|s| PolicyProfileId::parse(s).map_err(|e| e.to_string()))
}

/// `--plan`: a plan id (opaque to the client: the runtime minted it).
pub fn plan_id() -> Parsed<PlanId> {
    parsed(|s| {
        PlanId::parse(s).map_err(|e| {
            not_an_id(
                "a plan id",
                e,
                "copy the id `devint plan` printed, or review a new plan",
            )
        })
    })
}

/// `approve`'s approval id.
pub fn approval_id() -> Parsed<ApprovalId> {
    parsed(|s| {
        ApprovalId::parse(s).map_err(|e| {
            not_an_id(
                "an approval id",
                e,
                "copy the id exactly as the tool showed it",
            )
        })
    })
}

/// The refusal of an id in words: its length, what is wrong with it and the expected
/// shape, never the input.
fn not_an_id(what: &str, e: devint::verbs::IdRefusal, fix: &str) -> String {
    format!(
        "not {what}: it has {} bytes ({}), and {what} is {}; {fix}",
        e.got_len, e.defect, e.expected
    )
}

/// A duration: `30d`, `1y`, `1h30m`, `90m`, `3600s` (humantime's units; a bare number is
/// seconds). Zero is refused.
fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let d = if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        s.parse::<u64>()
            .map(Duration::from_secs)
            .map_err(|e| e.to_string())?
    } else {
        humantime::parse_duration(s).map_err(|e| {
            format!("{e}; a duration is a number and a unit, e.g. 30d, 12h, 1h30m, 1y")
        })?
    };
    if d.as_secs() == 0 {
        return Err("a duration must be at least one second".into());
    }
    Ok(d)
}

/// The longest `--ttl` (the book's bound, one year of 366 days).
pub const MAX_TTL: Duration = devint::auth::MAX_TOKEN_LIFETIME;

/// `--ttl`: a duration of at most [`MAX_TTL`]; above it is refused, naming the bound.
pub fn ttl() -> Parsed<Duration> {
    parsed(|s| {
        let d = parse_duration(s)?;
        if d > MAX_TTL {
            return Err(format!(
                "a token may live at most one year (366 days, got {}); enrol again or rotate before it expires",
                words::rough_span(d.as_secs())
            ));
        }
        Ok(d)
    })
}

/// `serve --plan-ttl`: how long a plan stays appliable, at most one day (what `devint
/// apply --plan` remembers).
pub fn plan_ttl() -> Parsed<Duration> {
    parsed(parse_plan_ttl)
}

/// A plan lifetime: a duration of at most one day (also `plan_ttl` in the configuration
/// file).
pub fn parse_plan_ttl(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d > Duration::from_secs(86_400) {
        return Err(format!(
            "a plan may stay appliable at most one day (got {}); review a new plan instead",
            words::rough_span(d.as_secs())
        ));
    }
    Ok(d)
}

/// `--since`: unix seconds, an RFC 3339 time (`2026-11-29T20:46:59Z`), or an age (`2h`,
/// `7d`, counted back from now).
pub fn since() -> Parsed<u64> {
    parsed(parse_since)
}

fn parse_since(s: &str) -> Result<u64, String> {
    let s = s.trim();
    if let Ok(secs) = s.parse::<u64>() {
        return Ok(secs);
    }
    if let Ok(at) = humantime::parse_rfc3339_weak(s) {
        return at
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .map_err(|_| "a time before 1970".to_owned());
    }
    let age = parse_duration(s).map_err(|_| {
        "use unix seconds, an RFC 3339 time (2026-11-29T20:46:59Z) or an age (90m, 24h, 7d)"
            .to_owned()
    })?;
    Ok(words::now_unix_secs().saturating_sub(age.as_secs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_humantime_units_and_refuse_zero() {
        assert_eq!(parse_duration("30d"), Ok(Duration::from_secs(30 * 86_400)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert_eq!(parse_duration("1y").map(|d| d.as_secs() / 86_400), Ok(365));
        assert!(parse_duration("0d").is_err());
        assert!(parse_duration("3 fortnights").is_err());
        assert!(parse_duration("d").is_err());
    }

    #[test]
    fn a_ttl_above_one_year_is_refused_naming_the_bound() {
        let cmd = clap::Command::new("t");
        let parse = |v: &str| ttl().parse_ref(&cmd, None, OsStr::new(v));
        assert_eq!(parse("1y").unwrap().as_secs(), 31_557_600);
        assert_eq!(parse("366d").unwrap(), MAX_TTL);
        for too_long in [
            "367d",
            "2y",
            "18446744073709551615s",
            "18446744073709551615",
        ] {
            let err = parse(too_long).unwrap_err().to_string();
            assert!(
                err.contains("at most one year")
                    || err.contains("too big")
                    || err.contains("overflow"),
                "{too_long}: {err}"
            );
        }
    }

    #[test]
    fn since_takes_seconds_times_and_ages() {
        assert_eq!(parse_since("1700000000"), Ok(1_700_000_000));
        assert_eq!(parse_since("2023-11-14T22:13:20Z"), Ok(1_700_000_000));
        let two_hours_ago = parse_since("2h").unwrap();
        let now = words::now_unix_secs();
        assert!(now - two_hours_ago >= 7200 && now - two_hours_ago < 7300);
        assert!(parse_since("yesterday").is_err());
    }

    #[test]
    fn vocabularies_accept_dashes_for_underscores() {
        let cmd = clap::Command::new("t");
        assert_eq!(
            profile()
                .parse_ref(&cmd, None, OsStr::new("observe-only"))
                .unwrap(),
            Profile::ObserveOnly
        );
        let err = scope()
            .parse_ref(&cmd, None, OsStr::new("usr"))
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidValue);
        assert!(err.to_string().contains("user"), "{err}");
    }
}
