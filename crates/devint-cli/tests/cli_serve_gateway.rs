//! `devint serve` checks its gateway URL before it binds anything: a value that is not an
//! absolute http(s) URL, or that carries credentials, stops it with a usage error naming
//! the flag and what is wrong — never the value, which may hold a password.

mod cli_support;

use cli_support::Sandbox;

const USAGE: i32 = 2;

#[test]
fn serve_refuses_a_gateway_url_that_is_not_a_url_naming_the_flag() {
    let sb = Sandbox::new();
    let (code, _out, err) = sb.run(&["serve", "--gateway-url", "not a url"]);
    assert_eq!(code, USAGE, "{err}");
    assert!(err.contains("--gateway-url"), "{err}");
    assert!(err.contains("whitespace"), "{err}");
    assert!(!sb.socket().exists(), "nothing was bound");
    let (code, _out, err) = sb.run(&["serve", "--gateway-url", "ftp://gw.example/"]);
    assert_eq!(code, USAGE, "{err}");
    assert!(err.contains("http or https"), "{err}");
}

#[test]
fn serve_refuses_a_gateway_url_with_credentials_without_echoing_the_password() {
    let sb = Sandbox::new();
    let out = sb
        .devint()
        .env(
            "AA_DEVINT_GATEWAY_URL",
            "https://user:hunter2secret@gw.example",
        )
        .arg("serve")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(USAGE), "{err}");
    assert!(err.contains("AA_DEVINT_GATEWAY_URL"), "{err}");
    assert!(err.contains("carries credentials"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("hunter2"));
}

#[test]
fn serve_help_never_shows_the_gateway_url_from_the_environment() {
    let sb = Sandbox::new();
    let out = sb
        .devint()
        .env("AA_DEVINT_GATEWAY_URL", "http://hidden-value.example")
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("AA_DEVINT_GATEWAY_URL"), "{text}");
    assert!(!text.contains("hidden-value"), "{text}");
}
