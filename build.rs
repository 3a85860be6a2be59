//! Build script: compiles `proto/devint.proto` with the pure-Rust `protox` compiler (no
//! system `protoc` is needed) into `prost` types, and emits the build identity used by
//! `src/provenance` (spec §8).

use std::path::Path;

fn main() {
    compile_proto();
    emit_build_identity();
}

fn compile_proto() {
    println!("cargo:rerun-if-changed=proto/devint.proto");
    let fds = protox::compile(["proto/devint.proto"], ["proto"])
        .expect("proto/devint.proto must compile with protox");
    // The generated module goes to its own directory under OUT_DIR (`src/wire/mod.rs`
    // includes it from there).
    let out_dir =
        std::path::PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("pb");
    std::fs::create_dir_all(&out_dir).expect("OUT_DIR is writable");
    let mut config = prost_build::Config::new();
    config.skip_protoc_run();
    config.out_dir(&out_dir);
    // A request carries the capability token and client-supplied text: the `Debug` of it and
    // of its argument messages is written by hand (`src/verbs/request_debug.rs`) and never
    // shows the token or anything credential-shaped.
    config.skip_debug([
        ".assembly.devint.v1.Request",
        ".assembly.devint.v1.PlanArgs",
        ".assembly.devint.v1.ApplyArgs",
        ".assembly.devint.v1.RemoveArgs",
        ".assembly.devint.v1.ApprovalRelayArgs",
    ]);
    // `Response` holds every verb's view inline, so without this it is ~1.7 KB and every
    // answer moves that much several times on its way out; boxed, the large views cost an
    // allocation only when set (the hot `status` and `list_tools` answers are written
    // without building a `Response` at all: `src/verbs/views/*_response.rs`).
    for field in [
        "plan",
        "apply",
        "status",
        "verification",
        "repair",
        "removal",
    ] {
        config.boxed(format!(".assembly.devint.v1.Response.{field}"));
    }
    config
        .compile_fds(fds)
        .expect("prost-build must generate code for assembly.devint.v1");
}

// spec[S8-BUILD-ID] §8: injected → checkout → packaged → absent, first source that works.
/// Build identity, first source that works (spec §8): `AA_BUILD_SHA` if it is at least 40
/// hex digits (`injected`) → `git rev-parse HEAD` of this crate's checkout (`checkout`) →
/// `.cargo_vcs_info.json` `sha1` unless dirty (`packaged`) → `unknown` (`absent`).
fn emit_build_identity() {
    println!("cargo:rerun-if-env-changed=AA_BUILD_SHA");
    println!("cargo:rerun-if-env-changed=AA_BUILD_SOURCE_PATH");
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let (sha, source) = identity(Path::new(&manifest_dir));
    println!("cargo:rustc-env=DEVINT_BUILD_SHA={sha}");
    println!("cargo:rustc-env=DEVINT_BUILD_ID_SOURCE={source}");
    let source_path = match std::env::var("AA_BUILD_SOURCE_PATH") {
        Ok(v) => v,
        Err(_) => manifest_dir.clone(),
    };
    println!("cargo:rustc-env=DEVINT_BUILD_SOURCE_PATH={source_path}");
}

fn is_sha(s: &str) -> bool {
    s.len() >= 40 && s.chars().all(|c| c.is_ascii_hexdigit())
}

fn identity(manifest_dir: &Path) -> (String, &'static str) {
    if let Ok(injected) = std::env::var("AA_BUILD_SHA") {
        let injected = injected.trim().to_ascii_lowercase();
        if is_sha(&injected) {
            return (injected, "injected");
        }
        // spec[S8-BUILD-ID] §8: an AA_BUILD_SHA under 40 hex digits is refused with a warning.
        println!("cargo:warning=AA_BUILD_SHA is not at least 40 hex digits; ignored (spec §8)");
    }
    let git_head = manifest_dir.join(".git");
    if git_head.exists() {
        println!("cargo:rerun-if-changed=.git/HEAD");
        if let Ok(out) = std::process::Command::new("git")
            .arg("-C")
            .arg(manifest_dir)
            .args(["rev-parse", "HEAD"])
            .output()
        {
            let sha = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && is_sha(&sha) {
                if let Ok(head) = std::fs::read_to_string(git_head.join("HEAD")) {
                    if let Some(r) = head.trim().strip_prefix("ref: ") {
                        println!("cargo:rerun-if-changed=.git/{r}");
                    }
                }
                return (sha, "checkout");
            }
        }
    }
    let vcs = manifest_dir.join(".cargo_vcs_info.json");
    if let Ok(text) = std::fs::read_to_string(&vcs) {
        let dirty = text.contains("\"dirty\": true") || text.contains("\"dirty\":true");
        if !dirty {
            if let Some(sha) = text
                .split("\"sha1\"")
                .nth(1)
                .and_then(|rest| rest.split('"').nth(1))
            {
                if is_sha(sha) {
                    return (sha.to_string(), "packaged");
                }
            }
        }
    }
    ("unknown".to_string(), "absent")
}
