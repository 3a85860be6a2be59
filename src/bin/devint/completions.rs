//! `devint completions bash|zsh|fish`: shell completion scripts generated from the clap
//! definition, so they never drift from the real command line.

use clap::CommandFactory;

use crate::cli::Cli;

/// Print the completion script for `shell` on stdout.
pub fn print(shell: clap_complete::Shell) {
    let mut command = Cli::command();
    clap_complete::generate(shell, &mut command, "devint", &mut std::io::stdout());
}
