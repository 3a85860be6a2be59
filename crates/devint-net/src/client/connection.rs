//! The connected client in its two typed states.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

use crate::transport::{DiscoveryError, SocketDiscovery, MAX_SOCKET_PATH_BYTES};
use devint::auth::TokenSecret;
use devint::session;
use devint::session::client::{Client, ClientError, OutgoingRequest, PendingCall};
use devint::time::UnixSecs;
use devint::verbs::{
    ApplyView, ApprovalId, ApprovalRelayAck, PlanArgs, PlanId, PlanView, RemovalView, RepairView,
    ScopedEventList, StatusView, ToolId, ToolList, UserInput, VerbCall, VerbResult,
    VerificationView,
};
use devint::version::{ApiVersion, MAX_SUPPORTED, MIN_SUPPORTED};
use devint::wire::{encode, pb, ClientFrame, Decoder, ServerFrame, ServerToClient};

use super::error::{ClientIoError, Stage};

/// Timeouts and the versions offered.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// DI-API versions offered in `Hello` (default: the whole window, 1..=5).
    pub versions: Vec<u32>,
    /// Time to connect.
    pub connect_timeout: Duration,
    /// Time to get `HelloAck`.
    pub handshake_timeout: Duration,
    /// Time to get each call's answer.
    pub call_timeout: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            versions: (MIN_SUPPORTED.get()..=MAX_SUPPORTED.get()).collect(),
            connect_timeout: Duration::from_secs(2),
            handshake_timeout: Duration::from_secs(5),
            call_timeout: Duration::from_secs(120),
        }
    }
}

/// Entry points: discovery and connection.
pub struct DevIntClient;

/// A connection whose version is negotiated; it can report versions, degradation and
/// provenance, and cannot call a verb.
pub struct NegotiatedClient {
    io: FramedStream,
    core: Client<session::client::Negotiated>,
    options: ClientOptions,
    path: PathBuf,
}

/// A connection holding a capability token: one async method per verb.
pub struct AuthorizedClient {
    io: FramedStream,
    core: Client<session::client::Authorized>,
    options: ClientOptions,
    path: PathBuf,
}

struct FramedStream {
    stream: UnixStream,
    decoder: Decoder<ServerToClient>,
    buf: Vec<u8>,
    pending: Vec<u8>,
}

impl FramedStream {
    async fn send(&mut self, frame: &ClientFrame) -> Result<(), ClientIoError> {
        let bytes = encode(frame)?;
        self.write_frame(&bytes).await
    }

    /// Send a request: its bytes hold the capability token and are wiped once written
    /// (the request itself wipes its token field when dropped).
    async fn send_request(&mut self, request: &OutgoingRequest) -> Result<(), ClientIoError> {
        let bytes = request.encode()?;
        self.write_frame(&bytes).await
    }

    async fn write_frame(&mut self, bytes: &[u8]) -> Result<(), ClientIoError> {
        // spec[S2-SINGLE-WRITE] §2: the whole frame in one write.
        self.stream.write_all(bytes).await.map_err(unsent_or_io)?;
        Ok(())
    }

    async fn recv(&mut self) -> Result<ServerFrame, ClientIoError> {
        loop {
            if !self.pending.is_empty() {
                let mut input = &self.pending[..];
                let decoded = self.decoder.decode(&mut input)?;
                let consumed = self.pending.len() - input.len();
                self.pending.drain(..consumed);
                if let Some(frame) = decoded {
                    return Ok(frame);
                }
            }
            let n = self
                .stream
                .read(&mut self.buf)
                .await
                .map_err(closed_or_io)?;
            if n == 0 {
                return Err(ClientIoError::ClosedMidCall);
            }
            self.pending.extend_from_slice(&self.buf[..n]);
        }
    }
}

impl DevIntClient {
    /// Where the runtime's socket is (`AA_DEVINT_SOCKET`, else `$HOME/.aa/run/devint.sock`)
    /// and whether it exists. Absent means "not running": never retry in a loop.
    pub fn discover() -> Result<SocketDiscovery, ClientIoError> {
        Ok(crate::transport::discover_from_env()?)
    }

    /// Connect to `path` and negotiate, offering the whole window.
    pub async fn connect(
        path: &Path,
        client_name: &str,
        client_version: &str,
    ) -> Result<NegotiatedClient, ClientIoError> {
        DevIntClient::connect_with(path, client_name, client_version, ClientOptions::default())
            .await
    }

