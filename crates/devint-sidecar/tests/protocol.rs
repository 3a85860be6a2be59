//! `devint.sidecar.v1` end to end against a real runtime (the devint-net server over a
//! scripted backend) on a private socket: the lifecycle of the protocol, the journey, bad
//! input, bounds, ordering, the standing check, the token rule, and a runtime that goes
//! away.

mod support;

use std::sync::Arc;
use std::time::Duration;

use devint::auth::{Scope, ToolScope};
use devint::provenance::BuildIdentity;
use devint::testing::CountingBackend;
use devint::wire::pb;
use devint_sidecar::Options;
use devint_sidecar::MAX_LINE_BYTES;
use serde_json::{json, Value};
use support::{kind_exit_deny, Host, TestRuntime};

fn no_runtime_options() -> (tempfile::TempDir, Options) {
    let dir = tempfile::Builder::new()
        .prefix("dsn")
        .tempdir_in("/tmp")
        .unwrap();
    let options = Options {
        environment: devint_sidecar::Environment {
            socket: Some(dir.path().join("devint.sock").display().to_string()),
            home: Some(dir.path().to_path_buf()),
            token_file: None,
        },
        ..Options::default()
    };
    (dir, options)
}

#[tokio::test]
async fn initialize_announces_the_protocol_the_window_and_the_method_table() {
    let (_dir, options) = no_runtime_options();
    let mut host = Host::spawn(options);
    let r = host.initialize().await;
    assert_eq!(r["sidecar_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(r["di_api"]["min_supported"], 1);
    assert_eq!(r["di_api"]["max_supported"], 5);
    assert_eq!(r["limits"]["max_line_bytes"], MAX_LINE_BYTES);
    let methods: Vec<&str> = r["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        [
            "initialize",
            "runtime/discover",
            "session/open",
            "session/close",
            "tools/list",
            "lifecycle/plan",
            "lifecycle/apply",
            "lifecycle/status",
            "lifecycle/verify",
            "lifecycle/repair",
            "lifecycle/remove",
            "events/follow",
            "approval/relay"
        ]
    );
    assert_eq!(r["notifications"], json!(["events/event"]));
    let again = host.call("initialize", json!({})).await.unwrap_err();
    assert_eq!(kind_exit_deny(&again).0, "not_initialized");
}

#[tokio::test]
async fn every_method_but_initialize_is_refused_before_initialize() {
    let (_dir, options) = no_runtime_options();
    let mut host = Host::spawn(options);
    let e = host.call("runtime/discover", json!({})).await.unwrap_err();
    assert_eq!(e["code"], -32001);
    assert_eq!(
        kind_exit_deny(&e),
        ("not_initialized".into(), 2, Value::Null)
    );
}

#[tokio::test]
async fn a_host_speaking_only_another_protocol_is_refused() {
    let (_dir, options) = no_runtime_options();
    let mut host = Host::spawn(options);
    let e = host
        .call("initialize", json!({"protocols": ["devint.sidecar.v2"]}))
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e).0, "invalid_params");
    host.call("initialize", json!({"protocols": ["devint.sidecar.v1"]}))
        .await
        .expect("a host that lists ours is served");
}

#[tokio::test]
async fn an_unknown_method_is_a_method_not_found_error_never_a_guess() {
    let (_dir, options) = no_runtime_options();
    let mut host = Host::spawn(options);
    host.initialize().await;
    for method in [
        "tools/lists",
        "Tools/List",
        "events/event",
        "lifecycle/plan ",
    ] {
        let e = host.call(method, json!({})).await.unwrap_err();
        assert_eq!(e["code"], -32601, "{method}");
        assert_eq!(kind_exit_deny(&e).1, 2);
    }
}

#[tokio::test]
async fn a_malformed_line_is_a_parse_error_and_the_next_line_is_served() {
    let (_dir, options) = no_runtime_options();
    let mut host = Host::spawn(options);
    host.send_line("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\"")
        .await;
    let m = host.next_message().await;
    assert_eq!(m["id"], Value::Null);
    assert_eq!(m["error"]["code"], -32700);
    host.send_raw(b"\xff\xfe\xfd\n").await;
    assert_eq!(host.next_message().await["error"]["code"], -32700);
    host.send_line("[]").await;
    assert_eq!(host.next_message().await["error"]["code"], -32600);
    host.send_line("\"just a string\"").await;
    assert_eq!(host.next_message().await["error"]["code"], -32600);
    host.initialize().await;
}

