//! Shared harness for the sidecar's tests: a real DI-API runtime (the devint-net server over
//! a test backend) on a socket in a private `/tmp` directory with an enrolled token file, and
//! a host that drives an in-process sidecar over pipes, line by line, keeping a transcript.
#![allow(dead_code)]

pub mod backend;
pub mod schema;

use std::collections::VecDeque;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use devint::audit::MemoryAuditSink;
use devint::auth::{ClientName, Scope, ToolScope};
use devint::backend::Lifecycle;
use devint_net::book::{BookFile, SharedBook};
use devint_net::server::{ProvenanceFn, Server};
use devint_net::transport::bind_secure;
use devint_sidecar::{serve, Environment, Options, ServeError};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long any one message may take to arrive before a test fails.
pub const WAIT: Duration = Duration::from_secs(30);

/// The client name the test hosts open their sessions with, and the client the test runtime
/// enrols: its token file `h.token` beside the socket is a host's default (spec §7).
pub const HOST: &str = "h";

/// A runtime serving on a private socket, with one token enrolled for client [`HOST`] in
/// its own file beside the socket (the default place).
pub struct TestRuntime {
    pub dir: tempfile::TempDir,
    pub socket: PathBuf,
    pub token_file: PathBuf,
    pub token_hex: String,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl TestRuntime {
    /// Serve `backend` for a token of `scope`.
    pub async fn start(backend: Arc<dyn Lifecycle>, scope: Scope) -> TestRuntime {
        TestRuntime::start_with(backend, scope, None).await
    }

    /// As [`TestRuntime::start`], with the runtime's provenance replaced.
    pub async fn start_with(
        backend: Arc<dyn Lifecycle>,
        scope: Scope,
        provenance: Option<Arc<ProvenanceFn>>,
    ) -> TestRuntime {
        let dir = tempfile::Builder::new()
            .prefix("dsc")
            .tempdir_in("/tmp")
            .expect("temp dir");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))
            .expect("a private directory");
        let socket = dir.path().join("devint.sock");
        let token_file = dir.path().join(format!("{HOST}.token"));
        let book = BookFile::new(dir.path().join("book.json"));
        let (_, secret) = book
            .update(|b| {
                b.issue(
                    ClientName::parse(HOST).unwrap(),
                    scope,
                    Duration::from_secs(3600),
                    devint::time::UnixSecs::from_system_time(std::time::SystemTime::now()),
                )
            })
            .expect("issue a token");
        devint_net::token_file::write_token_file(&token_file, &secret).expect("token file");
        let token_hex = secret.expose_secret_hex().to_string();
        let mut builder = Server::builder(
            Arc::new(SharedBook::open(book).expect("book")),
            backend,
            Arc::new(MemoryAuditSink::new()),
        );
        if let Some(p) = provenance {
            builder = builder.provenance(p);
        }
        let server = builder.build();
        let bound = bind_secure(&socket).expect("bind");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = server
                .serve(bound, async {
                    let _ = stopped.await;
                })
                .await;
        });
        TestRuntime {
            dir,
            socket,
            token_file,
            token_hex,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// A runtime over the scripted backend with a full-lifecycle token for every tool.
    pub async fn scripted() -> (TestRuntime, backend::Events) {
        let (b, events) = backend::ScriptedBackend::new();
        let rt = TestRuntime::start(Arc::new(b), Scope::full_lifecycle(ToolScope::All)).await;
        (rt, events)
    }

    /// The sidecar's environment for this runtime: `AA_DEVINT_SOCKET` set, a private HOME.
    pub fn environment(&self) -> Environment {
        Environment {
            socket: Some(self.socket.display().to_string()),
            home: Some(self.dir.path().join("home")),
            token_file: None,
        }
    }

    /// Sidecar options for this runtime.
    pub fn options(&self) -> Options {
        Options {
            environment: self.environment(),
            ..Options::default()
        }
    }

    /// Stop serving and wait until the server is gone.
    pub async fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(WAIT, task).await;
        }
    }
}

/// Which way a transcript line went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Host → sidecar.
    In,
    /// Sidecar → host.
    Out,
}

/// A host driving an in-process sidecar over two pipes.
pub struct Host {
    input: Option<DuplexStream>,
    output: Lines<BufReader<ReadHalf<DuplexStream>>>,
    serving: Option<JoinHandle<Result<(), ServeError>>>,
    next_id: u64,
    /// Messages read while waiting for another: responses by id, and notifications.
    stash: VecDeque<Value>,
    /// Every line, both ways, in order.
    pub transcript: Vec<(Direction, String)>,
}

