//! For the same runtime and the same requests, the sidecar answers exactly as devint's Rust
//! client does: a property test over generated request sequences (every verb, good and bad
//! ids, unknown tools, vocabularies) against two identical deterministic runtimes, one
//! driven by `DevIntClient` with the shared standing decision, one through the sidecar.
//! Successes compare as the views' JSON (serialised here independently of the sidecar's
//! code); failures compare as (CLI exit code, DI-API deny code).

mod support;

use devint::exit::deny_token;
use devint::verbs::{
    ApprovalId, Level, PlanArgs, PlanId, Profile, SettingsScope, ToolId, UserInput, VerbCall,
};
use devint_net::client::{decide_for_verb, ClientOptions, Decision, DevIntClient};
use proptest::prelude::*;
use serde_json::{json, Value};
use support::{Host, TestRuntime};

const TOOLS: [&str; 3] = ["claude-code", "codex", "not-a-tool"];

/// One request, as a host would think of it.
#[derive(Debug, Clone)]
enum Op {
    ListTools,
    Plan {
        tool: usize,
        scope: usize,
        profile: usize,
        level: Option<usize>,
    },
    /// Apply the last plan this side saw (or a plan nobody issued).
    Apply {
        tool: usize,
        last: bool,
    },
    Status(usize),
    Verify(usize),
    Repair(usize),
    /// Preview a removal, or execute the last preview this side saw.
    Remove {
        tool: usize,
        last: bool,
    },
    Events {
        tool: usize,
        limit: u32,
        since: u64,
    },
    Approve {
        tool: usize,
        pending: bool,
        input: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let tool = 0..TOOLS.len();
    prop_oneof![
        Just(Op::ListTools),
        (
            tool.clone(),
            0..3usize,
            0..3usize,
            proptest::option::of(0..6usize)
        )
            .prop_map(|(tool, scope, profile, level)| Op::Plan {
                tool,
                scope,
                profile,
                level
            }),
        (tool.clone(), any::<bool>()).prop_map(|(tool, last)| Op::Apply { tool, last }),
        tool.clone().prop_map(Op::Status),
        tool.clone().prop_map(Op::Verify),
        tool.clone().prop_map(Op::Repair),
        (tool.clone(), any::<bool>()).prop_map(|(tool, last)| Op::Remove { tool, last }),
        (tool.clone(), 0..3u32, 0..200u64).prop_map(|(tool, limit, since)| Op::Events {
            tool,
            limit,
            since
        }),
        (tool, any::<bool>(), 0..3usize).prop_map(|(tool, pending, input)| Op::Approve {
            tool,
            pending,
            input
        }),
    ]
}

/// The ids one side has seen, to feed back as a host would.
#[derive(Default)]
struct Seen {
    plan: Option<String>,
    removal: Option<String>,
}

const NOBODYS_PLAN: &str = "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";

fn approval(pending: bool) -> &'static str {
    if pending {
        "1234567890abcdef1234567890abcdef"
    } else {
        "0000000000000000000000000000abcd"
    }
}

/// The sidecar request for `op`: method and params.
fn sidecar_request(op: &Op, session: &str, seen: &Seen) -> (&'static str, Value) {
    let mut params = match op {
        Op::ListTools => return ("tools/list", json!({"session_id": session})),
        Op::Plan {
            tool,
            scope,
            profile,
            level,
        } => {
            let mut p = json!({
                "tool_id": TOOLS[*tool],
                "settings_scope": SettingsScope::TOKENS[*scope],
                "profile": Profile::TOKENS[*profile],
            });
            if let Some(l) = level {
                p["requested_level"] = json!(Level::TOKENS[*l]);
            }
            ("lifecycle/plan", p)
        }
        Op::Apply { tool, last } => (
            "lifecycle/apply",
            json!({"tool_id": TOOLS[*tool], "plan_id": plan_id(seen.plan.as_deref(), *last)}),
        ),
        Op::Status(t) => ("lifecycle/status", json!({"tool_id": TOOLS[*t]})),
        Op::Verify(t) => ("lifecycle/verify", json!({"tool_id": TOOLS[*t]})),
        Op::Repair(t) => ("lifecycle/repair", json!({"tool_id": TOOLS[*t]})),
        Op::Remove { tool, last } => {
            let mut p = json!({"tool_id": TOOLS[*tool]});
            if *last {
                p["plan_id"] = json!(plan_id(seen.removal.as_deref(), true));
            }
            ("lifecycle/remove", p)
        }
        Op::Events { tool, limit, since } => (
            "events/follow",
            json!({"tool_id": TOOLS[*tool], "limit": limit, "since_unix_secs": since, "follow": false}),
        ),
        Op::Approve {
            tool,
            pending,
            input,
        } => (
            "approval/relay",
            json!({"tool_id": TOOLS[*tool], "approval_id": approval(*pending), "user_input": UserInput::TOKENS[*input]}),
        ),
    };
    params.1["session_id"] = json!(session);
    params
}