#[tokio::test]
async fn a_line_over_one_mib_is_refused_unread_and_the_next_line_is_served() {
    let (_dir, options) = no_runtime_options();
    let mut host = Host::spawn(options);
    // Exactly the cap is a line (it is not JSON, so a parse error); one more byte is over it.
    host.send_raw(&vec![b' '; MAX_LINE_BYTES - 1]).await;
    host.send_raw(b"x\n").await;
    assert_eq!(host.next_message().await["error"]["code"], -32700);
    let mut big =
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"client_name":""#.to_vec();
    big.resize(MAX_LINE_BYTES + 1, b'a');
    big.extend_from_slice(b"\"}}\n");
    host.send_raw(&big).await;
    let m = host.next_message().await;
    assert_eq!(m["id"], Value::Null, "the id of a skipped line is unknown");
    assert_eq!(m["error"]["code"], -32000);
    assert_eq!(kind_exit_deny(&m["error"]).0, "line_too_long");
    host.initialize().await;
}

#[tokio::test]
async fn a_notification_is_never_executed() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let session = host.open().await;
    host.send_line(
        &json!({"jsonrpc": "2.0", "method": "session/close", "params": {"session_id": session}})
            .to_string(),
    )
    .await;
    host.call("tools/list", json!({"session_id": session}))
        .await
        .expect("the session is still open: the notification did nothing");
    rt.stop().await;
}

#[tokio::test]
async fn discover_reports_an_absent_socket_as_a_stopped_runtime_and_a_present_one() {
    let (_dir, options) = no_runtime_options();
    let mut host = Host::spawn(options);
    host.initialize().await;
    let r = host.call("runtime/discover", json!({})).await.unwrap();
    assert_eq!(
        (r["present"].clone(), r["source"].clone()),
        (json!(false), json!("environment"))
    );
    assert!(r["remediation"].as_str().unwrap().contains("devint serve"));
    let e = host
        .call("runtime/discover", json!({"socket": "relative.sock"}))
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e).1, 2);

    let (mut rt, _events) = TestRuntime::scripted().await;
    let r = host
        .call("runtime/discover", json!({"socket": rt.socket}))
        .await
        .unwrap();
    assert_eq!(
        (r["present"].clone(), r["source"].clone()),
        (json!(true), json!("params"))
    );
    rt.stop().await;
}

#[tokio::test]
async fn opening_a_session_where_no_runtime_runs_fails_with_exit_7() {
    let (_dir, options) = no_runtime_options();
    let mut host = Host::spawn(options);
    host.initialize().await;
    let e = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e["code"], -32010);
    assert_eq!(kind_exit_deny(&e), ("not_running".into(), 7, Value::Null));
    assert!(e["data"]["remediation"]
        .as_str()
        .unwrap()
        .contains("devint serve"));
}

