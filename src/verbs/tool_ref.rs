//! [`ToolRef`]: a tool id exactly as a client sent it, in the bounded form that may be
//! recorded (audit events, `Debug` of a grant).
//!
//! It lives beside [`ToolId`](super::ToolId) (the validated id a backend works with) so
//! that both `auth` and `audit` can use it without importing each other. It must never
//! keep the content of something that is not a tool id.

use serde::{Serialize, Serializer};

/// The longest tool id recorded as given; anything longer is recorded as invalid.
pub const TOOL_REF_MAX: usize = 64;
/// What an invalid tool id is recorded as. Not kebab-case, so never a real tool id.
pub const INVALID_TOOL_MARKER: &str = "!invalid";

/// Hex digits (dashes aside) from which a tool id counts as secret-shaped.
pub const TOOL_REF_MAX_HEX_RUN: usize = 16;

// spec[S10-NO-TOKEN-VALUE] §10: a secret-shaped tool id (a pasted token) is never recorded.
/// A tool id as a client sent it: recorded only if it is kebab-case (`[a-z0-9]` runs joined
/// by single `-`), at most 64 characters, and not secret-shaped (made only of hex digits and
/// dashes with 16 or more digits, or holding a run of 16 or more hex digits anywhere, as a
/// token pasted into the wrong field would be); anything else is [`ToolRef::Invalid`].
#[derive(Clone, PartialEq, Eq)]
pub enum ToolRef {
    /// A well-formed tool id (not necessarily one an adapter knows).
    Id(String),
    /// The client sent something that is not a tool id; its content is not kept.
    Invalid,
}

impl ToolRef {
    /// Classify a client-supplied tool id.
    pub fn from_client(text: &str) -> ToolRef {
        let kebab = !text.is_empty()
            && text.len() <= TOOL_REF_MAX
            && text.split('-').all(|part| {
                !part.is_empty()
                    && part
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
        let hex_digits = text.bytes().filter(|b| b.is_ascii_hexdigit()).count();
        let longest_hex_run = text
            .split(|c: char| !c.is_ascii_hexdigit())
            .map(str::len)
            .max()
            .unwrap_or(0);
        // All hex and dashes (a token split by dashes), or a long hex run anywhere (a token
        // behind a prefix: `x-<token>`).
        let secret_shaped = (hex_digits >= TOOL_REF_MAX_HEX_RUN
            && text.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'))
            || longest_hex_run >= TOOL_REF_MAX_HEX_RUN;
        if kebab && !secret_shaped {
            ToolRef::Id(text.to_owned())
        } else {
            ToolRef::Invalid
        }
    }

    /// Like [`ToolRef::from_client`], but an empty id (a request naming no tool) is `None`.
    pub fn from_request(text: &str) -> Option<ToolRef> {
        (!text.is_empty()).then(|| ToolRef::from_client(text))
    }

    /// The recorded text.
    pub fn as_str(&self) -> &str {
        match self {
            ToolRef::Id(s) => s,
            ToolRef::Invalid => INVALID_TOOL_MARKER,
        }
    }
}

impl std::fmt::Debug for ToolRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ToolRef({:?})", self.as_str())
    }
}

impl Serialize for ToolRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_token_behind_a_prefix_or_split_by_dashes_is_not_recorded() {
        for text in [
            TOKEN.to_owned(),
            format!("x-{TOKEN}"),
            format!("tool-{}", &TOKEN[..16]),
            "0123-4567-89ab-cdef-0123".to_owned(),
        ] {
            assert_eq!(ToolRef::from_client(&text), ToolRef::Invalid, "{text}");
        }
        for ok in [
            "claude-code",
            "windsurf-cascade",
            "cafe",
            "tool2",
            "deadbeef-cafe",
        ] {
            assert_eq!(ToolRef::from_client(ok), ToolRef::Id(ok.into()), "{ok}");
        }
    }
}
