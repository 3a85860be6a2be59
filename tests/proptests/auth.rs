//! Property tests for `auth`: token parsing, scope rules and resolution.

use std::collections::BTreeSet;
use std::time::Duration;

use devint::auth::{AuthDenial, ClientName, EnrolmentBook, Scope, TokenSecret, ToolScope};
use devint::time::UnixSecs;
use devint::verbs::{Verb, VerbSet};
use devint::wire::pb::DenyCode;
use proptest::prelude::*;

const TOOLS: [&str; 4] = ["claude-code", "codex", "github-copilot", "windsurf-cascade"];

fn verb() -> impl Strategy<Value = Verb> {
    (0..Verb::ALL.len()).prop_map(|i| Verb::ALL[i])
}

fn verb_set() -> impl Strategy<Value = VerbSet> {
    any::<u16>().prop_map(|bits| {
        Verb::ALL
            .into_iter()
            .enumerate()
            .filter(|(i, _)| bits & (1 << i) != 0)
            .map(|(_, v)| v)
            .collect()
    })
}

fn tool_scope() -> impl Strategy<Value = ToolScope> {
    prop_oneof![
        Just(ToolScope::All),
        proptest::sample::subsequence(TOOLS.to_vec(), 0..=TOOLS.len()).prop_map(|t| {
            ToolScope::Only(t.into_iter().map(String::from).collect::<BTreeSet<_>>())
        }),
    ]
}

fn tool() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(TOOLS.to_vec()).prop_map(String::from),
        "[a-z-]{0,12}",
    ]
}

proptest! {
    #[test]
    fn only_64_lowercase_hex_characters_parse(s in "\\PC{0,80}") {
        let valid = s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        prop_assert_eq!(TokenSecret::parse(&s).is_ok(), valid);
    }

    #[test]
    fn any_32_bytes_round_trip_through_hex(bytes in any::<[u8; 32]>()) {
        let s = TokenSecret::from_bytes(bytes);
        let hex = s.expose_secret_hex();
        prop_assert!(hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        prop_assert!(TokenSecret::parse(&hex).unwrap().digest() == s.digest());
        let upper = hex.to_uppercase();
        if upper != *hex {
            prop_assert!(TokenSecret::parse(&upper).is_err());
        }
    }

    #[test]
    fn scope_covers_exactly_verb_and_tool_membership(
        tools in tool_scope(), verbs in verb_set(), v in verb(), t in tool()
    ) {
        let scope = Scope { tools: tools.clone(), verbs };
        let tools_nonempty = !matches!(&tools, ToolScope::Only(s) if s.is_empty());
        let tool_ok = !v.rule().tool_scoped || match &tools {
            ToolScope::All => true,
            ToolScope::Only(s) => s.contains(&t),
        };
        prop_assert_eq!(scope.covers(v, &t), tools_nonempty && verbs.contains(v) && tool_ok);
    }

    #[test]
    fn resolution_follows_the_spec_order(
        tools in tool_scope(), verbs in verb_set(), v in verb(), t in tool(),
        ttl in 1u64..10_000, offset in 0u64..20_000, wrong in any::<bool>()
    ) {
        let scope = Scope { tools, verbs };
        prop_assume!(!scope.is_empty());
        let mut book = EnrolmentBook::new();
        let now = UnixSecs::new(1_700_000_000);
        let (id, secret) = book
            .issue(ClientName::parse("p").unwrap(), scope.clone(), Duration::from_secs(ttl), now)
            .unwrap();
        let token = if wrong {
            TokenSecret::generate().unwrap().expose_secret_hex()
        } else {
            secret.expose_secret_hex()
        };
        let at = now.saturating_add(Duration::from_secs(offset));
        let got = book.resolve(&token, v, &t, at);
        if wrong {
            prop_assert_eq!(got.unwrap_err(), AuthDenial::Unknown);
        } else if offset >= ttl {
            let d = got.unwrap_err();
            prop_assert_eq!(d.wire_code(), DenyCode::TokenExpired);
            prop_assert_eq!(d.token_id(), Some(&id));
        } else if !scope.covers(v, &t) {
            prop_assert_eq!(got.unwrap_err().wire_code(), DenyCode::OutOfScope);
        } else {
            let g = got.unwrap();
            prop_assert_eq!(g.token_id(), &id);
            prop_assert_eq!(g.verb(), v);
            prop_assert_eq!(g.tool(), t.as_str());
        }
    }

    #[test]
    fn revoking_one_token_leaves_the_others_resolving(n in 2usize..8, victim in 0usize..8) {
        let victim = victim % n;
        let mut book = EnrolmentBook::new();
        let issued: Vec<_> = (0..n)
            .map(|i| {
                let (id, s) = book
                    .issue(ClientName::parse(&format!("c{i}")).unwrap(), Scope::read_only(ToolScope::All), Duration::from_secs(60), UnixSecs::EPOCH)
                    .unwrap();
                (id, s.expose_secret_hex().to_string())
            })
            .collect();
        book.revoke(&issued[victim].0).unwrap();
        for (i, (_, tok)) in issued.iter().enumerate() {
            let r = book.resolve(tok, Verb::Status, "codex", UnixSecs::new(1));
            prop_assert_eq!(r.is_ok(), i != victim);
        }
    }
}