#[tokio::test]
async fn the_whole_journey_answers_with_the_views_and_the_file_token_never_crosses_stdio() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let opened = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1"}),
        )
        .await
        .unwrap();
    let s = opened["session_id"].as_str().unwrap().to_owned();
    assert_eq!(opened["negotiation"]["outcome"], "supported");
    assert_eq!(opened["negotiation"]["di_api_version"], 5);
    assert_eq!(opened["runtime"]["socket"], rt.socket.display().to_string());
    assert!(opened["runtime"]["provenance"].is_object());
    assert_eq!(opened["token_file"], rt.token_file.display().to_string());

    let tools = host
        .call("tools/list", json!({"session_id": s}))
        .await
        .unwrap();
    assert_eq!(tools["tools"].as_array().unwrap().len(), 2);
    assert_eq!(
        tools["tools"][0]["capabilities"].as_array().unwrap().len(),
        12
    );
    let plan = host
        .call(
            "lifecycle/plan",
            json!({"session_id": s, "tool_id": "claude-code", "settings_scope": "user"}),
        )
        .await
        .unwrap();
    assert_eq!(plan["settings_scope"], "user");
    assert_eq!(
        plan["steps"][0]["managed_keys"],
        json!(["env.ANTHROPIC_BASE_URL"])
    );
    // Privileged verbs need a verified runtime, or the override: this test's runtime is this
    // very build, so the standing decides as the CLI would (verified in a checkout).
    let allow = opened["runtime"]["standing"] != "verified";
    if allow {
        host.call("session/close", json!({"session_id": s}))
            .await
            .unwrap();
    }
    let s = if allow {
        host.call(
            "session/open",
            json!({"client_name": "h", "client_version": "1", "allow_unverified_runtime": true}),
        )
        .await
        .unwrap()["session_id"]
            .as_str()
            .unwrap()
            .to_owned()
    } else {
        s
    };
    let applied = host
        .call(
            "lifecycle/apply",
            json!({"session_id": s, "tool_id": "claude-code", "plan_id": plan["plan_id"]}),
        )
        .await
        .unwrap();
    assert_eq!(applied["plan_id"], plan["plan_id"]);
    assert_eq!(applied["outcome"]["mutation"], "changed");
    let status = host
        .call(
            "lifecycle/status",
            json!({"session_id": s, "tool_id": "claude-code"}),
        )
        .await
        .unwrap();
    assert_eq!(status["phase"], "installed");
    assert_eq!(
        status["evidence"][0]["evidence"],
        json!({"kind": "read_back", "outcome": "matched"})
    );
    let verified = host
        .call(
            "lifecycle/verify",
            json!({"session_id": s, "tool_id": "claude-code"}),
        )
        .await
        .unwrap();
    assert_eq!(verified["outcome"], "passed");
    let repaired = host
        .call(
            "lifecycle/repair",
            json!({"session_id": s, "tool_id": "claude-code"}),
        )
        .await
        .unwrap();
    assert_eq!(repaired["status"]["tool_id"], "claude-code");
    let preview = host
        .call(
            "lifecycle/remove",
            json!({"session_id": s, "tool_id": "claude-code"}),
        )
        .await
        .unwrap();
    let removal = host
        .call(
            "lifecycle/remove",
            json!({"session_id": s, "tool_id": "claude-code", "plan_id": preview["plan_id"]}),
        )
        .await
        .unwrap();
    assert_eq!(removal["plan_id"], preview["plan_id"]);
    let ack = host
        .call(
            "approval/relay",
            json!({"session_id": s, "tool_id": "codex", "approval_id": "9b2e8c1a-4d7f-4e0b-8f3a-2c6d1e5b7a90", "user_input": "approve"}),
        )
        .await
        .expect("an approval system's UUID is an opaque id (spec §3) and is relayed");
    assert_eq!(ack["approval_id"], "9b2e8c1a-4d7f-4e0b-8f3a-2c6d1e5b7a90");
    let closed = host
        .call("session/close", json!({"session_id": s}))
        .await
        .unwrap();
    // `sessionId` is the deprecated spelling, still sent for one release.
    assert_eq!(
        closed,
        json!({"session_id": s, "sessionId": s, "closed": true})
    );
    let e = host
        .call("tools/list", json!({"session_id": s}))
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e).0, "unknown_session");

    let (_, served) = host.end_input().await;
    served.expect("exit 0 at the end of input");
    for (_, line) in &host.transcript {
        assert!(
            !line.contains(&rt.token_hex),
            "the token crossed stdio: {line}"
        );
    }
    rt.stop().await;
}

#[tokio::test]
async fn a_token_in_any_message_is_refused_whole_and_never_echoed() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let token = rt.token_hex.clone();
    for params in [
        json!({"client_name": "h", "client_version": "1", "token": token}),
        json!({"client_name": "h", "client_version": "1", "capability_token": "x"}),
        json!({"client_name": token, "client_version": "1"}),
        json!({"client_name": "h", "client_version": "1", "token_file": format!("/tmp/{token}")}),
    ] {
        let id = host.send("session/open", params).await;
        let m = host.response(id).await;
        assert_eq!(m["error"]["code"], -32002, "{m}");
        assert_eq!(kind_exit_deny(&m["error"]).0, "credential_refused");
    }
    let (rest, _) = host.end_input().await;
    assert!(rest.is_empty(), "no session was opened: {rest:?}");
    for (dir, line) in &host.transcript {
        if *dir == support::Direction::Out {
            assert!(!line.contains(&token), "echoed: {line}");
        }
    }
    rt.stop().await;
}

#[tokio::test]
async fn a_named_client_reads_its_token_file_beside_the_socket() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let e = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1", "client": "vscode"}),
        )
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e), ("token_file".into(), 8, Value::Null));
    assert!(e["message"].as_str().unwrap().contains("/vscode.token"));
    std::fs::copy(&rt.token_file, rt.dir.path().join("vscode.token")).unwrap();
    let r = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1", "client": "vscode"}),
        )
        .await
        .unwrap();
    assert!(r["token_file"].as_str().unwrap().ends_with("/vscode.token"));
    rt.stop().await;
}

