//! The sidecar's main loop: read lines, answer what needs no runtime at once, open sessions
//! in their own tasks, queue session calls on their sessions, and at the end of input close
//! every session and return.
//!
//! This module owns the protocol's lifecycle: `initialize` first (once), the session
//! registry and its bound, and the end — stdin EOF stops reading, every session answers what
//! was already sent to it and closes, every follow ends with a notification, the output is
//! flushed, and [`serve`] returns `Ok` (exit 0). It must never execute a notification, never
//! answer a request twice or not at all, and never block the reader on a runtime (sessions
//! and openings run in their own tasks).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Map, Value};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::task::JoinSet;

use crate::config::Options;
use crate::error::{ErrorKind, SidecarError};
use crate::framing::{Frame, LineReader, MAX_LINE_BYTES};
use crate::method::{Method, EVENTS_EVENT, PROTOCOL};
use crate::outbox::Outbox;
use crate::params::{self, DiscoverParams, InitializeParams, OpenParams, SessionCall};
use crate::rpc::{bounded, parse_line, Incoming, RequestId};
use crate::session::{self, Job, SessionHandle};

/// Open sessions by id, and how many are still opening.
#[derive(Debug, Default)]
struct Registry {
    sessions: HashMap<String, SessionHandle>,
    opening: usize,
    next_id: u64,
    /// Input ended: sessions that finish opening now are closed at once.
    closed: bool,
}

type SharedRegistry = Arc<Mutex<Registry>>;

fn lock(registry: &SharedRegistry) -> std::sync::MutexGuard<'_, Registry> {
    // A panic while holding the lock leaves plain data behind: keep serving.
    registry.lock().unwrap_or_else(|p| p.into_inner())
}

/// What failed when the sidecar could not go on.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Reading the host's input failed.
    #[error("cannot read the sidecar's input: {0}")]
    Input(std::io::Error),
    /// Writing to the host failed (it closed its end).
    #[error("cannot write the sidecar's output: {0}")]
    Output(std::io::Error),
}

/// Serve `devint.sidecar.v1` on `input`/`output` until `input` ends.
pub async fn serve<R, W>(input: R, output: W, options: Options) -> Result<(), ServeError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, writer) = Outbox::new(output);
    let writer = tokio::spawn(writer);
    let mut dispatcher = Dispatcher {
        options: Arc::new(options),
        out,
        registry: SharedRegistry::default(),
        tasks: JoinSet::new(),
        initialized: false,
    };
    let mut reader = LineReader::new(input);
    let read_result = loop {
        match reader.next().await {
            Ok(Some(frame)) => {
                if !dispatcher.frame(frame).await {
                    break Ok(());
                }
            }
            Ok(None) => break Ok(()),
            Err(e) => break Err(ServeError::Input(e)),
        }
    };
    dispatcher.finish().await;
    let written = writer
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())));
    read_result?;
    written.map_err(ServeError::Output)
}

/// Serve `devint.sidecar.v1` on this process's stdin and stdout until stdin ends.
pub async fn serve_stdio(options: Options) -> Result<(), ServeError> {
    serve(tokio::io::stdin(), tokio::io::stdout(), options).await
}

struct Dispatcher {
    options: Arc<Options>,
    out: Outbox,
    registry: SharedRegistry,
    tasks: JoinSet<()>,
    initialized: bool,
}

