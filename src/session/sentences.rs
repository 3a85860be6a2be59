//! Counts the refused free-text fields of a backend's answer, so the refusal is audited
//! wherever in a backend the [`Sentence`](crate::verbs::Sentence) was built.
//!
//! A placeholder sentence carries its refusal ([`Sentence::refusal`](crate::verbs::Sentence::refusal))
//! and serialises under the newtype name `REFUSED_SENTENCE`; this module walks the typed
//! view with a serde serializer that writes nothing and counts those newtypes. Every
//! sentence field of every view is reached because the views derive `Serialize`: a field
//! added to a view is counted without a line here. It never looks at the encoded frame and
//! never copies text.

use serde::ser::{self, Serialize};

use crate::verbs::{VerbResult, REFUSED_SENTENCE};

/// How many sentences of `result` stand in for refused text.
pub(crate) fn refused_sentences(result: &VerbResult) -> usize {
    let mut walker = Walker { refused: 0 };
    // The walker itself never fails; only a view's own `Serialize` could, and the derived
    // ones write plain data. Whatever was counted before such a failure still counts.
    let walked = result.serialize(&mut walker);
    debug_assert!(walked.is_ok(), "a view failed to serialise: {walked:?}");
    walker.refused
}

/// A serializer that writes nothing and counts refused-sentence newtypes.
struct Walker {
    refused: usize,
}

/// A view's `Serialize` reported an error (the walker never makes one).
#[derive(Debug)]
struct WalkError;

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a view failed to serialise while its refused sentences were counted")
    }
}

impl std::error::Error for WalkError {}

impl ser::Error for WalkError {
    fn custom<T: std::fmt::Display>(_: T) -> WalkError {
        WalkError
    }
}

macro_rules! ignore_scalars {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, _: $ty) -> Result<(), WalkError> { Ok(()) })*
    };
}

/// A compound opens on the walker itself; its parts are walked by `walk_compound!`.
macro_rules! open_compounds {
    ($($method:ident($($arg:ty),*)),* $(,)?) => {
        $(fn $method(self, $(_: $arg),*) -> Result<Self, WalkError> {
            Ok(self)
        })*
    };
}

impl ser::Serializer for &mut Walker {
    type Ok = ();
    type Error = WalkError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    ignore_scalars!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_f32: f32, serialize_f64: f64, serialize_char: char,
        serialize_str: &str, serialize_bytes: &[u8], serialize_unit_struct: &'static str,
    );

    fn serialize_none(self) -> Result<(), WalkError> {
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<(), WalkError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), WalkError> {
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
    ) -> Result<(), WalkError> {
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), WalkError> {
        if name == REFUSED_SENTENCE {
            self.refused += 1;
            return Ok(());
        }
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), WalkError> {
        value.serialize(self)
    }
    open_compounds!(
        serialize_seq(Option<usize>),
        serialize_tuple(usize),
        serialize_tuple_struct(&'static str, usize),
        serialize_tuple_variant(&'static str, u32, &'static str, usize),
        serialize_map(Option<usize>),
        serialize_struct(&'static str, usize),
        serialize_struct_variant(&'static str, u32, &'static str, usize),
    );
}

/// The compound serializers: every element, field, key and value is walked the same way.
macro_rules! walk_compound {
    ($($trait:ident { $($method:ident($($name:ty),*)),* })*) => {$(
        impl ser::$trait for &mut Walker {
            type Ok = ();
            type Error = WalkError;
            $(fn $method<T: ?Sized + Serialize>(
                &mut self,
                $(_: $name,)*
                value: &T,
            ) -> Result<(), WalkError> {
                value.serialize(&mut **self)
            })*
            fn end(self) -> Result<(), WalkError> {
                Ok(())
            }
        }
    )*};
}

walk_compound! {
    SerializeSeq { serialize_element() }
    SerializeTuple { serialize_element() }
    SerializeTupleStruct { serialize_field() }
    SerializeTupleVariant { serialize_field() }
    SerializeMap { serialize_key(), serialize_value() }
    SerializeStruct { serialize_field(&'static str) }
    SerializeStructVariant { serialize_field(&'static str) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verbs::{
        AdapterCeiling, CapabilityName, CapabilityView, Compatibility, Sentence, Support, ToolId,
        ToolList, ToolSummary,
    };

    fn summary(display_name: Sentence, reason: Option<Sentence>) -> ToolSummary {
        ToolSummary {
            tool_id: ToolId::parse("claude-code").expect("valid tool id"),
            display_name,
            detected: true,
            detected_version: None,
            compatibility: Compatibility::Compatible,
            capabilities: vec![CapabilityView {
                capability: CapabilityName::Hooks,
                support: Support::Unsupported,
                reason,
            }],
            adapter_ceiling: AdapterCeiling::L2Enforce,
        }
    }

    fn text(t: &str) -> Sentence {
        Sentence::or_placeholder(t).0
    }

    #[test]
    fn counts_each_refused_sentence_however_deep_and_nothing_else() {
        let key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789";
        let clean = VerbResult::ListTools(ToolList {
            tools: vec![summary(text("Claude Code"), Some(text("needs 1.0.38")))],
        });
        assert_eq!(refused_sentences(&clean), 0);
        let refused = VerbResult::ListTools(ToolList {
            tools: vec![
                summary(text(key), None),
                summary(text("Codex"), Some(text("line\nbreak"))),
            ],
        });
        assert_eq!(refused_sentences(&refused), 2);
    }

    #[test]
    fn text_that_only_reads_like_a_placeholder_is_not_a_refusal() {
        // A backend that writes the placeholder's words itself refused nothing, and a
        // placeholder serialises to JSON as its bare text.
        let words = Sentence::from_static(crate::verbs::CREDENTIAL_PLACEHOLDER);
        let result = VerbResult::ListTools(ToolList {
            tools: vec![summary(words, None)],
        });
        assert_eq!(refused_sentences(&result), 0);
        let refused = text("password=hunter2hunter2");
        assert!(refused.refusal().is_some());
        assert_eq!(
            serde_json::to_string(&refused).expect("serialises"),
            format!("\"{}\"", crate::verbs::CREDENTIAL_PLACEHOLDER)
        );
    }
}
