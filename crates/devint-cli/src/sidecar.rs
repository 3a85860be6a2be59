//! `devint sidecar [--schema]`: the thin hook that runs `devint-sidecar` on this process's
//! stdin and stdout (`devint.sidecar.v1`, `docs/sidecar-protocol.md`).
//!
//! Everything the sidecar does is the `devint-sidecar` crate's; this module only passes the
//! global `--socket` and `--allow-unverified-runtime` as its defaults and maps its end to an
//! exit code: 0 when stdin ends, 1 when stdin or stdout fails. It must never print to stdout
//! itself (stdout is the protocol).

use std::path::PathBuf;

use crate::exit::{CliError, Exit};

/// Run the sidecar until stdin ends, or print its JSON Schema.
pub async fn run(
    schema: bool,
    socket: Option<PathBuf>,
    allow_unverified: bool,
) -> Result<Exit, CliError> {
    if schema {
        println!("{}", devint_sidecar::SCHEMA.trim_end());
        return Ok(Exit::Ok);
    }
    let options = devint_sidecar::Options {
        environment: devint_sidecar::Environment::from_process(),
        default_socket: socket,
        allow_unverified_runtime: allow_unverified,
        ..devint_sidecar::Options::default()
    };
    devint_sidecar::serve_stdio(options)
        .await
        .map(|()| Exit::Ok)
        .map_err(|e| CliError::internal(e.to_string()))
}
