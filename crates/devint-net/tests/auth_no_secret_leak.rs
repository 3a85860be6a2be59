//! No secret appears in any `Debug` output, log line, audit record or file other than the
//! client's token file: not in the book's types, not in frames or requests (client or
//! server side), not in client or server errors, not in the logs of a real client↔server
//! exchange captured at `TRACE`.

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use std::path::Path;

use devint::audit::{AuditEvent, AuditSink, MemoryAuditSink, TracingAuditSink};
use devint::auth::{ClientName, LiveBook, Scope, TokenSecret, ToolScope};
use devint::time::UnixSecs;
use devint::verbs::Verb;
use devint_net::audit_log::JsonLinesAuditLog;
use devint_net::book::{BookFile, SharedBook};

const NOW: u64 = 1_800_000_000;
/// A guard against hangs, not a performance assertion.
const HANG_GUARD: Duration = Duration::from_secs(20);

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn assert_clean(what: &str, text: &str, secrets: &[String]) {
    for s in secrets {
        assert!(!text.contains(s.as_str()), "{what} contains a secret");
        assert!(
            !text.contains(&s.to_uppercase()),
            "{what} contains a secret"
        );
        assert!(!text.contains(&s[..32]), "{what} contains half a secret");
        assert!(!text.contains(&s[32..]), "{what} contains half a secret");
    }
}

#[test]
fn no_secret_reaches_debug_output_logs_audit_records_or_the_book_file() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::TRACE)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let book_path = state.join("book.json");
    let file = BookFile::new(&book_path);
    let mut secrets = Vec::new();
    let (id, secret) = file
        .update(|b| {
            b.issue(
                ClientName::parse("ide").unwrap(),
                Scope::read_only(ToolScope::only(["codex"])),
                Duration::from_secs(60),
                UnixSecs::new(NOW),
            )
        })
        .unwrap();
    let token = secret.expose_secret_hex().to_string();
    secrets.push(token.clone());
    let (_, rotated) = file.update(|b| b.rotate(&id, UnixSecs::new(NOW))).unwrap();
    let rotated_hex = rotated.expose_secret_hex().to_string();
    secrets.push(rotated_hex.clone());

    let (_, wide) = file
        .update(|b| {
            b.issue(
                ClientName::parse("wide").unwrap(),
                Scope::full_lifecycle(ToolScope::All),
                Duration::from_secs(60),
                UnixSecs::new(NOW),
            )
        })
        .unwrap();
    let wide_hex = wide.expose_secret_hex().to_string();
    secrets.push(wide_hex.clone());
    let server = SharedBook::open(BookFile::new(&book_path)).unwrap();
    let mut debug = Vec::new();
    let audit = MemoryAuditSink::new();
    let log = JsonLinesAuditLog::open(dir.path().join("audit.jsonl")).unwrap();
    let attempts = [
        (rotated_hex.clone(), Verb::Status, "codex", NOW),
        (rotated_hex.clone(), Verb::Apply, "codex", NOW),
        (rotated_hex.clone(), Verb::Status, "codex", NOW + 61),
        (token.clone(), Verb::Status, "codex", NOW),
        (format!("{rotated_hex}0"), Verb::Status, "codex", NOW),
        (rotated_hex.to_uppercase(), Verb::Status, "codex", NOW),
        (String::new(), Verb::Status, "codex", NOW),
        // a client that puts the token where the tool id goes
        (rotated_hex.clone(), Verb::Status, rotated_hex.as_str(), NOW),
        (wide_hex.clone(), Verb::Status, wide_hex.as_str(), NOW),
        (wide_hex.clone(), Verb::Status, &wide_hex[..32], NOW),
    ];
    for (tok, verb, tool, now) in &attempts {
        let result = server.resolve(tok, *verb, tool, UnixSecs::new(*now));
        debug.push(format!("{result:?}"));
        let event = match &result {
            Ok(g) => AuditEvent::new(
                UnixSecs::new(*now),
                devint::audit::AuditKind::SentenceRefused,
            )
            .with_call(*verb, tool)
            .with_token(g.token_id().clone(), g.client_name().clone()),
            Err(e) => {
                debug.push(e.to_string());
                AuditEvent::resolve_failure(UnixSecs::new(*now), e, *verb, tool)
            }
        };
        debug.push(format!("{event:?}"));
        audit.record(&event).unwrap();
        log.record(&event).unwrap();
        TracingAuditSink.record(&event).unwrap();
    }
    // A book corrupted under the server: the logged error must not carry a secret either.
    fs::write(&book_path, b"{\"format_version\":1").unwrap();
    debug.push(format!(
        "{:?}",
        server.resolve(&rotated_hex, Verb::Status, "codex", UnixSecs::new(NOW))
    ));
    fs::remove_file(&book_path).unwrap();

    let book = file.load().unwrap();
    debug.push(format!("{book:?}"));
    debug.push(format!("{:?}", LiveBook::new(book.clone())));
    debug.push(format!("{server:?}"));
    debug.push(format!("{:?}", secret.digest()));
    debug.push(format!("{:?}", audit.events()));
    debug.push(format!(
        "{:?}",
        TokenSecret::parse(&format!("{token}x")).err()
    ));

    for (i, d) in debug.iter().enumerate() {
        assert_clean(&format!("debug output #{i}"), d, &secrets);
    }
    let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
    assert!(
        logged.contains("devint::audit"),
        "the tracing sink logged nothing"
    );
    assert_clean("the tracing log", &logged, &secrets);
    assert_clean(
        "the audit log",
        &fs::read_to_string(log.path()).unwrap(),
        &secrets,
    );
    for entry in fs::read_dir(&state).unwrap() {
        let path = entry.unwrap().path();
        let bytes = fs::read(&path).unwrap();
        assert_clean(
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
            &secrets,
        );
    }
}