    /// Connect with explicit options.
    pub async fn connect_with(
        path: &Path,
        client_name: &str,
        client_version: &str,
        options: ClientOptions,
    ) -> Result<NegotiatedClient, ClientIoError> {
        let len = path.as_os_str().len();
        if len > MAX_SOCKET_PATH_BYTES {
            return Err(ClientIoError::Discovery(DiscoveryError::TooLong {
                path: path.into(),
                len,
                max: MAX_SOCKET_PATH_BYTES,
            }));
        }
        let stream =
            match tokio::time::timeout(options.connect_timeout, UnixStream::connect(path)).await {
                Err(_) => return Err(ClientIoError::Timeout(Stage::Connect)),
                Ok(Err(e)) if is_absent(&e) => {
                    // A connect to a regular file is refused as a dead socket would be: tell
                    // "nothing listens" from "nothing can listen here".
                    return Err(match SocketDiscovery::at(path.into()) {
                        Err(e @ DiscoveryError::NotASocket(_)) => ClientIoError::Discovery(e),
                        _ => ClientIoError::NotRunning(path.into()),
                    });
                }
                Ok(Err(source)) => {
                    return Err(ClientIoError::Connect {
                        path: path.into(),
                        source,
                    })
                }
                Ok(Ok(s)) => s,
            };
        let mut io = FramedStream {
            stream,
            decoder: Decoder::new(),
            buf: vec![0; 8 * 1024],
            pending: Vec::new(),
        };
        let core = Client::with_versions(client_name, client_version, options.versions.clone());
        let (awaiting, hello) = core.hello();
        let answer = tokio::time::timeout(options.handshake_timeout, async {
            io.send(&ClientFrame::Hello(hello)).await?;
            io.recv().await
        })
        .await
        .map_err(|_| ClientIoError::Timeout(Stage::Handshake))??;
        let core = awaiting.on_frame(answer)?;
        Ok(NegotiatedClient {
            io,
            core,
            options,
            path: path.into(),
        })
    }
}

/// A write the OS refused because the peer had closed the connection, or had stopped
/// reading it (a runtime handing its socket over shuts each connection for reading, so a
/// write after that fails at once, `EPIPE`): the frame never reached the runtime. A frame
/// partly written before that is never read whole, so never acted on either.
fn unsent_or_io(e: std::io::Error) -> ClientIoError {
    match e.kind() {
        std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe => {
            ClientIoError::ClosedBeforeSending
        }
        _ => ClientIoError::Io(e),
    }
}

/// A peer that went away (reset, broken pipe) is the same typed error as a clean close,
/// whichever of the two the OS happens to report.
fn closed_or_io(e: std::io::Error) -> ClientIoError {
    match e.kind() {
        std::io::ErrorKind::ConnectionReset
        | std::io::ErrorKind::BrokenPipe
        | std::io::ErrorKind::UnexpectedEof => ClientIoError::ClosedMidCall,
        _ => ClientIoError::Io(e),
    }
}

fn is_absent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
    )
}

impl NegotiatedClient {
    /// The negotiated DI-API version.
    pub fn version(&self) -> ApiVersion {
        self.core.version()
    }
    /// The whole `HelloAck`.
    pub fn ack(&self) -> &pb::HelloAck {
        self.core.ack()
    }
    /// Whether the runtime reported `DEGRADED`.
    pub fn is_degraded(&self) -> bool {
        self.core.is_degraded()
    }
    /// The runtime's provenance (present iff version ≥ 4).
    pub fn provenance(&self) -> Option<&pb::RuntimeProvenance> {
        self.core.provenance()
    }
    /// The socket this client is connected to.
    pub fn socket_path(&self) -> &Path {
        &self.path
    }
    /// The runtime's provenance standing (spec §8): scans the socket's directory once and
    /// assesses the `HelloAck` provenance against this build ([`super::assess_standing`]).
    pub fn standing(&self) -> devint::provenance::Standing {
        super::assess_standing(&self.path, self.provenance())
    }
    /// Hold `token` for every request.
    pub fn authorize(self, token: TokenSecret) -> AuthorizedClient {
        AuthorizedClient {
            io: self.io,
            core: self.core.authorize(token),
            options: self.options,
            path: self.path,
        }
    }
}