impl Dispatcher {
    /// Handle one frame; false when the host is gone (output closed).
    async fn frame(&mut self, frame: Frame) -> bool {
        // Reap finished session tasks so the set stays as small as what is running.
        while self.tasks.try_join_next().is_some() {}
        match frame {
            Frame::Oversize { len } => {
                let error = SidecarError::new(
                    ErrorKind::LineTooLong,
                    format!(
                        "a line of {len} bytes is over the {MAX_LINE_BYTES}-byte cap; it was \
                         skipped unread"
                    ),
                )
                .fix("send each request as one line of at most 1 MiB");
                self.out.error(None, &error).await
            }
            Frame::Line(line) => match parse_line(&line) {
                Ok(Incoming::Blank) => true,
                Ok(Incoming::Notification { method }) => {
                    tracing::warn!(
                        method = %method,
                        "ignored a notification: devint.sidecar.v1 executes only requests \
                         (with an id), whose outcome it can report"
                    );
                    true
                }
                Ok(Incoming::Request { id, method, params }) => {
                    self.request(id, &method, params).await
                }
                Err(rejected) => self.out.error(rejected.id.as_ref(), &rejected.error).await,
            },
        }
    }

    async fn request(&mut self, id: RequestId, name: &str, params: Map<String, Value>) -> bool {
        let Some(method) = Method::parse(name) else {
            let error = SidecarError::new(
                ErrorKind::MethodNotFound,
                format!("devint.sidecar.v1 has no method `{}`", bounded(name)),
            )
            .fix("call one of the methods `initialize` lists");
            return self.out.error(Some(&id), &error).await;
        };
        match self.route(&id, method, params).await {
            Ok(Some(result)) => self.out.result(&id, result).await,
            Ok(None) => true,
            Err(error) => self.out.error(Some(&id), &error).await,
        }
    }

    /// Answer now (`Some`), or hand the request to a task that answers it (`None`).
    async fn route(
        &mut self,
        id: &RequestId,
        method: Method,
        mut params: Map<String, Value>,
    ) -> Result<Option<Value>, SidecarError> {
        if method == Method::Initialize {
            return self.initialize(params).map(Some);
        }
        if !self.initialized {
            return Err(SidecarError::new(
                ErrorKind::NotInitialized,
                format!("{} before initialize", method.name()),
            )
            .fix("call initialize first and check its protocol"));
        }
        match method {
            Method::Initialize => unreachable!("answered above"),
            Method::RuntimeDiscover => {
                let p: DiscoverParams = params::read(method, params)?;
                session::discover(p, &self.options).map(Some)
            }
            Method::SessionOpen => {
                let p: OpenParams = params::read(method, params)?;
                self.open(id.clone(), p)?;
                Ok(None)
            }
            Method::SessionClose
            | Method::ToolsList
            | Method::LifecyclePlan
            | Method::LifecycleApply
            | Method::LifecycleStatus
            | Method::LifecycleVerify
            | Method::LifecycleRepair
            | Method::LifecycleRemove
            | Method::EventsFollow
            | Method::ApprovalRelay => {
                let session_id = params::take_session_id(method, &mut params)?;
                // A refused request naming an open session keeps its place in that
                // session's order: it is answered by the session, after what came before.
                let call = params::session_call(method, params)
                    .unwrap_or_else(|error| SessionCall::Refuse(Box::new(error)));
                self.queue(
                    session_id,
                    Job {
                        id: id.clone(),
                        call,
                    },
                )?;
                Ok(None)
            }
        }
    }

    fn initialize(&mut self, params: Map<String, Value>) -> Result<Value, SidecarError> {
        if self.initialized {
            return Err(SidecarError::new(
                ErrorKind::NotInitialized,
                "initialize was already called",
            )
            .fix("call initialize once per sidecar process"));
        }
        let p: InitializeParams = params::read(Method::Initialize, params)?;
        p.check_protocol()?;
        tracing::debug!(
            host = %bounded(p.client_name.as_deref().unwrap_or("")),
            version = %bounded(p.client_version.as_deref().unwrap_or("")),
            "host initialized"
        );
        self.initialized = true;
        Ok(initialize_result(&self.options))
    }