#[test]
fn the_book_file_holds_digests_not_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s").join("book.json");
    let file = BookFile::new(&path);
    let raw = [0x5a_u8; 32];
    let secret = TokenSecret::from_bytes(raw);
    file.update(|b| {
        b.issue_with_secret(
            ClientName::parse("x").unwrap(),
            Scope::read_only(ToolScope::All),
            Duration::from_secs(60),
            UnixSecs::new(NOW),
            &secret,
        )
    })
    .unwrap();
    let bytes = fs::read(&path).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    assert!(!text.contains(&*secret.expose_secret_hex()));
    assert!(!bytes.windows(32).any(|w| w == raw));
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
}

// ---------------------------------------------------------------------------------------
// A real exchange: frames, requests, errors and TRACE logs.
// ---------------------------------------------------------------------------------------

mod exchange {
    use super::*;

    use devint::audit::{FanoutSink, TracingAuditSink};
    use devint::peer::PeerVerified;
    use devint::session::client::Client;
    use devint::session::{AnyConnection, Connection, ServerEnv};
    use devint::testing::CountingBackend;
    use devint::verbs::{ToolId, VerbCall};
    use devint::wire::{encode, pb, ClientFrame, Decoder, ServerFrame, ServerToClient};
    use devint_net::client::DevIntClient;
    use devint_net::server::Server;
    use devint_net::transport::bind_secure;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::UnixStream;

    /// Every frame the server sends back on a raw connection, until it closes.
    async fn raw_exchange(socket: &Path, frames: &[ClientFrame]) -> Vec<ServerFrame> {
        let mut stream = UnixStream::connect(socket).await.unwrap();
        let mut bytes = Vec::new();
        for f in frames {
            bytes.extend(encode(f).unwrap());
        }
        // A frame the server cannot read ends the exchange (and is audited and logged).
        bytes.extend([0x09, 0x00]);
        stream.write_all(&bytes).await.unwrap();
        let mut out = Vec::new();
        tokio::time::timeout(HANG_GUARD, stream.read_to_end(&mut out))
            .await
            .expect("the server closes after a refused frame")
            .unwrap();
        let mut decoder = Decoder::<ServerToClient>::new();
        let mut input = out.as_slice();
        let mut frames = Vec::new();
        while let Ok(Some(frame)) = decoder.decode(&mut input) {
            frames.push(frame);
        }
        frames
    }

