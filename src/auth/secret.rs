//! [`TokenSecret`] (the capability token's 32 secret bytes) and [`TokenDigest`] (what the
//! server keeps instead).

use rand::TryRngCore;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Length of the secret in bytes (spec §7: 32 bytes from the OS CSPRNG).
pub const SECRET_LEN: usize = 32;
/// Length of the secret's text form (spec §6: 64 lowercase hex characters).
pub const SECRET_HEX_LEN: usize = 2 * SECRET_LEN;
// Opaque ids refuse a hex run as long as a token (`verbs`, a layer below, keeps the number).
static_assertions::const_assert_eq!(SECRET_HEX_LEN, crate::verbs::TOKEN_HEX_LEN);

/// A capability token's secret: 32 bytes from the OS CSPRNG.
///
/// It zeroizes on drop and is deliberately not `Debug`, `Display`, `Clone` or
/// serialisable (pinned below); the only way to read it is
/// [`TokenSecret::expose_secret_hex`], which is meant to be easy to grep for.
#[derive(Zeroize, ZeroizeOnDrop)]
pub struct TokenSecret([u8; SECRET_LEN]);

static_assertions::assert_not_impl_any!(
    TokenSecret: std::fmt::Debug,
    std::fmt::Display,
    Clone,
    Copy,
    serde::Serialize,
    PartialEq
);

// spec[S6-NO-TOKEN-ECHO] §6: the error carries nothing of the presented text.
/// The text was not exactly 64 lowercase hex characters. Deliberately carries nothing of
/// the text (spec §6: never echo the token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "the capability token is not 64 lowercase hex characters; copy it again from `devint enrol`"
)]
pub struct MalformedToken;

/// The operating system's random number generator failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the operating system's random number generator failed ({0}); retry, and check the system's entropy source")]
pub struct EntropyError(pub(crate) String);

/// Fill `buf` from the OS CSPRNG.
pub(crate) fn os_random(buf: &mut [u8]) -> Result<(), EntropyError> {
    rand::rngs::OsRng
        .try_fill_bytes(buf)
        .map_err(|e| EntropyError(e.to_string()))
}

impl TokenSecret {
    // spec[S7-SECRET-RANDOM] §7: 32 bytes from the OS CSPRNG, derived from nothing.
    /// A fresh secret from the OS CSPRNG (spec §7: no derivation from anything else).
    pub fn generate() -> Result<TokenSecret, EntropyError> {
        let mut secret = TokenSecret([0; SECRET_LEN]);
        os_random(&mut secret.0)?;
        Ok(secret)
    }

    /// Wrap bytes the caller chose (tests and models that must know the secret before
    /// handing it to the book). Compiled only under `cfg(test)` or the `test-support`
    /// feature: production code has only [`TokenSecret::generate`] and
    /// [`TokenSecret::parse`].
    #[cfg(any(test, feature = "test-support"))]
    pub fn from_bytes(bytes: [u8; SECRET_LEN]) -> TokenSecret {
        TokenSecret(bytes)
    }

    /// Parse the text form. Exactly 64 characters from `0-9a-f`; uppercase, whitespace or
    /// any other length is [`MalformedToken`] (spec §6).
    pub fn parse(text: &str) -> Result<TokenSecret, MalformedToken> {
        let bytes = text.as_bytes();
        // spec[S6-TOKEN-FORMAT] §6: the token MUST be 64 lowercase hex characters.
        if bytes.len() != SECRET_HEX_LEN {
            return Err(MalformedToken);
        }
        // One pass, decoding and checking together, with no branch on a character: every
        // request's token is parsed here.
        let mut secret = TokenSecret([0; SECRET_LEN]);
        let mut refused = 0u8;
        for (byte, pair) in secret.0.iter_mut().zip(bytes.chunks_exact(2)) {
            let (high, high_refused) = lowercase_hex_digit(pair[0]);
            let (low, low_refused) = lowercase_hex_digit(pair[1]);
            *byte = (high << 4) | low;
            refused |= high_refused | low_refused;
        }
        if refused != 0 {
            // Dropped here: what was decoded is wiped.
            return Err(MalformedToken);
        }
        Ok(secret)
    }

    /// **Reveals the secret** as 64 lowercase hex characters, in a buffer that zeroizes on
    /// drop. Call it only to show the token once to the user or to write the client's token
    /// file.
    pub fn expose_secret_hex(&self) -> Zeroizing<String> {
        Zeroizing::new(hex::encode(self.0))
    }

    /// **Reveals the secret** by appending its 64 lowercase hex characters to `out`, with no
    /// copy in between: the client writes the token straight into the request it sends
    /// (`pb::Request.capability_token`), so that field is the only place the text exists.
    /// `out` grows at most once, before anything is written, so no reallocation leaves a
    /// stale copy behind; the caller wipes `out` when it is done (see
    /// `devint::session::client::OutgoingRequest`).
    pub fn expose_secret_hex_into(&self, out: &mut String) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        out.reserve_exact(SECRET_HEX_LEN);
        for byte in self.0 {
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0x0f)]));
        }
    }

    /// The digest the server stores and compares (SHA-256 of the 32 bytes).
    pub fn digest(&self) -> TokenDigest {
        TokenDigest(Sha256::digest(self.0).into())
    }
}

/// SHA-256 of a token's secret bytes: what the enrolment book stores instead of the secret
/// (spec §7). Equality is constant-time, so every comparison of digests — including the
/// ones a hash map makes while probing — takes the same time whatever the contents.
#[derive(Clone, Copy)]
pub struct TokenDigest([u8; 32]);

