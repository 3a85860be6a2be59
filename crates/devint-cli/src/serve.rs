//! `devint serve`: the runtime. Binds the socket securely (or adopts the one a service
//! manager or its own previous executable passed, checked the same way), serves the DI-API
//! over the enrolment book, the backend and the audit log kept under one state directory,
//! tells a service manager when it is ready and stopping, shuts down gracefully on SIGINT
//! or SIGTERM, and re-executes its binary, handing the listening socket over, on SIGHUP or
//! when the binary is replaced ([`crate::upgrade`]).
//!
//! Each setting is taken from its flag, else its environment variable, else the
//! configuration files ([`crate::config`]), else its default. A re-execution runs this
//! again, so SIGHUP (`devint restart`) puts an edited configuration file in force.
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
use devint_net::provenance::RuntimeProvenance;
use devint_net::server::Ending;
use devint_net::server::Server;
use devint_net::transport::activation::{self, HandOverFailed, Origin};
use devint_net::transport::{bind_secure, BoundSocket};
use devint_runtime::reference::PolicyUrl;

use crate::backend::{open_backend, BackendSite};
use crate::config::{ConfigFiles, Settings};
use crate::exit::{CliError, Exit};
use crate::socket::SocketChoice;
use crate::state::{StateDir, StateLock};
use crate::upgrade::{OnUpgrade, Stops, Why};

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
    /// most a day; default 15m). An expired plan is refused and must be reviewed again.
    #[arg(long, value_name = "DURATION", value_parser = crate::args::plan_ttl())]
    pub plan_ttl: Option<std::time::Duration>,
    /// When the executable is replaced (an upgrade): re-execute the new binary on the same
    /// socket, or exit (status 75) for the service manager to restart it (default reexec).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub on_upgrade: Option<OnUpgrade>,
}

/// What this runtime serves with: each flag, else its environment variable, else the
/// configuration files, else its default.
struct Chosen {
    project_dir: Option<PathBuf>,
    gateway_url: Option<PolicyUrl>,
    /// Where the gateway URL came from, in words.
    gateway_from: String,
    plan_ttl: std::time::Duration,
    on_upgrade: OnUpgrade,
}

impl Chosen {
    fn of(args: &ServeArgs, settings: Settings) -> Result<Chosen, CliError> {
        let (gateway_url, gateway_from) = match gateway_url(args.gateway_url.as_deref())? {
            Some(url) => (
                Some(url),
                "--gateway-url or AA_DEVINT_GATEWAY_URL".to_owned(),
            ),
            None => match settings.gateway_url {
                Some(s) => (Some(s.value), s.file.display().to_string()),
                None => (None, String::new()),
            },
        };
        Ok(Chosen {
            project_dir: args
                .project_dir
                .clone()
                .or(settings.project_dir.map(|s| s.value)),
            gateway_url,
            gateway_from,
            plan_ttl: args
                .plan_ttl
                .or(settings.plan_ttl.map(|s| s.value))
                .unwrap_or(devint_runtime::reference::RuntimeConfig::DEFAULT_PLAN_TTL),
            on_upgrade: args
                .on_upgrade
                .or(settings.on_upgrade.map(|s| s.value))
                .unwrap_or_default(),
        })
    }
}

/// A runtime ready to serve: bound socket, server, and the state directory's lock.
pub struct Runtime {
    /// The server.
    pub server: Server,
    /// The bound socket.
    pub socket: BoundSocket,
    /// Whether no client is enrolled yet.
    pub nobody_enrolled: bool,
    /// Who bound the socket, when it was passed to us rather than bound here.
    pub adopted: Option<Origin>,
    /// This process's provenance, as the server reports it.
    pub provenance: RuntimeProvenance,
    /// The state directory's lock, held while this value lives.
    _lock: StateLock,
}

/// Build a runtime on `socket` over the state in `state` and the host in `site`.
///
/// The socket is bound first, so "another runtime is serving at PATH" is the message a
/// second `serve` on the same path sees; then the state directory is locked, so two
/// runtimes never share one audit chain, book writer or journal.
pub fn prepare(
    socket: &SocketChoice,
    state: &StateDir,
    site: &BackendSite,
) -> Result<Runtime, CliError> {
    let (bound, adopted) = bind_or_adopt(socket)?;
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
    let provenance = RuntimeProvenance::capture();
    let reported = provenance.clone();
    let server = Server::builder(Arc::new(book), backend, audit)
        .provenance(Arc::new(move || reported.to_wire()))
        .build();
    Ok(Runtime {
        server,
        socket: bound,
        nobody_enrolled,
        adopted,
        provenance,
        _lock: lock,
    })
}

/// The socket passed by socket activation (a service manager, or this runtime's previous
/// executable), checked as the secure bind checks its own; else a socket bound here.
fn bind_or_adopt(socket: &SocketChoice) -> Result<(BoundSocket, Option<Origin>), CliError> {
    // spec §1: the transport refuses wrong modes/owners and a live runtime at the path, for
    // a passed socket as for its own.
    match activation::adopt_from_env(socket.path()) {
        Ok(Some(adopted)) => Ok((adopted.socket, Some(adopted.origin))),
        Ok(None) => bind_secure(socket.path())
            .map(|bound| (bound, None))
            .map_err(|e| socket.unbindable(e)),
        Err(e) => Err(CliError::internal(format!("cannot serve: {e}"))),
    }
}

