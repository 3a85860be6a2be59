//! [`VerbCall`]: a request's verb with its typed arguments, and [`VerbResult`]: the one view
//! that answers it.
//!
//! This module owns the shape of each verb's arguments and the rule "exactly one view is
//! set, the one for the verb" (spec §6). Parsing refuses a token outside its vocabulary and
//! a missing mandatory argument (a plan's settings scope is never inferred); it never
//! checks tokens or scope (that is `session`/`auth`) and never echoes refused input.

use crate::time::UnixSecs;
use crate::verbs::views::{
    ApplyView, ApprovalRelayAck, PlanView, RemovalView, RepairView, ScopedEventList, StatusView,
    ToolList, VerificationView, ViewError,
};
use crate::verbs::{
    ApprovalId, IdRefusal, Level, MutationVerb, OutsideVocabulary, PlanId, PolicyProfileId,
    Profile, SettingsScope, ToolId, UserInput, Verb,
};
use crate::version::ApiVersion;
use crate::wire::pb;

/// The arguments of `plan`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PlanArgs {
    /// The integration profile.
    pub profile: Profile,
    /// The level asked for (empty on the wire means `gateway_protected`).
    pub requested_level: Level,
    /// The settings scope: mandatory, never inferred from a working directory.
    pub scope: SettingsScope,
    /// Whether privileged host steps may be planned (each still individually consented).
    pub allow_privileged_host_steps: bool,
    /// A policy profile to reference, if any.
    pub policy_profile_id: Option<PolicyProfileId>,
}

/// One verb call with its typed arguments.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "verb", rename_all = "snake_case")]
pub enum VerbCall {
    /// `list_tools`.
    ListTools,
    /// `plan`: a dry-run plan.
    Plan {
        /// The tool.
        tool: ToolId,
        /// The plan's arguments.
        args: PlanArgs,
    },
    /// `apply`: execute a plan.
    Apply {
        /// The tool.
        tool: ToolId,
        /// The plan to execute.
        plan_id: PlanId,
    },
    /// `status`.
    Status {
        /// The tool.
        tool: ToolId,
    },
    /// `verify`.
    Verify {
        /// The tool.
        tool: ToolId,
    },
    /// `repair`.
    Repair {
        /// The tool.
        tool: ToolId,
    },
    /// `remove`: no plan id previews a removal plan; a plan id executes that removal plan.
    Remove {
        /// The tool.
        tool: ToolId,
        /// The removal plan to execute, or `None` to preview one.
        plan_id: Option<PlanId>,
    },
    /// `scoped_events` (v2+).
    ScopedEvents {
        /// The tool.
        tool: ToolId,
        /// The most records wanted (0 = the runtime's default).
        limit: u32,
        /// Only records at or after this time ([`UnixSecs::EPOCH`] = all).
        since: UnixSecs,
    },
    /// `approval_relay` (v2+): relay the user's input; never a decision.
    ApprovalRelay {
        /// The tool.
        tool: ToolId,
        /// The approval.
        approval_id: ApprovalId,
        /// What the user answered.
        input: UserInput,
    },
}

/// A request whose arguments do not fit its verb. Messages never echo the refused input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CallError {
    /// A tool-scoped verb without a `tool_id`.
    #[error("{verb} needs a tool_id")]
    MissingTool {
        /// The verb.
        verb: Verb,
    },
    /// A `tool_id` that is not a tool id.
    #[error("tool_id: {0}")]
    MalformedTool(IdRefusal),
    /// A token outside its vocabulary.
    #[error(transparent)]
    OutsideVocabulary(#[from] OutsideVocabulary),
    /// `plan` without a settings scope.
    #[error("plan needs settings_scope: it is mandatory and never inferred")]
    MissingSettingsScope,
    /// A mandatory argument is absent.
    #[error("{verb} needs {field}")]
    MissingArgument {
        /// The verb.
        verb: Verb,
        /// The argument.
        field: &'static str,
    },
    /// An identifier argument without its shape.
    #[error("{field}: {refusal}")]
    MalformedArgument {
        /// The argument.
        field: &'static str,
        /// Why it was refused.
        refusal: IdRefusal,
    },
}