#[tokio::test]
async fn by_default_a_host_reads_its_own_client_name_token_or_the_file_the_variable_names() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let open = |name: &str| json!({"client_name": name, "client_version": "1"});
    let e = host.call("session/open", open("vscode")).await.unwrap_err();
    assert_eq!(kind_exit_deny(&e), ("token_file".into(), 8, Value::Null));
    assert!(
        e["message"].as_str().unwrap().contains("/vscode.token"),
        "{e}"
    );
    std::fs::copy(&rt.token_file, rt.dir.path().join("vscode.token")).unwrap();
    let r = host.call("session/open", open("vscode")).await.unwrap();
    assert!(r["token_file"].as_str().unwrap().ends_with("/vscode.token"));
    // A Hello name that is no client name owns no file: the host is told what to pass.
    let e = host.call("session/open", open("My IDE")).await.unwrap_err();
    assert!(
        e["data"]["remediation"]
            .as_str()
            .unwrap()
            .contains("`client`"),
        "{e}"
    );

    // AA_DEVINT_TOKEN_FILE names another file, whatever the host's name.
    let named = rt.dir.path().join("elsewhere.token");
    std::fs::copy(&rt.token_file, &named).unwrap();
    let mut options = rt.options();
    options.environment.token_file = Some(named.clone().into_os_string());
    let mut host = Host::spawn(options);
    host.initialize().await;
    for name in ["vscode", "My IDE"] {
        let r = host.call("session/open", open(name)).await.unwrap();
        assert_eq!(r["token_file"], named.display().to_string());
    }
    rt.stop().await;
}

#[tokio::test]
async fn a_token_file_others_can_read_is_refused_with_exit_8() {
    use std::os::unix::fs::PermissionsExt;
    let (mut rt, _events) = TestRuntime::scripted().await;
    std::fs::set_permissions(&rt.token_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let e = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1"}),
        )
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e), ("token_file".into(), 8, Value::Null));
    rt.stop().await;
}

#[tokio::test]
async fn denials_carry_the_deny_code_and_the_clis_exit_code() {
    let (b, _events) = support::backend::ScriptedBackend::new();
    let mut rt = TestRuntime::start(Arc::new(b), Scope::read_only(ToolScope::All)).await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let s = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1", "allow_unverified_runtime": true}),
        )
        .await
        .unwrap()["session_id"]
        .clone();
    let e = host
        .call(
            "lifecycle/plan",
            json!({"session_id": s, "tool_id": "claude-code", "settings_scope": "user"}),
        )
        .await
        .unwrap_err();
    assert_eq!(e["code"], -32012);
    assert_eq!(
        kind_exit_deny(&e),
        ("denied".into(), 8, json!("out_of_scope"))
    );
    let e = host
        .call(
            "lifecycle/status",
            json!({"session_id": s, "tool_id": "no-such-tool"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        kind_exit_deny(&e),
        ("denied".into(), 3, json!("unknown_tool"))
    );
    let e = host
        .call(
            "lifecycle/status",
            json!({"session_id": s, "tool_id": "Not A Tool"}),
        )
        .await
        .unwrap_err();
    assert_eq!(
        kind_exit_deny(&e),
        ("invalid_params".into(), 2, Value::Null)
    );
    rt.stop().await;
}

#[tokio::test]
async fn a_degraded_session_reports_it_and_refuses_v2_verbs_locally_with_exit_4() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let r = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1", "di_api_versions": [1]}),
        )
        .await
        .unwrap();
    assert_eq!(r["negotiation"]["outcome"], "degraded");
    assert_eq!(
        r["negotiation"]["unavailable_verbs"],
        json!(["scoped_events", "approval_relay"])
    );
    assert!(r["negotiation"]["degraded_reason"].is_string());
    assert_eq!(
        r["runtime"]["standing"], "unverifiable",
        "no provenance below v4"
    );
    assert_eq!(r["runtime"]["provenance"], Value::Null);
    let e = host
        .call(
            "events/follow",
            json!({"session_id": r["session_id"], "tool_id": "codex"}),
        )
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e), ("incompatible".into(), 4, Value::Null));
    let e = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1", "di_api_versions": [9]}),
        )
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e), ("incompatible".into(), 4, Value::Null));
    rt.stop().await;
}

