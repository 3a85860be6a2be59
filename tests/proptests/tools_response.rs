//! Property test for `verbs::ToolListResponse`: the `list_tools` answer written straight from
//! its view is byte-identical to prost's encoding of the same `Response`, for any list (empty
//! texts, absent versions and reasons, request id 0, lists long enough for multi-byte
//! lengths), and decodes back to the same view.

use devint::session::Reply;
use devint::verbs::Verb;
use devint::verbs::{
    AdapterCeiling, CapabilityName, CapabilityView, Compatibility, Sentence, Support, ToolId,
    ToolList, ToolListResponse, ToolSummary, VerbResult, VersionLabel,
};
use devint::version::ApiVersion;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;

use crate::direct::direct_answer_is_prost_answer;

/// Any free text, kept as a sentence (a refused one becomes its placeholder, as a backend's
/// would); the empty sentence is among them.
fn sentence() -> impl Strategy<Value = Sentence> {
    prop_oneof!["", "\\PC{0,40}"].prop_map(|t| Sentence::or_placeholder(&t).0)
}

fn capability() -> impl Strategy<Value = CapabilityView> {
    (
        select(CapabilityName::ALL),
        select(Support::ALL),
        option::of(sentence()),
    )
        .prop_map(|(capability, support, reason)| CapabilityView {
            capability,
            support,
            reason,
        })
}

fn summary() -> impl Strategy<Value = ToolSummary> {
    (
        "[a-z][a-z0-9-]{0,24}".prop_filter_map("a tool id", |t| ToolId::parse(&t).ok()),
        sentence(),
        any::<bool>(),
        option::of(
            "[0-9][0-9a-z.+_-]{0,16}"
                .prop_filter_map("a version", |v| VersionLabel::parse(&v).ok()),
        ),
        select(Compatibility::ALL),
        vec(capability(), 0..13),
        select(AdapterCeiling::ALL),
    )
        .prop_map(
            |(
                tool_id,
                display_name,
                detected,
                detected_version,
                compatibility,
                capabilities,
                adapter_ceiling,
            )| {
                ToolSummary {
                    tool_id,
                    display_name,
                    detected,
                    detected_version,
                    compatibility,
                    capabilities,
                    adapter_ceiling,
                }
            },
        )
}

fn answer() -> impl Strategy<Value = ToolListResponse> {
    (
        prop_oneof![Just(0u64), any::<u64>()],
        1u32..=5,
        vec(summary(), 0..20),
    )
        .prop_map(|(request_id, version, tools)| ToolListResponse {
            request_id,
            version: ApiVersion::new(version),
            list: ToolList { tools },
        })
}

proptest! {
    #[test]
    fn a_direct_tool_list_answer_is_byte_identical_to_prost(answer in answer()) {
        direct_answer_is_prost_answer(
            Reply::ToolList(answer.clone()),
            answer.to_response(),
            Verb::ListTools,
            answer.version,
            VerbResult::ListTools(answer.list),
        )?;
    }
}
