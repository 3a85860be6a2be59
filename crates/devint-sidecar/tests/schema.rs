//! The JSON Schema `devint sidecar --schema` prints describes the traffic the sidecar really
//! exchanges: a session covering every method, every result view, errors of many kinds and
//! followed events is recorded and every line validated; and the schema's tables agree with
//! the code's (method names, error codes and kinds).

mod support;

use devint_sidecar::{ErrorKind, Method};
use serde_json::{json, Value};
use support::schema::SchemaCheck;
use support::{Direction, Host, TestRuntime};

fn transcript(host: &Host) -> Vec<(bool, &str)> {
    host.transcript
        .iter()
        .map(|(d, l)| (*d == Direction::In, l.as_str()))
        .collect()
}

#[tokio::test]
async fn every_line_of_a_full_session_matches_the_schema() {
    let (mut rt, events) = TestRuntime::scripted().await;
    events.push("claude-code", 100, 1);
    let mut host = Host::spawn(rt.options());
    host.call("tools/list", json!({"sessionId": "s-0"}))
        .await
        .unwrap_err();
    host.initialize().await;
    host.call("runtime/discover", json!({})).await.unwrap();
    let opened = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1", "allow_unverified_runtime": true}),
        )
        .await
        .unwrap();
    let s = opened["sessionId"].clone();
    host.call("tools/list", json!({"sessionId": s}))
        .await
        .unwrap();
    let plan = host
        .call(
            "lifecycle/plan",
            json!({"sessionId": s, "tool_id": "claude-code", "settings_scope": "user", "profile": "strict"}),
        )
        .await
        .unwrap();
    host.call(
        "lifecycle/apply",
        json!({"sessionId": s, "tool_id": "claude-code", "plan_id": plan["plan_id"]}),
    )
    .await
    .unwrap();
    for method in [
        "lifecycle/status",
        "lifecycle/verify",
        "lifecycle/repair",
        "lifecycle/remove",
    ] {
        host.call(method, json!({"sessionId": s, "tool_id": "claude-code"}))
            .await
            .unwrap();
    }
    host.call(
        "approval/relay",
        json!({"sessionId": s, "tool_id": "claude-code", "approval_id": "0123456789abcdef0123456789abcdef", "user_input": "defer"}),
    )
    .await
    .unwrap();
    // Errors: a denial (unknown plan), bad params, an unknown session.
    host.call(
        "lifecycle/apply",
        json!({"sessionId": s, "tool_id": "claude-code", "plan_id": "ffffffffffffffffffffffffffffffff"}),
    )
    .await
    .unwrap_err();
    host.call(
        "lifecycle/plan",
        json!({"sessionId": s, "tool_id": "codex", "settings_scope": "nowhere"}),
    )
    .await
    .unwrap_err();
    host.call("tools/list", json!({"sessionId": "s-999"}))
        .await
        .unwrap_err();
    // A follow, one event, and its end when the session closes.
    host.call(
        "events/follow",
        json!({"sessionId": s, "tool_id": "claude-code", "interval_ms": 100}),
    )
    .await
    .unwrap();
    events.push("claude-code", 101, 2);
    assert_eq!(host.notification().await["params"]["kind"], "event");
    host.call("session/close", json!({"sessionId": s}))
        .await
        .unwrap();
    // A refused open (a v1-only, degraded session opens; a standing refusal needs another
    // runtime, see protocol.rs) and a degraded one.
    host.call(
        "session/open",
        json!({"client_name": "h", "client_version": "1", "di_api_versions": [1]}),
    )
    .await
    .unwrap();
    host.call(
        "session/open",
        json!({"client_name": "h", "client_version": "1", "client": "nobody"}),
    )
    .await
    .unwrap_err();
    let (_, served) = host.end_input().await;
    served.unwrap();

    let check = SchemaCheck::new();
    let checked = check
        .check_transcript(transcript(&host))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(checked >= 40, "only {checked} lines");
    // Every method's result schema met a real result.
    let answered: Vec<String> = host
        .transcript
        .iter()
        .filter(|(d, _)| *d == Direction::In)
        .filter_map(|(_, l)| serde_json::from_str::<Value>(l).ok())
        .filter(|req| {
            host.transcript.iter().any(|(d, l)| {
                *d == Direction::Out
                    && serde_json::from_str::<Value>(l)
                        .is_ok_and(|m| m["id"] == req["id"] && m.get("result").is_some())
            })
        })
        .map(|req| req["method"].as_str().unwrap().to_owned())
        .collect();
    for m in Method::ALL {
        assert!(
            answered.iter().any(|a| a == m.name()),
            "no result of {}",
            m.name()
        );
    }
    rt.stop().await;
}

#[tokio::test]
async fn refusals_of_bad_lines_match_the_error_schema() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(rt.options());
    for bad in [
        "{",
        "[1,2]",
        "7",
        r#"{"jsonrpc":"1.0","id":1,"method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"method":"initialize"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":[]}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"no/such"}"#,
    ] {
        host.send_line(bad).await;
        let m = host.next_message().await;
        SchemaCheck::new()
            .check("sidecar_message", &m)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(m.get("error").is_some());
    }
    rt.stop().await;
}

#[test]
fn the_schema_lists_exactly_the_methods_and_errors_of_the_code() {
    let check = SchemaCheck::new();
    let defs = &check.document()["$defs"];
    let methods: Vec<&str> = defs["request"]["properties"]["method"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let ours: Vec<&str> = Method::ALL.iter().map(|m| m.name()).collect();
    assert_eq!(methods, ours);
    for m in Method::ALL {
        for part in ["params", "result"] {
            assert!(
                defs.get(SchemaCheck::def_of(m.name(), part)).is_some(),
                "no {part} schema for {}",
                m.name()
            );
        }
    }
    let codes: Vec<i64> = defs["error"]["properties"]["code"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_i64().unwrap())
        .collect();
    let kinds: Vec<&str> = defs["error"]["properties"]["data"]["properties"]["kind"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert_eq!(codes, ErrorKind::ALL.map(|k| k.code()));
    assert_eq!(kinds, ErrorKind::ALL.map(|k| k.token()));
}

#[test]
fn the_schema_refuses_what_the_sidecar_refuses() {
    let check = SchemaCheck::new();
    let bad_requests: [Value; 4] = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "lifecycle/plan", "params": {"sessionId": "s-1", "tool_id": "codex"}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"sessionId": "s-1", "tool": "x"}}),
        json!({"jsonrpc": "2.0", "id": null, "method": "initialize"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "session/open", "params": {"client_name": "h", "client_version": "1", "token_file": "/t", "client": "c"}}),
    ];
    for request in bad_requests {
        assert!(
            check.check("request", &request).is_err(),
            "accepted {request}"
        );
    }
}
