//! Every method's params, read by name and typed: unknown keys are refused (a misspelt
//! optional key must not be silently ignored), identifiers go through the core's parsers,
//! vocabulary tokens through the core's vocabularies (spec §4), so a call the sidecar sends
//! is exactly one the Rust client could have built.
//!
//! This module owns the params shapes of `devint.sidecar.v1` (documented in
//! `docs/sidecar-protocol.md` and the `--schema` output) and their conversion into
//! [`SessionCall`]s. It must never default a mandatory argument (a plan's settings scope is
//! never inferred) and never echo a refused value.

use std::path::PathBuf;
use std::time::Duration;

use devint::auth::ClientName;
use devint::verbs::{
    ApprovalId, Level, OutsideVocabulary, PlanArgs, PlanId, PolicyProfileId, Profile,
    SettingsScope, ToolId, UserInput, VerbCall,
};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::error::{ErrorKind, SidecarError};
use crate::method::{Method, PROTOCOL};

/// The longest params error message (serde's wording can quote a value).
const MESSAGE_MAX: usize = 300;

/// Read `params` as `T`, refusing unknown keys and wrong types.
pub fn read<T: DeserializeOwned>(
    method: Method,
    params: Map<String, Value>,
) -> Result<T, SidecarError> {
    serde_json::from_value(Value::Object(params)).map_err(|e| {
        let mut text = e.to_string();
        if text.len() > MESSAGE_MAX {
            let mut cut = MESSAGE_MAX;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push('…');
        }
        SidecarError::params(format!("{} params: {text}", method.name())).fix(format!(
            "see the params of {} in docs/sidecar-protocol.md (or `devint sidecar --schema`)",
            method.name()
        ))
    })
}

/// `initialize` params (all optional).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitializeParams {
    /// The host's name, for the log.
    pub client_name: Option<String>,
    /// The host's version, for the log.
    pub client_version: Option<String>,
    /// The sidecar protocols the host speaks; when given, it must include ours.
    pub protocols: Option<Vec<String>>,
}

impl InitializeParams {
    /// Refuse a host that names the protocols it speaks and ours is not among them.
    pub fn check_protocol(&self) -> Result<(), SidecarError> {
        match &self.protocols {
            Some(list) if !list.iter().any(|p| p == PROTOCOL) => Err(SidecarError::new(
                ErrorKind::InvalidParams,
                format!("this sidecar speaks only {PROTOCOL}, which `protocols` does not list"),
            )
            .fix(format!(
                "add \"{PROTOCOL}\" to `protocols`, or use a sidecar that speaks yours"
            ))),
            _ => Ok(()),
        }
    }
}

/// `runtime/discover` params.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscoverParams {
    /// An explicit socket path (absolute).
    pub socket: Option<PathBuf>,
}

/// `session/open` params.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpenParams {
    /// An explicit socket path (absolute); default as `runtime/discover` finds it.
    pub socket: Option<PathBuf>,
    /// The host's name, sent in `Hello`.
    pub client_name: String,
    /// The host's version, sent in `Hello`.
    pub client_version: String,
    /// The token file to read (mode `0600`).
    pub token_file: Option<PathBuf>,
    /// The enrolled client whose token file (`NAME.token` beside the socket) to read.
    pub client: Option<String>,
    /// Let privileged verbs proceed on an *unverifiable* runtime (never a refuted one).
    #[serde(default)]
    pub allow_unverified_runtime: bool,
    /// The DI-API versions to offer (default: the whole window).
    pub di_api_versions: Option<Vec<u32>>,
}

/// Where the session's token comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenSource {
    /// An explicit file.
    File(PathBuf),
    /// The named client's file beside the socket.
    Client(ClientName),
    /// Spec §7's rule for the host, the client named by `client_name` (`None` when that is
    /// no client name): `AA_DEVINT_TOKEN_FILE`, else `<client_name>.token` beside the socket
    /// ([`devint_net::client::token_file`], as every client we ship).
    Default(Option<ClientName>),
}

