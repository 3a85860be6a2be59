//! `devint`: the command line of the Developer Integration API.
//!
//! `serve` runs the runtime; `enrol` and `tokens` administer the enrolment book file and
//! `profile` shows the runtime's policy profiles (both on the trusted side, as the owning
//! user); the lifecycle commands (`tools`, `plan`, `apply`, `status`, `verify`, `repair`,
//! `remove`, `events`, `approve`) are DI-API clients of a running runtime, each preceded by
//! the provenance standing check of spec §8; `demo` walks the lifecycle in a sandbox. Exit
//! codes are spec §9's ([`exit::Exit`]). See `man devint` and `docs/cli.md`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Every byte to stdout or stderr goes through `output`, so a closed pipe is an exit
// status and never a panic.
#![cfg_attr(not(test), deny(clippy::print_stdout, clippy::print_stderr))]

// Under `--cfg loom` (the model-checking build) tokio has no `net` or `signal` and the
// library leaves its socket client and server out, so the command is an empty stub: the
// integration tests only need the binary target to build.
#[cfg(loom)]
fn main() {}

#[cfg(not(loom))]
mod args;
#[cfg(not(loom))]
mod backend;
#[cfg(not(loom))]
mod cli;
#[cfg(not(loom))]
mod completions;
#[cfg(not(loom))]
mod config;
#[cfg(not(loom))]
mod connect;
#[cfg(not(loom))]
mod consent;
#[cfg(not(loom))]
mod control;
#[cfg(not(loom))]
mod demo;
#[cfg(not(loom))]
mod denial;
#[cfg(not(loom))]
mod enrol;
#[cfg(not(loom))]
mod events;
#[cfg(not(loom))]
mod exit;
#[cfg(not(loom))]
mod files;
#[cfg(not(loom))]
mod inspect;
#[cfg(not(loom))]
mod logs;
#[cfg(not(loom))]
mod manpages;
#[cfg(not(loom))]
mod output;
#[cfg(not(loom))]
mod plan;
#[cfg(not(loom))]
mod plan_stash;
#[cfg(not(loom))]
mod profile;
#[cfg(not(loom))]
mod remove;
#[cfg(not(loom))]
mod render;
#[cfg(not(loom))]
mod serve;
#[cfg(not(loom))]
mod service;
#[cfg(not(loom))]
mod sidecar;
#[cfg(not(loom))]
mod socket;
#[cfg(not(loom))]
mod standing;
#[cfg(not(loom))]
mod state;
#[cfg(not(loom))]
mod suggest;
#[cfg(not(loom))]
mod table;
#[cfg(not(loom))]
mod token;
#[cfg(not(loom))]
mod tools;
#[cfg(not(loom))]
mod upgrade;
#[cfg(not(loom))]
mod version;
#[cfg(not(loom))]
mod whoami;
#[cfg(not(loom))]
mod words;

#[cfg(not(loom))]
use std::process::ExitCode;

#[cfg(not(loom))]
use clap::FromArgMatches;

#[cfg(not(loom))]
use crate::cli::{cli_command, Cli, Command, GlobalFlag};
#[cfg(not(loom))]
use crate::connect::Ctx;
#[cfg(not(loom))]
use crate::enrol::TokensAction;
#[cfg(not(loom))]
use crate::exit::{CliError, Exit};
#[cfg(not(loom))]
use crate::output::{Out, OutputMode};
#[cfg(not(loom))]
use crate::profile::ProfileAction;
#[cfg(not(loom))]
use crate::socket::SocketChoice;
#[cfg(not(loom))]
use crate::state::StateDir;
#[cfg(not(loom))]
use crate::token::TokenSource;

#[cfg(not(loom))]
fn main() -> ExitCode {
    completions::complete_if_asked();
    // clap exits 2 on a usage error and 0 for --help/--version (spec §9).
    let matches = cli_command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    refuse_inapplicable_flags(&cli, &matches);
    let out = Out::detect(cli.output, cli.color, cli.quiet);
    init_tracing(&cli, &out);
    let name = cli.command.name();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            let error = CliError::internal(format!("cannot start the async runtime: {e}"));
            out.error(name, None, &error);
            return ExitCode::from(error.exit.code());
        }
    };
    match runtime.block_on(dispatch(cli, out)) {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(error) => {
            out.error(name, error.runtime.as_ref(), &error);
            ExitCode::from(error.exit.code())
        }
    }
}

