//! Shell completion: `devint completions SHELL` prints the script that registers devint's
//! completer with the shell; the completer is devint itself, run with `COMPLETE=SHELL`
//! (clap's dynamic completion), so it always matches the binary on `PATH` and offers tool
//! ids, profile ids and every enumerated value, not file names.

use clap_complete::env::Shells;

use crate::exit::{CliError, Exit};
use crate::output::write_stdout;

/// The environment variable that turns `devint` into its own completer.
pub const COMPLETE_ENV: &str = "COMPLETE";

/// Answer a completion request if this process is one (`COMPLETE` set); otherwise return.
pub fn complete_if_asked() {
    clap_complete::CompleteEnv::with_factory(crate::cli::cli_command)
        .var(COMPLETE_ENV)
        .complete();
}

/// Print the registration script for `shell`.
pub fn print(shell: clap_complete::Shell) -> Result<Exit, CliError> {
    let name = shell.to_string();
    let shells = Shells::builtins();
    let completer = shells.completer(&name).ok_or_else(|| {
        CliError::usage(format!("no completion support for {name}"))
            .fix("use bash, elvish, fish, powershell or zsh")
    })?;
    let mut script = Vec::new();
    completer
        .write_registration(COMPLETE_ENV, "devint", "devint", "devint", &mut script)
        .map_err(|e| CliError::internal(format!("cannot render the completion script: {e}")))?;
    write_stdout(&String::from_utf8_lossy(&script))?;
    Ok(Exit::Ok)
}