#[tokio::test]
async fn an_unverifiable_runtime_refuses_privileged_verbs_with_11_unless_overridden() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    // Offering v3 only: no provenance, so the standing is unverifiable (spec §8).
    let open = |allow: bool| json!({"client_name": "h", "client_version": "1", "di_api_versions": [3], "allow_unverified_runtime": allow});
    let s = host.call("session/open", open(false)).await.unwrap()["session_id"].clone();
    let plan = host
        .call(
            "lifecycle/plan",
            json!({"session_id": s, "tool_id": "codex", "settings_scope": "user"}),
        )
        .await
        .expect("a read-only verb proceeds on an unverifiable runtime");
    let e = host
        .call(
            "lifecycle/apply",
            json!({"session_id": s, "tool_id": "codex", "plan_id": plan["plan_id"]}),
        )
        .await
        .unwrap_err();
    assert_eq!(e["code"], -32013);
    assert_eq!(
        kind_exit_deny(&e),
        ("standing_refused".into(), 11, Value::Null)
    );
    assert_eq!(e["data"]["runtime"]["standing"], "unverifiable");
    for method in ["lifecycle/verify", "lifecycle/repair", "lifecycle/remove"] {
        let e = host
            .call(method, json!({"session_id": s, "tool_id": "codex"}))
            .await
            .unwrap_err();
        assert_eq!(kind_exit_deny(&e).1, 11, "{method}");
    }
    let r = host.call("session/open", open(true)).await.unwrap();
    assert_eq!(r["runtime"]["standing_overridden"], true);
    host.call(
        "lifecycle/apply",
        json!({"session_id": r["session_id"], "tool_id": "codex", "plan_id": plan["plan_id"]}),
    )
    .await
    .expect("the override lets a privileged verb proceed on an unverifiable runtime");
    rt.stop().await;
}

#[tokio::test]
async fn a_refuted_runtime_is_refused_at_open_with_exit_10_even_with_the_override() {
    let ours = BuildIdentity::compiled();
    let other = pb::RuntimeProvenance {
        core_version: "999.0.0".into(),
        build_sha: "f".repeat(40),
        pid: 1,
        executable_path: "/usr/bin/devint".into(),
        executable_present: true,
        source_path: String::new(),
        started_at_unix_secs: 1,
        build_id_source: "injected".into(),
    };
    assert_ne!(other.core_version, ours.core_version);
    let mut rt = TestRuntime::start_with(
        Arc::new(CountingBackend::default()),
        Scope::full_lifecycle(ToolScope::All),
        Some(Arc::new(move || other.clone())),
    )
    .await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    for allow in [false, true] {
        let e = host
            .call(
                "session/open",
                json!({"client_name": "h", "client_version": "1", "allow_unverified_runtime": allow}),
            )
            .await
            .unwrap_err();
        assert_eq!(
            kind_exit_deny(&e),
            ("standing_refused".into(), 10, Value::Null)
        );
        assert_eq!(e["data"]["runtime"]["standing"], "refuted");
        assert!(e["data"]["runtime"]["standing_reason"]
            .as_str()
            .unwrap()
            .contains("different build"));
    }
    rt.stop().await;
}

#[tokio::test]
async fn two_runtimes_in_one_directory_refute_the_session() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let second = rt.dir.path().join("devint-second.sock");
    let _other = bind_secure_listener(&second);
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let e = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1"}),
        )
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e).1, 10);
    assert!(e["data"]["runtime"]["standing_reason"]
        .as_str()
        .unwrap()
        .contains("2 runtimes"));
    rt.stop().await;
}

/// A socket that accepts connections (an impostor runtime beside the real one).
fn bind_secure_listener(path: &std::path::Path) -> std::os::unix::net::UnixListener {
    std::os::unix::net::UnixListener::bind(path).unwrap()
}

