//! `devint`: the command line of the Developer Integration API.
//!
//! `serve` runs the runtime; `enrol` and `tokens` administer the enrolment book file; the
//! lifecycle commands (`tools`, `plan`, `apply`, `status`, `verify`, `repair`, `remove`,
//! `events`, `approve`) are DI-API clients of a running runtime, each preceded by the
//! provenance standing check of spec §8; `demo` walks the lifecycle in a sandbox. Exit
//! codes are spec §9's ([`exit::Exit`]). See `docs/cli.md`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Under `--cfg loom` (the model-checking build) tokio has no `net` or `signal` and the
// library leaves its socket client and server out, so the command is an empty stub: the
// integration tests only need the binary target to build.
#[cfg(loom)]
fn main() {}

#[cfg(not(loom))]
mod backend;
#[cfg(not(loom))]
mod cli;
#[cfg(not(loom))]
mod completions;
#[cfg(not(loom))]
mod connect;
#[cfg(not(loom))]
mod consent;
#[cfg(not(loom))]
mod demo;
#[cfg(not(loom))]
mod enrol;
#[cfg(not(loom))]
mod events;
#[cfg(not(loom))]
mod exit;
#[cfg(not(loom))]
mod inspect;
#[cfg(not(loom))]
mod output;
#[cfg(not(loom))]
mod plan;
#[cfg(not(loom))]
mod remove;
#[cfg(not(loom))]
mod render;
#[cfg(not(loom))]
mod serve;
#[cfg(not(loom))]
mod sidecar;
#[cfg(not(loom))]
mod standing;
#[cfg(not(loom))]
mod state;
#[cfg(not(loom))]
mod tools;

#[cfg(not(loom))]
use std::path::{Path, PathBuf};
#[cfg(not(loom))]
use std::process::ExitCode;

#[cfg(not(loom))]
use clap::Parser;

#[cfg(not(loom))]
use crate::cli::{Cli, Command};
#[cfg(not(loom))]
use crate::connect::Ctx;
#[cfg(not(loom))]
use crate::enrol::TokensAction;
#[cfg(not(loom))]
use crate::exit::{CliError, Exit};
#[cfg(not(loom))]
use crate::output::Out;
#[cfg(not(loom))]
use crate::state::StateDir;

#[cfg(not(loom))]
fn main() -> ExitCode {
    // clap exits 2 on a usage error and 0 for --help/--version (spec §9).
    let cli = Cli::parse();
    init_tracing(&cli.command);
    let out = Out::detect(cli.output);
    let name = command_name(&cli.command);
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

#[cfg(not(loom))]
fn init_tracing(command: &Command) {
    use tracing_subscriber::EnvFilter;
    let default = match command {
        Command::Serve(_) => "info",
        _ => "warn",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

/// The command's name as it appears in JSON output.
#[cfg(not(loom))]
fn command_name(command: &Command) -> &'static str {
    match command {
        Command::Serve(_) => "serve",
        Command::Enrol(_) => "enrol",
        Command::Tokens { action } => match action {
            TokensAction::List => "tokens list",
            TokensAction::Rotate { .. } => "tokens rotate",
            TokensAction::Revoke { .. } => "tokens revoke",
        },
        Command::Tools => "tools",
        Command::Plan { .. } => "plan",
        Command::Apply { .. } => "apply",
        Command::Status { .. } => "status",
        Command::Verify { .. } => "verify",
        Command::Repair { .. } => "repair",
        Command::Remove { .. } => "remove",
        Command::Events { .. } => "events",
        Command::Approve { .. } => "approve",
        Command::Demo { .. } => "demo",
        Command::Sidecar { .. } => "sidecar",
        Command::Completions { .. } => "completions",
    }
}

/// `--socket`, else `AA_DEVINT_SOCKET`, else `$HOME/.aa/run/devint.sock`.
#[cfg(not(loom))]
fn socket_path(flag: Option<&Path>) -> Result<PathBuf, CliError> {
    match flag {
        Some(p) if p.is_absolute() => Ok(p.to_path_buf()),
        Some(p) => Err(CliError::usage(format!(
            "--socket {} is not an absolute path",
            p.display()
        ))),
        None => devint_net::transport::socket_path_from_env()
            .map_err(|e| CliError::usage(e.to_string())),
    }
}

/// `AA_DEVINT_TOKEN_FILE`, else `devint.token` beside the socket (spec §7).
#[cfg(not(loom))]
fn token_file(socket: &Path) -> PathBuf {
    let env = std::env::var_os(devint_net::token_file::TOKEN_FILE_ENV);
    devint_net::token_file::token_file_path(socket, env.as_deref())
}

#[cfg(not(loom))]
async fn dispatch(cli: Cli, out: Out) -> Result<Exit, CliError> {
    let ctx = || -> Result<Ctx, CliError> {
        let socket = socket_path(cli.socket.as_deref())?;
        Ok(Ctx {
            token_file: token_file(&socket),
            socket,
            out,
            allow_unverified: cli.allow_unverified_runtime,
        })
    };
    match &cli.command {
        Command::Serve(args) => {
            let state = StateDir::resolve(cli.state_dir.as_deref())?;
            serve::run(&socket_path(cli.socket.as_deref())?, &state, args).await
        }
        Command::Enrol(args) => {
            let state = StateDir::resolve(cli.state_dir.as_deref())?;
            let file = match &args.token_file {
                Some(f) => f.clone(),
                None => token_file(&socket_path(cli.socket.as_deref())?),
            };
            enrol::enrol(&out, &state.book(), args, &file)
        }
        Command::Tokens { action } => {
            let state = StateDir::resolve(cli.state_dir.as_deref())?;
            match action {
                TokensAction::List => enrol::list(&out, &state.book()),
                TokensAction::Rotate { id, token_file: f } => {
                    let file = match f {
                        Some(f) => f.clone(),
                        None => token_file(&socket_path(cli.socket.as_deref())?),
                    };
                    enrol::rotate(&out, &state.book(), id, &file)
                }
                TokensAction::Revoke { id } => enrol::revoke(&out, &state.book(), id),
            }
        }
        Command::Tools => tools::run(&ctx()?).await,
        Command::Plan { tool, options } => plan::plan(&ctx()?, tool.clone(), options).await,
        Command::Apply { tool, options, yes } => {
            plan::apply(&ctx()?, tool.clone(), &options.clone().into(), *yes).await
        }
        Command::Status { tool } => inspect::status(&ctx()?, tool.clone()).await,
        Command::Verify { tool } => inspect::verify(&ctx()?, tool.clone()).await,
        Command::Repair { tool } => remove::repair(&ctx()?, tool.clone()).await,
        Command::Remove { tool, yes } => remove::remove(&ctx()?, tool.clone(), *yes).await,
        Command::Events { tool, limit, since } => {
            events::events(&ctx()?, tool.clone(), *limit, *since).await
        }
        Command::Approve { tool, id, input } => {
            events::approve(&ctx()?, tool.clone(), id.clone(), *input).await
        }
        // The demo is a narrated walk-through: always human text.
        Command::Demo { keep } => demo::run(Out::detect(output::OutputMode::Human), *keep).await,
        Command::Sidecar { schema } => {
            sidecar::run(*schema, cli.socket.clone(), cli.allow_unverified_runtime).await
        }
        Command::Completions { shell } => {
            completions::print(*shell);
            Ok(Exit::Ok)
        }
    }
}
