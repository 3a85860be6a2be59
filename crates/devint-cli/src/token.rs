//! Which token a lifecycle command uses, and what the enrolment book says about it.
//!
//! Each enrolled client has its own token file, `<client>.token` beside the socket, unless
//! `AA_DEVINT_TOKEN_FILE` names another: spec §7's one rule, applied by
//! [`devint_net::client::token_file`] for every client we ship. The command itself is the
//! client named `cli`; it uses another token only when told, first rule that applies:
//!
//! 1. `--client NAME`: that client's own file (an explicit choice beats the variable);
//! 2. `AA_DEVINT_TOKEN`: the token itself, from the environment;
//! 3. the rule for client `cli`: `AA_DEVINT_TOKEN_FILE`'s file, else `cli.token`.
//!
//! This module owns that order ([`TokenSource::choose`]), reading the token, and looking
//! it up in the book by the secret's digest (the same user may read the book, as `enrol`
//! does) so a denial or `devint whoami` can name the token id, client and scope. It must
//! never print, log or store a secret.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use devint::auth::{ClientName, EnrolmentRecord, TokenSecret};
use devint_net::book::BookFile;
use devint_net::client::{own_token_file, token_file, TokenFileChoice};
use devint_net::token_file::{read_token_file, TOKEN_ENV, TOKEN_FILE_ENV};

use crate::exit::{CliError, Exit};
use crate::state::StateDir;

/// The client name of the command's own token.
pub const CLI_CLIENT: &str = "cli";

/// Where a command's token comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// `--client NAME`: that client's own file.
    Client {
        /// The client.
        client: ClientName,
        /// Its file.
        file: PathBuf,
    },
    /// `AA_DEVINT_TOKEN`: the token itself.
    Env,
    /// `AA_DEVINT_TOKEN_FILE`.
    EnvFile(PathBuf),
    /// Client `cli`'s file, the command's own.
    Cli(PathBuf),
}

fn non_empty(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

impl TokenSource {
    /// The source for a command on the runtime at `socket`, given `--client`.
    pub fn choose(socket: &Path, client: Option<&ClientName>) -> TokenSource {
        if let Some(client) = client {
            return TokenSource::Client {
                client: client.clone(),
                file: own_token_file(socket, client),
            };
        }
        if non_empty(TOKEN_ENV).is_some() {
            return TokenSource::Env;
        }
        let cli = ClientName::parse(CLI_CLIENT).expect("`cli` is a client name");
        match token_file(socket, Some(&cli), non_empty(TOKEN_FILE_ENV).as_deref())
            .expect("a named client always has a token file")
        {
            TokenFileChoice::Named(file) => TokenSource::EnvFile(file),
            TokenFileChoice::Own(file) => TokenSource::Cli(file),
        }
    }

    /// The file, if the token comes from one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            TokenSource::Client { file, .. }
            | TokenSource::EnvFile(file)
            | TokenSource::Cli(file) => Some(file),
            TokenSource::Env => None,
        }
    }

    /// Where the token comes from, in words.
    pub fn describe(&self) -> String {
        match self {
            TokenSource::Client { client, file } => {
                format!(
                    "client {}'s token file {} (--client)",
                    client.as_str(),
                    file.display()
                )
            }
            TokenSource::Env => format!("the {TOKEN_ENV} environment variable"),
            TokenSource::EnvFile(file) => format!("{} ({TOKEN_FILE_ENV})", file.display()),
            TokenSource::Cli(file) => {
                format!("client {CLI_CLIENT}'s token file {}", file.display())
            }
        }
    }

    /// The JSON form: `{ "kind": "client"|"env"|"env_file"|"cli", "path": … }`.
    pub fn json(&self) -> serde_json::Value {
        let kind = match self {
            TokenSource::Client { .. } => "client",
            TokenSource::Env => "env",
            TokenSource::EnvFile(_) => "env_file",
            TokenSource::Cli(_) => "cli",
        };
        serde_json::json!({
            "kind": kind,
            "path": self.file().map(|f| f.display().to_string()),
        })
    }

    /// The command that enrols the client this source stands for.
    pub fn enrol_hint(&self) -> String {
        match self {
            TokenSource::Client { client, .. } => format!(
                "`devint enrol --client {} --all-tools` (add --verbs full for every verb)",
                client.as_str()
            ),
            TokenSource::Env => format!("set {TOKEN_ENV} to an enrolled token"),
            TokenSource::EnvFile(file) => format!(
                "`devint enrol --client NAME --all-tools --token-file {}`",
                file.display()
            ),
            TokenSource::Cli(_) => {
                format!("`devint enrol --client {CLI_CLIENT} --all-tools --verbs full`")
            }
        }
    }

    /// Read the token. A missing or unusable one is exit 8 with the command that fixes it;
    /// the secret is never echoed.
    pub fn read(&self) -> Result<TokenSecret, CliError> {
        match self {
            TokenSource::Env => {
                let value = non_empty(TOKEN_ENV).unwrap_or_default();
                value
                    .to_str()
                    .and_then(|v| TokenSecret::parse(v.trim_end_matches('\n')).ok())
                    .ok_or_else(|| {
                        CliError::new(
                            Exit::Denied,
                            format!(
                                "{TOKEN_ENV} does not hold a token (64 lowercase hex characters, got {} bytes)",
                                value.len()
                            ),
                        )
                        .fix(format!("set {TOKEN_ENV} to the token `devint enrol --print` shows, or unset it"))
                    })
            }
            other => {
                let file = other.file().expect("a file source");
                read_token_file(file).map_err(|e| {
                    let missing = matches!(
                        &e,
                        devint_net::token_file::TokenFileError::Io { source, .. }
                            if source.kind() == std::io::ErrorKind::NotFound
                    );
                    if missing {
                        CliError::new(
                            Exit::Denied,
                            format!("no token: {} does not exist", other.describe()),
                        )
                        .fix(format!("enrol it: {}", other.enrol_hint()))
                    } else {
                        CliError::new(Exit::Denied, e.to_string())
                    }
                })
            }
        }
    }
}