#[tokio::test]
async fn requests_on_one_session_are_answered_in_order_and_sessions_run_side_by_side() {
    let backend = Arc::new(CountingBackend::default());
    let mut rt = TestRuntime::start(backend.clone(), Scope::read_only(ToolScope::All)).await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let a = host.open().await;
    let b = host.open().await;
    assert_ne!(a, b);
    backend.set_delay(Some(Duration::from_millis(5)));
    let mut sent = Vec::new();
    for i in 0..20 {
        let session = if i % 2 == 0 { &a } else { &b };
        let method = if i % 3 == 0 {
            "tools/list"
        } else {
            "lifecycle/status"
        };
        let id = host
            .send(method, json!({"session_id": session, "tool_id": "codex"}))
            .await;
        // tools/list takes no tool_id: a refused request keeps its place in the order too.
        sent.push((session.clone(), id));
    }
    let mut answered: Vec<(String, u64)> = Vec::new();
    while answered.len() < sent.len() {
        let m = host.next_message().await;
        let id = m["id"].as_u64().unwrap();
        let session = sent.iter().find(|(_, i)| *i == id).unwrap().0.clone();
        answered.push((session, id));
    }
    for session in [&a, &b] {
        let order: Vec<u64> = answered
            .iter()
            .filter(|(s, _)| s == session)
            .map(|(_, i)| *i)
            .collect();
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(order, sorted, "session {session} answered out of order");
    }
    rt.stop().await;
}

#[tokio::test]
async fn end_of_input_answers_what_was_sent_closes_every_session_and_exits_0() {
    let backend = Arc::new(CountingBackend::default());
    let mut rt = TestRuntime::start(backend.clone(), Scope::read_only(ToolScope::All)).await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let a = host.open().await;
    let b = host.open().await;
    backend.set_delay(Some(Duration::from_millis(20)));
    let mut ids = Vec::new();
    for session in [&a, &b, &a] {
        ids.push(
            host.send("tools/list", json!({"session_id": session}))
                .await,
        );
    }
    let (rest, served) = host.end_input().await;
    served.expect("serve returns Ok at the end of input");
    let answered: Vec<u64> = rest.iter().filter_map(|m| m["id"].as_u64()).collect();
    for id in ids {
        assert!(
            answered.contains(&id),
            "request {id} was not answered before the end"
        );
    }
    // Every session's connection is closed: the runtime sees no open connection.
    tokio::time::sleep(Duration::from_millis(200)).await;
    rt.stop().await;
}

#[tokio::test]
async fn a_runtime_that_goes_away_fails_the_pending_call_and_every_later_one_clearly() {
    let (mut rt, events) = TestRuntime::scripted().await;
    events.push("codex", 100, 1);
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let s = host.open().await;
    let followed = host
        .call(
            "events/follow",
            json!({"session_id": s, "tool_id": "codex", "interval_ms": 100}),
        )
        .await
        .unwrap();
    assert_eq!(followed["events"].as_array().unwrap().len(), 1);
    rt.stop().await;
    let e = host
        .call(
            "lifecycle/status",
            json!({"session_id": s, "tool_id": "codex"}),
        )
        .await
        .unwrap_err();
    let (kind, exit, _) = kind_exit_deny(&e);
    assert!(kind == "connection_lost" || kind == "not_running", "{e}");
    assert_eq!(exit, if kind == "not_running" { 7 } else { 1 });
    // The follow ended with a notification saying so (once the connection was found lost).
    let ended = host.notification().await;
    assert_eq!(ended["method"], "events/event");
    assert_eq!(ended["params"]["kind"], "ended");
    let e = host
        .call("tools/list", json!({"session_id": s}))
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e).0, "connection_lost");
    assert!(e["message"].as_str().unwrap().contains("earlier"));
    let (_, served) = host.end_input().await;
    served.expect("still exits 0");
}

