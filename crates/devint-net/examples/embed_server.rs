//! Embed the DI-API server in a runtime with a tiny custom backend, then check it with the
//! client. `cargo run --example embed_server` serves in a private temporary directory,
//! answers one authorised `status`, and exits. A real runtime would serve until shutdown.
//! The embedding itself (the backend and the lines up to `server.serve`) is under 50 lines of
//! code; the rest is this example's own client check.

use std::{sync::Arc, time::Duration};

use devint::audit::TracingAuditSink;
use devint::auth::{ClientName, Scope, ToolScope};
use devint::backend::{Authorization as A, Lifecycle, LifecycleError as E, ToolAuthorization as T};
use devint::verbs::*;
use devint_net::book::{BookFile, SharedBook};
use devint_net::{client::DevIntClient, server::Server, transport};

/// A read-only backend that knows one tool and reports it as detected, not integrated.
struct Demo;

fn no() -> E {
    E::refused(
        Sentence::from_static("this demo runtime is read-only"),
        Sentence::from_static("call status"),
    )
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
    fn scoped_events(&self, _: &T, _: u32, _: devint::time::UnixSecs) -> Result<ScopedEventList, E> { Err(no()) }
    fn approval_relay(&self, _: &T, _: &ApprovalId, _: UserInput) -> Result<ApprovalRelayAck, E> { Err(no()) }
    fn status(&self, auth: &T) -> Result<StatusView, E> { Ok(StatusView {
        tool_id: auth.tool().clone(), phase: Phase::DetectedNotIntegrated, state: StatusState::Ladder,
        achieved_level: Level::DetectedNotIntegrated, planned_level: None, next_level: None,
        adapter_ceiling: AdapterCeiling::L0Discover, compatibility: Compatibility::Unknown,
        evidence: vec![], observed_at_unix_secs: auth.now(), drift_mismatched: vec![],
        state_reason: None, state_remediation: None, policy: None, unrecognized: vec![],
    }) }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .tempdir_in("/tmp")?;
    // Enrol one read-only client (a real runtime does this through `devint enrol`).
    let book = BookFile::new(dir.path().join("book.json"));
    let (who, scope) = (ClientName::parse("demo")?, Scope::read_only(ToolScope::All));
    let now = devint::time::UnixSecs::from_system_time(std::time::SystemTime::now());
    let (_, secret) = book.update(|b| b.issue(who, scope, Duration::from_secs(3600), now))?;
    // Bind 0700/0600 and serve with the book, the backend and an audit sink.
    let socket = transport::bind_secure(&dir.path().join("run/devint.sock"))?;
    let path = socket.path().to_path_buf();
    let (book, audit) = (
        Arc::new(SharedBook::open(book)?),
        Arc::new(TracingAuditSink),
    );
    let server = Server::builder(book, Arc::new(Demo), audit).build();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = server.serve(socket, async { stopped.await.unwrap_or(()) });
    // A client: negotiate, authorise, ask for a status, then stop the server.
    let asking = async move {
        let client = DevIntClient::connect(&path, "embed-example", "0").await;
        let status = match client {
            Ok(c) => {
                c.authorize(secret)
                    .status(ToolId::parse("demo-tool")?)
                    .await
            }
            Err(e) => Err(e),
        };
        let _ = stop.send(());
        let status = status?;
        println!(
            "demo-tool: {} at {}",
            status.achieved_level, status.observed_at_unix_secs
        );
        Ok::<_, Box<dyn std::error::Error>>(())
    };
    let (served, asked) = tokio::join!(serving, asking);
    served?;
    asked
}
