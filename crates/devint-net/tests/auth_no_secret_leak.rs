//! No secret appears in any `Debug` output, log line, audit record or file other than the
//! client's token file (issue 3, "done when").

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use devint::audit::{AuditEvent, AuditSink, MemoryAuditSink, TracingAuditSink};
use devint::auth::{ClientName, LiveBook, Scope, TokenSecret, ToolScope};
use devint::time::UnixSecs;
use devint::verbs::Verb;
use devint_net::audit_log::JsonLinesAuditLog;
use devint_net::book::{BookFile, SharedBook};

const NOW: u64 = 1_800_000_000;

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
