//! `devint serve` checks its gateway URL before it binds anything: a value that is not an
//! absolute http(s) URL, or that carries credentials, stops it with a usage error naming
//! the flag and what is wrong — never the value, which may hold a password. A policy
//! profile document whose URL is refused is named at start (serving goes on).

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

#[test]
fn serve_names_a_profile_document_whose_url_is_refused_at_start() {
    let mut sb = Sandbox::new();
    let profiles = sb.state().join("devint/runtime/profiles");
    std::os::unix::fs::DirBuilderExt::mode(std::fs::DirBuilder::new().recursive(true), 0o700)
        .create(&profiles)
        .unwrap();
    std::fs::write(
        profiles.join("team.toml"),
        "proxy_url = \"http://ops:hunter2secret@proxy.example:3128\"\n",
    )
    .unwrap();
    let n = sb.serve();
    let said = sb.serve_output(n);
    assert!(
        said.contains("warning: the policy profile team does not load: line 1 (proxy_url)"),
        "{said}"
    );
    assert!(said.contains("carries credentials"), "{said}");
    assert!(!said.contains("hunter2"), "{said}");
    assert!(
        !said.contains("recommended does not load"),
        "the built-ins load: {said}"
    );
    sb.terminate(n);
}