/// A global option given on the command line to a command it means nothing to is a usage
/// error (exit 2), never silently ignored. Environment variables are ambient and not
/// checked.
#[cfg(not(loom))]
fn refuse_inapplicable_flags(cli: &Cli, matches: &clap::ArgMatches) {
    for (flag, id, spelling) in GlobalFlag::ALL {
        let given = matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
        if given && !cli.command.accepts(flag) {
            cli_command()
                .error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!(
                        "{spelling} does not apply to `devint {}`; it is read by {}",
                        cli.command.name(),
                        Command::accepting(flag)
                    ),
                )
                .exit();
        }
    }
}

/// Logs go to stderr, or to the journal under systemd ([`logs`]): `-v`/`-q` set the level (RUST_LOG overrides; for `serve`, the
/// configuration file's `log_level` when neither is given), colour only where stderr gets
/// it.
#[cfg(not(loom))]
fn init_tracing(cli: &Cli, out: &Out) {
    use tracing_subscriber::EnvFilter;
    let (base, configured) = match cli.command {
        // A file that does not load is `serve`'s error to report, with its line.
        Command::Serve(_) => (
            1,
            config::ConfigFiles::locate()
                .load()
                .ok()
                .and_then(|s| s.log_level)
                .map(|l| l.value.name()),
        ),
        _ => (0, None),
    };
    let level = if cli.quiet {
        "error"
    } else if let (0, Some(level)) = (cli.verbose, configured) {
        level
    } else {
        match base + cli.verbose {
            0 => "warn",
            1 => "info",
            2 => "debug",
            _ => "trace",
        }
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    logs::init(filter, out.colour_err);
}

#[cfg(not(loom))]
async fn dispatch(cli: Cli, out: Out) -> Result<Exit, CliError> {
    let socket = || SocketChoice::resolve(cli.socket.as_deref());
    let ctx = || -> Result<Ctx, CliError> {
        let socket = socket()?;
        let client = cli.command.token_choice().and_then(|t| t.client.as_ref());
        Ok(Ctx {
            token: TokenSource::choose(socket.path(), client),
            socket,
            out,
            allow_unverified: cli.allow_unverified_runtime,
        })
    };
    let state = || StateDir::resolve(cli.state_dir.as_deref());
    match &cli.command {
        Command::Serve(args) => serve::run(&socket()?, &state()?, args).await,
        Command::Stop => control::run(&out, &socket()?, control::Ask::Stop).await,
        Command::Restart => control::run(&out, &socket()?, control::Ask::Restart).await,
        Command::Service { action } => service::run(&out, action, socket()?.path(), &state()?),
        Command::Config { action } => config::run(&out, action),
        Command::Enrol(args) => enrol::enrol(&out, &state()?, socket()?.path(), args),
        Command::Tokens { action } => match action {
            TokensAction::List => enrol::list(&out, &state()?.book()),
            TokensAction::Rotate {
                id,
                token_file,
                yes,
            } => enrol::rotate(
                &out,
                &state()?,
                socket()?.path(),
                id,
                token_file.as_deref(),
                *yes,
            ),
            TokensAction::Revoke { id, yes } => enrol::revoke(&out, &state()?.book(), id, *yes),
        },
        Command::Whoami(_) => {
            let ctx = ctx()?;
            whoami::run(&out, &ctx.socket, &state()?, &ctx.token).await
        }
        Command::Tools(_) => tools::run(&ctx()?).await,
        Command::Plan(cmd) => plan::plan(&ctx()?, cmd).await,
        Command::Apply(cmd) => plan::apply(&ctx()?, cmd).await,
        Command::Status(cmd) => inspect::status(&ctx()?, cmd).await,
        Command::Verify(cmd) => inspect::verify(&ctx()?, cmd).await,
        Command::Repair(cmd) => remove::repair(&ctx()?, cmd).await,
        Command::Remove(cmd) => remove::remove(&ctx()?, cmd).await,
        Command::Events(cmd) => events::events(&ctx()?, cmd).await,
        Command::Approve(cmd) => events::approve(&ctx()?, cmd).await,
        Command::Profile { action } => match action {
            ProfileAction::List => profile::list(&out, &state()?),
            ProfileAction::Show { id } => profile::show(&out, &state()?, id),
        },
        Command::Version => version::run(&out, &socket()?).await,
        // The demo is a narrated walk-through: always human text.
        Command::Demo { keep } => {
            let human = Out {
                mode: OutputMode::Human,
                ..out
            };
            demo::run(human, *keep).await
        }
        Command::Sidecar { schema } => {
            sidecar::run(*schema, cli.socket.clone(), cli.allow_unverified_runtime).await
        }
        Command::Completions { shell } => completions::print(*shell),
        Command::Manpages { dir } => manpages::write(&out, dir),
    }
}