#[tokio::test]
async fn followed_events_arrive_once_each_in_order_after_the_answer() {
    let (mut rt, events) = TestRuntime::scripted().await;
    events.push("claude-code", 100, 1);
    events.push("codex", 100, 9);
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let s = host.open().await;
    let r = host
        .call(
            "events/follow",
            json!({"session_id": s, "tool_id": "claude-code", "since_unix_secs": 50, "interval_ms": 100}),
        )
        .await
        .unwrap();
    assert_eq!(r["events"].as_array().unwrap().len(), 1);
    let subscription = r["subscription"].clone();
    assert!(subscription.is_string());
    events.push("claude-code", 100, 2);
    events.push("claude-code", 101, 3);
    events.push("claude-code", 102, 4);
    let mut counts = Vec::new();
    let mut seqs = Vec::new();
    while counts.len() < 3 {
        let n = host.notification().await;
        assert_eq!(n["method"], "events/event");
        assert_eq!(n["params"]["subscription"], subscription);
        assert_eq!(n["params"]["kind"], "event");
        counts.push(n["params"]["event"]["count"].as_u64().unwrap());
        seqs.push(n["params"]["seq"].as_u64().unwrap());
    }
    assert_eq!(counts, [2, 3, 4]);
    assert_eq!(seqs, [1, 2, 3]);
    // A one-shot call does not follow.
    let once = host
        .call(
            "events/follow",
            json!({"session_id": s, "tool_id": "codex", "follow": false}),
        )
        .await
        .unwrap();
    assert_eq!(once["subscription"], Value::Null);
    assert_eq!(once["events"][0]["count"], 9);
    // Closing the session ends the follow with a notification before the close answer.
    let id = host.send("session/close", json!({"session_id": s})).await;
    let ended = host.notification().await;
    assert_eq!(ended["params"]["kind"], "ended");
    assert_eq!(host.response(id).await["result"]["closed"], true);
    rt.stop().await;
}

#[tokio::test]
async fn the_number_of_sessions_is_bounded() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(Options {
        max_sessions: 2,
        ..rt.options()
    });
    host.initialize().await;
    host.open().await;
    let second = host.open().await;
    let e = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1"}),
        )
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&e).0, "limit");
    host.call("session/close", json!({"session_id": second}))
        .await
        .unwrap();
    host.open().await;
    rt.stop().await;
}

#[tokio::test]
async fn unknown_params_and_a_missing_session_id_are_invalid_params() {
    let (mut rt, _events) = TestRuntime::scripted().await;
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let s = host.open().await;
    let e = host.call("tools/list", json!({})).await.unwrap_err();
    assert_eq!(e["code"], -32602);
    let e = host
        .call("tools/list", json!({"session_id": s, "tool": "codex"}))
        .await
        .unwrap_err();
    assert!(e["message"]
        .as_str()
        .unwrap()
        .contains("unknown field `tool`"));
    let e = host
        .call("session/open", json!({"client_name": "h"}))
        .await
        .unwrap_err();
    assert!(e["message"].as_str().unwrap().contains("client_version"));
    rt.stop().await;
}

/// `sessionId`, the spelling of earlier releases, still names a session for one release: in
/// params it is read as `session_id`, and results and notifications still carry it beside
/// `session_id`. Naming the session both ways at once is refused.
#[tokio::test]
async fn the_deprecated_session_id_spelling_is_still_accepted_and_still_sent() {
    let (mut rt, events) = TestRuntime::scripted().await;
    events.push("claude-code", 100, 1);
    let mut host = Host::spawn(rt.options());
    host.initialize().await;
    let opened = host
        .call(
            "session/open",
            json!({"client_name": "h", "client_version": "1"}),
        )
        .await
        .unwrap();
    let s = opened["session_id"].as_str().unwrap().to_owned();
    assert_eq!(opened["sessionId"], s.as_str());

    let tools = host
        .call("tools/list", json!({"sessionId": s}))
        .await
        .unwrap();
    assert!(tools["tools"].is_array());
    let status = host
        .call(
            "lifecycle/status",
            json!({"sessionId": s, "tool_id": "claude-code"}),
        )
        .await
        .unwrap();
    assert_eq!(status["tool_id"], "claude-code");
    host.call(
        "events/follow",
        json!({"sessionId": s, "tool_id": "claude-code", "interval_ms": 100}),
    )
    .await
    .unwrap();
    events.push("claude-code", 101, 2);
    let event = host.notification().await;
    assert_eq!(event["params"]["session_id"], s.as_str());
    assert_eq!(event["params"]["sessionId"], s.as_str());

    let both = host
        .call("tools/list", json!({"session_id": s, "sessionId": s}))
        .await
        .unwrap_err();
    assert_eq!(kind_exit_deny(&both).0, "invalid_params");
    assert!(both["message"].as_str().unwrap().contains("twice"));

    let id = host.send("session/close", json!({"sessionId": s})).await;
    let ended = host.notification().await;
    assert_eq!(ended["params"]["kind"], "ended");
    assert_eq!(ended["params"]["sessionId"], s.as_str());
    let closed = host.response(id).await;
    assert_eq!(closed["result"]["session_id"], s.as_str());
    assert_eq!(closed["result"]["sessionId"], s.as_str());
    assert_eq!(closed["result"]["closed"], true);
    rt.stop().await;
}
