//! Validated identifier newtypes: the only non-vocabulary, non-sentence strings a view holds.
//!
//! Each type owns one shape (kebab-case tool id, dotted key name, path, short label) and
//! refuses anything else with an [`IdRefusal`] that never echoes
//! the input. None of them can hold a value: key names name a key, never its contents;
//! paths are bounded and pass the same credential-shape check as free text. The opaque id
//! and digest fields of spec §3 (plan, receipt, approval, digest) have no shape of their
//! own; their one rule lives in [`super::opaque`].

use crate::verbs::sentence::{check_credential_shapes, is_invisible_format};

/// An identifier did not have its shape. Carries the input's length and what was wrong,
/// never the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("malformed {kind} (got {got_len} bytes: {defect}); expected {expected}")]
#[non_exhaustive]
pub struct IdRefusal {
    /// The identifier type.
    pub kind: &'static str,
    /// The shape that was expected.
    pub expected: &'static str,
    /// The length in bytes of the refused input.
    pub got_len: usize,
    /// What was wrong with it.
    pub defect: IdDefect,
}

/// What was wrong with a refused identifier. Positions are byte offsets; no variant carries
/// any of the input's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum IdDefect {
    /// The input did not match the identifier's shape (named identifiers: [`ToolId`],
    /// [`KeyName`], …).
    #[error("not of its shape")]
    Shape,
    /// The input was empty.
    #[error("empty")]
    Empty,
    /// The input was longer than the limit.
    #[error("longer than {max} bytes")]
    TooLong {
        /// The limit in bytes.
        max: usize,
    },
    /// A whitespace byte.
    #[error("whitespace at byte {at}")]
    Whitespace {
        /// Its offset.
        at: usize,
    },
    /// A control byte, DEL or a byte outside ASCII.
    #[error("a control or non-ASCII byte at byte {at}")]
    NotPrintableAscii {
        /// Its offset.
        at: usize,
    },
    /// The input looked like a credential (the rules of [`crate::verbs::Sentence`]).
    #[error("credential-shaped: {}", .0.token())]
    CredentialShaped(crate::verbs::SentenceRefusal),
}

macro_rules! identifier {
    ($(#[$meta:meta])* $name:ident, $expected:literal, $check:expr) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// The accepted shape, in words.
            pub const EXPECTED: &'static str = $expected;

            /// Parse and validate.
            pub fn parse(text: &str) -> Result<$name, IdRefusal> {
                let check: fn(&str) -> bool = $check;
                if check(text) {
                    Ok($name(text.to_owned()))
                } else {
                    Err(IdRefusal {
                        kind: stringify!($name),
                        expected: $expected,
                        got_len: text.len(),
                        defect: IdDefect::Shape,
                    })
                }
            }

            /// The identifier as sent on the wire.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }
    };
}

fn is_kebab(s: &str) -> bool {
    s.len() <= 64
        && s.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
        && s.split('-').all(|p| {
            !p.is_empty()
                && p.bytes()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// `[first][rest]{0,max-1}` where first is a lowercase letter or digit as allowed.
fn is_token(s: &str, max: usize, first_digit_ok: bool, rest: fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= max
        && (b[0].is_ascii_lowercase() || (first_digit_ok && b[0].is_ascii_digit()))
        && b[1..].iter().all(|&c| rest(c))
        && check_credential_shapes(s).is_ok()
}

fn lower_token_char(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'_' | b'.' | b'-')
}

fn snake_char(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_'
}

fn is_key_segment(seg: &str) -> bool {
    // `name` or `name[index]`
    let (name, index) = match seg.find('[') {
        Some(i) => (&seg[..i], Some(&seg[i..])),
        None => (seg, None),
    };
    !name.is_empty()
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
        && index.is_none_or(|ix| {
            ix.len() > 2
                && ix.ends_with(']')
                && ix[1..ix.len() - 1].bytes().all(|c| c.is_ascii_digit())
        })
}

fn is_key_name(s: &str) -> bool {
    s.len() <= 128
        && s.split('.').count() <= 16
        && s.split('.').all(is_key_segment)
        && check_credential_shapes(s).is_ok()
}

fn is_artifact_path(s: &str) -> bool {
    s.len() <= 512
        && (s.starts_with('/') || s == "~" || s.starts_with("~/"))
        && !s.chars().any(|c| c.is_control() || is_invisible_format(c))
        && !s.split('/').any(|seg| seg == "..")
        && check_credential_shapes(s).is_ok()
}

fn is_version_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'_' | b'-'))
        && check_credential_shapes(s).is_ok()
}

