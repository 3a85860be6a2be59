//! Free text for views and errors: every line the backend says goes through a
//! [`Sentence`], shortened to fit, so no view can carry more than a bounded line.
//!
//! Owns turning the backend's own messages into sentences and refusals. It must never be
//! handed a settings value (only names, paths and reasons).

use devint::backend::LifecycleError;
use devint::verbs::Sentence;

/// `text` as a sentence: one line, shortened to the maximum, or the placeholder.
pub fn say(text: impl AsRef<str>) -> Sentence {
    let one_line: String = text
        .as_ref()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut chars: Vec<char> = one_line.trim().chars().collect();
    if chars.len() > Sentence::MAX_CHARS {
        chars.truncate(Sentence::MAX_CHARS - 1);
        chars.push('…');
    }
    let s: String = chars.into_iter().collect();
    Sentence::or_placeholder(if s.is_empty() { "(no detail)" } else { &s }).0
}

/// A `LIFECYCLE_ERROR` refusal.
pub fn refuse(message: impl AsRef<str>, remediation: impl AsRef<str>) -> LifecycleError {
    LifecycleError::refused(say(message), say(remediation))
}
