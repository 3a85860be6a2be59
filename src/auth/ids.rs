//! [`TokenId`] (the public handle of a token) and [`ClientName`] (who it was issued to).
//!
//! Both hold their text in an `Arc<str>`: every authorised request's grant (and every audit
//! record of one) carries the two of its token, and a clone is then a count, not a copy.

use std::sync::Arc;

use super::secret::{lowercase_hex_digit, os_random, EntropyError};

const TOKEN_ID_PREFIX: &str = "tok_";
const TOKEN_ID_RANDOM_BYTES: usize = 16;
/// The longest client name the book accepts.
pub const CLIENT_NAME_MAX: usize = 64;

/// A token's identifier: `tok_` followed by 32 lowercase hex characters from the OS CSPRNG.
///
// spec[S7-TOKEN-ID] §7: a separate random identifier, never the secret.
/// Spec §7: it is a separate random value, never derived from the secret, and it is what
/// audit records, `rotate` and `revoke` name.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct TokenId(Arc<str>);

/// A token id that is not `tok_` followed by 32 lowercase hex characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not a token id (expected `tok_` and 32 lowercase hex characters; `devint tokens list` shows them)")]
pub struct InvalidTokenId;

impl TokenId {
    /// A fresh random id.
    pub fn generate() -> Result<TokenId, EntropyError> {
        let mut raw = [0u8; TOKEN_ID_RANDOM_BYTES];
        os_random(&mut raw)?;
        Ok(TokenId(Arc::from(format!(
            "{TOKEN_ID_PREFIX}{}",
            hex::encode(raw)
        ))))
    }

    /// Parse the text form.
    pub fn parse(text: &str) -> Result<TokenId, InvalidTokenId> {
        let rest = text.strip_prefix(TOKEN_ID_PREFIX).ok_or(InvalidTokenId)?;
        if rest.len() == 2 * TOKEN_ID_RANDOM_BYTES
            && rest.bytes().all(|b| lowercase_hex_digit(b).1 == 0)
        {
            Ok(TokenId(Arc::from(text)))
        } else {
            Err(InvalidTokenId)
        }
    }

    /// The text form.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for TokenId {
    type Error = InvalidTokenId;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        TokenId::parse(&value)
    }
}

impl From<TokenId> for String {
    fn from(value: TokenId) -> String {
        String::from(&*value.0)
    }
}

impl std::fmt::Display for TokenId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The name a token was issued to (shown in `devint tokens list` and audit records):
/// 1 to 64 characters from `A-Za-z0-9`, `-`, `_`, `.`, `@`. Bounded and single-token so an
/// audit record never carries free text.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct ClientName(Arc<str>);

/// A client name outside the accepted alphabet or length.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "a client name is 1 to 64 characters from A-Z a-z 0-9 - _ . @ (for example `vscode-extension`)"
)]
pub struct InvalidClientName;

impl ClientName {
    /// Validate a client name.
    pub fn parse(text: &str) -> Result<ClientName, InvalidClientName> {
        let ok = !text.is_empty()
            && text.len() <= CLIENT_NAME_MAX
            && text
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'@'));
        if ok {
            Ok(ClientName(Arc::from(text)))
        } else {
            Err(InvalidClientName)
        }
    }

    /// The text form.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for ClientName {
    type Error = InvalidClientName;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        ClientName::parse(&value)
    }
}

impl From<ClientName> for String {
    fn from(value: ClientName) -> String {
        String::from(&*value.0)
    }
}

impl std::fmt::Display for ClientName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_token_ids_parse_and_differ() {
        let a = TokenId::generate().unwrap();
        let b = TokenId::generate().unwrap();
        assert_ne!(a, b);
        assert_eq!(TokenId::parse(a.as_str()), Ok(a));
    }

    #[test]
    fn token_ids_without_prefix_or_with_uppercase_are_refused() {
        for bad in [
            "",
            "tok_",
            "abc",
            "tok_ABCDEF0123456789abcdef0123456789",
            "tok_00",
        ] {
            assert_eq!(TokenId::parse(bad), Err(InvalidTokenId), "{bad}");
        }
    }

    #[test]
    fn client_names_are_bounded_and_single_token() {
        assert!(ClientName::parse("vscode-extension").is_ok());
        assert!(ClientName::parse("").is_err());
        assert!(ClientName::parse("a b").is_err());
        assert!(ClientName::parse("line\nbreak").is_err());
        assert!(ClientName::parse(&"x".repeat(65)).is_err());
        assert!(ClientName::parse(&"x".repeat(64)).is_ok());
    }
}
