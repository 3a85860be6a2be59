//! Typed state files: a receipt, journal or evidence record holding a value
//! this build does not know is a load error naming the file and the field — never a default,
//! never a fresh id — while files written by earlier builds (same tokens) load unchanged.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use devint::verbs::{Level, StatusState, VerificationOutcome};
use devint_runtime::reference::ReferenceRuntime;
use lifecycle_support::*;
use sha2::{Digest, Sha256};

/// Rewrites the receipt's body with `edit` and seals it again with a matching digest, as a
/// newer (or hostile) writer would: the integrity check passes, the values are what is tested.
fn reseal_receipt(sb: &Sandbox, edit: impl Fn(&str) -> String) {
    let path = sb.files("receipts").pop().unwrap();
    let mut sealed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let body = edit(sealed["body"].as_str().unwrap());
    sealed["digest"] = hex::encode(Sha256::digest(body.as_bytes())).into();
    sealed["body"] = body.into();
    std::fs::write(&path, serde_json::to_string_pretty(&sealed).unwrap()).unwrap();
}

#[test]
fn a_receipt_with_an_unknown_capability_is_refused_naming_the_field() {
    let (sb, rt, mut c) = installed();
    reseal_receipt(&sb, |body| {
        body.replacen(
            "\"capability\":\"model_gateway_base_url\"",
            "\"capability\":\"teleport\"",
            1,
        )
    });
    let s = c.status(&rt);
    assert_eq!(s.state, StatusState::Degraded);
    assert!(s.achieved_level <= Level::DetectedNotIntegrated);
    let reason = s.state_reason.unwrap();
    assert!(
        reason.as_str().contains("keys[0].capability") && reason.as_str().contains("receipts/"),
        "{}",
        reason.as_str()
    );
    assert!(
        !reason.as_str().contains("teleport"),
        "the stored value is never echoed"
    );
    assert_eq!(c.verify(&rt).outcome, VerificationOutcome::Unverifiable);
    let before = sb.read_settings();
    let plan = c.plan(&rt, "team");
    let e = c.apply(&rt, &plan.plan_id).unwrap_err();
    assert!(e.message.contains("capability"), "{}", e.message);
    assert_eq!(sb.read_settings(), before, "nothing was written through it");
}

#[test]
fn a_receipt_with_a_malformed_id_is_refused_and_never_given_a_fresh_id() {
    let (sb, rt, mut c) = installed();
    let path = sb.files("receipts").pop().unwrap();
    reseal_receipt(&sb, |body| {
        let mut v: serde_json::Value = serde_json::from_str(body).unwrap();
        v["receipt_id"] = "not a receipt id".into();
        v.to_string()
    });
    let tampered = std::fs::read(&path).unwrap();
    let plan = c.plan(&rt, "team");
    let e = c.apply(&rt, &plan.plan_id).unwrap_err();
    assert!(e.message.contains("receipt_id"), "{}", e.message);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        tampered,
        "the receipt was neither rewritten nor given a new id"
    );
    let preview = c.remove(&rt, None).unwrap();
    assert!(preview
        .warnings
        .iter()
        .any(|w| w.as_str().contains("receipt_id")));
}

#[test]
fn a_journal_with_an_unknown_operation_stops_open_naming_the_field() {
    let (sb, rt, _) = installed();
    drop(rt);
    let journal = sb.state.join("journal/claude-code.0000.json");
    let record = serde_json::json!({
        "version": 1,
        "operation": "teleport",
        "tool": "claude-code",
        "scope": "user",
        "target": sb.settings(),
        "pre_digest": null,
        "post_digest": null,
        "receipt": {"kind": "delete", "receipt_id": "0123456789abcdef0123456789abcdef"},
    });
    std::fs::write(&journal, record.to_string()).unwrap();
    let e = ReferenceRuntime::open(sb.config()).unwrap_err().to_string();
    assert!(
        e.contains("claude-code.0000.json") && e.contains("`operation`"),
        "{e}"
    );
    assert!(!e.contains("teleport"), "{e}");
}

#[test]
fn a_journal_written_with_the_operation_tokens_of_earlier_builds_recovers() {
    let (sb, rt, mut c) = installed();
    let receipt = sb.files("receipts").pop().unwrap();
    let sealed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&receipt).unwrap()).unwrap();
    let body: serde_json::Value = serde_json::from_str(sealed["body"].as_str().unwrap()).unwrap();
    drop(rt);
    // A remove interrupted after its journal was written, as the previous build wrote it.
    let name = receipt.file_name().unwrap();
    let text = std::fs::read_to_string(sb.settings()).unwrap();
    let digest = hex::encode(Sha256::digest(text.as_bytes()));
    let record = serde_json::json!({
        "version": 1,
        "operation": "remove",
        "tool": "claude-code",
        "scope": "user",
        "target": sb.settings(),
        "pre_digest": digest,
        "post_digest": null,
        "receipt": {"kind": "delete", "receipt_id": body["receipt_id"]},
    });
    std::fs::write(sb.state.join("journal").join(name), record.to_string()).unwrap();
    let rt = sb.open();
    assert!(
        sb.files("journal").is_empty(),
        "recovery consumed the journal"
    );
    assert_eq!(c.status(&rt).achieved_level, Level::PartiallyIntegrated);
}
