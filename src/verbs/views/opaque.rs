//! [`OpaqueId`]: the one validated core of every id and digest field of spec §3.
//!
//! Spec §3 gives `plan_id`, `receipt_id`, `approval_id`, `digest`, `content_sha256` and
//! `fingerprint` no shape: they are opaque strings, and another implementation mints them in
//! its own form (`plan-1`, `sha256:abcd`, a UUID). This module owns the one rule every such
//! field obeys, on both sides of the wire: 1..=[`OpaqueId::MAX_BYTES`] bytes of printable
//! ASCII without whitespace (0x21–0x7E), and nothing credential-shaped (the rules of
//! [`Sentence`](crate::verbs::Sentence), except that hex runs are allowed: in a digest any
//! run, in an id any run shorter than a DI-API token's 64 hex digits). It must never
//! decide whether an id is *known*: that is the backend's answer (`LIFECYCLE_ERROR`, spec
//! §6). A refusal says why and how long the input was, never what it was.
//!
//! The role types ([`PlanId`], [`ReceiptId`], [`ApprovalId`], [`Digest`]) wrap this core so
//! that a plan id cannot be passed where an approval id is expected. How devint's own
//! reference backend *mints* them (128-bit random hex ids, SHA-256 hex digests) is that
//! backend's choice, not the protocol's: [`PlanId::random`] and kin exist for it, and the
//! parser accepts every other conforming form alike.

use super::ids::{IdDefect, IdRefusal};
use crate::verbs::sentence::check_id_credential_shapes;

/// A validated opaque id or digest: 1..=128 bytes of 0x21–0x7E, not credential-shaped.
/// Round-trips byte for byte: what was parsed is what [`OpaqueId::as_str`] returns.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpaqueId(String);

/// The accepted shape, in words.
const OPAQUE_EXPECTED: &str =
    "1 to 128 bytes of printable ASCII without whitespace (0x21-0x7E), not credential-shaped";

impl OpaqueId {
    /// The longest opaque id, in bytes.
    pub const MAX_BYTES: usize = 128;
    /// The accepted shape, in words.
    pub const EXPECTED: &'static str = OPAQUE_EXPECTED;

    /// Parse and validate, naming `kind` (the role type) in a refusal; a run of
    /// `hex_run_limit` hex digits or more is credential-shaped (`None`: any run is allowed).
    fn parse_as(
        text: &str,
        kind: &'static str,
        hex_run_limit: Option<usize>,
    ) -> Result<OpaqueId, IdRefusal> {
        let refuse = |defect| IdRefusal {
            kind,
            expected: OPAQUE_EXPECTED,
            got_len: text.len(),
            defect,
        };
        if text.is_empty() {
            return Err(refuse(IdDefect::Empty));
        }
        if text.len() > OpaqueId::MAX_BYTES {
            return Err(refuse(IdDefect::TooLong {
                max: OpaqueId::MAX_BYTES,
            }));
        }
        if let Some(at) = text.bytes().position(|b| !(0x21..=0x7e).contains(&b)) {
            let b = text.as_bytes()[at];
            return Err(refuse(if b.is_ascii_whitespace() {
                IdDefect::Whitespace { at }
            } else {
                IdDefect::NotPrintableAscii { at }
            }));
        }
        check_id_credential_shapes(text, hex_run_limit)
            .map_err(|r| refuse(IdDefect::CredentialShaped(r)))?;
        Ok(OpaqueId(text.to_owned()))
    }

    /// Parse and validate with the digest rule (any hex run); the id roles are stricter.
    pub fn parse(text: &str) -> Result<OpaqueId, IdRefusal> {
        OpaqueId::parse_as(text, "OpaqueId", None)
    }