impl TokenDigest {
    /// Lowercase hex, for the book file.
    pub(crate) fn to_hex(self) -> String {
        hex::encode(self.0)
    }

    /// Parse the book file's hex form.
    pub(crate) fn from_hex(text: &str) -> Option<TokenDigest> {
        let mut out = [0; 32];
        if text.len() != 64 || text.bytes().any(|b| b.is_ascii_uppercase()) {
            return None;
        }
        hex::decode_to_slice(text, &mut out).ok()?;
        Some(TokenDigest(out))
    }
}

// The equality below compares whole 8-byte words: no byte of a digest may fall outside them.
const _: () = assert!(std::mem::size_of::<TokenDigest>().is_multiple_of(8));

impl PartialEq for TokenDigest {
    fn eq(&self, other: &Self) -> bool {
        // spec[S7-CONSTANT-TIME] §7: constant-time comparison of fixed-size digests. Every
        // byte's difference is folded in, eight bytes at a time, with no branch on the
        // contents; `subtle` decides on the one folded word (its slice comparison puts an
        // optimisation barrier on each of the 32 bytes: ~3 % of an authorised round trip).
        let (ours, _) = self.0.as_chunks::<8>();
        let (theirs, _) = other.0.as_chunks::<8>();
        let differ = ours.iter().zip(theirs).fold(0u64, |d, (a, b)| {
            d | (u64::from_ne_bytes(*a) ^ u64::from_ne_bytes(*b))
        });
        differ.ct_eq(&0).into()
    }
}

impl Eq for TokenDigest {}

impl std::hash::Hash for TokenDigest {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl std::fmt::Debug for TokenDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenDigest(..)")
    }
}

/// The value of `c` as a lowercase hex digit (`0-9a-f`), and 1 in the second place when it
/// is not one (its value is then 0), computed without branching on `c`. The one home of the
/// lowercase-hex alphabet: a token id's hex part is checked with it too.
pub(super) const fn lowercase_hex_digit(c: u8) -> (u8, u8) {
    let digit = c.wrapping_sub(b'0');
    let letter = c.wrapping_sub(b'a');
    let is_digit = (digit < 10) as u8;
    let is_letter = (letter < 6) as u8;
    // All ones where the test held, else zero.
    let digit_mask = 0u8.wrapping_sub(is_digit);
    let letter_mask = 0u8.wrapping_sub(is_letter);
    (
        (digit & digit_mask) | (letter.wrapping_add(10) & letter_mask),
        1 ^ (is_digit | is_letter),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_secrets_round_trip_through_their_text_form() {
        let s = TokenSecret::generate().unwrap();
        let hex = s.expose_secret_hex();
        assert_eq!(hex.len(), 64);
        let back = TokenSecret::parse(&hex).unwrap();
        assert!(s.digest() == back.digest());
    }

    #[test]
    fn hex_written_in_place_matches_the_text_form_and_never_reallocates() {
        let s = TokenSecret::generate().unwrap();
        let mut out = String::new();
        s.expose_secret_hex_into(&mut out);
        assert_eq!(out.as_str(), s.expose_secret_hex().as_str());
        // One allocation of exactly the token's size: nothing was grown (and so copied).
        assert_eq!(out.capacity(), SECRET_HEX_LEN);
    }

    #[test]
    fn a_byte_is_a_lowercase_hex_digit_exactly_when_it_is_0_to_9_or_a_to_f() {
        for c in 0..=u8::MAX {
            let expected = match c {
                b'0'..=b'9' => Some(c - b'0'),
                b'a'..=b'f' => Some(c - b'a' + 10),
                _ => None,
            };
            let (value, refused) = lowercase_hex_digit(c);
            match expected {
                Some(v) => assert_eq!((value, refused), (v, 0), "{c:#04x}"),
                None => assert_eq!(refused, 1, "{c:#04x} must be refused"),
            }
        }
    }

    #[test]
    fn one_character_outside_lowercase_hex_anywhere_makes_the_token_malformed() {
        let good = TokenSecret::from_bytes([0x5c; 32]).expose_secret_hex();
        assert!(TokenSecret::parse(&good).is_ok());
        for at in 0..SECRET_HEX_LEN {
            for bad in ["g", "G", "A", " ", "/", ":", "`", "\u{7f}"] {
                let mut text = good.to_string();
                text.replace_range(at..at + 1, bad);
                assert_eq!(
                    TokenSecret::parse(&text).err(),
                    Some(MalformedToken),
                    "{at} {bad:?}"
                );
            }
        }
    }

    #[test]
    fn uppercase_hex_is_malformed() {
        let s = TokenSecret::from_bytes([0xab; 32]);
        let upper = s.expose_secret_hex().to_uppercase();
        assert_eq!(TokenSecret::parse(&upper).err(), Some(MalformedToken));
    }

    #[test]
    fn two_generated_secrets_differ() {
        let a = TokenSecret::generate().unwrap();
        let b = TokenSecret::generate().unwrap();
        assert!(a.digest() != b.digest());
    }

    #[test]
    fn digests_differing_in_any_one_bit_are_unequal() {
        let digest = TokenSecret::from_bytes([0x5a; 32]).digest();
        assert!(digest == TokenDigest(digest.0), "a digest equals its copy");
        for byte in 0..32 {
            for bit in 0..8 {
                let mut other = digest.0;
                other[byte] ^= 1 << bit;
                assert!(
                    digest != TokenDigest(other),
                    "byte {byte}, bit {bit} ignored"
                );
            }
        }
    }

    #[test]
    fn digest_debug_shows_nothing() {
        let d = TokenSecret::from_bytes([7; 32]).digest();
        assert_eq!(format!("{d:?}"), "TokenDigest(..)");
    }
}
