//! The three-state comparison and the client standing (spec §8), row by row.

use devint::provenance::{
    compare, BuildIdSource, BuildIdentity, FieldReport, FieldState, Permit, RefutedBecause,
    Standing, StandingRefusal, UnverifiableBecause, Verdict,
};
use devint::wire::pb;

const SHA_A: &str = "0123456789abcdef0123456789abcdef01234567";
const SHA_B: &str = "fedcba9876543210fedcba9876543210fedcba98";

fn ours() -> BuildIdentity {
    BuildIdentity {
        core_version: "0.1.0".into(),
        sha: SHA_A.into(),
        source: BuildIdSource::Checkout,
    }
}

fn peer(core_version: &str, sha: &str, source: &str) -> pb::RuntimeProvenance {
    pb::RuntimeProvenance {
        core_version: core_version.into(),
        build_sha: sha.into(),
        pid: 4242,
        executable_path: "/opt/devint/bin/devint".into(),
        executable_present: true,
        source_path: "/src/devint".into(),
        started_at_unix_secs: 1_700_000_000,
        build_id_source: source.into(),
    }
}

#[test]
fn different_core_versions_are_a_mismatch_even_with_equal_shas() {
    let c = compare(&peer("0.2.0", SHA_A, "checkout"), &ours());
    assert_eq!(c.verdict, Verdict::Mismatch);
    assert_eq!(c.fields.core_version, FieldState::Mismatched);
    assert_eq!(c.fields.build_sha, FieldState::Matched);
}

#[test]
fn different_core_versions_are_a_mismatch_before_authority_is_considered() {
    // Rule 1 comes before rule 2: a non-authoritative peer of another version is refuted.
    let c = compare(&peer("0.2.0", "unknown", "absent"), &ours());
    assert_eq!(c.verdict, Verdict::Mismatch);
}

#[test]
fn an_empty_core_version_neither_falsifies_nor_verifies() {
    let c = compare(&peer("", SHA_A, "checkout"), &ours());
    assert_eq!(c.verdict, Verdict::Match);
    assert_eq!(c.fields.core_version, FieldState::Absent);
}

#[test]
fn peer_with_absent_source_is_unverifiable_even_with_our_sha() {
    let c = compare(&peer("0.1.0", SHA_A, "absent"), &ours());
    assert_eq!(c.verdict, Verdict::Unverifiable);
    assert_eq!(c.fields.build_id_source, FieldState::Absent);
}

#[test]
fn empty_source_reads_as_absent() {
    let c = compare(&peer("0.1.0", SHA_A, ""), &ours());
    assert_eq!(c.verdict, Verdict::Unverifiable);
}

#[test]
fn a_source_outside_the_vocabulary_is_not_authoritative() {
    let c = compare(&peer("0.1.0", SHA_A, "git"), &ours());
    assert_eq!(c.verdict, Verdict::Unverifiable);
}

#[test]
fn peer_sha_unknown_or_empty_is_unverifiable() {
    for sha in ["unknown", ""] {
        let c = compare(&peer("0.1.0", sha, "checkout"), &ours());
        assert_eq!(c.verdict, Verdict::Unverifiable, "sha {sha:?}");
        assert_eq!(c.fields.build_sha, FieldState::Absent);
    }
}

#[test]
fn our_own_unknown_identity_makes_every_peer_unverifiable() {
    let unknown = BuildIdentity {
        core_version: "0.1.0".into(),
        sha: "unknown".into(),
        source: BuildIdSource::Absent,
    };
    assert_eq!(
        compare(&peer("0.1.0", SHA_A, "checkout"), &unknown).verdict,
        Verdict::Unverifiable
    );
}

#[test]
fn two_unknown_identities_are_never_a_match() {
    let unknown = BuildIdentity {
        core_version: "0.1.0".into(),
        sha: "unknown".into(),
        source: BuildIdSource::Absent,
    };
    let c = compare(&peer("0.1.0", "unknown", "absent"), &unknown);
    assert_eq!(c.verdict, Verdict::Unverifiable);
}

