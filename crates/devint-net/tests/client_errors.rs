//! The client's typed errors, each against a fake raw server task: no socket
//! is "not running", a close mid-call, a reply to another request, and a frame over the
//! 1 MiB bound are distinct errors.

use std::path::PathBuf;
use std::time::Duration;

use devint::auth::TokenSecret;
use devint::session::client::ClientError;
use devint::verbs::{ResponseError, ToolId, ViewError};
use devint::version::ApiVersion;
use devint::wire::{encode, pb, ClientFrame, ClientToServer, Decoder, ServerFrame, MAX_PAYLOAD};
use devint_net::client::{ClientIoError, DevIntClient};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};

const HANG_GUARD: Duration = Duration::from_secs(20);

fn short_tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("dvc")
        .tempdir_in("/tmp")
        .unwrap()
}

/// What the fake server does with the first request after `HelloAck`.
#[derive(Clone, Copy)]
enum Misbehave {
    CloseMidCall,
    AnswerAnotherId,
    OversizedFrame,
    /// Answer `status` as another implementation might: an absent reason written as a
    /// phrase; with `bad_phase`, also a phase outside its vocabulary.
    ForeignStatus {
        bad_phase: bool,
    },
}

async fn read_frame(stream: &mut UnixStream, decoder: &mut Decoder<ClientToServer>) -> ClientFrame {
    let mut buf = [0u8; 4096];
    loop {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "the client closed early");
        let mut input = &buf[..n];
        if let Some(frame) = decoder.decode(&mut input).unwrap() {
            return frame;
        }
    }
}

fn ack() -> ServerFrame {
    ServerFrame::HelloAck(pb::HelloAck {
        outcome: pb::NegotiationOutcome::Supported as i32,
        di_api_version: 3,
        core_version: "fake".into(),
        lifecycle_schema_version: 1,
        min_supported: 1,
        max_supported: 3,
        ..Default::default()
    })
}

/// A fake runtime: answers `Hello`, then misbehaves on the first request.
fn fake_server(how: Misbehave) -> (tempfile::TempDir, PathBuf) {
    let dir = short_tempdir();
    let path = dir.path().join("fake.sock");
    let listener = UnixListener::bind(&path).unwrap();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut decoder = Decoder::<ClientToServer>::new();
        assert!(matches!(
            read_frame(&mut stream, &mut decoder).await,
            ClientFrame::Hello(_)
        ));
        stream.write_all(&encode(&ack()).unwrap()).await.unwrap();
        let ClientFrame::Request(request) = read_frame(&mut stream, &mut decoder).await else {
            panic!("expected a request");
        };
        match how {
            Misbehave::CloseMidCall => drop(stream),
            Misbehave::AnswerAnotherId => {
                let wrong = ServerFrame::Response(pb::Response {
                    request_id: request.request_id + 41,
                    verb: request.verb,
                    ..Default::default()
                });
                stream.write_all(&encode(&wrong).unwrap()).await.unwrap();
                // Hold the socket open so the error is the id, not a close.
                let _ = stream.read(&mut [0u8; 16]).await;
            }
            Misbehave::ForeignStatus { bad_phase } => {
                let evidence = |kind: &str, outcome: &str| pb::EvidenceView {
                    mechanism: "host_enforcement".into(),
                    kind: kind.into(),
                    outcome: outcome.into(),
                    observed_at_unix_secs: 1,
                    detail: String::new(),
                };
                let answer = ServerFrame::Response(pb::Response {
                    request_id: request.request_id,
                    verb: request.verb,
                    status: Some(Box::new(pb::StatusView {
                        tool_id: "codex".into(),
                        phase: if bad_phase { "INSTALLED" } else { "installed" }.into(),
                        state: "ladder".into(),
                        achieved_level: "integrated".into(),
                        adapter_ceiling: "l2_enforce".into(),
                        compatibility: "compatible".into(),
                        evidence: vec![
                            evidence("read_back", "matched"),
                            evidence("absent", "no host enforcement layer on this platform"),
                        ],
                        observed_at_unix_secs: 1,
                        ..Default::default()
                    })),
                    ..Default::default()
                });
                stream.write_all(&encode(&answer).unwrap()).await.unwrap();
                let _ = stream.read(&mut [0u8; 16]).await;
            }
            Misbehave::OversizedFrame => {
                // Tag 3 (Response) with a LEB128 length of MAX_PAYLOAD + 1.
                let mut header = vec![3u8];
                let mut len = MAX_PAYLOAD as u64 + 1;
                while len >= 0x80 {
                    header.push((len as u8 & 0x7f) | 0x80);
                    len >>= 7;
                }
                header.push(len as u8);
                stream.write_all(&header).await.unwrap();
                let _ = stream.read(&mut [0u8; 16]).await;
            }
        }
    });
    (dir, path)
}

