//! `Sentence` through the public API: what a backend can and cannot put in free text.

use devint::verbs::*;

#[test]
fn a_backend_gets_a_placeholder_and_a_reason_for_credential_shaped_text() {
    let cases = [
        (
            "the key is sk-ant-api03-AbCdEfGhIjKl",
            SentenceRefusal::KeyPrefix,
        ),
        (
            "AWS key AKIAIOSFODNN7EXAMPLE is set",
            SentenceRefusal::KeyPrefix,
        ),
        ("-----BEGIN RSA PRIVATE KEY-----", SentenceRefusal::PemBlock),
        (
            "Bearer eyJhbGciOiJIUzI1NiJ9",
            SentenceRefusal::AuthorizationHeader,
        ),
        ("jwt eyJhbGciOiJIUzI1NiJ9.e30.x", SentenceRefusal::JwtShaped),
        (
            "digest e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            SentenceRefusal::HexRun,
        ),
        (
            "secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            SentenceRefusal::HighEntropyRun,
        ),
    ];
    for (text, reason) in cases {
        let (s, why) = Sentence::or_placeholder(text);
        assert_eq!(why, Some(reason), "{text}");
        assert!(reason.is_credential_shaped());
        assert_eq!(s.as_str(), CREDENTIAL_PLACEHOLDER);
        assert!(!reason.to_string().contains(text));
    }
}

#[test]
fn everyday_backend_text_is_kept_verbatim() {
    for text in [
        "Writes env.ANTHROPIC_BASE_URL in /home/u/.claude/settings.json",
        "Codex 0.46.0 is compatible.",
        "gateway_protected needs an exercised probe; none is configured",
    ] {
        let (s, why) = Sentence::or_placeholder(text);
        assert_eq!((s.as_str(), why), (text, None));
    }
}

#[test]
fn shape_refusals_get_the_shape_placeholder() {
    for (text, reason) in [
        ("", SentenceRefusal::Empty),
        ("a\r\nb", SentenceRefusal::NotOneLine),
        ("\u{1b}[2J", SentenceRefusal::ControlCharacter),
    ] {
        let (s, why) = Sentence::or_placeholder(text);
        assert_eq!(why, Some(reason));
        assert!(!reason.is_credential_shaped());
        assert_eq!(s.as_str(), SHAPE_PLACEHOLDER);
    }
    let long = "word ".repeat(60);
    assert_eq!(Sentence::new(&long), Err(SentenceRefusal::TooLong));
}

#[test]
fn refusal_tokens_are_distinct_for_audit() {
    let all = [
        SentenceRefusal::Empty,
        SentenceRefusal::TooLong,
        SentenceRefusal::NotOneLine,
        SentenceRefusal::ControlCharacter,
        SentenceRefusal::KeyPrefix,
        SentenceRefusal::PemBlock,
        SentenceRefusal::AuthorizationHeader,
        SentenceRefusal::JwtShaped,
        SentenceRefusal::UrlUserinfo,
        SentenceRefusal::CredentialAssignment,
        SentenceRefusal::HexRun,
        SentenceRefusal::HighEntropyRun,
    ];
    let mut tokens: Vec<_> = all.iter().map(|r| r.token()).collect();
    tokens.sort_unstable();
    tokens.dedup();
    assert_eq!(tokens.len(), all.len());
}

#[test]
fn static_sentences_are_usable_in_views() {
    let s = Sentence::from_static("Restart the IDE to pick up the new settings.");
    assert_eq!(
        s.to_string(),
        "Restart the IDE to pick up the new settings."
    );
}
