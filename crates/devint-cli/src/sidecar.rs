//! `devint sidecar [--schema]`: the thin hook that runs `devint-sidecar` on this process's
//! stdin and stdout (`devint.sidecar.v1`, `docs/sidecar-protocol.md`).
//!
//! Everything the sidecar does is the `devint-sidecar` crate's; this module only passes the
//! global `--socket` and `--allow-unverified-runtime` as its defaults and maps its end to an
//! exit status: 0 when stdin ends, 141 (quietly) when the host closed stdout, 1 when stdin
//! or stdout fails otherwise. It must never print to stdout itself but the schema (stdout is
//! the protocol).

use std::path::PathBuf;

use crate::exit::{CliError, Exit};
use crate::output::write_stdout;

/// Run the sidecar until stdin ends, or print its JSON Schema.
pub async fn run(
    schema: bool,
    socket: Option<PathBuf>,
    allow_unverified: bool,
) -> Result<Exit, CliError> {
    if schema {
        write_stdout(devint_sidecar::SCHEMA)?;
        return Ok(Exit::Ok);
    }
    let options = devint_sidecar::Options {
        environment: devint_sidecar::Environment::from_process(),
        default_socket: socket,
        allow_unverified_runtime: allow_unverified,
        ..devint_sidecar::Options::default()
    };
    match devint_sidecar::serve_stdio(options).await {
        Ok(()) => Ok(Exit::Ok),
        // The host closed our stdout: stop quietly, as every command does (141).
        Err(devint_sidecar::ServeError::Output(e))
            if e.kind() == std::io::ErrorKind::BrokenPipe =>
        {
            Err(CliError::closed_pipe())
        }
        Err(e) => Err(CliError::internal(e.to_string())),
    }
}
