//! Embed the DI-API server in a runtime with a tiny custom backend.
//!
//! `cargo run --example embed_server -- /tmp/demo/devint.sock` serves until Ctrl-C and
//! writes the client's token to `devint.token` beside the socket. With no argument it
//! serves in a temporary directory, checks itself with the client, and exits.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::{fs, sync::Arc, time::Duration};

use devint::audit::TracingAuditSink;
use devint::auth::ToolScope;
use devint::auth::{write_token_file, BookFile, ClientName, Scope, SharedBook, TokenSecret};
use devint::lifecycle::{Lifecycle, LifecycleError as E};
use devint::session::{Authorization as A, ToolAuthorization as T};
use devint::verbs::*;
use devint::{client::DevIntClient, server::Server, transport::bind_secure};

type Error = Box<dyn std::error::Error>;

/// A read-only backend that knows one tool and reports it as not integrated.
struct Demo;

fn no() -> E {
    let why = Sentence::from_static("this demo runtime is read-only");
    E::refused(why, Sentence::from_static("call status instead"))
}

#[rustfmt::skip] // One line per verb reads better here than rustfmt's layout.
impl Lifecycle for Demo {
    fn knows_tool(&self, tool: &ToolId) -> bool { tool.as_str() == "demo-tool" }
    fn list_tools(&self, _: &A) -> Result<ToolList, E> { Ok(ToolList { tools: vec![] }) }
    fn plan(&self, _: &T, _: &PlanArgs) -> Result<PlanView, E> { Err(no()) }
    fn apply(&self, _: &T, _: &PlanId) -> Result<ApplyView, E> { Err(no()) }
    fn verify(&self, _: &T) -> Result<VerificationView, E> { Err(no()) }
    fn repair(&self, _: &T) -> Result<RepairView, E> { Err(no()) }
    fn remove(&self, _: &T, _: Option<&PlanId>) -> Result<RemovalView, E> { Err(no()) }
    fn scoped_events(&self, _: &T, _: u32, _: u64) -> Result<ScopedEventList, E> { Err(no()) }
    fn approval_relay(&self, _: &T, _: &ApprovalId, _: UserInput) -> Result<ApprovalRelayAck, E> { Err(no()) }
    fn status(&self, auth: &T) -> Result<StatusView, E> {
        Ok(StatusView {
            tool_id: auth.tool().clone(), phase: Phase::DetectedNotIntegrated, state: StatusState::Ladder,
            achieved_level: Level::DetectedNotIntegrated, planned_level: None, next_level: None,
            adapter_ceiling: AdapterCeiling::L0Discover, compatibility: Compatibility::Unknown,
            evidence: vec![], observed_at_unix_secs: auth.now(), drift_mismatched: vec![],
            state_reason: None, state_remediation: None, policy: None,
        })
    }
}

/// What a client sees: `status` of the demo tool.
async fn self_test(socket: &Path, secret: TokenSecret) -> Result<(), Error> {
    let client = DevIntClient::connect(socket, "self-test", "0").await?;
    let status = client
        .authorize(secret)
        .status(ToolId::parse("demo-tool")?)
        .await?;
    let (tool, at) = (status.tool_id.as_str(), status.observed_at_unix_secs);
    println!("self-test: {tool} is {:?} (observed at {at})", status.phase);
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Error> {
    let dir = tempfile::Builder::new()
        .prefix("devint-demo")
        .tempdir_in("/tmp")?;
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o700))?;
    let arg = std::env::args().nth(1).map(PathBuf::from);
    let socket = arg
        .clone()
        .unwrap_or_else(|| dir.path().join("devint.sock"));
    // The enrolment book: one read-only token for the client.
    let book = BookFile::new(dir.path().join("book.json"));
    let (name, hour) = (ClientName::parse("demo")?, Duration::from_secs(3600));
    let now = devint::server::unix_now();
    let scope = Scope::read_only(ToolScope::All);
    let (_, secret) = book.update(|b| b.issue(name, scope, hour, now))?;
    let (book, audit) = (
        Arc::new(SharedBook::open(book)?),
        Arc::new(TracingAuditSink),
    );
    let server = Server::builder(book, Arc::new(Demo), audit).build();
    let bound = bind_secure(&socket)?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = server.serve(bound, async {
        let _ = stopped.await;
    });
    if arg.is_some() {
        write_token_file(&socket.with_file_name("devint.token"), &secret)?;
        println!("serving on {}; Ctrl-C to stop", socket.display());
        tokio::spawn(async move { (tokio::signal::ctrl_c().await, stop.send(())) });
        return Ok(serving.await?);
    }
    let self_test = async {
        let checked = self_test(&socket, secret).await;
        let _ = stop.send(()); // Stop serving whether or not the check passed.
        checked
    };
    let (served, checked) = tokio::join!(serving, self_test);
    served?;
    checked
}