impl CallError {
    /// The denial this maps to (spec §6): a missing or malformed tool id is `UNKNOWN_TOOL`
    /// (no adapter can know it); everything else is `LIFECYCLE_ERROR`.
    pub fn deny_code(&self) -> pb::DenyCode {
        match self {
            CallError::MissingTool { .. } | CallError::MalformedTool(_) => {
                pb::DenyCode::UnknownTool
            }
            CallError::OutsideVocabulary(_)
            | CallError::MissingSettingsScope
            | CallError::MissingArgument { .. }
            | CallError::MalformedArgument { .. } => pb::DenyCode::LifecycleError,
        }
    }

    // spec[S4-VOCABULARY] §4: the remediation of a vocabulary error lists the accepted tokens.
    // spec[S6-REMEDIATION] §6: never empty.
    /// What the client should do; never empty, and for a vocabulary error it lists the
    /// accepted tokens (spec §4).
    pub fn remediation(&self) -> String {
        match self {
            CallError::MissingTool { .. } | CallError::MalformedTool(_) => {
                "set tool_id to one of the tool ids returned by list_tools".to_owned()
            }
            CallError::OutsideVocabulary(e) => e.remediation(),
            CallError::MissingSettingsScope => {
                format!(
                    "set settings_scope to one of: {}",
                    SettingsScope::TOKENS.join(", ")
                )
            }
            CallError::MissingArgument { field, .. } => format!("set {field}"),
            CallError::MalformedArgument { field, refusal } => {
                format!("set {field} to {}", refusal.expected)
            }
        }
    }
}

fn tool(verb: Verb, req: &pb::Request) -> Result<ToolId, CallError> {
    if req.tool_id.is_empty() {
        return Err(CallError::MissingTool { verb });
    }
    ToolId::parse(&req.tool_id).map_err(CallError::MalformedTool)
}

fn required_id<T>(
    verb: Verb,
    text: Option<&str>,
    field: &'static str,
    parse: fn(&str) -> Result<T, IdRefusal>,
) -> Result<T, CallError> {
    match text {
        None | Some("") => Err(CallError::MissingArgument { verb, field }),
        Some(t) => parse(t).map_err(|refusal| CallError::MalformedArgument { field, refusal }),
    }
}

fn optional_id<T>(
    text: Option<&str>,
    field: &'static str,
    parse: fn(&str) -> Result<T, IdRefusal>,
) -> Result<Option<T>, CallError> {
    match text {
        None | Some("") => Ok(None),
        Some(t) => parse(t)
            .map(Some)
            .map_err(|refusal| CallError::MalformedArgument { field, refusal }),
    }
}

