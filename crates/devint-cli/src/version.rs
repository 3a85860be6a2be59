//! `devint --version` (one line) and `devint version` (this build, the DI-API versions it
//! speaks, and the runtime's build when one answers, like `docker version`).
//!
//! This module owns how the build identity compiled into the binary is shown. `devint
//! version` negotiates with the runtime (a `Hello` needs no token) but sends no request,
//! and reports the runtime's standing without refusing on it: this is where a person looks
//! to see why a runtime is refuted.

use devint::provenance::BuildIdentity;
use devint::version::{LIFECYCLE_SCHEMA_VERSION, MAX_SUPPORTED, MIN_SUPPORTED};
use serde_json::{json, Value};

use crate::connect;
use crate::exit::{CliError, Exit};
use crate::output::Out;
use crate::socket::SocketChoice;
use crate::standing;
use crate::words;

/// The first 12 characters of a commit, or `unknown`.
fn short_sha(sha: &str) -> &str {
    if sha.is_empty() || sha.eq_ignore_ascii_case("unknown") {
        "unknown"
    } else {
        &sha[..sha.len().min(12)]
    }
}

/// `--version`'s text after the name: `0.1.0 (34cbd4c17acf)`.
pub fn short() -> String {
    let ours = BuildIdentity::compiled();
    format!("{} ({})", ours.core_version, short_sha(&ours.sha))
}

fn client_json() -> Value {
    let ours = BuildIdentity::compiled();
    json!({
        "version": ours.core_version,
        "build_sha": ours.sha,
        "build_id_source": ours.source.token(),
        "source_path": BuildIdentity::compiled_source_path(),
        "di_api_versions": { "min": MIN_SUPPORTED, "max": MAX_SUPPORTED },
        "lifecycle_schema_version": LIFECYCLE_SCHEMA_VERSION,
    })
}

fn source_words(token: &str) -> &'static str {
    match token {
        "injected" => "injected at build time",
        "checkout" => "from the source checkout",
        "packaged" => "from the packaged crate",
        _ => "no build identity recorded",
    }
}

/// Run `devint version`.
pub async fn run(out: &Out, choice: &SocketChoice) -> Result<Exit, CliError> {
    let socket = choice.path();
    let client = client_json();
    let runtime = match connect::negotiate(choice).await {
        Ok(n) => Some((n.info, standing::explain(&n.standing))),
        Err(e) if e.exit == Exit::NotRunning => None,
        Err(e) => return Err(e),
    };
    let doc = json!({ "client": client, "runtime_reachable": runtime.is_some() });
    let info = runtime.as_ref().map(|(info, _)| info);
    out.result("version", info, &doc, |p| {
        let ours = BuildIdentity::compiled();
        let mut text = format!(
            "{} {}\n  commit:  {} ({})\n",
            p.s.bold("devint"),
            ours.core_version,
            ours.sha,
            source_words(ours.source.token())
        );
        let path = BuildIdentity::compiled_source_path();
        if !path.is_empty() {
            text.push_str(&format!("  source:  {path}\n"));
        }
        text.push_str(&format!(
            "  DI-API:  versions {MIN_SUPPORTED} to {MAX_SUPPORTED}, lifecycle schema {LIFECYCLE_SCHEMA_VERSION}\n\n"
        ));
        match &runtime {
            None => text.push_str(&format!(
                "{} no runtime is running at {} (`devint serve` starts one)\n",
                p.s.bold("runtime:"),
                socket.display()
            )),
            Some((info, why)) => {
                text.push_str(&format!("{} {}\n", p.s.bold("runtime at"), socket.display()));
                match info["provenance"].as_object() {
                    Some(prov) => {
                        let sha = prov["build_sha"].as_str().unwrap_or("");
                        text.push_str(&format!(
                            "  devint:  {}\n  commit:  {} ({})\n  pid:     {}, started {}\n  binary:  {}{}\n",
                            prov["core_version"].as_str().unwrap_or("?"),
                            sha,
                            source_words(prov["build_id_source"].as_str().unwrap_or("absent")),
                            prov["pid"],
                            words::time(prov["started_at_unix_secs"].as_u64().unwrap_or(0)),
                            prov["executable_path"].as_str().unwrap_or("?"),
                            if prov["executable_present"] == json!(false) {
                                " (replaced or deleted since it started)"
                            } else {
                                ""
                            }
                        ));
                    }
                    None => text.push_str(&format!(
                        "  devint:  {} (it sent no provenance)\n",
                        info["core_version"].as_str().unwrap_or("?")
                    )),
                }
                text.push_str(&format!(
                    "  DI-API:  {} negotiated with this devint{}\n  standing: {}{}\n",
                    info["di_api_version"],
                    if info["degraded"] == json!(true) { " (degraded)" } else { "" },
                    info["standing"].as_str().unwrap_or("?"),
                    if why.is_empty() { String::new() } else { format!(" — {why}") }
                ));
            }
        }
        text
    })?;
    Ok(Exit::Ok)
}
