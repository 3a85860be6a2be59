//! Detects a refused free-text field in an outgoing response, so the refusal is audited
//! wherever in a backend the [`Sentence`](crate::verbs::Sentence) was built.

use prost::Message;

use crate::verbs::{CREDENTIAL_PLACEHOLDER, SHAPE_PLACEHOLDER};
use crate::wire::pb;

/// Whether any text field of `response` is a refused-sentence placeholder.
pub(crate) fn carries_placeholder(response: &pb::Response) -> bool {
    let bytes = response.encode_to_vec();
    [CREDENTIAL_PLACEHOLDER, SHAPE_PLACEHOLDER]
        .iter()
        .any(|p| contains(&bytes, p.as_bytes()))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}
