//! `devint completions bash|zsh|fish`: shell completion scripts generated from the clap
//! definition, so they never drift from the real command line.

use clap::CommandFactory;

use crate::cli::Cli;

/// Print the completion script for `shell` on stdout.
pub fn print(shell: clap_complete::Shell) {
    use std::io::Write;
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "devint", &mut script);
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().write_all(&script);
}
