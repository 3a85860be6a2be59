//! Asking the person at the terminal for consent.
//!
//! This module owns the prompts of the mutating commands (`apply`, `repair`, `remove`,
//! `approve`, `tokens rotate|revoke`, an `enrol` that replaces a token, and each
//! privileged host step). It must never assume consent and never block a script: when
//! stdin is not a terminal it refuses at once (exit 2, saying to pass `--yes`, or, for a
//! privileged host step, to run at a terminal); at a terminal, end of input or anything
//! but `y`/`yes` is a refusal (exit 9).

use std::io::{BufRead, IsTerminal};

use crate::exit::{CliError, Exit};
use crate::output::{write_stderr, write_stderr_raw, Out};

/// Ask `question` unless `yes`; `action` names the command in the messages (`apply`).
pub fn confirm(out: &Out, question: &str, yes: bool, action: &str) -> Result<(), CliError> {
    if yes {
        return Ok(());
    }
    if !std::io::stdin().is_terminal() {
        return Err(CliError::usage(format!(
            "`{action}` asks for confirmation, and standard input is not a terminal"
        ))
        .fix(format!("pass --yes to {action} without asking")));
    }
    if ask(out, question) {
        Ok(())
    } else {
        Err(aborted(action))
    }
}

/// Ask for one privileged host step's own consent: never skipped by `--yes`, so it needs a
/// terminal.
pub fn confirm_privileged(out: &Out, step: &str, prompt: &str) -> Result<(), CliError> {
    if !std::io::stdin().is_terminal() {
        return Err(CliError::usage(format!(
            "privileged host step {step} needs its own consent, and standard input is not a terminal"
        ))
        .fix("run the command at a terminal: --yes never covers a privileged host step"));
    }
    if ask(
        out,
        &format!("privileged host step {step}: {prompt}. Allow it?"),
    ) {
        Ok(())
    } else {
        Err(aborted(&format!("privileged step {step}")))
    }
}

/// Ask `question` on stderr and read one line from stdin; only `y` or `yes` consents.
fn ask(out: &Out, question: &str) -> bool {
    write_stderr_raw(&format!("{} [y/N] ", out.err_style().bold(question)));
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => {
            write_stderr("");
            false
        }
        Ok(_) => matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes"),
    }
}

/// The error for a refused prompt.
fn aborted(what: &str) -> CliError {
    CliError::new(
        Exit::Aborted,
        format!("{what} aborted: no consent was given; nothing was changed"),
    )
    .fix("answer `y` at the prompt, or pass --yes to skip the confirmation")
}
