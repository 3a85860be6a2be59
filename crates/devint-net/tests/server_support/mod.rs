//! Shared harness of the socket tests: a running server in its own temp directory, a raw
//! frame-level client, and backends whose calls wait at a gate.
#![allow(dead_code, unused_imports)]

pub use std::os::unix::fs::PermissionsExt;
pub use std::path::{Path, PathBuf};
pub use std::sync::atomic::{AtomicUsize, Ordering};
pub use std::sync::{Arc, Condvar, Mutex};
pub use std::time::Duration;

pub use devint::audit::{
    AuditKind, AuditSink, ConnectionLimit, FanoutSink, FrameRefusal, MemoryAuditSink,
};
pub use devint::auth::{ClientName, Scope, TokenId, TokenSecret, ToolScope};
pub use devint::backend::{Authorization, ToolAuthorization};
pub use devint::backend::{Lifecycle, LifecycleError};
pub use devint::session::client::ClientError;
pub use devint::testing::CountingBackend;
pub use devint::verbs::{
    ApplyView, ApprovalId, ApprovalRelayAck, PlanArgs, PlanId, PlanView, RemovalView, RepairView,
    ScopedEventList, StatusView, ToolId, ToolList, UserInput, Verb, VerbCall, VerificationView,
};
pub use devint::wire::{encode, pb, ClientFrame, Decoder, ServerFrame, ServerToClient};
pub use devint_net::book::{BookFile, SharedBook};
pub use devint_net::client::{ClientIoError, ClientOptions, DevIntClient, NegotiatedClient};
pub use devint_net::server::{Limits, Server};
pub use devint_net::transport::bind_secure;
pub use tokio::io::{AsyncReadExt, AsyncWriteExt};
pub use tokio::net::UnixStream;
pub use tokio::sync::oneshot;
pub use tokio::task::JoinHandle;

/// A guard against hangs, not a performance assertion.
pub const HANG_GUARD: Duration = Duration::from_secs(20);

