//! What every answer written straight from its view must hold, whatever its verb: its bytes
//! are prost's bytes for the same `Response`, it reads back as that typed frame, and a
//! client decodes it to the view it was written from.

use devint::session::Reply;
use devint::verbs::{Verb, VerbResult};
use devint::version::ApiVersion;
use devint::wire::{encode, pb, Decoder, ServerFrame, ServerToClient};
use proptest::prelude::*;

/// `direct` against `via_prost` (the same answer built as prost's message), and decoded
/// back at `version` for `verb` to `expected`.
pub fn direct_answer_is_prost_answer(
    direct: Reply,
    via_prost: pb::Response,
    verb: Verb,
    version: ApiVersion,
    expected: VerbResult,
) -> Result<(), TestCaseError> {
    let request_id = via_prost.request_id;
    let via_prost = ServerFrame::Response(via_prost);
    let bytes = encode(&direct).unwrap();
    prop_assert_eq!(&bytes, &encode(&via_prost).unwrap());
    prop_assert_eq!(direct.into_frame(), via_prost);

    let mut input = bytes.as_slice();
    let back = Decoder::<ServerToClient>::new()
        .decode(&mut input)
        .unwrap()
        .unwrap();
    let ServerFrame::Response(response) = back else {
        panic!("an answer decodes as a Response");
    };
    prop_assert_eq!(response.request_id, request_id);
    let result = VerbResult::from_response(verb, &response, version).unwrap();
    prop_assert_eq!(result, expected);
    Ok(())
}
