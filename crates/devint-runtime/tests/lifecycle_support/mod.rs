//! Shared harness for the lifecycle tests: a sandboxed HOME with a fake `claude` on a temp
//! PATH, and a client that reaches the backend only through the session core (proofs are
//! minted by `devint::session`, as in production).

#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use devint::auth::TokenResolver;
use devint::auth::{ClientName, Grant, LiveBook, ResolveError, Scope, ToolScope};
use devint::backend::Lifecycle;
use devint::peer::PeerVerified;
use devint::session::{Admission, AtOnce, Connection, Handshake, Negotiated};
pub use devint::time::UnixSecs;
use devint::verbs::{
    ApplyView, Level, PlanArgs, PlanId, PlanView, PolicyProfileId, Profile, RemovalView,
    SettingsScope, StatusView, ToolId, Verb, VerbCall, VerbResult, VerificationView,
};
pub use devint::version::ApiVersion;
use devint::wire::{pb, ServerFrame};
use devint_runtime::reference::{PolicyUrl, ReferenceRuntime, RuntimeConfig};

/// The instant every test starts at.
pub const T0: UnixSecs = UnixSecs::new(1_800_000_000);

/// A realistic `~/.claude/settings.json`: odd indentation, unrelated keys, user's own
/// deny entries and hooks, no comments (strict JSON).
pub const CLAUDE_SETTINGS: &str = r#"{
   "model": "claude-sonnet-4-5",
   "permissions": {
      "allow": ["Bash(npm run lint)", "Read(~/.zshrc)"],
      "deny": ["Read(./.env)"]
   },
   "env": {
      "DISABLE_TELEMETRY": "1"
   },
   "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
   "includeCoAuthoredBy": false
}
"#;

/// A team policy profile for the sandbox.
pub const TEAM_PROFILE: &str = r#"display_name = "Team default"
gateway_base_url = "http://127.0.0.1:8787/anthropic"
hook_command = "aa-hook pre-tool-use"
deny_tool_patterns = ["Bash(curl:*)", "WebFetch"]
"#;

/// A sandbox: HOME, state dir and a PATH holding a fake `claude`.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub home: PathBuf,
    pub state: PathBuf,
    pub bin: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix("devint-lc-")
            .tempdir_in("/tmp")
            .unwrap();
        Sandbox::at(dir)
    }

    pub fn at(dir: tempfile::TempDir) -> Sandbox {
        let home = dir.path().join("home");
        let state = dir.path().join("state");
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        let claude = bin.join("claude");
        std::fs::write(&claude, "#!/bin/sh\necho '2.0.14 (Claude Code)'\n").unwrap();
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        let sandbox = Sandbox {
            dir,
            home,
            state,
            bin,
        };
        sandbox.write_profile("team", TEAM_PROFILE);
        sandbox
    }

    pub fn config(&self) -> RuntimeConfig {
        config_for(self.dir.path())
    }

    pub fn open(&self) -> ReferenceRuntime {
        ReferenceRuntime::open(self.config()).unwrap()
    }

    /// A runtime whose `--scope project` plans act on `project`.
    pub fn open_with_project(&self, project: &Path) -> ReferenceRuntime {
        let mut config = self.config();
        config.project_dir = Some(project.to_owned());
        ReferenceRuntime::open(config).unwrap()
    }

    pub fn settings(&self) -> PathBuf {
        self.home.join(".claude/settings.json")
    }

    pub fn write_settings(&self, text: &str) {
        std::fs::create_dir_all(self.settings().parent().unwrap()).unwrap();
        std::fs::write(self.settings(), text).unwrap();
    }

    pub fn read_settings(&self) -> Option<String> {
        std::fs::read_to_string(self.settings()).ok()
    }

    pub fn write_profile(&self, id: &str, text: &str) {
        let dir = self.state.join("profiles");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&self.state, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::write(dir.join(format!("{id}.toml")), text).unwrap();
    }

    /// Every file under `state/<sub>`.
    pub fn files(&self, sub: &str) -> Vec<PathBuf> {
        std::fs::read_dir(self.state.join(sub))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    }
}

