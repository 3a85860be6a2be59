//! Resolution: every denial reason, its wire code, and the book operations around it.

use std::time::Duration;

use devint::auth::{
    AuthDenial, ClientName, EnrolmentBook, EnrolmentError, Scope, TokenSecret, ToolScope,
    MAX_TOKEN_LIFETIME,
};
use devint::time::UnixSecs;
use devint::verbs::{Verb, VerbSet};
use devint::wire::pb::DenyCode;

const NOW: UnixSecs = UnixSecs::new(1_800_000_000);
const HOUR: Duration = Duration::from_secs(3600);

/// `secs` seconds after `NOW`.
fn at(secs: u64) -> UnixSecs {
    NOW.saturating_add(Duration::from_secs(secs))
}

fn client(name: &str) -> ClientName {
    ClientName::parse(name).unwrap()
}

fn book_with(scope: Scope) -> (EnrolmentBook, String) {
    let mut book = EnrolmentBook::new();
    let (_, secret) = book.issue(client("ide"), scope, HOUR, NOW).unwrap();
    let hex = secret.expose_secret_hex().to_string();
    (book, hex)
}

#[test]
fn an_enrolled_in_scope_token_resolves_to_a_grant() {
    let (book, token) = book_with(Scope::full_lifecycle(ToolScope::only(["codex"])));
    let grant = book.resolve(&token, Verb::Apply, "codex", NOW).unwrap();
    assert_eq!(grant.verb(), Verb::Apply);
    assert_eq!(grant.tool(), "codex");
    assert_eq!(grant.client_name().as_str(), "ide");
    assert_eq!(
        book.get(grant.token_id()).unwrap().client_name().as_str(),
        "ide"
    );
    assert_eq!(grant.scope().verbs, VerbSet::full_lifecycle());
}

#[test]
fn an_empty_token_is_absent() {
    let (book, _) = book_with(Scope::full_lifecycle(ToolScope::All));
    assert_eq!(
        book.resolve("", Verb::Status, "codex", NOW).unwrap_err(),
        AuthDenial::Absent
    );
}

#[test]
fn wrong_length_uppercase_or_whitespace_tokens_are_malformed() {
    let (book, token) = book_with(Scope::full_lifecycle(ToolScope::All));
    for bad in [
        token[..63].to_string(),
        format!("{token}0"),
        token.to_uppercase(),
        format!("{token}\n"),
        format!(" {}", &token[1..]),
        "g".repeat(64),
    ] {
        assert_eq!(
            book.resolve(&bad, Verb::Status, "codex", NOW).unwrap_err(),
            AuthDenial::Malformed,
            "{bad:?}"
        );
    }
}

#[test]
fn a_well_formed_token_never_issued_is_unknown() {
    let (book, _) = book_with(Scope::full_lifecycle(ToolScope::All));
    let other = TokenSecret::generate().unwrap();
    assert_eq!(
        book.resolve(&other.expose_secret_hex(), Verb::Status, "codex", NOW)
            .unwrap_err(),
        AuthDenial::Unknown
    );
}

#[test]
fn a_revoked_token_is_unknown() {
    let (mut book, token) = book_with(Scope::full_lifecycle(ToolScope::All));
    let id = book.list().next().unwrap().token_id().clone();
    book.revoke(&id).unwrap();
    assert_eq!(
        book.resolve(&token, Verb::Status, "codex", NOW)
            .unwrap_err(),
        AuthDenial::Unknown
    );
    assert_eq!(
        book.revoke(&id).unwrap_err(),
        EnrolmentError::UnknownTokenId(id)
    );
}

#[test]
fn a_token_at_or_past_its_absolute_expiry_is_expired_and_names_its_record() {
    let (book, token) = book_with(Scope::full_lifecycle(ToolScope::All));
    let record = book.list().next().unwrap().clone();
    assert_eq!(record.expires_at(), at(3600));
    assert!(book
        .resolve(&token, Verb::Status, "codex", at(3599))
        .is_ok());
    for at in [at(3600), at(1_000_000)] {
        let denial = book.resolve(&token, Verb::Status, "codex", at).unwrap_err();
        assert_eq!(
            denial,
            AuthDenial::Expired {
                token_id: record.token_id().clone(),
                client: client("ide")
            }
        );
    }
}

