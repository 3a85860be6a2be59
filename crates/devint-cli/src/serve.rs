//! `devint serve`: the runtime. Binds the socket securely, serves the DI-API over the
//! enrolment book, the backend and the audit log kept under one state directory, and shuts
//! down gracefully on SIGINT or SIGTERM.
//!
//! A binary whose whole purpose is to serve is itself the explicit opt-in (spec §1), so
//! `AA_DEVINT_ENABLED` is not consulted. This module must never repair a socket directory's
//! permissions or remove a live runtime's socket (the transport refuses both, and we pass
//! its message on).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use devint::audit::{AuditSink, FanoutSink, TracingAuditSink};
use devint::backend::Lifecycle;
use devint_net::audit_log::JsonLinesAuditLog;
use devint_net::book::{BookFile, SharedBook};
use devint_net::server::Server;
use devint_net::transport::{bind_secure, BoundSocket};
use devint_runtime::reference::PolicyUrl;

use crate::backend::{open_backend, BackendSite};
use crate::exit::{CliError, Exit};
use crate::state::{StateDir, StateLock};

/// `devint serve`'s own arguments (`--socket` and `--state-dir` are global).
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// The project directory `--scope project` plans act on (never inferred).
    #[arg(long)]
    pub project_dir: Option<PathBuf>,
    /// The gateway base URL the built-in policy profiles route model traffic to (an
    /// absolute http:// or https:// URL without credentials).
    #[arg(
        long,
        value_name = "URL",
        env = "AA_DEVINT_GATEWAY_URL",
        hide_env_values = true
    )]
    pub gateway_url: Option<String>,
    /// How long a plan stays appliable after `devint plan` made it (`15m`, `1h`, `90s`; at
    /// most a day). An expired plan is refused and must be reviewed again.
    #[arg(long, value_name = "DURATION", default_value = "15m", value_parser = crate::args::plan_ttl())]
    pub plan_ttl: std::time::Duration,
}

/// A runtime ready to serve: bound socket, server, and the state directory's lock.
pub struct Runtime {
    /// The server.
    pub server: Server,
    /// The bound socket.
    pub socket: BoundSocket,
    /// Whether no client is enrolled yet.
    pub nobody_enrolled: bool,
    /// The state directory's lock, held while this value lives.
    _lock: StateLock,
}

/// Build a runtime on `socket` over the state in `state` and the host in `site`.
///
/// The socket is bound first, so "another runtime is serving at PATH" is the message a
/// second `serve` on the same path sees; then the state directory is locked, so two
/// runtimes never share one audit chain, book writer or journal.
pub fn prepare(socket: &Path, state: &StateDir, site: &BackendSite) -> Result<Runtime, CliError> {
    // spec §1: the transport refuses wrong modes/owners and a live runtime at the path.
    let bound =
        bind_secure(socket).map_err(|e| CliError::internal(format!("cannot serve: {e}")))?;
    let lock = StateLock::acquire(state)?;
    let book = SharedBook::open(BookFile::new(state.book()))
        .map_err(|e| CliError::internal(format!("cannot load the enrolment book: {e}")))?;
    let nobody_enrolled = book.live().list().is_empty();
    let log = JsonLinesAuditLog::open(state.audit_log())
        .map_err(|e| CliError::internal(format!("cannot open the audit log: {e}")))?;
    let audit: Arc<dyn AuditSink> = Arc::new(FanoutSink::new(vec![
        Arc::new(log),
        Arc::new(TracingAuditSink),
    ]));
    let backend: Arc<dyn Lifecycle> = open_backend(site)
        .map_err(|e| CliError::internal(format!("cannot open the lifecycle backend: {e}")))?;
    let server = Server::builder(Arc::new(book), backend, audit).build();
    Ok(Runtime {
        server,
        socket: bound,
        nobody_enrolled,
        _lock: lock,
    })
}

/// The exact command that enrols a first client for this runtime.
pub fn enrol_command(socket: &Path, state: &StateDir) -> String {
    format!(
        "devint enrol --client cli --all-tools --verbs full --socket {} --state-dir {}",
        socket.display(),
        state.root().display()
    )
}

/// Install the SIGINT and SIGTERM handlers now (before anything says "serving", so a signal
/// sent right after can never hit the default action) and return the future that resolves
/// when either arrives.
fn shutdown_signal() -> Result<impl std::future::Future<Output = ()>, CliError> {
    use tokio::signal::unix::{signal, SignalKind};
    let install = |kind| {
        signal(kind)
            .map_err(|e| CliError::internal(format!("cannot install a signal handler: {e}")))
    };
    let mut interrupt = install(SignalKind::interrupt())?;
    let mut terminate = install(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        tracing::info!("shutdown requested");
    })
}

/// `--gateway-url` (or `AA_DEVINT_GATEWAY_URL`) checked by the runtime's one URL rule; a
/// refusal names the flag and what is wrong, never the value (it may hold a password).
fn gateway_url(given: Option<&str>) -> Result<Option<PolicyUrl>, CliError> {
    given.map(PolicyUrl::parse).transpose().map_err(|e| {
        CliError::usage(format!(
            "cannot serve: the gateway URL given by --gateway-url (or AA_DEVINT_GATEWAY_URL) {e}"
        ))
    })
}

/// Run `serve` until a signal.
pub async fn run(socket: &Path, state: &StateDir, args: &ServeArgs) -> Result<Exit, CliError> {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| {
            CliError::usage("HOME is not set; the runtime needs the home whose tools it integrates")
        })?;
    let site = BackendSite {
        state_dir: state.backend(),
        home,
        path_env: std::env::var("PATH").unwrap_or_default(),
        project_dir: args.project_dir.clone(),
        gateway_base_url: gateway_url(args.gateway_url.as_deref())?,
        plan_ttl: args.plan_ttl,
    };
    let shutdown = shutdown_signal()?;
    let runtime = prepare(socket, state, &site)?;
    // A closed stdout must not stop the runtime: what it prints is a courtesy.
    let say = |text: &str| {
        let _ = crate::output::write_stdout(text);
    };
    say(&format!("devint runtime serving on {}", socket.display()));
    say(&format!("  state directory: {}", state.devint().display()));
    say(&format!("  audit log: {}", state.audit_log().display()));
    for warning in crate::profile::unloadable_at_start(state, site.gateway_base_url.as_ref()) {
        say(&warning);
    }
    if runtime.nobody_enrolled {
        say("no client is enrolled yet; enrol one with:");
        say(&format!("  {}", enrol_command(socket, state)));
    }
    say("stop with Ctrl-C (SIGINT) or SIGTERM");
    runtime
        .server
        .serve(runtime.socket, shutdown)
        .await
        .map_err(|e| CliError::internal(e.to_string()))?;
    say("devint runtime stopped");
    Ok(Exit::Ok)
}