/// The configuration of a sandbox rooted at `root` (for child processes).
/// A sandbox with the realistic settings file and Claude Code installed under the file
/// policy `team` at user scope, and the client that installed it.
pub fn installed() -> (Sandbox, ReferenceRuntime, Client) {
    let sb = Sandbox::new();
    sb.write_settings(CLAUDE_SETTINGS);
    let rt = sb.open();
    let mut c = Client::new(&book(), "ide");
    c.install(&rt, "team");
    (sb, rt, c)
}

pub fn config_for(root: &Path) -> RuntimeConfig {
    let mut c = RuntimeConfig::new(
        root.join("state"),
        root.join("home"),
        root.join("bin").display().to_string(),
    );
    c.gateway_base_url = Some(PolicyUrl::parse("http://127.0.0.1:8787/anthropic").unwrap());
    c
}

/// The enrolment book, as the server resolves it.
pub struct Book(pub LiveBook);

impl TokenResolver for Book {
    fn resolve(
        &self,
        token: &str,
        verb: Verb,
        tool: &str,
        now: UnixSecs,
    ) -> Result<Grant, ResolveError> {
        self.0
            .resolve(token, verb, tool, now)
            .map_err(ResolveError::Denied)
    }
}

pub fn book() -> Arc<Book> {
    Arc::new(Book(LiveBook::default()))
}

/// A denial as the client sees it.
#[derive(Debug)]
pub struct Refused {
    pub code: i32,
    pub message: String,
    pub remediation: String,
}

/// One enrolled client on one negotiated connection.
pub struct Client {
    book: Arc<Book>,
    token: String,
    conn: Option<Connection<Negotiated>>,
    next: u64,
    pub now: UnixSecs,
    pub version: ApiVersion,
}

impl Client {
    pub fn new(book: &Arc<Book>, name: &str) -> Client {
        Client::with_version(book, name, 5)
    }

    pub fn with_version(book: &Arc<Book>, name: &str, version: u32) -> Client {
        let (_, secret) = book
            .0
            .issue(
                ClientName::parse(name).unwrap(),
                Scope::full_lifecycle(ToolScope::All),
                Duration::from_secs(30 * 24 * 3600),
                T0,
            )
            .unwrap();
        let hello = pb::Hello {
            client_name: name.into(),
            client_version: "1.0.0".into(),
            di_api_versions: (1..=version).collect(),
            lifecycle_schema_versions: vec![1],
        };
        let conn = Connection::new(PeerVerified::for_tests(0), 1);
        let Handshake::Negotiated { conn, .. } =
            conn.handle_hello(&hello, "0.1.0", pb::RuntimeProvenance::default, T0)
        else {
            panic!("negotiation failed")
        };
        Client {
            book: Arc::clone(book),
            token: secret.expose_secret_hex().to_string(),
            conn: Some(conn),
            next: 1,
            now: T0,
            version: ApiVersion::new(version),
        }
    }

    pub fn call(&mut self, backend: &dyn Lifecycle, call: VerbCall) -> Result<VerbResult, Refused> {
        self.exchange(backend, call, false)
            .expect("a call run in full is answered")
    }

    /// The call answered at once (`Dispatch::run_at_once`), or `None` when the backend
    /// could not.
    pub fn call_at_once(
        &mut self,
        backend: &dyn Lifecycle,
        call: VerbCall,
    ) -> Option<Result<VerbResult, Refused>> {
        self.exchange(backend, call, true)
    }

