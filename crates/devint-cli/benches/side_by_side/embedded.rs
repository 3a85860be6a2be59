//! The embedded server, in its own process: `devint_net::server::Server` with the core's
//! in-memory `CountingBackend` (a do-nothing backend: it touches no file) and an audit sink
//! that only counts, so the figures are the protocol path's own cost. A runtime author's
//! server looks like this one with their backend and their sink.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use devint::audit::{AuditError, AuditEvent, AuditSink};
use devint::auth::{ClientName, Scope, ToolScope};
use devint::testing::CountingBackend;
use devint_net::book::{BookFile, SharedBook};
use devint_net::server::Server;
use devint_net::transport::bind_secure;

/// Counts events and keeps none (a memory sink would grow for the whole run).
#[derive(Default)]
struct CountingSink(AtomicU64);

impl AuditSink for CountingSink {
    fn record(&self, _event: &AuditEvent) -> Result<(), AuditError> {
        self.0.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// Enrol one full-lifecycle token (written to `dir/token`, `0600`), serve on
/// `dir/run/devint.sock` until killed. Prints `ready` once bound.
pub fn run(dir: &Path) {
    let book = BookFile::new(dir.join("state/book.json"));
    let (_, secret) = book
        .update(|b| {
            b.issue(
                ClientName::parse("side-by-side").expect("a client name"),
                Scope::full_lifecycle(ToolScope::All),
                Duration::from_secs(86_400),
                devint::time::UnixSecs::from_system_time(std::time::SystemTime::now()),
            )
        })
        .expect("enrol the bench client");
    super::roles::write_private(&dir.join("token"), secret.expose_secret_hex().as_bytes());
    let runtime = super::roles::runtime();
    runtime.block_on(async {
        let server = Server::builder(
            Arc::new(SharedBook::open(book).expect("open the book")),
            Arc::new(CountingBackend::default()),
            Arc::new(CountingSink::default()),
        )
        .build();
        let socket = bind_secure(&dir.join("run/devint.sock")).expect("bind the socket");
        super::roles::say_ready();
        server
            .serve(socket, std::future::pending())
            .await
            .expect("serve");
    });
}
