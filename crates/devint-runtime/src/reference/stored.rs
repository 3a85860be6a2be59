//! Typed state files: how the runtime's own records (receipts, journals, evidence) read the
//! core's ids and vocabularies back from disk.
//!
//! Owns the one rule for a stored token: it is parsed by the core's own parser, exactly as a
//! wire token is, and a value the parser refuses is a [`StoredValueError`] naming the field —
//! never a default, never a fresh id. The tokens written are the core's `Serialize` forms
//! (the wire tokens), so files written before these fields were typed read back unchanged.
//! It must never echo a stored value in an error: only the field's path and the parser's own
//! refusal (which gives lengths and accepted tokens, never the input).

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use devint::verbs::{
    ActionKind, CapabilityName, Digest, ExercisedOutcome, HostAttestedOutcome, Level,
    PolicyProfileId, Profile, ReceiptId, SettingsScope, ToolId,
};

/// A value the core parses from its token: a vocabulary member or a validated id.
pub trait StoredToken: Sized {
    /// Parse `text` as the core does; the error never echoes `text`.
    fn parse_stored(text: &str) -> Result<Self, String>;
}

macro_rules! stored_tokens {
    ($($ty:ty),+ $(,)?) => {
        $(impl StoredToken for $ty {
            fn parse_stored(text: &str) -> Result<Self, String> {
                <$ty>::parse(text).map_err(|e| e.to_string())
            }
        })+
    };
}

stored_tokens!(
    ActionKind,
    CapabilityName,
    ExercisedOutcome,
    HostAttestedOutcome,
    Level,
    PolicyProfileId,
    Profile,
    ReceiptId,
    SettingsScope,
    Digest,
    ToolId,
);

/// Marks a message as the core parser's own refusal (safe to show), so a load error can tell
/// it from serde's messages, which may quote the stored value.
const REFUSAL: &str = "devint-refused: ";

/// `#[serde(deserialize_with = "stored::token")]`: a field holding a core token.
pub fn token<'de, D: Deserializer<'de>, T: StoredToken>(d: D) -> Result<T, D::Error> {
    let text = String::deserialize(d)?;
    T::parse_stored(&text).map_err(|why| D::Error::custom(format!("{REFUSAL}{why}")))
}

/// Why a stored record did not read back as its type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoredValueError {
    /// The text is not JSON at all (truncated, not a record).
    #[error("it does not parse as JSON")]
    Syntax,
    /// `field` (a path such as `keys[0].capability`) holds a value this build does not know,
    /// or is missing or of the wrong type.
    #[error("field `{field}`: {detail}")]
    Field {
        /// The field's path inside the record.
        field: String,
        /// The parser's refusal, or a generic description (never the stored value).
        detail: String,
    },
}

/// Reads `text` as a `T`, naming the field of the first value that does not fit.
pub fn from_json<T: DeserializeOwned>(text: &str) -> Result<T, StoredValueError> {
    let value: Value = serde_json::from_str(text).map_err(|_| StoredValueError::Syntax)?;
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = match e.path().to_string() {
            p if p == "." => "(the record)".to_owned(),
            p => p,
        };
        let message = e.inner().to_string();
        let detail = match message.strip_prefix(REFUSAL) {
            Some(refusal) => refusal.to_owned(),
            None if message.starts_with("missing field") => message,
            None => "a missing value or one of the wrong type or shape".to_owned(),
        };
        StoredValueError::Field { field, detail }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize)]
    struct Record {
        #[serde(deserialize_with = "token")]
        level: Level,
        keys: Vec<Key>,
    }

    #[derive(Debug, Deserialize)]
    struct Key {
        #[serde(deserialize_with = "token")]
        capability: CapabilityName,
    }

    #[test]
    fn a_known_token_reads_back_typed() {
        let r: Record =
            from_json(r#"{"level":"integrated","keys":[{"capability":"hooks"}]}"#).unwrap();
        assert_eq!(r.level, Level::Integrated);
        assert_eq!(r.keys[0].capability, CapabilityName::Hooks);
    }

    #[test]
    fn an_unknown_token_names_its_field_and_never_echoes_the_value() {
        let e = from_json::<Record>(
            r#"{"level":"integrated","keys":[{"capability":"hooks"},{"capability":"sk-secretvalue"}]}"#,
        )
        .unwrap_err();
        let StoredValueError::Field { field, detail } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(field, "keys[1].capability");
        assert!(detail.contains("managed_settings"), "{detail}");
        assert!(!e.to_string().contains("secretvalue"), "{e}");
        let e = from_json::<Record>(r#"{"level":7,"keys":[]}"#).unwrap_err();
        assert!(e.to_string().contains("`level`"), "{e}");
        let e = from_json::<Record>(r#"{"level":"hunter2","keys":[]}"#).unwrap_err();
        assert!(!e.to_string().contains("hunter2"), "{e}");
        assert_eq!(
            from_json::<Record>("{").unwrap_err(),
            StoredValueError::Syntax
        );
    }
}