fn plan_id(seen: Option<&str>, last: bool) -> String {
    match seen {
        Some(id) if last => id.to_owned(),
        _ => NOBODYS_PLAN.to_owned(),
    }
}

/// The same request as a typed call of the Rust client.
fn rust_call(op: &Op, seen: &Seen) -> VerbCall {
    let tool = |t: usize| ToolId::parse(TOOLS[t]).unwrap();
    match op {
        Op::ListTools => VerbCall::ListTools,
        Op::Plan {
            tool: t,
            scope,
            profile,
            level,
        } => VerbCall::Plan {
            tool: tool(*t),
            args: PlanArgs {
                profile: Profile::ALL[*profile],
                requested_level: level.map_or(Level::GatewayProtected, |l| Level::ALL[l]),
                scope: SettingsScope::ALL[*scope],
                allow_privileged_host_steps: false,
                policy_profile_id: None,
            },
        },
        Op::Apply { tool: t, last } => VerbCall::Apply {
            tool: tool(*t),
            plan_id: PlanId::parse(&plan_id(seen.plan.as_deref(), *last)).unwrap(),
        },
        Op::Status(t) => VerbCall::Status { tool: tool(*t) },
        Op::Verify(t) => VerbCall::Verify { tool: tool(*t) },
        Op::Repair(t) => VerbCall::Repair { tool: tool(*t) },
        Op::Remove { tool: t, last } => VerbCall::Remove {
            tool: tool(*t),
            plan_id: last.then(|| PlanId::parse(&plan_id(seen.removal.as_deref(), true)).unwrap()),
        },
        Op::Events {
            tool: t,
            limit,
            since,
        } => VerbCall::ScopedEvents {
            tool: tool(*t),
            limit: *limit,
            since: devint::time::UnixSecs::new(*since),
        },
        Op::Approve {
            tool: t,
            pending,
            input,
        } => VerbCall::ApprovalRelay {
            tool: tool(*t),
            approval_id: ApprovalId::parse(approval(*pending)).unwrap(),
            input: UserInput::ALL[*input],
        },
    }
}

/// Remember the ids an answer handed out.
fn remember(op: &Op, answer: &Value, seen: &mut Seen) {
    let Some(id) = answer["ok"]["plan_id"].as_str() else {
        return;
    };
    match op {
        Op::Plan { .. } => seen.plan = Some(id.to_owned()),
        Op::Remove { last: false, .. } => seen.removal = Some(id.to_owned()),
        _ => {}
    }
}

fn failure(exit: u64, deny: Value) -> Value {
    json!({"err": {"exit": exit, "deny_code": deny}})
}

async fn rust_answers(rt: &TestRuntime, ops: &[Op]) -> Vec<Value> {
    let negotiated =
        DevIntClient::connect_with(&rt.socket, "equivalence", "1", ClientOptions::default())
            .await
            .expect("connect");
    let scan = (rt.socket.clone(), negotiated.provenance().cloned());
    let standing = tokio::task::spawn_blocking(move || {
        devint_net::client::assess_standing(&scan.0, scan.1.as_ref())
    })
    .await
    .unwrap();
    let token = devint_net::token_file::read_token_file(&rt.token_file).unwrap();
    let mut client = negotiated.authorize(token);
    let mut seen = Seen::default();
    let mut answers = Vec::new();
    for op in ops {
        let call = rust_call(op, &seen);
        let answer = match decide_for_verb(&standing, call.verb(), true) {
            Decision::Refuse(r) => failure(u64::from(r.exit().code()), Value::Null),
            _ => match client.call(call).await {
                Ok(result) => json!({"ok": serde_json::to_value(&result).unwrap()["view"]}),
                Err(e) => failure(
                    u64::from(e.exit().code()),
                    e.deny_code().map_or(Value::Null, |c| json!(deny_token(c))),
                ),
            },
        };
        remember(op, &answer, &mut seen);
        answers.push(answer);
    }
    answers
}