/// Completion candidates for `--client`: the clients with a token file beside the default
/// socket (`AA_DEVINT_SOCKET`, else `~/.aa/run/devint.sock`).
pub fn client_candidates() -> Vec<clap_complete::engine::CompletionCandidate> {
    let Ok(socket) = devint_net::transport::socket_path_from_env() else {
        return Vec::new();
    };
    let dir = devint_fs::private::parent_dir(&socket);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let client = name.strip_suffix(".token")?;
            ClientName::parse(client)
                .ok()
                .map(|c| c.as_str().to_owned())
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .map(clap_complete::engine::CompletionCandidate::new)
        .collect()
}

/// The token a session holds: where it came from and its record in this user's book.
#[derive(Debug, Clone)]
pub struct Holder {
    /// Where it came from.
    pub source: TokenSource,
    /// Its enrolment record, if the book could be read (never the secret).
    pub record: Option<EnrolmentRecord>,
}

/// What this user's enrolment book says about a token.
#[derive(Debug, Clone)]
pub enum Lookup {
    /// Its record.
    Enrolled(EnrolmentRecord),
    /// The book was read and holds no record of it: revoked, never enrolled, or enrolled in
    /// another state directory's book.
    Unknown,
    /// The book could not be read (why, in words): nothing can be said.
    Unreadable(String),
}

/// Look `secret` up, by its digest, in the book of `state` (default: `AA_DEVINT_STATE_DIR`,
/// else `~/.aa`).
pub fn lookup(secret: &TokenSecret, state: Option<&StateDir>) -> Lookup {
    let resolved;
    let state = match state {
        Some(s) => s,
        None => match StateDir::resolve(None) {
            Ok(s) => {
                resolved = s;
                &resolved
            }
            Err(e) => return Lookup::Unreadable(e.message),
        },
    };
    match BookFile::new(state.book()).load() {
        Ok(book) => book
            .find(secret)
            .cloned()
            .map_or(Lookup::Unknown, Lookup::Enrolled),
        Err(e) => Lookup::Unreadable(e.to_string()),
    }
}

/// The enrolment record of `secret` in the book of `state`, if this user can read it there.
/// Best effort: `None` when the book is elsewhere or unreadable.
pub fn record_of(secret: &TokenSecret, state: Option<&StateDir>) -> Option<EnrolmentRecord> {
    match lookup(secret, state) {
        Lookup::Enrolled(record) => Some(record),
        Lookup::Unknown | Lookup::Unreadable(_) => None,
    }
}