    fn open(&mut self, id: RequestId, params: OpenParams) -> Result<(), SidecarError> {
        {
            let mut registry = lock(&self.registry);
            if registry.sessions.len() + registry.opening >= self.options.max_sessions {
                return Err(SidecarError::new(
                    ErrorKind::Limit,
                    format!("{} sessions are open or opening", self.options.max_sessions),
                )
                .fix("close a session first"));
            }
            registry.opening += 1;
        }
        let (options, registry, out) = (
            Arc::clone(&self.options),
            Arc::clone(&self.registry),
            self.out.clone(),
        );
        self.tasks.spawn(async move {
            let opened = session::open(params, &options).await;
            let registered = register(&registry, opened, &out, &options);
            match registered {
                Err(error) => {
                    out.error(Some(&id), &error).await;
                }
                Ok((result, task)) => {
                    out.result(&id, result).await;
                    let _ = task.await;
                }
            }
        });
        Ok(())
    }

    fn queue(&mut self, session_id: String, job: Job) -> Result<(), SidecarError> {
        let mut registry = lock(&self.registry);
        let unknown = || {
            SidecarError::new(
                ErrorKind::UnknownSession,
                format!("no open session is called `{}`", bounded(&session_id)),
            )
            .fix("pass the session_id session/open returned; a closed session stays closed")
        };
        let closing = matches!(job.call, SessionCall::Close);
        let handle = registry.sessions.get(&session_id).ok_or_else(unknown)?;
        handle.queue(job)?;
        if closing {
            // Later calls naming it are refused; the queue answers what came before.
            registry.sessions.remove(&session_id);
        }
        Ok(())
    }

    /// The input ended: close every session after what it was sent, wait for every task.
    async fn finish(mut self) {
        let handles: Vec<SessionHandle> = {
            let mut registry = lock(&self.registry);
            registry.closed = true;
            registry.sessions.drain().map(|(_, h)| h).collect()
        };
        drop(handles);
        while self.tasks.join_next().await.is_some() {}
    }
}

/// Count an opening as finished and, when it succeeded, start and register its session:
/// registered before the answer goes out, so the host's next call finds it. After the input
/// ended nobody can call it, so it is not registered and its handle is dropped (closing it).
fn register(
    registry: &SharedRegistry,
    opened: Result<session::Opened, SidecarError>,
    out: &Outbox,
    options: &Options,
) -> Result<(Value, tokio::task::JoinHandle<()>), SidecarError> {
    let mut reg = lock(registry);
    reg.opening -= 1;
    let opened = opened?;
    reg.next_id += 1;
    let session_id = format!("s-{}", reg.next_id);
    let mut result = opened.result.clone();
    if let Value::Object(fields) = &mut result {
        fields.extend(params::session_keys(&session_id));
    }
    let (handle, task) = SessionHandle::spawn(
        session_id.clone(),
        opened,
        out.clone(),
        options.max_pending_per_session,
        options.max_follows_per_session,
    );
    if !reg.closed {
        reg.sessions.insert(session_id, handle);
    }
    Ok((result, task))
}

/// The `initialize` result.
fn initialize_result(options: &Options) -> Value {
    let build = devint::provenance::BuildIdentity::compiled();
    json!({
        "protocol": PROTOCOL,
        "sidecar_version": env!("CARGO_PKG_VERSION"),
        "di_api": {
            "min_supported": devint::version::MIN_SUPPORTED,
            "max_supported": devint::version::MAX_SUPPORTED,
            "lifecycle_schema_version": devint::version::LIFECYCLE_SCHEMA_VERSION,
        },
        "build": {
            "core_version": build.core_version,
            "build_sha": build.sha,
            "build_id_source": build.source.token(),
        },
        "limits": {
            "max_line_bytes": MAX_LINE_BYTES,
            "max_sessions": options.max_sessions,
            "max_pending_per_session": options.max_pending_per_session,
            "max_follows_per_session": options.max_follows_per_session,
        },
        "methods": Method::ALL.iter().map(|m| m.name()).collect::<Vec<_>>(),
        "notifications": [EVENTS_EVENT],
    })
}