async fn sidecar_answers(rt: &TestRuntime, ops: &[Op]) -> Vec<Value> {
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let opened = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1", "allow_unverified_runtime": true}),
        )
        .await
        .expect("open");
    let session = opened["session_id"].as_str().unwrap().to_owned();
    let mut seen = Seen::default();
    let mut answers = Vec::new();
    for op in ops {
        let (method, params) = sidecar_request(op, &session, &seen);
        let answer = match host.call(method, params).await {
            Ok(mut result) => {
                if method == "events/follow" {
                    assert_eq!(result["subscription"], Value::Null);
                    result.as_object_mut().unwrap().remove("subscription");
                }
                json!({ "ok": result })
            }
            Err(e) => failure(
                e["data"]["exit"].as_u64().unwrap(),
                e["data"]["deny_code"].clone(),
            ),
        };
        remember(op, &answer, &mut seen);
        answers.push(answer);
    }
    let (_, served) = host.end_input().await;
    served.expect("exit 0");
    answers
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn the_sidecar_answers_every_request_sequence_as_the_rust_client(ops in proptest::collection::vec(op(), 1..14)) {
        let (rust, sidecar) = runtime().block_on(async {
            let (mut a, events_a) = TestRuntime::scripted().await;
            let (mut b, events_b) = TestRuntime::scripted().await;
            for events in [&events_a, &events_b] {
                events.push("claude-code", 100, 1);
                events.push("claude-code", 150, 2);
                events.push("codex", 120, 3);
            }
            let rust = rust_answers(&a, &ops).await;
            let sidecar = sidecar_answers(&b, &ops).await;
            a.stop().await;
            b.stop().await;
            (rust, sidecar)
        });
        for (i, (r, s)) in rust.iter().zip(&sidecar).enumerate() {
            prop_assert_eq!(r, s, "request {} ({:?}) answered differently", i, ops[i]);
        }
        prop_assert_eq!(rust.len(), sidecar.len());
    }
}

#[test]
fn both_sides_of_the_comparison_see_successes_and_failures() {
    // A fixed sequence with a success and a denial of each kind the generator produces, so
    // the property above cannot pass by comparing only one kind of answer.
    let ops = vec![
        Op::ListTools,
        Op::Plan {
            tool: 0,
            scope: 0,
            profile: 0,
            level: None,
        },
        Op::Apply {
            tool: 0,
            last: true,
        },
        Op::Apply {
            tool: 0,
            last: false,
        },
        Op::Status(2),
        Op::Approve {
            tool: 1,
            pending: false,
            input: 0,
        },
        Op::Events {
            tool: 0,
            limit: 0,
            since: 0,
        },
    ];
    let (rust, sidecar) = runtime().block_on(async {
        let (mut a, ea) = TestRuntime::scripted().await;
        let (mut b, eb) = TestRuntime::scripted().await;
        ea.push("claude-code", 100, 1);
        eb.push("claude-code", 100, 1);
        let r = rust_answers(&a, &ops).await;
        let s = sidecar_answers(&b, &ops).await;
        a.stop().await;
        b.stop().await;
        (r, s)
    });
    assert_eq!(rust, sidecar);
    assert!(
        rust[2].get("ok").is_some(),
        "apply of the seen plan succeeds: {}",
        rust[2]
    );
    assert_eq!(rust[3], failure(1, json!("lifecycle_error")));
    assert_eq!(rust[4], failure(3, json!("unknown_tool")));
    assert_eq!(rust[5], failure(1, json!("lifecycle_error")));
    assert_eq!(rust[6]["ok"]["events"][0]["count"], 1);
}
