//! Exact removal is exact. Credential detection judges the value as well
//! as the key, and key names match as whole words: one-line `{"auths": {}}` and
//! `{"token": {}}` come back byte for byte after install → remove, with no warning; a real
//! secret is still never stored, and then the preview says the file will not come back
//! byte for byte, and why.

#![cfg(feature = "test-support")]

mod lifecycle_support;

use lifecycle_support::*;

fn install_then_remove(original: &str) -> (Option<String>, Vec<String>, Vec<String>) {
    let sb = Sandbox::new();
    sb.write_settings(original);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    let receipts: Vec<String> = sb
        .files("receipts")
        .into_iter()
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    let preview = c.remove(&rt, None).unwrap();
    c.remove(&rt, Some(preview.plan_id.clone())).unwrap();
    let warnings = preview
        .warnings
        .iter()
        .map(|w| w.as_str().to_owned())
        .collect();
    (sb.read_settings(), warnings, receipts)
}

#[test]
fn one_line_files_with_credential_sounding_keys_but_no_secret_come_back_byte_for_byte() {
    for original in [
        "{\"auths\": {}}",
        "{\"token\": {}}",
        "{\"auths\": {}}\n",
        "{\"apiKey\": null, \"token\": []}",
        "{\"authors\": [\"me\"], \"maxTokens\": 4096}",
    ] {
        let (back, warnings, _) = install_then_remove(original);
        assert_eq!(back.as_deref(), Some(original), "{original}");
        assert!(
            !warnings.iter().any(|w| w.contains("byte for byte")),
            "{original}: {warnings:?}"
        );
    }
}

#[test]
fn a_real_secret_beside_our_keys_is_never_stored_and_the_preview_says_why_it_is_not_exact() {
    let secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
    let original = format!("{{\"env\": {{\"GITHUB_TOKEN\": \"{secret}\"}}}}");
    let (back, warnings, receipts) = install_then_remove(&original);
    for r in &receipts {
        assert!(
            !r.contains("0123456789abcdefghij"),
            "the secret was stored: {r}"
        );
    }
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("will not come back byte for byte") && w.contains("credential")),
        "{warnings:?}"
    );
    let back = back.expect("the file is kept");
    let value: serde_json::Value = serde_json::from_str(&back).unwrap();
    assert_eq!(
        value["env"]["GITHUB_TOKEN"], secret,
        "the user's secret stays in the file"
    );
    assert!(
        value["env"].get("ANTHROPIC_BASE_URL").is_none(),
        "ours is gone"
    );
}