/// The exact command that enrols a first client for this runtime.
pub fn enrol_command(socket: &Path, state: &StateDir) -> String {
    format!(
        "devint enrol --client cli --all-tools --verbs full --socket {} --state-dir {}",
        socket.display(),
        state.root().display()
    )
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
pub async fn run(
    choice: &SocketChoice,
    state: &StateDir,
    args: &ServeArgs,
) -> Result<Exit, CliError> {
    let socket = choice.path();
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .ok_or_else(|| {
            CliError::usage("HOME is not set; the runtime needs the home whose tools it integrates")
        })?;
    let settings = ConfigFiles::locate()
        .load()
        .map_err(|e| e.context("cannot serve"))?;
    let chosen = Chosen::of(args, settings)?;
    let site = BackendSite {
        state_dir: state.backend(),
        home,
        path_env: std::env::var("PATH").unwrap_or_default(),
        project_dir: chosen.project_dir.clone(),
        gateway_base_url: chosen.gateway_url.clone(),
        plan_ttl: chosen.plan_ttl,
    };
    let mut stops = Stops::install()?;
    let runtime = prepare(choice, state, &site)?;
    // A closed stdout must not stop the runtime: what it prints is a courtesy.
    let say = |text: &str| {
        let _ = crate::output::write_stdout(text);
    };
    say(&format!("devint runtime serving on {}", socket.display()));
    match runtime.adopted {
        Some(Origin::ServiceManager) => say("  socket passed by the service manager"),
        Some(Origin::Handover) => say("  socket handed over by the previous executable"),
        None => {}
    }
    say(&format!("  state directory: {}", state.devint().display()));
    say(&format!("  audit log: {}", state.audit_log().display()));
    match &chosen.gateway_url {
        Some(url) => say(&format!(
            "  gateway URL: {} (from {})",
            url.as_str(),
            chosen.gateway_from
        )),
        None => {
            tracing::warn!(
                fix = crate::config::SET_GATEWAY,
                "no gateway URL is configured; plans route no model traffic"
            );
            say(&format!("warning: {}", crate::config::no_gateway()));
        }
    }
    for warning in crate::profile::unloadable_at_start(state, site.gateway_base_url.as_ref()) {
        say(&warning);
    }
    if runtime.nobody_enrolled {
        say("no client is enrolled yet; enrol one with:");
        say(&format!("  {}", enrol_command(socket, state)));
    }
    if !runtime.provenance.executable_present() {
        stops.stop_watching();
        say("  cannot read this executable's path: an upgrade is not noticed (`devint restart` re-executes)");
    }
    say("stop with Ctrl-C (SIGINT) or SIGTERM; SIGHUP re-executes the binary");
    activation::notify_ready(&format!("serving on {}", socket.display()));
    let Runtime {
        server,
        socket: mut bound,
        provenance,
        _lock,
        ..
    } = runtime;
    loop {
        let mut why = None;
        let stop = async {
            let w = stops.next(&provenance).await;
            why = Some(w);
            match (w, chosen.on_upgrade) {
                (Why::Restart, _) | (Why::Replaced, OnUpgrade::Reexec) => Ending::HandOver,
                (Why::Stop, _) | (Why::Replaced, OnUpgrade::Exit) => {
                    activation::notify_stopping();
                    Ending::Close
                }
            }
        };
        let kept = server
            .serve_until(bound, stop)
            .await
            .map_err(|e| CliError::internal(e.to_string()))?;
        let Some(socket_kept) = kept else {
            say("devint runtime stopped");
            if why == Some(Why::Replaced) {
                return Err(CliError::new(
                    crate::exit::Status::Replaced,
                    format!(
                        "the executable {} was replaced; exiting (status 75) for the service \
                         manager to start the new one (--on-upgrade exit)",
                        provenance.executable_path().display()
                    ),
                ));
            }
            return Ok(Exit::Ok);
        };
        let exe = provenance.executable_path();
        say(&format!(
            "re-executing {} on the same socket",
            exe.display()
        ));
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
        match activation::exec_with_socket(socket_kept, exe, &args) {
            HandOverFailed::NotRun(error, back) => {
                tracing::error!(%error, executable = %exe.display(), "cannot re-execute; serving on with this binary");
                say(&format!(
                    "cannot re-execute {} ({error}); still serving with the running binary, and trying again when that file changes (or on `devint restart`)",
                    exe.display()
                ));
                stops.re_exec_failed(exe);
                bound = back;
            }
            HandOverFailed::Exec(error) => {
                return Err(CliError::internal(format!(
                    "cannot re-execute {} ({error}); the runtime stopped",
                    exe.display()
                ))
                .fix("put a working devint binary at that path and start the runtime again (`devint serve`, or its service)"));
            }
        }
    }
}