/// Polls `done` every 5 ms until it holds, under the hang guard.
pub async fn wait_until(what: &str, done: impl Fn() -> bool) {
    guarded(what, async {
        while !done() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
}

pub async fn guarded<T>(what: &str, fut: impl std::future::Future<Output = T>) -> T {
    match tokio::time::timeout(HANG_GUARD, fut).await {
        Ok(v) => v,
        Err(_) => panic!("hung: {what}"),
    }
}

// ---------------------------------------------------------------------------------------
// A backend whose `status` of one tool waits at a gate, delegating everything else.
// ---------------------------------------------------------------------------------------

#[derive(Default)]
pub struct Gate {
    pub open: Mutex<bool>,
    pub changed: Condvar,
    pub entered: AtomicUsize,
}

impl Gate {
    pub fn wait(&self) {
        self.entered.fetch_add(1, Ordering::SeqCst);
        let mut open = self.open.lock().unwrap();
        while !*open {
            open = self.changed.wait(open).unwrap();
        }
    }
    pub fn release(&self) {
        *self.open.lock().unwrap() = true;
        self.changed.notify_all();
    }
    pub fn entered(&self) -> usize {
        self.entered.load(Ordering::SeqCst)
    }
}

/// `status` of `slow_tool` blocks until the gate opens; every call counts when it returns.
pub struct GatedBackend {
    pub inner: CountingBackend,
    pub slow_tool: ToolId,
    pub gate: Arc<Gate>,
    pub finished: AtomicUsize,
}

impl GatedBackend {
    pub fn new(slow_tool: &str, gate: Arc<Gate>) -> GatedBackend {
        GatedBackend {
            inner: CountingBackend::default(),
            slow_tool: ToolId::parse(slow_tool).unwrap(),
            gate,
            finished: AtomicUsize::new(0),
        }
    }
    pub fn done<T>(&self, r: T) -> T {
        self.finished.fetch_add(1, Ordering::SeqCst);
        r
    }
}

impl Lifecycle for GatedBackend {
    fn knows_tool(&self, tool: &ToolId) -> bool {
        self.inner.knows_tool(tool)
    }
    fn list_tools(&self, auth: &Authorization) -> Result<ToolList, LifecycleError> {
        self.done(self.inner.list_tools(auth))
    }
    fn plan(&self, auth: &ToolAuthorization, args: &PlanArgs) -> Result<PlanView, LifecycleError> {
        self.done(self.inner.plan(auth, args))
    }
    fn apply(&self, auth: &ToolAuthorization, plan: &PlanId) -> Result<ApplyView, LifecycleError> {
        self.done(self.inner.apply(auth, plan))
    }
    fn status(&self, auth: &ToolAuthorization) -> Result<StatusView, LifecycleError> {
        if *auth.tool() == self.slow_tool {
            self.gate.wait();
        }
        self.done(self.inner.status(auth))
    }
    fn verify(&self, auth: &ToolAuthorization) -> Result<VerificationView, LifecycleError> {
        self.done(self.inner.verify(auth))
    }
    fn repair(&self, auth: &ToolAuthorization) -> Result<RepairView, LifecycleError> {
        self.done(self.inner.repair(auth))
    }
    fn remove(
        &self,
        auth: &ToolAuthorization,
        plan: Option<&PlanId>,
    ) -> Result<RemovalView, LifecycleError> {
        self.done(self.inner.remove(auth, plan))
    }
    fn scoped_events(
        &self,
        auth: &ToolAuthorization,
        limit: u32,
        since: devint::time::UnixSecs,
    ) -> Result<ScopedEventList, LifecycleError> {
        self.done(self.inner.scoped_events(auth, limit, since))
    }
    fn approval_relay(
        &self,
        auth: &ToolAuthorization,
        approval: &ApprovalId,
        input: UserInput,
    ) -> Result<ApprovalRelayAck, LifecycleError> {
        self.done(self.inner.approval_relay(auth, approval, input))
    }
}

/// A closed gate and a backend whose `status` of codex waits at it.
pub fn gated_codex() -> (Arc<Gate>, Arc<GatedBackend>) {
    let gate = Arc::new(Gate::default());
    let backend = Arc::new(GatedBackend::new("codex", gate.clone()));
    (gate, backend)
}

// ---------------------------------------------------------------------------------------
// A running server in its own temp directory.
// ---------------------------------------------------------------------------------------

pub struct Running {
    pub dir: tempfile::TempDir,
    pub socket: PathBuf,
    pub book: PathBuf,
    pub token: String,
    pub token_id: TokenId,
    pub audit: Arc<MemoryAuditSink>,
    pub server: Arc<Server>,
    pub stop: Option<oneshot::Sender<()>>,
    pub task: Option<JoinHandle<()>>,
}

pub fn short_tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("dvs")
        .tempdir_in("/tmp")
        .unwrap()
}

pub fn start(backend: Arc<dyn Lifecycle>, limits: Limits) -> Running {
    start_with_sink(backend, limits, None)
}

/// A server whose audit goes to the memory sink and to `also`, when given.
pub fn start_with_sink(
    backend: Arc<dyn Lifecycle>,
    limits: Limits,
    also: Option<Arc<dyn AuditSink>>,
) -> Running {
    let dir = short_tempdir();
    let state = dir.path().join("state");
    std::fs::create_dir(&state).unwrap();
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).unwrap();
    let book = state.join("book.json");
    let file = BookFile::new(&book);
    let (token_id, secret) = file
        .update(|b| {
            b.issue(
                ClientName::parse("socket-test").unwrap(),
                Scope::full_lifecycle(ToolScope::All),
                Duration::from_secs(3600),
                devint::time::UnixSecs::from_system_time(std::time::SystemTime::now()),
            )
        })
        .unwrap();
    let token = secret.expose_secret_hex().to_string();
    let shared = Arc::new(SharedBook::open(BookFile::new(&book)).unwrap());
    let audit = Arc::new(MemoryAuditSink::new());
    let sink: Arc<dyn AuditSink> = match also {
        Some(also) => Arc::new(FanoutSink::new(vec![audit.clone(), also])),
        None => audit.clone(),
    };
    let server = Arc::new(
        Server::builder(shared, backend, sink)
            .limits(limits)
            .build(),
    );
    let socket = dir.path().join("run").join("devint.sock");
    let bound = bind_secure(&socket).unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let serving = Arc::clone(&server);
    let task = tokio::spawn(async move {
        serving
            .serve(bound, async {
                let _ = rx.await;
            })
            .await
            .unwrap();
    });
    Running {
        dir,
        socket,
        book,
        token,
        token_id,
        audit,
        server,
        stop: Some(tx),
        task: Some(task),
    }
}