impl OpenParams {
    /// Check the Hello strings and pick the token source.
    pub fn token_source(&self) -> Result<TokenSource, SidecarError> {
        for (field, value) in [
            ("client_name", &self.client_name),
            ("client_version", &self.client_version),
        ] {
            if value.is_empty() || value.len() > 128 || value.chars().any(char::is_control) {
                return Err(SidecarError::params(format!(
                    "session/open {field} must be 1 to 128 characters without control characters"
                ))
                .fix(format!("set {field} to your host's {}", &field[7..])));
            }
        }
        if let Some(socket) = &self.socket {
            absolute("socket", socket)?;
        }
        match (&self.token_file, &self.client) {
            (Some(_), Some(_)) => Err(SidecarError::params(
                "session/open takes `token_file` or `client`, not both",
            )
            .fix("pass the token file's path, or the enrolled client's name")),
            (Some(file), None) => {
                absolute("token_file", file)?;
                Ok(TokenSource::File(file.clone()))
            }
            (None, Some(name)) => ClientName::parse(name)
                .map(TokenSource::Client)
                .map_err(|e| SidecarError::params(format!("session/open client: {e}"))),
            (None, None) => Ok(TokenSource::Default(
                ClientName::parse(&self.client_name).ok(),
            )),
        }
    }
}

fn absolute(field: &str, path: &std::path::Path) -> Result<(), SidecarError> {
    if path.is_absolute() {
        Ok(())
    } else {
        Err(
            SidecarError::params(format!("session/open {field} must be an absolute path"))
                .fix(format!("pass {field} as an absolute path")),
        )
    }
}

/// The key naming a session in params, results and notifications. Every key
/// `devint.sidecar.v1` defines is snake_case, as the DI-API's own names are (spec §3); only
/// the JSON-RPC envelope keeps JSON-RPC's names.
pub const SESSION_ID: &str = "session_id";

/// The camelCase spelling of [`SESSION_ID`] that earlier releases used, deprecated: for one
/// release it is still accepted in params and still sent beside `session_id` in results
/// and notifications, so a host written against it keeps working while it moves over.
pub const DEPRECATED_SESSION_ID: &str = "sessionId";

/// Both spellings of the session's name, for a result or a notification: `session_id`, and
/// the deprecated `sessionId` for hosts that still read it.
pub fn session_keys(id: &str) -> Map<String, Value> {
    let mut keys = Map::new();
    keys.insert(SESSION_ID.to_owned(), Value::String(id.to_owned()));
    keys.insert(
        DEPRECATED_SESSION_ID.to_owned(),
        Value::String(id.to_owned()),
    );
    keys
}

/// The `session_id` every session method takes (or the deprecated `sessionId`), removed
/// from its params. Naming the session both ways is refused: the two could disagree.
pub fn take_session_id(
    method: Method,
    params: &mut Map<String, Value>,
) -> Result<String, SidecarError> {
    let current = params.remove(SESSION_ID);
    let deprecated = params.remove(DEPRECATED_SESSION_ID);
    match (current, deprecated) {
        (Some(Value::String(id)), None) => Ok(id),
        (None, Some(Value::String(id))) => {
            warn_deprecated_session_id();
            Ok(id)
        }
        (Some(_), Some(_)) => Err(SidecarError::params(format!(
            "{} names its session twice (`session_id` and `sessionId`)",
            method.name()
        ))
        .fix("pass `session_id` only; `sessionId` is its deprecated spelling")),
        _ => Err(
            SidecarError::params(format!("{} needs `session_id` (a string)", method.name()))
                .fix("pass the session_id that session/open returned"),
        ),
    }
}

/// Say once per process, on stderr, that a host still spells `session_id` the old way.
fn warn_deprecated_session_id() {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        tracing::warn!(
            "the host names a session `sessionId`: deprecated, accepted for this release only; \
             send `session_id`"
        );
    });
}

/// What a session does for a method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionCall {
    /// Send one verb.
    Verb(VerbCall),
    /// `events/follow`.
    Follow(FollowRequest),
    /// `session/close`.
    Close,
    /// A request naming this session whose params were refused: answered with this error in
    /// its place in the session's order.
    Refuse(Box<SidecarError>),
}

/// `events/follow`, typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowRequest {
    /// The tool.
    pub tool: ToolId,
    /// The most events per poll (0 = the runtime's default).
    pub limit: u32,
    /// Only events at or after this time.
    pub since: u64,
    /// Keep following after the first answer.
    pub follow: bool,
    /// How often to poll while following.
    pub interval: Duration,
}