    fn exchange(
        &mut self,
        backend: &dyn Lifecycle,
        call: VerbCall,
        at_once: bool,
    ) -> Option<Result<VerbResult, Refused>> {
        let id = self.next;
        self.next += 1;
        let request = call.to_request(id, &self.token);
        let conn = self.conn.take().unwrap();
        let (conn, frame) = match conn.handle_request(&request, &*self.book, backend, self.now) {
            Admission::Authorized(c) if at_once => {
                let (conn, dispatch) = c.into_dispatch();
                self.conn = Some(conn);
                let AtOnce::Answered(answer) = dispatch.run_at_once(backend, self.now) else {
                    return None;
                };
                (self.conn.take().unwrap(), answer.frame.into_frame())
            }
            Admission::Authorized(c) => {
                let (conn, answer) = c.answer(backend, self.now);
                (conn, answer.frame.into_frame())
            }
            Admission::Denied { conn, denied, .. } => (conn, ServerFrame::Denied(denied)),
        };
        self.conn = Some(conn);
        Some(match frame {
            ServerFrame::Response(r) => {
                Ok(VerbResult::from_response(call.verb(), &r, self.version).unwrap())
            }
            ServerFrame::Denied(d) => Err(Refused {
                code: d.code,
                message: d.message,
                remediation: d.remediation,
            }),
            other => panic!("unexpected frame {other:?}"),
        })
    }

    pub fn plan_with(&mut self, rt: &dyn Lifecycle, args: PlanArgs) -> Result<PlanView, Refused> {
        match self.call(
            rt,
            VerbCall::Plan {
                tool: claude(),
                args,
            },
        )? {
            VerbResult::Plan(p) => Ok(p),
            other => panic!("{other:?}"),
        }
    }

    pub fn plan(&mut self, rt: &dyn Lifecycle, profile_id: &str) -> PlanView {
        self.plan_with(rt, plan_args(Profile::Recommended, Some(profile_id)))
            .unwrap()
    }

    pub fn apply(&mut self, rt: &dyn Lifecycle, plan: &PlanId) -> Result<ApplyView, Refused> {
        match self.call(
            rt,
            VerbCall::Apply {
                tool: claude(),
                plan_id: plan.clone(),
            },
        )? {
            VerbResult::Apply(a) => Ok(a),
            other => panic!("{other:?}"),
        }
    }

    pub fn install(&mut self, rt: &dyn Lifecycle, profile_id: &str) -> ApplyView {
        let plan = self.plan(rt, profile_id);
        self.apply(rt, &plan.plan_id).unwrap()
    }

    pub fn status(&mut self, rt: &dyn Lifecycle) -> StatusView {
        match self.call(rt, VerbCall::Status { tool: claude() }).unwrap() {
            VerbResult::Status(s) => s,
            other => panic!("{other:?}"),
        }
    }

    /// Claude Code's status answered at once, or `None` when the runtime could not.
    pub fn status_at_once(&mut self, rt: &dyn Lifecycle) -> Option<StatusView> {
        match self
            .call_at_once(rt, VerbCall::Status { tool: claude() })?
            .unwrap()
        {
            VerbResult::Status(s) => Some(s),
            other => panic!("{other:?}"),
        }
    }

    pub fn verify(&mut self, rt: &dyn Lifecycle) -> VerificationView {
        match self.call(rt, VerbCall::Verify { tool: claude() }).unwrap() {
            VerbResult::Verify(v) => v,
            other => panic!("{other:?}"),
        }
    }

    pub fn remove(
        &mut self,
        rt: &dyn Lifecycle,
        plan: Option<PlanId>,
    ) -> Result<RemovalView, Refused> {
        match self.call(
            rt,
            VerbCall::Remove {
                tool: claude(),
                plan_id: plan,
            },
        )? {
            VerbResult::Remove(r) => Ok(r),
            other => panic!("{other:?}"),
        }
    }

    /// Preview, then execute, a removal.
    pub fn uninstall(&mut self, rt: &dyn Lifecycle) -> RemovalView {
        let preview = self.remove(rt, None).unwrap();
        self.remove(rt, Some(preview.plan_id)).unwrap()
    }
}

pub fn claude() -> ToolId {
    ToolId::parse("claude-code").unwrap()
}

pub fn plan_args(profile: Profile, policy: Option<&str>) -> PlanArgs {
    PlanArgs {
        profile,
        requested_level: Level::GatewayProtected,
        scope: SettingsScope::User,
        allow_privileged_host_steps: false,
        policy_profile_id: policy.map(|p| PolicyProfileId::parse(p).unwrap()),
    }
}

/// The settings file parsed as JSON.
pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}