impl Host {
    /// Start a sidecar with `options`.
    pub fn spawn(options: Options) -> Host {
        let (host_in, sidecar_in) = tokio::io::duplex(1 << 16);
        let (sidecar_out, host_out) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(serve(sidecar_in, sidecar_out, options));
        let (read, _write) = tokio::io::split(host_out);
        Host {
            input: Some(host_in),
            output: BufReader::new(read).lines(),
            serving: Some(serving),
            next_id: 0,
            stash: VecDeque::new(),
            transcript: Vec::new(),
        }
    }

    /// Write raw bytes to the sidecar's stdin.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.input
            .as_mut()
            .expect("input open")
            .write_all(bytes)
            .await
            .expect("the sidecar reads its input");
    }

    /// Write one line.
    pub async fn send_line(&mut self, line: &str) {
        self.transcript.push((Direction::In, line.to_owned()));
        self.send_raw(format!("{line}\n").as_bytes()).await;
    }

    /// Send a request with a fresh integer id; returns the id.
    pub async fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let line =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        self.send_line(&line.to_string()).await;
        self.next_id
    }

    /// The next line from the sidecar, as JSON (`None` at its end of output).
    pub async fn read(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(WAIT, self.output.next_line())
            .await
            .expect("the sidecar answers in time")
            .expect("readable output")?;
        self.transcript.push((Direction::Out, line.clone()));
        Some(serde_json::from_str(&line).expect("every output line is JSON"))
    }

    /// The next message: stashed first, then read.
    pub async fn next_message(&mut self) -> Value {
        match self.stash.pop_front() {
            Some(v) => v,
            None => self.read().await.expect("a message"),
        }
    }

    /// The response to request `id` (notifications and other responses are stashed).
    pub async fn response(&mut self, id: u64) -> Value {
        if let Some(at) = self.stash.iter().position(|m| m["id"] == json!(id)) {
            return self.stash.remove(at).unwrap();
        }
        loop {
            let m = self
                .read()
                .await
                .expect("a response before the end of output");
            if m["id"] == json!(id) {
                return m;
            }
            self.stash.push_back(m);
        }
    }

    /// Call `method`; the result, or the error object.
    pub async fn call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.send(method, params).await;
        let m = self.response(id).await;
        match (m.get("result"), m.get("error")) {
            (Some(r), None) => Ok(r.clone()),
            (None, Some(e)) => Err(e.clone()),
            _ => panic!("a response has exactly one of result and error: {m}"),
        }
    }

    /// The next notification (stashed first).
    pub async fn notification(&mut self) -> Value {
        if let Some(at) = self.stash.iter().position(|m| m.get("id").is_none()) {
            return self.stash.remove(at).unwrap();
        }
        loop {
            let m = self
                .read()
                .await
                .expect("a notification before the end of output");
            if m.get("id").is_none() {
                return m;
            }
            self.stash.push_back(m);
        }
    }

    /// `initialize`, checked.
    pub async fn initialize(&mut self) -> Value {
        let r = self
            .call(
                "initialize",
                json!({"client_name": "h", "client_version": "1"}),
            )
            .await
            .expect("initialize succeeds");
        assert_eq!(r["protocol"], "devint.sidecar.v1");
        r
    }

    /// `session/open` with the default token file; the session id.
    pub async fn open(&mut self) -> String {
        let r = self
            .call(
                "session/open",
                json!({"client_name": "h", "client_version": "1"}),
            )
            .await
            .unwrap_or_else(|e| panic!("session/open failed: {e}"));
        r["session_id"].as_str().expect("a session_id").to_owned()
    }

    /// Close the sidecar's stdin; every remaining line, then how `serve` ended.
    pub async fn end_input(&mut self) -> (Vec<Value>, Result<(), ServeError>) {
        drop(self.input.take());
        let mut rest: Vec<Value> = self.stash.drain(..).collect();
        while let Some(m) = self.read().await {
            rest.push(m);
        }
        let served = tokio::time::timeout(WAIT, self.serving.take().expect("serving"))
            .await
            .expect("serve returns after the end of input")
            .expect("serve did not panic");
        (rest, served)
    }
}

/// An error object's `data.kind`, `data.exit` and `data.deny_code`.
pub fn kind_exit_deny(error: &Value) -> (String, u64, Value) {
    (
        error["data"]["kind"].as_str().unwrap_or("?").to_owned(),
        error["data"]["exit"].as_u64().unwrap_or(99),
        error["data"]["deny_code"].clone(),
    )
}