    /// The id exactly as received or minted.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for OpaqueId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

macro_rules! opaque_role {
    ($(#[$meta:meta])* $name:ident, $hex_run_limit:expr) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(OpaqueId);

        impl $name {
            /// The accepted shape, in words (the same for every opaque field).
            pub const EXPECTED: &'static str = OPAQUE_EXPECTED;

            /// Parse and validate (see [`OpaqueId`]).
            pub fn parse(text: &str) -> Result<$name, IdRefusal> {
                OpaqueId::parse_as(text, stringify!($name), $hex_run_limit).map($name)
            }

            /// The value exactly as sent on the wire.
            pub fn as_str(&self) -> &str {
                self.0.as_str()
            }

            /// The validated core.
            pub fn as_opaque(&self) -> &OpaqueId {
                &self.0
            }
        }

        impl From<OpaqueId> for $name {
            fn from(id: OpaqueId) -> $name {
                $name(id)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}

/// The length of a DI-API token's text form (spec §7: 64 hex digits). `auth` (a layer
/// above) asserts at compile time that its `SECRET_HEX_LEN` is this.
pub(crate) const TOKEN_HEX_LEN: usize = 64;

/// An id (plan, receipt, approval) may hold hex, but never a run as long as a DI-API
/// token's text form: an id must not be able to carry a token.
const ID_HEX_RUN_LIMIT: Option<usize> = Some(TOKEN_HEX_LEN);

macro_rules! minted_id {
    ($(#[$meta:meta])* $name:ident) => {
        opaque_role!($(#[$meta])* $name, ID_HEX_RUN_LIMIT);

        impl $name {
            /// A fresh id as devint's reference backend mints it: 128 bits from the
            /// thread's OS-seeded CSPRNG as 32 lowercase hex characters (never a
            /// timestamp). Our choice, not the protocol's: any [`OpaqueId`] is an id.
            pub fn random() -> $name {
                $name(OpaqueId(format!("{:032x}", rand::random::<u128>())))
            }
        }
    };
}

minted_id!(
    /// A plan's id (`plan_id`, spec §3): opaque; whoever issued the plan chose its form.
    PlanId
);
minted_id!(
    /// An apply or repair receipt's id (`receipt_id`, spec §3): opaque.
    ReceiptId
);
minted_id!(
    /// An approval's id (`approval_id`, spec §3): opaque (an approval system's UUID, say).
    ApprovalId
);
opaque_role!(
    /// A digest or fingerprint (`digest`, `content_sha256`, `fingerprint`, spec §3): opaque.
    /// devint's reference backend writes 64 lowercase hex characters of SHA-256
    /// ([`Digest::sha256`]); another implementation may write `sha256:…` or anything else
    /// of the opaque shape. Unlike an id it may hold a run of 64 hex digits: that is what
    /// a SHA-256 digest is.
    Digest,
    None
);

impl Digest {
    /// The digest devint's reference backend writes: SHA-256 as 64 lowercase hex characters.
    pub fn sha256(bytes: [u8; 32]) -> Digest {
        Digest(OpaqueId(hex::encode(bytes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::SentenceRefusal;

    #[test]
    fn other_implementations_ids_and_digests_are_accepted_byte_for_byte() {
        for ok in [
            "plan-1",
            "removal-1",
            "receipt-1",
            "approval-1",
            "claude-code-user-1732000000",
            "remove-receipt-7",
            "sha256:abcd",
            "abc123",
            "fingerprint-1",
            "550e8400-e29b-41d4-a716-446655440000",
            "!",
            "~",
            &"p".repeat(128),
        ] {
            assert_eq!(PlanId::parse(ok).unwrap().as_str(), ok);
            assert_eq!(Digest::parse(ok).unwrap().as_str(), ok);
        }
    }

    #[test]
    fn our_own_minted_forms_are_accepted() {
        for _ in 0..64 {
            let p = PlanId::random();
            assert_eq!(p.as_str().len(), 32);
            assert_eq!(PlanId::parse(p.as_str()).unwrap(), p);
        }
        assert_ne!(ReceiptId::random(), ReceiptId::random());
        let d = Digest::sha256([0xab; 32]);
        assert_eq!(d.as_str(), "ab".repeat(32));
        assert!(Digest::parse(&format!("sha256:{}", "0f".repeat(32))).is_ok());
        // Hex runs are allowed in ids (below a token's length) and never weighed for
        // entropy: this one would be refused as free text for both.
        for hex in [
            "0123456789abcdef0123456789abcdef",
            "0a1b2c3d4e5f6A7B8C9D0E1F2a3b4c5d",
        ] {
            assert!(crate::verbs::Sentence::new(hex).is_err());
            assert!(ApprovalId::parse(hex).is_ok(), "{hex}");
        }
        // A digest may be a whole SHA-256; an id may not be as long a hex run as a token.
        let token_shaped = "ab".repeat(32);
        assert!(Digest::parse(&token_shaped).is_ok());
        assert_eq!(
            defect(&token_shaped),
            IdDefect::CredentialShaped(SentenceRefusal::HexRun)
        );
        assert!(PlanId::parse(&format!("plan-{token_shaped}")).is_err());
        assert!(PlanId::parse(&"ab".repeat(31)).is_ok());
    }

    fn defect(text: &str) -> IdDefect {
        let e = ApprovalId::parse(text).unwrap_err();
        assert_eq!(e.kind, "ApprovalId");
        assert_eq!(e.got_len, text.len());
        // The refusal never echoes the input, in any rendering.
        for shown in [e.to_string(), format!("{e:?}")] {
            assert!(
                text.is_empty() || !shown.contains(text),
                "{shown} echoes {text}"
            );
        }
        e.defect
    }

    #[test]
    fn out_of_shape_ids_are_refused_without_echo() {
        assert_eq!(defect(""), IdDefect::Empty);
        assert_eq!(
            defect(&"plan".repeat(33)),
            IdDefect::TooLong {
                max: OpaqueId::MAX_BYTES
            }
        );
        assert_eq!(defect("plan 1"), IdDefect::Whitespace { at: 4 });
        assert_eq!(defect("plan\t1"), IdDefect::Whitespace { at: 4 });
        assert_eq!(defect("plan\u{1}1"), IdDefect::NotPrintableAscii { at: 4 });
        assert_eq!(defect("plan\u{7f}1"), IdDefect::NotPrintableAscii { at: 4 });
        assert_eq!(defect("plan-é"), IdDefect::NotPrintableAscii { at: 5 });
    }

    #[test]
    fn credential_shaped_ids_are_refused_without_echo() {
        for (text, why) in [
            ("sk-ant-api03-abcdefghijkl", SentenceRefusal::KeyPrefix),
            ("ghp_1234567890abcdefghij", SentenceRefusal::KeyPrefix),
            ("AKIAABCDEFGHIJKLMNOP", SentenceRefusal::KeyPrefix),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
                SentenceRefusal::JwtShaped,
            ),
            ("password=hunter2", SentenceRefusal::CredentialAssignment),
            (
                "https://user:secret@example.com",
                SentenceRefusal::UrlUserinfo,
            ),
            (
                "Zm9vYmFyMTIzNDU2Nzg5MEFCQ0RFRkdISUpLTE1OT1BRUlNUVVZXWFla",
                SentenceRefusal::HighEntropyRun,
            ),
        ] {
            assert_eq!(defect(text), IdDefect::CredentialShaped(why), "{why:?}");
        }
    }
}