async fn status_against(how: Misbehave) -> ClientIoError {
    status_result(how).await.unwrap_err()
}

async fn status_result(how: Misbehave) -> Result<devint::verbs::StatusView, ClientIoError> {
    let (_dir, path) = fake_server(how);
    let client = DevIntClient::connect(&path, "client-test", "0")
        .await
        .unwrap();
    assert_eq!(client.version(), ApiVersion::new(3));
    let mut client = client.authorize(TokenSecret::from_bytes([1; 32]));
    tokio::time::timeout(HANG_GUARD, client.status(ToolId::parse("codex").unwrap()))
        .await
        .expect("the client hung")
}

#[tokio::test]
async fn no_socket_at_the_path_is_not_running() {
    let dir = short_tempdir();
    let path = dir.path().join("absent.sock");
    let err = DevIntClient::connect(&path, "client-test", "0")
        .await
        .err()
        .unwrap();
    assert!(
        matches!(&err, ClientIoError::NotRunning(p) if *p == path),
        "{err:?}"
    );
}

#[tokio::test]
async fn a_server_closing_mid_call_is_closed_mid_call() {
    let err = status_against(Misbehave::CloseMidCall).await;
    assert!(matches!(err, ClientIoError::ClosedMidCall), "{err:?}");
}

#[tokio::test]
async fn a_reply_with_another_request_id_is_a_protocol_error() {
    let err = status_against(Misbehave::AnswerAnotherId).await;
    match err {
        ClientIoError::Session(ClientError::Protocol(message)) => {
            assert!(message.contains("answers request 42, not 1"), "{message}")
        }
        other => panic!("expected a protocol error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_frame_over_the_bound_is_a_frame_error() {
    let err = status_against(Misbehave::OversizedFrame).await;
    assert!(matches!(err, ClientIoError::Frame(_)), "{err:?}");
}

#[tokio::test]
async fn a_status_with_an_out_of_vocabulary_field_is_read_and_names_the_field() {
    let st = status_result(Misbehave::ForeignStatus { bad_phase: false })
        .await
        .expect("the rest of the status is usable");
    assert_eq!(st.evidence.len(), 1);
    assert_eq!(st.unrecognized.len(), 1);
    assert_eq!(st.unrecognized[0].field.as_str(), "evidence[1].outcome");
    assert!(matches!(
        st.unrecognized[0].refusal,
        ViewError::MalformedField {
            field: "evidence.outcome",
            ..
        }
    ));
}

#[tokio::test]
async fn an_unreadable_required_field_is_a_typed_error_naming_it() {
    let err = status_result(Misbehave::ForeignStatus { bad_phase: true })
        .await
        .unwrap_err();
    match &err {
        ClientIoError::Session(ClientError::Response(ResponseError::View(
            ViewError::OutsideVocabulary(e),
        ))) => assert_eq!(e.field, "status.phase"),
        other => panic!("expected a typed view error, got {other:?}"),
    }
    assert!(!err.to_string().contains("INSTALLED"), "{err}");
    assert!(!err.is_connection_lost());
}
