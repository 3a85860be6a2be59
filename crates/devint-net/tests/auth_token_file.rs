//! The client's token file (spec §7).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use devint::auth::{ClientName, TokenSecret};
use devint_net::client::load_token;
use devint_net::token_file::{read_token_file, write_token_file, TokenFileError};

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn a_written_token_file_reads_back_and_is_private() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("client").join("devint.token");
    let secret = TokenSecret::generate().unwrap();
    write_token_file(&path, &secret).unwrap();
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(path.parent().unwrap()), 0o700);
    let text = fs::read_to_string(&path).unwrap();
    assert_eq!(text, format!("{}\n", &*secret.expose_secret_hex()));
    let back = read_token_file(&path).unwrap();
    assert!(back.digest() == secret.digest());
}

#[test]
fn a_token_file_without_a_newline_reads_but_extra_whitespace_is_malformed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    let secret = TokenSecret::generate().unwrap();
    let hex = secret.expose_secret_hex().to_string();
    for (content, ok) in [
        (hex.clone(), true),
        (format!("{hex}\n"), true),
        (format!("{hex}\n\n"), false),
        (format!("{hex} \n"), false),
        (format!("{hex}\r\n"), false),
        (hex.to_uppercase(), false),
        (String::new(), false),
    ] {
        fs::write(&path, &content).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let got = read_token_file(&path);
        assert_eq!(got.is_ok(), ok, "{content:?}");
        if !ok {
            assert!(matches!(got, Err(TokenFileError::Malformed { .. })));
        }
    }
}

#[test]
fn a_token_file_open_to_group_or_others_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    write_token_file(&path, &TokenSecret::generate().unwrap()).unwrap();
    for m in [0o640, 0o604, 0o620, 0o602, 0o644, 0o666] {
        fs::set_permissions(&path, fs::Permissions::from_mode(m)).unwrap();
        let err = read_token_file(&path).err().unwrap();
        assert!(
            matches!(err, TokenFileError::TooOpen { mode, .. } if mode == m),
            "{err}"
        );
        let msg = err.to_string();
        assert!(
            msg.contains("group or others") && msg.contains("chmod 600"),
            "{msg}"
        );
    }
}

#[test]
fn a_token_file_owned_by_someone_else_is_refused() {
    if !rustix::process::geteuid().is_root() {
        return; // only root can hand a file to another uid
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t");
    write_token_file(&path, &TokenSecret::generate().unwrap()).unwrap();
    std::os::unix::fs::chown(&path, Some(4242), None).unwrap();
    let err = read_token_file(&path).err().unwrap();
    assert!(
        matches!(err, TokenFileError::NotOwned { owner: 4242, .. }),
        "{err}"
    );
}

#[test]
fn a_symlinked_token_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    write_token_file(&real, &TokenSecret::generate().unwrap()).unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert!(matches!(
        read_token_file(&link),
        Err(TokenFileError::WrongKind { .. })
    ));
}

#[test]
fn a_missing_token_file_is_an_io_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent");
    let err = read_token_file(&path).err().unwrap();
    assert!(err.to_string().contains(&path.display().to_string()));
}

#[test]
fn a_client_library_client_reads_its_own_file_beside_the_socket() {
    if std::env::var_os(devint_net::token_file::TOKEN_FILE_ENV).is_some_and(|v| !v.is_empty()) {
        println!("skipped: AA_DEVINT_TOKEN_FILE is set in this environment");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("devint.sock");
    let vscode = ClientName::parse("vscode").unwrap();
    let secret = TokenSecret::generate().unwrap();
    write_token_file(&dir.path().join("vscode.token"), &secret).unwrap();
    write_token_file(
        &dir.path().join("devint.token"),
        &TokenSecret::generate().unwrap(),
    )
    .unwrap();
    let loaded = load_token(&socket, &vscode).unwrap();
    assert_eq!(loaded.expose_secret_hex(), secret.expose_secret_hex());
    let other = ClientName::parse("cursor").unwrap();
    assert!(load_token(&socket, &other).is_err(), "no file of its own");
}