    fn request(id: u64, verb: Verb, token: &str, tool: &str) -> ClientFrame {
        ClientFrame::Request(pb::Request {
            request_id: id,
            verb: verb.to_wire() as i32,
            capability_token: token.into(),
            tool_id: tool.into(),
            ..Default::default()
        })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_real_exchange_leaks_no_token_to_frames_requests_errors_or_trace_logs() {
        // Every thread of the process logs into `logs` at TRACE (the server's tasks run on
        // tokio's workers and its calls on the blocking pool).
        let logs = Captured::default();
        let writer = logs.clone();
        tracing::subscriber::set_global_default(
            tracing_subscriber::fmt()
                .with_writer(move || writer.clone())
                .with_max_level(tracing::Level::TRACE)
                .finish(),
        )
        .expect("only this test installs a global subscriber");

        let dir = tempfile::Builder::new()
            .prefix("dvl")
            .tempdir_in("/tmp")
            .unwrap();
        let state = dir.path().join("state");
        fs::create_dir(&state).unwrap();
        fs::set_permissions(&state, fs::Permissions::from_mode(0o700)).unwrap();
        let book_path = state.join("book.json");
        let now = UnixSecs::from_system_time(std::time::SystemTime::now());
        let (_, codex_only) = BookFile::new(&book_path)
            .update(|b| {
                b.issue(
                    ClientName::parse("leak-test").unwrap(),
                    Scope::full_lifecycle(ToolScope::only(["codex"])),
                    Duration::from_secs(3600),
                    now,
                )
            })
            .unwrap();
        let enrolled = codex_only.expose_secret_hex().to_string();
        let stranger = TokenSecret::generate().unwrap();
        let unknown = stranger.expose_secret_hex().to_string();
        let secrets = [enrolled.clone(), unknown.clone()];

        let book = Arc::new(SharedBook::open(BookFile::new(&book_path)).unwrap());
        let memory = Arc::new(MemoryAuditSink::new());
        let audit = Arc::new(FanoutSink::new(vec![
            memory.clone(),
            Arc::new(TracingAuditSink),
        ]));
        let backend = Arc::new(CountingBackend::default());
        let server = Arc::new(Server::builder(book.clone(), backend.clone(), audit).build());
        let socket = dir.path().join("run").join("devint.sock");
        let bound = bind_secure(&socket).unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = Arc::clone(&server);
        let task = tokio::spawn(async move {
            serving
                .serve(bound, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });

        let mut debug: Vec<String> = Vec::new();
        let codex = ToolId::parse("codex").unwrap();
        let claude = ToolId::parse("claude-code").unwrap();

        // The real client with the enrolled token: one answer, one denial (out of scope).
        let mut client = DevIntClient::connect(&socket, "leak-test", "1")
            .await
            .unwrap()
            .authorize(TokenSecret::parse(&enrolled).unwrap());
        let status = client.status(codex.clone()).await.unwrap();
        debug.push(format!("{status:?}"));
        let out_of_scope = client.status(claude.clone()).await.unwrap_err();
        debug.push(format!("{out_of_scope:?}"));
        debug.push(out_of_scope.to_string());
        // The real client with a token the book does not know.
        let mut stranger_client = DevIntClient::connect(&socket, "leak-test", "1")
            .await
            .unwrap()
            .authorize(stranger);
        let unauthenticated = stranger_client.status(codex.clone()).await.unwrap_err();
        debug.push(format!("{unauthenticated:?}"));
        debug.push(unauthenticated.to_string());
        assert!(
            debug.iter().any(|d| d.contains("Unauthenticated")),
            "the stranger was denied"
        );

        // Raw frames: the token where the tool id goes, a too-long token, a request before
        // Hello on another connection; then a refused frame. Every answer's Debug is clean.
        let hello = ClientFrame::Hello(pb::Hello {
            client_name: "raw".into(),
            client_version: "0".into(),
            di_api_versions: vec![5],
            lifecycle_schema_versions: vec![1],
        });
        let sent = [
            hello,
            request(1, Verb::Status, &enrolled, &enrolled),
            request(2, Verb::Status, &format!("{enrolled}00"), "codex"),
            request(3, Verb::Apply, &enrolled, "codex"),
        ];
        for frame in &sent {
            debug.push(format!("{frame:?}"));
            debug.push(format!("{frame:#?}"));
        }
        let answers = raw_exchange(&socket, &sent).await;
        assert_eq!(
            answers.len(),
            5,
            "ack, three answers, and the refusal: {answers:?}"
        );
        let before_hello = raw_exchange(&socket, &sent[1..2]).await;
        for frame in answers.iter().chain(&before_hello) {
            debug.push(format!("{frame:?}"));
        }

        // The sans-IO client: the request it writes, and the frame around it.
        let (awaiting, _) = Client::with_versions("leak-test", "1", [5]).hello();
        let negotiated = awaiting
            .on_frame(ServerFrame::HelloAck(pb::HelloAck {
                outcome: pb::NegotiationOutcome::Supported as i32,
                di_api_version: 5,
                lifecycle_schema_version: 1,
                min_supported: 1,
                max_supported: 5,
                ..Default::default()
            }))
            .unwrap();
        let mut core = negotiated.authorize(TokenSecret::parse(&enrolled).unwrap());
        let (_, outgoing) = core.status(codex.clone()).unwrap();
        assert_eq!(
            outgoing.request().capability_token,
            enrolled,
            "the request carries the token"
        );
        debug.push(format!("{outgoing:?}"));
        debug.push(format!("{:?}", outgoing.request()));
        debug.push(format!("{:?}", outgoing.frame()));
        debug.push(format!(
            "{:?}",
            VerbCall::Status { tool: codex }.to_request(9, &enrolled)
        ));

        // The sans-IO server: every step it takes on that request.
        let provenance = pb::RuntimeProvenance::default;
        let env = ServerEnv {
            resolver: &*book,
            backend: &*backend,
            core_version: "0",
            provenance: &provenance,
        };
        let mut conn = AnyConnection::new(Connection::new(PeerVerified::for_tests(0), 9));
        let t = UnixSecs::from_system_time(std::time::SystemTime::now());
        if let ClientFrame::Hello(h) = &sent[0] {
            debug.push(format!(
                "{:?}",
                conn.handle(ClientFrame::Hello(h.clone()), &env, t)
            ));
        }
        for frame in [outgoing.frame().clone(), sent[1].clone(), sent[2].clone()] {
            let step = conn.handle(frame, &env, t);
            debug.push(format!("{step:?}"));
            if let devint::session::Step::Dispatch(dispatch) = step {
                debug.push(format!("{:?}", dispatch.run(&*backend, t)));
            }
        }
        debug.push(format!("{conn:?}"));
        debug.push(format!("{:?}", memory.events()));

        drop(client);
        drop(stranger_client);
        let _ = stop.send(());
        tokio::time::timeout(HANG_GUARD, task)
            .await
            .expect("shutdown")
            .unwrap();

        for (i, d) in debug.iter().enumerate() {
            assert_clean(&format!("debug output #{i}"), d, &secrets);
        }
        let logged = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
        for expected in ["devint::audit", "frame refused"] {
            assert!(
                logged.contains(expected),
                "the TRACE capture holds no {expected:?}: {logged}"
            );
        }
        assert_clean("the TRACE log of the exchange", &logged, &secrets);
    }
}
