//! Asking the person at the terminal for consent.
//!
//! This module owns the prompts of `apply` and `remove`. It must never assume consent: end
//! of input, an unreadable stdin or anything but `y`/`yes` is a refusal (exit 9).

use std::io::{BufRead, Write};

use crate::exit::{CliError, Exit};

/// Ask `question` on stderr and read one line from stdin; only `y` or `yes` consents.
pub fn ask(question: &str) -> bool {
    eprint!("{question} [y/N] ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => {
            eprintln!();
            false
        }
        Ok(_) => matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes"),
    }
}

/// The error for a refused prompt.
pub fn aborted(what: &str) -> CliError {
    CliError::new(
        Exit::Aborted,
        format!("{what} aborted: no consent was given"),
    )
    .fix("answer `y` at the prompt, or pass --yes to skip the confirmation")
}
