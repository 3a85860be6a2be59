//! How the server reads its sockets while other connections are open (the connection's
//! intake): what it peeks stays on the socket for a while after its answer, and whatever
//! happens next — the connection left alone, the client's send buffer full of those bytes,
//! the connection closing — each request is answered exactly once, the client can always
//! send again, and it sees the end of the stream, not a reset.
//!
//! No assertion is on elapsed time: the only timeouts are hang guards.

#![cfg(feature = "test-support")]
mod server_support;

use server_support::*;

/// A server on a counting backend with two negotiated connections: the company (held
/// open, it makes the server peek and keep what it peeked on the other) and the one under
/// test.
struct BesideCompany {
    backend: Arc<CountingBackend>,
    rt: Running,
    company: Raw,
    raw: Raw,
    token: String,
}

async fn beside_company() -> BesideCompany {
    let backend = Arc::new(CountingBackend::default());
    let rt = start(backend.clone(), limits());
    let company = rt.raw_negotiated().await;
    let raw = rt.raw_negotiated().await;
    let token = rt.token.clone();
    BesideCompany {
        backend,
        rt,
        company,
        raw,
        token,
    }
}

/// One `status` request on `raw`, and its answer's request id.
async fn status_round_trip(raw: &mut Raw, id: u64, token: &str) -> u64 {
    raw.send(&[request(&status_of("codex"), id, token)]).await;
    answered_id(&raw.recv().await.expect("an answer"))
}

/// A client that set its send buffer as small as the kernel allows fills it with a few
/// requests; if the server kept their bytes on the socket until it had more of them, the
/// client could never send the next one. The server takes them off when the client has
/// sent nothing for a while, so every request is answered. (Removing that check turns
/// this test into a hang, caught by the guard.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_with_the_smallest_send_buffer_is_never_stuck_behind_answered_requests() {
    let BesideCompany {
        backend,
        mut rt,
        company: _company,
        mut raw,
        token,
    } = beside_company().await;
    // The kernel's floor (about 4.5 KiB): four or five small requests fill it.
    rustix::net::sockopt::set_socket_send_buffer_size(&raw.stream, 1).unwrap();
    for id in 1..=24 {
        let answered = guarded("a request after a full send buffer", async {
            status_round_trip(&mut raw, id, &token).await
        })
        .await;
        assert_eq!(answered, id);
    }
    assert_eq!(backend.calls(Verb::Status), 24, "every call ran once");
    rt.shutdown().await;
}

/// Bytes the server still holds on the socket when it closes it would make the client's
/// next read fail with a reset. They are taken off first: a client that finished sending
/// reads its answers and then the end of the stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_peeked_ends_with_the_end_of_the_stream_not_a_reset() {
    let BesideCompany {
        mut rt,
        company: _company,
        mut raw,
        token,
        ..
    } = beside_company().await;
    for id in 1..=3 {
        assert_eq!(status_round_trip(&mut raw, id, &token).await, id);
    }
    raw.stream.shutdown().await.unwrap();
    let mut byte = [0u8; 1];
    let end = guarded("the server's close", raw.stream.read(&mut byte)).await;
    assert!(
        matches!(end, Ok(0)),
        "the end of the stream, not {end:?} (a reset: bytes left unread on the server's side)"
    );
    rt.shutdown().await;
}

/// A connection that peeked while it had company and reads plainly once it is alone takes
/// off what it peeked first: a plain read starts at the first byte still on the socket, so
/// without that it would read those requests again and run them twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_left_alone_answers_each_request_once() {
    let BesideCompany {
        backend,
        mut rt,
        company,
        mut raw,
        token,
    } = beside_company().await;
    for id in 1..=3 {
        assert_eq!(status_round_trip(&mut raw, id, &token).await, id);
    }
    drop(company);
    let server = rt.server.clone();
    wait_until("the company's connection ended", || {
        server.open_connections() == 1
    })
    .await;
    for id in 4..=6 {
        assert_eq!(status_round_trip(&mut raw, id, &token).await, id);
    }
    raw.stream.shutdown().await.unwrap();
    assert!(
        raw.until_closed().await.is_empty(),
        "no request answered twice"
    );
    assert_eq!(backend.calls(Verb::Status), 6, "every call ran once");
    rt.shutdown().await;
}