/// A verb's view, as [`AuthorizedClient::call_for`] returns it: the answer of one verb.
pub trait VerbAnswer: Sized {
    /// The view `result` holds, or a protocol error naming what came instead.
    fn from_result(result: VerbResult) -> Result<Self, ClientIoError>;
}

macro_rules! verb_answer {
    ($($view:ty => $variant:ident),* $(,)?) => {$(
        impl VerbAnswer for $view {
            fn from_result(result: VerbResult) -> Result<Self, ClientIoError> {
                match result {
                    VerbResult::$variant(view) => Ok(view),
                    other => Err(ClientIoError::Session(ClientError::Protocol(format!(
                        "expected a {} view, got {}",
                        stringify!($variant),
                        other.verb()
                    )))),
                }
            }
        }
    )*};
}

verb_answer! {
    ToolList => ListTools,
    PlanView => Plan,
    ApplyView => Apply,
    StatusView => Status,
    VerificationView => Verify,
    RepairView => Repair,
    RemovalView => Remove,
    ScopedEventList => ScopedEvents,
    ApprovalRelayAck => ApprovalRelay,
}

macro_rules! verb_method {
    ($(#[$doc:meta])* $name:ident ( $($arg:ident : $ty:ty),* ) -> $view:ty, $call:expr) => {
        $(#[$doc])*
        pub async fn $name(&mut self, $($arg: $ty),*) -> Result<$view, ClientIoError> {
            self.call_for($call).await
        }
    };
}

impl AuthorizedClient {
    /// The negotiated DI-API version.
    pub fn version(&self) -> ApiVersion {
        self.core.version()
    }
    /// The `HelloAck` the connection was negotiated with.
    pub fn ack(&self) -> &pb::HelloAck {
        self.core.ack()
    }
    /// The socket this client is connected to.
    pub fn socket_path(&self) -> &Path {
        &self.path
    }

    /// Send `call` and wait for its answer. A verb unavailable at the negotiated version
    /// fails here without a round trip.
    pub async fn call(&mut self, call: VerbCall) -> Result<VerbResult, ClientIoError> {
        let (pending, request): (PendingCall, OutgoingRequest) = self.core.request(&call)?;
        let io = &mut self.io;
        let frame = tokio::time::timeout(self.options.call_timeout, async {
            io.send_request(&request).await?;
            drop(request);
            io.recv().await
        })
        .await
        .map_err(|_| ClientIoError::Timeout(Stage::Call))??;
        Ok(self.core.on_frame(pending, frame)?)
    }

    /// [`AuthorizedClient::call`], read as the view `A` of the call's verb.
    pub async fn call_for<A: VerbAnswer>(&mut self, call: VerbCall) -> Result<A, ClientIoError> {
        A::from_result(self.call(call).await?)
    }

    verb_method!(/// `list_tools`.
        list_tools() -> ToolList, VerbCall::ListTools);
    verb_method!(/// `plan`.
        plan(tool: ToolId, args: PlanArgs) -> PlanView, VerbCall::Plan { tool, args });
    verb_method!(/// `apply`.
        apply(tool: ToolId, plan_id: PlanId) -> ApplyView, VerbCall::Apply { tool, plan_id });
    verb_method!(/// `status`.
        status(tool: ToolId) -> StatusView, VerbCall::Status { tool });
    verb_method!(/// `verify`.
        verify(tool: ToolId) -> VerificationView, VerbCall::Verify { tool });
    verb_method!(/// `repair`.
        repair(tool: ToolId) -> RepairView, VerbCall::Repair { tool });
    verb_method!(/// `remove` (no plan id: preview a removal plan).
        remove(tool: ToolId, plan_id: Option<PlanId>) -> RemovalView, VerbCall::Remove { tool, plan_id });
    verb_method!(/// `scoped_events` (v2+).
        scoped_events(tool: ToolId, limit: u32, since: UnixSecs) -> ScopedEventList, VerbCall::ScopedEvents { tool, limit, since });
    verb_method!(/// `approval_relay` (v2+).
        approval_relay(tool: ToolId, approval_id: ApprovalId, input: UserInput) -> ApprovalRelayAck, VerbCall::ApprovalRelay { tool, approval_id, input });
}