#[test]
fn expiry_is_checked_before_scope() {
    let (book, token) = book_with(Scope::read_only(ToolScope::only(["codex"])));
    let denial = book
        .resolve(&token, Verb::Apply, "other", at(7200))
        .unwrap_err();
    assert!(matches!(denial, AuthDenial::Expired { .. }));
}

#[test]
fn read_only_tokens_cannot_apply_repair_or_remove() {
    let (book, token) = book_with(Scope::read_only(ToolScope::All));
    for verb in [Verb::Apply, Verb::Repair, Verb::Remove, Verb::Plan] {
        let denial = book.resolve(&token, verb, "codex", NOW).unwrap_err();
        assert!(matches!(denial, AuthDenial::OutOfScope { .. }), "{verb}");
        assert_eq!(denial.wire_code(), DenyCode::OutOfScope);
    }
    assert!(book.resolve(&token, Verb::Status, "codex", NOW).is_ok());
}

#[test]
fn a_token_for_one_tool_is_out_of_scope_for_another() {
    let (book, token) = book_with(Scope::full_lifecycle(ToolScope::only(["codex"])));
    let denial = book
        .resolve(&token, Verb::Status, "claude-code", NOW)
        .unwrap_err();
    assert!(matches!(denial, AuthDenial::OutOfScope { .. }));
    // list_tools is the one verb exempt from the tool check.
    assert!(book.resolve(&token, Verb::ListTools, "", NOW).is_ok());
}

#[test]
fn issuing_a_scope_that_grants_nothing_is_refused() {
    let mut book = EnrolmentBook::new();
    let empty_tools = Scope::full_lifecycle(ToolScope::Only(Default::default()));
    let empty_verbs = Scope {
        tools: ToolScope::All,
        verbs: VerbSet::EMPTY,
    };
    for scope in [empty_tools, empty_verbs] {
        assert_eq!(
            book.issue(client("ide"), scope, HOUR, NOW).err(),
            Some(EnrolmentError::EmptyScope)
        );
    }
    assert_eq!(
        book.issue(
            client("ide"),
            Scope::read_only(ToolScope::All),
            Duration::ZERO,
            NOW
        )
        .err(),
        Some(EnrolmentError::ZeroLifetime)
    );
}

#[test]
fn a_lifetime_above_one_year_is_refused_and_one_year_is_not() {
    let mut book = EnrolmentBook::new();
    let scope = || Scope::read_only(ToolScope::All);
    assert!(book
        .issue(client("ide"), scope(), MAX_TOKEN_LIFETIME, NOW)
        .is_ok());
    for too_long in [
        MAX_TOKEN_LIFETIME + Duration::from_secs(1),
        Duration::from_secs(u64::MAX),
    ] {
        assert_eq!(
            book.issue(client("ide"), scope(), too_long, NOW).err(),
            Some(EnrolmentError::LifetimeTooLong)
        );
    }
}

#[test]
fn find_names_the_record_of_a_secret_and_nothing_for_a_stranger() {
    let (book, token) = book_with(Scope::read_only(ToolScope::All));
    let secret = TokenSecret::parse(&token).unwrap();
    let record = book.find(&secret).expect("enrolled");
    assert_eq!(record.client_name().as_str(), "ide");
    let stranger = TokenSecret::generate().unwrap();
    assert!(book.find(&stranger).is_none());
}

#[test]
fn the_wire_mapping_collapses_absent_malformed_and_unknown() {
    let (book, token) = book_with(Scope::read_only(ToolScope::All));
    let id = book.list().next().unwrap().token_id().clone();
    let cases = [
        (AuthDenial::Absent, DenyCode::Unauthenticated),
        (AuthDenial::Malformed, DenyCode::Unauthenticated),
        (AuthDenial::Unknown, DenyCode::Unauthenticated),
        (
            AuthDenial::Expired {
                token_id: id.clone(),
                client: client("ide"),
            },
            DenyCode::TokenExpired,
        ),
        (
            AuthDenial::OutOfScope {
                token_id: id.clone(),
                client: client("ide"),
            },
            DenyCode::OutOfScope,
        ),
    ];
    for (denial, code) in cases {
        assert_eq!(denial.wire_code(), code, "{denial:?}");
        // Only a denial that reached a record carries its id (spec §10).
        assert_eq!(
            denial.token_id().is_some(),
            code != DenyCode::Unauthenticated
        );
    }
    // The denial's message never echoes the token.
    let malformed = format!("{token}x");
    let d = book
        .resolve(&malformed, Verb::Status, "codex", NOW)
        .unwrap_err();
    assert!(!d.to_string().contains(&token));
}