identifier!(
    /// A tool adapter's id: kebab-case, lowercase, at most 64 bytes (`claude-code`).
    ToolId,
    "kebab-case lowercase letters and digits, starting with a letter, at most 64 bytes",
    is_kebab
);
identifier!(
    /// A plan step's id, unique within its plan (`write-settings`, `s1`).
    StepId,
    "lowercase letters, digits, '_', '.', '-', at most 64 bytes",
    |s| is_token(s, 64, true, lower_token_char)
);
identifier!(
    /// A policy profile's id.
    PolicyProfileId,
    "lowercase letters, digits, '_', '.', '-', starting with a letter or digit, at most 64 bytes",
    |s| is_token(s, 64, true, lower_token_char)
);
identifier!(
    /// The name of a settings key we manage (`env.ANTHROPIC_BASE_URL`, `hooks.PreToolUse[0]`):
    /// a dotted path of identifier segments, never a value.
    KeyName,
    "a dotted path of [A-Za-z0-9_-] segments (optionally indexed [n]), at most 16 segments and 128 bytes",
    is_key_name
);
identifier!(
    /// A path of an artifact we manage: absolute or `~`-relative, normalised, one line,
    /// at most 512 bytes.
    ArtifactPath,
    "an absolute or ~/ path without control characters or '..', at most 512 bytes",
    is_artifact_path
);
identifier!(
    /// A redaction label (`aws_access_key`, `pii.email`).
    RedactionLabel,
    "a lowercase token of letters, digits, '_', '.', '-', at most 48 bytes",
    |s| is_token(s, 48, false, lower_token_char)
);
identifier!(
    /// A mechanism named by evidence, events and verification (our backend uses the
    /// capability tokens of spec §4).
    MechanismName,
    "a lowercase token of letters, digits, '_', '.', '-', at most 64 bytes",
    |s| is_token(s, 64, false, lower_token_char)
);
identifier!(
    /// The short reason token of `absent` evidence (`no_probe_configured`).
    AbsentReason,
    "a snake_case token, at most 48 bytes",
    |s| is_token(s, 48, false, snake_char)
);
identifier!(
    /// A detected tool version (`2.0.14`, `1.300.0-beta+42`).
    VersionLabel,
    "letters, digits, '.', '+', '_', '-', at most 64 bytes",
    is_version_label
);

impl From<crate::verbs::CapabilityName> for MechanismName {
    fn from(c: crate::verbs::CapabilityName) -> MechanismName {
        MechanismName(c.token().to_owned())
    }
}

/// Something we manage, named in drift, repair and residual lists: a settings key or an
/// artifact path. On the wire a path starts with `/` or `~`; anything else is a key name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(untagged)]
pub enum ManagedRef {
    /// A settings key.
    Key(KeyName),
    /// An artifact file.
    Artifact(ArtifactPath),
}

impl ManagedRef {
    /// Parse a key name or (if it starts with `/` or `~`) an artifact path.
    pub fn parse(text: &str) -> Result<ManagedRef, IdRefusal> {
        if text.starts_with('/') || text.starts_with('~') {
            ArtifactPath::parse(text).map(ManagedRef::Artifact)
        } else {
            KeyName::parse(text).map(ManagedRef::Key)
        }
    }

    /// The wire string.
    pub fn as_str(&self) -> &str {
        match self {
            ManagedRef::Key(k) => k.as_str(),
            ManagedRef::Artifact(p) => p.as_str(),
        }
    }
}

impl AsRef<str> for ManagedRef {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_ids_are_kebab_case() {
        for ok in [
            "claude-code",
            "codex",
            "github-copilot",
            "windsurf-cascade",
            "tool2",
        ] {
            assert!(ToolId::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "Claude-Code",
            "claude_code",
            "-codex",
            "codex-",
            "a--b",
            "2fa",
            &"a".repeat(65),
        ] {
            let e = ToolId::parse(bad).unwrap_err();
            assert_eq!(e.got_len, bad.len());
        }
    }

    #[test]
    fn key_names_name_keys_not_values() {
        for ok in [
            "env.ANTHROPIC_BASE_URL",
            "hooks.PreToolUse[0].command",
            "model_providers.aa.base_url",
            "mcpServers.aa-gateway",
        ] {
            assert!(KeyName::parse(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "env.",
            ".env",
            "env.X=1",
            "env.X value",
            "a[x]",
            "env.sk-ant-api03-abcdefghijkl",
            "https://x",
        ] {
            assert!(KeyName::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn artifact_paths_are_bounded_and_normalised() {
        for ok in ["/home/u/.claude/settings.json", "~/.codex/config.toml", "~"] {
            assert!(ArtifactPath::parse(ok).is_ok(), "{ok}");
        }
        let long = format!("/{}", "a/".repeat(200));
        assert!(ArtifactPath::parse(&long).is_ok());
        for bad in [
            "relative/path",
            "/a/../etc/passwd",
            "/a\nb",
            "/tmp/ghp_1234567890abcdefghij",
            &format!("/{}", "a".repeat(600)),
        ] {
            assert!(ArtifactPath::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn managed_refs_split_on_leading_slash_or_tilde() {
        assert!(matches!(ManagedRef::parse("env.A"), Ok(ManagedRef::Key(_))));
        assert!(matches!(
            ManagedRef::parse("~/.x"),
            Ok(ManagedRef::Artifact(_))
        ));
        assert!(ManagedRef::parse("").is_err());
    }
}
