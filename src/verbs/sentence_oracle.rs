//! The credential-shape checks against their plain definitions: the single-pass versions in
//! `sentence.rs` (memchr, word starts only) must answer exactly what the obvious
//! every-position search answers, on text built to hit each needle, its near misses and
//! its word boundaries. Test-only.

use proptest::prelude::*;
use proptest::strategy::ValueTree;

/// The plain definitions, as first written: every position, every needle.
mod plain {
    pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
        hay.windows(needle.len()).any(|w| w == needle)
    }

    pub fn word_starts<'a>(
        hay: &'a [u8],
        needle: &'a [u8],
        ignore_case: bool,
    ) -> impl Iterator<Item = usize> + 'a {
        (0..hay.len().saturating_sub(needle.len() - 1)).filter(move |&i| {
            let w = &hay[i..i + needle.len()];
            let eq = if ignore_case {
                w.eq_ignore_ascii_case(needle)
            } else {
                w == needle
            };
            eq && (i == 0 || !hay[i - 1].is_ascii_alphanumeric())
        })
    }

    pub fn has_key_prefix(b: &[u8]) -> bool {
        super::super::KEY_PREFIXES
            .iter()
            .any(|&(prefix, min, class)| {
                word_starts(b, prefix, false)
                    .any(|i| super::super::run_len(b, i + prefix.len(), class) >= min)
            })
    }

    pub fn has_authorization(b: &[u8]) -> bool {
        if word_starts(b, b"authorization:", true).next().is_some() {
            return true;
        }
        word_starts(b, b"bearer ", true).any(|i| {
            let start = i + 7;
            let n = super::super::run_len(b, start, super::super::is_bearer_char);
            let run = &b[start..start + n];
            n >= 8
                && (run.iter().any(u8::is_ascii_digit)
                    || (run.iter().any(u8::is_ascii_uppercase)
                        && run.iter().any(u8::is_ascii_lowercase))
                    || run.iter().any(|c| !c.is_ascii_alphanumeric()))
        })
    }

    pub fn has_jwt(b: &[u8]) -> bool {
        word_starts(b, b"eyJ", false)
            .any(|i| super::super::run_len(b, i + 3, super::super::is_key_char) >= 10)
    }

    pub fn has_url_userinfo(b: &[u8]) -> bool {
        let mut i = 0;
        while i + 3 <= b.len() {
            if &b[i..i + 3] == b"://" {
                let rest = &b[i + 3..];
                let end = rest
                    .iter()
                    .position(|&c| matches!(c, b'/' | b' ' | b'?' | b'#'))
                    .unwrap_or(rest.len());
                let authority = &rest[..end];
                if let Some(at) = authority.iter().position(|&c| c == b'@') {
                    if authority[..at].contains(&b':') {
                        return true;
                    }
                }
                i += 3;
            } else {
                i += 1;
            }
        }
        false
    }

    pub fn has_credential_assignment(b: &[u8]) -> bool {
        super::super::SECRET_NAMES.iter().any(|name| {
            (0..b.len().saturating_sub(name.len() - 1))
                .filter(|&i| b[i..i + name.len()].eq_ignore_ascii_case(name))
                .any(|i| {
                    let mut j = i + name.len();
                    if !matches!(b.get(j), Some(b'=') | Some(b':')) {
                        return false;
                    }
                    j += 1;
                    if matches!(b.get(j), Some(b'"') | Some(b'\'')) {
                        j += 1;
                    }
                    matches!(b.get(j), Some(&c) if !c.is_ascii_whitespace() && c != b'<' && c != b'*' && c != b'"' && c != b'\'')
                })
        })
    }
}

/// Text made of pieces that hit the needles, their near misses and word boundaries.
fn shaped_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("sk-".to_owned()),
        Just("xsk-".to_owned()),
        Just("AKIA".to_owned()),
        Just("ghp_".to_owned()),
        Just("github_pat_".to_owned()),
        Just("hf_".to_owned()),
        Just("eyJ".to_owned()),
        Just("EyJ".to_owned()),
        Just("bearer ".to_owned()),
        Just("Bearer ".to_owned()),
        Just("authorization:".to_owned()),
        Just("AUTHORIZATION:".to_owned()),
        Just("://".to_owned()),
        Just("@".to_owned()),
        Just(":".to_owned()),
        Just("=".to_owned()),
        Just("\"".to_owned()),
        Just("'".to_owned()),
        Just("<".to_owned()),
        Just("*".to_owned()),
        Just("TOKEN".to_owned()),
        Just("Password".to_owned()),
        Just("api-key".to_owned()),
        Just("-----BEGIN".to_owned()),
        Just("PRIVATE KEY-----".to_owned()),
        Just(" ".to_owned()),
        Just("/".to_owned()),
        "[A-Za-z0-9_-]{1,24}",
        "[ -~]{1,6}",
    ];
    proptest::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn each_single_pass_check_answers_as_its_plain_definition(text in shaped_text()) {
        let b = text.as_bytes();
        let pem = [&b"-----BEGIN"[..], b"-----END", b"PRIVATE KEY-----"]
            .iter()
            .any(|needle| plain::contains(b, needle));
        prop_assert_eq!(super::has_pem_marker(b), pem);
        prop_assert_eq!(
            super::WordShapes::of(b),
            super::WordShapes {
                key_prefix: plain::has_key_prefix(b),
                authorization: plain::has_authorization(b),
                jwt: plain::has_jwt(b),
            }
        );
        prop_assert_eq!(super::has_url_userinfo(b), plain::has_url_userinfo(b));
        prop_assert_eq!(super::has_credential_assignment(b), plain::has_credential_assignment(b));
    }
}

/// The generator does reach both answers of each check (a comparison of only `false`s
/// would prove nothing).
#[test]
fn the_shaped_text_reaches_both_answers_of_every_check() {
    let hits = [
        "key sk-abcdefgh12",
        "AKIAABCDEFGHIJKL",
        "GITHUB_TOKEN=abc",
        "https://u:p@host/",
    ];
    assert!(plain::has_key_prefix(hits[0].as_bytes()));
    assert!(super::WordShapes::of(hits[0].as_bytes()).key_prefix);
    assert!(super::WordShapes::of(hits[1].as_bytes()).key_prefix);
    assert!(super::has_credential_assignment(hits[2].as_bytes()));
    assert!(super::has_url_userinfo(hits[3].as_bytes()));
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut prefix, mut assignment, mut authorization) = ((0, 0), (0, 0), (0, 0));
    for _ in 0..2048 {
        let text = shaped_text().new_tree(&mut runner).unwrap().current();
        let b = text.as_bytes();
        if plain::has_key_prefix(b) {
            prefix.0 += 1
        } else {
            prefix.1 += 1
        }
        if plain::has_credential_assignment(b) {
            assignment.0 += 1
        } else {
            assignment.1 += 1
        }
        if plain::has_authorization(b) {
            authorization.0 += 1
        } else {
            authorization.1 += 1
        }
    }
    assert!(
        authorization.0 > 0 && authorization.1 > 0,
        "authorization: {authorization:?}"
    );
    assert!(prefix.0 > 0 && prefix.1 > 0, "key prefixes: {prefix:?}");
    assert!(
        assignment.0 > 0 && assignment.1 > 0,
        "assignments: {assignment:?}"
    );
}