/// Shortest and longest follow poll interval, and the default.
pub const FOLLOW_INTERVAL_MIN: Duration = Duration::from_millis(100);
/// See [`FOLLOW_INTERVAL_MIN`].
pub const FOLLOW_INTERVAL_MAX: Duration = Duration::from_secs(3600);
/// See [`FOLLOW_INTERVAL_MIN`].
pub const FOLLOW_INTERVAL_DEFAULT: Duration = Duration::from_secs(2);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolArgs {
    tool_id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanParams {
    tool_id: String,
    settings_scope: String,
    profile: Option<String>,
    requested_level: Option<String>,
    #[serde(default)]
    allow_privileged_host_steps: bool,
    policy_profile_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApplyParams {
    tool_id: String,
    plan_id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoveParams {
    tool_id: String,
    plan_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FollowParams {
    tool_id: String,
    limit: Option<u32>,
    since_unix_secs: Option<u64>,
    follow: Option<bool>,
    interval_ms: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RelayParams {
    tool_id: String,
    approval_id: String,
    user_input: String,
}

fn tool(text: &str) -> Result<ToolId, SidecarError> {
    ToolId::parse(text).map_err(|e| {
        SidecarError::params(format!("tool_id: {e}"))
            .fix("use one of the tool ids tools/list returns (kebab-case, e.g. claude-code)")
    })
}

fn vocab(e: OutsideVocabulary) -> SidecarError {
    SidecarError::params(e.to_string()).fix(e.remediation())
}

fn id<T>(
    field: &str,
    text: &str,
    parse: fn(&str) -> Result<T, devint::verbs::IdRefusal>,
) -> Result<T, SidecarError> {
    parse(text).map_err(|e| {
        SidecarError::params(format!("{field}: {e}"))
            .fix(format!("pass the {field} the runtime returned, unchanged"))
    })
}

/// The call a session method (with `session_id` already taken out) makes.
pub fn session_call(
    method: Method,
    params: Map<String, Value>,
) -> Result<SessionCall, SidecarError> {
    let call = match method {
        Method::Initialize | Method::RuntimeDiscover | Method::SessionOpen => {
            return Err(SidecarError::internal(format!(
                "{} is not a session method",
                method.name()
            )))
        }
        Method::SessionClose => {
            read::<NoArgs>(method, params)?;
            SessionCall::Close
        }
        Method::ToolsList => {
            read::<NoArgs>(method, params)?;
            SessionCall::Verb(VerbCall::ListTools)
        }
        Method::LifecyclePlan => {
            let p: PlanParams = read(method, params)?;
            SessionCall::Verb(VerbCall::Plan {
                tool: tool(&p.tool_id)?,
                args: PlanArgs {
                    profile: match &p.profile {
                        Some(t) => Profile::parse(t).map_err(vocab)?,
                        None => Profile::Recommended,
                    },
                    requested_level: Level::parse_requested(
                        p.requested_level.as_deref().unwrap_or(""),
                    )
                    .map_err(vocab)?,
                    scope: SettingsScope::parse(&p.settings_scope).map_err(vocab)?,
                    allow_privileged_host_steps: p.allow_privileged_host_steps,
                    policy_profile_id: p
                        .policy_profile_id
                        .as_deref()
                        .map(|t| id("policy_profile_id", t, PolicyProfileId::parse))
                        .transpose()?,
                },
            })
        }
        Method::LifecycleApply => {
            let p: ApplyParams = read(method, params)?;
            SessionCall::Verb(VerbCall::Apply {
                tool: tool(&p.tool_id)?,
                plan_id: id("plan_id", &p.plan_id, PlanId::parse)?,
            })
        }
        Method::LifecycleStatus | Method::LifecycleVerify | Method::LifecycleRepair => {
            let p: ToolArgs = read(method, params)?;
            let tool = tool(&p.tool_id)?;
            SessionCall::Verb(match method {
                Method::LifecycleStatus => VerbCall::Status { tool },
                Method::LifecycleVerify => VerbCall::Verify { tool },
                _ => VerbCall::Repair { tool },
            })
        }
        Method::LifecycleRemove => {
            let p: RemoveParams = read(method, params)?;
            SessionCall::Verb(VerbCall::Remove {
                tool: tool(&p.tool_id)?,
                plan_id: p
                    .plan_id
                    .as_deref()
                    .map(|t| id("plan_id", t, PlanId::parse))
                    .transpose()?,
            })
        }
        Method::EventsFollow => {
            let p: FollowParams = read(method, params)?;
            let interval = match p.interval_ms {
                None => FOLLOW_INTERVAL_DEFAULT,
                Some(ms) => {
                    let d = Duration::from_millis(ms);
                    if !(FOLLOW_INTERVAL_MIN..=FOLLOW_INTERVAL_MAX).contains(&d) {
                        return Err(SidecarError::params(format!(
                            "events/follow interval_ms must be {} to {}",
                            FOLLOW_INTERVAL_MIN.as_millis(),
                            FOLLOW_INTERVAL_MAX.as_millis()
                        ))
                        .fix("leave interval_ms out for the default (2000)"));
                    }
                    d
                }
            };
            SessionCall::Follow(FollowRequest {
                tool: tool(&p.tool_id)?,
                limit: p.limit.unwrap_or(0),
                since: p.since_unix_secs.unwrap_or(0),
                follow: p.follow.unwrap_or(true),
                interval,
            })
        }
        Method::ApprovalRelay => {
            let p: RelayParams = read(method, params)?;
            SessionCall::Verb(VerbCall::ApprovalRelay {
                tool: tool(&p.tool_id)?,
                approval_id: id("approval_id", &p.approval_id, ApprovalId::parse)?,
                input: UserInput::parse_as(&p.user_input, "user_input").map_err(vocab)?,
            })
        }
    };
    Ok(call)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn plan_defaults_like_the_cli_but_never_the_scope() {
        let call = session_call(
            Method::LifecyclePlan,
            params(json!({"tool_id": "claude-code", "settings_scope": "user"})),
        )
        .unwrap();
        let SessionCall::Verb(VerbCall::Plan { args, .. }) = call else {
            panic!("a plan")
        };
        assert_eq!(args.profile, Profile::Recommended);
        assert_eq!(args.requested_level, Level::GatewayProtected);
        let e = session_call(
            Method::LifecyclePlan,
            params(json!({"tool_id": "claude-code"})),
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidParams);
        assert!(e.message.contains("settings_scope"));
    }

    #[test]
    fn a_misspelt_key_is_refused_not_ignored() {
        let e = session_call(
            Method::LifecyclePlan,
            params(json!({"tool_id": "codex", "settings_scope": "user", "allow_privileged": true})),
        )
        .unwrap_err();
        assert!(e.message.contains("allow_privileged"), "{}", e.message);
    }

    #[test]
    fn a_token_outside_its_vocabulary_lists_the_accepted_ones_without_echoing() {
        let e = session_call(
            Method::LifecyclePlan,
            params(json!({"tool_id": "codex", "settings_scope": "global-ish"})),
        )
        .unwrap_err();
        assert!(!e.message.contains("global-ish"));
        assert_eq!(
            e.remediation.as_deref(),
            Some("set settings_scope to one of: user, project, managed")
        );
    }

    #[test]
    fn open_takes_a_token_file_or_a_client_never_both_and_only_absolute_paths() {
        let open = |v: Value| -> OpenParams { serde_json::from_value(v).unwrap() };
        let base = json!({"client_name": "h", "client_version": "1"});
        let mut both = base.clone();
        both["token_file"] = json!("/t");
        both["client"] = json!("vscode");
        assert!(open(both).token_source().is_err());
        let mut relative = base.clone();
        relative["token_file"] = json!("t.token");
        assert!(open(relative).token_source().is_err());
        let mut named = base.clone();
        named["client"] = json!("vscode");
        assert_eq!(
            open(named).token_source().unwrap(),
            TokenSource::Client(ClientName::parse("vscode").unwrap())
        );
        let mut slashed = base.clone();
        slashed["client"] = json!("../x");
        assert!(open(slashed).token_source().is_err());
        assert_eq!(
            open(base).token_source().unwrap(),
            TokenSource::Default(Some(ClientName::parse("h").unwrap())),
            "by default, the host's own <client_name>.token"
        );
        let unnamed = json!({"client_name": "My IDE", "client_version": "1"});
        assert_eq!(
            open(unnamed).token_source().unwrap(),
            TokenSource::Default(None)
        );
    }

    #[test]
    fn follow_bounds_its_interval() {
        let e = session_call(
            Method::EventsFollow,
            params(json!({"tool_id": "codex", "interval_ms": 1})),
        )
        .unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidParams);
    }
}
