//! Use the DI-API client: negotiate, read provenance, render a status.
//!
//! `cargo run --example client --features test-support` starts an in-process runtime on
//! `CountingBackend` in a temporary directory, enrols client `example` with its token in
//! its own file beside the socket (`example.token`, as `devint enrol --client example`
//! writes it), then:
//! 1. connects offering only DI-API version 1, to show a degraded outcome and the verbs it
//!    makes unavailable;
//! 2. connects offering the whole window, shows the runtime's provenance (version ≥ 4),
//!    and renders `status` with its timestamp.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use devint::audit::MemoryAuditSink;
use devint::auth::{ClientName, Scope, TokenSecret, ToolScope};
use devint::testing::CountingBackend;
use devint::time::UnixSecs;
use devint::verbs::{StatusView, ToolId};
use devint_net::book::{BookFile, SharedBook};
use devint_net::client::{load_token, own_token_file, ClientIoError, ClientOptions, DevIntClient};
use devint_net::server::Server;
use devint_net::token_file::write_token_file;
use devint_net::transport::bind_secure;

type Error = Box<dyn std::error::Error>;

async fn use_the_client(socket: &Path, client: &ClientName) -> Result<(), Error> {
    // The token file spec §7's rule names for this client (AA_DEVINT_TOKEN_FILE, else its
    // own <client_name>.token beside the socket), refused if others can read it.
    let token = load_token(socket, client)?;
    // 1. An old client: only version 1 on offer.
    let v1_only = ClientOptions {
        versions: vec![1],
        ..ClientOptions::default()
    };
    let old = DevIntClient::connect_with(socket, "example-old", "0.1.0", v1_only).await?;
    let ack = old.ack();
    println!(
        "offered [1]: version {} ({}), unavailable verbs: {}",
        old.version(),
        if old.is_degraded() {
            "DEGRADED"
        } else {
            "SUPPORTED"
        },
        ack.unavailable_verbs.join(", ")
    );
    println!("  reason: {}", ack.degraded_reason);
    println!("  remediation: {}", ack.remediation);
    // A verb the negotiated version lacks fails locally, without a round trip.
    let mut old = old.authorize(TokenSecret::parse(&token.expose_secret_hex())?);
    let tool = ToolId::parse("codex")?;
    match old.scoped_events(tool.clone(), 10, UnixSecs::new(0)).await {
        Err(ClientIoError::Session(e)) => println!("  scoped_events: {e}"),
        other => println!("  scoped_events unexpectedly: {:?}", other.map(|_| ())),
    }

    // 2. A current client: the whole window.
    let current = DevIntClient::connect(socket, "example", "0.1.0").await?;
    println!("offered [1..=5]: version {}", current.version());
    if let Some(p) = current.provenance() {
        println!(
            "  runtime: core {} build {} ({}), pid {}, executable present: {}",
            p.core_version, p.build_sha, p.build_id_source, p.pid, p.executable_present
        );
    }
    let mut client = current.authorize(token);
    let tools = client.list_tools().await?;
    let ids: Vec<&str> = tools.tools.iter().map(|t| t.tool_id.as_str()).collect();
    println!("  tools: {}", ids.join(", "));
    render(&client.status(tool).await?);
    Ok(())
}

/// One status, with its observation time.
fn render(status: &StatusView) {
    let observed = UNIX_EPOCH + Duration::from_secs(status.observed_at_unix_secs.get());
    let age = observed.elapsed().unwrap_or_default().as_secs();
    println!(
        "  {}: {:?} (achieved {:?}, ceiling {:?}), observed at unix {} ({age} s ago)",
        status.tool_id.as_str(),
        status.phase,
        status.achieved_level,
        status.adapter_ceiling,
        status.observed_at_unix_secs
    );
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    // An in-process runtime so the example runs standalone.
    let dir = tempfile::Builder::new()
        .prefix("devint-client")
        .tempdir_in("/tmp")?;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700))?;
    let socket = dir.path().join("devint.sock");
    let book = BookFile::new(dir.path().join("book.json"));
    let name = ClientName::parse("example")?;
    let scope = Scope::read_only(ToolScope::All);
    let hour = Duration::from_secs(3600);
    let (_, token) = book.update(|b| {
        b.issue(
            name.clone(),
            scope,
            hour,
            UnixSecs::from_system_time(SystemTime::now()),
        )
    })?;
    write_token_file(&own_token_file(&socket, &name), &token)?;
    let server = Server::builder(
        Arc::new(SharedBook::open(book)?),
        Arc::new(CountingBackend::default()),
        Arc::new(MemoryAuditSink::new()),
    )
    .build();
    let bound = bind_secure(&socket)?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = server.serve(bound, async {
        let _ = stopped.await;
    });
    let using = async {
        let used = use_the_client(&socket, &name).await;
        let _ = stop.send(());
        used
    };
    let (served, used) = tokio::join!(serving, using);
    served?;
    used
}