#[test]
fn authoritative_different_shas_are_a_mismatch() {
    let c = compare(&peer("0.1.0", SHA_B, "checkout"), &ours());
    assert_eq!(c.verdict, Verdict::Mismatch);
    assert_eq!(
        c.fields,
        FieldReport {
            core_version: FieldState::Matched,
            build_sha: FieldState::Mismatched,
            build_id_source: FieldState::Matched,
        }
    );
}

#[test]
fn authoritative_equal_shas_are_a_match_whatever_the_mechanism() {
    let c = compare(&peer("0.1.0", SHA_A, "injected"), &ours());
    assert_eq!(c.verdict, Verdict::Match);
    assert_eq!(c.fields.build_id_source, FieldState::Mismatched);
    let c = compare(&peer("0.1.0", &SHA_A.to_uppercase(), "packaged"), &ours());
    assert_eq!(c.verdict, Verdict::Match);
}

#[test]
fn pid_and_paths_never_upgrade_a_verdict() {
    // Everything a process can say about itself matches, but the build is not identified.
    let mut p = peer("0.1.0", "unknown", "absent");
    p.pid = std::process::id();
    p.executable_path = std::env::current_exe().unwrap().to_string_lossy().into();
    p.source_path = env!("CARGO_MANIFEST_DIR").into();
    let unknown = BuildIdentity {
        core_version: "0.1.0".into(),
        sha: "unknown".into(),
        source: BuildIdSource::Absent,
    };
    assert_eq!(compare(&p, &unknown).verdict, Verdict::Unverifiable);
}

#[test]
fn field_report_names_each_field() {
    let c = compare(&peer("0.1.0", "unknown", "absent"), &ours());
    assert_eq!(
        c.fields.to_string(),
        "core_version matched, build_sha absent, build_id_source absent"
    );
}

// ---- standing (spec §8) ----

#[test]
fn no_provenance_is_unverifiable() {
    assert_eq!(
        Standing::assess(None, &ours(), &sockets(1)),
        Standing::Unverifiable(UnverifiableBecause::NoProvenance)
    );
}

#[test]
fn executable_not_present_is_refuted_even_on_a_match() {
    let mut p = peer("0.1.0", SHA_A, "checkout");
    p.executable_present = false;
    assert_eq!(
        Standing::assess(Some(&p), &ours(), &sockets(1)),
        Standing::Refuted(RefutedBecause::ExecutableGone)
    );
}

#[test]
fn mismatch_is_refuted() {
    let s = Standing::assess(
        Some(&peer("0.1.0", SHA_B, "checkout")),
        &ours(),
        &sockets(1),
    );
    assert!(
        matches!(s, Standing::Refuted(RefutedBecause::DifferentBuild(_))),
        "{s:?}"
    );
}

#[test]
fn unverifiable_comparison_is_unverifiable() {
    let s = Standing::assess(Some(&peer("0.1.0", SHA_A, "absent")), &ours(), &sockets(1));
    assert!(
        matches!(
            s,
            Standing::Unverifiable(UnverifiableBecause::NotAuthoritative(_))
        ),
        "{s:?}"
    );
    assert_eq!(s.token(), "unverifiable");
}

#[test]
fn match_with_one_runtime_is_verified() {
    let s = Standing::assess(
        Some(&peer("0.1.0", SHA_A, "checkout")),
        &ours(),
        &sockets(1),
    );
    assert_eq!(s, Standing::Verified);
    assert_eq!(s.token(), "verified");
}

/// `n` socket paths as the multiplicity scan reports them.
fn sockets(n: usize) -> Vec<std::path::PathBuf> {
    (0..n)
        .map(|i| format!("/run/user/1000/devint-{i}.sock").into())
        .collect()
}