#[test]
fn rotate_issues_a_new_token_with_the_same_client_scope_and_lifetime_and_revokes_the_old() {
    let (mut book, old) = book_with(Scope::read_only(ToolScope::only(["codex"])));
    let old_id = book.list().next().unwrap().token_id().clone();
    let (new_id, new_secret) = book.rotate(&old_id, at(100)).unwrap();
    assert_ne!(new_id, old_id);
    assert_eq!(book.len(), 1);
    assert_eq!(
        book.resolve(&old, Verb::Status, "codex", at(100))
            .unwrap_err(),
        AuthDenial::Unknown
    );
    let grant = book
        .resolve(
            &new_secret.expose_secret_hex(),
            Verb::Status,
            "codex",
            at(100),
        )
        .unwrap();
    assert_eq!(grant.token_id(), &new_id);
    let rec = book.get(&new_id).unwrap();
    assert_eq!((rec.issued_at(), rec.expires_at()), (at(100), at(3700)));
    assert_eq!(rec.scope(), &Scope::read_only(ToolScope::only(["codex"])));
}

#[test]
fn rotating_an_unknown_id_changes_nothing() {
    let (mut book, token) = book_with(Scope::read_only(ToolScope::All));
    let before = book.clone();
    let stranger = devint::auth::TokenId::generate().unwrap();
    assert!(matches!(
        book.rotate(&stranger, NOW),
        Err(EnrolmentError::UnknownTokenId(_))
    ));
    assert_eq!(book, before);
    assert!(book.resolve(&token, Verb::Status, "codex", NOW).is_ok());
}

#[test]
fn purge_expired_removes_only_expired_records() {
    let mut book = EnrolmentBook::new();
    book.issue(
        client("short"),
        Scope::read_only(ToolScope::All),
        Duration::from_secs(10),
        NOW,
    )
    .unwrap();
    book.issue(client("long"), Scope::read_only(ToolScope::All), HOUR, NOW)
        .unwrap();
    assert_eq!(book.purge_expired(at(9)), 0);
    assert_eq!(book.purge_expired(at(10)), 1);
    let names: Vec<_> = book
        .list()
        .map(|r| r.client_name().as_str().to_owned())
        .collect();
    assert_eq!(names, ["long"]);
}

#[test]
fn token_ids_are_not_derived_from_the_secret() {
    let mut book = EnrolmentBook::new();
    let secret = TokenSecret::from_bytes([1; 32]);
    let a = book
        .issue_with_secret(
            client("a"),
            Scope::read_only(ToolScope::All),
            HOUR,
            NOW,
            &secret,
        )
        .unwrap();
    let mut other = EnrolmentBook::new();
    let b = other
        .issue_with_secret(
            client("a"),
            Scope::read_only(ToolScope::All),
            HOUR,
            NOW,
            &secret,
        )
        .unwrap();
    assert_ne!(a, b);
    assert!(!a.as_str().contains(&secret.expose_secret_hex()[..16]));
}

#[test]
fn enrolling_the_same_secret_twice_is_refused() {
    let mut book = EnrolmentBook::new();
    let secret = TokenSecret::from_bytes([9; 32]);
    book.issue_with_secret(
        client("a"),
        Scope::read_only(ToolScope::All),
        HOUR,
        NOW,
        &secret,
    )
    .unwrap();
    assert_eq!(
        book.issue_with_secret(
            client("b"),
            Scope::read_only(ToolScope::All),
            HOUR,
            NOW,
            &secret
        ),
        Err(EnrolmentError::Collision)
    );
}
