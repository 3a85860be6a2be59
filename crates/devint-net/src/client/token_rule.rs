//! Which token file a client reads (spec §7): its own `<client_name>.token` beside the
//! socket, unless `AA_DEVINT_TOKEN_FILE` names another.
//!
//! This is the one rule, and [`token_file`] the one function that applies it, for every
//! client we ship: the `devint` command (client `cli`), `devint sidecar` (a host's
//! `client_name`), and this library's [`load_token`]; `devint enrol --client NAME` writes
//! where it points for NAME ([`own_token_file`]). A client told on its own command line which
//! client it is (`devint --client NAME`, the sidecar's `client`) asks without the variable:
//! an explicit choice beats an ambient one. The module owns the rule only: it never reads a
//! token file ([`crate::token_file`] does) and reads the environment only in [`load_token`].

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use devint::auth::{ClientName, TokenSecret};
use devint_fs::private as private_fs;

use super::error::ClientIoError;
use crate::token_file::{read_token_file, TOKEN_FILE_ENV};

/// The token file a client reads, and why it is that one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenFileChoice {
    /// The file `AA_DEVINT_TOKEN_FILE` names.
    Named(PathBuf),
    /// The client's own `<client_name>.token` beside the socket.
    Own(PathBuf),
}

impl TokenFileChoice {
    /// The file.
    pub fn path(&self) -> &Path {
        match self {
            TokenFileChoice::Named(p) | TokenFileChoice::Own(p) => p,
        }
    }
}

// spec[S7-TOKEN-FILE-RULE] §7: each client's own `<client_name>.token` beside the socket by
// default; `AA_DEVINT_TOKEN_FILE` names another; one rule for every client we ship.
/// The token file of client `client` of the runtime at `socket`: the file `env_value` (the
/// value of `AA_DEVINT_TOKEN_FILE`) names when it is set and not empty, else the client's own
/// file. `None` when the variable is unset and the client has no name to own a file by.
pub fn token_file(
    socket: &Path,
    client: Option<&ClientName>,
    env_value: Option<&OsStr>,
) -> Option<TokenFileChoice> {
    match env_value {
        Some(v) if !v.is_empty() => Some(TokenFileChoice::Named(PathBuf::from(v))),
        _ => client.map(|c| TokenFileChoice::Own(own_token_file(socket, c))),
    }
}

/// Client `client`'s own token file: `<client>.token` in the socket's directory. Each client
/// has its own, so enrolling one never overwrites another's.
pub fn own_token_file(socket: &Path, client: &ClientName) -> PathBuf {
    private_fs::parent_dir(socket).join(format!("{}.token", client.as_str()))
}

/// Load the token of client `client` for the runtime at `socket` by [`token_file`]'s rule
/// (reading `AA_DEVINT_TOKEN_FILE` from this process's environment), refusing a file readable
/// or writable by group or others.
pub fn load_token(socket: &Path, client: &ClientName) -> Result<TokenSecret, ClientIoError> {
    let env = std::env::var_os(TOKEN_FILE_ENV);
    let choice = token_file(socket, Some(client), env.as_deref())
        .expect("a named client always has a token file");
    Ok(read_token_file(choice.path())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_names_another_file_and_a_client_owns_one_beside_the_socket() {
        let socket = Path::new("/run/user/1000/devint/devint.sock");
        let vscode = ClientName::parse("vscode").unwrap();
        assert_eq!(
            token_file(socket, Some(&vscode), None),
            Some(TokenFileChoice::Own(
                "/run/user/1000/devint/vscode.token".into()
            ))
        );
        assert_eq!(
            token_file(socket, Some(&vscode), Some(OsStr::new(""))),
            token_file(socket, Some(&vscode), None),
            "an empty value counts as unset"
        );
        assert_eq!(
            token_file(socket, Some(&vscode), Some(OsStr::new("/home/u/t"))),
            Some(TokenFileChoice::Named("/home/u/t".into()))
        );
        assert_eq!(
            token_file(socket, None, Some(OsStr::new("/home/u/t"))),
            Some(TokenFileChoice::Named("/home/u/t".into()))
        );
        assert_eq!(token_file(socket, None, None), None);
    }
}