#[test]
fn more_than_one_reachable_runtime_is_refuted_even_on_a_match() {
    let p = peer("0.1.0", SHA_A, "checkout");
    assert_eq!(
        Standing::assess(Some(&p), &ours(), &sockets(2)),
        Standing::Refuted(RefutedBecause::MultipleRuntimes {
            reachable: sockets(2)
        })
    );
    // A positive finding wins over an absence of provenance too.
    assert!(matches!(
        Standing::assess(None, &ours(), &sockets(3)),
        Standing::Refuted(RefutedBecause::MultipleRuntimes { reachable }) if reachable.len() == 3
    ));
}

#[test]
fn the_multiplicity_refusal_names_the_other_sockets() {
    let s = Standing::assess(None, &ours(), &sockets(2));
    let Standing::Refuted(why) = s else {
        panic!("{s:?}")
    };
    assert_eq!(
        why.to_string(),
        "2 runtimes are reachable in the socket's directory: \
         \"/run/user/1000/devint-0.sock\", \"/run/user/1000/devint-1.sock\""
    );
    // Many sockets: the first few named, the rest counted; control bytes escaped.
    let mut many = sockets(6);
    many[0] = "/run/x/devint-\u{1b}[2J.sock".into();
    let text = RefutedBecause::MultipleRuntimes { reachable: many }.to_string();
    assert!(text.starts_with("6 runtimes are reachable"), "{text}");
    assert!(text.contains("devint-3.sock"), "{text}");
    assert!(!text.contains("devint-4.sock"), "{text}");
    assert!(text.ends_with("and 2 more"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text}");
}

#[test]
fn zero_counted_runtimes_do_not_refute() {
    let p = peer("0.1.0", SHA_A, "checkout");
    assert_eq!(
        Standing::assess(Some(&p), &ours(), &sockets(0)),
        Standing::Verified
    );
}

// ---- what a standing permits (spec §8 table, exit codes §9) ----

#[test]
fn verified_permits_everything() {
    assert_eq!(Standing::Verified.permits(false), Ok(Permit::Proceed));
    assert_eq!(Standing::Verified.permits(true), Ok(Permit::Proceed));
}

#[test]
fn unverifiable_permits_read_only_with_a_report_and_refuses_privileged_with_11() {
    let s = Standing::Unverifiable(UnverifiableBecause::NoProvenance);
    assert_eq!(s.permits(false), Ok(Permit::ProceedReportingUnverifiable));
    let refusal = s.permits(true).unwrap_err();
    assert!(matches!(refusal, StandingRefusal::Unverifiable(_)));
    assert_eq!(refusal.exit_code(), 11);
}

#[test]
fn refuted_refuses_everything_with_10() {
    let s = Standing::Refuted(RefutedBecause::ExecutableGone);
    for privileged in [false, true] {
        let refusal = s.permits(privileged).unwrap_err();
        assert!(matches!(
            refusal,
            StandingRefusal::Refuted(RefutedBecause::ExecutableGone)
        ));
        assert_eq!(refusal.exit_code(), 10);
        assert!(
            refusal.to_string().contains("deleted or replaced"),
            "{refusal}"
        );
    }
}

#[test]
fn refusal_for_a_different_build_names_the_fields() {
    let s = Standing::assess(
        Some(&peer("0.1.0", SHA_B, "checkout")),
        &ours(),
        &sockets(1),
    );
    let msg = s.permits(false).unwrap_err().to_string();
    assert!(msg.contains("build_sha mismatched"), "{msg}");
}

#[test]
fn privileged_verbs_are_exactly_apply_verify_repair_remove() {
    use devint::verbs::Verb;
    let privileged: Vec<Verb> = Verb::ALL
        .into_iter()
        .filter(|v| v.is_privileged())
        .collect();
    assert_eq!(
        privileged,
        vec![Verb::Apply, Verb::Verify, Verb::Repair, Verb::Remove]
    );
    let s = Standing::Unverifiable(UnverifiableBecause::NoProvenance);
    assert_eq!(
        s.permits_verb(Verb::Status),
        Ok(Permit::ProceedReportingUnverifiable)
    );
    assert_eq!(s.permits_verb(Verb::Verify).unwrap_err().exit_code(), 11);
}