impl Running {
    pub fn secret(&self) -> TokenSecret {
        TokenSecret::parse(&self.token).unwrap()
    }

    pub async fn negotiate(&self) -> NegotiatedClient {
        guarded(
            "connect",
            DevIntClient::connect(&self.socket, "socket-test", "0.0.0"),
        )
        .await
        .unwrap()
    }

    /// A raw connection that has negotiated version 5.
    pub async fn raw_negotiated(&self) -> Raw {
        let mut raw = Raw::connect(&self.socket).await;
        raw.hello(vec![5]).await;
        raw
    }

    pub fn audited(&self, want: impl Fn(&AuditKind) -> bool) -> bool {
        self.audit.events().iter().any(|e| want(&e.kind))
    }

    pub async fn wait_audited(&self, what: &str, want: impl Fn(&AuditKind) -> bool) {
        wait_until(what, || self.audited(&want)).await
    }

    pub async fn shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            guarded("shutdown", task).await.unwrap();
        }
    }
}

/// A server on a plain counting backend.
pub fn start_counting(limits: Limits) -> Running {
    start(Arc::new(CountingBackend::default()), limits)
}

pub fn limits() -> Limits {
    Limits {
        shutdown_grace: Duration::from_secs(10),
        ..Limits::default()
    }
}

pub fn tool(id: &str) -> ToolId {
    ToolId::parse(id).unwrap()
}

/// A raw connection speaking frames by hand.
pub struct Raw {
    pub stream: UnixStream,
    pub decoder: Decoder<ServerToClient>,
    pub pending: Vec<u8>,
}

impl Raw {
    pub async fn connect(path: &Path) -> Raw {
        Raw {
            stream: UnixStream::connect(path).await.unwrap(),
            decoder: Decoder::new(),
            pending: Vec::new(),
        }
    }

    pub async fn send(&mut self, frames: &[ClientFrame]) {
        let mut bytes = Vec::new();
        for f in frames {
            bytes.extend(encode(f).unwrap());
        }
        // All frames in one write: the server sees them pipelined.
        self.stream.write_all(&bytes).await.unwrap();
    }

    pub async fn hello(&mut self, versions: Vec<u32>) -> pb::HelloAck {
        self.send(&[ClientFrame::Hello(pb::Hello {
            client_name: "raw".into(),
            client_version: "0".into(),
            di_api_versions: versions,
            lifecycle_schema_versions: vec![1],
        })])
        .await;
        match self.recv().await {
            Some(ServerFrame::HelloAck(ack)) => ack,
            other => panic!("expected HelloAck, got {other:?}"),
        }
    }

    /// The next frame, or `None` at end of stream (or a reset).
    pub async fn recv(&mut self) -> Option<ServerFrame> {
        guarded("recv", async {
            let mut buf = [0u8; 8192];
            loop {
                let mut input = &self.pending[..];
                let decoded = self.decoder.decode(&mut input).unwrap();
                let consumed = self.pending.len() - input.len();
                self.pending.drain(..consumed);
                if let Some(frame) = decoded {
                    return Some(frame);
                }
                match self.stream.read(&mut buf).await {
                    Ok(0) | Err(_) => return None,
                    Ok(n) => self.pending.extend_from_slice(&buf[..n]),
                }
            }
        })
        .await
    }

    /// Read frames until the server closes; returns what arrived first.
    pub async fn until_closed(&mut self) -> Vec<ServerFrame> {
        let mut frames = Vec::new();
        while let Some(f) = self.recv().await {
            frames.push(f);
        }
        frames
    }
}

pub fn request(call: &VerbCall, id: u64, token: &str) -> ClientFrame {
    ClientFrame::Request(call.to_request(id, token))
}

pub fn status_of(id: &str) -> VerbCall {
    VerbCall::Status { tool: tool(id) }
}

pub fn answered_id(frame: &ServerFrame) -> u64 {
    match frame {
        ServerFrame::Response(r) => r.request_id,
        ServerFrame::Denied(d) => d.request_id,
        other => panic!("expected an answer, got {other:?}"),
    }
}

pub fn assert_unauthenticated(err: &ClientIoError) {
    assert!(
        matches!(
            err,
            ClientIoError::Session(ClientError::Denied {
                code: pb::DenyCode::Unauthenticated,
                ..
            })
        ),
        "{err:?}"
    );
}