impl VerbCall {
    /// Only the request's tool, for a session that checks the token's tool scope before
    /// the tool is known and the arguments are read (spec §6 order): `None` for
    /// `list_tools`, the typed tool otherwise.
    pub fn requested_tool(verb: Verb, req: &pb::Request) -> Result<Option<ToolId>, CallError> {
        if verb.rule().tool_scoped {
            tool(verb, req).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Read the typed call from a request whose verb the session already resolved to
    /// `verb` (spec §6 step 1). Argument messages of other verbs are ignored; `list_tools`
    /// ignores `tool_id`.
    pub fn parse(verb: Verb, req: &pb::Request) -> Result<VerbCall, CallError> {
        Ok(match verb {
            Verb::ListTools => VerbCall::ListTools,
            Verb::Plan => {
                let tool = tool(verb, req)?;
                // spec[S4-SCOPE-MANDATORY] §4: settings scope is mandatory on plan, never inferred.
                let args = req.plan.as_ref().ok_or(CallError::MissingSettingsScope)?;
                if args.settings_scope.is_empty() {
                    return Err(CallError::MissingSettingsScope);
                }
                VerbCall::Plan {
                    tool,
                    args: PlanArgs {
                        profile: Profile::parse_as(&args.profile, "plan.profile")?,
                        requested_level: Level::parse_requested(&args.requested_level)?,
                        scope: SettingsScope::parse_as(
                            &args.settings_scope,
                            "plan.settings_scope",
                        )?,
                        allow_privileged_host_steps: args.allow_privileged_host_steps,
                        policy_profile_id: optional_id(
                            Some(&args.policy_profile_id),
                            "plan.policy_profile_id",
                            PolicyProfileId::parse,
                        )?,
                    },
                }
            }
            Verb::Apply => VerbCall::Apply {
                tool: tool(verb, req)?,
                plan_id: required_id(
                    verb,
                    req.apply.as_ref().map(|a| a.plan_id.as_str()),
                    "apply.plan_id",
                    PlanId::parse,
                )?,
            },
            Verb::Status => VerbCall::Status {
                tool: tool(verb, req)?,
            },
            Verb::Verify => VerbCall::Verify {
                tool: tool(verb, req)?,
            },
            Verb::Repair => VerbCall::Repair {
                tool: tool(verb, req)?,
            },
            Verb::Remove => VerbCall::Remove {
                tool: tool(verb, req)?,
                plan_id: optional_id(
                    req.remove.as_ref().map(|r| r.plan_id.as_str()),
                    "remove.plan_id",
                    PlanId::parse,
                )?,
            },
            Verb::ScopedEvents => {
                let tool = tool(verb, req)?;
                let args = req.events.unwrap_or_default();
                VerbCall::ScopedEvents {
                    tool,
                    limit: args.limit,
                    since: UnixSecs::new(args.since_unix_secs),
                }
            }
            Verb::ApprovalRelay => {
                let tool = tool(verb, req)?;
                let args = req.approval.as_ref();
                let approval_id = required_id(
                    verb,
                    args.map(|a| a.approval_id.as_str()),
                    "approval.approval_id",
                    ApprovalId::parse,
                )?;
                let input = match args.map(|a| a.user_input.as_str()) {
                    None | Some("") => {
                        return Err(CallError::MissingArgument {
                            verb,
                            field: "approval.user_input",
                        })
                    }
                    Some(t) => UserInput::parse_as(t, "approval.user_input")?,
                };
                VerbCall::ApprovalRelay {
                    tool,
                    approval_id,
                    input,
                }
            }
        })
    }

    /// The verb.
    pub fn verb(&self) -> Verb {
        match self {
            VerbCall::ListTools => Verb::ListTools,
            VerbCall::Plan { .. } => Verb::Plan,
            VerbCall::Apply { .. } => Verb::Apply,
            VerbCall::Status { .. } => Verb::Status,
            VerbCall::Verify { .. } => Verb::Verify,
            VerbCall::Repair { .. } => Verb::Repair,
            VerbCall::Remove { .. } => Verb::Remove,
            VerbCall::ScopedEvents { .. } => Verb::ScopedEvents,
            VerbCall::ApprovalRelay { .. } => Verb::ApprovalRelay,
        }
    }

    // spec[S10-MUTATIONS] §10 (b): a lifecycle mutation is audited with its outcome.
    /// The lifecycle mutation this call is audited as (spec §10 (b)): the verb table's
    /// mutation column, except that a `remove` without a plan id only previews a removal
    /// and mutates nothing.
    pub fn mutation(&self) -> Option<MutationVerb> {
        match self {
            VerbCall::Remove { plan_id: None, .. } => None,
            call => call.verb().rule().mutation,
        }
    }

    /// The tool, for every verb but `list_tools`.
    pub fn tool(&self) -> Option<&ToolId> {
        match self {
            VerbCall::ListTools => None,
            VerbCall::Plan { tool, .. }
            | VerbCall::Apply { tool, .. }
            | VerbCall::Status { tool }
            | VerbCall::Verify { tool }
            | VerbCall::Repair { tool }
            | VerbCall::Remove { tool, .. }
            | VerbCall::ScopedEvents { tool, .. }
            | VerbCall::ApprovalRelay { tool, .. } => Some(tool),
        }
    }

    /// The wire request for this call, presenting `token` as given (a test, or a client
    /// that holds its token as text). The session client does not use this: it writes its
    /// [`TokenSecret`](crate::auth::TokenSecret) straight into the request's field instead.
    pub fn to_request(&self, request_id: u64, token: &str) -> pb::Request {
        let mut req = self.to_request_without_token(request_id);
        req.capability_token = token.to_owned();
        req
    }

    /// The wire request for this call with an empty `capability_token`, for the caller to
    /// fill.
    pub fn to_request_without_token(&self, request_id: u64) -> pb::Request {
        let mut req = pb::Request {
            request_id,
            verb: self.verb().to_wire() as i32,
            tool_id: self
                .tool()
                .map(|t| t.as_str().to_owned())
                .unwrap_or_default(),
            ..pb::Request::default()
        };
        match self {
            VerbCall::ListTools
            | VerbCall::Status { .. }
            | VerbCall::Verify { .. }
            | VerbCall::Repair { .. } => {}
            VerbCall::Plan { args, .. } => {
                req.plan = Some(pb::PlanArgs {
                    profile: args.profile.token().to_owned(),
                    requested_level: args.requested_level.token().to_owned(),
                    settings_scope: args.scope.token().to_owned(),
                    allow_privileged_host_steps: args.allow_privileged_host_steps,
                    policy_profile_id: args
                        .policy_profile_id
                        .as_ref()
                        .map(|p| p.as_str().to_owned())
                        .unwrap_or_default(),
                });
            }
            VerbCall::Apply { plan_id, .. } => {
                req.apply = Some(pb::ApplyArgs {
                    plan_id: plan_id.as_str().to_owned(),
                });
            }
            VerbCall::Remove { plan_id, .. } => {
                req.remove = Some(pb::RemoveArgs {
                    plan_id: plan_id
                        .as_ref()
                        .map(|p| p.as_str().to_owned())
                        .unwrap_or_default(),
                });
            }
            VerbCall::ScopedEvents { limit, since, .. } => {
                req.events = Some(pb::ScopedEventsArgs {
                    limit: *limit,
                    since_unix_secs: since.get(),
                });
            }
            VerbCall::ApprovalRelay {
                approval_id, input, ..
            } => {
                req.approval = Some(pb::ApprovalRelayArgs {
                    approval_id: approval_id.as_str().to_owned(),
                    user_input: input.token().to_owned(),
                });
            }
        }
        req
    }
}

/// The answer to one verb: exactly the view for that verb.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "verb", content = "view", rename_all = "snake_case")]
pub enum VerbResult {
    /// `list_tools` → `tool_list`.
    ListTools(ToolList),
    /// `plan` → `plan`.
    Plan(PlanView),
    /// `apply` → `apply`.
    Apply(ApplyView),
    /// `status` → `status`.
    Status(StatusView),
    /// `verify` → `verification`.
    Verify(VerificationView),
    /// `repair` → `repair`.
    Repair(RepairView),
    /// `remove` → `removal`.
    Remove(RemovalView),
    /// `scoped_events` → `events`.
    ScopedEvents(ScopedEventList),
    /// `approval_relay` → `approval`.
    ApprovalRelay(ApprovalRelayAck),
}

/// A response that does not answer the request it claims to (client side).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseError {
    /// `Response.verb` is not the request's verb.
    #[error("the response names verb {got}, not the request's {expected}: protocol error")]
    VerbMismatch {
        /// The request's verb.
        expected: Verb,
        /// The wire verb number received.
        got: i32,
    },
    /// Not exactly one view was set.
    #[error("the response to {expected} sets {set} views instead of exactly one: protocol error")]
    ViewCount {
        /// The request's verb.
        expected: Verb,
        /// How many views were set.
        set: usize,
    },
    /// The one view set is not the verb's.
    #[error("the response to {expected} carries another verb's view: protocol error")]
    WrongView {
        /// The request's verb.
        expected: Verb,
    },
    /// The view did not parse.
    #[error(transparent)]
    View(#[from] ViewError),
}

fn views_set(r: &pb::Response) -> usize {
    [
        r.tool_list.is_some(),
        r.plan.is_some(),
        r.apply.is_some(),
        r.status.is_some(),
        r.verification.is_some(),
        r.repair.is_some(),
        r.removal.is_some(),
        r.events.is_some(),
        r.approval.is_some(),
    ]
    .into_iter()
    .filter(|&b| b)
    .count()
}

impl VerbResult {
    /// The verb this answers.
    pub fn verb(&self) -> Verb {
        match self {
            VerbResult::ListTools(_) => Verb::ListTools,
            VerbResult::Plan(_) => Verb::Plan,
            VerbResult::Apply(_) => Verb::Apply,
            VerbResult::Status(_) => Verb::Status,
            VerbResult::Verify(_) => Verb::Verify,
            VerbResult::Repair(_) => Verb::Repair,
            VerbResult::Remove(_) => Verb::Remove,
            VerbResult::ScopedEvents(_) => Verb::ScopedEvents,
            VerbResult::ApprovalRelay(_) => Verb::ApprovalRelay,
        }
    }

    // spec[S6-ECHO] §6: `Response.request_id` and `Response.verb` echo the request.
    /// The wire response at the negotiated `version`: echoes `request_id` and the verb and
    /// sets exactly one view, the one for the verb (spec §6).
    pub fn into_response(self, request_id: u64, version: ApiVersion) -> pb::Response {
        let mut r = pb::Response {
            request_id,
            verb: self.verb().to_wire() as i32,
            ..pb::Response::default()
        };
        // spec[S6-ONE-VIEW] §6: exactly one view is set, the one for the verb.
        match &self {
            VerbResult::ListTools(v) => r.tool_list = Some(v.to_wire(version)),
            VerbResult::Plan(v) => r.plan = Some(Box::new(v.to_wire(version))),
            VerbResult::Apply(v) => r.apply = Some(Box::new(v.to_wire(version))),
            VerbResult::Status(v) => r.status = Some(Box::new(v.to_wire(version))),
            VerbResult::Verify(v) => r.verification = Some(Box::new(v.to_wire(version))),
            VerbResult::Repair(v) => r.repair = Some(Box::new(v.to_wire(version))),
            VerbResult::Remove(v) => r.removal = Some(Box::new(v.to_wire(version))),
            VerbResult::ScopedEvents(v) => r.events = Some(v.to_wire(version)),
            VerbResult::ApprovalRelay(v) => r.approval = Some(v.to_wire(version)),
        }
        r
    }

    /// Read the answer to a `verb` request from a response at the negotiated `version`
    /// (client side). The response must name `verb` and set exactly its view. The request
    /// id is the caller's to match.
    pub fn from_response(
        verb: Verb,
        resp: &pb::Response,
        version: ApiVersion,
    ) -> Result<VerbResult, ResponseError> {
        // spec[S6-ONE-VIEW] §6: `Response.verb` echoes the request; exactly one view is set.
        if resp.verb != verb.to_wire() as i32 {
            return Err(ResponseError::VerbMismatch {
                expected: verb,
                got: resp.verb,
            });
        }
        let set = views_set(resp);
        if set != 1 {
            return Err(ResponseError::ViewCount {
                expected: verb,
                set,
            });
        }
        let wrong = ResponseError::WrongView { expected: verb };
        Ok(match verb {
            Verb::ListTools => VerbResult::ListTools(ToolList::from_wire(
                resp.tool_list.as_ref().ok_or(wrong)?,
                version,
            )?),
            Verb::Plan => VerbResult::Plan(PlanView::from_wire(
                resp.plan.as_ref().ok_or(wrong)?,
                version,
            )?),
            Verb::Apply => VerbResult::Apply(ApplyView::from_wire(
                resp.apply.as_ref().ok_or(wrong)?,
                version,
            )?),
            Verb::Status => VerbResult::Status(StatusView::from_wire(
                resp.status.as_ref().ok_or(wrong)?,
                version,
            )?),
            Verb::Verify => VerbResult::Verify(VerificationView::from_wire(
                resp.verification.as_ref().ok_or(wrong)?,
                version,
            )?),
            Verb::Repair => VerbResult::Repair(RepairView::from_wire(
                resp.repair.as_ref().ok_or(wrong)?,
                version,
            )?),
            Verb::Remove => VerbResult::Remove(RemovalView::from_wire(
                resp.removal.as_ref().ok_or(wrong)?,
                version,
            )?),
            Verb::ScopedEvents => VerbResult::ScopedEvents(ScopedEventList::from_wire(
                resp.events.as_ref().ok_or(wrong)?,
                version,
            )?),
            Verb::ApprovalRelay => VerbResult::ApprovalRelay(ApprovalRelayAck::from_wire(
                resp.approval.as_ref().ok_or(wrong)?,
                version,
            )?),
        })
    }
}
