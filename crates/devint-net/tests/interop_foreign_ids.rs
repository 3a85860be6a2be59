//! Interoperability with other implementations of `assembly.devint.v1`: ids and
//! digests are opaque strings (spec §3), so a backend embedded in our server may mint them
//! in its own form and our client must carry them back byte for byte.
//!
//! A test backend here mints ids the way other implementations do (`plan-1`, `receipt-1`,
//! `removal-1`), writes `sha256:`-prefixed digests and reason phrases, and decides itself
//! that an id it did not mint is unknown (`LIFECYCLE_ERROR`, spec §6). The journey runs
//! through the real devint-net server and client. No assertion is on elapsed time.

#![cfg(feature = "test-support")]
mod server_support;

use std::cell::RefCell;
use std::collections::BTreeSet;

use devint::time::UnixSecs;
use devint::verbs::{
    ActionKind, AdapterCeiling, ApplyMutation, ApplyOutcomeView, CapabilityName, Compatibility,
    Digest, Level, Phase, Privilege, Profile, ReceiptId, Requirement, Sentence, SettingsScope,
    StatusState, StepId, StepOutcome, StepOutcomeView, StepView, UnsupportedMechanismView,
    VerificationOutcome,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use server_support::*;

/// The reason phrase another implementation writes where we would write a token.
const PHRASE: &str = "no host enforcement layer on this platform";

/// A backend in another implementation's style. Counts what it minted; refuses ids it did
/// not mint, as a backend (not the parser) decides.
#[derive(Default)]
struct ForeignBackend {
    plans: Mutex<BTreeSet<String>>,
    removals: Mutex<BTreeSet<String>>,
    minted: AtomicUsize,
    /// Every plan id `apply` was called with, as the backend received it.
    applied: Mutex<Vec<String>>,
}

impl ForeignBackend {
    fn next(&self) -> usize {
        self.minted.fetch_add(1, Ordering::SeqCst) + 1
    }

    fn status_view(&self, auth: &ToolAuthorization) -> StatusView {
        StatusView {
            tool_id: auth.tool().clone(),
            phase: Phase::Installed,
            state: StatusState::Ladder,
            achieved_level: Level::Integrated,
            planned_level: Some(Level::HostEnforced),
            adapter_ceiling: AdapterCeiling::L2Enforce,
            compatibility: Compatibility::Compatible,
            evidence: Vec::new(),
            next_level: None,
            observed_at_unix_secs: auth.now(),
            drift_mismatched: Vec::new(),
            state_reason: Some(Sentence::new(PHRASE).unwrap()),
            state_remediation: None,
            policy: None,
            unrecognized: Vec::new(),
        }
    }

    fn unknown(what: &'static str) -> LifecycleError {
        LifecycleError::refused(
            Sentence::from_static(what),
            Sentence::from_static("use an id this runtime handed out"),
        )
    }
}

fn sha(tag: &str) -> Digest {
    Digest::parse(&format!("sha256:{tag}")).unwrap()
}

impl Lifecycle for ForeignBackend {
    fn knows_tool(&self, tool: &ToolId) -> bool {
        tool.as_str() == "claude-code"
    }
    fn list_tools(&self, _auth: &Authorization) -> Result<ToolList, LifecycleError> {
        Ok(ToolList { tools: Vec::new() })
    }
    fn plan(&self, auth: &ToolAuthorization, args: &PlanArgs) -> Result<PlanView, LifecycleError> {
        let id = format!("plan-{}", self.next());
        self.plans.lock().unwrap().insert(id.clone());
        Ok(PlanView {
            schema_version: 1,
            plan_id: PlanId::parse(&id).unwrap(),
            tool_id: auth.tool().clone(),
            profile: args.profile,
            settings_scope: args.scope,
            policy_profile: None,
            planned_level: Level::Integrated,
            adapter_ceiling: AdapterCeiling::L2Enforce,
            steps: vec![StepView {
                id: StepId::parse("s1").unwrap(),
                summary: Sentence::from_static("Point the tool at the gateway."),
                action_kind: ActionKind::ConfigureModelGatewayBaseUrl,
                requirement: Requirement::Required,
                privilege: Privilege::User,
                consent_prompt: None,
                settings_scope: args.scope,
                managed_keys: Vec::new(),
                artifact_paths: Vec::new(),
                content_sha256: Some(sha("abcd")),
                reversible: true,
            }],
            unsupported: vec![UnsupportedMechanismView {
                capability: CapabilityName::HostEnforcement,
                reason: Sentence::new(PHRASE).unwrap(),
            }],
            warnings: Vec::new(),
        })
    }
    fn apply(&self, auth: &ToolAuthorization, plan: &PlanId) -> Result<ApplyView, LifecycleError> {
        self.applied.lock().unwrap().push(plan.as_str().to_owned());
        if !self.plans.lock().unwrap().contains(plan.as_str()) {
            return Err(ForeignBackend::unknown("no plan has this id"));
        }
        Ok(ApplyView {
            plan_id: plan.clone(),
            receipt_id: ReceiptId::parse(&format!("receipt-{}", self.next())).unwrap(),
            applied_at_unix_secs: auth.now(),
            steps: vec![StepOutcomeView {
                step_id: StepId::parse("s1").unwrap(),
                outcome: StepOutcome::Applied,
                fingerprint: Some(Digest::parse("fingerprint-1").unwrap()),
            }],
            planned_level: Level::Integrated,
            achieved_level: Level::Integrated,
            outcome: Some(ApplyOutcomeView {
                mutation: ApplyMutation::Changed,
                detail: None,
            }),
        })
    }
    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        Ok(self.status_view(auth))
    }
    fn verify(&self, auth: &ToolAuthorization) -> Result<VerificationView, LifecycleError> {
        Ok(VerificationView {
            verified_at_unix_secs: auth.now(),
            outcome: VerificationOutcome::Passed,
            missing: Vec::new(),
            reason: Some(Sentence::new(PHRASE).unwrap()),
            evidence: Vec::new(),
            policy: None,
            unrecognized: Vec::new(),
        })
    }
    fn repair(&self, auth: &ToolAuthorization) -> Result<RepairView, LifecycleError> {
        Ok(RepairView {
            tool_id: auth.tool().clone(),
            repaired: Vec::new(),
            unrepairable: vec![UnsupportedMechanismView {
                capability: CapabilityName::HostEnforcement,
                reason: Sentence::new(PHRASE).unwrap(),
            }],
            status: self.status_view(auth),
            unrecognized: Vec::new(),
        })
    }
    fn remove(
        &self,
        auth: &ToolAuthorization,
        plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError> {
        let plan_id = match plan {
            None => {
                let id = format!("removal-{}", self.next());
                self.removals.lock().unwrap().insert(id.clone());
                PlanId::parse(&id).unwrap()
            }
            Some(p) if self.removals.lock().unwrap().contains(p.as_str()) => p.clone(),
            Some(_) => return Err(ForeignBackend::unknown("no removal preview has this id")),
        };
        Ok(RemovalView {
            schema_version: 1,
            plan_id,
            tool_id: auth.tool().clone(),
            steps: Vec::new(),
            residual: Vec::new(),
            warnings: Vec::new(),
        })
    }
    fn scoped_events(
        &self,
        _auth: &ToolAuthorization,
        _limit: u32,
        _since: UnixSecs,
    ) -> Result<ScopedEventList, LifecycleError> {
        Ok(ScopedEventList { events: Vec::new() })
    }
    fn approval_relay(
        &self,
        auth: &ToolAuthorization,
        approval: &ApprovalId,
        input: UserInput,
    ) -> Result<ApprovalRelayAck, LifecycleError> {
        Ok(ApprovalRelayAck {
            approval_id: approval.clone(),
            relayed_input: input,
            accepted_at_unix_secs: auth.now(),
        })
    }
}

fn claude() -> ToolId {
    tool("claude-code")
}

fn plan_args() -> PlanArgs {
    PlanArgs {
        profile: Profile::Recommended,
        requested_level: Level::Integrated,
        scope: SettingsScope::User,
        allow_privileged_host_steps: false,
        policy_profile_id: None,
    }
}

fn lifecycle_denied(err: &ClientIoError) -> bool {
    matches!(
        err,
        ClientIoError::Session(ClientError::Denied {
            code: pb::DenyCode::LifecycleError,
            ..
        })
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_journey_carries_another_implementations_ids_back_byte_for_byte() {
    let backend = Arc::new(ForeignBackend::default());
    let mut rt = start(backend.clone(), limits());
    let mut client = rt.negotiate().await.authorize(rt.secret());

    let plan = client.plan(claude(), plan_args()).await.unwrap();
    assert_eq!(plan.plan_id.as_str(), "plan-1");
    assert_eq!(
        plan.steps[0].content_sha256.as_ref().unwrap().as_str(),
        "sha256:abcd"
    );
    assert_eq!(plan.unsupported[0].reason.as_str(), PHRASE);

    let applied = client.apply(claude(), plan.plan_id.clone()).await.unwrap();
    assert_eq!(applied.plan_id, plan.plan_id);
    assert_eq!(applied.receipt_id.as_str(), "receipt-2");
    assert_eq!(
        applied.steps[0].fingerprint.as_ref().unwrap().as_str(),
        "fingerprint-1"
    );
    assert_eq!(backend.applied.lock().unwrap().as_slice(), ["plan-1"]);

    let status = client.status(claude()).await.unwrap();
    assert_eq!(status.state_reason.unwrap().as_str(), PHRASE);
    assert!(status.unrecognized.is_empty());

    let verified = client.verify(claude()).await.unwrap();
    assert_eq!(verified.outcome, VerificationOutcome::Passed);

    let repaired = client.repair(claude()).await.unwrap();
    assert_eq!(repaired.unrepairable[0].reason.as_str(), PHRASE);

    let preview = client.remove(claude(), None).await.unwrap();
    assert_eq!(preview.plan_id.as_str(), "removal-3");
    let removed = client
        .remove(claude(), Some(preview.plan_id.clone()))
        .await
        .unwrap();
    assert_eq!(removed.plan_id, preview.plan_id);

    let uuid = "9b2e8c1a-4d7f-4e0b-8f3a-2c6d1e5b7a90";
    let ack = client
        .approval_relay(
            claude(),
            ApprovalId::parse(uuid).unwrap(),
            UserInput::parse("approve").unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(ack.approval_id.as_str(), uuid);

    // An id of the right shape that the backend never minted is the backend's refusal.
    let err = client
        .apply(claude(), PlanId::parse("plan-999").unwrap())
        .await
        .unwrap_err();
    assert!(lifecycle_denied(&err), "{err:?}");
    assert_eq!(backend.applied.lock().unwrap().last().unwrap(), "plan-999");
    let err = client
        .remove(claude(), Some(PlanId::parse("removal-999").unwrap()))
        .await
        .unwrap_err();
    assert!(lifecycle_denied(&err), "{err:?}");
    rt.shutdown().await;
}

/// A `plan_id` the parser must refuse, and why.
fn refused_ids() -> Vec<(&'static str, String)> {
    vec![
        ("over 128 bytes", "p".repeat(129)),
        ("a space", "plan 1".into()),
        ("a tab", "plan\t1".into()),
        ("a control byte", "plan\u{1b}1".into()),
        ("credential-shaped", "ghp_1234567890abcdefghijklmn".into()),
        ("credential-shaped", "sk-ant-api03-abcdefghijklmnop".into()),
        ("token-shaped", "0f".repeat(32)),
        (
            "credential-shaped",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln".into(),
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_out_of_the_opaque_shape_is_refused_before_the_backend_and_never_echoed() {
    let backend = Arc::new(ForeignBackend::default());
    let mut rt = start(backend.clone(), limits());
    let mut raw = rt.raw_negotiated().await;
    for (n, (why, bad)) in refused_ids().into_iter().enumerate() {
        // Our client cannot even build such an id.
        assert!(PlanId::parse(&bad).is_err(), "{why}");
        assert!(ApprovalId::parse(&bad).is_err(), "{why}");
        // Another client can send one; the server refuses it without calling the backend.
        let mut request = VerbCall::Status { tool: claude() }.to_request(n as u64 + 1, &rt.token);
        request.verb = pb::Verb::Apply as i32;
        request.apply = Some(pb::ApplyArgs {
            plan_id: bad.clone(),
        });
        raw.send(&[ClientFrame::Request(request)]).await;
        let Some(ServerFrame::Denied(denied)) = raw.recv().await else {
            panic!("{why}: expected a denial");
        };
        assert_eq!(denied.code, pb::DenyCode::LifecycleError as i32, "{why}");
        assert!(
            denied.remediation.contains("printable ASCII"),
            "{why}: {}",
            denied.remediation
        );
        for shown in [&denied.message, &denied.remediation] {
            assert!(!shown.contains(&bad), "{why}: echoed in {shown}");
        }
    }
    assert!(backend.applied.lock().unwrap().is_empty());
    // Nor does the audit trail carry any of them.
    let audit = format!("{:?}", rt.audit.events());
    for (why, bad) in refused_ids() {
        assert!(!audit.contains(&bad), "{why}: in the audit");
    }
    rt.shutdown().await;
}

/// Any opaque id: 1..=128 bytes of 0x21–0x7E that is not credential-shaped (nor holds a
/// token-long hex run).
fn opaque_id() -> impl Strategy<Value = String> {
    prop_oneof![
        "[!-~]{1,128}",
        "[a-z]{1,12}-[0-9]{1,12}",
        "sha256:[0-9a-f]{8,63}",
        "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
        "[0-9a-f]{32}",
    ]
    .prop_filter("not credential-shaped", |s| {
        PlanId::parse(s).is_ok() && ApprovalId::parse(s).is_ok()
    })
}

#[test]
fn any_valid_opaque_id_round_trips_byte_for_byte_through_server_and_client() {
    let tokio_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let backend = Arc::new(ForeignBackend::default());
    let (mut running, client) = tokio_rt.block_on(async {
        let running = start(backend.clone(), limits());
        let client = running.negotiate().await.authorize(running.secret());
        (running, client)
    });
    let client = RefCell::new(client);
    let mut runner = TestRunner::new(Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&opaque_id(), |id| {
            let mut client = client.borrow_mut();
            // The backend only echoes: whatever arrives is what the client sent.
            backend.plans.lock().unwrap().insert(id.clone());
            let applied = tokio_rt
                .block_on(client.apply(claude(), PlanId::parse(&id).unwrap()))
                .unwrap();
            prop_assert_eq!(applied.plan_id.as_str(), id.as_str());
            let received = backend.applied.lock().unwrap().last().cloned();
            prop_assert_eq!(received.as_deref(), Some(id.as_str()));
            let ack = tokio_rt
                .block_on(client.approval_relay(
                    claude(),
                    ApprovalId::parse(&id).unwrap(),
                    UserInput::parse("approve").unwrap(),
                ))
                .unwrap();
            prop_assert_eq!(ack.approval_id.as_str(), id.as_str());
            Ok(())
        })
        .unwrap();
    drop(client);
    tokio_rt.block_on(running.shutdown());
}
