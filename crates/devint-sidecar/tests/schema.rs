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
    host.call("tools/list", json!({"session_id": "s-0"}))
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
    let s = opened["session_id"].clone();
    host.call("tools/list", json!({"session_id": s}))
        .await
        .unwrap();
    let plan = host
        .call(
            "lifecycle/plan",
            json!({"session_id": s, "tool_id": "claude-code", "settings_scope": "user", "profile": "strict"}),
        )
        .await
        .unwrap();
    host.call(
        "lifecycle/apply",
        json!({"session_id": s, "tool_id": "claude-code", "plan_id": plan["plan_id"]}),
    )
    .await
    .unwrap();
    for method in [
        "lifecycle/status",
        "lifecycle/verify",
        "lifecycle/repair",
        "lifecycle/remove",
    ] {
        host.call(method, json!({"session_id": s, "tool_id": "claude-code"}))
            .await
            .unwrap();
    }
    host.call(
        "approval/relay",
        json!({"session_id": s, "tool_id": "claude-code", "approval_id": "0123456789abcdef0123456789abcdef", "user_input": "defer"}),
    )
    .await
    .unwrap();
    // Errors: a denial (unknown plan), bad params, an unknown session.
    host.call(
        "lifecycle/apply",
        json!({"session_id": s, "tool_id": "claude-code", "plan_id": "ffffffffffffffffffffffffffffffff"}),
    )
    .await
    .unwrap_err();
    host.call(
        "lifecycle/plan",
        json!({"session_id": s, "tool_id": "codex", "settings_scope": "nowhere"}),
    )
    .await
    .unwrap_err();
    host.call("tools/list", json!({"session_id": "s-999"}))
        .await
        .unwrap_err();
    // A follow, one event, and its end when the session closes.
    host.call(
        "events/follow",
        json!({"session_id": s, "tool_id": "claude-code", "interval_ms": 100}),
    )
    .await
    .unwrap();
    events.push("claude-code", 101, 2);
    assert_eq!(host.notification().await["params"]["kind"], "event");
    host.call("session/close", json!({"session_id": s}))
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
    let bad_requests: [Value; 6] = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "lifecycle/plan", "params": {"session_id": "s-1", "tool_id": "codex"}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"session_id": "s-1", "sessionId": "s-1"}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"session_id": "s-1", "tool": "x"}}),
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

/// Every key the protocol defines follows the one naming rule the schema (and
/// docs/sidecar-protocol.md) states: snake_case, as the DI-API's own names. The one
/// exception is `sessionId`, the deprecated spelling of `session_id`, which must be marked
/// deprecated wherever it appears and is still accepted in a request.
#[test]
fn the_schema_names_the_snake_case_rule_and_every_key_keeps_it() {
    let check = SchemaCheck::new();
    let document = check.document();
    let description = document["description"].as_str().unwrap();
    assert!(
        description.contains("every key this protocol defines is snake_case"),
        "the schema does not state the naming rule: {description}"
    );
    assert!(description.contains("`sessionId`") && description.contains("deprecated"));
    let prose = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/sidecar-protocol.md"),
    )
    .unwrap();
    assert!(prose.contains("every key this protocol defines is snake_case"));
    assert!(prose.contains("`sessionId`") && prose.contains("deprecated"));

    let defs = &document["$defs"];
    assert_eq!(defs["deprecated_session_id"]["deprecated"], true);
    fn snake_case(key: &str) -> bool {
        key.starts_with(|c: char| c.is_ascii_lowercase())
            && key
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    }
    fn walk(at: &str, node: &Value, offenders: &mut Vec<String>, deprecated: &mut usize) {
        match node {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties") {
                    for (key, schema) in properties {
                        if key == "sessionId" && schema["$ref"] == "#/$defs/deprecated_session_id" {
                            *deprecated += 1;
                        } else if !snake_case(key) {
                            offenders.push(format!("{at}/properties/{key}"));
                        }
                    }
                }
                for (key, child) in map {
                    walk(&format!("{at}/{key}"), child, offenders, deprecated);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(&format!("{at}/{i}"), child, offenders, deprecated);
                }
            }
            _ => {}
        }
    }
    let (mut offenders, mut deprecated) = (Vec::new(), 0);
    walk("#", document, &mut offenders, &mut deprecated);
    assert!(
        offenders.is_empty(),
        "keys that are not snake_case: {offenders:?}"
    );
    // Ten session methods' params, two results and the two forms of `events/event`.
    assert_eq!(deprecated, 14);

    for spelling in ["session_id", "sessionId"] {
        let mut request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        request["params"][spelling] = json!("s-1");
        check
            .check("request", &request)
            .unwrap_or_else(|e| panic!("{spelling}: {e}"));
    }
}
