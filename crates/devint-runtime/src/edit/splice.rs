//! [`Splice`]: one contiguous byte replacement, recorded so it can be undone exactly.
//!
//! Owns computing the minimal splice between two texts and undoing it; it must never undo a
//! splice onto text whose bytes at that place differ from what the splice inserted.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// At byte `offset`, `removed` was replaced by `inserted`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Splice {
    /// Byte offset of the change (a character boundary in both texts).
    pub offset: usize,
    /// The bytes that were there before.
    pub removed: String,
    /// The bytes that are there after.
    pub inserted: String,
}

impl Splice {
    /// The smallest single splice turning `before` into `after` (common prefix and suffix
    /// kept), or `None` when they are equal.
    pub fn between(before: &str, after: &str) -> Option<Splice> {
        if before == after {
            return None;
        }
        let mut prefix = before
            .bytes()
            .zip(after.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        while !before.is_char_boundary(prefix) || !after.is_char_boundary(prefix) {
            prefix -= 1;
        }
        let max_suffix = before.len().min(after.len()) - prefix;
        let mut suffix = before
            .bytes()
            .rev()
            .zip(after.bytes().rev())
            .take(max_suffix)
            .take_while(|(a, b)| a == b)
            .count();
        while !before.is_char_boundary(before.len() - suffix)
            || !after.is_char_boundary(after.len() - suffix)
        {
            suffix -= 1;
        }
        Some(Splice {
            offset: prefix,
            removed: before[prefix..before.len() - suffix].to_owned(),
            inserted: after[prefix..after.len() - suffix].to_owned(),
        })
    }

    /// Undoes this splice on `text`, or `None` if `text` does not hold `inserted` at `offset`.
    pub fn undo(&self, text: &str) -> Option<String> {
        let end = self.offset.checked_add(self.inserted.len())?;
        if text.get(self.offset..end)? != self.inserted {
            return None;
        }
        let mut out = String::with_capacity(text.len() - self.inserted.len() + self.removed.len());
        out.push_str(&text[..self.offset]);
        out.push_str(&self.removed);
        out.push_str(&text[end..]);
        Some(out)
    }
}

/// Hex SHA-256 of a text, the identity a [`super::Reversal`] checks before an exact undo.
pub(super) fn digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_undo_restores_the_text_it_was_computed_from() {
        for (before, after) in [
            ("{}", "{\n  \"a\": 1\n}"),
            ("", "{}\n"),
            ("é1é", "é2é"),
            ("aaa", "aaaa"),
            ("xyz", ""),
        ] {
            let splice = Splice::between(before, after).unwrap();
            assert_eq!(splice.undo(after).as_deref(), Some(before));
        }
        assert!(Splice::between("same", "same").is_none());
    }

    #[test]
    fn splice_refuses_text_that_does_not_hold_its_insertion() {
        let splice = Splice::between("a=1", "a=2").unwrap();
        assert!(splice.undo("a=3").is_none());
        assert!(splice.undo("").is_none());
    }
}
